"""Intervals: what a bootstrap's replicates or a set of scores say about a measure's range, and
how they are attached to an :class:`~qra_widgets.assess.Assessment`.

* :func:`cv_interval` -- Vangel's (1996) analytic interval for a normal coefficient of variation
  (``ci_over`` = ``experiments``: other experiments from a normal population);
* :func:`interval` / :func:`interval_at` -- percentile and BCa intervals of bootstrap replicates
  (Efron & Tibshirani 1993), one-sided at a measure's boundary (CV* near 0; r, rho, tau, W, P,
  kappa, alpha near 1), so a perfect reproduction is not declared imperfect by its interval;
* :func:`assessment_intervals` -- the intervals of every value a bootstrap
  (:func:`qra_widgets.uncertainty.bootstrap`) resampled, with the words every rendering uses;
* :func:`interval_caution` -- the caution (the ``ci_note`` column) on an interval that the coverage
  study (``benchmarks/coverage.py``, docs/coverage.md) found to cover well under its stated level,
  from the rules in :data:`CAUTIONS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import NAN, QRAInputError

CI_METHODS = ("percentile", "bca")
CI_OVER = ("items", "items+raters", "systems", "experiments")
LOWER_BOUNDED = {"CV*"}  # 0 is the boundary: a perfect reproduction
UPPER_BOUNDED = {"r", "rho", "tau", "W", "P", "kappa", "fleiss_kappa", "alpha", "ac1", "bp"}  # 1 is the boundary


# ----------------------------------------------------------------------------- analytic CV interval


def cv_interval(values, scale_min: float = 0.0, *, ci: float = 0.95) -> tuple[float, float]:
    r"""Vangel's interval for the coefficient of variation (in percent), never below zero.

    .. math::

        \left[\frac{k}{\sqrt{\left(\frac{u_1+2}{\nu+1}-1\right)k^2+\frac{u_1}{\nu}}},\;
              \frac{k}{\sqrt{\left(\frac{u_2+2}{\nu+1}-1\right)k^2+\frac{u_2}{\nu}}}\right]

    with ``k = s/|mean|`` of the shifted values, nu = n - 1, u_1 and u_2 the chi-square(nu)
    quantiles at 1 - a/2 and a/2 (a = 1 - ci).  Vangel (1996), "Confidence intervals for a
    normal coefficient of variation", The American Statistician 50(1), eq. 6 (McKay 1932's
    interval with u+2 in place of u).  The upper end is infinite when its radicand is not
    positive.  It covers the population CV sigma/mu of normal measurements (``ci_over``
    ``experiments``), of which CV* (QRA 2022 section 3.1) is the small-sample estimate.

    Parameters
    ----------
    values : sequence of float
        At least two measured values of one system and measurand.
    scale_min : float
        Subtracted first (QRA 2022 section 3.1).
    ci : float
        Coverage, e.g. 0.95.

    Returns
    -------
    tuple of float
        Lower and upper end, in percent.

    References
    ----------
    Vangel, M. G. (1996). Confidence intervals for a normal coefficient of variation.
    The American Statistician, 50(1), 21-26.

    Examples
    --------
    PASS Fluency, QRA 2022 Table 2 (5.36 and 6.14 on 1..7): the t-based s* interval is
    (-3.26, 4.65); this one stays positive.

    >>> low, high = cv_interval([5.36, 6.14], scale_min=1)
    >>> round(low, 2), round(high, 1)
    (5.16, 369.3)
    """
    from scipy.stats import chi2

    shifted = np.asarray(values, dtype=float) - float(scale_min)
    n = shifted.size
    if n < 2 or not np.isfinite(shifted).all():
        raise QRAInputError(f"values: need at least 2 finite values, got {values!r}")
    if not 0 < ci < 1:
        raise QRAInputError(f"ci: must be between 0 and 1, got {ci!r}")
    mean = float(shifted.mean())
    if mean == 0:
        return (NAN, NAN)
    k = float(shifted.std(ddof=1)) / abs(mean)
    nu = n - 1
    u1, u2 = chi2.ppf(1 - (1 - ci) / 2, nu), chi2.ppf((1 - ci) / 2, nu)

    def end(u: float) -> float:
        radicand = ((u + 2) / (nu + 1) - 1) * k * k + u / nu
        return k / math.sqrt(radicand) * 100 if radicand > 0 else math.inf

    return (end(u1), end(u2))


def ci_over_of(resample: str) -> str:
    """What a bootstrap with this ``resample`` generalises over (the ``ci_over`` word)."""
    return {"items": "items", "items+raters": "items+raters", "systems": "systems"}[resample]


# ----------------------------------------------------------------------------- intervals


def interval(
    replicates: np.ndarray,
    *,
    ci: float = 0.95,
    method: str = "percentile",
    estimate: float = NAN,
    jackknife: np.ndarray | None = None,
) -> tuple[float, float, str]:
    """(low, high, note) from bootstrap replicates: percentile, or BCa (Efron & Tibshirani 1993, eq. 14.9-14.15).
    Two-sided, without the boundary rule (:func:`interval_at` adds it).

    >>> rng = np.random.default_rng(0)
    >>> low, high, note = interval(rng.normal(size=4000))
    >>> round(low, 1), round(high, 1), note
    (-1.9, 2.0, '')
    """
    # the normal cdf and its inverse (scipy.stats.norm's own, without its overhead)
    from scipy.special import ndtr, ndtri

    values = np.asarray(replicates, dtype=float)
    finite = values[np.isfinite(values)]
    if len(finite) < 0.5 * len(values) or len(finite) < 10:
        return (
            NAN,
            NAN,
            f"no interval: the measure is undefined in {len(values) - len(finite)} of {len(values)} replicates",
        )
    dropped = (
        f"interval over the {len(finite)} of {len(values)} replicates where the measure is defined"
        if len(finite) < len(values)
        else ""
    )
    alpha = (1 - ci) / 2
    levels = np.array([alpha, 1 - alpha])
    if method == "bca":
        if not np.isfinite(estimate) or jackknife is None:
            return NAN, NAN, "no BCa interval: no estimate or jackknife"
        below = np.mean(finite < estimate) + 0.5 * np.mean(finite == estimate)
        if below in (0.0, 1.0):
            return NAN, NAN, "no BCa interval: every replicate lies on one side of the estimate"
        z0 = ndtri(below)
        jack = np.asarray(jackknife, dtype=float)
        jack = jack[np.isfinite(jack)]
        d = jack.mean() - jack
        denominator = 6 * (d**2).sum() ** 1.5
        a = float((d**3).sum() / denominator) if denominator > 0 else 0.0
        z = ndtri(levels)
        levels = ndtr(z0 + (z0 + z) / (1 - a * (z0 + z)))
    low, high = np.quantile(finite, levels)
    return float(low), float(high), dropped


def interval_at(
    measure: str,
    replicates: np.ndarray,
    *,
    ci: float = 0.95,
    method: str = "percentile",
    estimate: float = NAN,
    jackknife: np.ndarray | None = None,
) -> tuple[float, float, str, str]:
    r"""(low, high, note, method word): :func:`interval` with the boundary rule.

    CV* cannot go below 0, and r, rho, tau, W, P, kappa and alpha cannot go above 1: a perfect
    reproduction sits on the boundary, where every replicate lies on one side of the truth and a
    two-sided interval would exclude it.  The rule: when the *basic* bootstrap interval
    :math:`[2\hat\theta - q_{1-a/2},\; 2\hat\theta - q_{a/2}]` reaches the boundary (the data are
    consistent with a perfect reproduction), the interval is one-sided at the full level ``ci``:
    ``[0, q_{ci}]`` for CV* (``upper-one-sided``: an upper bound) and ``[q_{1-ci}, 1]`` for the
    others (``lower-one-sided``); otherwise it is the two-sided ``method`` interval.  For CV*
    this is the ``2 CV* <= q_{1-a/2}`` test: with two experiments, a true CV of 0 passes it in
    about 1 - a/2 of studies.  ``benchmarks``/tests simulate it.

    >>> rng = np.random.default_rng(0)
    >>> interval_at("CV*", np.abs(rng.normal(0.5, 1, size=2000)), estimate=0.5)[::3]
    (0.0, 'upper-one-sided')
    """
    finite = np.asarray(replicates, dtype=float)
    finite = finite[np.isfinite(finite)]
    alpha = (1 - ci) / 2
    if np.isfinite(estimate) and len(finite) >= max(10, 0.5 * np.size(replicates)):
        if measure in LOWER_BOUNDED:
            q_high, q_ci = np.quantile(finite, [1 - alpha, ci])  # one sort for both
            if 2 * estimate - q_high <= 0:
                return 0.0, float(q_ci), "", "upper-one-sided"
        if measure in UPPER_BOUNDED:
            q_low, q_ci = np.quantile(finite, [alpha, 1 - ci])
            if 2 * estimate - q_low >= 1:
                return float(q_ci), 1.0, "", "lower-one-sided"
    low, high, note = interval(replicates, ci=ci, method=method, estimate=estimate, jackknife=jackknife)
    return low, high, note, (method if np.isfinite(low) else "")


# ----------------------------------------------------------------------------- attaching intervals to an assessment


def method_label(info: dict) -> str:
    """One line for captions: ``percentile bootstrap over items (B = 2000, paired, seed 7)``."""
    name = "BCa" if info["ci_method"] == "bca" else "percentile"
    pairing = {True: ", paired", False: ", unpaired"}.get(info.get("paired"), "")
    return f"{name} bootstrap over {info.get('ci_over', ci_over_of(info['resample']))} (B = {info['B']}{pairing}, seed {info['seed']})"


def assessment_intervals(assessment, result) -> dict:
    """``{(measure, level, quality_criterion, system): (low, high, method, note, over)}`` for an
    assessment's rows (and ``("annotators", experiment, quality_criterion, measure)`` for the
    annotator agreement, ``("mean", experiment, quality_criterion, system)`` for system means).

    ``method`` is the method word only (``percentile``, ``bca``, ``upper-one-sided``,
    ``lower-one-sided``, ``vangel``); ``over`` the ``ci_over`` word.  Rows the bootstrap did not
    reach get NaN and a note; a system's CV* without item-level data gets Vangel's interval
    (:func:`cv_interval`, over ``experiments``)."""
    info = result.info
    over = info.get("ci_over", ci_over_of(info["resample"]))
    out: dict = {}
    study = assessment.study
    rated = set(study.ratings.criteria()) if study.ratings else set()
    keys = [r.key for r in assessment.rows]  # a row of one pair of experiments adds the pair (not resampled)
    keys += [k for k in result.replicates if k[0] in ("annotators", "mean")]
    for key in keys:
        measure, level, qc, system = key[:4]
        if key in result.replicates:
            name = system if measure == "annotators" else measure
            low, high, note, word = interval_at(
                name,
                result.replicates[key],
                ci=info["ci"],
                method=info["ci_method"],
                estimate=result.estimates.get(key, NAN),
                jackknife=result.jackknife.get(key),
            )
            out[key] = (low, high, word, note, over if np.isfinite(low) else "")
        elif (
            measure == "CV*"
            and level == "system"
            and (qc not in rated or info["resample"] == "systems")
            and (qc, system) in assessment.cv
        ):
            values = [study.scores[(qc, system, e)] for e in study.experiment_ids if (qc, system, e) in study.scores]
            shift = study.quality_criterion(qc).scale_min if assessment.conventions.scale_shift else 0.0
            low, high = cv_interval(values, shift, ci=info["ci"])
            defined = bool(np.isfinite(low))
            out[key] = (
                low,
                high,
                "vangel" if defined else "",
                "" if defined else "no interval: the mean is 0",
                "experiments" if defined else "",
            )
        else:
            why = (
                "CV* at QC and study level needs items to resample (item-level ratings)"
                if measure == "CV*"
                else "stated findings are not resampled"
                if measure == "P"
                else "the agreement of one repeat with the original is not resampled"
                if len(key) > 4
                else "not resampled"
            )
            out[key] = (NAN, NAN, "", f"no interval: {why}", "")
    return out


# ----------------------------------------------------------------------------- cautions from the coverage study


@dataclass(frozen=True)
class Caution:
    """One rule: an interval of one of ``measures`` at one of ``levels``, over ``over``, made by
    one of ``methods`` (``None``: any), gets ``text`` (``{measure}`` is filled in).  With
    ``boundary`` set, only when the interval stops short of that boundary although the boundary
    lies within one interval width of the estimate, ``|boundary - estimate| <= high - low`` (the
    data cannot tell the value from the boundary, and the interval leaves the boundary out).
    With ``unpaired_from`` set, only when at least that many experiments rated their own
    (unpaired) items."""

    measures: frozenset
    levels: frozenset
    over: frozenset
    methods: frozenset | None
    text: str
    boundary: float | None = None
    unpaired_from: int | None = None

    def applies(
        self,
        measure: str,
        level: str,
        method: str,
        over: str,
        estimate: float,
        low: float,
        high: float,
        experiments: int | None = None,
        paired: bool | None = None,
    ) -> bool:
        if measure not in self.measures or level not in self.levels or over not in self.over:
            return False
        if self.methods is not None and method not in self.methods:
            return False
        if self.unpaired_from is not None and not (paired is False and (experiments or 0) >= self.unpaired_from):
            return False
        if self.boundary is None:
            return True
        if low <= self.boundary <= high:
            return False
        return bool(np.isfinite(estimate) and np.isfinite(high - low) and abs(self.boundary - estimate) <= high - low)


_ALL_LEVELS = frozenset({"system", "qc", "study", "annotators"})
_TWO_SIDED = frozenset({"percentile", "bca"})
_AGREEMENT = frozenset({"alpha", "kappa", "fleiss_kappa", "ac1", "bp"})

# The intervals the coverage study found to cover well under 90% of their stated target in
# designs users meet (docs/coverage.md, "Which interval to use for what").  The numbers are the
# ranges of benchmarks/coverage-latest.md's summary (update them with each full run), except
# for r, P and W: with the boundary rule, the two-sided intervals left near 1 are the ones this
# rule picks, and benchmarks/caution_check.py (benchmarks/caution-check.md) measures those.
# The first rule that applies gives the caution.  The one-sided intervals of the boundary rule
# (interval_at) reach their boundary, so the rules about boundaries name the two-sided methods
# only.  rho and Kendall's tau were not simulated and get no caution.
CAUTIONS: tuple[Caution, ...] = (
    Caution(
        frozenset({"CV*"}),
        frozenset({"system", "qc", "study"}),
        frozenset({"items+raters"}),
        _TWO_SIDED,
        "CV* interval over items+raters: too short for the value over raters (coverage study: 54-89%, least "
        "at the criterion level); read it as a lower limit on the uncertainty",
    ),
    Caution(
        frozenset({"CV*"}),
        frozenset({"qc", "study"}),
        frozenset({"items"}),
        _TWO_SIDED,
        "criterion-level CV* interval: too short (coverage study: 66-90%, least when the experiments agree); "
        "read the system-level intervals",
    ),
    Caution(
        frozenset({"r", "P", "W"}),
        frozenset({"qc", "study"}),
        frozenset({"items", "items+raters"}),
        _TWO_SIDED,
        "{measure} within one interval width of 1, which the interval leaves out: too short there (coverage "
        "study: 67-74%, 0-37% when the experiments differ little); read its lower end as a lower bound",
        boundary=1.0,
    ),
    Caution(
        frozenset({"P", "W"}),
        frozenset({"qc", "study"}),
        frozenset({"items", "items+raters"}),
        frozenset({"bca"}),
        "BCa interval of {measure} from items: too short (coverage study: 79-93%, the percentile interval "
        "82-95%); read the percentile interval",
    ),
    Caution(
        frozenset({"CV*"}),
        frozenset({"system"}),
        frozenset({"items"}),
        frozenset({"percentile"}),
        "percentile interval of a system's CV* with five or more unpaired experiments: too short (coverage "
        "study: 76-88%, BCa 91-93%); read the BCa interval (ci_method='bca')",
        unpaired_from=5,
    ),
    Caution(
        frozenset({"mean"}),
        frozenset({"system"}),
        frozenset({"items+raters"}),
        _TWO_SIDED,
        "system mean over items+raters: too short for the mean over raters (coverage study: 87-90% over "
        "the designs, 79-82% in the worst; 80-85% is typical in an independent audit's designs); read it as a "
        "lower limit on the uncertainty",
    ),
    Caution(
        _AGREEMENT,
        _ALL_LEVELS,
        frozenset({"items+raters"}),
        None,
        "agreement is resampled over items only, not raters: read it as the interval for these raters "
        "(coverage study: it covers another team's alpha in 78%)",
    ),
)


def interval_caution(
    measure: str,
    level: str,
    method: str,
    over: str,
    estimate: float,
    low: float,
    high: float,
    *,
    experiments: int | None = None,
    paired: bool | None = None,
) -> str:
    """The caution on one interval (empty when the coverage study found nothing to say), from
    the first rule of :data:`CAUTIONS` that applies; ``level`` is ``system``, ``qc``, ``study``
    or ``annotators`` (the agreement within one experiment).  No interval, no caution.

    >>> interval_caution("CV*", "qc", "percentile", "items", 13.76, 11.98, 19.51)[:45]
    'criterion-level CV* interval: too short (cove'
    >>> interval_caution("CV*", "system", "percentile", "items", 13.07, 9.73, 16.88)
    ''
    >>> interval_caution("r", "qc", "bca", "items", 0.93, 0.81, 0.97)[:35]
    'r within one interval width of 1, w'
    >>> interval_caution("r", "qc", "bca", "items", 0.40, 0.21, 0.55)
    ''

    ``experiments`` and ``paired`` describe the design (the number of experiments, and whether
    they rated the same items), for the rules that depend on it:

    >>> note = interval_caution("CV*", "system", "percentile", "items", 13.07, 9.73, 16.88, experiments=5, paired=False)
    >>> note.startswith("percentile interval of a system's CV* with five or more unpaired experiments")
    True
    """
    if not over or not (np.isfinite(low) and np.isfinite(high)):
        return ""
    for rule in CAUTIONS:
        if rule.applies(measure, level, method, over, estimate, low, high, experiments, paired):
            return rule.text.format(measure=measure)
    return ""
