"""Planning a pairwise or best-worst reproduction: how many judgements per system pair?

:func:`plan_comparative` (reached through :func:`qra_widgets.plan_reproduction` for a
criterion read with the ``pairwise`` or ``best_worst`` layout) fits a choice model to the
original's judgements, simulates reproductions with ``J`` judgements per system pair, assesses
each against the original with :func:`qra_widgets.assess` (the same values, sign tests and
bootstrap intervals a report prints), and reports, per ``J``, the expected interval widths
and the chance that the reproduction recovers the original's ranking and its significant
pairwise decisions, with the spread over the simulated reproductions.

**The model.** A judgement shows a tuple ``T`` of systems (two for a pairwise judgement).
System ``s`` has strength ``t_s``; in judgement unit ``u`` (an item shown with those systems,
judged by one or more raters) it has ``t_s + v_us`` with ``v_us ~ N(0, sigma^2)``.  A pairwise
judgement is a tie with probability ``tie_rate``, otherwise ``a`` wins with the Bradley &
Terry (1952) probability ``exp(t_a) / (exp(t_a) + exp(t_b))``.  A best-worst judgement picks
the best with probability ``exp(t_b) / sum_T exp(t)`` and then the worst of the rest with
``exp(-t_w) / sum_{T - b} exp(-t)`` (the sequential best-worst model, Marley & Louviere 2005;
for three systems it is the Plackett-Luce model of the full ranking, for two it is
Bradley-Terry).

* ``t`` is fitted by maximum likelihood: pairwise (and best-worst of two) judgements with
  ``choix.ilsr_pairwise`` (Maystre & Grossglauser 2015), as :func:`~qra_widgets.measures.bradley_terry`
  does; tuples of three or more by ``scipy.optimize.minimize`` of the sequential best-worst
  likelihood (``choix`` has no model of a worst choice; for three systems the fit equals
  ``choix.ilsr_rankings`` on the implied rankings).  Its covariance is the cluster-robust
  sandwich over judgement units (Liang & Zeger 1986), so judgements of one unit, which share
  its item, count as one piece of evidence as far as they agree.
* ``tie_rate`` is the original's share of tied judgements.
* ``sigma`` (the units' own preferences, the overdispersion) is calibrated as the rating
  planner calibrates its residual noise: by bisection, with fixed random numbers, until
  simulated raters of the original's units agree with each other within a unit as often as
  the original's raters did (the share of agreeing pairs of judgements of one unit).  It is 0
  when every unit was judged once (the data cannot tell it from the choice noise).
* The units' noise pulls every choice towards chance (averaged over units, a choice is less
  certain than at the unit's mean utility), while ``t`` was fitted to the choices as they were
  made, averaged over units.  So a unit's mean utility is ``c(sigma) t_s``, the scale
  ``c(sigma) >= 1`` chosen (bisection, same fixed random numbers) so that the simulated choices
  favour the stronger systems as much as choices drawn from ``t`` without unit noise do (the
  mean of ``t_best - t_worst`` over judgements); ``sigma`` is calibrated with it.  Without it,
  Arvan & Parde's (2025) simulated win rates were 0.29-0.45 where theirs were 0.15-0.40, and
  the planned widths of a system's value 13% wider than a brute-force resampling of their
  judgements.

**A reproduction** ("new items") shows the original's tuples in the original's proportions,
``J`` times per system pair on average (for tuples of ``k`` systems, ``J x pairs / (k(k-1)/2)``
tuples), in new units of the original's number of judgements per unit.  The original's
values are one draw around the true strengths, so each simulated reproduction draws its true
strengths from the estimate's normal approximation, ``N(t_hat, covariance)`` (the plan
integrates over what the original leaves unknown: an *assurance*, O'Hagan & Stevens 2001,
rather than the power at the point estimate).

**What is reported** per ``J`` (:data:`COMPARATIVE_PLAN_COLUMNS`):

* widths of the intervals :func:`qra_widgets.assess` prints with a bootstrap over items
  (``runs`` reproductions, ``B`` replicates): ``CV*`` (the criterion's mean of the system
  CV*s), ``value`` (a system's value in the reproduction, mean width over the systems), ``r``
  (Pearson's r of the original's and the reproduction's system values) and ``P`` (the share
  of system pairs ranked alike);
* chances over ``power_runs`` reproductions (no bootstrap): ``ranking recovered`` (the
  reproduction ranks every system as the original did), ``decisions agree`` (the expected P),
  ``significant decisions reproduced`` (for each system pair whose two-sided sign test was
  significant in the original after Holm's adjustment, the chance that the reproduction's is
  too, in the same direction: the power, averaged over those pairs) and ``any decision
  significant`` (the reproduction's Holm-adjusted sign tests reject at least one pair: with
  equal strengths, at most the nominal ``significance``).  Sign tests exist for pairwise
  judgements and best-worst judgements of two systems, as in the report.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from .errors import NAN, QRAInputError

COMPARATIVE_PLAN_COLUMNS = [
    "design",
    "judgements_per_pair",
    "quality_criterion",
    "measure",
    "expected_value",
    "expected_ci_width",
    "expected_half_width",
    "ci_width_sd",
    "ci_width_p10",
    "ci_width_p90",
    "chance",
    "chance_se",
    "runs",
    "note",
]
WIDTH_MEASURES = ("CV*", "value", "r", "P")
CHANCE_MEASURES = (
    "ranking recovered",
    "decisions agree",
    "significant decisions reproduced",
    "any decision significant",
)
MAX_JUDGEMENTS_PER_PAIR = 100_000


@dataclass
class ChoiceModel:
    """One criterion's judgements as a choice model (see the module docstring)."""

    systems: list
    layout: str  # "pairwise" or "best_worst"
    rule: dict  # the reader's rule: layout, and score / ties for pairwise
    strength: np.ndarray  # (S,) centred log-strengths t
    covariance: np.ndarray  # (S, S) the estimate's cluster-robust covariance
    tuples: np.ndarray  # (T, k) the distinct tuples shown (system indices, sorted)
    tuple_counts: np.ndarray  # (T,) how often each was shown
    tie_rate: float = 0.0
    unit_sd: float = 0.0
    per_unit: int = 1
    agreement: float = NAN  # the original's within-unit agreement
    notes: list = field(default_factory=list)
    latent_scale: float = 1.0  # t_s x this is a unit's mean utility: its noise would otherwise pull choices to chance


# ----------------------------------------------------------------------------- the original's judgements


def comparative_rule(study, qc_name: str, source: str) -> dict | None:
    """The reader's rule of ``source``'s judgements of ``qc_name`` (``layout`` ``pairwise`` or
    ``best_worst``), from the annotation spec kept with the ratings; None for ratings."""
    spec = getattr(study.ratings, "spec", None) or {}
    for entry in spec.get("experiments", []):
        if entry.get("id") != source or entry.get("layout") not in ("pairwise", "best_worst"):
            continue
        columns = entry.get("columns") or {}
        rated = (
            list((columns.get("criteria") or {}).keys())
            or entry.get("criteria")
            or [qc.name for qc in study.quality_criteria]
        )
        if qc_name in rated:
            if entry["layout"] == "best_worst":
                return {"layout": "best_worst"}
            return {"layout": "pairwise", "score": entry.get("score", "preference"), "ties": entry.get("ties", "half")}
    return None


def original_judgements(study, qc_name: str, source: str, systems: list) -> dict:
    """``source``'s judgements of ``qc_name`` rebuilt from the ratings the reader gave each
    system shown (item ``unit|system``): ``unit`` (n,), ``shown`` (n, k) system indices,
    ``best`` and ``worst`` (n,) positions in ``shown`` (pairwise: the winner and the loser;
    -1 for a tie)."""
    import pandas as pd

    system, item, _e, rater, rating = study.ratings.select(3, [source]).for_criterion(qc_name)
    unit = np.array([str(i)[: len(str(i)) - len(str(s)) - 1] for i, s in zip(item, system)], dtype=object)
    frame = pd.DataFrame(
        {"unit": unit, "rater": rater, "system": pd.Index(systems).get_indexer(system), "rating": rating}
    )
    frame = frame.sort_values(["unit", "rater", "system"], kind="stable")
    sizes = frame.groupby(["unit", "rater"], sort=False).size().to_numpy()
    k = int(sizes[0]) if sizes.size else 0
    if k < 2 or np.any(sizes != k):
        raise QRAInputError(
            f"plan_reproduction: {source!r} on {qc_name!r}: the planner needs every judgement to show "
            f"the same number of systems (at least two), found {sorted(set(sizes.tolist()))}"
        )
    shown = frame.system.to_numpy().reshape(-1, k)
    values = frame.rating.to_numpy(dtype=float).reshape(-1, k)
    best, worst = np.argmax(values, axis=1), np.argmin(values, axis=1)
    tie = values.max(axis=1) == values.min(axis=1)
    best[tie], worst[tie] = -1, -1
    units = frame.unit.to_numpy()[::k]
    return {"unit": pd.factorize(units)[0], "shown": shown, "best": best, "worst": worst}


# ----------------------------------------------------------------------------- the choice model


def _events(shown: np.ndarray, best: np.ndarray, worst: np.ndarray, n_systems: int, layout: str):
    """Each choice as ``(set mask (E, S), chosen system (E,), sign (E,), judgement (E,))``: the best
    of the tuple with strengths ``t`` and, for best-worst tuples of three or more, the worst of the
    rest with ``-t``.  Tied judgements make no event."""
    n, k = shown.shape
    rows = np.arange(n)
    decided = best >= 0
    mask = np.zeros((n, n_systems), dtype=bool)
    mask[rows[:, None], shown] = True
    masks, chosen, signs, which = (
        [mask[decided]],
        [shown[rows, best][decided]],
        [np.ones(int(decided.sum()))],
        [rows[decided]],
    )
    if layout == "best_worst" and k >= 3:
        rest = mask.copy()
        rest[rows, shown[rows, best]] = False
        masks.append(rest[decided])
        chosen.append(shown[rows, worst][decided])
        signs.append(-np.ones(int(decided.sum())))
        which.append(rows[decided])
    return np.concatenate(masks), np.concatenate(chosen), np.concatenate(signs), np.concatenate(which)


def _choice_probabilities(strength: np.ndarray, mask: np.ndarray, sign: np.ndarray) -> np.ndarray:
    utility = np.where(mask, sign[:, None] * strength[None, :], -np.inf)
    utility -= utility.max(axis=1, keepdims=True)
    weight = np.exp(utility)
    return weight / weight.sum(axis=1, keepdims=True)


def fit_strengths(
    shown: np.ndarray, best: np.ndarray, worst: np.ndarray, n_systems: int, layout: str, units: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-likelihood strengths (centred) and their cluster-robust covariance (clusters =
    ``units``; default: each judgement its own).

    >>> import choix
    >>> rng = np.random.default_rng(1)
    >>> shown = np.array([rng.permutation(4)[:3] for _ in range(3000)])
    >>> truth = np.array([0.0, 0.5, 1.0, -0.5])
    >>> g = rng.gumbel(size=shown.shape) + truth[shown]
    >>> best = g.argmax(axis=1); g[np.arange(3000), best] = np.inf; worst = g.argmin(axis=1)
    >>> t, cov = fit_strengths(shown, best, worst, 4, "best_worst")
    >>> middle = 3 - best - worst
    >>> rankings = [tuple(s[[b, m, w]]) for s, b, m, w in zip(shown, best, middle, worst)]
    >>> pl = choix.ilsr_rankings(4, rankings, tol=1e-12, max_iter=1000)
    >>> bool(np.allclose(t, pl - pl.mean(), atol=1e-5))  # three systems: the Plackett-Luce fit
    True
    >>> (t - t[0]).round(1).tolist(), bool(np.all(np.sqrt(np.diag(cov)) < 0.05))
    ([0.0, 0.5, 1.0, -0.5], True)
    """
    import choix
    from scipy.optimize import minimize

    mask, chosen, sign, which = _events(shown, best, worst, n_systems, layout)
    if not chosen.size:
        raise QRAInputError("plan_reproduction: every judgement is a tie; there are no preferences to plan from")
    if shown.shape[1] == 2:
        other = np.where(shown[which, 0] == chosen, shown[which, 1], shown[which, 0])
        data = list(zip(chosen.tolist(), other.tolist()))
        won, lost = set(chosen.tolist()), set(other.tolist())
        alpha = 0.0 if all(s in won and s in lost for s in set(shown.ravel().tolist())) else 0.01
        strength = choix.ilsr_pairwise(n_systems, data, alpha=alpha, max_iter=1000, tol=1e-12)
    else:

        def negative_log_likelihood(t):
            p = _choice_probabilities(t, mask, sign)
            picked = p[np.arange(chosen.size), chosen]
            gradient = -(sign[:, None] * (np.eye(n_systems)[chosen] - p)).sum(axis=0) + 1e-3 * t
            return -np.log(picked).sum() + 5e-4 * t @ t, gradient

        strength = minimize(
            negative_log_likelihood,
            np.zeros(n_systems),
            jac=True,
            method="BFGS",
            options={"gtol": 1e-9, "maxiter": 2000},
        ).x
    strength = strength - strength.mean()
    p = _choice_probabilities(strength, mask, sign)
    information = np.diag(p.sum(axis=0)) - p.T @ p  # sum over the choices of diag(p) - p p'
    scores = sign[:, None] * (np.eye(n_systems)[chosen] - p)
    clusters = which if units is None else np.asarray(units)[which]
    summed = np.zeros((int(clusters.max()) + 1, n_systems))
    np.add.at(summed, clusters, scores)
    centre = np.eye(n_systems) - 1.0 / n_systems  # the strengths are centred: invert off the all-ones direction
    bread = centre @ np.linalg.inv(information + 1.0 / n_systems) @ centre
    return strength, bread @ (summed.T @ summed) @ bread


def _agreement(units: np.ndarray, codes: np.ndarray) -> float:
    """The share of pairs of judgements of one unit that agree (pooled over the units)."""
    import pandas as pd

    counts = pd.DataFrame({"u": units, "c": codes}).groupby(["u", "c"]).size()
    per_unit = counts.groupby(level=0).sum()
    agreeing = float((counts * (counts - 1) / 2).sum())
    pairs = float((per_unit * (per_unit - 1) / 2).sum())
    return agreeing / pairs if pairs else NAN


def _draw(
    strength: np.ndarray,
    shown: np.ndarray,
    unit: np.ndarray,
    unit_noise: np.ndarray,
    gumbel: np.ndarray,
    ties: np.ndarray,
    layout: str,
) -> tuple[np.ndarray, np.ndarray]:
    """Best and worst positions of each judgement (-1 for a tie) from fixed random numbers:
    ``unit_noise`` (units, S) scaled already, ``gumbel`` (2, n, k), ``ties`` (n,) booleans."""
    rows = np.arange(shown.shape[0])
    utility = strength[shown] + unit_noise[unit[:, None], shown]
    best = np.argmax(utility + gumbel[0], axis=1)
    rest = -utility + gumbel[1]
    rest[rows, best] = -np.inf
    worst = np.argmax(rest, axis=1)
    if layout == "pairwise":
        best, worst = np.where(ties, -1, best), np.where(ties, -1, worst)
    return best, worst


def _codes(best: np.ndarray, worst: np.ndarray, shown: np.ndarray) -> np.ndarray:
    rows = np.arange(shown.shape[0])
    chosen_best = np.where(best >= 0, shown[rows, np.maximum(best, 0)], -1)
    chosen_worst = np.where(worst >= 0, shown[rows, np.maximum(worst, 0)], -1)
    return chosen_best * (shown.max() + 2) + chosen_worst


def _calibrate_units(model: ChoiceModel, judged: dict, steps: int = 16, copies: int = 8) -> None:
    """``unit_sd`` such that simulated raters of the original's units agree within a unit as
    often as the original's did (bisection on fixed random numbers; 0 if out of reach)."""
    units, shown = judged["unit"], judged["shown"]
    target = _agreement(units, _codes(judged["best"], judged["worst"], shown))
    model.agreement = target
    if not np.isfinite(target):
        model.notes.append("each unit was judged once: no overdispersion between units can be estimated (sigma = 0)")
        return
    rng = np.random.default_rng(2024)
    n_units, n = int(units.max()) + 1, shown.shape[0]
    fixed = [
        (
            rng.normal(size=(n_units, len(model.systems))),
            rng.gumbel(size=(2,) + shown.shape),
            rng.random(n) < model.tie_rate,
        )
        for _ in range(copies)
    ]

    rows = np.arange(n)

    def favour(scale: float, sd: float) -> float:
        """The mean of t_best - t_worst over the simulated judgements (ties left out)."""
        total = 0.0
        for z, g, t in fixed:
            best, worst = _draw(scale * model.strength, shown, units, sd * z, g, t, model.layout)
            made = best >= 0
            chosen = shown[rows[made], best[made]], shown[rows[made], worst[made]]
            total += float(np.mean(model.strength[chosen[0]] - model.strength[chosen[1]])) if made.any() else 0.0
        return total / copies

    plain = favour(1.0, 0.0)  # choices drawn from t itself

    def scale_for(sd: float) -> float:
        if sd == 0.0 or not np.any(model.strength):
            return 1.0
        low, high = 1.0, 2.0
        while favour(high, sd) < plain and high < 64:
            low, high = high, 2 * high
        for _ in range(steps):
            middle = (low + high) / 2
            if favour(middle, sd) < plain:
                low = middle
            else:
                high = middle
        return (low + high) / 2

    def mean_agreement(sd: float) -> float:
        scale = scale_for(sd)
        found = [
            _agreement(units, _codes(*_draw(scale * model.strength, shown, units, sd * z, g, t, model.layout), shown))
            for z, g, t in fixed
        ]
        return float(np.mean(found))

    low, high = 0.0, 4.0
    if mean_agreement(low) >= target:  # agreeing as often without unit noise: no overdispersion
        return
    if mean_agreement(high) <= target:
        model.unit_sd, model.latent_scale = high, scale_for(high)
        return
    for _ in range(steps):
        middle = (low + high) / 2
        if mean_agreement(middle) < target:
            low = middle
        else:
            high = middle
    model.unit_sd = (low + high) / 2
    model.latent_scale = scale_for(model.unit_sd)


def choice_model(study, qc, source: str, rule: dict) -> ChoiceModel:
    """The choice model of ``source``'s judgements of criterion ``qc`` (see the module docstring)."""
    systems = [s for s in study.systems if s in set(study.ratings.select(3, [source]).for_criterion(qc.name)[0])]
    judged = original_judgements(study, qc.name, source, systems)
    shown = np.sort(judged["shown"], axis=1)
    tuples, counts = np.unique(shown, axis=0, return_counts=True)
    ties = float(np.mean(judged["best"] < 0))
    choices = getattr(study.ratings, "choices", None)
    if rule.get("ties") == "exclude" and choices is not None and choices.has(qc.name, source):
        ties = float(np.mean(choices.codes(qc.name, source, "system")[2] == "tie"))  # tied judgements left the ratings
    strength, covariance = fit_strengths(
        judged["shown"], judged["best"], judged["worst"], len(systems), rule["layout"], judged["unit"]
    )
    per_unit = int(np.median(np.bincount(judged["unit"])))
    model = ChoiceModel(
        systems, rule["layout"], rule, strength, covariance, tuples, counts, ties, 0.0, max(per_unit, 1)
    )
    _calibrate_units(model, judged)
    return model


# ----------------------------------------------------------------------------- simulated reproductions


def allocate(model: ChoiceModel, per_pair: int) -> np.ndarray:
    """How many times each of the original's tuples is shown for ``per_pair`` judgements per system
    pair on average (in the original's proportions; largest remainders)."""
    k = model.tuples.shape[1]
    pairs = {(int(t[i]), int(t[j])) for t in model.tuples for i in range(k) for j in range(i + 1, k)}
    total = max(1, round(per_pair * len(pairs) / math.comb(k, 2)))
    share = total * model.tuple_counts / model.tuple_counts.sum()
    counts = np.floor(share).astype(int)
    counts[np.argsort(-(share - counts), kind="stable")[: total - int(counts.sum())]] += 1
    return counts


def simulate_judgements(model: ChoiceModel, strength: np.ndarray, per_pair: int, rng: np.random.Generator) -> dict:
    """One simulated reproduction's judgements as the reader's columns
    (:data:`~qra_widgets.io.layout_rows.JUDGEMENT_FIELDS`), with ``per_pair`` judgements per pair."""
    counts = allocate(model, per_pair)
    which = np.repeat(np.arange(len(counts)), counts)
    order = np.concatenate([np.arange(c) for c in counts]) if counts.sum() else np.zeros(0, int)
    shown = model.tuples[which]
    shown = np.take_along_axis(shown, rng.random(shown.shape).argsort(axis=1), axis=1)  # the order shown
    per_tuple_units = -(-counts // model.per_unit)
    offsets = np.concatenate([[0], np.cumsum(per_tuple_units)[:-1]])
    unit = offsets[which] + order // model.per_unit
    noise = model.unit_sd * rng.normal(size=(int(per_tuple_units.sum()), len(model.systems)))
    best, worst = _draw(
        model.latent_scale * strength,
        shown,
        unit,
        noise,
        rng.gumbel(size=(2,) + shown.shape),
        rng.random(len(which)) < model.tie_rate,
        model.layout,
    )
    names = np.array(model.systems, dtype=object)[shown]
    n = len(which)
    rows = np.arange(n)
    label = np.array([f"planned-{u} [{' vs '.join(sorted(map(str, t)))}]" for u, t in zip(unit, names)], dtype=object)
    empty = np.full(n, None, dtype=object)
    j = {"unit": label, "rater": np.array([f"planned-r{o % model.per_unit}" for o in order], dtype=object), "row": rows}
    if model.layout == "pairwise":
        outcome = np.where(best < 0, "tie", np.where(best == 0, "a", "b")).astype(object)
        chosen = np.where(best < 0, "tie", names[rows, np.maximum(best, 0)]).astype(object)
        j.update(
            system_a=names[:, 0].copy(),
            system_b=names[:, 1].copy(),
            outcome=outcome,
            shown=empty,
            best=empty,
            worst=empty,
            code_system=chosen,
            code_position=outcome,
        )
    else:
        shown_tuples = np.empty(n, dtype=object)
        shown_tuples[:] = [tuple(t) for t in names.tolist()]
        b, w = names[rows, best], names[rows, worst]
        j.update(
            system_a=empty,
            system_b=empty,
            outcome=empty,
            shown=shown_tuples,
            best=b,
            worst=w,
            code_system=np.array([f"best {x}, worst {y}" for x, y in zip(b, w)], dtype=object),
            code_position=np.array([f"best {x + 1}, worst {y + 1}" for x, y in zip(best, worst)], dtype=object),
        )
    j["_shown_index"], j["_best"], j["_worst"] = shown, best, worst
    return j


def _ratings_of(j: dict, qc: str, rule: dict) -> dict:
    """The ratings the reader gives each system shown (:mod:`qra_widgets.io.layout_pairwise`)."""
    from .io.layout_pairwise import pairwise_ratings

    n = len(j["unit"])
    j["quality_criterion"] = np.full(n, qc, dtype=object)
    if rule["layout"] == "pairwise":
        return pairwise_ratings(j, rule["score"], rule["ties"], "planned")
    names = np.array([list(t) for t in j["shown"]], dtype=object)
    k = names.shape[1]
    position = np.arange(k)[None, :]
    value = np.where(j["_best"][:, None] == position, 100.0, np.where(j["_worst"][:, None] == position, -100.0, 0.0))
    return {
        "quality_criterion": np.full(n * k, qc, dtype=object),
        "system": names.ravel(),
        "item": np.array([f"{u}|{s}" for u, s in zip(np.repeat(j["unit"], k), names.ravel())], dtype=object),
        "rater": np.repeat(j["rater"], k),
        "rating": value.ravel(),
    }


@dataclass
class _Original:
    """What every simulated reproduction is assessed against: the original's ratings, choices and values."""

    ratings: tuple
    choices: tuple | None
    values: np.ndarray  # (S,) the original's system values
    significant: list  # (system_x, system_y, winner) of its Holm-significant sign tests
    tested: bool  # the report has sign tests for these judgements


def _original(study, qc, source: str, model: ChoiceModel, significance: float) -> _Original:
    kept = study.ratings.select(3, [source]).select(0, [qc.name])
    choices = getattr(study.ratings, "choices", None)
    chosen = None
    if choices is not None and choices.has(qc.name, source):
        chosen = choices.select(3, [source]).select(0, [qc.name])._columns
    values = np.array([study.scores.get((qc.name, s, source), NAN) for s in model.systems], dtype=float)
    records = [
        t
        for t in (study.metadata.get("annotations") or {}).get("sign_tests", [])
        if t["experiment"] == source and t["quality_criterion"] == qc.name
    ]
    significant = [
        (t["system_x"], t["system_y"], t["system_x"] if t["wins_x"] > t["wins_y"] else t["system_y"])
        for t in records
        if t["p_holm"] is not None and t["p_holm"] < significance
    ]
    tested = model.layout == "pairwise" or model.tuples.shape[1] == 2
    return _Original(kept.columns(), chosen, values, significant, tested)


def _planned_study(qc, source: str, model: ChoiceModel, original: _Original, j: dict, values: dict):
    from .ratings import Choices, Ratings
    from .study import Experiment, Study

    derived = _ratings_of(j, qc.name, model.rule)
    n = len(derived["rating"])
    q_o, s_o, i_o, e_o, r_o, v_o = original.ratings
    ratings = Ratings.from_columns(
        np.concatenate([q_o, derived["quality_criterion"]]),
        np.concatenate([s_o, derived["system"]]),
        np.concatenate([i_o, derived["item"]]),
        np.concatenate([e_o, np.full(n, "planned", dtype=object)]),
        np.concatenate([r_o, derived["rater"]]),
        np.concatenate([v_o, derived["rating"]]),
    )
    if original.choices is not None:  # annotator agreement is on the raw choices, not the derived ratings
        m = len(j["unit"])
        planned = (
            np.full(m, qc.name, dtype=object),
            np.full(m, "planned", dtype=object),
            j["unit"],
            j["rater"],
            j["code_system"],
            j["code_position"],
        )
        ratings.choices = Choices.from_columns(
            *(np.concatenate([a, b]) for a, b in zip(original.choices, planned)),
            coding={source: "system", "planned": "system"},
        )
    scores = {(qc.name, s, source): float(v) for s, v in zip(model.systems, original.values) if np.isfinite(v)}
    scores.update({(qc.name, s, "planned"): v for s, v in values.items() if np.isfinite(v)})
    how = model.rule.get("score", model.rule.get("layout"))  # the bootstrap refits Bradley-Terry values
    return Study(
        id="plan",
        quality_criteria=[qc],
        systems=list(model.systems),
        experiments=[Experiment(source, role="original"), Experiment("planned")],
        scores=scores,
        ratings=ratings,
        metadata={"annotations": {"comparative_scores": {qc.name: {source: how, "planned": how}}}},
    )


def _decisions(systems: list, j: dict, original: _Original, significance: float, cache: dict | None = None):
    """(share of the original's significant decisions that the reproduction's sign tests reproduce in
    the same direction, whether any of its pairs is significant), by the report's sign tests
    (:func:`~qra_widgets.measures.sign_tests`: scipy's two-sided ``binomtest`` on each pair's untied
    judgements, Holm-adjusted over the pairs) computed from the win counts, with the p-values
    cached by (wins, judgements): the same numbers, without a table per simulated reproduction."""
    from scipy.stats import binomtest

    from .measures.pairwise import holm

    cache = {} if cache is None else cache
    shown, best = j["_shown_index"], j["_best"]
    rows = np.flatnonzero(best >= 0)
    wins = np.zeros((len(systems), len(systems)), dtype=np.int64)
    np.add.at(wins, (shown[rows, best[rows]], shown[rows, 1 - best[rows]]), 1)
    x, y = np.triu_indices(len(systems), 1)
    judged = (wins[x, y] + wins[y, x]) > 0
    x, y = x[judged], y[judged]
    p = []
    for won, total in zip(wins[x, y].tolist(), (wins[x, y] + wins[y, x]).tolist()):
        if (won, total) not in cache:
            cache[(won, total)] = float(binomtest(won, total, 0.5).pvalue)
        p.append(cache[(won, total)])
    found = {
        frozenset((systems[a], systems[b])): systems[a] if wins[a, b] > wins[b, a] else systems[b]
        for a, b, q in zip(x, y, holm(p))
        if q < significance
    }
    hits = [found.get(frozenset((a, b))) == winner for a, b, winner in original.significant]
    return (float(np.mean(hits)) if hits else NAN), float(bool(found))


def check_comparative_plan(study, judgements_per_pair, B, runs, power_runs, seed, max_work) -> list[int]:
    """Check the grid of judgements per pair, the replicates, runs and seed, and the work, before
    anything is simulated (:func:`qra_widgets.limits.check_work`); returns the grid as a list."""
    from .limits import MAX_BOOTSTRAP, check_seed, check_work

    values = (
        [judgements_per_pair]
        if isinstance(judgements_per_pair, (str, bytes)) or not hasattr(judgements_per_pair, "__iter__")
        else list(judgements_per_pair)
    )
    high = MAX_JUDGEMENTS_PER_PAIR if max_work is None else max(10, int(max_work))
    if not values or len(values) > 100:
        raise QRAInputError(f"plan_reproduction: judgements_per_pair: give 1 to 100 whole numbers, got {len(values)}")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= high:
            raise QRAInputError(
                f"plan_reproduction: judgements_per_pair must be whole numbers from 1 to {high:,}, got {value!r}"
            )
    for name, value, low, top in (
        ("B (bootstrap replicates)", B, 10, MAX_BOOTSTRAP),
        ("runs", runs, 1, 1000),
        ("power_runs", power_runs, 1, 100_000),
    ):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= top:
            raise QRAInputError(
                f"plan_reproduction: {name}: must be a whole number from {low} to {top:,}, got {value!r}"
            )
    check_seed(seed)
    systems = len(study.systems)
    simulated = sum(int(v) * systems * (systems - 1) for v in values)  # at most 2 ratings per pair and judgement
    work = runs * B * (simulated + len(values) * len(study.ratings)) + power_runs * simulated
    check_work(
        "plan_reproduction",
        work,
        max_work,
        detail=f"{len(values)} designs x {runs} runs x {B:,} replicates over up to {simulated:,} simulated ratings",
    )
    return [int(v) for v in values]


def plan_comparative(
    study,
    qc,
    source: str,
    rule: dict,
    grid: list[int],
    *,
    B: int,
    runs: int,
    power_runs: int,
    rng: np.random.Generator,
    ci: float,
    conventions,
    significance: float,
    max_work,
) -> list[list]:
    """The plan's rows for one pairwise or best-worst criterion (see the module docstring)."""
    from scipy.stats import rankdata

    from . import measures as m
    from .assess import assess
    from .io.layout_pairwise import system_values

    model = choice_model(study, qc, source, rule)
    original = _original(study, qc, source, model, significance)
    if not np.all(np.isfinite(original.values)):
        raise QRAInputError(f"plan_reproduction: {source!r} has no value for every system on {qc.name!r}")
    eigenvalues, vectors = np.linalg.eigh(
        (model.covariance + model.covariance.T) / 2
    )  # singular: the strengths sum to 0
    root = vectors * np.sqrt(np.clip(eigenvalues, 0, None))
    from .progress import bar

    rows, cache = [], {}
    plan_bar = bar(len(grid) * max(runs, power_runs), f"plan {qc.name}", "run")  # on a terminal, after 2 s
    quiet = lambda _done: None  # the runs' bootstraps report through this bar, not their own
    for per_pair in grid:
        widths: dict[str, list] = {name: [] for name in WIDTH_MEASURES}
        points: dict[str, list] = {name: [] for name in WIDTH_MEASURES}
        chances: dict[str, list] = {name: [] for name in CHANCE_MEASURES}
        for run in range(max(runs, power_runs)):
            plan_bar.update(1)
            strength = model.strength + root @ rng.normal(size=len(model.systems))
            j = simulate_judgements(model, strength, per_pair, rng)
            j["quality_criterion"] = np.full(len(j["unit"]), qc.name, dtype=object)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                values = system_values([{k: v for k, v in j.items() if not k.startswith("_")}], model.rule)
                repro = np.array([values.get(s, NAN) for s in model.systems])
                if run < power_runs:
                    both = np.vstack([original.values, repro])
                    chances["ranking recovered"].append(
                        float(np.array_equal(rankdata(original.values), rankdata(repro)))
                    )
                    chances["decisions agree"].append(m.rank_agreement(both))
                    if original.tested:
                        reproduced, any_significant = _decisions(model.systems, j, original, significance, cache)
                        chances["significant decisions reproduced"].append(reproduced)
                        chances["any decision significant"].append(any_significant)
                if run < runs:
                    planned = _planned_study(qc, source, model, original, j, values)
                    result = assess(
                        planned,
                        conventions,
                        bootstrap=B,
                        seed=int(rng.integers(2**31)),
                        ci=ci,
                        max_work=max_work,
                        progress=quiet,
                    )
                    frame = result.to_frame()
                    for name in ("CV*", "r", "P"):
                        found = frame[(frame.measure == name) & (frame.level == "qc")]
                        if len(found):
                            points[name].append(float(found.value.iloc[0]))
                            widths[name].append(float(found.ci_high.iloc[0] - found.ci_low.iloc[0]))
                    means = result.system_means()
                    means = means[means.experiment == "planned"]
                    widths["value"].append(float((means.ci_high - means.ci_low).mean()))
        for name in WIDTH_MEASURES:
            defined = np.array([w for w in widths[name] if np.isfinite(w)])
            value = float(np.nanmean(points[name])) if points[name] and np.isfinite(points[name]).any() else NAN
            if defined.size:
                width, sd = float(defined.mean()), float(defined.std(ddof=1)) if defined.size > 1 else NAN
                p10, p90 = (float(x) for x in np.quantile(defined, [0.1, 0.9]))
            else:
                width = sd = p10 = p90 = NAN
            note = "" if defined.size else "no interval in any run"
            rows.append(
                [
                    "new items",
                    per_pair,
                    qc.name,
                    name,
                    value,
                    width,
                    width / 2,
                    sd,
                    p10,
                    p90,
                    NAN,
                    NAN,
                    int(defined.size),
                    note,
                ]
            )
        for name in CHANCE_MEASURES:
            found = np.array([c for c in chances[name] if np.isfinite(c)])
            note = ""
            if not original.tested and name in CHANCE_MEASURES[2:]:
                note = (
                    f"no sign tests: best-worst tuples of {model.tuples.shape[1]} systems (the report tests pairs only)"
                )
            elif name == "significant decisions reproduced" and not original.significant:
                note = f"the original has no significant pairwise decision (Holm-adjusted p < {significance:g})"
            chance = float(found.mean()) if found.size else NAN
            se = float(found.std(ddof=1) / math.sqrt(found.size)) if found.size > 1 else NAN
            rows.append(
                ["new items", per_pair, qc.name, name, NAN, NAN, NAN, NAN, NAN, NAN, chance, se, int(found.size), note]
            )
    plan_bar.close()
    return rows


def smallest_judgements(plan, *, measure: str = "significant decisions reproduced", target: float = 0.8) -> str:
    """One line: the smallest number of judgements per system pair whose chance (``measure`` a chance
    row, e.g. ``ranking recovered``) reaches ``target``, or whose expected interval width (``measure``
    ``CV*``, ``value``, ``r`` or ``P``) is at most ``target``, per criterion."""
    if measure not in CHANCE_MEASURES + WIDTH_MEASURES:
        raise QRAInputError(f"plan: measure must be one of {CHANCE_MEASURES + WIDTH_MEASURES}, got {measure!r}")
    column = "chance" if measure in CHANCE_MEASURES else "expected_ci_width"
    lines = []
    for qc, rows in plan[plan.measure == measure].groupby("quality_criterion", sort=False):
        rows = rows.sort_values("judgements_per_pair")
        met = rows[rows[column] >= target] if column == "chance" else rows[rows[column] <= target]
        what = (
            f"chance of '{measure}' >= {target:g}"
            if column == "chance"
            else f"expected {measure} interval width <= {target:g}"
        )
        if rows[column].isna().all():
            lines.append(f"{qc}: {measure} is not defined ({rows.note.iloc[0]})")
        elif len(met):
            row = met.iloc[0]
            lines.append(
                f"{qc}: {int(row.judgements_per_pair)} judgements per system pair give {what} "
                f"({row[column]:.3g}{f' +/- {row.chance_se:.2g}' if column == 'chance' else ''})"
            )
        else:
            row = rows.iloc[-1]
            lines.append(
                f"{qc}: no number planned gives {what}; {int(row.judgements_per_pair)} per pair give {row[column]:.3g}"
            )
    return "\n".join(lines) + "\n"
