"""Kendall's coefficient of concordance W of n >= 2 comparable experiments, its batch form and its
p-value (exact for up to 7 systems, a seeded Monte-Carlo permutation p-value beyond, chi-square
on request).
"""

from __future__ import annotations

from dataclasses import dataclass

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
    tie_terms = (ties.astype(float) ** 2 - 1).sum(
        axis=(-1, -2)
    )  # sum over groups of t^3 - t = sum over elements of t^2 - 1
    copy_terms = np.zeros(size)
    if copies is not None:
        ids = np.asarray(copies)
        multiplicity = (
            np.take_along_axis(np.apply_along_axis(np.bincount, -1, ids, minlength=int(ids.max()) + 1), ids, -1)
            if ids.size
            else np.ones_like(ids)
        )
        copy_terms = m * (multiplicity.astype(float) ** 2 - 1).sum(-1)
    denominator = m * m * (n**3 - n) - m * (tie_terms if tie_correction else copy_terms)
    constant = (np.ptp(array, axis=-1) == 0).all(axis=-1) if n >= 2 else np.zeros(size, dtype=bool)
    reasons = undefined_reasons(
        "Kendall's W",
        size,
        count=(np.full(size, n), 2, "system(s) scored by every experiment"),
        constant=(constant, "each experiment"),
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        return Batch(12 * spread / denominator, reasons)


W_EXACT_UP_TO = 7  # systems: the p-value of W is an exact permutation p-value up to here, Monte Carlo beyond
PERMUTATION_WORK = 1_000_000  # rank vectors an exact enumeration may build; beyond it, Monte Carlo draws
PERMUTATION_DRAWS = 100_000
W_METHODS = ("auto", "permutation", "monte-carlo", "chi2")


@dataclass(frozen=True)
class WPValue:
    """A p-value of Kendall's W with how it was found: ``method`` is ``"exact"`` (enumerated),
    ``"monte-carlo"`` (``draws`` seeded random rankings; ``mc_se`` = ``sqrt(p (1 − p) / draws)``,
    its Monte-Carlo standard error) or ``"chi2"``."""

    p: float
    method: str
    draws: int = 0
    seed: int | None = None
    mc_se: float = 0.0


def kendall_w_pvalue(
    scores: npt.ArrayLike,
    *,
    tie_correction: bool = True,
    method: str = "auto",
    draws: int = PERMUTATION_DRAWS,
    seed: int = 0,
    replace_undefined_by: float = NAN,
) -> float:
    r"""P-value of Kendall's W against "no agreement": exact for few systems, a seeded
    Monte-Carlo permutation p-value beyond, the chi-square approximation on request.

    .. math:: p = P_0\left(\sum_j R_j^2 \ge \sum_j r_j^2\right),\qquad
        \text{or } \chi^2 = m (n - 1) W,\; p = P(\chi^2_{n-1} \ge \chi^2)

    for m experiments (rows) ranking n systems (the columns scored by every experiment), R_j
    the rank sums.  Under "no agreement" each experiment's ranking is a uniformly random
    permutation of its own ranks (ties kept), so W (with or without ``tie_correction``, whose
    denominator is then fixed) is a monotone function of the sum of squared rank sums.
    ``method="permutation"`` computes that tail probability exactly by enumerating the rank-sum
    vectors experiment by experiment (up to column order, which the statistic ignores); when
    that would build more than :data:`PERMUTATION_WORK` vectors it draws instead.
    ``method="monte-carlo"`` draws ``draws`` random rankings of every experiment but the first
    (numpy ``default_rng(seed)``) and returns ``(hits + 1) / (draws + 1)``; its Monte-Carlo
    standard error ``sqrt(p (1 − p) / draws)`` is at most 0.0016 with the default 100,000 draws
    (:func:`kendall_w_test` returns it).  ``method="chi2"``: Friedman's chi-square
    approximation, with the tie correction :func:`scipy.stats.friedmanchisquare`'s statistic,
    and without it QRA3's ``data.json`` ``kendall.p`` (the ``qra3`` conventions ask for it); it
    is accurate only with many experiments (15 systems ranked by 3 experiments: 0.0039 where
    the permutation p is 0.00003).  ``"auto"`` (default): exact up to :data:`W_EXACT_UP_TO`
    systems, Monte Carlo beyond.  Kendall & Babington Smith (1939) section 6; Friedman (1937).

    Parameters
    ----------
    scores : array_like of float, 2-D
        Rows = comparable experiments (at least 2), columns = systems; NaN = not scored.
    tie_correction : bool, keyword-only
        As :func:`kendall_w` (default, as QRA++).
    method : {"auto", "permutation", "monte-carlo", "chi2"}, keyword-only
        How the p-value is computed (see above).
    draws, seed : int, keyword-only
        The Monte-Carlo draws and the seed of their generator (the same seed, the same p).
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
    return kendall_w_test(
        scores,
        tie_correction=tie_correction,
        method=method,
        draws=draws,
        seed=seed,
        replace_undefined_by=replace_undefined_by,
    ).p


def kendall_w_test(
    scores: npt.ArrayLike,
    *,
    tie_correction: bool = True,
    method: str = "auto",
    draws: int = PERMUTATION_DRAWS,
    seed: int = 0,
    replace_undefined_by: float = NAN,
) -> WPValue:
    """:func:`kendall_w_pvalue` with how the p-value was found (:class:`WPValue`: the method and,
    for Monte Carlo, the draws, the seed and the p-value's Monte-Carlo standard error).

    >>> found = kendall_w_test([[1, 2, 3, 4, 5, 6, 7, 8], [2, 1, 3, 4, 6, 5, 8, 7], [1, 3, 2, 5, 4, 6, 7, 8]], draws=20_000)
    >>> found.method, found.draws, found.p < 0.001, round(found.mc_se, 5) == round((found.p * (1 - found.p) / 20_000) ** 0.5, 5)
    ('monte-carlo', 20000, True, True)
    """
    replace_undefined_by = replacement(replace_undefined_by)
    if method not in W_METHODS:
        raise QRAInputError(f"method: must be one of {W_METHODS}, got {method!r}")
    if not (isinstance(draws, (int, np.integer)) and not isinstance(draws, bool) and draws >= 100):
        raise QRAInputError(f"draws: must be an integer of at least 100, got {draws!r}")
    w = kendall_w(scores, tie_correction=tie_correction, replace_undefined_by=NAN)
    if np.isnan(w):
        return WPValue(replace_undefined_by, "undefined")
    matrix = as_score_matrix(scores, min_cols=1)
    complete = matrix[:, ~np.isnan(matrix).any(axis=0)]
    m, n = complete.shape
    if method == "chi2":
        from scipy.stats import chi2

        return WPValue(float(chi2.sf(m * (n - 1) * w, n - 1)), "chi2")
    ranks = average_ranks(complete)[0]
    if method == "permutation" or (method == "auto" and n <= W_EXACT_UP_TO):
        exact = _w_permutation_pvalue(ranks)
        if exact is not None:
            return WPValue(exact, "exact")
    doubled = np.rint(ranks * 2).astype(np.int64)
    p = _w_monte_carlo(doubled, int((doubled.sum(axis=0) ** 2).sum()), draws=int(draws), seed=seed)
    return WPValue(p, "monte-carlo", int(draws), seed, float(np.sqrt(p * (1 - p) / draws)))


def _w_permutation_pvalue(ranks: np.ndarray) -> float | None:
    """P(sum of squared rank sums >= observed) when each row's ranks are permuted at random,
    by enumeration; None when that would build more than :data:`PERMUTATION_WORK` vectors."""
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
            return None
        grown = np.sort((states[:, None, :] + perms[None, :, :]).reshape(-1, n), axis=1)
        keys, first, inverse = np.unique(grown @ powers, return_index=True, return_inverse=True)
        weight = np.bincount(inverse.ravel(), weights=np.repeat(weight / len(perms), len(perms)), minlength=len(keys))
        states = grown[first]
    return float(min(1.0, weight[(states**2).sum(axis=1) >= observed].sum()))


def _w_monte_carlo(doubled: np.ndarray, observed: int, *, draws: int, seed: int) -> float:
    """(hits + 1) / (draws + 1): the share of ``draws`` random rankings (every row but the first
    permuted, numpy ``default_rng(seed)``) whose sum of squared rank sums reaches ``observed``."""
    rng = np.random.default_rng(seed)
    m, n = doubled.shape
    hits = 0
    chunk = max(1, min(10_000, 4_000_000 // max(1, (m - 1) * n)))  # bounded memory for many systems or experiments
    for start in range(0, draws, chunk):
        size = min(chunk, draws - start)
        order = np.argsort(rng.random((size, m - 1, n)), axis=-1)
        sums = doubled[0] + np.take_along_axis(np.broadcast_to(doubled[1:], (size, m - 1, n)), order, axis=-1).sum(
            axis=1
        )
        hits += int(((sums**2).sum(axis=1) >= observed).sum())
    return (hits + 1) / (draws + 1)
