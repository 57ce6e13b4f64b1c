"""Planning a reproduction: how wide will its intervals be, for how many items and raters?

:func:`plan_reproduction` fits a small model to the original experiment's item-level ratings,
simulates reproductions of each design from it, assesses each against the original with the
same bootstrap as :func:`qra_widgets.uncertainty.bootstrap`, and reports the expected interval
width with its spread over the simulated reproductions.  A criterion read with the ``pairwise``
or ``best_worst`` layout is planned by judgements per system pair instead
(:mod:`qra_widgets.planning_pairwise`), and ``qra-widgets plan SPEC.json`` runs either from the
command line (:func:`add_plan_command`).

**The model** (per quality criterion, fitted to the original's ratings only): a rating is

    y = clip(round(mu_s + a_i + b_r + e), scale)

with ``mu_s`` the system's mean, ``a_i`` the item's effect, ``b_r`` the rater's effect
(severity) and ``e`` a residual.  The item and rater effects are fitted by alternating least
squares (an additive two-way model, fine for unbalanced data); their variances are estimated by
the method of moments, taking off the part that is residual noise in each estimate
(``sigma_e^2 / ratings``), and the residual variance from the residual sum of squares over its
degrees of freedom (``N - items - raters + 1``) less Sheppard's ``1/12`` for rounding to whole
points.  Ratings clipped at the scale's ends understate the residual noise, so the residual
variance is then calibrated: scaled (by bisection, with fixed random numbers) until simulated
teams of the original's size, on the original's items, agree with themselves on average as the
original team did (Krippendorff's alpha at the criterion's level).  The simulated team thus
has the original's spread of severities, item spread and agreement (the earlier planner drew
residuals around item means, which, with two raters, halved their variance: its teams were
more reliable than the original's, alpha 0.71 against 0.52 on van Miltenburg et al. 2024).

**Designs** (``design=``):

* ``"new items"`` -- the reproduction rates new items of each system: item effects are drawn
  from the original's (shrunk to the estimated item variance), unpaired with the original;
* ``"same items"`` -- the reproduction rates the original's items (the usual ReproNLP case):
  each item keeps its effect (a draw from its posterior given the original's ratings), the
  item ids are the original's, and the bootstrap resamples the two experiments' items jointly
  (paired).  At most the original's number of items per system can be planned.

Each run draws a new team of ``raters_per_item`` raters, severities from a normal distribution
with the original team's estimated variance (an original team of two or three raters is too few
to resample), who each rate every planned item.  The original's team and, for new items, its
items are themselves draws: the fitted system means carry the original team's mean severity and
its items' mean, so each run shifts the new team by a draw of the first (variance
``rater variance / original raters``) and each system's new items by a draw of the second.

How well the rater variance is known limits the plan: from an original of 2-3 raters it rests
on 1-2 degrees of freedom, and CV*'s expected width inherits that uncertainty.  Against a
brute-force simulation from a known truth (rater sd 0.4), an original of 8 raters gave CV*
widths within 4% and alpha widths within 7%; an original of 3 raters whose severities happened
to spread less than the truth's (estimated variance 0.09 against 0.16) gave CV* widths 32% (50
items) and 29% (200 items) too narrow (alpha within 7%).  Read a plan from a two- or three-rater original as a lower bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import NAN, QRAInputError

PLAN_COLUMNS = [
    "design",
    "items",
    "raters_per_item",
    "quality_criterion",
    "measure",
    "expected_ci_width",
    "expected_half_width",
    "ci_width_sd",
    "ci_width_p10",
    "ci_width_p90",
    "runs",
]
DESIGNS = ("new items", "same items")


@dataclass
class RatingModel:
    """The original's ratings of one criterion as ``mu_s + a_i + b_r + e`` (see the module docstring)."""

    systems: list
    item_system: np.ndarray  # (items,) system index of each original item
    item_ids: np.ndarray  # (items,) the original's item ids
    item_effects: np.ndarray  # (items,) fitted a_i (not shrunk)
    item_ratings: np.ndarray  # (items,) ratings per item
    system_means: np.ndarray  # (systems,) mu_s
    rater_effects: np.ndarray  # (raters,) fitted b_r (centred, not shrunk)
    residuals: np.ndarray  # fitted residuals (their shape; scaled to residual_variance when drawn)
    residual_variance: float
    item_variance: float
    rater_variance: float
    whole_points: bool
    low: float
    high: float

    @property
    def item_shrink(self) -> float:
        spread = float(np.mean(self.item_effects**2)) if self.item_effects.size else 0.0
        return math.sqrt(self.item_variance / spread) if spread > 0 else 0.0


def fit_ratings(
    system_codes: np.ndarray,
    item_codes: np.ndarray,
    rater_codes: np.ndarray,
    values: np.ndarray,
    n_systems: int,
    *,
    whole_points: bool,
    low: float,
    high: float,
    where: str = "ratings",
    iterations: int = 50,
) -> RatingModel:
    """Fit ``values ~ mu_s + a_i + b_r + e`` to one experiment's ratings (codes are 0-based indices;
    ``item_codes`` number the (system, item) units).

    >>> rng = np.random.default_rng(0)
    >>> items, raters = np.repeat(np.arange(400), 4), np.tile(np.arange(4), 400)
    >>> b = np.array([-0.5, -0.1, 0.2, 0.4]); a = rng.normal(0, 1.0, 400)
    >>> y = 3 + a[items] + b[raters] + rng.normal(0, 0.5, items.size)
    >>> m = fit_ratings(np.zeros(items.size, int), items, raters, y, 1, whole_points=False, low=-np.inf, high=np.inf)
    >>> round(m.residual_variance, 2), round(m.item_variance, 1), m.rater_effects.round(1).tolist()
    (0.25, 1.0, [-0.5, -0.1, 0.2, 0.4])
    """
    n_items = int(item_codes.max()) + 1
    n_raters = int(rater_codes.max()) + 1
    per_item = np.bincount(item_codes, minlength=n_items).astype(float)
    per_rater = np.bincount(rater_codes, minlength=n_raters).astype(float)
    b = np.zeros(n_raters)
    for _ in range(iterations):
        m = np.bincount(item_codes, weights=values - b[rater_codes], minlength=n_items) / per_item
        b_new = np.bincount(rater_codes, weights=values - m[item_codes], minlength=n_raters) / per_rater
        b_new -= b_new.mean()
        if np.max(np.abs(b_new - b)) < 1e-10:
            b = b_new
            break
        b = b_new
    m = np.bincount(item_codes, weights=values - b[rater_codes], minlength=n_items) / per_item
    residuals = values - m[item_codes] - b[rater_codes]
    dof = values.size - n_items - n_raters + 1
    if dof <= 0 or not np.any(per_item >= 2):
        raise QRAInputError(
            f"{where}: the planner needs items rated by at least two raters, to tell the raters' "
            f"disagreement from the items' differences (got {values.size} ratings of {n_items} items)"
        )
    residual_variance = float(residuals @ residuals / dof)
    if whole_points:
        residual_variance = max(residual_variance - 1 / 12, 0.0)  # Sheppard: rounding to whole points adds 1/12
    item_system = np.zeros(n_items, dtype=np.int64)
    item_system[item_codes] = system_codes
    counts = np.bincount(item_system, minlength=n_systems).astype(float)
    system_means = np.bincount(item_system, weights=m, minlength=n_systems) / np.where(counts > 0, counts, 1)
    a = m - system_means[item_system]
    noise_in_a = float(np.mean(residual_variance / per_item))
    within = a @ a / max(n_items - int((counts > 0).sum()), 1)
    item_variance = max(float(within) - noise_in_a, 0.0)
    noise_in_b = float(np.mean(residual_variance / per_rater))
    rater_variance = max(float(b @ b / max(n_raters - 1, 1)) - noise_in_b, 0.0) if n_raters > 1 else 0.0
    return RatingModel(
        [],
        item_system,
        np.arange(n_items),
        a,
        per_item,
        system_means,
        b,
        residuals,
        residual_variance,
        item_variance,
        rater_variance,
        whole_points,
        low,
        high,
    )


def _model_for(study, qc, source: str) -> RatingModel:
    import pandas as pd

    system, item, _e, rater, rating = study.ratings.select(3, [source]).for_criterion(qc.name)
    systems = [s for s in study.systems if s in set(system)]
    system_codes = pd.Index(systems).get_indexer(system)
    units = pd.MultiIndex.from_arrays([system, item])
    item_codes, unit_index = pd.factorize(units)
    rater_codes, _raters = pd.factorize(pd.Index(rater))
    values = np.asarray(rating, dtype=float)
    high = qc.scale_max if qc.scale_max is not None else np.inf
    model = fit_ratings(
        np.asarray(system_codes),
        np.asarray(item_codes),
        np.asarray(rater_codes),
        values,
        len(systems),
        whole_points=bool(np.all(values == np.round(values))),
        low=qc.scale_min,
        high=high,
        where=f"plan_reproduction: {source!r} on {qc.name!r}",
    )
    model.systems = systems
    model.item_ids = np.array([u[1] for u in unit_index], dtype=object)
    level = qc.label_level
    team = int(np.median(np.bincount(np.asarray(item_codes))))
    if team >= 2:
        _calibrate(model, _alpha(np.asarray(item_codes), np.asarray(rater_codes), values, level), team, level)
    return model


def _alpha(item_codes: np.ndarray, rater_codes: np.ndarray, values: np.ndarray, level: str) -> float:
    """Krippendorff's alpha of one team's ratings (raters x items, missing where a rater did not rate)."""
    import warnings

    from .measures import krippendorff_alpha

    table = np.full((int(rater_codes.max()) + 1, int(item_codes.max()) + 1), np.nan)
    table[rater_codes, item_codes] = values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(krippendorff_alpha(table, level=level))


def _calibrate(model: RatingModel, target: float, raters: int, level: str, teams: int = 16, steps: int = 14) -> None:
    """Scale the residual variance so that simulated teams of ``raters`` on the original's items agree
    with themselves, on average, as the original team did (``target`` alpha).  Fitting on ratings
    clipped at the scale's ends under-states the residual noise, and a team simulated from it and
    clipped again would agree more than the original's (van Miltenburg et al. 2024: 0.59 vs 0.52);
    the same random numbers are used at every step, so the bisection is on a smooth function."""
    if not np.isfinite(target) or model.residual_variance <= 0:
        return
    base = model.residual_variance
    low, high = 0.25, 4.0

    def mean_alpha(factor: float) -> float:
        model.residual_variance = base * factor
        rng = np.random.default_rng(12345)
        found = []
        for _ in range(teams):
            _system, item, rater, rating = simulate_team(model, 10**9, raters, "same items", rng)
            codes = {name: k for k, name in enumerate(dict.fromkeys(item))}
            found.append(
                _alpha(
                    np.array([codes[i] for i in item]),
                    np.array([int(r.rsplit("r", 1)[1]) for r in rater]),
                    rating,
                    level,
                )
            )
        return float(np.nanmean(found))

    if mean_alpha(low) < target or mean_alpha(high) > target:
        model.residual_variance = base  # out of reach: keep the fitted variance
        return
    for _ in range(steps):
        middle = math.sqrt(low * high)
        if mean_alpha(middle) > target:
            low = middle
        else:
            high = middle
    model.residual_variance = base * math.sqrt(low * high)


def simulate_team(model: RatingModel, per_system: int, raters: int, design: str, rng: np.random.Generator):
    """``(system, item id, rater, rating)`` columns of one simulated reproduction."""
    columns: list[list] = [[], [], [], []]
    # the original team's mean severity is one draw from the raters' population, absorbed into the
    # fitted system means: a new team differs from it by its own mean and by the original's
    original_raters = max(model.rater_effects.size, 1)
    team = rng.normal(0, math.sqrt(model.rater_variance), raters) + rng.normal(
        0, math.sqrt(model.rater_variance / original_raters)
    )
    scale = math.sqrt(model.residual_variance / np.mean(model.residuals**2)) if np.any(model.residuals) else 0.0
    for s, name in enumerate(model.systems):
        own = np.flatnonzero(model.item_system == s)
        if design == "same items":
            chosen = own if per_system >= own.size else rng.choice(own, size=per_system, replace=False)
            # each item's effect given the original's ratings of it: a normal posterior around the shrunk estimate
            noise = model.residual_variance / model.item_ratings[chosen]
            weight = (
                model.item_variance / (model.item_variance + noise)
                if model.item_variance > 0
                else np.zeros(chosen.size)
            )
            effects = weight * model.item_effects[chosen] + rng.normal(0, 1, chosen.size) * np.sqrt(weight * noise)
            ids = model.item_ids[chosen]
        else:
            # new items: around the system's true mean, from which the original's items' mean is one draw away
            effects = model.item_shrink * rng.choice(
                model.item_effects[own], size=per_system, replace=True
            ) + rng.normal(0, math.sqrt(model.item_variance / own.size))
            ids = np.array([f"planned-{name}-{j}" for j in range(per_system)], dtype=object)
        residual = scale * rng.choice(model.residuals, size=(effects.size, raters), replace=True)
        latent = model.system_means[s] + effects[:, None] + team[None, :] + residual
        if model.whole_points:
            latent = np.round(latent)
        ratings = np.clip(latent, model.low, model.high)
        columns[0].append(np.full(ratings.size, name, dtype=object))
        columns[1].append(np.repeat(ids, raters))
        columns[2].append(np.tile(np.array([f"planned-r{j}" for j in range(raters)], dtype=object), effects.size))
        columns[3].append(ratings.ravel())
    return [np.concatenate(c) for c in columns]


def plan_reproduction(
    study,
    items=(100, 200, 400),
    raters_per_item=(2, 3),
    *,
    B: int = 500,
    runs: int = 5,
    seed: int | None = 0,
    ci: float = 0.95,
    experiment: str | None = None,
    conventions=None,
    design: str = "new items",
    max_work: int | None = None,
    judgements_per_pair=(10, 20, 50, 100),
    power_runs: int = 400,
    significance: float = 0.05,
):
    """Expected confidence-interval width of CV* and of the new team's annotator alpha, per design.

    For each design (``items`` in total, split evenly over the systems; ``raters_per_item``
    raters, each rating every item) ``runs`` reproductions are simulated from the model of the
    original's ratings (``experiment``, default: the one with role ``original``; see the module
    docstring), with new items or the original's (``design``).  Each is assessed against the
    original with the bootstrap of :func:`qra_widgets.uncertainty.bootstrap` (``B`` replicates,
    percentile intervals, items resampled; paired with the original for ``"same items"``), and
    the widths are summarised over the runs.  "With 200 items and 3 raters, CV* is known to
    +/- 2" reads ``expected_half_width``; ``ci_width_sd``, ``ci_width_p10`` and
    ``ci_width_p90`` show how much one reproduction's width can differ from the expected one.

    Returns a DataFrame with columns :data:`PLAN_COLUMNS` (``measure`` is ``CV*``, the mean of
    the system CV*s, or ``alpha``, the reproduction's annotator alpha; ``items`` is the number
    planned, which for ``"same items"`` is at most the original's).

    A criterion read with the ``pairwise`` or ``best_worst`` layout is planned by judgements per
    system pair instead (:mod:`qra_widgets.planning_pairwise`): ``judgements_per_pair`` is the
    grid, ``runs`` reproductions are bootstrapped for the interval widths, ``power_runs`` give
    the chances (ranking recovered, the original's significant decisions reproduced at
    ``significance``), and the rows have the columns
    :data:`~qra_widgets.planning_pairwise.COMPARATIVE_PLAN_COLUMNS` (``items`` and
    ``raters_per_item`` do not apply).  A study with both kinds of criteria gets both kinds of
    rows, with the union of the columns.

    Parameters
    ----------
    study : Study
        The original study, with item-level ratings.
    items : sequence of int, default (100, 200, 400)
        The numbers of items to plan for, in total.
    raters_per_item : sequence of int, default (2, 3)
        The numbers of raters per item to plan for.
    B : int, default 500
        Bootstrap replicates per simulated reproduction.
    runs : int, default 5
        Simulated reproductions per design.
    seed : int, optional, default 0
        Seed of the simulations and bootstraps.
    ci : float, default 0.95
        Coverage of the intervals whose width is planned.
    experiment : str, optional
        The experiment modelled; default: the one with role ``original``.
    conventions : str or Conventions, optional
        As for :func:`qra_widgets.assess`.
    design : {"new items", "same items"}, default "new items"
        Whether the reproduction rates new items or the original's.
    max_work : int, optional
        Raise the limit on the planner's work (simulated ratings x replicates x runs); given, it
        replaces the limits on items, raters and replicates (:func:`qra_widgets.limits.check_plan`).
    judgements_per_pair : sequence of int, default (10, 20, 50, 100)
        For pairwise and best-worst criteria: the judgements per system pair to plan for.
    power_runs : int, default 400
        For pairwise and best-worst criteria: simulated reproductions for the chances.
    significance : float, default 0.05
        For pairwise and best-worst criteria: the level of the significant decisions.

    Returns
    -------
    pandas.DataFrame
        One row per design and measure: columns :data:`PLAN_COLUMNS`, and
        :data:`~qra_widgets.planning_pairwise.COMPARATIVE_PLAN_COLUMNS` for comparative criteria.
    """
    import pandas as pd

    from .intervals import interval
    from .limits import check_plan
    from .planning_pairwise import COMPARATIVE_PLAN_COLUMNS, check_comparative_plan, comparative_rule, plan_comparative
    from .progress import bar
    from .ratings import Ratings
    from .study import Experiment, Study
    from .uncertainty import bootstrap

    if not isinstance(study, Study):  # before anything is read from it
        raise QRAInputError(f"study: expected a Study, got {type(study).__name__}")
    if not getattr(study, "ratings", None):
        raise QRAInputError("plan_reproduction: needs a study with item-level ratings (load_annotations)")
    if design not in DESIGNS:
        raise QRAInputError(f"plan_reproduction: design must be one of {DESIGNS}, got {design!r}")
    originals = [e.id for e in study.experiments if e.role == "original" and e.id in study.ratings.experiments()]
    source = experiment or (originals[0] if originals else min(study.ratings.experiments()))
    if source not in study.ratings.experiments():
        raise QRAInputError(f"plan_reproduction: experiment {source!r} has no ratings")
    rated = set(study.ratings.criteria())  # no copy of the ratings before the caps are checked
    rules = {qc.name: comparative_rule(study, qc.name, source) for qc in study.quality_criteria if qc.name in rated}
    if any(rules.values()):  # pairwise / best-worst: judgements per pair, checked before anything is simulated
        grid = check_comparative_plan(study, judgements_per_pair, B, runs, power_runs, seed, max_work)
        if design != "new items":
            raise QRAInputError(
                "plan_reproduction: design: pairwise and best-worst reproductions are planned with new "
                "units (design='new items')"
            )
    if not all(rules.values()):
        check_plan(
            study, items, raters_per_item, B, runs, seed, max_work
        )  # before any array (limits: qra_widgets.io.reading)
        for name, values in (("items", items), ("raters_per_item", raters_per_item)):
            if not all(
                isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= (2 if name == "items" else 1)
                for v in values
            ):
                raise QRAInputError(
                    f"plan_reproduction: {name} must be whole numbers (items >= 2, raters >= 1), got {list(values)!r}"
                )
    rng = np.random.default_rng(seed)
    kept = study.ratings.select(3, [source])
    rows = []
    comparative = []
    for qc in study.quality_criteria:
        if qc.name not in kept.criteria():
            continue
        if rules.get(qc.name):
            comparative += plan_comparative(
                study,
                qc,
                source,
                rules[qc.name],
                grid,
                B=B,
                runs=runs,
                power_runs=power_runs,
                rng=rng,
                ci=ci,
                conventions=conventions,
                significance=significance,
                max_work=max_work,
            )
            continue
        model = _model_for(study, qc, source)
        systems = model.systems
        original = kept.select(0, [qc.name]).columns()
        smallest = int(np.bincount(model.item_system, minlength=len(systems)).min())
        plan_bar = bar(len(items) * len(raters_per_item) * runs, f"plan {qc.name}", "run")  # on a terminal, after 2 s
        for n_items in items:
            per_system = max(2, n_items // len(systems))
            if design == "same items":
                per_system = min(per_system, smallest)
            for k in raters_per_item:
                widths: dict[str, list] = {"CV*": [], "alpha": []}
                for _run in range(runs):
                    sim = simulate_team(model, per_system, k, design, rng)
                    q_o, s_o, i_o, _e_o, r_o, v_o = original
                    ratings = Ratings.from_columns(
                        np.concatenate([q_o, np.full(len(sim[0]), qc.name, dtype=object)]),
                        np.concatenate([s_o, sim[0]]),
                        np.concatenate([i_o, sim[1]]),
                        np.concatenate(
                            [np.full(len(q_o), "original", dtype=object), np.full(len(sim[0]), "planned", dtype=object)]
                        ),
                        np.concatenate([r_o, sim[2]]),
                        np.concatenate([v_o, sim[3]]),
                    )
                    planned = Study(
                        id="plan",
                        quality_criteria=[qc],
                        systems=systems,
                        experiments=[Experiment("original", role="original"), Experiment("planned")],
                        scores={(qc.name, s, e): v for (s, e), v in ratings.system_means(qc.name).items()},
                        ratings=ratings,
                    )
                    plan_bar.update(1)  # one bar for the plan, none per run's bootstrap
                    result = bootstrap(
                        planned,
                        conventions,
                        B=B,
                        seed=int(rng.integers(2**31)),
                        ci=ci,
                        max_work=max_work,
                        progress=lambda _done: None,
                    )
                    for key, measure in (
                        (("CV*", "qc", qc.name, None), "CV*"),
                        (("annotators", "planned", qc.name, "alpha"), "alpha"),
                    ):
                        if key in result.replicates:
                            low, high_end, _note = interval(result.replicates[key], ci=ci)
                            widths[measure].append(high_end - low)
                for measure, values in widths.items():
                    defined = np.array([v for v in values if np.isfinite(v)])
                    if defined.size:
                        width, sd = float(defined.mean()), float(defined.std(ddof=1)) if defined.size > 1 else NAN
                        p10, p90 = (float(x) for x in np.quantile(defined, [0.1, 0.9]))
                    else:
                        width = sd = p10 = p90 = NAN
                    rows.append(
                        [
                            design,
                            per_system * len(systems),
                            k,
                            qc.name,
                            measure,
                            width,
                            width / 2,
                            sd,
                            p10,
                            p90,
                            int(defined.size),
                        ]
                    )
        plan_bar.close()
    frames = [
        pd.DataFrame(r, columns=c) for r, c in ((rows, PLAN_COLUMNS), (comparative, COMPARATIVE_PLAN_COLUMNS)) if r
    ]
    return (
        pd.concat(frames, ignore_index=True)
        if len(frames) > 1
        else (frames[0] if frames else pd.DataFrame(columns=PLAN_COLUMNS))
    )


def _numbers(text: str, option: str) -> list[int]:
    """``10,20,50``: an option's comma-separated whole numbers, else a one-line refusal naming the option."""
    try:
        return [int(part) for part in str(text).replace(" ", "").split(",") if part]
    except ValueError:
        raise QRAInputError(f"{option}: must be whole numbers separated by commas, got {str(text)[:40]!r}") from None


def add_plan_command(commands) -> None:
    """The command line's ``plan`` command (``qra-widgets plan SPEC.json``): the plan as a table and,
    for pairwise and best-worst criteria, the one-line answer of
    :func:`~qra_widgets.planning_pairwise.smallest_judgements`."""
    plan = commands.add_parser(
        "plan",
        help="plan a reproduction from an annotation spec: expected interval widths per "
        "design and, for pairwise / best-worst judgements, power per judgements per system pair",
    )
    plan.add_argument("spec", help="annotation spec (.json) of the original's item-level ratings or judgements")
    plan.add_argument("--data-root", metavar="DIR", help="folder the spec's files are read under (default: its folder)")
    plan.add_argument("--experiment", help="the experiment planned from (default: the one with role original)")
    plan.add_argument(
        "--judgements-per-pair",
        default="10,20,50,100",
        metavar="J,J,...",
        help="pairwise / best-worst: judgements per system pair to plan (default 10,20,50,100)",
    )
    plan.add_argument("--items", default="100,200,400", metavar="N,N,...", help="ratings: items to plan")
    plan.add_argument("--raters", default="2,3", metavar="K,K,...", help="ratings: raters per item to plan")
    plan.add_argument("--design", choices=DESIGNS, default="new items")
    plan.add_argument(
        "--bootstrap", type=int, default=500, metavar="B", help="bootstrap replicates per run (default 500)"
    )
    plan.add_argument("--runs", type=int, default=5, help="simulated reproductions bootstrapped per design (default 5)")
    plan.add_argument(
        "--power-runs", type=int, default=400, help="simulated reproductions for the chances (default 400)"
    )
    plan.add_argument("--seed", type=int, default=0)
    plan.add_argument(
        "--measure",
        default="significant decisions reproduced",
        help="the row the one-line answer reads: a chance (e.g. 'ranking recovered') or a width (CV*)",
    )
    plan.add_argument("--target", type=float, default=0.8, help="the chance to reach, or the width not to exceed (0.8)")
    plan.add_argument("--max-work", type=int, default=None, metavar="N", help="raise the limit on the plan's work")
    plan.add_argument("--format", choices=("text", "csv"), default="text")
    plan.set_defaults(run=plan_command)


def plan_command(args) -> str:
    """Run ``qra-widgets plan`` (see :func:`add_plan_command`)."""
    from pathlib import Path

    import pandas as pd

    from .io.annotations import load_annotations
    from .planning_pairwise import smallest_judgements

    study = load_annotations(args.spec, base=args.data_root or Path(args.spec).parent)
    plan = plan_reproduction(
        study,
        _numbers(args.items, "--items"),
        _numbers(args.raters, "--raters"),
        B=args.bootstrap,
        runs=args.runs,
        seed=args.seed,
        experiment=args.experiment,
        design=args.design,
        max_work=args.max_work,
        judgements_per_pair=_numbers(args.judgements_per_pair, "--judgements-per-pair"),
        power_runs=args.power_runs,
    )
    if args.format == "csv":
        return plan.to_csv(index=False)
    shown = plan.drop(columns=[c for c in ("note",) if c in plan and not plan[c].astype(bool).any()]).dropna(
        axis=1, how="all"
    )
    with pd.option_context("display.width", 250, "display.max_columns", 30, "display.max_colwidth", 60):
        text = shown.to_string(index=False, float_format=lambda v: f"{v:.3g}") + "\n"
    if "judgements_per_pair" in plan:
        text += "\n" + smallest_judgements(
            plan.dropna(subset=["judgements_per_pair"]), measure=args.measure, target=args.target
        )
    return text
