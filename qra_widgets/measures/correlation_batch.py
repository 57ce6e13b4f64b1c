"""Batch forms of the Type II correlations and the ranks they share: Pearson's r, Spearman's rho and
Kendall's tau-b of a (B, n) stack of score pairs at once, with no Python loop over the stack.

The single-number functions in :mod:`qra_widgets.measures.correlation` call these with one row,
so one implementation gives both.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._validation import Batch, undefined_reasons

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
    return np.where(reasons == "", undefined_reasons(measure, rows, constant=(const_y, "y")), reasons).reshape(
        a.shape[:-1]
    )


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
        i, j = first[start : start + step], second[start : start + step]
        sx, sy = np.sign(a2[:, i] - a2[:, j]), np.sign(b2[:, i] - b2[:, j])
        concordance += (sx * sy).sum(-1)
        tied_x += (sx == 0).sum(-1)
        tied_y += (sy == 0).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = concordance / np.sqrt(total - tied_x) / np.sqrt(total - tied_y)
    return Batch(np.clip(tau, -1.0, 1.0).reshape(shape), reasons.reshape(shape))
