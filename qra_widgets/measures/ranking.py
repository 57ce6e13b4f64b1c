"""Type IV results: P, the proportion of identical pairwise system ranks (QRA++ Figure 1)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ..errors import QRAInputError, undefined
from ._validation import as_score_matrix, replacement, undefined_reason

NAN = float("nan")
TIE_RULES = ("sign", "untied")
PAIR_SIGNS_UP_TO = 128  # systems; above this P sorts instead of comparing S(S-1)/2 signs
PAIR_BLOCK = 1 << 21  # elements of the sign array per block of system pairs (bounded memory)


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


def _pairs_in_runs(sorted_values: np.ndarray) -> int:
    """Pairs of equal values in a sorted array: sum of k(k-1)/2 over its runs of equal values."""
    starts = np.flatnonzero(np.concatenate(([True], sorted_values[1:] != sorted_values[:-1], [True])))
    lengths = np.diff(starts)
    return int((lengths * (lengths - 1) // 2).sum())


@dataclass(frozen=True)
class _Ties:
    """One experiment's scores as integer codes that are equal exactly where the scores are,
    and how many system pairs they tie; computed once per experiment, reused by every pair."""

    pairs: int
    codes: np.ndarray

    @classmethod
    def of(cls, scores: np.ndarray) -> _Ties:
        _, codes, counts = np.unique(scores, return_inverse=True, return_counts=True)
        return cls(int((counts * (counts - 1) // 2).sum()), codes.astype(np.int64))

    def tied_with(self, other: _Ties) -> int:
        """Pairs tied in both experiments: equal joint codes, counted after one integer sort."""
        joint = self.codes * (int(other.codes.max()) + 1) + other.codes
        return _pairs_in_runs(np.sort(joint))


def _same_sign_pairs(x: np.ndarray, y: np.ndarray, x_ties: _Ties | None = None, y_ties: _Ties | None = None,
                     ties: str = "sign") -> RankCounts:
    """System pairs whose differences have equal signs in x and y, in O(S log S) time.

    Equal signs = concordant pairs + pairs tied in both (``ties="sign"``); with
    ``ties="untied"`` only pairs untied in both are compared, and same = concordant.
    C - D comes from Kendall's tau-b
    (scipy counts it by sorting, without the S x S sign matrix); C + D from the tie counts.
    """
    k = x.size
    total = k * (k - 1) // 2
    x_ties = _Ties.of(x) if x_ties is None else x_ties
    y_ties = _Ties.of(y) if y_ties is None else y_ties
    tied_both = x_ties.tied_with(y_ties)
    untied_x, untied_y = total - x_ties.pairs, total - y_ties.pairs
    if untied_x == 0 or untied_y == 0:
        concordant_minus_discordant = 0
    else:
        from scipy.stats import kendalltau

        tau_b = kendalltau(x, y, variant="b").statistic
        concordant_minus_discordant = round(tau_b * np.sqrt(float(untied_x) * float(untied_y)))
    concordant_plus_discordant = total - x_ties.pairs - y_ties.pairs + tied_both
    concordant = (concordant_plus_discordant + concordant_minus_discordant) // 2
    if ties == "untied":
        return RankCounts(concordant, concordant_plus_discordant)
    return RankCounts(concordant + tied_both, total)


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

    Up to :data:`PAIR_SIGNS_UP_TO` systems the signs of all pairwise differences are
    compared directly (:func:`sign_counts`; at most 8,128 signs per experiment, and far
    faster than sorting tiny arrays); beyond that, concordance is counted by sorting in
    O(S log S) time and O(S) memory per experiment pair.

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


def rank_counts_batch(stack: npt.ArrayLike, *, ties: str = "sign", copies: npt.ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""Same-sign and compared system-pair counts of every replicate of ``stack`` (B, E, S),
    NaN = a missing score: the one implementation of :func:`rank_counts` and of the bootstrap.

    .. math:: \text{same} = \sum_{(S_m,S_n)} \left[\binom{k_+}{2} + \binom{k_-}{2} + \binom{k_0}{2}\right],\qquad
        \text{compared} = \sum_{(S_m,S_n)} \binom{k_+ + k_- + k_0}{2}

    with k_+, k_-, k_0 the experiments in which S_m scores above, below or equal to S_n (the
    experiment pairs agreeing on the sign of the difference; ``ties="untied"`` drops k_0 from
    both).  System pairs are taken in blocks of bounded size, experiments without a loop.
    ``copies`` (B, S) names the original system of each column when systems were drawn with
    replacement: a pair of copies of one system is not a system pair and is not counted.  A
    single replicate above :data:`PAIR_SIGNS_UP_TO` systems counts by sorting, O(S log S)
    per experiment pair.

    >>> same, compared = rank_counts_batch([[[1, 2, 3], [1, 3, 2]], [[1, 2, 3], [1, 2, 3]]])
    >>> same.tolist(), compared.tolist()
    ([2, 3], [3, 3])
    """
    _check_ties(ties)
    array = np.asarray(stack, dtype=float)
    size, _experiments, systems = array.shape
    if size == 1 and copies is None and systems > PAIR_SIGNS_UP_TO:
        counts = _sorted_rank_counts(array[0], ties)
        return np.array([counts.same]), np.array([counts.compared])
    ids = None if copies is None else np.asarray(copies)
    first, second = np.triu_indices(systems, k=1)
    same, compared = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    step = max(1, PAIR_BLOCK // max(array.shape[0] * array.shape[1], 1))
    pair = lambda k: k * (k - 1) // 2
    for start in range(0, first.size, step):
        i, j = first[start:start + step], second[start:start + step]
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


def _sorted_rank_counts(matrix: np.ndarray, ties: str) -> RankCounts:
    """Counts of one replicate by sorting, pair of experiments by pair: O(S log S) time and
    O(S) memory each (for many systems, where S(S-1)/2 signs would not fit)."""
    scored = ~np.isnan(matrix)
    complete = scored.all(axis=1)
    tie_codes = [_Ties.of(row) if full else None for row, full in zip(matrix, complete)]  # reused by every pair
    counts = RankCounts(0, 0)
    for i, j in combinations(range(matrix.shape[0]), 2):
        if complete[i] and complete[j]:
            counts += _same_sign_pairs(matrix[i], matrix[j], tie_codes[i], tie_codes[j], ties)
            continue
        both = scored[i] & scored[j]
        if both.sum() >= 2:
            counts += _same_sign_pairs(matrix[i, both], matrix[j, both], ties=ties)
    return counts


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

    Each experiment pair costs O(S log S) time and O(S) memory (concordance counted by
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
