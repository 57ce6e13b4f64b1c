"""Type II results: correlation between the score sets of comparable experiments.

Orientation: a 2-D ``scores`` array has rows = comparable experiments and columns = systems;
``NaN`` marks a system an experiment did not score.  Pairwise measures use, for each pair
of experiments, the systems scored in both; Kendall's W uses the systems scored in all.

The correlations themselves come from :mod:`scipy.stats`; this module adds validation,
the missing-score rule and the undefined rule (a constant score set gives ``nan`` with an
:class:`~qra_widgets.UndefinedMeasureWarning`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ..errors import QRAInputError, undefined
from ._validation import Batch, as_pair, as_score_matrix, replacement, undefined_reason, undefined_reasons

NAN = float("nan")


PAIR_BLOCK = 1 << 20  # elements per block of system pairs (Kendall's tau-b, P): bounded memory at any size
SORT_ABOVE = 64  # systems; above this tau-b counts pairs by sorting (concordance_batch), not in blocks


def average_ranks(values: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks along the last axis (ties share their mean rank, as
    :func:`scipy.stats.rankdata`) and, per element, the size of its tie group; one sort,
    no Python loop, at any number of systems and replicates.

    >>> ranks, ties = average_ranks([[3.0, 1.0, 3.0, 2.0]])
    >>> ranks.tolist(), ties.tolist()
    ([[3.5, 1.0, 3.5, 2.0]], [[2, 1, 2, 1]])
    """
    values = np.asarray(values, dtype=float)
    n = values.shape[-1]
    order = np.argsort(values, axis=-1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=-1)
    position = np.broadcast_to(np.arange(n), values.shape)
    starts = np.ones(values.shape, dtype=bool)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    ends = np.ones(values.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, position, n), axis=-1), axis=-1), axis=-1)
    ranks = np.empty(values.shape)
    ties = np.empty(values.shape, dtype=np.int64)
    np.put_along_axis(ranks, order, (first + last) / 2 + 1, axis=-1)
    np.put_along_axis(ties, order, last - first + 1, axis=-1)
    return ranks, ties


def _deviations(rows: np.ndarray) -> np.ndarray:
    """Rows whose r equals the rows' r, computed without over- or underflow at any scale.

    Each row is divided by a power of two near its largest magnitude (exact), shifted by its
    first value (exact for values within a factor 2 of it, Sterbenz: nearly constant scores
    a few ulps apart keep every digit), centred, and divided again by a power of two near its
    largest deviation, as :func:`scipy.stats.pearsonr` rescales before it sums squares."""
    def scaled(x):
        largest = np.abs(x).max(axis=-1, keepdims=True)
        exponent = np.where(largest > 0, np.minimum(np.frexp(largest)[1], 1023), 0)
        return np.ldexp(x, -exponent)

    shifted = scaled(rows)
    shifted = scaled(shifted - shifted[..., :1])
    return scaled(shifted - shifted.mean(axis=-1, keepdims=True))


def _correlation_matrix(matrix: np.ndarray) -> np.ndarray:
    """Pearson's r between every pair of rows (the normalisation of :func:`pearson_batch`):
    ``r_ij = g_ij / sqrt(g_ii g_jj)`` from the Gram matrix g, clipped to [-1, 1]."""
    deviations = _deviations(np.atleast_2d(np.asarray(matrix, dtype=float)))
    gram = deviations @ deviations.T
    squares = np.diag(gram)
    return np.clip(gram / np.sqrt(np.outer(squares, squares)), -1.0, 1.0)


def _constant_reasons(measure: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    rows = int(np.prod(a.shape[:-1]))
    const_x, const_y = (np.ptp(v, axis=-1).reshape(rows) == 0 for v in (a, b))
    reasons = undefined_reasons(measure, rows, constant=(const_x, "x"))
    return np.where(reasons == "", undefined_reasons(measure, rows, constant=(const_y, "y")), reasons).reshape(a.shape[:-1])


def pearson_batch(x: npt.ArrayLike, y: npt.ArrayLike, *, measure: str = "Pearson's r") -> Batch:
    r"""Pearson's r of every row pair of ``x`` and ``y`` (..., n): the one implementation of
    :func:`pearson_r` (one row), of :func:`spearman_rho` (on :func:`average_ranks`) and of
    the bootstrap (a (B, n) stack).  Undefined where a row is constant.

    .. math:: r = \frac{\sum_i a_i b_i}{\sqrt{\sum_i a_i^2 \sum_i b_i^2}}

    with a, b the rescaled deviations of each row (see ``_deviations``).

    >>> pearson_batch([[3.71, 3.2, 2.33], [1, 1, 1]], [[3.12, 2.57, 2.28], [1, 2, 3]]).values.round(4).tolist()
    [0.9472, nan]
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    da, db = _deviations(a), _deviations(b)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.clip((da * db).sum(-1) / np.sqrt((da * da).sum(-1) * (db * db).sum(-1)), -1.0, 1.0)
    return Batch(r, _constant_reasons(measure, a, b))


def spearman_batch(x: npt.ArrayLike, y: npt.ArrayLike) -> Batch:
    """Spearman's rho of every row pair: :func:`pearson_batch` on :func:`average_ranks`.

    >>> spearman_batch([[3.71, 3.2, 2.33]], [[3.12, 2.57, 2.28]]).values.tolist()
    [1.0]
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return pearson_batch(average_ranks(a)[0], average_ranks(b)[0], measure="Spearman's rho")


def tau_b_batch(x: npt.ArrayLike, y: npt.ArrayLike) -> Batch:
    r"""Kendall's tau-b of every row pair of ``x`` and ``y`` (..., n): the one implementation
    of :func:`kendall_tau` and of the bootstrap.

    .. math:: \tau_b = \frac{\sum_{i<j} \operatorname{sgn}(x_i - x_j) \operatorname{sgn}(y_i - y_j)}
        {\sqrt{n_0 - n_1}\,\sqrt{n_0 - n_2}}

    Up to :data:`SORT_ABOVE` systems the pairs are taken in blocks of at most
    :data:`PAIR_BLOCK` elements (bounded memory); above it they are counted by sorting
    (:func:`~qra_widgets.measures.ranking.concordance_batch`, O(n log^2 n) per row).  A pair of copies of one system (tied in
    both rows) counts in n_0, n_1 and n_2 alike, so copies drawn by a system bootstrap leave
    tau-b unchanged.

    >>> tau_b_batch([[1, 2, 3, 4]], [[1, 3, 2, 4]]).values.round(4).tolist()
    [0.6667]
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    shape, n = a.shape[:-1], a.shape[-1]
    a2, b2 = a.reshape(-1, n), b.reshape(-1, n)
    rows = a2.shape[0]
    reasons = _constant_reasons("Kendall's tau", a2, b2)
    if n > SORT_ABOVE:
        from .ranking import concordance_batch

        concordant, discordant, tied_x, tied_y, _both = concordance_batch(a2, b2)
        total = n * (n - 1) // 2
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = (concordant - discordant) / np.sqrt(total - tied_x) / np.sqrt(total - tied_y)
        return Batch(np.clip(tau, -1.0, 1.0).reshape(shape), reasons.reshape(shape))
    first, second = np.triu_indices(n, k=1)
    total = first.size
    concordance, tied_x, tied_y = np.zeros(rows), np.zeros(rows), np.zeros(rows)
    step = max(1, PAIR_BLOCK // max(rows, 1))
    for start in range(0, total, step):
        i, j = first[start:start + step], second[start:start + step]
        sx, sy = np.sign(a2[:, i] - a2[:, j]), np.sign(b2[:, i] - b2[:, j])
        concordance += (sx * sy).sum(-1)
        tied_x += (sx == 0).sum(-1)
        tied_y += (sy == 0).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = concordance / np.sqrt(total - tied_x) / np.sqrt(total - tied_y)
    return Batch(np.clip(tau, -1.0, 1.0).reshape(shape), reasons.reshape(shape))


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
    reasons = undefined_reasons(f"mean pairwise {name}", size, pairs=defined, pairs_of="pair of experiments gives a defined value")
    return Batch(mean, reasons), pairs


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


_PAIRWISE = {"r": (pearson_r, "Pearson's r"), "rho": (spearman_rho, "Spearman's rho"), "tau": (kendall_tau, "Kendall's tau")}


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


def correlation_pvalue(x: npt.ArrayLike, y: npt.ArrayLike, *, measure: str = "r", replace_undefined_by: float = NAN) -> float:
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
    count = (a.size, 3, "systems (the t approximation needs n - 2 >= 1 degrees of freedom)") if measure == "rho" else None
    reason = undefined_reason(f"the p-value of {name}", constant=constant, count=count)
    if reason:
        return undefined(reason, replace_undefined_by)
    from scipy import stats

    function = {"r": stats.pearsonr, "rho": stats.spearmanr, "tau": stats.kendalltau}[measure]
    return float(function(a, b).pvalue)
