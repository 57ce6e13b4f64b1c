"""Kendall's coefficient of concordance W of n >= 2 comparable experiments, its batch form and its
p-value (a permutation p-value for few systems, chi-square beyond).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..errors import NAN, QRAInputError
from ._validation import Batch, as_score_matrix, replacement, undefined_reasons
from .correlation_batch import average_ranks


def kendall_w(scores: npt.ArrayLike, *, tie_correction: bool = True, replace_undefined_by: float = NAN) -> float:
    r"""Kendall's coefficient of concordance W, corrected for ties (unless ``tie_correction=False``).

    .. math::

        W = \frac{12 \sum_j (R_j - \bar R)^2}{m^2 (n^3 - n) - m \sum_i T_i},
        \qquad T_i = \sum_g (t_g^3 - t_g)

    for m experiments (rows) ranking n systems (columns); R_j is the rank sum of system j
    (average ranks for ties) and t_g the sizes of the tie groups in experiment i.  QRA++
    section 6.2 (the generalisation of tau for n > 2 experiments); Kendall & Babington
    Smith (1939).  Only systems scored by every experiment are used (columns with a NaN
    are dropped).  W works on ranks, so the scale of the scores plays no part.

    ``tie_correction=False`` drops the ``m * sum T_i`` term (Kendall's original W on average
    ranks), which is what the organisers' QRA3 tool reports: with ties it gives a smaller W
    (see :mod:`qra_widgets.conventions`).

    Parameters
    ----------
    scores : array_like of float, 2-D
        Rows = comparable experiments (at least 2), columns = systems; NaN = not scored.
    tie_correction : bool, keyword-only
        Subtract the tie term from the denominator (default, as QRA++).
    replace_undefined_by : float, keyword-only
        Returned when W is undefined (default ``nan``): fewer than two systems scored by
        every experiment, or every experiment gives all systems the same score.

    Returns
    -------
    float
        W in [0, 1].

    References
    ----------
    Kendall, M. G., & Babington Smith, B. (1939). The problem of m rankings. The Annals of
    Mathematical Statistics, 10(3), 275-287. https://doi.org/10.1214/aoms/1177732186

    Belz, A. (2025). QRA++: Quantified reproducibility assessment for common types of
    results in natural language processing. https://doi.org/10.48550/arXiv.2412.07940

    Examples
    --------
    >>> kendall_w([[3.71, 3.2, 2.33], [3.12, 2.57, 2.28], [3.02, 2.4, 1.81]])
    1.0
    >>> round(kendall_w([[1, 2, 3, 4], [1, 3, 2, 4], [2, 1, 3, 4]]), 4)
    0.7778
    >>> tied = [[1, 1, 2, 3], [1, 2, 2, 3], [1, 2, 3, 3]]
    >>> round(kendall_w(tied), 4), round(kendall_w(tied, tie_correction=False), 4)
    (0.9012, 0.8111)
    """
    replace_undefined_by = replacement(replace_undefined_by)
    matrix = as_score_matrix(scores, min_cols=1)
    complete = matrix[:, ~np.isnan(matrix).any(axis=0)]
    return kendall_w_batch(complete[None], tie_correction=tie_correction).one(replace_undefined_by)


def kendall_w_batch(stack: npt.ArrayLike, *, tie_correction: bool = True, copies: npt.ArrayLike | None = None) -> Batch:
    r"""Kendall's W of every replicate of ``stack`` (B, m, n), complete: the one implementation
    of :func:`kendall_w` (one replicate) and of the bootstrap.

    .. math:: W = \frac{12 \sum_j (R_j - \bar R)^2}{m^2 (n^3 - n) - m \sum_i T_i}

    Ranks by :func:`average_ranks` (no Python loop at any n).  ``copies`` (B, n) names the
    original system of each column when systems were drawn with replacement: copies of one
    system are one system drawn twice, never a tie, so their tie term
    :math:`\sum (c^3 - c)` is always taken out of the denominator (the maximum of the
    numerator when the experiments agree), with ``tie_correction`` or without; only ties
    between different systems follow ``tie_correction``.  Without copies this is W exactly.

    >>> kendall_w_batch([[[1, 2, 3, 4], [1, 3, 2, 4], [2, 1, 3, 4]]]).values.round(4).tolist()
    [0.7778]
    """
    array = np.asarray(stack, dtype=float)
    size, m, n = array.shape
    ranks, ties = average_ranks(array)
    rank_sums = ranks.sum(axis=-2)
    spread = ((rank_sums - rank_sums.mean(axis=-1, keepdims=True)) ** 2).sum(-1)
    tie_terms = (ties.astype(float) ** 2 - 1).sum(axis=(-1, -2))  # sum over groups of t^3 - t = sum over elements of t^2 - 1
    copy_terms = np.zeros(size)
    if copies is not None:
        ids = np.asarray(copies)
        multiplicity = np.take_along_axis(np.apply_along_axis(np.bincount, -1, ids, minlength=int(ids.max()) + 1), ids, -1) \
            if ids.size else np.ones_like(ids)
        copy_terms = m * (multiplicity.astype(float) ** 2 - 1).sum(-1)
    denominator = m * m * (n**3 - n) - m * (tie_terms if tie_correction else copy_terms)
    constant = (np.ptp(array, axis=-1) == 0).all(axis=-1) if n >= 2 else np.zeros(size, dtype=bool)
    reasons = undefined_reasons("Kendall's W", size, count=(np.full(size, n), 2, "system(s) scored by every experiment"),
                                constant=(constant, "each experiment"))
    with np.errstate(invalid="ignore", divide="ignore"):
        return Batch(12 * spread / denominator, reasons)


W_EXACT_UP_TO = 7  # systems: the p-value of W is a permutation p-value up to here, chi-square beyond
PERMUTATION_WORK = 1_000_000  # rank vectors an exact enumeration may build; beyond it, Monte Carlo draws
PERMUTATION_DRAWS = 100_000


def kendall_w_pvalue(scores: npt.ArrayLike, *, tie_correction: bool = True, method: str = "auto",
                     replace_undefined_by: float = NAN) -> float:
    r"""P-value of Kendall's W against "no agreement": a permutation p-value for few systems,
    the chi-square approximation for more.

    .. math:: p = P_0\left(\sum_j R_j^2 \ge \sum_j r_j^2\right) \;(n \le 7),\qquad
        \chi^2 = m (n - 1) W,\; p = P(\chi^2_{n-1} \ge \chi^2) \;(n > 7)

    for m experiments (rows) ranking n systems (the columns scored by every experiment), R_j
    the rank sums.  Under "no agreement" each experiment's ranking is a uniformly random
    permutation of its own ranks (ties kept), so W (with or without ``tie_correction``, whose
    denominator is then fixed) is a monotone function of the sum of squared rank sums.
    ``method="permutation"`` computes that tail probability exactly by enumerating the rank-sum
    vectors experiment by experiment (up to column order, which the statistic ignores); when
    that would build more than :data:`PERMUTATION_WORK` vectors it draws
    :data:`PERMUTATION_DRAWS` random rankings instead (seed 0; (k + 1)/(N + 1)).
    ``method="chi2"``: Friedman's chi-square approximation, with the tie correction
    :func:`scipy.stats.friedmanchisquare`'s statistic, and without it QRA3's ``data.json``
    ``kendall.p`` (the ``qra3`` conventions ask for it).  ``"auto"`` (default): permutation up
    to :data:`W_EXACT_UP_TO` systems, where the approximation is 4-17 times too large with 3-4
    systems, chi-square beyond.  Kendall & Babington Smith (1939) section 6; Friedman (1937).

    Parameters
    ----------
    scores : array_like of float, 2-D
        Rows = comparable experiments (at least 2), columns = systems; NaN = not scored.
    tie_correction : bool, keyword-only
        As :func:`kendall_w` (default, as QRA++).
    method : {"auto", "permutation", "chi2"}, keyword-only
        How the p-value is computed (see above).
    replace_undefined_by : float, keyword-only
        Returned when W is undefined (default ``nan``; :func:`kendall_w` warns why).

    Returns
    -------
    float
        The p-value in [0, 1].

    References
    ----------
    Friedman, M. (1937). The use of ranks to avoid the assumption of normality implicit in
    the analysis of variance. Journal of the American Statistical Association, 32(200),
    675-701. https://doi.org/10.1080/01621459.1937.10503522

    Kendall, M. G., & Babington Smith, B. (1939). The problem of m rankings. The Annals of
    Mathematical Statistics, 10(3), 275-287. https://doi.org/10.1214/aoms/1177732186

    Examples
    --------
    Four experiments ranking three systems the same way (QRA3's Yao 2022 ``data.json``:
    W = 1, chi^2 = 4 x 2 x 1 = 8 on 2 degrees of freedom, p = exp(-4)); exactly, the chance
    that four random rankings of 3 systems all agree is 6 / 6^4 = 1/216:

    >>> scores = [[3, 2, 1], [3.1, 2, 1], [3, 2.5, 1], [4, 2, 1]]
    >>> round(kendall_w_pvalue(scores, method="chi2"), 6), round(kendall_w_pvalue(scores), 6), round(1 / 216, 6)
    (0.018316, 0.00463, 0.00463)
    """
    replace_undefined_by = replacement(replace_undefined_by)
    if method not in ("auto", "permutation", "chi2"):
        raise QRAInputError(f"method: must be one of ('auto', 'permutation', 'chi2'), got {method!r}")
    w = kendall_w(scores, tie_correction=tie_correction, replace_undefined_by=NAN)
    if np.isnan(w):
        return replace_undefined_by
    matrix = as_score_matrix(scores, min_cols=1)
    complete = matrix[:, ~np.isnan(matrix).any(axis=0)]
    m, n = complete.shape
    if method == "permutation" or (method == "auto" and n <= W_EXACT_UP_TO):
        return _w_permutation_pvalue(average_ranks(complete)[0])
    from scipy.stats import chi2

    return float(chi2.sf(m * (n - 1) * w, n - 1))


def _w_permutation_pvalue(ranks: np.ndarray) -> float:
    """P(sum of squared rank sums >= observed) when each row's ranks are permuted at random."""
    from itertools import permutations

    doubled = np.rint(ranks * 2).astype(np.int64)  # average ranks are halves: integers when doubled
    observed = int((doubled.sum(axis=0) ** 2).sum())
    m, n = doubled.shape
    rows = [np.array(sorted(set(permutations(row.tolist()))), dtype=np.int64) for row in doubled[1:]]
    base = np.int64(2 * n * m + 1)  # a sorted rank-sum vector as one integer key (exact: base**n < 2**63 for n <= 7)
    powers = base ** np.arange(n, dtype=np.int64)
    states, weight = np.sort(doubled[:1], axis=1), np.ones(1)
    work = 0
    for perms in rows:
        work += len(states) * len(perms)
        if work > PERMUTATION_WORK or float(base) ** n >= 2.0**62:
            return _w_monte_carlo(doubled, observed)
        grown = np.sort((states[:, None, :] + perms[None, :, :]).reshape(-1, n), axis=1)
        keys, first, inverse = np.unique(grown @ powers, return_index=True, return_inverse=True)
        weight = np.bincount(inverse.ravel(), weights=np.repeat(weight / len(perms), len(perms)), minlength=len(keys))
        states = grown[first]
    return float(min(1.0, weight[(states**2).sum(axis=1) >= observed].sum()))


def _w_monte_carlo(doubled: np.ndarray, observed: int) -> float:
    rng = np.random.default_rng(0)
    m, n = doubled.shape
    hits = 0
    for start in range(0, PERMUTATION_DRAWS, 10_000):
        size = min(10_000, PERMUTATION_DRAWS - start)
        order = np.argsort(rng.random((size, m - 1, n)), axis=-1)
        sums = doubled[0] + np.take_along_axis(np.broadcast_to(doubled[1:], (size, m - 1, n)), order, axis=-1).sum(axis=1)
        hits += int(((sums**2).sum(axis=1) >= observed).sum())
    return (hits + 1) / (PERMUTATION_DRAWS + 1)
