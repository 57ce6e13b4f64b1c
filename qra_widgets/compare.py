"""Reading reproducibility against how similar the experiments were (QRA++ section 4).

* :func:`property_differences` -- which experiments differ in which property or condition
  of measurement, and the share of identical ones for each pair of experiments;
* :func:`compare_subsets` -- QRA++ Table 6 generalised: group the experiments by a
  property's value (or explicitly), assess each group, show mean CV*, W (tau for n = 2)
  and P side by side;
* :func:`two_phase` -- Belz (2021) Figure 3: repeatability R0 on a subset run under
  identical conditions, reproducibility R, and R - R0;
* :func:`property_effects` -- across many studies: mean CV* and P where a property was the
  same in every experiment versus where it differed.

An experiment's *attributes* are its property answers (per-criterion answers as
``"H4.2.1 [Fluency]"``) and its conditions of measurement (``"procedure: Test set"``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from .assess import Assessment, assess
from .errors import QRAInputError
from .study import Experiment, Study

NOT_GIVEN = "(not given)"
CONDITION_TITLES = {
    "object": "Object conditions",
    "method": "Measurement method conditions",
    "procedure": "Measurement procedure conditions",
}


def _text(value) -> str:
    if isinstance(value, list):
        return "; ".join(sorted(map(str, value)))
    return str(value)


def experiment_attributes(experiment: Experiment) -> dict[str, str]:
    """Property answers and conditions of measurement of one experiment, as comparable text."""
    attributes: dict[str, str] = {}
    for property_id, value in experiment.properties.items():
        if isinstance(value, dict):
            attributes.update({f"{property_id} [{criterion}]": _text(v) for criterion, v in value.items()})
        else:
            attributes[property_id] = _text(value)
    for group, pairs in experiment.conditions.items():
        attributes.update({f"{group}: {name}": value for name, value in pairs.items()})
    return attributes


@dataclass
class PropertyDifferences:
    """``table``: attributes x experiments (plus ``differs``); ``similarity``: experiment x
    experiment share of identical attributes among those both experiments answer."""

    table: object
    similarity: object
    compared: object

    @property
    def differing(self) -> list[str]:
        return [name for name, differs in self.table["differs"].items() if differs]


def property_differences(study: Study) -> PropertyDifferences:
    """Which experiments differ in which attribute, and how similar each pair of experiments is.

    An attribute *differs* when two experiments that both give it give different values;
    an experiment that does not give it is shown as ``(not given)`` and is not counted.
    """
    import pandas as pd

    ids = study.experiment_ids
    attributes = {e.id: experiment_attributes(e) for e in study.experiments}
    names = sorted({name for values in attributes.values() for name in values})
    table = pd.DataFrame(
        {e: [attributes[e].get(n, NOT_GIVEN) for n in names] for e in ids}, index=pd.Index(names, name="attribute")
    )
    table["differs"] = [len({attributes[e][n] for e in ids if n in attributes[e]}) > 1 for n in names]
    similarity = pd.DataFrame(np.eye(len(ids)), index=ids, columns=ids)
    compared = pd.DataFrame(0, index=ids, columns=ids)
    for a, b in combinations(ids, 2):
        shared = [n for n in names if n in attributes[a] and n in attributes[b]]
        same = sum(attributes[a][n] == attributes[b][n] for n in shared)
        share = same / len(shared) if shared else np.nan
        similarity.loc[a, b] = similarity.loc[b, a] = share
        compared.loc[a, b] = compared.loc[b, a] = len(shared)
    return PropertyDifferences(table, similarity, compared)


def conditions_table(study: Study, quality_criterion: str | None = None):
    """One row per measurement, in the layout of QRA 2022 Tables 3, 5 and 7.

    Columns: object (system), measurand (QC), then the conditions of measurement grouped
    by ``object``, ``method`` and ``procedure`` (a two-level header), the measured
    quantity value, and the CV* of that system and QC.
    """
    import pandas as pd

    qcs = [quality_criterion] if quality_criterion else study.qc_names
    result = assess(study)
    names = {
        g: list(dict.fromkeys(n for e in study.experiments for n in e.conditions.get(g, {}))) for g in CONDITION_TITLES
    }
    rows, keys = [], []
    for qc in qcs:
        for system in study.systems:
            for experiment in study.experiments:
                if (qc, system, experiment.id) not in study.scores:
                    continue
                row = [system, qc]
                row += [experiment.conditions.get(g, {}).get(n, "?") for g in names for n in names[g]]
                cv = result.cv.get((qc, system))
                rows.append(row + [study.scores[(qc, system, experiment.id)], cv.cv_star if cv else np.nan])
                keys.append(experiment.id)
    columns = [("", "Object"), ("", "Measurand")]
    columns += [(CONDITION_TITLES[g], n) for g in names for n in names[g]]
    columns += [("", "Measured quantity value"), ("", "CV*")]
    return pd.DataFrame(rows, columns=pd.MultiIndex.from_tuples(columns), index=pd.Index(keys, name="experiment"))


# ----------------------------------------------------------------------------- subsets

HEADLINE = ("CV*", "W", "P")


def headline_values(result: Assessment) -> dict[str, float]:
    """Study-level mean CV*, W (tau when n = 2; mean over QCs) and pooled P of an assessment."""
    frame = result.to_frame()
    values = {}
    study_rows = frame[frame.level == "study"]
    for measure in ("CV*", "P"):
        hit = study_rows[study_rows.measure == measure]
        values[measure] = float(hit.value.iloc[0]) if len(hit) else np.nan
    concordance = frame[(frame.level == "qc") & frame.measure.isin(["W", "tau"])]
    values["W"] = float(concordance.value.mean()) if len(concordance) else np.nan
    values["W is tau"] = bool(len(concordance)) and bool((concordance.measure == "tau").all())
    return values


@dataclass
class SubsetComparison:
    """QRA++ Table 6 generalised: ``table`` is the side-by-side layout, ``assessments`` the details."""

    groups: dict[str, list[str]]
    assessments: dict[str, Assessment]
    table: object
    skipped: dict[str, str] = field(default_factory=dict)


def _groups_by(study: Study, attributes: str | list[str]) -> dict[str, list[str]]:
    names = [attributes] if isinstance(attributes, str) else list(attributes)
    groups: dict[str, list[str]] = {}
    for experiment in study.experiments:
        given = experiment_attributes(experiment)
        key = ", ".join(f"{name} = {given.get(name, NOT_GIVEN)}" for name in names)
        groups.setdefault(key, []).append(experiment.id)
    return groups


def compare_subsets(
    study: Study, by: str | list[str] | None = None, subsets: dict[str, list[str]] | None = None
) -> SubsetComparison:
    """Assess groups of experiments and show mean CV*, W (or tau) and P side by side.

    Group ``by`` the value of one attribute or the combination of several (see
    :func:`experiment_attributes`), or give explicit
    ``subsets`` ({name: [experiment ids]}).  A group with fewer than two experiments is
    listed in ``skipped``.  Rows: Type I mean CV* (lower is better), Type II W (tau when the
    group has two experiments; mean over QCs), Type IV P; columns: groups with their n.
    """
    import pandas as pd

    if (by is None) == (subsets is None):
        raise QRAInputError("compare_subsets: give either `by` (an attribute) or `subsets` (explicit groups)")
    groups = _groups_by(study, by) if by is not None else {str(k): list(v) for k, v in subsets.items()}
    assessments, skipped, columns = {}, {}, {}
    for name, ids in groups.items():
        if len(ids) < 2:
            skipped[name] = f"only {len(ids)} experiment"
            continue
        try:
            assessments[name] = assess(study.subset(ids))
        except QRAInputError as error:
            skipped[name] = str(error)
            continue
        values = headline_values(assessments[name])
        columns[f"{name} (n = {len(ids)})"] = [values["CV*"], values["W"], values["P"]]
    any_tau = any(headline_values(a)["W is tau"] for a in assessments.values())
    index = ["Type I: mean CV* ↓", "Type II: W ↑" + (" (τ where n = 2)" if any_tau else ""), "Type IV: P ↑"]
    return SubsetComparison(groups, assessments, pd.DataFrame(columns, index=index), skipped)


# ----------------------------------------------------------------------------- two-phase


@dataclass
class TwoPhase:
    """Belz (2021) Figure 3: R0 (repeatability baseline), R, and R - R0 per QC and system."""

    table: object
    identical: bool
    differences: list[str]
    baseline: Assessment
    reproducibility: Assessment
    warnings: list[str] = field(default_factory=list)


def two_phase(study: Study, repeatability: list[str], reproducibility: list[str] | None = None) -> TwoPhase:
    """Compare CV* under repeatability conditions (R0) with CV* under reproducibility ones (R).

    ``repeatability`` lists the experiments meant to share every condition; ``reproducibility``
    defaults to all experiments.  If the marked experiments' attributes are not identical,
    ``identical`` is False and ``differences`` names the attributes that differ.
    """
    import pandas as pd

    if len(repeatability) < 2:
        raise QRAInputError("two_phase: repeatability needs at least two experiments")
    baseline_study = study.subset(repeatability)
    others = reproducibility or study.experiment_ids
    differences = property_differences(baseline_study).differing
    baseline, varied = assess(baseline_study), assess(study.subset(others))
    rows = []
    for (qc, system), r0 in baseline.cv.items():
        r = varied.cv.get((qc, system))
        r_value = r.cv_star if r else np.nan
        rows.append(
            {
                "quality_criterion": qc,
                "system": system,
                "R0": r0.cv_star,
                "n (R0)": r0.n,
                "R": r_value,
                "n (R)": r.n if r else 0,
                "R - R0": r_value - r0.cv_star,
            }
        )
    warnings = []
    if differences:
        warnings.append(f"the repeatability experiments are not identical: they differ in {', '.join(differences)}")
    if len(repeatability) != len(others):
        warnings.append(
            f"R0 uses {len(repeatability)} experiments and R {len(others)}; "
            "Belz (2021) section 4.3 advises equal sample sizes for small n"
        )
    return TwoPhase(pd.DataFrame(rows), not differences, differences, baseline, varied, warnings)


# ----------------------------------------------------------------------------- across studies


def _property_status(study: Study) -> dict[str, bool]:
    """Attribute (per-criterion answers folded into their property id) -> same in every experiment?"""
    per_experiment = []
    for experiment in study.experiments:
        grouped: dict[str, list] = {}
        for name, value in sorted(experiment_attributes(experiment).items()):
            grouped.setdefault(name.split(" [")[0], []).append((name, value))
        per_experiment.append(grouped)
    names = set().union(*per_experiment)
    return {
        n: all(n in g for g in per_experiment) and len({tuple(g.get(n, ())) for g in per_experiment}) == 1
        for n in names
    }


def property_effects(studies: Iterable[Study]):
    """For each attribute: mean study-level CV* and P where it is the same vs where it differs.

    A study counts as *same* for an attribute when every experiment gives it and all give the
    same value; otherwise as *differs*.  Studies that cannot be assessed are skipped.

    Descriptive only: the two groups are different studies (different systems, criteria and
    teams), so a difference between the means is not evidence that the attribute matters, and no
    test is made.  Which properties go with poorer reproducibility is tested within studies, with
    multiplicity control, by :func:`qra_widgets.overview.property_effects`.
    """
    import pandas as pd

    records = []
    for study in studies:
        try:
            values = headline_values(assess(study))
        except QRAInputError:
            continue
        for name, same in _property_status(study).items():
            records.append({"attribute": name, "same": same, "CV*": values["CV*"], "P": values["P"], "study": study.id})
    if not records:
        return pd.DataFrame(
            columns=[
                "attribute",
                "studies same",
                "mean CV* (same)",
                "mean P (same)",
                "studies differ",
                "mean CV* (differ)",
                "mean P (differ)",
            ]
        )
    frame = pd.DataFrame(records)
    rows = []
    for name, group in frame.groupby("attribute", sort=True):
        same, differ = group[group.same], group[~group.same]
        rows.append(
            {
                "attribute": name,
                "studies same": len(same),
                "mean CV* (same)": same["CV*"].mean(),
                "mean P (same)": same["P"].mean(),
                "studies differ": len(differ),
                "mean CV* (differ)": differ["CV*"].mean(),
                "mean P (differ)": differ["P"].mean(),
            }
        )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- many studies


def evaluation_type(study: Study, quality_criterion: str | None = None) -> str:
    """The evaluation type of a criterion (its ``evaluation_type`` field) or of the study (the
    criteria's types joined, e.g. ``"human, metric"``).  Where no criterion says, it is guessed:
    ``human`` if any experiment answers a human-evaluation-only property, ``metric`` if any
    names a metric (G.metric) and none is human, else ``unknown``."""
    from .properties import PROPERTIES

    criteria = [study.quality_criterion(quality_criterion)] if quality_criterion else study.quality_criteria
    given = sorted({qc.evaluation_type for qc in criteria if qc.evaluation_type != "unknown"})
    if given:
        return ", ".join(given)

    answered = {pid for e in study.experiments for pid in e.properties if pid in PROPERTIES}
    if any(PROPERTIES[pid].human_only for pid in answered):
        return "human"
    return "metric" if "G.metric" in answered else "unknown"
