"""Type I results: the small-sample coefficient of variation CV* and its companions."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from ..errors import QRAInputError, undefined
from ._validation import Batch, as_values, replacement, rescaled, undefined_reason, undefined_reasons


@dataclass(frozen=True)
class CVStar:
    """CV* of one set of measured quantity values, with the statistics reported beside it.

    ``mean`` and ``sd`` are on the shifted values (``values - scale_min``), as in the papers;
    ``sd`` is the unbiased s* = s / c4(n).  ``reason`` is empty unless ``cv_star`` is undefined.
    """

    cv_star: float
    mean: float
    sd: float
    ci95: tuple[float, float]
    n: int
    within_1sd: float
    within_2sd: float
    reason: str = ""

    def sd_interval(self, level: float = 0.95) -> tuple[float, float]:
        r"""A confidence interval for the standard deviation that is never negative (``ci95``, the
        papers' s* ± t SE(s*), goes below 0 for small n): the chi-square interval

        .. math::

            \left[\, s\sqrt{\frac{n-1}{\chi^2_{1-\alpha/2,\,n-1}}},\;
                    s\sqrt{\frac{n-1}{\chi^2_{\alpha/2,\,n-1}}} \,\right], \qquad s = s^* c_4(n),

        exact for normally distributed values (NIST/SEMATECH e-Handbook of Statistical Methods,
        section 7.2.3.1; Sheskin 2011, Test 3).  Undefined (nan, nan) for n < 2.

        >>> r = cv_star([5.36, 6.14], scale_min=1)
        >>> tuple(round(x, 3) for x in r.ci95), tuple(round(x, 3) for x in r.sd_interval())
        ((-3.263, 4.645), (0.246, 17.6))
        """
        from scipy.stats import chi2

        if self.n < 2 or not np.isfinite(self.sd):
            return (float("nan"), float("nan"))
        s, df, alpha = self.sd * c4(self.n), self.n - 1, 1 - level
        return (s * math.sqrt(df / chi2.ppf(1 - alpha / 2, df)), s * math.sqrt(df / chi2.ppf(alpha / 2, df)))


def c4(n: int) -> float:
    """The bias-correction factor c4(n) = sqrt(2/(n-1)) * Gamma(n/2) / Gamma((n-1)/2).

    Computed with ``lgamma`` so that it stays finite for large n (``math.gamma`` overflows
    at about n = 343, which is where the authors' reference code stops working).

    Parameters
    ----------
    n : int
        Sample size, at least 2.

    Returns
    -------
    float
        c4(n), so that s / c4(n) is an unbiased estimate of the standard deviation of a
        normal population (the s* of CV*).

    References
    ----------
    Belz, A., Popovic, M., & Mille, S. (2022). Quantified reproducibility assessment of NLP
    results, section 3.1. ACL 2022. https://doi.org/10.18653/v1/2022.acl-long.2

    Examples
    --------
    >>> round(c4(2), 6), round(c4(8), 6), round(c4(10_000), 6)
    (0.797885, 0.96503, 0.999975)
    """
    return math.sqrt(2.0 / (n - 1)) * math.exp(math.lgamma(n / 2.0) - math.lgamma((n - 1) / 2.0))


def cv_star(
    values: npt.ArrayLike,
    *,
    scale_min: float | None = None,
    small_sample_factor: bool = True,
    replace_undefined_by: float = float("nan"),
) -> CVStar:
    r"""Unbiased coefficient of variation CV* (in percent) of ``values``.

    .. math::

        CV^* = \left(1 + \frac{1}{4n}\right) \frac{s^*}{|\bar v|} \cdot 100,
        \qquad s^* = \frac{s}{c_4(n)},
        \qquad c_4(n) = \sqrt{\frac{2}{n-1}}\,\frac{\Gamma(n/2)}{\Gamma((n-1)/2)}

    where ``s`` is the Bessel-corrected sample standard deviation of the values after
    subtracting ``scale_min`` (QRA 2022 section 3.1: shift scales to start at 0, otherwise
    CV* reflects only the different scale minima).  QRA++ (Belz 2025) section 6.1, eqs. 2-3;
    Belz, Popovic & Mille (2022) section 3.1; Belz (2021) section 4.2.

    The 95% confidence interval of s* uses a t-distribution with n-1 degrees of freedom,
    centred on s*, with standard error ``se(s^2) / (2 s*)`` and
    ``se(s^2) = s^2 * sqrt(2 / (n-1))`` (QRA 2022 section 3.1, as in the authors' code).
    ``within_1sd`` / ``within_2sd`` are the fractions of values *strictly* within 1 and 2 s*
    of the mean.

    CV* does not depend on the unit, and it is computed that way: the shifted values are
    divided by a power of two near their largest magnitude first (exact), so values near
    1e160 or 1e-200 give the CV* of the same values near 1 instead of ``inf`` or 0.

    Undefined rule (:func:`~qra_widgets.measures._validation.undefined_reason`): a mean of
    0 after shifting, to the precision of the input, makes CV* a ratio over 0; ``cv_star``
    is then ``replace_undefined_by`` with an :class:`~qra_widgets.UndefinedMeasureWarning`
    and ``reason`` says why.  No variation is *not* undefined: CV* is 0 (Belz 2021 section
    5.1 reports CV* = 0 for the two identical CBD-scale weighings), with CI (0, 0).

    Parameters
    ----------
    values : array_like of float
        At least two finite measured quantity values of one system and measurand.
    scale_min : float or None, keyword-only
        Lowest point of the rating scale; subtracted before anything is computed.  A value
        below it is malformed (:class:`~qra_widgets.QRAInputError`), as in the study model.
        ``None`` (default): no shift and no lower bound (e.g. metric scores of any sign).
    small_sample_factor : bool, keyword-only
        Apply the (1 + 1/(4n)) factor of QRA 2022 eq. 1 / QRA++ eq. 3 (default, as the
        papers publish).  ``False`` gives ``CV* = s*/|mean| x 100``, as the organisers' QRA3
        tool computes it with ``apply_over_correction: false`` (its ``data.json``
        ``coefficient_of_variation``); see :mod:`qra_widgets.conventions`.
    replace_undefined_by : float, keyword-only
        Returned as ``cv_star`` when CV* is undefined (default ``nan``).

    Returns
    -------
    CVStar
        ``cv_star`` (percent) with the shifted mean, s*, the 95% CI of s*, n, the shares
        of values within 1 and 2 s*, and the reason when undefined.

    References
    ----------
    Belz, A. (2021). Quantifying reproducibility in NLP and ML. arXiv:2109.01211.
    https://doi.org/10.48550/arXiv.2109.01211

    Belz, A., Popovic, M., & Mille, S. (2022). Quantified reproducibility assessment of NLP
    results. ACL 2022, 16-28. https://doi.org/10.18653/v1/2022.acl-long.2

    Examples
    --------
    QRA 2022 Table 4, NTS_def BLEU (seven measurements):

    >>> r = cv_star([84.51, 84.50, 87.46, 85.60, 84.20, 86.61, 86.20])
    >>> round(r.cv_star, 3), round(r.mean, 2), round(r.sd, 2), r.n
    (1.562, 85.58, 1.29, 7)

    PASS Fluency on a 1..7 scale, shifted to 0..6 (QRA 2022 Table 2):

    >>> r = cv_star([5.36, 6.14], scale_min=1)
    >>> round(r.cv_star, 3), r.mean, round(r.sd, 3), tuple(round(x, 2) for x in r.ci95)
    (16.372, 4.75, 0.691, (-3.26, 4.65))

    The QRA3 tool's Yao 2022 Readability GT value (its ``table.csv``: 12.01), without the factor:

    >>> round(cv_star([4.946280991735537, 4.7053941908713695, 4.384297520661157,
    ...                4.049586776859504], scale_min=1, small_sample_factor=False).cv_star, 2)
    12.01
    """
    replace_undefined_by = replacement(replace_undefined_by)
    raw = as_values(values, "values")
    if scale_min is not None:
        scale_min = _scale_min(scale_min)
        _shifted(raw, scale_min)  # refuses a value below the scale, or beyond the float range after the shift
    return cv_star_checked(
        raw, scale_min=scale_min, small_sample_factor=small_sample_factor, replace_undefined_by=replace_undefined_by
    )


def cv_star_checked(
    raw: np.ndarray,
    *,
    scale_min: float | None = None,
    small_sample_factor: bool = True,
    replace_undefined_by: float = float("nan"),
) -> CVStar:
    """:func:`cv_star` of values already checked: ``raw`` a 1-D float array of at least two finite
    values, none below ``scale_min`` (a float or None), as a validated
    :class:`~qra_widgets.Study` guarantees; ``assess()`` validates the study once and calls this
    per system, instead of checking every system's values again.

    >>> round(cv_star_checked(np.array([5.36, 6.14]), scale_min=1.0).cv_star, 3)
    16.372
    """
    magnitude = float(np.max(np.abs(raw)))
    if scale_min is not None:
        scale_min = float(scale_min)
        magnitude = max(magnitude, abs(scale_min))
        shifted = raw - scale_min
    else:
        shifted = raw
    scaled, unit = rescaled(shifted)
    n = scaled.size
    mean_scaled = float(scaled.mean())
    # s does not change when a constant is subtracted; subtracting the first value is exact
    # for values within a factor 2 of it (Sterbenz), so nearly equal values keep their spread
    s_scaled = float((scaled - scaled[0]).std(ddof=1))
    sd_scaled = s_scaled / c4(n)
    distance = np.abs(scaled - mean_scaled)
    within_1sd = float(np.mean(distance < sd_scaled))
    within_2sd = float(np.mean(distance < 2 * sd_scaled))
    low, high = _sd_confidence_interval(s_scaled, sd_scaled, n)
    mean, sd, ci95 = mean_scaled * unit, sd_scaled * unit, (low * unit, high * unit)
    _representable(mean, sd, *ci95)
    # one row: cv_star_batch's formula and undefined rule on the statistics above (the same
    # floating-point operations), without the batch's set-up for a stack of rows
    reason = undefined_reason("CV*", mean=mean, magnitude=magnitude)
    if reason:
        return CVStar(undefined(reason, replace_undefined_by), mean, sd, ci95, n, within_1sd, within_2sd, reason)
    value = _cv_formula(s_scaled, mean_scaled, c4(n), _factor(n, small_sample_factor))
    return CVStar(float(value), mean, sd, ci95, n, within_1sd, within_2sd)


def cv_star_batch(
    shifted: npt.ArrayLike, *, magnitude: npt.ArrayLike | None = None, small_sample_factor: bool = True
) -> Batch:
    r"""CV* of every row of ``shifted`` (..., n) at once, NaN = a value not present: the one
    implementation behind :func:`cv_star` (one row) and the bootstrap (a (B, ..., n) stack).

    .. math:: CV^* = \left(1 + \frac{1}{4n}\right) \frac{s / c_4(n)}{|\bar v|} \cdot 100

    on values already shifted by the scale minimum.  Each row is divided by a power of two
    near its largest magnitude first (exact), and s is taken after subtracting the row's
    first value (exact for nearly equal values), as :func:`cv_star` does.  ``magnitude`` (per
    row; default the largest shifted magnitude) is what the undefined rule compares the mean
    with: the largest raw value or scale minimum that went into it.  Rows with fewer than two
    values, or whose mean is 0 to the precision of the input, are undefined (``nan`` with the
    reason).

    >>> found = cv_star_batch([[4.36, 5.14], [2.0, float("nan")], [1.0, -1.0]])
    >>> found.values.round(3).tolist(), [r[:29] for r in found.reasons]
    ([16.372, nan, nan], ['', 'CV* is undefined: only 1 valu', 'CV* is undefined: the mean of'])
    """
    values = np.asarray(shifted, dtype=float)
    present = ~np.isnan(values)
    n = present.sum(axis=-1)
    absolute = np.where(present, np.abs(values), 0.0)
    largest = absolute.max(axis=-1)
    magnitude = largest if magnitude is None else np.broadcast_to(np.asarray(magnitude, dtype=float), largest.shape)
    exponent = np.minimum(np.frexp(largest)[1], 1023)
    scaled = np.ldexp(values, -exponent[..., None])
    safe = np.maximum(n, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_scaled = np.nansum(scaled, axis=-1) / safe
        first = np.take_along_axis(scaled, np.argmax(present, axis=-1)[..., None], axis=-1)
        deviations = np.where(present, scaled - first, np.nan)
        centred = deviations - (np.nansum(deviations, axis=-1) / safe)[..., None]
        s = np.sqrt(np.nansum(centred * centred, axis=-1) / np.maximum(n - 1, 1))
        factors = {int(k): (c4(int(k)), _factor(int(k), small_sample_factor)) for k in np.unique(n) if k >= 2}
        c4_n = np.ones(n.shape)
        factor = np.ones(n.shape)
        for k, (c, f) in factors.items():
            c4_n[n == k], factor[n == k] = c, f
        cv = _cv_formula(s, mean_scaled, c4_n, factor)
    mean = mean_scaled * np.ldexp(1.0, exponent)
    reasons = undefined_reasons(
        "CV*",
        n.size,
        count=(n.ravel(), 2, "value(s) present"),
        mean=mean.ravel(),
        magnitude=np.asarray(magnitude).ravel(),
    ).reshape(n.shape)
    return Batch(cv, reasons)


def _factor(n: int, small_sample_factor: bool) -> float:
    """The small-sample factor (1 + 1/(4n)) of QRA 2022 eq. 1, or 1 without it."""
    return (1 + 1 / (4 * n)) if small_sample_factor else 1.0


def _cv_formula(s, mean_scaled, c4_n, factor):
    """CV* from s and the mean of the same (scaled) values: the one formula of :func:`cv_star`
    (one row, Python floats) and :func:`cv_star_batch` (arrays); the same operations in the same order."""
    return factor * (s / c4_n) / np.abs(mean_scaled) * 100


def _shifted(raw: np.ndarray, scale_min: float) -> np.ndarray:
    """``raw - scale_min``, refusing a value below the scale (the study model refuses it too)."""
    below = raw < scale_min
    if below.any():
        position = int(np.flatnonzero(below)[0])
        raise QRAInputError(
            f"values: value {float(raw[position])!r} at position {position} is below scale_min {scale_min!r}"
        )
    with np.errstate(over="ignore"):
        shifted = raw - scale_min
    if not np.isfinite(shifted).all():
        position = int(np.flatnonzero(~np.isfinite(shifted))[0])
        raise QRAInputError(
            f"values: value {float(raw[position])!r} at position {position} minus scale_min {scale_min!r} "
            "is beyond the float range"
        )
    return shifted


def _scale_min(scale_min) -> float:
    if isinstance(scale_min, (bool, np.bool_)) or not isinstance(scale_min, (numbers.Real, np.floating, np.integer)):
        raise QRAInputError(f"scale_min: must be a finite number or None, got {scale_min!r}")
    if not math.isfinite(scale_min):
        raise QRAInputError(f"scale_min: must be a finite number or None, got {scale_min!r}")
    return float(scale_min)


@lru_cache(maxsize=256)
def _t_quantile(degrees_of_freedom: int) -> float:
    """The 0.975 quantile of Student's t: ``scipy.special.stdtrit``, which ``scipy.stats.t.ppf``
    calls (the same value); importing scipy.stats for it cost a fresh process about 1 s of CPU,
    most of a first ``assess()``."""
    from scipy.special import stdtrit

    return float(stdtrit(degrees_of_freedom, 0.975))


def _sd_confidence_interval(s: float, sd: float, n: int) -> tuple[float, float]:
    """scipy's ``t.interval(0.95, n - 1, loc=s*, scale=se)``, with the quantile cached per n."""
    if sd == 0:
        return (0.0, 0.0)
    return _t_interval(sd, s * s * math.sqrt(2 / (n - 1)) / (2 * sd), n)


def _t_interval(sd: float, se: float, n: int) -> tuple[float, float]:
    half_width = _t_quantile(n - 1) * se
    return (sd - half_width, sd + half_width)


@dataclass(frozen=True)
class SDStandardError:
    """The standard error of s*, the 95% t-interval built on it, and the excess kurtosis used.

    ``kurtosis`` is ``None`` for ``normal=True`` (none is used); ``reason`` is empty unless
    ``se`` is undefined.
    """

    se: float
    ci95: tuple[float, float]
    kurtosis: float | None
    n: int
    reason: str = ""


def sd_standard_error(
    values: npt.ArrayLike,
    *,
    scale_min: float | None = None,
    normal: bool = True,
    replace_undefined_by: float = float("nan"),
) -> SDStandardError:
    r"""Standard error of the unbiased standard deviation s* of ``values``, and its 95% CI.

    .. math::

        SE(s^*) = \frac{SE(s^2)}{2 s^*}, \qquad
        SE(s^2) = s^2 \sqrt{\frac{2}{n-1} + \frac{\kappa}{n}}, \qquad
        CI_{95} = s^* \pm t_{0.975,\,n-1}\, SE(s^*)

    (the delta method on s^2, as QRA 2022 section 3.1).  With ``normal=True`` the excess
    kurtosis kappa is 0, which gives QRA 2022's ``se(s^2) = s^2 sqrt(2/(n-1))`` and the
    CI :func:`cv_star` reports (``ci95``, equal to the last bit).  With ``normal=False``
    kappa is the sample excess kurtosis (Fisher's, bias-corrected:
    ``scipy.stats.kurtosis(fisher=True, bias=False)``), and the variance of s^2 is its
    large-sample value for any distribution with a fourth moment, sigma^4 (2/(n-1) + kappa/n)
    (O'Neill 2014, result 3, with kurtosis kappa + 3).  This is the organisers' QRA3
    ``normal_data: false`` option; their published example has no such criterion, so that
    branch is the textbook formula, not a reproduced number.

    Values are shifted by ``scale_min`` first, as for :func:`cv_star` (s does not change;
    s* and the CI are on the same scale as :attr:`CVStar.sd`).  No variation gives SE 0
    and CI (0, 0).

    Undefined (``se`` and ``ci95`` are ``replace_undefined_by`` with an
    :class:`~qra_widgets.UndefinedMeasureWarning`): ``normal=False`` with fewer than 4
    values (the sample kurtosis needs 4), or a kurtosis so negative that the estimated
    variance of s^2 is not positive.

    Parameters
    ----------
    values : array_like of float
        At least two finite measured quantity values of one system and measurand.
    scale_min : float or None, keyword-only
        Lowest point of the rating scale, subtracted first (as :func:`cv_star`).
    normal : bool, keyword-only
        Assume normally distributed values (kappa = 0, the default, as QRA 2022 and QRA3's
        ``normal_data: true``); ``False`` estimates kappa from the values.
    replace_undefined_by : float, keyword-only
        Returned as ``se`` and both CI ends when undefined (default ``nan``).

    Returns
    -------
    SDStandardError
        ``se``, ``ci95`` (t-distribution, n-1 degrees of freedom, centred on s*),
        ``kurtosis`` (``None`` when ``normal``), ``n`` and the reason when undefined.

    References
    ----------
    Belz, A., Popovic, M., & Mille, S. (2022). Quantified reproducibility assessment of NLP
    results. ACL 2022, 16-28. https://doi.org/10.18653/v1/2022.acl-long.2

    O'Neill, B. (2014). Some useful moment results in sampling problems. The American
    Statistician, 68(4), 282-296. https://doi.org/10.1080/00031305.2014.966589

    Examples
    --------
    PASS Fluency on a 1..7 scale (QRA 2022 Table 2): the CI that :func:`cv_star` reports.

    >>> r = sd_standard_error([5.36, 6.14], scale_min=1)
    >>> round(r.se, 4), tuple(round(x, 2) for x in r.ci95), r.kurtosis
    (0.3112, (-3.26, 4.65), None)
    >>> r.ci95 == cv_star([5.36, 6.14], scale_min=1).ci95
    True

    Five values with heavy tails: kappa > 0 widens the interval.

    >>> r = sd_standard_error([1.0, 2.0, 2.0, 2.0, 5.0], normal=False)
    >>> round(r.kurtosis, 4), round(r.se, 4), round(sd_standard_error([1.0, 2.0, 2.0, 2.0, 5.0]).se, 4)
    (3.724, 0.7953, 0.504)
    """
    replace_undefined_by = replacement(replace_undefined_by)
    raw = as_values(values, "values")
    if scale_min is not None:
        raw = _shifted(raw, _scale_min(scale_min))
    scaled, unit = rescaled(raw)
    n = scaled.size
    s = float((scaled - scaled[0]).std(ddof=1))  # as cv_star: exact for nearly equal values
    sd = s / c4(n)
    kurtosis = None
    variance = 2 / (n - 1)
    if not normal:
        reason = undefined_reason("SE of s* (normal=False)", count=(n, 4, "values (the sample kurtosis needs 4)"))
        if reason:
            missing = undefined(reason, replace_undefined_by)
            return SDStandardError(missing, (missing, missing), float("nan"), n, reason)
        if s == 0:
            return SDStandardError(0.0, (0.0, 0.0), float("nan"), n)
        from scipy.stats import kurtosis as sample_kurtosis

        kurtosis = float(sample_kurtosis(scaled, fisher=True, bias=False))
        variance += kurtosis / n
        if not variance > 0:
            reason = (
                f"SE of s* (normal=False) is undefined: the estimated variance of s^2 is not positive "
                f"(sample excess kurtosis {kurtosis:.4g} with n = {n})"
            )
            missing = undefined(reason, replace_undefined_by)
            return SDStandardError(missing, (missing, missing), kurtosis, n, reason)
    if s == 0:
        return SDStandardError(0.0, (0.0, 0.0), kurtosis, n)
    se = s * s * math.sqrt(variance) / (2 * sd)
    low, high = _t_interval(sd, se, n)
    _representable(se * unit, low * unit, high * unit)
    return SDStandardError(se * unit, (low * unit, high * unit), kurtosis, n)


def _representable(*numbers: float) -> None:
    """Refuse values whose mean, s* or interval lies beyond the float range (near 1.8e308): CV*
    itself is scale-free, but the statistics reported beside it would be infinite."""
    if not all(math.isfinite(x) for x in numbers):
        raise QRAInputError(
            "values: their mean, standard deviation or its interval is beyond the float range "
            "(about 1.8e308); give them in a smaller unit"
        )


def pair_cv_star(a: npt.ArrayLike, b: npt.ArrayLike, *, small_sample_factor: bool = True) -> np.ndarray:
    r"""CV* of many pairs of values at once: element ``k`` is ``cv_star([a[k], b[k]]).cv_star``.

    .. math::

        CV^*_k = \left(1 + \frac{1}{8}\right) \frac{|a_k - b_k| / (\sqrt{2}\, c_4(2))}{|(a_k + b_k)/2|} \cdot 100

    QRA++ (Belz 2025) eqs. 2-3 with n = 2 (the factor only with ``small_sample_factor``).
    Values are already shifted to start at 0.  A pair whose mean is 0 to the precision of its
    values gives ``nan`` (:func:`cv_star`'s undefined rule, without a warning per pair).  Used
    by the library's experiment-pair property analysis, where one call covers every system of a
    pair of experiments.

    Parameters
    ----------
    a, b : array_like
        The two experiments' values, one pair per position.
    small_sample_factor : bool
        Apply (1 + 1/(4n)) with n = 2, as :func:`cv_star` does.

    Returns
    -------
    numpy.ndarray
        CV* of each pair, in percent.

    References
    ----------
    Belz, A. (2025). QRA++: Quantified Reproducibility Assessment for Common Types of Results
    in Natural Language Processing. arXiv:2505.17043.

    Examples
    --------
    >>> pair_cv_star([3.0, 10.0, 1.0], [4.0, 10.5, -1.0]).round(3).tolist()
    [28.486, 4.863, nan]
    >>> round(cv_star([3.0, 4.0]).cv_star, 3)
    28.486
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return cv_star_batch(np.stack([a, b], axis=-1), small_sample_factor=small_sample_factor).values
