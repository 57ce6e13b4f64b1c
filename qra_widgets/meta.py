"""Reproductions side by side: forest data, random-effects pooling and consistency verdicts.

QRA says how much a set of experiments' results vary.  The replication literature adds four
questions, answered here from an :class:`~qra_widgets.Assessment`:

* **Forest data** (:func:`forest`): each experiment's system value with its standard error and
  confidence interval, the original marked, a random-effects pooled estimate (REML, Viechtbauer
  2005, or DerSimonian & Laird 1986: the frame names the one used), Cochran's Q with its p, τ²
  and I² (Higgins & Thompson 2002; both floored at 0), and the prediction interval for the value
  of a new reproduction (Higgins, Thompson & Spiegelhalter 2009: t with k − 2 degrees of freedom,
  undefined below three experiments).
* **Consistency verdicts** (:func:`consistency`): per reproduction and system, whether the
  reproduction lies inside the 95% prediction interval that the original and both standard
  errors give (Patil, Peng & Leek 2016), whether it is equivalent to the original within
  ±``margin`` by two one-sided tests (TOST; Schuirmann 1987, Lakens 2017), and whether each
  pair of systems keeps its order.

The standard error of a system value comes from item-level ratings where the study has them
(each item's mean over its raters, then the standard error of their mean: items are the unit
sampled), else from ``standard_errors=`` or an annotation spec's ``{"value": v, "se": s}``
(a value a paper printed).  No standard error: the
experiment is drawn but not pooled, and its note says why.

Values and margins are in the criterion's scale units (the system means QRA starts from).

How much a published CV* depends on undocumented choices: :mod:`qra_widgets.sensitivity`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .errors import QRAInputError, undefined, undefined_summary
from .measures._validation import undefined_reason
from .pooling import (  # noqa: F401  (re-exported: the pooling behind the forest)
    CI_METHODS,
    ESTIMATORS,
    Pooled,
    _generalised_q,
    _restricted_loglik,
    q_profile,
    random_effects,
    typical_variance,
)
from .standard_errors import (  # noqa: F401  (re-exported: the forest's standard errors)
    MEDIAN_B,
    MEDIAN_SEED,
    _item_value_counts,
    _standard_errors,
    item_standard_errors,
    reported_standard_errors,
    resampled_medians,
)

if TYPE_CHECKING:
    import pandas as pd

    from .assess import Assessment
    from .study import Study

FOREST_COLUMNS = [
    "row",
    "quality_criterion",
    "system",
    "experiment",
    "label",
    "role",
    "original",
    "value",
    "se",
    "n",
    "ci_low",
    "ci_high",
    "weight",
    "estimator",
    "ci_method",
    "tau2",
    "tau2_low",
    "tau2_high",
    "i2",
    "i2_low",
    "i2_high",
    "q",
    "q_df",
    "q_p",
    "k",
    "note",
]
CONSISTENCY_COLUMNS = [
    "quality_criterion",
    "system",
    "experiment",
    "original_experiment",
    "original_value",
    "value",
    "difference",
    "se_difference",
    "pi_low",
    "pi_high",
    "inside_pi",
    "margin",
    "tost_p",
    "equivalent",
    "order_kept",
    "pairs_compared",
    "note",
]


# ----------------------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Equivalence:
    """Two one-sided z tests of ``|difference| < margin`` (see :func:`tost`)."""

    difference: float
    se: float
    margin: float
    z_lower: float
    p_lower: float
    z_upper: float
    p_upper: float
    p: float
    ci_low: float
    ci_high: float
    alpha: float
    equivalent: bool


def tost(difference: float, se: float, *, margin: float, alpha: float = 0.05) -> Equivalence:
    """Equivalence of ``difference`` to 0 within ``±margin`` by two one-sided z tests (TOST).

    ``z_lower = (d + margin)/se`` tests H01 ``d ≤ −margin``; ``z_upper = (d − margin)/se``
    tests H02 ``d ≥ margin``; equivalence is declared when ``p = max(p_lower, p_upper) < alpha``,
    which is when the ``1 − 2 alpha`` interval ``d ± z se`` lies inside ``(−margin, margin)``
    (Schuirmann 1987; Lakens 2017, the meta-analytic form with a standard error).  ``margin``
    is in the units of ``difference`` and is recorded with the result.

    >>> e = tost(0.12, 0.09, margin=0.2)
    >>> round(e.z_lower, 2), round(e.p_lower, 4), round(e.z_upper, 3), round(e.p_upper, 3), e.equivalent
    (3.56, 0.0002, -0.889, 0.187, False)
    """
    from scipy import stats

    if not (isinstance(margin, (int, float)) and not isinstance(margin, bool) and math.isfinite(margin) and margin > 0):
        raise QRAInputError(f"margin: must be a positive number in the criterion's scale units, got {margin!r}")
    if not 0 < alpha < 0.5:
        raise QRAInputError(f"alpha: must be between 0 and 0.5, got {alpha!r}")
    if not (math.isfinite(difference) and math.isfinite(se) and se > 0):
        reason = f"TOST is undefined: difference {difference:g} with standard error {se:g}"
        nan = undefined(reason)
        return Equivalence(difference, se, margin, nan, nan, nan, nan, nan, nan, nan, alpha, False)
    z_lower = (difference + margin) / se
    z_upper = (difference - margin) / se
    p_lower, p_upper = float(stats.norm.sf(z_lower)), float(stats.norm.cdf(z_upper))
    half = float(stats.norm.ppf(1 - alpha)) * se
    p = max(p_lower, p_upper)
    return Equivalence(
        difference,
        se,
        float(margin),
        z_lower,
        p_lower,
        z_upper,
        p_upper,
        p,
        difference - half,
        difference + half,
        alpha,
        bool(p < alpha),
    )


def replication_interval(
    original: float, se_original: float, se_replication: float, *, level: float = 0.95
) -> tuple[float, float]:
    """The prediction interval for a replication's estimate given the original's (Patil, Peng
    & Leek 2016): ``original ± z sqrt(se_original² + se_replication²)``; both estimates vary
    around one true value, so the replication falls inside with probability ``level``.

    >>> [round(x, 4) for x in replication_interval(3.0, 0.1, 0.2)]
    [2.5617, 3.4383]
    """
    from scipy import stats

    if not 0 < level < 1:
        raise QRAInputError(f"level: must be between 0 and 1, got {level!r}")
    half = float(stats.norm.ppf(0.5 + level / 2)) * math.sqrt(se_original**2 + se_replication**2)
    return original - half, original + half


# ----------------------------------------------------------------------------- forest


def _original_id(study: Study) -> str | None:
    originals = [e.id for e in study.experiments if e.role == "original"]
    return originals[0] if originals else None


@undefined_summary("forest")
def forest(
    assessment: Assessment,
    *,
    quality_criterion: str,
    system: str | None = None,
    method: str = "reml",
    ci: float = 0.95,
    standard_errors: dict | None = None,
    ci_method: str = "hksj",
) -> pd.DataFrame:
    """The forest-plot frame of one criterion: for ``system`` (or each system), one
    ``row="experiment"`` per experiment with a value, then a ``row="pooled"`` row (the
    random-effects estimate and its ``ci`` interval, from :func:`random_effects` with ``method``
    and ``ci_method``: Knapp–Hartung by default, ``"z"`` for the normal interval)
    and a ``row="prediction"`` row (the prediction interval for a new reproduction, nan with its
    reason when fewer than three experiments have a standard error).

    Columns: :data:`FOREST_COLUMNS`.  ``value`` is the system's score in the criterion's scale
    units, ``se`` its standard error (``note`` says where it came from), ``ci_low``/``ci_high``
    ``value ± z se``; ``original`` marks the experiment whose role is ``original``; ``weight``
    is the random-effects weight in percent.  The pooled row carries ``estimator`` (its name),
    ``ci_method`` (the interval's), ``se`` (the standard error that interval uses), ``tau2`` with
    its Q-profile interval ``tau2_low``/``tau2_high``, ``i2`` (percent) with ``i2_low``/``i2_high``
    (from the τ² interval, as metafor's ``confint``), ``q``, ``q_df``, ``q_p`` and ``k``.
    With the study's aggregation ``median`` (an annotation spec's ``aggregation``), an
    experiment's ``se`` is the bootstrap standard error of its median (:func:`item_standard_errors`).
    ``standard_errors`` maps ``(quality_criterion, system, experiment)`` to a published standard
    error for experiments without item-level ratings.

    Parameters
    ----------
    assessment : Assessment
        The assessment of the study (:func:`qra_widgets.assess`).
    quality_criterion : str
        The criterion whose forest plot is built.
    system : str, optional
        Only this system; default: each system.
    method : str, default "reml"
        The random-effects estimator of :func:`random_effects`.
    ci : float, default 0.95
        Coverage of the experiments' and the pooled intervals, and of the prediction interval.
    standard_errors : dict, optional
        ``(quality_criterion, system, experiment)`` -> a published standard error.
    ci_method : {"hksj", "z"}, default "hksj"
        The pooled interval: Knapp–Hartung / Sidik–Jonkman (t on k − 1 df with the rescaled
        standard error, metafor's ``test="knha"``) or the normal interval; any case.

    Returns
    -------
    pandas.DataFrame
        One row per experiment, then the pooled and the prediction rows; columns
        :data:`FOREST_COLUMNS`.
    """
    import pandas as pd
    from scipy import stats

    study = assessment.study
    study.quality_criterion(quality_criterion, "quality_criterion")
    if system is not None and system not in study.systems:
        raise QRAInputError(f"system: {system!r} is not one of the study's systems {study.systems}")
    from .uncertainty import aggregation_of

    ses = _standard_errors(study, quality_criterion, standard_errors)
    original = _original_id(study)
    median = aggregation_of(study) == "median"
    z = float(stats.norm.ppf(0.5 + ci / 2))
    rows = []
    for name in [system] if system is not None else study.systems:
        members = []
        for experiment in study.experiments:
            value = study.scores.get((quality_criterion, name, experiment.id))
            if value is None:
                continue
            se, n, source = ses.get((name, experiment.id), (float("nan"), None, ""))
            items_note = (
                f"bootstrap standard error of the median over {n} items"
                if median
                else f"standard error from {n} items' mean ratings"
            )
            note = {"items": items_note, "given": "published standard error"}.get(
                source, "no standard error: no item-level ratings and none given, so not pooled"
            )
            if source and not math.isfinite(se):
                note = "standard error undefined: one item"
            rows.append(
                {
                    "row": "experiment",
                    "quality_criterion": quality_criterion,
                    "system": name,
                    "experiment": experiment.id,
                    "label": experiment.display_name,
                    "role": experiment.role,
                    "original": experiment.id == original,
                    "value": float(value),
                    "se": se,
                    "n": n,
                    "ci_low": value - z * se,
                    "ci_high": value + z * se,
                    "note": note,
                }
            )
            if math.isfinite(se) and se > 0:
                members.append(len(rows) - 1)
        if not any(r["system"] == name for r in rows):
            continue
        pooled = random_effects(
            [rows[i]["value"] for i in members],
            [rows[i]["se"] for i in members],
            method=method,
            ci=ci,
            ci_method=ci_method,
        )
        if members and math.isfinite(pooled.tau2):
            weights = 1.0 / (np.array([rows[i]["se"] for i in members]) ** 2 + pooled.tau2)
            for i, w in zip(members, weights / weights.sum()):
                rows[i]["weight"] = 100.0 * float(w)
        common = {
            "quality_criterion": quality_criterion,
            "system": name,
            "original": False,
            "estimator": pooled.estimator,
            "ci_method": pooled.ci_method,
            "k": pooled.k,
        }
        rows.append(
            {
                **common,
                "row": "pooled",
                "experiment": "",
                "label": f"Pooled ({pooled.estimator})",
                "value": pooled.estimate,
                "se": pooled.se,
                "ci_low": pooled.ci_low,
                "ci_high": pooled.ci_high,
                "tau2": pooled.tau2,
                "tau2_low": pooled.tau2_low,
                "tau2_high": pooled.tau2_high,
                "i2": 100.0 * pooled.i2,
                "i2_low": 100.0 * pooled.i2_low,
                "i2_high": 100.0 * pooled.i2_high,
                "q": pooled.q,
                "q_df": pooled.q_df,
                "q_p": pooled.q_p,
                "note": "" if pooled.k >= 2 else pooled.note,
            }
        )
        rows.append(
            {
                **common,
                "row": "prediction",
                "experiment": "",
                "label": "Prediction interval (new reproduction)",
                "value": pooled.estimate,
                "ci_low": pooled.pi_low,
                "ci_high": pooled.pi_high,
                "note": pooled.note,
            }
        )
    frame = pd.DataFrame(rows, columns=FOREST_COLUMNS)
    frame["n"] = frame["n"].astype("Int64")
    frame["q_df"] = frame["q_df"].astype("Int64")
    frame["k"] = frame["k"].astype("Int64")
    frame["original"] = frame["original"].fillna(False).astype(bool)
    for column in ("estimator", "ci_method", "experiment", "label", "role", "note"):
        frame[column] = frame[column].fillna("")
    frame.attrs["method"] = method.lower()
    frame.attrs["ci_method"] = ci_method.lower()
    frame.attrs["ci"] = ci
    return frame


# ----------------------------------------------------------------------------- leave one out

LEAVE_ONE_OUT_COLUMNS = [
    "quality_criterion",
    "system",
    "left_out",
    "label",
    "original",
    "value",
    "k",
    "estimate",
    "ci_low",
    "ci_high",
    "ci_method",
    "tau2",
    "i2",
    "q",
    "q_p",
    "shift",
    "deleted_residual",
    "outside_full_ci",
    "influential",
    "note",
]


def leave_one_out(
    assessment: Assessment,
    *,
    quality_criterion: str,
    system: str | None = None,
    method: str = "reml",
    ci_method: str = "hksj",
    ci: float = 0.95,
    standard_errors: dict | None = None,
) -> pd.DataFrame:
    """Leave-one-out pooling: for ``system`` (or each system), one row per experiment that the
    forest pools (:func:`forest`), with the random-effects estimate and interval of the *other*
    experiments (:func:`random_effects` with ``method`` and ``ci_method``).

    ``shift`` is that estimate minus the estimate of all of them.  ``deleted_residual`` is the
    standardised deleted residual of the left-out value, ``(y_i − μ̂_(−i)) /
    sqrt(se_i² + τ̂²_(−i) + SE(μ̂_(−i))²)`` (Viechtbauer & Cheung 2010, eq. 11).  An experiment
    is ``influential`` when ``|deleted_residual|`` exceeds the normal ``ci`` quantile (1.96) or
    leaving it out moves the pooled estimate outside the interval of all of them
    (``outside_full_ci``).  With fewer than three pooled experiments the rest cannot be pooled:
    the row is nan and ``note`` says why.  Columns: :data:`LEAVE_ONE_OUT_COLUMNS`.

    Parameters
    ----------
    assessment : Assessment
        The assessment of the study (:func:`qra_widgets.assess`).
    quality_criterion : str
        The criterion whose experiments are pooled.
    system : str, optional
        Only this system; default: each system.
    method : {"reml", "dl"}, default "reml"
        The random-effects estimator (any case).
    ci_method : {"hksj", "z"}, default "hksj"
        The pooled interval of the rest (Knapp–Hartung, or normal).
    ci : float, default 0.95
        Coverage of the intervals, and the quantile that flags a deleted residual.
    standard_errors : dict, optional
        ``(quality_criterion, system, experiment)`` -> a published standard error.

    Returns
    -------
    pandas.DataFrame
        One row per (system, left-out experiment); columns :data:`LEAVE_ONE_OUT_COLUMNS`.
    """
    import warnings

    import pandas as pd
    from scipy import special

    z = float(special.ndtri(0.5 + ci / 2))
    full = forest(
        assessment,
        quality_criterion=quality_criterion,
        system=system,
        method=method,
        ci=ci,
        standard_errors=standard_errors,
        ci_method=ci_method,
    )
    rows = []
    for name, block in full.groupby("system", sort=False):
        members = block[(block.row == "experiment") & np.isfinite(block.se.astype(float))]
        pooled = block[block.row == "pooled"].iloc[0]
        for i, left in enumerate(members.itertuples(index=False)):
            rest = members.drop(members.index[i])
            row = {
                "quality_criterion": quality_criterion,
                "system": name,
                "left_out": left.experiment,
                "label": left.label,
                "original": bool(left.original),
                "value": float(left.value),
                "k": len(rest),
                "ci_method": pooled.ci_method,
            }
            if len(rest) < 2:
                reason = undefined_reason(
                    "leave-one-out pooling", count=(len(members), 3, "experiments with a standard error")
                )
                rows.append({**row, "influential": pd.NA, "outside_full_ci": pd.NA, "note": reason})
                continue
            with warnings.catch_warnings():  # the rest's prediction interval is not reported here
                warnings.simplefilter("ignore")
                other = random_effects(
                    rest.value.to_numpy(float), rest.se.to_numpy(float), method=method, ci=ci, ci_method=ci_method
                )
            residual = (left.value - other.estimate) / math.sqrt(left.se**2 + other.tau2 + other.se_model**2)
            outside = not (pooled.ci_low <= other.estimate <= pooled.ci_high)
            rows.append(
                {
                    **row,
                    "estimate": other.estimate,
                    "ci_low": other.ci_low,
                    "ci_high": other.ci_high,
                    "tau2": other.tau2,
                    "i2": 100.0 * other.i2,
                    "q": other.q,
                    "q_p": other.q_p,
                    "shift": other.estimate - pooled.value,
                    "deleted_residual": residual,
                    "outside_full_ci": outside,
                    "influential": bool(abs(residual) > z or outside),
                    "note": "",
                }
            )
    frame = pd.DataFrame(rows, columns=LEAVE_ONE_OUT_COLUMNS)
    frame["k"] = frame["k"].astype("Int64")
    frame["influential"] = frame["influential"].astype("boolean")
    frame["outside_full_ci"] = frame["outside_full_ci"].astype("boolean")
    frame["note"] = frame["note"].fillna("")
    frame.attrs.update(method=method.lower(), ci_method=ci_method.lower(), ci=ci)
    return frame


# ----------------------------------------------------------------------------- consistency


def consistency(
    assessment: Assessment,
    *,
    margin: float | dict,
    quality_criterion: str | None = None,
    level: float = 0.95,
    alpha: float = 0.05,
    standard_errors: dict | None = None,
) -> pd.DataFrame:
    """Consistency verdicts of each reproduction with the original, per criterion and system.

    * ``inside_pi``: the reproduction's value lies in the ``level`` prediction interval of
      :func:`replication_interval` (Patil, Peng & Leek 2016) built from the original's value and
      both standard errors;
    * ``equivalent``: :func:`tost` of ``reproduction − original`` (standard error
      ``sqrt(se_o² + se_r²)``) within ``±margin`` at ``alpha``; ``tost_p`` is its p-value;
    * ``order_kept``: the share of pairs of systems, among those the original orders (no tie)
      and the reproduction scores, that the reproduction orders the same way.

    ``margin`` is required, in the criterion's scale units (a number, or a mapping from
    criterion name to number), and recorded in each row.  Needs an experiment with the role
    ``original``.  Columns: :data:`CONSISTENCY_COLUMNS`.

    Parameters
    ----------
    assessment : Assessment
        The assessment of the study (:func:`qra_widgets.assess`).
    margin : float or dict
        The equivalence margin in the criterion's scale units, or criterion name -> margin.
    quality_criterion : str, optional
        Only this criterion; default: each criterion.
    level : float, default 0.95
        Level of the prediction interval.
    alpha : float, default 0.05
        Significance level of the equivalence test.
    standard_errors : dict, optional
        ``(quality_criterion, system, experiment)`` -> a published standard error, for
        experiments without item-level ratings.

    Returns
    -------
    pandas.DataFrame
        One row per reproduction, criterion and system; columns :data:`CONSISTENCY_COLUMNS`.
    """
    import pandas as pd

    study = assessment.study
    original = _original_id(study)
    if original is None:
        raise QRAInputError("experiments: consistency needs an experiment whose role is 'original'")
    criteria = [quality_criterion] if quality_criterion is not None else study.qc_names
    margins = margin if isinstance(margin, dict) else {qc: margin for qc in criteria}
    rows = []
    for qc in criteria:
        study.quality_criterion(qc, "quality_criterion")
        if qc not in margins:
            raise QRAInputError(f"margin: no margin given for quality criterion {qc!r}")
        m = margins[qc]
        if not (isinstance(m, (int, float)) and not isinstance(m, bool) and math.isfinite(m) and m > 0):
            raise QRAInputError(f"margin: must be a positive number in the scale units of {qc!r}, got {m!r}")
        ses = _standard_errors(study, qc, standard_errors)
        base = {s: study.scores.get((qc, s, original)) for s in study.systems}
        for experiment in study.experiments:
            if experiment.id == original:
                continue
            mine = {s: study.scores.get((qc, s, experiment.id)) for s in study.systems}
            pairs = kept = 0
            scored = [s for s in study.systems if base[s] is not None and mine[s] is not None]
            for i, a in enumerate(scored):
                for b in scored[i + 1 :]:
                    if base[a] == base[b]:
                        continue
                    pairs += 1
                    kept += (base[a] - base[b]) * (mine[a] - mine[b]) > 0
            order = kept / pairs if pairs else float("nan")
            for s in scored:
                se_o = ses.get((s, original), (float("nan"),))[0]
                se_r = ses.get((s, experiment.id), (float("nan"),))[0]
                difference = mine[s] - base[s]
                row = {
                    "quality_criterion": qc,
                    "system": s,
                    "experiment": experiment.id,
                    "original_experiment": original,
                    "original_value": base[s],
                    "value": mine[s],
                    "difference": difference,
                    "margin": float(m),
                    "order_kept": order,
                    "pairs_compared": pairs,
                    "note": "",
                }
                if math.isfinite(se_o) and math.isfinite(se_r) and se_o > 0 and se_r > 0:
                    low, high = replication_interval(base[s], se_o, se_r, level=level)
                    test = tost(difference, math.hypot(se_o, se_r), margin=float(m), alpha=alpha)
                    row.update(
                        se_difference=test.se,
                        pi_low=low,
                        pi_high=high,
                        inside_pi=bool(low <= mine[s] <= high),
                        tost_p=test.p,
                        equivalent=test.equivalent,
                    )
                else:
                    missing = " and ".join(
                        w
                        for w, se in (("original", se_o), ("reproduction", se_r))
                        if not (math.isfinite(se) and se > 0)
                    )
                    row.update(
                        se_difference=float("nan"),
                        pi_low=float("nan"),
                        pi_high=float("nan"),
                        inside_pi=pd.NA,
                        tost_p=float("nan"),
                        equivalent=pd.NA,
                        note=f"no verdict: no standard error for the {missing} (no item-level ratings, none given)",
                    )
                rows.append(row)
    frame = pd.DataFrame(rows, columns=CONSISTENCY_COLUMNS)
    frame["inside_pi"] = frame["inside_pi"].astype("boolean")
    frame["equivalent"] = frame["equivalent"].astype("boolean")
    frame.attrs.update(margin=margins, level=level, alpha=alpha)
    return frame


# ----------------------------------------------------------------------------- rank intervals

RANK_COLUMNS = [
    "quality_criterion",
    "experiment",
    "system",
    "value",
    "rank",
    "rank_low",
    "rank_high",
    "group",
    "B",
    "seed",
    "note",
]


def rank_intervals(
    study: Study, *, quality_criterion: str, B: int = 1000, seed: int | None = None, ci: float = 0.95
) -> pd.DataFrame:
    """Each system's rank in each experiment (1 = highest value; ties share the mean rank) with a
    bootstrap percentile interval, and the groups of systems whose order is not resolved.

    The bootstrap resamples each system's items with replacement (its items' mean ratings), B
    times, and ranks the resampled system means (the medians of the ratings drawn, when the
    study's aggregation is ``median``); ``rank_low``/``rank_high`` are the ``ci``
    percentile interval of a system's ranks.  Groups: systems in observed rank order, a new group
    starting where a system's whole interval lies below (``rank_low`` greater than) every
    interval of the group so far, so systems in one group are not separated by the data
    (the clustering of WMT's rank ranges).  An experiment without item-level ratings gets its
    observed ranks and no interval (``note`` says why).
    """
    import pandas as pd
    from scipy import stats

    if not (isinstance(B, int) and B >= 10):
        raise QRAInputError(f"B: must be an integer of at least 10, got {B!r}")
    study.quality_criterion(quality_criterion, "quality_criterion")
    rng = np.random.default_rng(seed)
    from .uncertainty import aggregation_of

    rated = bool(study.ratings) and quality_criterion in study.ratings.criteria()
    median = aggregation_of(study) == "median"
    item_means, item_counts = {}, {}
    if rated:
        frame = study.ratings.frame()
        frame = frame[frame.quality_criterion == quality_criterion]
        for (system, experiment), rows in frame.groupby(["system", "experiment"], sort=False):
            item_means[(system, experiment)] = rows.groupby("item", sort=False).rating.mean().to_numpy(dtype=float)
            if median:
                item_counts[(system, experiment)] = _item_value_counts(rows)
    tail = (1 - ci) / 2 * 100
    out = []
    for experiment in study.experiment_ids:
        systems = [s for s in study.systems if (quality_criterion, s, experiment) in study.scores]
        if not systems:
            continue
        values = np.array([study.scores[(quality_criterion, s, experiment)] for s in systems], dtype=float)
        observed = stats.rankdata(-values)
        have = all((s, experiment) in item_means and len(item_means[(s, experiment)]) > 1 for s in systems)
        if have and len(systems) > 1:
            if median:  # the statistic that was reported: each replicate's median of the ratings drawn
                columns = []
                for s in systems:
                    counts, values = item_counts[(s, experiment)]
                    drawn = rng.multinomial(len(counts), np.full(len(counts), 1.0 / len(counts)), size=B)
                    columns.append(resampled_medians(counts, values, drawn.astype(float)))
                draws = np.column_stack(columns)
            else:
                draws = np.column_stack(
                    [
                        m[rng.integers(0, len(m), size=(B, len(m)))].mean(axis=1)
                        for m in (item_means[(s, experiment)] for s in systems)
                    ]
                )
            ranks = stats.rankdata(-draws, axis=1)
            low, high = np.percentile(ranks, tail, axis=0), np.percentile(ranks, 100 - tail, axis=0)
            note = ""
        else:
            low = high = np.full(len(systems), np.nan)
            note = "no interval: no item-level ratings for every system" if len(systems) > 1 else "one system"
        order = np.argsort(observed, kind="stable")
        group, reach, groups = 0, -np.inf, np.zeros(len(systems), dtype=int)
        for position in order:
            if math.isnan(low[position]):
                group += 1
            elif group == 0 or low[position] > reach:
                group += 1
                reach = high[position]
            else:
                reach = max(reach, high[position])
            groups[position] = group
        for i, system in enumerate(systems):
            out.append(
                {
                    "quality_criterion": quality_criterion,
                    "experiment": experiment,
                    "system": system,
                    "value": values[i],
                    "rank": observed[i],
                    "rank_low": low[i],
                    "rank_high": high[i],
                    "group": int(groups[i]),
                    "B": B if not note else 0,
                    "seed": seed,
                    "note": note,
                }
            )
    return pd.DataFrame(out, columns=RANK_COLUMNS)


# ----------------------------------------------------------------------------- verdicts in the template and narrative


def _verdict_text(row) -> str:
    """``"2/2 in PI, 1/2 equivalent (±0.2)"`` for the verdict rows of one system."""
    known = row.dropna(subset=["inside_pi"]) if hasattr(row, "dropna") else row
    if not len(known):
        return "n/a"
    inside = int(known["inside_pi"].astype(bool).sum())
    equivalent = int(known["equivalent"].astype(bool).sum())
    return f"{inside}/{len(known)} in PI, {equivalent}/{len(known)} equivalent (±{known['margin'].iloc[0]:g})"


def template_with_consistency(
    assessment: Assessment, *, margin: float | dict, standard_errors: dict | None = None, **table_options
) -> pd.DataFrame:
    """The QRA++ template (:meth:`Assessment.table`) with a ``Consistency`` column: on each
    Type I system row, how many reproductions lie inside the original's prediction interval and
    how many are equivalent within ``±margin`` (:func:`consistency`, with ``standard_errors``), e.g.
    ``"2/3 in PI, 1/3 equivalent (±0.2)"``; ``n/a`` where no verdict can be given."""
    table = assessment.table(**table_options)
    verdicts = consistency(assessment, margin=margin, standard_errors=standard_errors)
    column = []
    qc = None
    multi = len(assessment.study.qc_names) > 1
    for kind, measure in zip(table["Type of result"], table["Measure applied"]):
        label = str(kind).strip()
        if label.startswith("Type"):
            qc = label.split(":", 1)[1].strip() if ":" in label else (assessment.study.qc_names[0] if not multi else qc)
            column.append("")
            continue
        if measure == "CV*" and label and qc is not None:
            mine = verdicts[(verdicts.quality_criterion == qc) & (verdicts.system == label)]
            column.append(_verdict_text(mine) if len(mine) else "n/a")
        else:
            column.append("")
    table["Consistency"] = column
    table.attrs["margin"] = verdicts.attrs["margin"]
    return table


def consistency_narrative(verdicts: pd.DataFrame, *, quality_criterion: str, system: str) -> str:
    """One sentence per reproduction of ``system`` from :func:`consistency`'s frame, to follow
    :meth:`Assessment.narrative`."""
    rows = verdicts[(verdicts.quality_criterion == quality_criterion) & (verdicts.system == system)]
    if not len(rows):
        raise QRAInputError(f"consistency: no verdict for {system!r} on {quality_criterion!r}")
    sentences = []
    for row in rows.itertuples(index=False):
        if row.note:
            sentences.append(f"{row.experiment}: {row.note}.")
            continue
        where = "inside" if row.inside_pi else "outside"
        same = "equivalent" if row.equivalent else "not shown equivalent"
        sentences.append(
            f"{row.experiment} ({row.value:.3g}) lies {where} the 95% prediction interval "
            f"[{row.pi_low:.3g}, {row.pi_high:.3g}] of the original ({row.original_value:.3g}; Patil, Peng & Leek "
            f"2016) and is {same} to it within ±{row.margin:g} (TOST p = {row.tost_p:.3g})."
        )
    return " ".join(sentences)
