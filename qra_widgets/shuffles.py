"""The property analysis' permutation test by order tables (:func:`qra_widgets.overview.property_effects`).

A shuffle permutes each study's experiments (places ``0 .. m-1``); a pair of experiments
``(a, b)`` of that study then takes the answers of the places ``(pi(a), pi(b))``.  Per shuffle
the test needs four sums over all pairs: the centred pair CV*s of the pairs whose experiments
answer a property differently, their number, and the same two for the pairs that answer it
alike.  A study's share of each sum depends only on its own order ``pi``, one of ``m!`` (24
for four experiments), so each study's shares are tabulated once for all of its orders and a
shuffle's sums are look-ups, one per study: ``m! x pairs + shuffles x studies`` operations per
property instead of ``shuffles x pairs``.  Studies with more than :data:`MAX_TABULATED`
experiments are summed pair by pair (256 shuffles at a time), as every study was before.

The shuffles are the caller's (the same random orders, drawn as before); only the order of the
additions differs from a pass over the pairs, so a shuffled effect moves in its last bits, which
the test's tolerance (``1e-12``, relative) absorbs: the p-values are the same.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

MAX_TABULATED = 5  # 120 orders per study (a table's cells: orders x pairs; 6 experiments would be 720)
CHUNK = 256  # shuffles per pass for the studies summed pair by pair


def order_ranks(orders: np.ndarray) -> np.ndarray:
    """Each row's rank among the permutations of ``range(m)`` in lexicographic order (the order
    of ``itertools.permutations``), by its Lehmer code.

    >>> order_ranks(np.array([[0, 1, 2], [0, 2, 1], [2, 1, 0]]))
    array([0, 1, 5])
    """
    n, m = orders.shape
    rank = np.zeros(n, dtype=np.int64)
    for j in range(m - 1):
        rank += (orders[:, j + 1 :] < orders[:, [j]]).sum(axis=1) * math.factorial(m - 1 - j)
    return rank


class Shuffles:
    """The shuffles of one permutation test, ready for :meth:`effects` of any property.

    ``perm[k, study_offset[s] + place]``: the place whose answers that experiment of study ``s``
    takes in shuffle ``k``; ``size[s]``: study ``s``'s number of experiments.  Per pair:
    ``study_index``, ``first_slot`` (its criterion group's first slot; a slot is a group's
    experiment place), ``place_a``/``place_b`` (its experiments' places)."""

    def __init__(
        self,
        perm: np.ndarray,
        study_offset: np.ndarray,
        size: np.ndarray,
        study_index: np.ndarray,
        first_slot: np.ndarray,
        place_a: np.ndarray,
        place_b: np.ndarray,
    ):
        self.n_shuffles = perm.shape[0]
        tabulated = size <= MAX_TABULATED
        self.tables = []  # per number of experiments m: (slots a, slots b, table cell per pair and order, ranks)
        for m in np.unique(size[tabulated]):
            studies = np.flatnonzero(tabulated & (size == m))
            local = np.full(len(size), -1, dtype=np.int64)
            local[studies] = np.arange(len(studies))
            pairs = np.flatnonzero(local[study_index] >= 0)
            orders = np.array(list(itertools.permutations(range(int(m)))), dtype=np.int64)  # (m!, m)
            slots_a = (first_slot[pairs][None, :] + orders[:, place_a[pairs]]).astype(np.int32)  # (m!, pairs)
            slots_b = (first_slot[pairs][None, :] + orders[:, place_b[pairs]]).astype(np.int32)
            cell = np.arange(len(orders))[:, None] * len(studies) + local[study_index[pairs]][None, :]
            columns = study_offset[studies][:, None] + np.arange(int(m))  # (studies, m)
            # each shuffled order as a base-m number, then its rank by a table of the m! orders
            code_rank = np.zeros(int(m) ** int(m), dtype=np.int64)
            code_rank[orders @ int(m) ** np.arange(int(m))] = order_ranks(orders)
            codes = np.zeros((self.n_shuffles, len(studies)), dtype=np.int64)
            for j in range(int(m)):
                codes += perm[:, columns[:, j]] * int(m) ** j
            ranks = code_rank[codes]
            self.tables.append(
                (
                    pairs,
                    slots_a,
                    slots_b,
                    cell,
                    len(orders) * len(studies),
                    ranks * len(studies) + np.arange(len(studies))[None, :],
                )
            )
        rest = np.flatnonzero(~tabulated[study_index])
        self.perm = perm
        self.rest = (
            (
                rest,
                first_slot[rest],
                study_offset[study_index[rest]] + place_a[rest],
                study_offset[study_index[rest]] + place_b[rest],
            )
            if len(rest)
            else None
        )

    def effects(self, labels: np.ndarray, centred: np.ndarray) -> np.ndarray:
        """The effect (mean centred pair CV* of the pairs answering differently minus that of the
        pairs answering alike) under every shuffle; ``labels``: each slot's answer class (-1: not
        answered), ``centred``: each pair's centred pair CV*."""
        sums = np.zeros((4, self.n_shuffles))  # differ: sum, count; same: sum, count
        for pairs, slots_a, slots_b, cell, n_cells, lookup in self.tables:
            same, differ = _classes(labels[slots_a], labels[slots_b])
            value = np.broadcast_to(centred[pairs], cell.shape)
            for row, mask, weights in ((0, differ, value), (1, differ, None), (2, same, value), (3, same, None)):
                table = np.bincount(cell[mask], weights=None if weights is None else weights[mask], minlength=n_cells)
                sums[row] += table[lookup].sum(axis=1)
        if self.rest is not None:
            rest, first, column_a, column_b = self.rest
            for k in range(0, self.n_shuffles, CHUNK):
                same, differ = _classes(
                    labels[first + self.perm[k : k + CHUNK, column_a]],
                    labels[first + self.perm[k : k + CHUNK, column_b]],
                )
                sums[:, k : k + CHUNK] += [differ @ centred[rest], differ.sum(1), same @ centred[rest], same.sum(1)]
        with np.errstate(divide="ignore", invalid="ignore"):
            return sums[0] / sums[1] - sums[2] / sums[3]


def _classes(la: np.ndarray, lb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(alike, differently): both places answered, with the same class or not."""
    answered = (la >= 0) & (lb >= 0)
    same = answered & (la == lb)
    return same, answered & ~same
