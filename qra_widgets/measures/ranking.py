"""Type IV results: P, the proportion of identical pairwise system ranks (QRA++ Figure 1)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ..errors import NAN, QRAInputError, undefined
from ._validation import as_score_matrix, replacement, undefined_reason

TIE_RULES = ("sign", "untied")
PAIR_SIGNS_UP_TO = 64  # systems; above this P sorts (concordance_batch) instead of comparing S(S-1)/2 signs
PAIR_BLOCK = 1 << 21  # elements of the sign array per block of system pairs (bounded memory)
SORT_SYSTEMS_ABOVE = PAIR_SIGNS_UP_TO


@dataclass(frozen=True)
class RankCounts:
    """How many system pairs were ranked the same way, out of how many compared.

    Counts add up across experiment pairs and quality criteria, which is how P is pooled
    at the study level ("P computed over all differences in study", QRA++ Table 2).
    """

    same: int
    compared: int

    def __add__(self, other: RankCounts) -> RankCounts:
        return RankCounts(self.same + other.same, self.compared + other.compared)

    def proportion(self, *, replace_undefined_by: float = NAN) -> float:
        """P = same / compared, or ``replace_undefined_by`` when nothing was compared."""
        replace_undefined_by = replacement(replace_undefined_by)
        reason = undefined_reason("P", pairs=self.compared, pairs_of="system pair is scored in two experiments")
        if reason:
            return undefined(reason, replace_undefined_by)
        return self.same / self.compared


def _check_ties(ties: str) -> str:
    if ties not in TIE_RULES:
        raise QRAInputError(f"ties: must be one of {', '.join(TIE_RULES)}, got {ties!r}")
    return ties


def rank_counts(scores: npt.ArrayLike, *, ties: str = "sign") -> RankCounts:
    """Same-sign and compared system-pair counts over all pairs of experiments.

    .. math:: \\text{same} = \\sum_{(E_i,E_j)} \\sum_{(S_m,S_n)} [\\operatorname{sgn} d_i = \\operatorname{sgn} d_j]

    with d_i = M_{E_i}(S_m) - M_{E_i}(S_n): the numerator of :func:`rank_agreement` (and
    ``compared`` its denominator), so that
    counts can be pooled across quality criteria.

    It is :func:`rank_counts_batch` on one replicate: up to :data:`PAIR_SIGNS_UP_TO` systems
    the signs of all pairwise differences are compared in blocks (far faster than sorting tiny
    arrays); beyond that, concordance is counted by sorting in O(S log^2 S) time and O(S)
    memory per experiment pair (:func:`concordance_batch`).

    Parameters
    ----------
    scores : array_like of float, 2-D
        Rows = experiments, columns = systems; NaN = not scored.
    ties : {"sign", "untied"}, keyword-only
        The tie rule of :func:`rank_agreement`.

    Returns
    -------
    RankCounts

    References
    ----------
    Belz, A. (2025). QRA++: Quantified reproducibility assessment for common types of
    results in natural language processing, section 6.4.
    https://doi.org/10.48550/arXiv.2412.07940

    Examples
    --------
    >>> rank_counts([[1, 2, 3], [1, 3, 2]])
    RankCounts(same=2, compared=3)
    >>> rank_counts([[1, 1, 2], [1, 2, 3]]), rank_counts([[1, 1, 2], [1, 2, 3]], ties="untied")
    (RankCounts(same=2, compared=3), RankCounts(same=2, compared=2))
    """
    _check_ties(ties)
    matrix = as_score_matrix(scores)
    same, compared = rank_counts_batch(matrix[None], ties=ties)
    return RankCounts(int(same[0]), int(compared[0]))


def _dense_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense integer ranks along the last axis (equal values share one) and the tied pairs per row."""
    order = np.argsort(values, axis=-1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=-1)
    new = np.ones(values.shape, dtype=bool)
    new[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    dense = np.empty(values.shape, dtype=np.int64)
    np.put_along_axis(dense, order, np.cumsum(new, axis=-1) - 1, axis=-1)
    return dense, _tied_pairs(new)


def _tied_pairs(new: np.ndarray) -> np.ndarray:
    """Pairs within runs of equal sorted values, sum of t(t-1)/2, from the run-start flags (rows)."""
    n = new.shape[-1]
    position = np.broadcast_to(np.arange(n), new.shape)
    first = np.maximum.accumulate(np.where(new, position, 0), axis=-1)
    return (position - first).sum(axis=-1)  # each element pairs with the earlier members of its run


def _inversions(values: np.ndarray) -> np.ndarray:
    """Strict inversions (i < j, v_i > v_j) of each row of non-negative integers, by bottom-up merging:
    at each of log2(n) levels, one stable sort of every block pair counts the left elements above
    each right element.  O(n log^2 n) per row, vectorised over rows."""
    rows, n = values.shape
    size = 1 << max(0, (n - 1).bit_length())
    padded = np.full((rows, size), int(values.max(initial=0)) + 1, dtype=np.int64)  # padding at the end adds none
    padded[:, :n] = values
    count = np.zeros(rows, dtype=np.int64)
    half = 1
    while half < size:
        blocks = padded.reshape(rows, size // (2 * half), 2 * half)
        side = np.repeat(np.array([0, 1], dtype=np.int64), half)
        right = np.sort(blocks * 2 + side, axis=-1) & 1  # equal values: left before right; the parity is the side
        left_before = np.cumsum(1 - right, axis=-1)
        count += np.where(right == 1, half - left_before, 0).sum(axis=(1, 2))
        half *= 2
    return count


def concordance_batch(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[np.ndarray, ...]:
    """(concordant, discordant, tied in x, tied in y, tied in both) system pairs of each row pair of
    ``x`` and ``y`` (B, n), by sorting: O(n log^2 n) per row, no n x n array.  Lexicographic order
    by (x, y) leaves pairs tied in x in y order, so discordant pairs are the strict inversions of y.

    >>> [int(v[0]) for v in concordance_batch([[1, 2, 3, 3]], [[1, 3, 2, 2]])]
    [3, 2, 1, 1, 1]
    """
    x, y = np.atleast_2d(np.asarray(x, dtype=float)), np.atleast_2d(np.asarray(y, dtype=float))
    n = x.shape[-1]
    rx, tied_x = _dense_ranks(x)
    ry, tied_y = _dense_ranks(y)
    key = rx * n + ry
    order = np.argsort(key, axis=-1, kind="stable")
    ordered = np.take_along_axis(key, order, axis=-1)
    new = np.ones(key.shape, dtype=bool)
    new[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    tied_both = _tied_pairs(new)
    discordant = _inversions(np.take_along_axis(ry, order, axis=-1))
    total = n * (n - 1) // 2
    concordant = total - tied_x - tied_y + tied_both - discordant
    return concordant, discordant, tied_x, tied_y, tied_both


def rank_counts_batch(
    stack: npt.ArrayLike, *, ties: str = "sign", copies: npt.ArrayLike | None = None
) -> tuple[np.ndarray, np.ndarray]:
    r"""Same-sign and compared system-pair counts of every replicate of ``stack`` (B, E, S),
    NaN = a missing score: the one implementation of :func:`rank_counts` and of the bootstrap.

    .. math:: \text{same} = \sum_{(S_m,S_n)} \left[\binom{k_+}{2} + \binom{k_-}{2} + \binom{k_0}{2}\right],\qquad
        \text{compared} = \sum_{(S_m,S_n)} \binom{k_+ + k_- + k_0}{2}

    with ``k_+``, ``k_-``, ``k_0`` the experiments in which S_m scores above, below or equal to S_n (the
    experiment pairs agreeing on the sign of the difference; ``ties="untied"`` drops ``k_0`` from
    both).  Up to :data:`SORT_SYSTEMS_ABOVE` systems the pairs are taken in blocks of bounded
    size, experiments without a loop; above it, each pair of experiments is counted by sorting
    (:func:`concordance_batch`, O(S log^2 S) per replicate, vectorised over replicates).
    ``copies`` (B, S) names the original system of each column when systems were drawn with
    replacement: a pair of copies of one system is not a system pair and is not counted.

    >>> same, compared = rank_counts_batch([[[1, 2, 3], [1, 3, 2]], [[1, 2, 3], [1, 2, 3]]])
    >>> same.tolist(), compared.tolist()
    ([2, 3], [3, 3])
    """
    _check_ties(ties)
    array = np.asarray(stack, dtype=float)
    size, _experiments, systems = array.shape
    ids = None if copies is None else np.asarray(copies)
    present = ~np.isnan(array)
    if systems > SORT_SYSTEMS_ABOVE and (present == present[:1]).all():
        return _rank_counts_by_sorting(array, present[0], ties, ids)
    first, second = np.triu_indices(systems, k=1)
    same, compared = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    step = max(1, PAIR_BLOCK // max(array.shape[0] * array.shape[1], 1))
    pair = lambda k: k * (k - 1) // 2
    for start in range(0, first.size, step):
        i, j = first[start : start + step], second[start : start + step]
        signs = np.sign(array[:, :, i] - array[:, :, j])  # (B, E, block); NaN where a score is missing
        above, below, level = ((signs == v).sum(axis=1) for v in (1.0, -1.0, 0.0))
        if ties == "untied":
            level = np.zeros_like(level)
        agree = pair(above) + pair(below) + pair(level)
        total = pair(above + below + level)
        if ids is not None:
            distinct = ids[:, i] != ids[:, j]
            agree, total = agree * distinct, total * distinct
        same += agree.sum(-1)
        compared += total.sum(-1)
    return same, compared


def _rank_counts_by_sorting(array: np.ndarray, present: np.ndarray, ties: str, ids: np.ndarray | None):
    """:func:`rank_counts_batch` for many systems: per pair of experiments, the concordant,
    discordant and tied pairs by sorting (:func:`concordance_batch`), never S(S-1)/2 signs.  Copies
    of one system (``ids``) are tied in both experiments; their pairs are taken out."""
    size, experiments, _systems = array.shape
    same, compared = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    for i, j in combinations(range(experiments), 2):
        both = present[i] & present[j]
        k = int(both.sum())
        if k < 2:
            continue
        concordant, discordant, _tx, _ty, tied_both = concordance_batch(array[:, i, both], array[:, j, both])
        copy_pairs = 0
        if ids is not None:
            drawn = ids[:, both]
            counts = np.apply_along_axis(np.bincount, -1, drawn, minlength=int(drawn.max()) + 1)
            copy_pairs = (counts * (counts - 1) // 2).sum(-1)
        if ties == "untied":
            same += concordant
            compared += concordant + discordant
        else:
            same += concordant + tied_both - copy_pairs
            compared += k * (k - 1) // 2 - copy_pairs
    return same, compared


def rank_agreement(scores: npt.ArrayLike, *, ties: str = "sign", replace_undefined_by: float = NAN) -> float:
    r"""P: the proportion of identical pairwise system ranks across comparable experiments.

    .. math::

        P = \frac{1}{|\mathbb{E}||\mathbb{S}|} \sum_{(E_i,E_j)} \sum_{(S_m,S_n)}
            [\operatorname{sgn}(M_{E_i}(S_m) - M_{E_i}(S_n))
             = \operatorname{sgn}(M_{E_j}(S_m) - M_{E_j}(S_n))]

    QRA++ (Belz 2025) section 6.4, Figure 1 / eq. 4.  A pair of systems counts as the same
    when the two differences have equal signs, so a tie in both experiments counts as the
    same and a tie in only one does not (``ties="sign"``, the default; the organisers' QRA3
    tool counts a pair tied in one experiment only as ranked differently too).  With
    ``ties="untied"`` a pair tied in either experiment is left out of both counts (P over
    strict orderings only).  Rows of ``scores`` are experiments, columns
    systems; NaN is a missing score.  For each pair of experiments only the systems scored
    in both are compared, and P is pooled: the sum of same-sign pairs over the sum of
    compared pairs (with no missing scores this is exactly eq. 4).

    Each experiment pair costs O(S log^2 S) time and O(S) memory (concordance counted by
    sorting, never an S x S matrix) once there are more than :data:`PAIR_SIGNS_UP_TO`
    systems; below that the pair signs are compared directly.  P compares signs only, so
    the scale of the scores plays no part.

    Parameters
    ----------
    scores : array_like of float, 2-D
        Rows = experiments (at least 2), columns = systems; NaN = not scored.
    ties : {"sign", "untied"}, keyword-only
        ``"sign"`` (default): a pair tied in both experiments is the same, tied in one only
        is different.  ``"untied"``: pairs tied in either are left out.
    replace_undefined_by : float, keyword-only
        Returned when no pair of experiments shares two systems (default ``nan``).

    Returns
    -------
    float
        P in [0, 1].

    References
    ----------
    Belz, A. (2025). QRA++: Quantified reproducibility assessment for common types of
    results in natural language processing, section 6.4.
    https://doi.org/10.48550/arXiv.2412.07940

    Examples
    --------
    >>> rank_agreement([[3.71, 3.2, 2.33], [3.12, 2.57, 2.28], [3.02, 2.4, 1.81]])
    1.0
    >>> rank_agreement([[1, 2, 3], [1, 3, 2]])
    0.6666666666666666
    >>> rank_agreement([[1, 1, 2], [1, 1, 3]])  # the tie is kept: same
    1.0
    >>> rank_agreement([[1, 1, 2], [1, 2, 3]])  # tied in one experiment only: different
    0.6666666666666666
    >>> rank_agreement([[1, 1, 2], [1, 2, 3]], ties="untied")
    1.0
    """
    replace_undefined_by = replacement(replace_undefined_by)
    return rank_counts(scores, ties=ties).proportion(replace_undefined_by=replace_undefined_by)


def sign_counts(signs: npt.ArrayLike, *, ties: str = "sign") -> RankCounts:
    """Counts for explicit Type IV findings instead of scores.

    .. math:: \\text{same} = \\sum_{(E_i,E_j)} \\sum_{(A,B)} [s_i(A,B) = s_j(A,B)]

    over the system pairs both experiments state a finding for (QRA++ Figure 1).

    Parameters
    ----------
    signs : array_like of float, 2-D
        Rows = experiments, columns = system pairs (A, B); each cell is the stated sign of
        M(A) - M(B): 1 (A better), -1 (B better), 0 (no difference), NaN (the experiment
        states nothing about that pair).
    ties : {"sign", "untied"}, keyword-only
        The tie rule of :func:`rank_agreement` (0 is a tie).

    Returns
    -------
    RankCounts

    References
    ----------
    Belz, A. (2025). QRA++: Quantified reproducibility assessment for common types of
    results in natural language processing, section 6.4.
    https://doi.org/10.48550/arXiv.2412.07940

    Examples
    --------
    >>> sign_counts([[1, -1, 0], [1, 1, 0]])
    RankCounts(same=2, compared=3)
    """
    _check_ties(ties)
    matrix = as_score_matrix(signs, name="signs", min_cols=1)
    present = ~np.isnan(matrix)
    if not np.isin(matrix[present], (-1.0, 0.0, 1.0)).all():
        raise QRAInputError("signs: every stated finding must be -1, 0 or 1")
    counts = RankCounts(0, 0)
    for i, j in combinations(range(matrix.shape[0]), 2):
        both = present[i] & present[j]
        if ties == "untied":
            both &= (matrix[i] != 0) & (matrix[j] != 0)
        counts += RankCounts(int((matrix[i, both] == matrix[j, both]).sum()), int(both.sum()))
    return counts
