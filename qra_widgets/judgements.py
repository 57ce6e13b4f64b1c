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
    keys: list = []
    for (system, item) in units:
        head, bar, tail = str(item).rpartition("|")
        keys.append(("judgement", head) if bar and head in judged and tail == str(system) else ("rating", system, item))
    order = {k: i for i, k in enumerate(dict.fromkeys(keys))}
    cluster = np.array([order[k] for k in keys], dtype=np.int64)
    shown: dict[int, set] = {}
    for c, system in zip(cluster, unit_system):
        shown.setdefault(int(c), set()).add(int(system))
    strata = {}
    stratum = np.empty(len(order), dtype=np.int64)
    for k, c in order.items():
        label = ("system", next(iter(shown[c]))) if k[0] == "rating" else ("shown", tuple(sorted(shown[c])))
        stratum[c] = strata.setdefault(label, len(strata))
    judgement_strata = {v for k, v in strata.items() if k[0] == "shown"}
    sizes = np.bincount(stratum, minlength=len(strata))
    if any(sizes[v] < 2 for v in judgement_strata):  # pool the judgements: one stratum
        pooled = len(strata)
        stratum = np.where(np.isin(stratum, list(judgement_strata)), pooled, stratum)
    return cluster, stratum


def draw_cluster_weights(design, B: int, rng: np.random.Generator, weights: np.ndarray) -> np.ndarray:
    """:func:`draw_weights` with judgements: clusters drawn within their strata, each unit given its cluster's weight."""
    for g, member in enumerate(design.members):
        present = np.unique(design.cluster[member])  # the clusters this group resamples
        drawn = np.zeros((B, len(design.stratum)))
        for s in np.unique(design.stratum[present]):
            where = present[design.stratum[present] == s]
            drawn[:, where] = rng.multinomial(len(where), np.full(len(where), 1.0 / len(where)), size=B)
        weights[g] = drawn[:, design.cluster] * member[None, :]
    return weights


def comparative_score(study, quality_criterion: str, experiment: str) -> str | None:
    """How an experiment's judgements became system values (``preference``, ``win_rate``,
    ``bradley_terry``, ``best_worst``), or None for ratings (the annotation reader records it)."""
    found = ((study.metadata or {}).get("annotations") or {}).get("comparative_scores") or {}
    return (found.get(quality_criterion) or {}).get(experiment)


def bradley_terry_terms(design, ratings: np.ndarray, mask: np.ndarray, n_systems: int):
    """(beat (U, R), opponents (U, S*S) sparse) of one experiment's pairwise ratings (won 100, tie 50)."""
    from scipy.sparse import csr_matrix

    if design.cluster is None:
        raise QRAInputError("Bradley-Terry values need the study's pairwise judgements (choices)")
    beat = ((ratings >= 50) & (mask > 0)).astype(float)  # a tie counts once each way, as in bradley_terry
    rows, cols = [], []
    for members in _cluster_members(design):
        if len(members) == 2:
            for u, other in (members, members[::-1]):
                rows.append(u)
                cols.append(design.unit_system[u] * n_systems + design.unit_system[other])
    opponents = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(design.units), n_systems * n_systems))
    return beat, opponents


def _cluster_members(design) -> list:
    if "cluster_members" not in design.cache:
        order = np.argsort(design.cluster, kind="stable")
        bounds = np.flatnonzero(np.diff(design.cluster[order])) + 1
        design.cache["cluster_members"] = [list(g) for g in np.split(order, bounds)]
    return design.cache["cluster_members"]
