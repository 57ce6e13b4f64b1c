"""Resampling comparative judgements (pairwise, best-worst) in the bootstrap engine
(:mod:`qra_widgets.uncertainty`): a judgement gives a rating to every system it showed, but it is
one answer, so its ratings are resampled together (one cluster), and Bradley-Terry values are
refitted from each replicate's win counts rather than averaged.
"""

from __future__ import annotations

import numpy as np

from .errors import QRAInputError

# ``design`` below is the engine's :class:`qra_widgets.uncertainty.Design` (not imported: the engine imports this)


def judgement_clusters(study, units: list, unit_system: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(cluster per unit, stratum per cluster) when the study has comparative judgements, else (None, None).

    A judgement's ratings carry the item ``unit|system`` (:mod:`qra_widgets.io.layout_pairwise`),
    ``unit`` being the item and the systems shown; its units form one cluster.  A cluster is drawn
    within the systems it showed (pairwise: its pair, as each pair's number of judgements is fixed by
    the design), or, when some such stratum has a single judgement (best-worst tuples drawn at random),
    among all judgements."""

    choices = getattr(study.ratings, "choices", None) if study.ratings else None
    if choices is None or not len(choices):
        return None, None
    judged = choices.units()
    parts = [str(item).rpartition("|") for _system, item in units]
    kinds = [
        bool(bar) and head in judged and tail == str(system) for (system, _i), (head, bar, tail) in zip(units, parts)
    ]
    # a judgement's units share its id (a Python dict of the ids: exact for any text; pandas < 2.2
    # hashes an object string only up to its first NUL); a plain rating is its own cluster.  Clusters
    # are numbered in order of first appearance.
    heads: dict = {}
    code = np.fromiter(
        (heads.setdefault(head, len(heads)) if j else -1 for j, (head, _b, _t) in zip(kinds, parts)),
        dtype=np.int64,
        count=len(units),
    )
    code = np.where(code >= 0, code, len(units) + np.arange(len(units)))
    _codes, first_seen, found = np.unique(code, return_index=True, return_inverse=True)
    cluster = np.argsort(np.argsort(first_seen, kind="stable"), kind="stable")[np.ravel(found)].astype(np.int64)
    n_systems = int(unit_system.max(initial=0)) + 1
    pairs = np.unique(cluster * n_systems + unit_system)  # (cluster, system shown), sorted
    owner, shown = pairs // n_systems, pairs % n_systems
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    width = int(np.diff(np.r_[starts, len(pairs)]).max(initial=1))
    judgement_of = np.zeros(len(starts), dtype=bool)
    judgement_of[cluster] = kinds
    # a cluster's stratum: the systems it showed (a judgement) or its system (a plain rating, coded
    # -1 - system), one row per cluster, numbered in order of first appearance
    rows = np.full((len(starts), width + 1), n_systems, dtype=np.int64)
    rows[owner, np.arange(len(pairs)) - starts[owner]] = shown
    rows[:, width] = np.where(judgement_of, 0, -1 - rows[:, 0])
    rows[~judgement_of, 0] = n_systems
    _distinct, first, label = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    stratum = np.argsort(np.argsort(first, kind="stable"), kind="stable")[np.ravel(label)].astype(np.int64)
    judgement_strata = np.unique(stratum[judgement_of])
    sizes = np.bincount(stratum)
    if (sizes[judgement_strata] < 2).any():  # pool the judgements: one stratum
        stratum = np.where(np.isin(stratum, judgement_strata), stratum.max(initial=-1) + 1, stratum)
    return cluster, stratum


def draw_within(strata: np.ndarray, B: int, rng: np.random.Generator, out: np.ndarray, rows: int = 256) -> np.ndarray:
    """Multinomial counts (B, n) into ``out``: in every replicate, each stratum's members are drawn
    with replacement as often as the stratum has members (a uniform multinomial per stratum, as
    ``rng.multinomial(k, [1/k] * k)``), for every stratum in one call of ``rng.random`` per block
    of ``rows`` replicates: each member's slot picks one member of its stratum (floor(u k) of a
    uniform u; its bias is below k / 2**53), and the picks are counted.  The stream does not depend on ``rows`` (numbers are drawn element by element).

    >>> counts = draw_within(np.array([0, 0, 0, 1, 1]), 4, np.random.default_rng(0), np.zeros((4, 5)))
    >>> counts[:, :3].sum(axis=1).tolist(), counts[:, 3:].sum(axis=1).tolist()
    ([3.0, 3.0, 3.0, 3.0], [2.0, 2.0, 2.0, 2.0])
    """
    n = len(strata)
    if n == 0:
        return out
    order = np.argsort(strata, kind="stable")
    ordered = strata[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    sizes = np.diff(np.r_[starts, n])
    first = np.repeat(starts, sizes)  # each slot's stratum: where it starts in ``order``, and its size
    size = np.repeat(sizes, sizes)
    size = size.astype(float)
    for start in range(0, B, rows):
        block = min(rows, B - start)
        slot = rng.random((block, n))
        slot *= size
        picked = slot.astype(np.int64)  # floor(u k): uniform on 0..k-1
        picked += first
        picked = order[picked]
        picked += np.arange(0, block * n, n)[:, None]  # each replicate's own bins
        out[start : start + block] = np.bincount(picked.ravel(), minlength=block * n).reshape(block, n)
    return out


def draw_cluster_weights(design, B: int, rng: np.random.Generator, weights: np.ndarray) -> np.ndarray:
    """:func:`draw_weights` with judgements: clusters drawn within their strata, each unit given its cluster's weight."""
    for g, member in enumerate(design.members):
        units = np.flatnonzero(member)
        present, position = np.unique(design.cluster[units], return_inverse=True)  # the clusters this group resamples
        drawn = np.zeros((B, len(present) + 1))
        draw_within(design.stratum[present], B, rng, drawn[:, :-1])
        column = np.full(weights.shape[2], len(present))  # the other units: the last column, 0
        column[units] = np.ravel(position)
        np.take(drawn, column, axis=1, out=weights[g])  # np.take: a fancy index on axis 1 is twice as slow
    return weights


def comparative_score(study, quality_criterion: str, experiment: str) -> str | None:
    """How an experiment's judgements became system values (``preference``, ``win_rate``,
    ``bradley_terry``, ``best_worst``), or None for ratings (the annotation reader records it)."""
    found = ((study.metadata or {}).get("annotations") or {}).get("comparative_scores") or {}
    return (found.get(quality_criterion) or {}).get(experiment)


def bradley_terry_terms(design, ratings: np.ndarray, mask: np.ndarray, n_systems: int):
    """(beat (U, R), opponents) of one experiment's pairwise ratings (won 100, tie 50): ``beat`` is 1
    where a rater's rating of the unit's system beat (or tied) the other system of its judgement, and
    ``opponents`` = (units, starts, columns): the units that beat their opponent at least once,
    sorted by their (system, opponent) cell of the S x S win matrix (``columns``: system * S +
    opponent, one per run of units starting at ``starts``), for :func:`replicate_wins`."""
    if design.cluster is None:
        raise QRAInputError("Bradley-Terry values need the study's pairwise judgements (choices)")
    beat = ((ratings >= 50) & (mask > 0)).astype(float)  # a tie counts once each way, as in bradley_terry
    order = np.argsort(design.cluster, kind="stable")  # each cluster's units together, in unit order
    size = np.bincount(design.cluster)[design.cluster[order]]
    first = order[(size == 2) & np.r_[True, design.cluster[order][1:] != design.cluster[order][:-1]]]
    second = order[np.searchsorted(design.cluster[order], design.cluster[first]) + 1]  # a pair's other unit
    system = design.unit_system
    rows = np.concatenate([first, second])
    cols = np.concatenate([system[first] * n_systems + system[second], system[second] * n_systems + system[first]])
    won = beat[rows].sum(axis=1) > 0
    rows, cols = rows[won], cols[won]
    by_cell = np.lexsort((rows, cols))  # by cell, then unit
    rows, cols = rows[by_cell], cols[by_cell]
    starts = np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]]) if len(cols) else np.zeros(0, dtype=np.int64)
    return beat, (rows, starts, cols[starts])


def replicate_wins(opponents, won: np.ndarray, weights: np.ndarray, n_systems: int) -> np.ndarray:
    """Win counts (B, S, S) of each replicate: ``weights`` (B, U) the units' weights, ``won`` (1 or B,
    k) how often each unit of ``opponents`` (:func:`bradley_terry_terms`) beat its opponent (its
    raters' wins, or their weighted sum when raters are resampled too), summed per (system,
    opponent) cell: one gather and one ``np.add.reduceat``, no (B, U) transpose."""
    units, starts, columns = opponents
    wins = np.zeros((weights.shape[0], n_systems * n_systems))
    if len(units):
        taken = np.take(weights, units, axis=1)
        if not (won == 1.0).all():  # one rater per unit, as usual: every won count is 1
            taken *= won
        wins[:, columns] = np.add.reduceat(taken, starts, axis=1)
    return wins.reshape(-1, n_systems, n_systems)
