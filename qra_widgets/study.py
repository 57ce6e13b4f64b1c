"""The study model: quality criteria, systems, comparable experiments and their results.

A :class:`Study` is validated on construction and on every edit; anything malformed raises
:class:`~qra_widgets.QRAInputError` naming the field.  Results are stored sparsely, keyed by
name, so a reproduction that skipped a system simply has no cell for it:

* Type I scores: ``scores[(quality_criterion, system, experiment)] = float``
* Type III labels: ``labels[(quality_criterion, system, item, experiment)] = label`` (a
  :class:`~qra_widgets.labels.Labels` mapping, stored column-wise; a dict is converted)
* Type IV findings (optional, explicit): ``findings[(quality_criterion, experiment, system_a,
  system_b)] = sign of M(a) - M(b)`` in {-1, 0, 1}.  Without them P is computed from scores.

Reading and writing files is :mod:`qra_widgets.io`'s job (``save_study(study, path)``); numbers
are :mod:`qra_widgets.assess`'s, and which experiments differ in which property is
:func:`qra_widgets.compare.property_differences`'s.  This module imports neither: data flows
one way, from the study model up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any

import numpy as np

from .errors import QRAInputError, ScoreError
from .labels import Labels
from .limits import (  # what a study file may hold: what can be read back
    MAX_INT_DIGITS,
    MAX_JSON_DEPTH,
    check_experiments,
    check_systems,
    shown,
)
from .properties import check_properties
from .ratings import Ratings

ROLES = ("original", "repeat")
LABEL_LEVELS = ("nominal", "ordinal", "interval", "ratio")
EVALUATION_TYPES = ("human", "metric", "llm-as-judge", "unknown")
CONDITION_GROUPS = ("object", "method", "procedure")

# Where each name sits in the keys of scores, labels, findings and sources.
_QC_AT = {"scores": (0,), "labels": (0,), "findings": (0,), "sources": (0,), "ratings": (0,)}
_SYSTEM_AT = {"scores": (1,), "labels": (1,), "findings": (2, 3), "sources": (1,), "ratings": (1,)}
_EXPERIMENT_AT = {"scores": (2,), "labels": (3,), "findings": (1,), "sources": (2,), "ratings": (3,)}


def _name(value: Any, field_name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise QRAInputError(f"{field_name}: must be a non-empty text, got {value!r}")
    return value.strip()


def _number(value: Any, field_name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise QRAInputError(
            f"{field_name}: must be a number, got {shown(value) if isinstance(value, str) else repr(value)[:60]}"
        )
    try:
        number = float(value)
    except OverflowError:  # an int past the float range (10**400): refused in one line, not an OverflowError
        digits = (
            int(abs(int(value)).bit_length() * 0.30103) + 1
        )  # str() of a long int is itself refused past 4,300 digits
        raise QRAInputError(
            f"{field_name}: must be a finite number, got a whole number of about {digits:,} digits"
        ) from None
    if not math.isfinite(number):
        raise QRAInputError(f"{field_name}: must be a finite number, got {number}")
    return number


def _check_json_data(value: Any, where: str) -> None:
    """Refuse what a JSON round trip would change or cannot write: keys that are not text
    (``1`` and ``"1"`` would merge), NaN and infinities, and values that are not JSON data.

    >>> _check_json_data({"a": [1, "x", None, {"b": 2.5}]}, "metadata")
    >>> _check_json_data({1: "one"}, "metadata")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: metadata: key 1 is not text; JSON keys are text, so 1 and '1' would become one key
    """
    stack = [(value, where, 2)]  # a study file's metadata object sits at depth 2
    while stack:
        item, at, depth = stack.pop()
        if isinstance(item, (dict, list)) and depth > MAX_JSON_DEPTH:
            raise QRAInputError(
                f"{at}: nested more than {MAX_JSON_DEPTH} levels deep in the study file; the limit is {MAX_JSON_DEPTH}"
            )
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    raise QRAInputError(
                        f"{at}: key {key!r} is not text; JSON keys are text, so {key!r} and {str(key)!r} would become one key"
                    )
                stack.append((child, f"{at}[{key!r}]", depth + 1))
        elif isinstance(item, list):
            stack.extend((child, f"{at}[{i}]", depth + 1) for i, child in enumerate(item))
        elif isinstance(item, int) and not isinstance(item, bool) and len(str(abs(item))) > MAX_INT_DIGITS:
            raise QRAInputError(
                f"{at}: an integer of {len(str(abs(item)))} digits cannot be read back; the limit is {MAX_INT_DIGITS} (use text)"
            )
        elif isinstance(item, float) and not math.isfinite(item):
            raise QRAInputError(f"{at}: {item} cannot be saved (JSON has no NaN or infinity); use null or text")
        elif item is not None and not isinstance(item, (str, int, float, bool)):
            raise QRAInputError(
                f"{at}: {type(item).__name__} values cannot be saved as JSON; use text, numbers, lists or mappings"
            )


def _unique(names: list[str], field_name: str) -> list[str]:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise QRAInputError(f"{field_name}: duplicate name {name!r}")
        seen.add(name)
    return names


@dataclass(frozen=True)
class QualityCriterion:
    """A quality criterion (QC): what is measured, on which scale.

    ``scale_min`` is subtracted before CV* (QRA 2022 section 3.1); ``label_level`` is the
    Krippendorff level used for this QC's Type III labels; ``evaluation_type`` says how the
    criterion was measured (one of :data:`EVALUATION_TYPES`), so that human and metric CV*
    are never ranked together (QRA++ section 6.1).
    """

    name: str
    scale_min: float = 0.0
    scale_max: float | None = None
    qcet_id: str | None = None
    label_level: str = "nominal"
    description: str = ""
    evaluation_type: str = "unknown"

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _name(self.name, "quality criterion name"))
        where = f"quality criterion {self.name!r}"
        object.__setattr__(self, "scale_min", _number(self.scale_min, f"{where}: scale_min"))
        if self.scale_max is not None:
            object.__setattr__(self, "scale_max", _number(self.scale_max, f"{where}: scale_max"))
            if self.scale_max <= self.scale_min:
                raise QRAInputError(f"{where}: scale_max ({self.scale_max}) must be above scale_min ({self.scale_min})")
        if self.label_level not in LABEL_LEVELS:
            raise QRAInputError(f"{where}: label_level must be one of {LABEL_LEVELS}, got {self.label_level!r}")
        if self.evaluation_type not in EVALUATION_TYPES:
            raise QRAInputError(
                f"{where}: evaluation_type must be one of {EVALUATION_TYPES}, got {self.evaluation_type!r}"
            )

    def check_score(self, value: Any, where: str) -> float:
        number = _number(value, where)
        if number < self.scale_min:
            raise QRAInputError(f"{where}: {number} is below the scale minimum {self.scale_min} of {self.name!r}")
        if self.scale_max is not None and number > self.scale_max:
            raise QRAInputError(f"{where}: {number} is above the scale maximum {self.scale_max} of {self.name!r}")
        return number


@dataclass(frozen=True)
class Experiment:
    """One of the comparable experiments: the original or a repeat.

    ``properties`` maps experiment-property ids (QRA++ Table 1) to answers;
    ``conditions`` holds free-form conditions of measurement grouped as ``object``,
    ``method`` and ``procedure`` (QRA 2022 section 3.3), each a name -> value mapping.
    """

    id: str
    label: str = ""
    team: str = ""
    date: str = ""
    role: str = "repeat"
    properties: dict = field(default_factory=dict)
    conditions: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", _name(self.id, "experiment id"))
        where = f"experiment {self.id!r}"
        for name in ("label", "team", "date"):
            if not isinstance(getattr(self, name), str):
                raise QRAInputError(f"{where}: {name} must be text, got {getattr(self, name)!r}")
        if self.role not in ROLES:
            raise QRAInputError(f"{where}: role must be one of {ROLES}, got {self.role!r}")
        if not isinstance(self.properties, dict):
            raise QRAInputError(f"{where}: properties must be a mapping")
        check_properties(self.properties, where=f"{where}: properties")
        if not isinstance(self.conditions, dict) or set(self.conditions) - set(CONDITION_GROUPS):
            raise QRAInputError(f"{where}: conditions must map some of {CONDITION_GROUPS} to name/value pairs")
        for group, pairs in self.conditions.items():
            if not isinstance(pairs, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in pairs.items()
            ):
                raise QRAInputError(f"{where}: conditions[{group!r}] must map names to text values")

    @property
    def display_name(self) -> str:
        return self.label or self.id


@dataclass(repr=False)
class Study:
    """A set of comparable experiments on the same systems and quality criteria."""

    id: str
    name: str = ""
    description: str = ""
    quality_criteria: list[QualityCriterion] = field(default_factory=list)
    systems: list[str] = field(default_factory=list)
    experiments: list[Experiment] = field(default_factory=list)
    scores: dict[tuple[str, str, str], float] = field(default_factory=dict)
    labels: Labels = field(default_factory=Labels)
    findings: dict[tuple[str, str, str, str], int] = field(default_factory=dict)
    sources: dict[tuple[str, str, str], str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    ratings: Ratings = field(default_factory=Ratings)  # item-level ratings (qra_widgets.ratings), optional

    def __post_init__(self) -> None:
        self.validate()

    def __repr__(self) -> str:
        return (
            f"Study(id={self.id!r}, {len(self.quality_criteria)} quality criteria, {len(self.systems)} systems, "
            f"{len(self.experiments)} experiments, {len(self.scores)} scores, {len(self.labels)} labels)"
        )

    # ------------------------------------------------------------------ validation

    def validate(self) -> None:
        """Check every field; raise :class:`QRAInputError` naming the first problem."""
        check_systems(len(self.systems), "study", "systems in the study")  # first: a 10**6-system study is refused fast
        check_experiments(len(self.experiments), "study")
        self.id = _name(self.id, "study id")
        if not isinstance(self.name, str) or not isinstance(self.description, str):
            raise QRAInputError("study name and description: must be text")
        for qc in self.quality_criteria:
            if not isinstance(qc, QualityCriterion):
                raise QRAInputError(f"quality_criteria: expected QualityCriterion objects, got {qc!r}")
        for experiment in self.experiments:
            if not isinstance(experiment, Experiment):
                raise QRAInputError(f"experiments: expected Experiment objects, got {experiment!r}")
        _unique([qc.name for qc in self.quality_criteria], "quality_criteria")
        self.systems = _unique([_name(s, "system name") for s in self.systems], "systems")
        _unique([e.id for e in self.experiments], "experiments")
        for experiment in self.experiments:
            check_properties(experiment.properties, self.qc_names, f"experiment {experiment.id!r}: properties")
        names = self._name_index()  # sets and a dict: checking S scores costs O(S), not O(S x systems)
        self.scores = {key: self._checked_score(key, value, names) for key, value in self.scores.items()}
        self._check_labels()
        if not isinstance(self.ratings, Ratings):
            raise QRAInputError(f"ratings: expected a Ratings object, got {type(self.ratings).__name__}")
        self.ratings.check({qc.name: qc for qc in self.quality_criteria}, self.systems, self.experiment_ids)
        for key, sign in self.findings.items():
            self._check_finding(key, sign, names)
            qc, experiment, system_a, system_b = key
            reverse = self.findings.get((qc, experiment, system_b, system_a))
            if reverse is not None and reverse != -sign:  # A > B and B > A (or A = B and B > A) in one experiment
                raise QRAInputError(
                    f"findings: experiment {experiment!r} on {qc!r} states {system_a!r} vs {system_b!r} as {sign} "
                    f"and {system_b!r} vs {system_a!r} as {reverse}; they contradict each other: keep one"
                )
        for key in self.sources:
            if key not in self.scores:
                raise QRAInputError(f"sources: {key} has a source but no score")
        if not isinstance(self.metadata, dict):
            raise QRAInputError(f"metadata: must be a mapping, got {type(self.metadata).__name__}")
        _check_json_data(self.metadata, "metadata")

    def _name_index(self) -> tuple[set, set, dict]:
        return set(self.systems), set(self.experiment_ids), {qc.name: qc for qc in self.quality_criteria}

    def _check_names(
        self, qc: str, system: str, experiment: str, where: str, names: tuple | None = None
    ) -> QualityCriterion:
        systems, experiments, criteria = names or self._name_index()
        if system not in systems:
            raise QRAInputError(f"{where}: unknown system {system!r}")
        if experiment not in experiments:
            raise QRAInputError(f"{where}: unknown experiment {experiment!r}")
        if qc not in criteria:
            raise QRAInputError(f"{where}: unknown quality criterion {qc!r}")
        return criteria[qc]

    def _checked_score(self, key: tuple, value: Any, names: tuple | None = None) -> float:
        if not isinstance(key, tuple) or len(key) != 3:
            raise QRAInputError(f"scores: key {key!r} must be (quality_criterion, system, experiment)")
        return self.checked_score(*key, value, names=names)

    def checked_score(
        self, qc: str, system: str, experiment: str, value: Any, *, where: str | None = None, names: tuple | None = None
    ) -> float:
        """``value`` as the score of ``system`` in ``experiment`` on ``qc``: the names known, a
        number within the criterion's scale.  Changes nothing.  Raises
        :class:`~qra_widgets.errors.ScoreError` whose message starts with ``where`` (default
        ``score for 'A' in experiment 'E1' on 'Fluency'``) and whose ``reason`` is the rest.

        >>> study = Study("s", quality_criteria=[QualityCriterion("Fluency", 1, 5)], systems=["A"],
        ...               experiments=[Experiment("E1")])
        >>> study.checked_score("Fluency", "A", "E1", 4)
        4.0
        >>> try:
        ...     study.checked_score("Fluency", "A", "E1", 7)
        ... except ScoreError as error:
        ...     error.key, error.reason
        (('Fluency', 'A', 'E1'), "7.0 is above the scale maximum 5.0 of 'Fluency'")
        """
        where = where or f"score for {system!r} in experiment {experiment!r} on {qc!r}"
        try:
            return self._check_names(qc, system, experiment, where, names).check_score(value, where)
        except QRAInputError as error:  # every message of the two checks is f"{where}: {reason}"
            raise ScoreError(str(error), key=(qc, system, experiment), reason=str(error)[len(where) + 2 :]) from None

    def _check_labels(self) -> None:
        """Validate every label at once (column-wise: millions of labels take well under a second)."""
        if not isinstance(self.labels, Labels):
            if not isinstance(self.labels, dict):
                raise QRAInputError(
                    f"labels: expected a mapping of (quality_criterion, system, item, experiment) to labels, got {type(self.labels).__name__}"
                )
            for key in self.labels:
                if not isinstance(key, tuple) or len(key) != 4:
                    raise QRAInputError(f"labels: key {key!r} must be (quality_criterion, system, item, experiment)")
            self.labels = Labels(self.labels)
        names = (tuple(self.qc_names), tuple(self.systems), tuple(self.experiment_ids))
        if not len(self.labels) or getattr(self.labels, "_validated_for", None) == names:
            return
        import pandas as pd

        qc, system, item, experiment, label = self.labels.columns()
        where = lambda i: f"label for item {item[i]!r} of {system[i]!r} in experiment {experiment[i]!r} on {qc[i]!r}"
        for values, known, what in (
            (qc, self.qc_names, "quality criterion"),
            (system, self.systems, "system"),
            (experiment, self.experiment_ids, "experiment"),
        ):
            unknown = ~pd.Series(values, dtype=object).isin(known).to_numpy()
            if unknown.any():
                i = int(np.argmax(unknown))
                raise QRAInputError(f"{where(i)}: unknown {what} {values[i]!r}")
        items = pd.Series(item, dtype=object).str.strip()
        bad_item = (items.isna() | (items == "")).to_numpy()
        if bad_item.any():
            i = int(np.argmax(bad_item))
            raise QRAInputError(f"{where(i)}: item must be a non-empty text, got {item[i]!r}")
        values = pd.Series(label, dtype=object)
        numeric = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
        bad = (values.isna() | (values.astype(str) == "")).to_numpy() | np.isinf(numeric)
        if bad.any():
            i = int(np.argmax(bad))
            raise QRAInputError(f"{where(i)}: label is missing or not finite")
        for i in np.flatnonzero(
            np.nan_to_num(np.abs(numeric), nan=0.0) >= float(10**MAX_INT_DIGITS)
        ):  # an integer a study file could not read back
            if isinstance(label[i], (int, np.integer)) and not isinstance(label[i], bool):
                raise QRAInputError(
                    f"{where(i)}: the integer label {label[i]} has more than {MAX_INT_DIGITS} digits; use text or a float"
                )
        self.labels._validated_for = names

    def _check_finding(self, key: tuple, sign: Any, names: tuple | None = None) -> None:
        if not isinstance(key, tuple) or len(key) != 4:
            raise QRAInputError(f"findings: key {key!r} must be (quality_criterion, experiment, system_a, system_b)")
        qc, experiment, system_a, system_b = key
        where = f"finding {system_a!r} vs {system_b!r} in experiment {experiment!r} on {qc!r}"
        names = names or self._name_index()
        self._check_names(qc, system_a, experiment, where, names)
        self._check_names(qc, system_b, experiment, where, names)
        if system_a == system_b:
            raise QRAInputError(f"{where}: compares a system with itself")
        if sign not in (-1, 0, 1) or isinstance(sign, bool):
            raise QRAInputError(f"{where}: sign must be -1, 0 or 1, got {sign!r}")

    # ------------------------------------------------------------------ look-ups

    @property
    def experiment_ids(self) -> list[str]:
        return [e.id for e in self.experiments]

    @property
    def qc_names(self) -> list[str]:
        return [qc.name for qc in self.quality_criteria]

    def quality_criterion(self, name: str, where: str = "quality_criterion") -> QualityCriterion:
        for qc in self.quality_criteria:
            if qc.name == name:
                return qc
        raise QRAInputError(f"{where}: unknown quality criterion {name!r}")

    def experiment(self, experiment_id: str) -> Experiment:
        for experiment in self.experiments:
            if experiment.id == experiment_id:
                return experiment
        raise QRAInputError(f"experiment: unknown experiment {experiment_id!r}")

    def score_matrix(self, qc: str) -> np.ndarray:
        """Scores of ``qc`` as an experiments x systems array (study order), NaN = missing."""
        self.quality_criterion(qc)
        column = {s: j for j, s in enumerate(self.systems)}  # dict look-ups: linear in scores, not quadratic
        row = {e: i for i, e in enumerate(self.experiment_ids)}
        matrix = np.full((len(self.experiments), len(self.systems)), np.nan)
        for (q, system, experiment), value in self.scores.items():
            if q == qc:
                matrix[row[experiment], column[system]] = value
        return matrix

    def label_matrix(self, qc: str, system: str | None = None) -> tuple[np.ndarray, list[tuple[str, str]]]:
        """Labels of ``qc`` (optionally of one system) as experiments x units, units = (system, item)."""
        import pandas as pd

        systems, items, experiments, labels = self.labels.for_criterion(qc)
        if system is not None:
            keep = systems == system
            systems, items, experiments, labels = systems[keep], items[keep], experiments[keep], labels[keep]
        unit_index = (
            pd.MultiIndex.from_arrays([systems, items])
            if len(systems)
            else pd.MultiIndex.from_tuples([], names=[None, None])
        )
        units = sorted(set(unit_index))
        column = pd.Index(units).get_indexer(unit_index) if units else np.array([], dtype=int)
        row = pd.Index(self.experiment_ids).get_indexer(experiments)
        matrix = np.full((len(self.experiments), len(units)), None, dtype=object)
        matrix[row, column] = labels
        return matrix, units

    def sign_matrix(self, qc: str) -> np.ndarray | None:
        """Explicit findings of ``qc`` as experiments x system pairs (NaN = not stated), or None."""
        stated = {(e, a, b): sign for (q, e, a, b), sign in self.findings.items() if q == qc}
        if not stated:
            return None
        pairs = list(combinations(self.systems, 2))
        matrix = np.full((len(self.experiments), len(pairs)), np.nan)
        for i, e in enumerate(self.experiment_ids):
            for j, (a, b) in enumerate(pairs):
                if (e, a, b) in stated:
                    matrix[i, j] = stated[(e, a, b)]
                elif (e, b, a) in stated:
                    matrix[i, j] = -stated[(e, b, a)]
        return matrix

    def has_labels(self, qc: str) -> bool:
        return qc in self.labels.criteria()

    def subset(self, experiment_ids, study_id: str | None = None) -> Study:
        """A new study with only the given experiments (in study order) and their results."""
        wanted = list(dict.fromkeys(experiment_ids))
        for experiment_id in wanted:
            self.experiment(experiment_id)
        keep = lambda key, where: all(key[i] in wanted for i in _EXPERIMENT_AT[where])
        stores = {
            where: (
                store.select(_EXPERIMENT_AT[where][0], wanted)
                if isinstance(store, Ratings)
                else {k: v for k, v in store.items() if keep(k, where)}
            )
            for where, store in self._stores().items()
        }
        return Study(
            id=study_id or self.id,
            name=self.name,
            description=self.description,
            quality_criteria=list(self.quality_criteria),
            systems=list(self.systems),
            experiments=[e for e in self.experiments if e.id in wanted],
            metadata=dict(self.metadata),
            **stores,
        )

    # ------------------------------------------------------------------ edits (each validated)

    def set_score(self, qc: str, system: str, experiment: str, value: Any, *, where: str | None = None) -> None:
        """Set one score, checked by :meth:`checked_score` (``where`` starts its error message)."""
        self.scores[(qc, system, experiment)] = self.checked_score(qc, system, experiment, value, where=where)

    def update_scores(self, values: dict) -> None:
        """Set several scores at once (``{(qc, system, experiment): value}``; ``None`` clears the
        cell and its source): every value is checked first, so all change or, if one is refused
        (:meth:`checked_score`), none.  Text typed or pasted is parsed by
        :func:`qra_widgets.io.parse.score_cells`.

        >>> study = Study("s", quality_criteria=[QualityCriterion("Fluency", 1, 5)], systems=["A"],
        ...               experiments=[Experiment("E1"), Experiment("E2")])
        >>> study.update_scores({("Fluency", "A", "E1"): 4, ("Fluency", "A", "E2"): 2})
        >>> try:
        ...     study.update_scores({("Fluency", "A", "E1"): None, ("Fluency", "A", "E2"): 9})
        ... except ScoreError as error:
        ...     error.reason
        "9.0 is above the scale maximum 5.0 of 'Fluency'"
        >>> study.scores
        {('Fluency', 'A', 'E1'): 4.0, ('Fluency', 'A', 'E2'): 2.0}
        """
        checked = {key: None if value is None else self._checked_score(key, value) for key, value in values.items()}
        for key, value in checked.items():
            if value is None:
                self.clear_score(*key)
            else:
                self.scores[key] = value

    def clear_score(self, qc: str, system: str, experiment: str) -> None:
        self.scores.pop((qc, system, experiment), None)
        self.sources.pop((qc, system, experiment), None)

    def add_system(self, name: str) -> None:
        self.systems = _unique([*self.systems, _name(name, "system name")], "systems")

    def rename_system(self, old: str, new: str) -> None:
        new = _name(new, "system name")
        if old not in self.systems:
            raise QRAInputError(f"system: unknown system {old!r}")
        if new != old and new in self.systems:
            raise QRAInputError(f"systems: duplicate name {new!r}")
        self.systems = [new if s == old else s for s in self.systems]
        self._rename(_SYSTEM_AT, old, new)

    def remove_system(self, name: str) -> None:
        if name not in self.systems:
            raise QRAInputError(f"system: unknown system {name!r}")
        self.systems = [s for s in self.systems if s != name]
        self._drop(_SYSTEM_AT, name)

    def add_experiment(self, experiment: Experiment) -> None:
        if not isinstance(experiment, Experiment):
            raise QRAInputError(f"experiments: expected an Experiment, got {experiment!r}")
        _unique([*self.experiment_ids, experiment.id], "experiments")
        self.experiments = [*self.experiments, experiment]

    def replace_experiment(self, experiment: Experiment, old_id: str | None = None) -> None:
        """Swap in an edited experiment (label, team, properties...) for the one with its id,
        or with ``old_id``: then its scores, labels, findings, sources and ratings follow the new id."""
        old_id = experiment.id if old_id is None else old_id
        self.experiment(old_id)
        if experiment.id != old_id and experiment.id in self.experiment_ids:
            raise QRAInputError(
                f"experiment id: {experiment.id!r} is already used by experiment "
                f"{self.experiment(experiment.id).display_name!r}"
            )
        self.experiments = [experiment if e.id == old_id else e for e in self.experiments]
        if experiment.id != old_id:
            self._rename(_EXPERIMENT_AT, old_id, experiment.id)

    def remove_experiment(self, experiment_id: str) -> None:
        self.experiment(experiment_id)
        self.experiments = [e for e in self.experiments if e.id != experiment_id]
        self._drop(_EXPERIMENT_AT, experiment_id)

    def add_quality_criterion(self, qc: QualityCriterion) -> None:
        if not isinstance(qc, QualityCriterion):
            raise QRAInputError(f"quality_criteria: expected a QualityCriterion, got {qc!r}")
        _unique([*self.qc_names, qc.name], "quality_criteria")
        self.quality_criteria = [*self.quality_criteria, qc]

    def replace_quality_criterion(self, name: str, qc: QualityCriterion) -> None:
        """Swap in an edited QC (new name, scale, QCET id...); its scores must fit the new scale."""
        self.quality_criterion(name)
        if qc.name != name and qc.name in self.qc_names:
            raise QRAInputError(f"quality_criteria: duplicate name {qc.name!r}")
        for (q, system, experiment), value in self.scores.items():
            if q == name:
                qc.check_score(value, f"score for {system!r} in experiment {experiment!r} on {qc.name!r}")
        self.quality_criteria = [qc if q.name == name else q for q in self.quality_criteria]
        self._rename(_QC_AT, name, qc.name)
        self._rekey_criterion_answers(name, qc.name)

    def remove_quality_criterion(self, name: str) -> None:
        self.quality_criterion(name)
        self.quality_criteria = [q for q in self.quality_criteria if q.name != name]
        self._drop(_QC_AT, name)
        self._rekey_criterion_answers(name, None)

    def _rekey_criterion_answers(self, old: str, new: str | None) -> None:
        """Per-criterion property answers follow a renamed criterion (or go with a removed one)."""

        def rekeyed(properties: dict) -> dict:
            result = {}
            for property_id, value in properties.items():
                if isinstance(value, dict) and old in value:
                    value = {(new if k == old else k): v for k, v in value.items() if not (k == old and new is None)}
                result[property_id] = value
            return result

        self.experiments = [replace(e, properties=rekeyed(e.properties)) for e in self.experiments]

    def _stores(self) -> dict[str, dict]:
        return {
            "scores": self.scores,
            "labels": self.labels,
            "findings": self.findings,
            "sources": self.sources,
            "ratings": self.ratings,
        }

    def _drop(self, positions: dict[str, tuple[int, ...]], name: str) -> None:
        for where, store in self._stores().items():
            if isinstance(store, (Labels, Ratings)):
                setattr(self, where, store.select(positions[where][0], [name], keep=False))
                continue
            for key in [k for k in store if any(k[i] == name for i in positions[where])]:
                del store[key]

    def _rename(self, positions: dict[str, tuple[int, ...]], old: str, new: str) -> None:
        for where, store in self._stores().items():
            at = positions[where]
            if isinstance(store, (Labels, Ratings)):
                setattr(self, where, store.renamed(at[0], old, new))
                continue
            renamed = {
                tuple(new if (i in at and part == old) else part for i, part in enumerate(k)): v
                for k, v in store.items()
            }
            setattr(self, where, renamed)
