"""Confidence intervals for every QRA number: a vectorised bootstrap and analytic CV intervals.

**With item-level ratings** (:attr:`Study.ratings`), items are resampled within each system
(multinomial weights, B x items, drawn once) and every measure is recomputed from weighted
per-item rating sums and counts -- matrix products, no Python loop per replicate:

* experiments that rated the same item ids are resampled *jointly* (paired), so shared item
  difficulty does not inflate the spread between experiments; otherwise each experiment is
  resampled on its own; an experiment with scores only keeps its scores fixed;
* ``resample="items+raters"`` also resamples each experiment's raters (B x raters weights
  multiplied into the rating sums).  Agreement coefficients resample items only: a rater drawn
  twice would agree with its own copy (with two raters, half the replicates would give alpha = 1);
* system means -> CV* (system, QC, study), r, rho, tau, W, P on (B x experiments x systems)
  arrays; kappa / alpha between experiments and the annotator agreement on weighted count
  matrices.

**With scores only**, systems are resampled for the QC-level r, rho, tau, W and P, and a
system's CV* gets Vangel's (1996) analytic interval for the coefficient of variation, which
never goes below zero (:func:`cv_interval`), next to the papers' t-based s* interval.

Intervals: ``"percentile"`` or ``"bca"`` (bias-corrected and accelerated, Efron &
Tibshirani 1993 ch. 14, acceleration from the leave-one-unit-out jackknife, run through the
same engine).  The same ``seed`` gives the same intervals (numpy ``default_rng``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from .errors import QRAInputError

CI_METHODS = ("percentile", "bca")
RESAMPLE = ("items", "items+raters", "systems")
NAN = float("nan")
MAX_CATEGORIES = 64  # agreement is resampled on q x q coincidence matrices; more distinct ratings get no interval


# ----------------------------------------------------------------------------- analytic CV interval


def cv_interval(values, scale_min: float = 0.0, *, ci: float = 0.95) -> tuple[float, float]:
    r"""Vangel's interval for the coefficient of variation (in percent), never below zero.

    .. math::

        \left[\frac{k}{\sqrt{\left(\frac{u_1+2}{\nu+1}-1\right)k^2+\frac{u_1}{\nu}}},\;
              \frac{k}{\sqrt{\left(\frac{u_2+2}{\nu+1}-1\right)k^2+\frac{u_2}{\nu}}}\right]

    with k = s/|mean| of the shifted values, nu = n - 1, u_1 and u_2 the chi-square(nu)
    quantiles at 1 - a/2 and a/2 (a = 1 - ci).  Vangel (1996), "Confidence intervals for a
    normal coefficient of variation", The American Statistician 50(1), eq. 6 (McKay 1932's
    interval with u+2 in place of u).  The upper end is infinite when its radicand is not
    positive.  It covers the population CV sigma/mu, of which CV* (QRA 2022 section 3.1) is
    the small-sample estimate.

    Parameters
    ----------
    values : sequence of float
        At least two measured values of one system and measurand.
    scale_min : float
        Subtracted first (QRA 2022 section 3.1).
    ci : float
        Coverage, e.g. 0.95.

    Returns
    -------
    tuple of float
        Lower and upper end, in percent.

    References
    ----------
    Vangel, M. G. (1996). Confidence intervals for a normal coefficient of variation.
    The American Statistician, 50(1), 21-26.

    Examples
    --------
    PASS Fluency, QRA 2022 Table 2 (5.36 and 6.14 on 1..7): the t-based s* interval is
    (-3.26, 4.65); this one stays positive.

    >>> low, high = cv_interval([5.36, 6.14], scale_min=1)
    >>> round(low, 2), round(high, 1)
    (5.16, 369.3)
    """
    from scipy.stats import chi2

    shifted = np.asarray(values, dtype=float) - float(scale_min)
    n = shifted.size
    if n < 2 or not np.isfinite(shifted).all():
        raise QRAInputError(f"values: need at least 2 finite values, got {values!r}")
    if not 0 < ci < 1:
        raise QRAInputError(f"ci: must be between 0 and 1, got {ci!r}")
    mean = float(shifted.mean())
    if mean == 0:
        return (NAN, NAN)
    k = float(shifted.std(ddof=1)) / abs(mean)
    nu = n - 1
    u1, u2 = chi2.ppf(1 - (1 - ci) / 2, nu), chi2.ppf((1 - ci) / 2, nu)

    def end(u: float) -> float:
        radicand = ((u + 2) / (nu + 1) - 1) * k * k + u / nu
        return k / math.sqrt(radicand) * 100 if radicand > 0 else math.inf

    return (end(u1), end(u2))


# ----------------------------------------------------------------------------- vectorised measures


def cv_star_rows(values: np.ndarray, small_sample_factor: bool = True) -> np.ndarray:
    """CV* of each row set along the last axis (NaN = missing), as :func:`~qra_widgets.measures.cv_star`."""
    from scipy.special import gammaln

    present = ~np.isnan(values)
    n = present.sum(axis=-1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nansum(values, axis=-1) / n
        s = np.sqrt(np.nansum((values - mean[..., None]) ** 2, axis=-1) / (n - 1))
        safe = np.where(n >= 2, n, 2.0)
        c4 = np.sqrt(2.0 / (safe - 1)) * np.exp(gammaln(safe / 2) - gammaln((safe - 1) / 2))
        factor = (1 + 1 / (4 * safe)) if small_sample_factor else 1.0
        cv = factor * (s / c4) / np.abs(mean) * 100
    cv[(n < 2) | (mean == 0)] = np.nan
    return cv


def _ranks(values: np.ndarray) -> np.ndarray:
    """Average ranks along the last axis (ties share a rank), as ``scipy.stats.rankdata`` but
    vectorised over the leading axes (pairwise comparisons; scipy loops over rows in Python)."""
    if values.shape[-1] > 64:
        from scipy.stats import rankdata

        return rankdata(values, axis=-1)
    below = (values[..., None, :] < values[..., :, None]).sum(-1)
    equal = (values[..., None, :] == values[..., :, None]).sum(-1)
    return 1 + below + (equal - 1) / 2


def _pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-wise Pearson r of (..., n) arrays; NaN where either row is constant."""
    xc, yc = x - x.mean(axis=-1, keepdims=True), y - y.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(-1) / np.sqrt((xc**2).sum(-1) * (yc**2).sum(-1))
    constant = (np.ptp(x, axis=-1) == 0) | (np.ptp(y, axis=-1) == 0)
    return np.where(constant, np.nan, r)


def _tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    first, second = np.triu_indices(x.shape[-1], k=1)
    sx, sy = np.sign(x[..., first] - x[..., second]), np.sign(y[..., first] - y[..., second])
    total = len(first)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (sx * sy).sum(-1) / np.sqrt((total - (sx == 0).sum(-1)) * (total - (sy == 0).sum(-1)))
    return np.where(((sx == 0).all(-1)) | ((sy == 0).all(-1)), np.nan, tau)


def _kendall_w(ranked_input: np.ndarray, tie_correction: bool) -> np.ndarray:
    """Kendall's W of (B, m, n) arrays (complete), as :func:`~qra_widgets.measures.kendall_w`."""
    m, n = ranked_input.shape[-2:]
    ranks = _ranks(ranked_input)
    sums = ranks.sum(axis=-2)
    spread = ((sums - sums.mean(axis=-1, keepdims=True)) ** 2).sum(-1)
    if tie_correction:
        equal = (ranks[..., :, None] == ranks[..., None, :]).sum(-1)
        ties = (equal**2 - 1).sum(axis=(-1, -2))
    else:
        ties = 0.0
    denominator = m * m * (n**3 - n) - m * ties
    with np.errstate(invalid="ignore", divide="ignore"):
        w = 12 * spread / denominator
    w = np.where(denominator == 0, np.nan, w)
    if not tie_correction:
        w = np.where((ranks == ranks[..., :1]).all(axis=(-1, -2)), np.nan, w)
    return w


def type_two_and_four(means: np.ndarray, conventions, findings: bool = False) -> dict[str, Any]:
    """r/rho/tau (n = 2), mean pairwise r/rho and W (n > 2) and P's counts, for (B, E, S) means
    whose rows are the experiments with scores (NaN = a missing cell, fixed across replicates)."""
    out: dict[str, Any] = {}
    n = means.shape[1]
    structure = ~np.isnan(means[0])
    if means.shape[2] >= 2 and n >= 2:
        if n == 2:
            both = structure.all(axis=0)
            if both.sum() >= 2:
                x, y = means[:, 0, both], means[:, 1, both]
                out["r"], out["rho"], out["tau"] = _pearson(x, y), _pearson(_ranks(x), _ranks(y)), _tau_b(x, y)
        else:
            for name in ("r", "rho"):
                values = []
                for i, j in combinations(range(n), 2):
                    both = structure[i] & structure[j]
                    if both.sum() < 2:
                        continue
                    x, y = means[:, i, both], means[:, j, both]
                    values.append(_pearson(x, y) if name == "r" else _pearson(_ranks(x), _ranks(y)))
                if values:
                    with np.errstate(invalid="ignore"), _quiet():
                        out[name] = np.nanmean(np.stack(values), axis=0)
            complete = structure.all(axis=0)
            if complete.sum() >= 2:
                out["W"] = _kendall_w(means[:, :, complete], conventions.w_tie_correction)
    if not findings and means.shape[2] >= 2:
        first, second = np.triu_indices(means.shape[2], k=1)
        signs = np.sign(means[..., first] - means[..., second])
        same = np.zeros(means.shape[0])
        compared = np.zeros(means.shape[0])
        for i, j in combinations(range(n), 2):
            both = ~np.isnan(signs[:, i]) & ~np.isnan(signs[:, j])
            if conventions.p_ties == "untied":
                both &= (signs[:, i] != 0) & (signs[:, j] != 0)
            same += ((signs[:, i] == signs[:, j]) & both).sum(-1)
            compared += both.sum(-1)
        out["P_counts"] = (same, compared)
    return out


class _quiet:
    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        self._w.__exit__(*exc)


# --------------------------------------------------------------------- agreement on weighted count matrices


def _weighted_mean(weights: np.ndarray, per_unit: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Sum_u w_u x_u [keep_u] / Sum_u w_u [keep_u], per replicate (per_unit: (U,) or (U, k))."""
    w = weights[:, keep]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w @ per_unit[keep]) / w.sum(axis=1).reshape(-1, *([1] * (per_unit.ndim - 1)))


def agreement_replicates(counts: np.ndarray, categories: np.ndarray, weights: np.ndarray, level: str,
                         measures=("alpha", "fleiss_kappa", "ac1", "bp")) -> dict[str, np.ndarray]:
    """Agreement coefficients of a units x categories count matrix under unit weights (B, U).

    With all weights 1 these equal :func:`~qra_widgets.measures.krippendorff_alpha`,
    :func:`~qra_widgets.measures.fleiss_kappa`, :func:`~qra_widgets.measures.gwet_ac` (AC1)
    and :func:`~qra_widgets.measures.brennan_prediger` on the same counts.
    """
    counts = counts.astype(float)
    q = counts.shape[1]
    raters = counts.sum(axis=1)
    pairable, rated = raters >= 2, raters >= 1
    out: dict[str, np.ndarray] = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        if {"fleiss_kappa", "ac1", "bp"} & set(measures):
            per_unit = np.where(pairable, (counts * (counts - 1)).sum(1) / (raters * (raters - 1)), 0.0)
            observed = _weighted_mean(weights, per_unit, pairable)
            shares = np.where(rated[:, None], counts / np.where(rated, raters, 1)[:, None], 0.0)
            pi = _weighted_mean(weights, shares, rated)
            chances = {"fleiss_kappa": (pi**2).sum(1), "ac1": (pi * (1 - pi)).sum(1) / (q - 1) if q > 1 else np.full(len(pi), np.nan),
                       "bp": np.full(len(pi), 1.0 / q)}
            for name in ("fleiss_kappa", "ac1", "bp"):
                if name in measures:
                    chance = chances[name]
                    value = (observed - chance) / (1 - chance)
                    out[name] = np.where(np.isclose(chance, 1.0), np.nan, value)
        if "alpha" in measures:
            scale = np.where(pairable, 1.0 / np.where(pairable, raters - 1, 1), 0.0)
            products = (counts[:, :, None] * counts[:, None, :]).reshape(len(counts), q * q)
            o = ((weights * scale) @ products).reshape(-1, q, q)
            o -= np.einsum("bk,kl->bkl", (weights * scale) @ counts, np.eye(q))
            marginals = o.sum(axis=2)
            total = marginals.sum(axis=1)
            delta = _distances(level, categories, marginals)
            expected = (marginals[:, :, None] * marginals[:, None, :] * delta).sum(axis=(1, 2))
            value = 1 - (total - 1) * (o * delta).sum(axis=(1, 2)) / expected
            out["alpha"] = np.where((expected == 0) | (total < 2), np.nan, value)
    return out


def _distances(level: str, categories: np.ndarray, marginals: np.ndarray) -> np.ndarray:
    q = len(categories)
    if level == "nominal":
        return (1.0 - np.eye(q))[None]
    if level == "ordinal":
        cumulative = np.cumsum(marginals, axis=1)
        between = cumulative[:, None, :] - cumulative[:, :, None] + (marginals[:, :, None] - marginals[:, None, :]) / 2
        upper = np.triu(between**2)
        return upper + np.transpose(np.triu(upper, 1), (0, 2, 1))
    values = np.asarray(categories, dtype=float)
    difference = np.subtract.outer(values, values)
    if level == "interval":
        return (difference**2)[None]
    total = np.add.outer(values, values)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total == 0, 0.0, (difference / total) ** 2)[None]


def kappa_replicates(codes_a: np.ndarray, codes_b: np.ndarray, q: int, weights: np.ndarray) -> np.ndarray:
    """Cohen's kappa of two label sets (codes, -1 = missing) under unit weights (B, U).

    The missing-label rule of :func:`~qra_widgets.measures.cohen_kappa` (irrCAC's): observed
    agreement over the items both labelled, each rater's marginal over every item it labelled.
    """
    both = (codes_a >= 0) & (codes_b >= 0)
    cell = codes_a[both] * q + codes_b[both]
    onehot = np.zeros((both.sum(), q * q))
    onehot[np.arange(len(cell)), cell] = 1.0
    table = (weights[:, both] @ onehot).reshape(-1, q, q)
    total = table.sum(axis=(1, 2))
    marginals = []
    for codes in (codes_a, codes_b):
        rated = codes >= 0
        onehot_k = np.zeros((rated.sum(), q))
        onehot_k[np.arange(rated.sum()), codes[rated]] = 1.0
        counts = weights[:, rated] @ onehot_k
        marginals.append(counts / counts.sum(axis=1, keepdims=True))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.trace(table, axis1=1, axis2=2) / total
        chance = (marginals[0] * marginals[1]).sum(1)
        value = (observed - chance) / (1 - chance)
    return np.where(np.isclose(chance, 1.0) | (total == 0), np.nan, value)


# ----------------------------------------------------------------------------- the resampling design


@dataclass
class Design:
    """Resampling units (system, item) shared by every criterion, and which experiments resample together."""

    units: list
    unit_system: np.ndarray
    group_of: dict[str, int]  # experiment id -> weight group
    members: np.ndarray  # (groups, U) bool: units each group resamples
    paired: bool
    raters: dict[str, list] = field(default_factory=dict)
    cache: dict = field(default_factory=dict)

    @property
    def index(self) -> dict:
        if not hasattr(self, "_index"):
            self._index = {u: i for i, u in enumerate(self.units)}
        return self._index


def design_of(study) -> Design:
    """Units from the ratings and labels; paired when every two experiments share item ids."""
    import pandas as pd

    systems = list(study.systems)
    by_experiment: dict[str, set] = {}
    raters: dict[str, set] = {}
    if study.ratings:
        _qc, system, item, experiment, rater, _v = study.ratings.columns()
        frame = pd.DataFrame({"s": system, "i": item, "e": experiment, "r": rater}).drop_duplicates()
        for e, group in frame.groupby("e"):
            by_experiment.setdefault(e, set()).update(zip(group.s, group.i))
            raters[e] = sorted(set(group.r))
    if len(study.labels):
        _qc, system, item, experiment, _label = study.labels.columns()
        for s, i, e in zip(system, item, experiment):
            by_experiment.setdefault(e, set()).add((s, i))
    units = sorted(set().union(*by_experiment.values()), key=lambda u: (systems.index(u[0]), u[1])) if by_experiment else []
    position = {u: k for k, u in enumerate(units)}
    names = [e for e in study.experiment_ids if e in by_experiment]
    paired = all(by_experiment[a] & by_experiment[b] for a, b in combinations(names, 2))
    if paired:
        members = np.ones((1, len(units)), dtype=bool)
        group_of = {e: 0 for e in names}
    else:
        members = np.zeros((len(names), len(units)), dtype=bool)
        for g, e in enumerate(names):
            members[g, [position[u] for u in by_experiment[e]]] = True
        group_of = {e: g for g, e in enumerate(names)}
    unit_system = np.array([systems.index(u[0]) for u in units], dtype=np.int64)
    return Design(units, unit_system, group_of, members, paired, {e: list(r) for e, r in raters.items()})


def draw_weights(design: Design, B: int, rng: np.random.Generator) -> np.ndarray:
    """Multinomial item weights (groups, B, U): each system's items resampled within the system."""
    weights = np.zeros((len(design.members), B, len(design.units)))
    for g, member in enumerate(design.members):
        for s in np.unique(design.unit_system):
            where = np.flatnonzero(member & (design.unit_system == s))
            if len(where):
                weights[g][:, where] = rng.multinomial(len(where), np.full(len(where), 1.0 / len(where)), size=B)
    return weights


def jackknife_weights(design: Design) -> np.ndarray:
    """Leave-one-unit-out weights (groups, U, U) for BCa's acceleration."""
    leave_out = 1.0 - np.eye(len(design.units))
    return np.stack([leave_out * member[None, :] for member in design.members])


# ----------------------------------------------------------------------------- the engine


@dataclass
class _Criterion:
    name: str
    shift: float
    base: np.ndarray  # (E, S) shifted scores
    rows: np.ndarray  # experiments with scores
    rated: dict  # experiment row -> (unit index array, sums (U_e,), counts (U_e,), ratings (U_e, R), mask)


def _criterion_data(study, qc, design: Design, conventions) -> _Criterion:
    import pandas as pd

    shift = qc.scale_min if conventions.scale_shift else 0.0
    base = study.score_matrix(qc.name) - shift
    rows = np.flatnonzero(~np.isnan(base).all(axis=1))
    rated = {}
    if study.ratings and qc.name in study.ratings.criteria():
        system, item, experiment, rater, rating = study.ratings.for_criterion(qc.name)
        for row, e in enumerate(study.experiment_ids):
            keep = experiment == e
            if not keep.any():
                continue
            units = np.array([design.index[u] for u in zip(system[keep], item[keep])], dtype=np.int64)
            rater_codes = pd.Index(design.raters[e]).get_indexer(rater[keep])
            matrix = np.zeros((len(design.units), len(design.raters[e])))
            mask = np.zeros_like(matrix)
            matrix[units, rater_codes] = rating[keep] - shift
            mask[units, rater_codes] = 1.0
            rated[row] = (matrix, mask)
    return _Criterion(qc.name, shift, base, rows, rated)


def _replicate_means(criterion: _Criterion, design: Design, weights: np.ndarray, rater_weights: dict | None,
                     experiment_ids: list[str], n_systems: int) -> np.ndarray:
    """(R, E, S) system means: rated experiments from weighted sums, the others their fixed scores."""
    replicates = weights.shape[1]
    means = np.broadcast_to(criterion.base, (replicates, *criterion.base.shape)).copy()
    onehot = np.zeros((len(design.units), n_systems))
    onehot[np.arange(len(design.units)), design.unit_system] = 1.0
    for row, (matrix, mask) in criterion.rated.items():
        e = experiment_ids[row]
        w = weights[design.group_of[e]]
        if rater_weights is None:
            sums = w @ (matrix.sum(1)[:, None] * onehot)
            counts = w @ (mask.sum(1)[:, None] * onehot)
        else:
            v = rater_weights[e]
            sums = np.stack([((w * onehot[:, s]) @ matrix * v).sum(1) for s in range(n_systems)], axis=1)
            counts = np.stack([((w * onehot[:, s]) @ mask * v).sum(1) for s in range(n_systems)], axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = sums / counts
        present = ~np.isnan(criterion.base[row])
        means[:, row, present] = values[:, present]
    return means


@dataclass
class Bootstrap:
    """What :func:`bootstrap` computed: ``replicates[key]`` (B,), ``estimates[key]`` (all weights 1),
    ``jackknife[key]`` (for BCa) and ``info`` (B, seed, ci, method, resample, paired)."""

    replicates: dict
    estimates: dict
    jackknife: dict
    info: dict


def _all_values(study, conventions, design: Design, criteria: list[_Criterion], weights: np.ndarray,
                rater_weights: dict | None, by_systems: np.ndarray | None = None) -> dict:
    """Every resampled value for one weight set, keyed like the assessment rows:
    ``(measure, level, quality_criterion, system)``; annotator agreement under ``("annotators", ...)``."""
    from .ratings import rater_counts, scale_categories

    values: dict = {}
    system_cvs, pooled_same, pooled_compared = [], 0.0, 0.0
    for criterion in criteria:
        qc = study.quality_criterion(criterion.name)
        if by_systems is None:
            means = _replicate_means(criterion, design, weights, rater_weights, study.experiment_ids, len(study.systems))
            if len(criterion.rows) >= 2 and criterion.rated:
                cv = cv_star_rows(np.swapaxes(means[:, criterion.rows], 1, 2), conventions.small_sample_factor)
                for j, system in enumerate(study.systems):
                    if (~np.isnan(criterion.base[criterion.rows, j])).sum() >= 2:
                        values[("CV*", "system", qc.name, system)] = cv[:, j]
                        system_cvs.append(cv[:, j])
                with _quiet():
                    values[("CV*", "qc", qc.name, None)] = np.nanmean(cv, axis=1)
        else:
            means = criterion.base[:, by_systems].transpose(1, 0, 2)  # (R, E, S): systems drawn with replacement
        scored = means[:, criterion.rows]
        if len(criterion.rows) >= 2 and (criterion.rated or by_systems is not None):
            found = type_two_and_four(scored, conventions, findings=study.sign_matrix(qc.name) is not None)
            for name in ("r", "rho", "tau", "W"):
                if name in found:
                    values[(name, "qc", qc.name, None)] = found[name]
            if "P_counts" in found:
                same, compared = found["P_counts"]
                with np.errstate(invalid="ignore", divide="ignore"):
                    values[("P", "qc", qc.name, None)] = np.where(compared > 0, same / compared, np.nan)
                pooled_same, pooled_compared = pooled_same + same, pooled_compared + compared
        if by_systems is None and study.has_labels(qc.name):
            values.update(_type_three_values(study, qc, conventions, design, weights))
        if by_systems is None and study.ratings and qc.name in study.ratings.criteria():
            level = conventions.alpha_level or qc.label_level
            for e in study.experiment_ids:
                key = ("rater_counts", qc.name, e)
                if key not in design.cache:
                    design.cache[key] = rater_counts(study.ratings, qc.name, e, scale_categories(qc))
                counted = design.cache[key]
                if len(counted.categories) > MAX_CATEGORIES:
                    continue
                if not len(counted.units):
                    continue
                idx = np.array([design.index[u] for u in counted.units])
                w = weights[design.group_of[e]][:, idx]
                found = agreement_replicates(counted.counts, counted.categories, w, level)
                if counted.pair is not None:
                    found["kappa"] = kappa_replicates(counted.pair[0], counted.pair[1], len(counted.categories), w)
                for name, array in found.items():
                    values[("annotators", e, qc.name, name)] = array
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


def _type_three_values(study, qc, conventions, design: Design, weights: np.ndarray) -> dict:
    """kappa (n = 2) or Fleiss' kappa / alpha (n > 2) between experiments' item labels, per QC and system."""
    coded = study.labels.coded_for_criterion(qc.name, study.systems, study.experiment_ids)
    present = np.unique(coded.experiment_row)
    if len(present) < 2:
        return {}
    systems, items, _e, _l = study.labels.for_criterion(qc.name)
    # unit u of the coded labels -> its design unit
    unit_key = {}
    for u, s, i in zip(coded.unit, systems, items):
        unit_key[u] = design.index[(s, i)]
    n_units = len(coded.unit_system)
    idx = np.array([unit_key[u] for u in range(n_units)])
    w_all = weights[0][:, idx]
    q = max(len(coded.categories), 1)
    if q > MAX_CATEGORIES:
        return {}
    out = {}
    bounds = np.searchsorted(coded.unit_system, np.arange(len(study.systems) + 1))
    scopes = [("qc", None, slice(None))] + [("system", s, slice(bounds[k], bounds[k + 1]))
                                            for k, s in enumerate(study.systems) if bounds[k + 1] > bounds[k]]
    if len(present) == 2:
        table = np.full((2, n_units), -1, dtype=np.int64)
        table[np.searchsorted(present, coded.experiment_row), coded.unit] = coded.code
        for level, system, cols in scopes:
            out[("kappa", level, qc.name, system)] = kappa_replicates(table[0, cols], table[1, cols], q, w_all[:, cols])
        return out
    counts = np.bincount(coded.unit * q + coded.code, minlength=n_units * q).reshape(n_units, q)
    level_name = conventions.alpha_level or qc.label_level
    for level, system, cols in scopes:
        found = agreement_replicates(counts[cols], coded.categories, w_all[:, cols], level_name,
                                     measures=tuple(conventions.agreement_many))
        for name in conventions.agreement_many:
            out[(name, level, qc.name, system)] = found[name]
    return out


def bootstrap(study, conventions=None, *, B: int = 2000, seed: int | None = None, ci: float = 0.95,
              ci_method: str = "percentile", resample: str = "items", progress=None) -> Bootstrap:
    """Resample the study ``B`` times and recompute every measure (see the module docstring).

    ``resample`` is ``"items"`` (needs ratings or labels), ``"items+raters"`` (needs ratings)
    or ``"systems"`` (scores only; also the fallback when there is no item-level data).
    ``progress`` is called with the number of replicates done (for a progress bar).
    """
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
    criteria = [_criterion_data(study, qc, design, conventions) for qc in study.quality_criteria]
    info = {"B": int(B), "seed": seed, "ci": ci, "ci_method": ci_method, "resample": resample,
            "paired": design.paired if resample != "systems" else None}
    if resample == "systems":
        n = len(study.systems)
        picks = rng.integers(0, n, size=(B, n))
        jack = np.array([[k for k in range(n) if k != left] for left in range(n)]) if n > 2 else None
        run = lambda by: _all_values(study, conventions, design, criteria, np.zeros((1, len(by), 0)), None, by)
        replicates = _in_chunks(lambda sl: run(picks[sl]), B, progress)
        estimates = run(np.arange(n)[None])
        jackknife = run(jack) if (ci_method == "bca" and jack is not None) else {}
        return Bootstrap(replicates, {k: float(v[0]) for k, v in estimates.items()}, jackknife, info)
    weights = draw_weights(design, B, rng)
    rater_weights = None
    if resample == "items+raters":
        rater_weights = {e: rng.multinomial(len(r), np.full(len(r), 1.0 / len(r)), size=B).astype(float)
                         for e, r in design.raters.items()}
    chunk = lambda sl: _all_values(study, conventions, design, criteria, weights[:, sl],
                                   None if rater_weights is None else {e: v[sl] for e, v in rater_weights.items()})
    replicates = _in_chunks(chunk, B, progress)
    ones = np.ones((len(design.members), 1, len(design.units))) * design.members[:, None, :]
    full = {e: np.ones((1, len(r))) for e, r in design.raters.items()} if rater_weights is not None else None
    estimates = {k: float(v[0]) for k, v in _all_values(study, conventions, design, criteria, ones, full).items()}
    jackknife = {}
    if ci_method == "bca":
        jack = jackknife_weights(design)
        jackknife = _all_values(study, conventions, design, criteria, jack,
                                None if full is None else {e: np.ones((len(design.units), len(r))) for e, r in design.raters.items()})
    return Bootstrap(replicates, estimates, jackknife, info)


def _in_chunks(compute, B: int, progress, size: int = 500) -> dict:
    parts: list[dict] = []
    for start in range(0, B, size):
        parts.append(compute(slice(start, min(B, start + size))))
        if progress is not None:
            progress(min(B, start + size))
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]} if parts else {}


# ----------------------------------------------------------------------------- intervals


def interval(replicates: np.ndarray, *, ci: float = 0.95, method: str = "percentile", estimate: float = NAN,
             jackknife: np.ndarray | None = None) -> tuple[float, float, str]:
    """(low, high, note) from bootstrap replicates: percentile, or BCa (Efron & Tibshirani 1993, eq. 14.9-14.15).

    >>> rng = np.random.default_rng(0)
    >>> low, high, note = interval(rng.normal(size=4000))
    >>> round(low, 1), round(high, 1), note
    (-1.9, 2.0, '')
    """
    from scipy.stats import norm

    values = np.asarray(replicates, dtype=float)
    finite = values[np.isfinite(values)]
    if len(finite) < 0.5 * len(values) or len(finite) < 10:
        return NAN, NAN, f"no interval: the measure is undefined in {len(values) - len(finite)} of {len(values)} replicates"
    dropped = (f"interval over the {len(finite)} of {len(values)} replicates where the measure is defined"
               if len(finite) < len(values) else "")
    alpha = (1 - ci) / 2
    levels = np.array([alpha, 1 - alpha])
    if method == "bca":
        if not np.isfinite(estimate) or jackknife is None:
            return NAN, NAN, "no BCa interval: no estimate or jackknife"
        below = (np.mean(finite < estimate) + 0.5 * np.mean(finite == estimate))
        if below in (0.0, 1.0):
            return NAN, NAN, "no BCa interval: every replicate lies on one side of the estimate"
        z0 = norm.ppf(below)
        jack = np.asarray(jackknife, dtype=float)
        jack = jack[np.isfinite(jack)]
        d = jack.mean() - jack
        denominator = 6 * (d**2).sum() ** 1.5
        a = float((d**3).sum() / denominator) if denominator > 0 else 0.0
        z = norm.ppf(levels)
        levels = norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
    low, high = np.quantile(finite, levels)
    return float(low), float(high), dropped


# ----------------------------------------------------------------------------- attaching intervals to an assessment


def method_label(info: dict) -> str:
    """``percentile bootstrap (B = 2000, items, paired)`` and the like, for the ci_method column."""
    what = info["resample"] + (", paired" if info.get("paired") else (", unpaired" if info.get("paired") is False else ""))
    name = "BCa" if info["ci_method"] == "bca" else "percentile"
    return f"{name} bootstrap (B = {info['B']}, {what})"


def assessment_intervals(assessment, result: Bootstrap) -> dict:
    """``{(measure, level, quality_criterion, system): (low, high, method, note)}`` for an assessment's rows
    (and ``("annotators", experiment, quality_criterion, measure)`` for the annotator agreement).

    Rows the bootstrap did not reach get NaN and a note; a system's CV* without item-level data
    gets Vangel's interval (:func:`cv_interval`)."""
    info = result.info
    label = method_label(info)
    out: dict = {}
    study = assessment.study
    rated = set(study.ratings.criteria()) if study.ratings else set()
    keys = [(r.measure, r.level, r.quality_criterion, r.system) for r in assessment.rows]
    keys += [k for k in result.replicates if k[0] == "annotators"]
    for key in keys:
        measure, level, qc, system = key
        if key in result.replicates:
            low, high, note = interval(result.replicates[key], ci=info["ci"], method=info["ci_method"],
                                       estimate=result.estimates.get(key, NAN), jackknife=result.jackknife.get(key))
            out[key] = (low, high, label if np.isfinite(low) else "", note)
        elif measure == "CV*" and level == "system" and (qc not in rated or info["resample"] == "systems") \
                and (qc, system) in assessment.cv:
            values = [study.scores[(qc, system, e)] for e in study.experiment_ids if (qc, system, e) in study.scores]
            shift = study.quality_criterion(qc).scale_min if assessment.conventions.scale_shift else 0.0
            low, high = cv_interval(values, shift, ci=info["ci"])
            out[key] = (low, high, "Vangel (1996) CV interval", "" if np.isfinite(low) else "no interval: the mean is 0")
        else:
            why = ("CV* at QC and study level needs items to resample (item-level ratings)" if measure == "CV*" else
                   "stated findings are not resampled" if measure == "P" else "not resampled")
            out[key] = (NAN, NAN, "", f"no interval: {why}")
    return out


# ----------------------------------------------------------------------------- planning a reproduction

# The planner lives in qra_widgets.planning; importing it from here keeps working.
from .planning import PLAN_COLUMNS, plan_reproduction  # noqa: F401
