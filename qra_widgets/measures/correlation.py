"""Type II results: correlation between the score sets of comparable experiments.

Orientation: a 2-D ``scores`` array has rows = comparable experiments and columns = systems;
``NaN`` marks a system an experiment did not score.  Pairwise measures use, for each pair
of experiments, the systems scored in both; Kendall's W uses the systems scored in all.

The correlations themselves come from :mod:`scipy.stats`; this module adds validation,
the missing-score rule and the undefined rule (a constant score set gives ``nan`` with an
:class:`~qra_widgets.UndefinedMeasureWarning`).

The ranks and the batch forms live in :mod:`~qra_widgets.measures.correlation_batch`, Kendall's W
and its p-value in :mod:`~qra_widgets.measures.concordance`; this module re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ..errors import NAN, QRAInputError, undefined
from ._validation import Batch, as_pair, as_score_matrix, replacement, undefined_reason, undefined_reasons
from .concordance import (
    PERMUTATION_DRAWS,
    PERMUTATION_WORK,
    W_EXACT_UP_TO,
    kendall_w,
    kendall_w_batch,
    kendall_w_pvalue,
    kendall_w_test,
)
from .correlation_batch import (
    PAIR_BLOCK,
    SORT_ABOVE,
    _correlation_matrix,
    _deviations,
    average_ranks,
    pearson_batch,
    spearman_batch,
    tau_b_batch,
)

__all__ = [
    "NAN",
    "PAIR_BLOCK",
    "PERMUTATION_DRAWS",
    "PERMUTATION_WORK",
    "SORT_ABOVE",
    "W_EXACT_UP_TO",
    "PairwiseMean",
    "average_ranks",
    "correlation_pvalue",
    "kendall_tau",
    "kendall_w",
    "kendall_w_batch",
    "kendall_w_pvalue",
    "kendall_w_test",
    "mean_pairwise",
    "mean_pairwise_batch",
    "mean_pairwise_r",
    "mean_pairwise_rho",
    "mean_pairwise_tau",
    "pearson_batch",
    "pearson_r",
    "spearman_batch",
    "spearman_rho",
    "tau_b_batch",
]


_BATCH = {"Pearson's r": pearson_batch, "Spearman's rho": spearman_batch, "Kendall's tau": tau_b_batch}


def _correlation(x, y, method: str, replace_undefined_by) -> float:
    replace_undefined_by = replacement(replace_undefined_by)
    a, b = as_pair(x, y)
    return _BATCH[method](a[None], b[None]).one(replace_undefined_by)


def pearson_r(x: npt.ArrayLike, y: npt.ArrayLike, *, replace_undefined_by: float = NAN) -> float:
    r"""Pearson's product-moment correlation r between two score sets.

    .. math:: r = \frac{\sum (x_i-\bar x)(y_i-\bar y)}{\sqrt{\sum (x_i-\bar x)^2 \sum (y_i-\bar y)^2}}

    QRA++ section 6.2, Table 2 (Type II, n = 2).  r does not depend on the unit, and it is
    computed that way: each score set is divided by a power of two near its largest
    magnitude, centred and divided again before any square is summed (as
    :func:`scipy.stats.pearsonr` rescales), so scores near 1e-190 or 1e200 give the r of
    the same scores near 1.  Equals :func:`scipy.stats.pearsonr` without its p-value.

    Parameters
    ----------
    x, y : array_like of float
        Two score sets of equal length (at least 2), e.g. the system scores of two
        comparable experiments; value i of each is for system i.
    replace_undefined_by : float, keyword-only
        Returned when the measure is undefined (default ``nan``): all values of x or of y
        are equal.

    Returns
    -------
    float
        The correlation in [-1, 1].

    References
    ----------
    Pearson, K. (1895). Note on regression and inheritance in the case of two parents.
    Proceedings of the Royal Society of London, 58, 240-242.
    https://doi.org/10.1098/rspl.1895.0041

    Belz, A. (2025). QRA++: Quantified reproducibility assessment for common types of
    results in natural language processing. https://doi.org/10.48550/arXiv.2412.07940

    Examples
    --------
    >>> round(pearson_r([3.71, 3.2, 2.33], [3.12, 2.57, 2.28]), 4)
    0.9472
    >>> round(pearson_r([2e-190, 6e-190, 6e-190, 4e-190], [3e-190, 6e-190, 7e-190, 1e-190]), 3)
    0.727
    """
    return _correlation(x, y, "Pearson's r", replace_undefined_by)


def spearman_rho(x: npt.ArrayLike, y: npt.ArrayLike, *, replace_undefined_by: float = NAN) -> float:
    r"""Spearman's rank correlation rho: Pearson's r on average ranks (ties share a rank).

    .. math:: \rho = r(\operatorname{rank}(x), \operatorname{rank}(y))

    QRA++ section 6.2, Table 2: :func:`scipy.stats.rankdata`, then r as in
    :func:`pearson_r` (equal to :func:`scipy.stats.spearmanr`).

    Parameters
    ----------
    x, y : array_like of float
        Two score sets of equal length (at least 2), e.g. the system scores of two
        comparable experiments; value i of each is for system i.
    replace_undefined_by : float, keyword-only
        Returned when the measure is undefined (default ``nan``): all values of x or of y
        are equal.

    Returns
    -------
    float
        The correlation in [-1, 1].

    References
    ----------
    Spearman, C. (1904). The proof and measurement of association between two things.
    The American Journal of Psychology, 15(1), 72-101. https://doi.org/10.2307/1412159

    Belz, A. (2025). QRA++: Quantified reproducibility assessment for common types of
    results in natural language processing. https://doi.org/10.48550/arXiv.2412.07940

    Examples
    --------
    >>> spearman_rho([3.71, 3.2, 2.33], [3.12, 2.57, 2.28])
    1.0
    """
    return _correlation(x, y, "Spearman's rho", replace_undefined_by)


def kendall_tau(x: npt.ArrayLike, y: npt.ArrayLike, *, replace_undefined_by: float = NAN) -> float:
    r"""Kendall's tau-b, tie-adjusted.

    .. math:: \tau_b = \frac{C - D}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    C/D are concordant/discordant pairs, n_0 = n(n-1)/2 and n_1, n_2 the pairs tied in x and
    in y.  QRA++ section 6.2 (the headline Type II measure for n = 2); Yannakoudakis &
    Cummins (2015) section 3.1.  Via :func:`scipy.stats.kendalltau` (which counts pairs, so
    the scale of the scores plays no part).

    Parameters
    ----------
    x, y : array_like of float
        Two score sets of equal length (at least 2), e.g. the system scores of two
        comparable experiments; value i of each is for system i.
    replace_undefined_by : float, keyword-only
        Returned when the measure is undefined (default ``nan``): all values of x or of y
        are equal.

    Returns
    -------
    float
        The correlation in [-1, 1].

    References
    ----------
    Kendall, M. G. (1945). The treatment of ties in ranking problems. Biometrika, 33(3),
    239-251. https://doi.org/10.1093/biomet/33.3.239

    Belz, A. (2025). QRA++: Quantified reproducibility assessment for common types of
    results in natural language processing. https://doi.org/10.48550/arXiv.2412.07940

    Examples
    --------
    >>> round(kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]), 4)
    0.6667
    """
    return _correlation(x, y, "Kendall's tau", replace_undefined_by)


@dataclass(frozen=True)
class PairwiseMean:
    """Mean of a pairwise measure over experiment pairs, with what it was computed on."""

    value: float
    pairs_used: int
    pairs_undefined: int
    min_systems: int


def mean_pairwise_batch(stack: npt.ArrayLike, measure: str) -> tuple[Batch, list]:
    r"""Mean of a pairwise correlation (``"r"``, ``"rho"`` or ``"tau"``) over the experiment pairs
    of every replicate of ``stack`` (B, E, S), NaN = a missing score: the one implementation of
    :func:`mean_pairwise` (one replicate) and of the bootstrap.

    .. math:: \bar c = \frac{1}{|P|} \sum_{(i,j) \in P} c(E_i, E_j)

    Each pair uses the systems scored in both experiments (the missing cells must be the same in
    every replicate, as they are in a bootstrap: a missing score stays missing); a pair with an
    undefined value is left out of P.  Returns the batch and, per experiment pair, ``(systems
    shared, Batch or None)``.

    >>> found, pairs = mean_pairwise_batch([[[3.71, 3.2, 2.33], [3.12, 2.57, 2.28], [3.02, 2.4, 1.81]]], "r")
    >>> found.values.round(2).tolist(), len(pairs)
    ([0.97], 3)
    """
    if measure not in _PAIRWISE:
        raise QRAInputError(f"measure: must be one of {sorted(_PAIRWISE)}, got {measure!r}")
    name = _PAIRWISE[measure][1]
    array = np.asarray(stack, dtype=float)
    size, experiments = array.shape[0], array.shape[1]
    structure = ~np.isnan(array[0])
    if not (np.isnan(array) == ~structure).all():
        raise QRAInputError("scores: the missing scores differ between replicates")
    if name != "Kendall's tau" and structure.all() and experiments >= 2 and array.shape[2] >= 2:
        return _complete_pairs(array, name)
    pairs, values = [], []
    for i, j in combinations(range(experiments), 2):
        both = structure[i] & structure[j]
        if both.sum() < 2:
            pairs.append((int(both.sum()), None))
            continue
        found = _BATCH[name](array[:, i, both], array[:, j, both])
        pairs.append((int(both.sum()), found))
        values.append(found.values)
    if values:
        stacked = np.stack(values)
        defined = (~np.isnan(stacked)).sum(0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.nansum(stacked, axis=0) / defined
    else:
        defined, mean = np.zeros(size, dtype=int), np.full(size, np.nan)
    reasons = undefined_reasons(
        f"mean pairwise {name}", size, pairs=defined, pairs_of="pair of experiments gives a defined value"
    )
    return Batch(mean, reasons), pairs


def _complete_pairs(array: np.ndarray, name: str) -> tuple[Batch, list]:
    """:func:`mean_pairwise_batch` of r or rho when every experiment scores every system: each
    experiment's ranks and deviations once (not once per pair), then every pair's r by the
    operations of :func:`pearson_batch` (the same numbers, bit for bit)."""
    size, experiments = array.shape[0], array.shape[1]
    rows = average_ranks(array)[0] if name == "Spearman's rho" else array
    deviations = _deviations(rows)
    squares = (deviations * deviations).sum(-1)  # (B, E)
    first, second = (np.array(k, dtype=np.int64) for k in zip(*combinations(range(experiments), 2)))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.clip(
            (deviations[:, first] * deviations[:, second]).sum(-1) / np.sqrt(squares[:, first] * squares[:, second]),
            -1.0,
            1.0,
        )  # (B, P)
    constant = np.ptp(rows, axis=-1) == 0  # (B, E)
    as_x = [undefined_reasons(name, size, constant=(constant[:, e], "x")) for e in range(experiments)]
    as_y = [undefined_reasons(name, size, constant=(constant[:, e], "y")) for e in range(experiments)]
    found = [Batch(r[:, k], np.where(as_x[i] == "", as_y[j], as_x[i])) for k, (i, j) in enumerate(zip(first, second))]
    stacked = np.stack([f.values for f in found])
    defined = (~np.isnan(stacked)).sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nansum(stacked, axis=0) / defined
    reasons = undefined_reasons(
        f"mean pairwise {name}", size, pairs=defined, pairs_of="pair of experiments gives a defined value"
    )
    return Batch(mean, reasons), [(array.shape[2], f) for f in found]


def _all_pairs_at_once(matrix: np.ndarray, name: str) -> PairwiseMean | None:
    """Complete data without constant rows: every pairwise r (or rho on ranks) from one Gram
    matrix of the rows' deviations (the normalisation of :func:`pearson_batch`)."""
    if name == "Kendall's tau" or np.isnan(matrix).any() or (np.ptp(matrix, axis=1) == 0).any():
        return None
    if name == "Spearman's rho":
        matrix = average_ranks(matrix)[0]
    upper = np.triu_indices(matrix.shape[0], k=1)
    values = _correlation_matrix(matrix)[upper]
    return PairwiseMean(float(values.mean()), len(values), 0, matrix.shape[1])


def _mean_pairwise(scores, measure, name: str, replace_undefined_by: float) -> PairwiseMean:
    matrix = as_score_matrix(scores)
    fast = _all_pairs_at_once(matrix, name)
    if fast is not None:
        return fast
    short = {v[1]: k for k, v in _PAIRWISE.items()}[name]
    found, pairs = mean_pairwise_batch(matrix[None], short)
    used = sum(1 for _n, pair in pairs if pair is not None and not pair.reasons[0])
    systems = [n for n, _pair in pairs]
    if found.reasons[0]:
        return PairwiseMean(found.one(replace_undefined_by), 0, len(pairs) - used, min(systems))
    return PairwiseMean(float(found.values[0]), used, len(pairs) - used, min(systems))


def mean_pairwise_r(scores: npt.ArrayLike, *, replace_undefined_by: float = NAN) -> float:
    r"""Mean of Pearson's r over all pairs of experiments (QRA++ section 6.2, n > 2).

    .. math:: \bar r = \frac{1}{|P|} \sum_{(i,j) \in P} r(E_i, E_j)

    Each pair uses the systems scored in both experiments.  A pair whose r is undefined
    (a constant score set, or fewer than 2 shared systems) is left out of the mean (P is
    the set of defined pairs); if every pair is undefined the result is
    ``replace_undefined_by``.

    Parameters
    ----------
    scores : array_like of float, 2-D
        Rows = comparable experiments (at least 2), columns = systems; NaN = not scored.
    replace_undefined_by : float, keyword-only
        Returned when no pair of experiments gives a defined value (default ``nan``).

    Returns
    -------
    float
        The mean over the pairs with a defined value.

    References
    ----------
    Belz, A. (2025). QRA++: Quantified reproducibility assessment for common types of
    results in natural language processing. https://doi.org/10.48550/arXiv.2412.07940

    Examples
    --------
    >>> round(mean_pairwise_r([[3.71, 3.2, 2.33], [3.12, 2.57, 2.28], [3.02, 2.4, 1.81]]), 2)
    0.97
    """
    return mean_pairwise(scores, "r", replace_undefined_by=replace_undefined_by).value


def mean_pairwise_rho(scores: npt.ArrayLike, *, replace_undefined_by: float = NAN) -> float:
    r"""Mean of Spearman's rho over all pairs of experiments (QRA++ section 6.2, n > 2).

    .. math:: \bar \rho = \frac{1}{|P|} \sum_{(i,j) \in P} \rho(E_i, E_j)

    with the missing-score and undefined rules of :func:`mean_pairwise_r`.

    Parameters
    ----------
    scores : array_like of float, 2-D
        Rows = comparable experiments (at least 2), columns = systems; NaN = not scored.
    replace_undefined_by : float, keyword-only
        Returned when no pair of experiments gives a defined value (default ``nan``).

    Returns
    -------
    float
        The mean over the pairs with a defined value.

    References
    ----------
    Belz, A. (2025). QRA++: Quantified reproducibility assessment for common types of
    results in natural language processing. https://doi.org/10.48550/arXiv.2412.07940

    Examples
    --------
    >>> mean_pairwise_rho([[3.71, 3.2, 2.33], [3.12, 2.57, 2.28], [3.02, 2.4, 1.81]])
    1.0
    """
    return mean_pairwise(scores, "rho", replace_undefined_by=replace_undefined_by).value


def mean_pairwise_tau(scores: npt.ArrayLike, *, replace_undefined_by: float = NAN) -> float:
    r"""Mean of Kendall's tau-b over all pairs of experiments.

    .. math:: \bar \tau = \frac{1}{|P|} \sum_{(i,j) \in P} \tau_b(E_i, E_j)

    with the missing-score and undefined rules of :func:`mean_pairwise_r`.

    Parameters
    ----------
    scores : array_like of float, 2-D
        Rows = comparable experiments (at least 2), columns = systems; NaN = not scored.
    replace_undefined_by : float, keyword-only
        Returned when no pair of experiments gives a defined value (default ``nan``).

    Returns
    -------
    float
        The mean over the pairs with a defined value.

    References
    ----------
    Belz, A. (2025). QRA++: Quantified reproducibility assessment for common types of
    results in natural language processing. https://doi.org/10.48550/arXiv.2412.07940

    Examples
    --------
    >>> round(mean_pairwise_tau([[1, 2, 3], [1, 3, 2], [1, 2, 3]]), 4)
    0.5556
    """
    return mean_pairwise(scores, "tau", replace_undefined_by=replace_undefined_by).value


_PAIRWISE = {
    "r": (pearson_r, "Pearson's r"),
    "rho": (spearman_rho, "Spearman's rho"),
    "tau": (kendall_tau, "Kendall's tau"),
}


def mean_pairwise(scores: npt.ArrayLike, measure: str, *, replace_undefined_by: float = NAN) -> PairwiseMean:
    """Mean pairwise ``measure`` (``"r"``, ``"rho"`` or ``"tau"``) with its bookkeeping.

    The value is that of :func:`mean_pairwise_r`, :func:`mean_pairwise_rho` or
    :func:`mean_pairwise_tau`; the result also says how many pairs were used, how many
    were undefined, and the fewest systems any pair shared.

    Parameters
    ----------
    scores : array_like of float, 2-D
        Rows = comparable experiments, columns = systems; NaN = not scored.
    measure : {"r", "rho", "tau"}
        Which pairwise correlation.
    replace_undefined_by : float, keyword-only
        The value when no pair gives a defined value (default ``nan``).

    Returns
    -------
    PairwiseMean

    References
    ----------
    Belz, A. (2025). QRA++: Quantified reproducibility assessment for common types of
    results in natural language processing. https://doi.org/10.48550/arXiv.2412.07940

    Examples
    --------
    >>> result = mean_pairwise([[1, 2, 3], [1, 2, float("nan")]], "r")
    >>> round(result.value, 12), result.pairs_used, result.min_systems
    (1.0, 1, 2)
    """
    replace_undefined_by = replacement(replace_undefined_by)
    if measure not in _PAIRWISE:
        raise QRAInputError(f"measure: must be one of {sorted(_PAIRWISE)}, got {measure!r}")
    function, name = _PAIRWISE[measure]
    return _mean_pairwise(scores, function, name, replace_undefined_by)


def correlation_pvalue(
    x: npt.ArrayLike, y: npt.ArrayLike, *, measure: str = "r", replace_undefined_by: float = NAN
) -> float:
    r"""Two-sided p-value of "no correlation" for :func:`pearson_r`, :func:`spearman_rho` or :func:`kendall_tau`.

    .. math:: t = r \sqrt{\frac{n-2}{1-r^2}}, \qquad p = 2 P(T_{n-2} \ge |t|)

    for ``"r"`` (exact for bivariate normal scores; :func:`scipy.stats.pearsonr`, which
    gives p = 1 for n = 2) and for ``"rho"`` on ranks (the t approximation of
    :func:`scipy.stats.spearmanr`); ``"tau"`` uses :func:`scipy.stats.kendalltau` (exact
    for small n without ties, else the normal approximation).  These are the ``p`` of the
    pairwise results in the organisers' QRA3 ``data.json``.

    Parameters
    ----------
    x, y : array_like of float
        Two score sets of equal length (at least 2); value i of each is for system i.
    measure : {"r", "rho", "tau"}, keyword-only
        Which correlation (default ``"r"``).
    replace_undefined_by : float, keyword-only
        Returned when the p-value is undefined (default ``nan``): the correlation is
        undefined (a constant score set), or ``"rho"`` has fewer than 3 systems (no
        degrees of freedom).

    Returns
    -------
    float
        The p-value in [0, 1].

    References
    ----------
    Fisher, R. A. (1915). Frequency distribution of the values of the correlation
    coefficient in samples from an indefinitely large population. Biometrika, 10(4),
    507-521. https://doi.org/10.2307/2331838

    Kendall, M. G. (1945). The treatment of ties in ranking problems. Biometrika, 33(3),
    239-251. https://doi.org/10.1093/biomet/33.3.239

    Examples
    --------
    >>> round(correlation_pvalue([3.71, 3.2, 2.33], [3.12, 2.57, 2.28]), 4)
    0.2077
    >>> round(correlation_pvalue([1, 2, 3, 4], [1, 3, 2, 4], measure="rho"), 12)  # rho = 0.8, t = 1.886 on 2 df
    0.2
    """
    replace_undefined_by = replacement(replace_undefined_by)
    if measure not in _PAIRWISE:
        raise QRAInputError(f"measure: must be one of {sorted(_PAIRWISE)}, got {measure!r}")
    a, b = as_pair(x, y)
    name = _PAIRWISE[measure][1]
    constant = "x" if np.ptp(a) == 0 else "y" if np.ptp(b) == 0 else None
    count = (
        (a.size, 3, "systems (the t approximation needs n - 2 >= 1 degrees of freedom)") if measure == "rho" else None
    )
    reason = undefined_reason(f"the p-value of {name}", constant=constant, count=count)
    if reason:
        return undefined(reason, replace_undefined_by)
    from scipy import stats

    function = {"r": stats.pearsonr, "rho": stats.spearmanr, "tau": stats.kendalltau}[measure]
    return float(function(a, b).pvalue)
