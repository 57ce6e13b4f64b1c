"""Confidence intervals for every QRA number: a vectorised bootstrap and analytic CV intervals.

The bootstrap computes nothing itself: every replicate goes through the measures' own batch
forms (:mod:`qra_widgets.measures`: ``cv_star_batch``, ``pearson_batch``,
``mean_pairwise_batch``, ``kendall_w_batch``, ``rank_counts_batch``, ``agreement_batch``,
``cohen_kappa_batch``), the code ``assess()`` runs with one row of weights.  The undefined
rule, the conventions (``Conventions.to_kwargs``) and validation apply there, once.

**With item-level ratings** (:attr:`Study.ratings`), items are resampled within each system
(multinomial weights, B x items, drawn once) and the system means are recomputed from weighted
ratings -- matrix products, no Python loop per replicate or per system:

* experiments that rated the same item ids are resampled *jointly* (paired), so shared item
  difficulty does not inflate the spread between experiments; otherwise each experiment is
  resampled on its own, and the agreement between experiments resamples the union of the
  items (an item only one experiment rated still counts in chance agreement); an experiment
  with scores only keeps its scores fixed;
* the system means are recomputed with the study's own aggregation (``mean`` of all ratings,
  ``item_mean`` or ``median``, as :meth:`Ratings.system_means`), so each replicate resamples
  the statistic that was reported;
* ``resample="items+raters"`` also resamples each experiment's raters (B x raters weights
  multiplied into the ratings).  Agreement coefficients resample items only: a rater drawn
  twice would agree with its own copy (with two raters, half the replicates would give alpha = 1).

Krippendorff's alpha (and every agreement coefficient) gets a *nonparametric unit bootstrap*:
items are drawn with replacement and alpha is recomputed from the coincidences of the items
drawn, so each item's values stay together (Efron & Tibshirani 1993 ch. 6; Zapf et al. 2016).
This is not Hayes & Krippendorff's (2007) algorithm, which resamples pairs of values from the
observed coincidence matrix and reports the chance of falling below a minimum alpha.

**With scores only**, systems are resampled for the QC-level r, rho, tau, W and P (copies of a
system drawn twice are one system: never a tied pair in P, never a tie in W), and a system's
CV* gets Vangel's (1996) analytic interval for the coefficient of variation
(:func:`~qra_widgets.intervals.cv_interval`), which generalises over experiments rather than items.

What each interval covers is its ``ci_over``: ``items`` (these experiments and raters, other
items), ``items+raters`` (other items and raters), ``systems`` (other systems) or
``experiments`` (Vangel: other experiments from a normal population).  Methods
(``ci_method``): ``percentile``, ``bca`` (Efron & Tibshirani 1993 ch. 14, acceleration from a
grouped jackknife, linear in the items), ``vangel``, and at a boundary ``upper-one-sided``
(CV* near 0) or ``lower-one-sided`` (r, rho, tau, W, P, kappa, alpha near 1); see
:func:`~qra_widgets.intervals.interval_at`.  The same ``seed`` gives the same intervals (numpy ``default_rng``).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from . import measures as m
from .errors import QRAInputError
from .intervals import CI_METHODS, ci_over_of
from .judgements import (
    bradley_terry_terms,
    comparative_score,
    draw_cluster_weights,
    draw_within,
    judgement_clusters,
    replicate_wins,
)
from .measures.pairwise import bradley_terry_batch
from .ratings import on_scale, scale_categories

RESAMPLE = ("items", "items+raters", "systems")
MAX_CATEGORIES = 64  # agreement is resampled on q x q coincidence matrices; more distinct ratings get no interval
JACKKNIFE_GROUPS = 200  # BCa's acceleration from at most this many leave-a-group-out estimates (linear time)


# ----------------------------------------------------------------------------- Type II and IV on a stack of means


def type_two_and_four(
    means: np.ndarray, conventions, findings: bool = False, copies: np.ndarray | None = None
) -> dict[str, Any]:
    """r/rho/tau (n = 2), mean pairwise r/rho and W (n > 2) and P's counts, for (B, E, S) means
    whose rows are the experiments with scores (NaN = a missing cell, fixed across replicates),
    each through the measure's batch form.  ``copies`` (B, S): the original system of each column
    when systems were drawn with replacement."""
    out: dict[str, Any] = {}
    n = means.shape[1]
    structure = ~np.isnan(means).all(axis=0)
    # a replicate in which a scored cell has no rating drawn (partly overlapping items) is undefined
    lost = (np.isnan(means) & structure).any(axis=(1, 2))
    if lost.any():
        means = np.where(np.isnan(means) & structure, 0.0, means)
    if means.shape[2] >= 2 and n >= 2:
        if n == 2:
            both = structure.all(axis=0)
            if both.sum() >= 2:
                x, y = means[:, 0, both], means[:, 1, both]
                out["r"], out["rho"], out["tau"] = (
                    m.pearson_batch(x, y).values,
                    m.spearman_batch(x, y).values,
                    m.tau_b_batch(x, y).values,
                )
        else:
            for name in ("r", "rho"):
                found, pairs = m.mean_pairwise_batch(means, name)
                if any(p is not None for _n, p in pairs):
                    out[name] = found.values
            complete = structure.all(axis=0)
            if complete.sum() >= 2:
                out["W"] = m.kendall_w_batch(
                    means[:, :, complete],
                    **conventions.to_kwargs("kendall_w"),
                    copies=None if copies is None else copies[:, complete],
                ).values
    if not findings and means.shape[2] >= 2:
        out["P_counts"] = m.rank_counts_batch(means, **conventions.to_kwargs("rank_counts"), copies=copies)
    if lost.any():
        for name in ("r", "rho", "tau", "W"):
            if name in out:
                out[name] = np.where(lost, np.nan, out[name])
        if "P_counts" in out:
            out["P_counts"] = tuple(np.where(lost, 0, c) for c in out["P_counts"])
    return out


# ----------------------------------------------------------------------------- the resampling design


@dataclass
class Design:
    """Resampling units (system, item) shared by every criterion, and which experiments resample together.

    ``members`` has one row per weight group; with unpaired experiments the last row is the union
    of all units (``union``), which the agreement between experiments resamples."""

    units: list
    unit_system: np.ndarray
    group_of: dict[str, int]  # experiment id -> weight group
    members: np.ndarray  # (groups, U) bool: units each group resamples
    paired: bool
    raters: dict[str, list] = field(default_factory=dict)
    cache: dict = field(default_factory=dict)
    union: int = 0  # the group whose weights cover every unit
    # comparative judgements (pairwise, best-worst) give every system shown a unit; the judgement is
    # what was sampled, so its units are resampled together: ``cluster`` (U,) numbers each unit's
    # judgement (a plain rating is its own cluster), ``stratum`` (clusters,) the stratum a cluster is
    # drawn in (a plain rating: its system; a judgement: the systems it showed).  None: no judgements.
    cluster: np.ndarray | None = None
    stratum: np.ndarray | None = None

    @property
    def index(self) -> dict:
        if not hasattr(self, "_index"):
            self._index = {u: i for i, u in enumerate(self.units)}
        return self._index

    def by_system(self, values: np.ndarray, n_systems: int) -> np.ndarray:
        """(R, U) per-unit values summed per system: (R, S).  Units are sorted by system, so each
        system is one block of columns (``np.add.reduceat``; no loop per system)."""
        key = ("blocks", n_systems)
        if key not in self.cache:
            starts = np.searchsorted(self.unit_system, np.arange(n_systems))
            present = np.bincount(self.unit_system, minlength=n_systems) > 0
            self.cache[key] = (starts[present], present)
        starts, present = self.cache[key]
        out = np.zeros((values.shape[0], n_systems))
        if len(starts):
            out[:, present] = np.add.reduceat(values, starts, axis=1)
        return out


def design_of(study) -> Design:
    """Units from the ratings and labels; paired when every two experiments share item ids."""
    systems = list(study.systems)
    by_experiment: dict[str, set] = {}
    raters: dict[str, set] = {}
    if study.ratings:
        _qc, system, item, experiment, rater, _v = study.ratings.columns()
        for e in np.unique(experiment):  # in sorted order, as a groupby
            keep = experiment == e
            by_experiment.setdefault(e, set()).update(zip(system[keep].tolist(), item[keep].tolist()))
            raters[e] = sorted(set(rater[keep].tolist()))
    if len(study.labels):
        _qc, system, item, experiment, _label = study.labels.columns()
        for s, i, e in zip(system, item, experiment):
            by_experiment.setdefault(e, set()).add((s, i))
    position_of = {s: k for k, s in enumerate(systems)}
    units = (
        sorted(set().union(*by_experiment.values()), key=lambda u: (position_of[u[0]], u[1])) if by_experiment else []
    )
    position = {u: k for k, u in enumerate(units)}
    names = [e for e in study.experiment_ids if e in by_experiment]
    paired = all(by_experiment[a] & by_experiment[b] for a, b in combinations(names, 2))
    if paired:
        members = np.ones((1, len(units)), dtype=bool)
        group_of = {e: 0 for e in names}
        union = 0
    else:
        members = np.zeros((len(names) + 1, len(units)), dtype=bool)
        for g, e in enumerate(names):
            members[g, [position[u] for u in by_experiment[e]]] = True
        members[len(names)] = True
        group_of = {e: g for g, e in enumerate(names)}
        union = len(names)
    unit_system = np.array([position_of[u[0]] for u in units], dtype=np.int64)
    cluster, stratum = judgement_clusters(study, units, unit_system)
    return Design(
        units,
        unit_system,
        group_of,
        members,
        paired,
        {e: list(r) for e, r in raters.items()},
        union=union,
        cluster=cluster,
        stratum=stratum,
    )


def draw_weights(design: Design, B: int, rng: np.random.Generator) -> np.ndarray:
    """Multinomial item weights (groups, B, U): each system's items resampled within the system,
    every system of a weight group in one draw (:func:`~qra_widgets.judgements.draw_within`)."""
    weights = np.zeros((len(design.members), B, len(design.units)))
    if design.cluster is not None:
        return draw_cluster_weights(design, B, rng, weights)
    for g, member in enumerate(design.members):
        where = np.flatnonzero(member)
        if len(where):
            weights[g][:, where] = draw_within(design.unit_system[where], B, rng, np.zeros((B, len(where))))
    return weights


def jackknife_weights(design: Design, groups: int = JACKKNIFE_GROUPS) -> np.ndarray:
    """Leave-a-group-out weights (weight groups, G, U) for BCa's acceleration: the units are dealt
    round-robin into G = min(U, ``groups``) groups, and estimate g leaves group g out, in every
    weight group at once.  G estimates cost G evaluations of the engine, so the jackknife is
    linear in the number of units (never a units x units matrix).  The acceleration of a grouped
    jackknife has the expectation of the leave-one-out one (the third and second moments of sums
    of independent influence values scale alike; Efron & Tibshirani 1993 section 11.5)."""
    units = len(design.units)
    if design.cluster is not None:  # a judgement's units leave together
        count = min(len(design.stratum), groups)
        block = design.cluster % max(count, 1)
    else:
        count = min(units, groups)
        block = np.arange(units) % max(count, 1)
    leave_out = (block[None, :] != np.arange(count)[:, None]).astype(float)
    return np.stack([leave_out * member[None, :] for member in design.members])


# ----------------------------------------------------------------------------- the engine


@dataclass
class _Rated:
    """One experiment's ratings of one criterion on the design's units: ratings (U, R) shifted,
    a mask, and for the median the per-unit counts of each distinct rating."""

    matrix: np.ndarray
    mask: np.ndarray
    values: np.ndarray | None = None  # distinct shifted ratings (median)
    indicator: list | None = None  # per distinct rating: (U, R) 0/1 (median)
    # Bradley-Terry values are refitted, not averaged: (U, R) 1 where the unit's system beat (or tied)
    # the other system of its judgement, and (U, S*S) 1 at (system, opponent) of each unit
    beat: np.ndarray | None = None
    opponents: object = None
    ratings: tuple = ()  # (unit, rater code, rating) of each rating, for the annotators' agreement


@dataclass
class _Criterion:
    name: str
    shift: float
    base: np.ndarray  # (E, S) shifted scores
    rows: np.ndarray  # experiments with scores
    rated: dict  # experiment row -> _Rated


def aggregation_of(study) -> str:
    """The aggregation the study's Type I scores were made with (``mean`` unless its annotations say)."""
    found = ((study.metadata or {}).get("annotations") or {}).get("aggregation", "mean")
    return found if found in ("mean", "item_mean", "median") else "mean"


def _criterion_data(study, qc, design: Design, conventions, how: str) -> _Criterion:
    shift = qc.scale_min if conventions.scale_shift else 0.0
    base = study.score_matrix(qc.name) - shift
    rows = np.flatnonzero(~np.isnan(base).all(axis=1))
    rated = {}
    if study.ratings and qc.name in study.ratings.criteria():
        system, item, experiment, rater, rating = study.ratings.for_criterion(qc.name)
        index = design.index
        for row, e in enumerate(study.experiment_ids):
            keep = experiment == e
            if not keep.any():
                continue
            units = np.array([index[u] for u in zip(system[keep], item[keep])], dtype=np.int64)
            rater_codes = np.searchsorted(np.array(design.raters[e], dtype=object), rater[keep])  # raters are sorted
            matrix = np.zeros((len(design.units), len(design.raters[e])))
            mask = np.zeros_like(matrix)
            matrix[units, rater_codes] = rating[keep] - shift
            mask[units, rater_codes] = 1.0
            found = _Rated(matrix, mask, ratings=(units, rater_codes, rating[keep]))
            if comparative_score(study, qc.name, e) == "bradley_terry":
                found.beat, found.opponents = bradley_terry_terms(design, matrix + shift, mask, len(study.systems))
            elif how == "median":
                found.values = np.unique(rating[keep] - shift)
                found.indicator = [(matrix == v) * mask for v in found.values]
            rated[row] = found
    return _Criterion(qc.name, shift, base, rows, rated)


def _weighted_median(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Median of the multiset with ``counts[..., k]`` copies of ``values[k]`` (sorted): the middle
    value, or the mean of the two middle values for an even total, as ``Series.median`` of the
    ratings drawn.  Counts are whole numbers (multinomial weights)."""
    cumulative = np.cumsum(counts, axis=-1)
    total = cumulative[..., -1:]
    low = np.argmax(cumulative >= np.floor((total + 1) / 2), axis=-1)
    high = np.argmax(cumulative >= np.floor(total / 2) + 1, axis=-1)
    with np.errstate(invalid="ignore"):
        return np.where(total[..., 0] > 0, (values[low] + values[high]) / 2, np.nan)


def _replicate_means(
    criterion: _Criterion,
    design: Design,
    weights: np.ndarray,
    rater_weights: dict | None,
    experiment_ids: list[str],
    n_systems: int,
    how: str,
) -> np.ndarray:
    """(R, E, S) system means by the study's aggregation: rated experiments from weighted
    ratings, the others their fixed scores.  No loop per system or replicate."""
    replicates = weights.shape[1]
    means = np.broadcast_to(criterion.base, (replicates, *criterion.base.shape)).copy()
    for row, rated in criterion.rated.items():
        e = experiment_ids[row]
        w = weights[design.group_of[e]]  # (R, U)
        v = None if rater_weights is None else rater_weights[e]  # (R, raters)
        per_rater = lambda x, v=v: x.sum(1)[None, :] if v is None else (x @ v.T).T  # (1 or R, U)
        if rated.beat is not None:  # Bradley-Terry: each replicate's win counts, refitted
            present = ~np.isnan(criterion.base[row])
            wins = replicate_wins(rated.opponents, per_rater(rated.beat[rated.opponents[0]]), w, n_systems)
            fitted = bradley_terry_batch(wins[:, present][:, :, present]).values - criterion.shift
            means[:, row, present] = fitted
            continue
        if how == "median":
            counts = np.stack([design.by_system(w * per_rater(ind), n_systems) for ind in rated.indicator], axis=-1)
            values = _weighted_median(np.rint(counts), rated.values)
        else:
            sums, counts = per_rater(rated.matrix), per_rater(rated.mask)
            if how == "item_mean":
                with np.errstate(invalid="ignore", divide="ignore"):
                    item = np.where(counts > 0, sums / np.where(counts > 0, counts, 1), 0.0)
                sums, counts = item, (counts > 0).astype(float)
            with np.errstate(invalid="ignore", divide="ignore"):
                values = design.by_system(w * sums, n_systems) / design.by_system(w * counts, n_systems)
        present = ~np.isnan(criterion.base[row])
        means[:, row, present] = values[:, present]
    return means


@dataclass
class Bootstrap:
    """What :func:`bootstrap` computed: ``replicates[key]`` (B,), ``estimates[key]`` (all weights 1),
    ``jackknife[key]`` (for BCa) and ``info`` (B, seed, ci, method, resample, paired, ci_over)."""

    replicates: dict
    estimates: dict
    jackknife: dict
    info: dict


def _all_values(
    study,
    conventions,
    design: Design,
    criteria: list[_Criterion],
    weights: np.ndarray,
    rater_weights: dict | None,
    by_systems: np.ndarray | None = None,
    how: str = "mean",
) -> dict:
    """Every resampled value for one weight set, keyed like the assessment rows:
    ``(measure, level, quality_criterion, system)``; annotator agreement under ``("annotators", ...)``,
    system means under ``("mean", experiment, quality_criterion, system)``."""

    values: dict = {}
    system_cvs, pooled_same, pooled_compared = [], 0.0, 0.0
    kwargs = conventions.to_kwargs("cv_star")
    for criterion in criteria:
        qc = study.quality_criterion(criterion.name)
        if by_systems is None:
            means = _replicate_means(
                criterion, design, weights, rater_weights, study.experiment_ids, len(study.systems), how
            )
            for row in criterion.rated:
                for j, system in enumerate(study.systems):
                    if not np.isnan(criterion.base[row, j]):
                        values[("mean", study.experiment_ids[row], qc.name, system)] = (
                            means[:, row, j] + criterion.shift
                        )
            if len(criterion.rows) >= 2 and criterion.rated:
                stacked = np.swapaxes(means[:, criterion.rows], 1, 2)  # (R, S, n)
                magnitude = np.maximum(
                    np.nanmax(np.abs(stacked + criterion.shift), axis=-1, initial=0.0), abs(criterion.shift)
                )
                cv = m.cv_star_batch(stacked, magnitude=magnitude, **kwargs).values
                for j, system in enumerate(study.systems):
                    if (~np.isnan(criterion.base[criterion.rows, j])).sum() >= 2:
                        values[("CV*", "system", qc.name, system)] = cv[:, j]
                        system_cvs.append(cv[:, j])
                with np.errstate(invalid="ignore"), _quiet():
                    values[("CV*", "qc", qc.name, None)] = np.nanmean(cv, axis=1)
        else:
            means = criterion.base[:, by_systems].transpose(1, 0, 2)  # (R, E, S): systems drawn with replacement
        scored = means[:, criterion.rows]
        if len(criterion.rows) >= 2 and (criterion.rated or by_systems is not None):
            found = type_two_and_four(
                scored, conventions, findings=study.sign_matrix(qc.name) is not None, copies=by_systems
            )
            for name in ("r", "rho", "tau", "W"):
                if name in found:
                    values[(name, "qc", qc.name, None)] = found[name]
            if "P_counts" in found:
                same, compared = found["P_counts"]
                with np.errstate(invalid="ignore", divide="ignore"):
                    values[("P", "qc", qc.name, None)] = np.where(compared > 0, same / np.maximum(compared, 1), np.nan)
                pooled_same, pooled_compared = pooled_same + same, pooled_compared + compared
        if by_systems is None and study.has_labels(qc.name):
            values.update(_type_three_values(study, qc, conventions, design, weights))
        if by_systems is None and criterion.rated:
            level = conventions.alpha_level or qc.label_level
            choices = getattr(study.ratings, "choices", None)
            for row, e in enumerate(study.experiment_ids):
                if row not in criterion.rated or (choices is not None and choices.has(qc.name, e)):
                    continue  # agreement on raw pairwise / best-worst choices: no interval from the derived ratings
                key = ("rater_counts", qc.name, e)
                if key not in design.cache:
                    design.cache[key] = _pooled_cell(criterion.rated[row], scale_categories(qc))
                cell = design.cache[key]
                if cell is None:
                    continue
                counts, pair, order, starts = cell
                w = np.add.reduceat(
                    np.take(weights[design.group_of[e]], order, axis=1), starts, axis=1
                )  # (B, distinct rows)
                found = m.agreement_batch(counts, w, measures=("alpha", "fleiss_kappa", "ac1", "bp"), level=level)
                for name, batch in found.items():
                    values[("annotators", e, qc.name, name)] = batch.values
                if pair is not None:
                    values[("annotators", e, qc.name, "kappa")] = m.cohen_kappa_batch(
                        pair[0], pair[1], len(counts.categories), w
                    ).values
    if system_cvs and by_systems is None:
        with _quiet():
            values[("CV*", "study", None, None)] = np.nanmean(np.stack(system_cvs), axis=0)
    if np.any(np.asarray(pooled_compared) > 0):
        with np.errstate(invalid="ignore", divide="ignore"):
            values[("P", "study", None, None)] = np.asarray(pooled_same) / np.asarray(pooled_compared)
    study_level: dict[str, list] = {}
    for (measure, level, qc_name, _system), array in values.items():
        if level == "qc" and measure in ("kappa", "fleiss_kappa", "alpha"):
            study_level.setdefault(measure, []).append(array)
    for measure, arrays in study_level.items():
        with _quiet():
            values[(measure, "study", None, None)] = np.nanmean(np.stack(arrays), axis=0)
    return values


def _pooled_cell(rated: _Rated, categories):
    """One experiment's ratings of one criterion as its raters' counts (what
    :func:`~qra_widgets.ratings.rater_counts` counts), with the units pooled by what they hold:
    ``(counts, pair, order, starts)``, the distinct count rows (two raters: the distinct pairs of
    codes), the design's units sorted so that each distinct row's units are together, and where
    each group starts.  The agreement coefficients are weighted sums over units of terms of a
    unit's counts (or codes), so a replicate's weights summed per group give the same sums (the
    same numbers when the weights are whole, as multinomial counts are) from a few columns instead
    of every unit's.  None when there is nothing to resample (no units, or too many categories)."""
    units, raters, raw = rated.ratings
    if not len(units):
        return None
    codes, found = m.encode_values(raw, categories=on_scale(raw, categories))
    if len(found) > MAX_CATEGORIES:
        return None
    present, unit = np.unique(units, return_inverse=True)
    q = max(len(found), 1)
    counts = np.bincount(unit * q + codes, minlength=len(present) * q).reshape(len(present), q)
    who, rater = np.unique(raters, return_inverse=True)
    pair = None
    if len(who) == 2:  # Cohen's kappa: each unit's two codes (-1: missing)
        pair = np.full((2, len(present)), -1, dtype=np.int64)
        pair[rater, unit] = codes
        key = (pair[0] + 1) * (q + 1) + pair[1] + 1
    else:
        key = np.unique(counts, axis=0, return_inverse=True)[1]
    _keys, group = np.unique(np.ravel(key), return_inverse=True)
    order = np.argsort(group, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(group[order]) != 0])
    first = order[starts]
    return (
        m.CategoryCounts(counts[first], found),
        None if pair is None else pair[:, first],
        present[order],
        starts,
    )


class _quiet:
    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        self._w.__exit__(*exc)


def _type_three_values(study, qc, conventions, design: Design, weights: np.ndarray) -> dict:
    """kappa and alpha (n = 2) or Fleiss' kappa / alpha (n > 2) between experiments' item labels, per QC and
    system, under the weights of the group that covers every unit (paired: the one group;
    unpaired: the union of the items, so no experiment's items drop out).  The units are pooled
    by system and by the labels they hold (:func:`_label_groups`), once per bootstrap."""
    key = ("labels", qc.name)
    if key not in design.cache:
        design.cache[key] = _label_groups(study, qc, design)
    found = design.cache[key]
    if found is None:
        return {}
    counts, table, order, starts, bounds = found
    w_all = np.add.reduceat(np.take(weights[design.union], order, axis=1), starts, axis=1)  # (B, groups)
    q = len(counts.categories) if len(counts.categories) else 1
    out = {}
    scopes = [("qc", None, slice(None))] + [
        ("system", s, slice(bounds[k], bounds[k + 1])) for k, s in enumerate(study.systems) if bounds[k + 1] > bounds[k]
    ]
    level_name = conventions.alpha_level or qc.label_level
    if table is not None:  # Cohen's kappa and alpha, as assess gives for two experiments
        for level, system, cols in scopes:
            out[("kappa", level, qc.name, system)] = m.cohen_kappa_batch(
                table[0, cols], table[1, cols], q, w_all[:, cols]
            ).values
            out[("alpha", level, qc.name, system)] = m.agreement_batch(
                m.CategoryCounts(counts.counts[cols], counts.categories),
                w_all[:, cols],
                measures=("alpha",),
                level=level_name,
            )["alpha"].values
        return out
    for level, system, cols in scopes:
        found = m.agreement_batch(
            m.CategoryCounts(counts.counts[cols], counts.categories),
            w_all[:, cols],
            measures=tuple(conventions.agreement_many),
            level=level_name,
        )
        for name in conventions.agreement_many:
            out[(name, level, qc.name, system)] = found[name].values
    return out


def _label_groups(study, qc, design: Design):
    """The experiments' labels of one criterion with the units pooled by system and by the labels
    they hold: ``(counts, table, order, starts, bounds)``, the count rows of the groups (and with two
    experiments each group's two codes), the design's units sorted group by group, where each group
    starts, and where each system's groups start.  Every coefficient is a weighted sum over units of
    terms of a unit's labels, so a replicate's weights summed per group give the per-unit sums (the
    same numbers for whole-number weights).  None with fewer than two experiments or too many categories."""
    coded = study.labels.coded_for_criterion(qc.name, study.systems, study.experiment_ids)
    present = np.unique(coded.experiment_row)
    q = max(len(coded.categories), 1)
    if len(present) < 2 or q > MAX_CATEGORIES:
        return None
    systems, items, _e, _l = study.labels.for_criterion(qc.name)
    index = design.index
    n_units = len(coded.unit_system)
    idx = np.zeros(n_units, dtype=np.int64)
    idx[coded.unit] = [index[u] for u in zip(systems, items)]
    counts = np.bincount(coded.unit * q + coded.code, minlength=n_units * q).reshape(n_units, q)
    table = None
    if len(present) == 2:
        table = np.full((2, n_units), -1, dtype=np.int64)
        table[np.searchsorted(present, coded.experiment_row), coded.unit] = coded.code
        pattern = (table[0] + 1) * (q + 1) + table[1] + 1
    else:
        pattern = np.unique(counts, axis=0, return_inverse=True)[1]
    pattern = np.unique(np.ravel(pattern), return_inverse=True)[1]
    group = np.unique(coded.unit_system * (int(pattern.max(initial=0)) + 1) + pattern, return_inverse=True)[1]
    order = np.argsort(np.ravel(group), kind="stable")  # by system, then by the labels held
    starts = np.flatnonzero(np.r_[True, np.diff(np.ravel(group)[order]) != 0])
    first = order[starts]
    bounds = np.searchsorted(coded.unit_system[first], np.arange(len(study.systems) + 1))
    return (
        m.CategoryCounts(counts[first], coded.categories),
        None if table is None else table[:, first],
        idx[order],
        starts,
        bounds,
    )


def bootstrap(
    study,
    conventions=None,
    *,
    B: int = 2000,
    seed: int | None = None,
    ci: float = 0.95,
    ci_method: str = "percentile",
    resample: str = "items",
    progress=None,
    max_work: int | None = None,
) -> Bootstrap:
    """Resample the study ``B`` times and recompute every measure (see the module docstring).

    ``resample`` is ``"items"`` (needs ratings or labels), ``"items+raters"`` (needs ratings)
    or ``"systems"`` (scores only; also the fallback when there is no item-level data).
    ``progress`` is called with the number of replicates done (for a progress bar); without it, a
    run that takes over 2 s shows a bar on a terminal's stderr (:mod:`qra_widgets.progress`).
    Item weights are drawn per chunk of 500 replicates, so the same seed gives the same replicates.
    """
    from .limits import check_bootstrap

    check_bootstrap(study, B, seed, max_work)  # sizes and seed, before any array (limits: qra_widgets.io.reading)
    with _one_blas_thread():
        return _bootstrap(study, conventions, B, seed, ci, ci_method, resample, progress)


def _one_blas_thread():
    """The bootstrap's matrix products are small (a chunk of at most 500 replicates against a few
    columns): BLAS threads do not shorten them, and their spinning between calls doubled the CPU
    time of a run (measured: 3.0 s of CPU against 1.7 s in one thread at 90,000 ratings, and no
    slower by the clock).  ``threadpoolctl`` keeps BLAS to one thread meanwhile."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _bootstrap(study, conventions, B, seed, ci, ci_method, resample, progress) -> Bootstrap:
    from .conventions import resolve

    conventions = resolve(conventions)
    if not isinstance(B, (int, np.integer)) or isinstance(B, bool) or B < 10:
        raise QRAInputError(f"bootstrap: B must be an integer of at least 10, got {B!r}")
    if ci_method not in CI_METHODS:
        raise QRAInputError(f"ci_method: must be one of {CI_METHODS}, got {ci_method!r}")
    if resample not in RESAMPLE:
        raise QRAInputError(f"resample: must be one of {RESAMPLE}, got {resample!r}")
    if not 0 < ci < 1:
        raise QRAInputError(f"ci: must be between 0 and 1, got {ci!r}")
    item_level = bool(study.ratings) or bool(len(study.labels))
    if resample == "items+raters" and not study.ratings:
        raise QRAInputError("resample: 'items+raters' needs item-level ratings (load_annotations)")
    if resample != "systems" and not item_level:
        resample = "systems"
    rng = np.random.default_rng(seed)
    design = design_of(study)
    how = aggregation_of(study)
    criteria = [_criterion_data(study, qc, design, conventions, how) for qc in study.quality_criteria]
    info = {
        "B": int(B),
        "seed": seed,
        "ci": ci,
        "ci_method": ci_method,
        "resample": resample,
        "paired": design.paired if resample != "systems" else None,
        "ci_over": ci_over_of(resample),
        "aggregation": how,
    }
    if resample == "systems":
        n = len(study.systems)
        picks = rng.integers(0, n, size=(B, n))
        jack = np.array([[k for k in range(n) if k != left] for left in range(n)]) if n > 2 else None
        run = lambda by: _all_values(study, conventions, design, criteria, np.zeros((1, len(by), 0)), None, by, how)
        with _reporting(B, progress) as report:
            replicates = _in_chunks(lambda sl: run(picks[sl]), B, report)
        estimates = run(np.arange(n)[None])
        jackknife = run(jack) if (ci_method == "bca" and jack is not None) else {}
        return Bootstrap(replicates, {k: float(v[0]) for k, v in estimates.items()}, jackknife, info)

    def chunk(sl: slice) -> dict:  # weights drawn chunk by chunk: memory grows with the chunk, not with B
        size = sl.stop - sl.start
        weights = draw_weights(design, size, rng)
        rater_weights = (
            None
            if resample != "items+raters"
            else {
                e: rng.multinomial(len(r), np.full(len(r), 1.0 / len(r)), size=size).astype(float)
                for e, r in design.raters.items()
            }
        )
        return _all_values(study, conventions, design, criteria, weights, rater_weights, None, how)

    with _reporting(B, progress) as report:
        replicates = _in_chunks(chunk, B, report)
    ones = np.ones((len(design.members), 1, len(design.units))) * design.members[:, None, :]
    full = {e: np.ones((1, len(r))) for e, r in design.raters.items()} if resample == "items+raters" else None
    estimates = {
        k: float(v[0]) for k, v in _all_values(study, conventions, design, criteria, ones, full, None, how).items()
    }
    jackknife = {}
    if ci_method == "bca":
        jack = jackknife_weights(design)
        raters_full = None if full is None else {e: np.ones((jack.shape[1], len(r))) for e, r in design.raters.items()}
        jackknife = _all_values(study, conventions, design, criteria, jack, raters_full, None, how)
    return Bootstrap(replicates, estimates, jackknife, info)


@contextmanager
def _reporting(B: int, progress):
    """``progress`` if the caller gave one (the CLI's bar, the app's), else a terminal's progress bar
    (:func:`qra_widgets.progress.bar`: stderr, only on a terminal, only after 2 s)."""
    if progress is not None:
        yield progress
        return
    from .progress import bar, counter

    with bar(B, "bootstrap", "replicate") as shown:
        yield counter(shown)


def _in_chunks(compute, B: int, progress, size: int = 500) -> dict:
    parts: list[dict] = []
    for start in range(0, B, size):
        parts.append(compute(slice(start, min(B, start + size))))
        if progress is not None:
            progress(min(B, start + size))
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]} if parts else {}
