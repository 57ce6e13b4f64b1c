"""Import a saved HEDS datasheet (version 2 or 3.0: the HEDS web form's JSON) into experiment properties.

Both form versions save the browser's local storage as one JSON object mapping form keys to
``{"data": {scope: value}, "control": {...}, "text": {scope: label}}`` (HEDS 3.0 adds
``"number"``, the question number); ``scope`` is ``""`` for whole-experiment questions and
the criterion name for section 4 questions.  Check-box and radio questions have one key per
option (``...-<N>``) plus ``...-other_text``.  The criteria are the keys of
``heds-criteria-criterion``'s ``control`` (the form marks only the one being edited ``true``).

The version is read from the keys: HEDS 3.0 has the ``...-qc_name-...`` criterion-name keys
and a ``number`` in its entries, HEDS 2 neither.  We read the questions that are QRA++
properties (QRA++ Table 1 uses HEDS 3.0 numbering; HEDS 2 asks the same questions under the
same keys) and map option labels onto the HEDS 3.0 option lists of the catalogue.  HEDS 3.0
adds H4.3.1.2, the criterion's QCET name (``mapped_criterion_name``), which we map onto its
QCET id (a name, an id, or a ``Name (id)`` label).  HEDS 2 has no question for H4.3.1.2 nor
for the four general properties; those stay unanswered, except that a HEDS 2 criterion whose
own name is exactly a QCET name or id (e.g. "Fluency") gets that QCET id, with a note.

Evaluation type: neither form asks for it, because HEDS is the *Human* Evaluation Datasheet;
the evaluators it describes are people (section 3.2).  A sheet that answers section 3.2 (the
number of evaluators, their expertise or characteristics) therefore says "human" for each of
its criteria; if those answers name an LLM/GPT as the evaluator it says "llm-as-judge".  A
sheet that leaves section 3.2 empty says nothing (the criteria stay "unknown"), with a note.
:meth:`HEDSImport.apply_to_criteria` fills the study's criteria with both.

Nothing is dropped silently: keys with an answer that no property uses are listed in
``unmapped``; answers that needed interpreting (free text in a number field such as "N/A",
"TBA" or a sentence, an explanation given with "N/A (please explain)", a criterion name that
is not in QCET) are kept where the catalogue allows it and explained in ``notes``.  A file
that is not a HEDS datasheet, or whose entries have the wrong shape or types at any level,
raises :class:`~qra_widgets.QRAInputError` naming the key and field.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import QRAInputError
from ..properties import PROPERTIES, QCETNode, check_properties, qcet_taxonomy
from ..study import Experiment, QualityCriterion, Study
from .parse import match_criteria as match_criterion_names
from .reading import load_json, read_bytes

CRITERIA_KEY = "heds-criteria-criterion"
MAPPED_CRITERION_KEY = "heds-criteria-criterion-response_elicitation-qc_name-mapped_criterion_name"
HEDS3_ONLY_KEYS = (
    MAPPED_CRITERION_KEY,
    "heds-criteria-criterion-response_elicitation-qc_name-participant_criterion_name",
)
_EVALUATORS = "heds-sample_evaluators_design-evaluators-"
_DESIGN = "heds-sample_evaluators_design-experimental_design-"
_CRITERION = "heds-criteria-criterion-"

# property id -> HEDS 2 key (or key prefix of a check-box question)
HEDS2_KEYS: dict[str, str] = {
    "H2.1": "heds-system-input_types",
    "H2.2": "heds-system-output_types",
    "H2.3": "heds-system-tasks",
    "H3.1.1": "heds-sample_evaluators_design-sample-number_of_system_outputs",
    "H3.2.1": _EVALUATORS + "number_of_evaluators",
    "H3.2.2.1": _EVALUATORS + "evaluators-expertise",
    "H3.2.2.4": _EVALUATORS + "evaluators-are_authors",
    "H3.2.4": _EVALUATORS + "training_practice",
    "H3.2.5": _EVALUATORS + "characteristics",
    "H3.3.2": _DESIGN + "collection_method",
    "H3.3.3.1": _DESIGN + "quality_assurance-method",
    "H4.2.1": _CRITERION + "evaluation_mode-objective_or_subjective",
    "H4.2.2": _CRITERION + "evaluation_mode-absolute_or_relative",
    "H4.2.3": _CRITERION + "evaluation_mode-intrinsic_or_extrinsic",
    "H4.3.5": _CRITERION + "response_elicitation-scale_presented_as",
    "H4.3.7": _CRITERION + "response_elicitation-verbatim_question",
    "H4.3.8": _CRITERION + "response_elicitation-form_of_response",
}

# HEDS 3.0 keeps every HEDS 2 key above and adds the criterion's QCET name (4.3.1.2)
HEDS3_KEYS: dict[str, str] = {**HEDS2_KEYS, "H4.3.1.2": MAPPED_CRITERION_KEY}

# HEDS 2 wording that no fuzzy match would find (HEDS 3.0 turned these into Yes/No questions)
ALIASES: dict[str, dict[str, str]] = {
    "H3.2.2.1": {"experts": "Yes", "domain experts": "Yes", "non-experts": "No"},
    "H3.2.2.4": {
        "evaluators include one or more of the authors": "Yes",
        "evaluators do not include any of the authors": "No",
    },
    "H3.3.3.1": {
        "none of the above": "None of the above (no quality assurance methods used)",
        "automatic quality checking methods are used during/post evaluation": "Automatic quality checking methods are used during and/or after evaluation",
    },
}

_NUMBERED = re.compile(r"^\s*\d+\.\s*")

# section 3.2 answers that show who the evaluators are (3.2.1 number, 3.2.2 expertise/are authors, 3.2.5 characteristics)
EVALUATOR_KEYS = (
    _EVALUATORS + "number_of_evaluators",
    _EVALUATORS + "characteristics",
    _EVALUATORS + "recruitment_method",
    _EVALUATORS + "evaluators-expertise",
    _EVALUATORS + "evaluators-are_authors",
)
_LLM_JUDGE = re.compile(
    r"\b(LLMs?|GPT-?\d*\w*|large language models?|language models? as (?:a )?judges?|"
    r"LLM-as-(?:a-)?judge)\b",
    re.IGNORECASE,
)


@dataclass
class HEDSImport:
    """What :func:`import_heds` read: property values, criteria, and what it could not use.

    ``version`` is the form version (2 or 3); ``qcet_ids`` maps a criterion to the QCET id
    its HEDS 3.0 ``mapped_criterion_name`` names; ``participant_names`` maps a criterion to
    the name evaluators saw (HEDS 3.0 4.3.1.1), when given.
    """

    properties: dict[str, Any] = field(default_factory=dict)
    criteria: list[str] = field(default_factory=list)
    unmapped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    version: int = 2
    qcet_ids: dict[str, str] = field(default_factory=dict)
    participant_names: dict[str, str] = field(default_factory=dict)
    evaluation_types: dict[str, str] = field(default_factory=dict)

    def apply_to(self, experiment: Experiment, criterion_names: dict[str, str] | None = None) -> Experiment:
        """A copy of ``experiment`` with these answers merged in.

        ``criterion_names`` maps HEDS criterion names to the study's QC names (unmapped
        criteria keep their HEDS name).
        """
        names = criterion_names or {}
        merged = dict(experiment.properties)
        for property_id, value in self.properties.items():
            if PROPERTIES[property_id].per_criterion:
                value = {**merged.get(property_id, {}), **{names.get(c, c): v for c, v in value.items()}}
            merged[property_id] = value
        return replace(experiment, properties=merged)

    def apply_to_criteria(
        self, criteria, criterion_names: dict[str, str] | None = None
    ) -> tuple[list[QualityCriterion], list[str]]:
        """The study's ``criteria`` with this sheet's evaluation types and QCET ids filled in.

        ``criterion_names`` maps HEDS criterion names to the study's QC names (as from
        :func:`match_criteria`; unmapped HEDS criteria fill the QC of the same name).  Only
        fields the study leaves open are filled (``evaluation_type == "unknown"``, no
        ``qcet_id``); where the study already says something else, it is kept and the
        difference is returned as a note.  Returns ``(criteria, notes)``; the criteria are
        new objects, in the same order.

        >>> heds = HEDSImport(criteria=["fluency"], qcet_ids={"fluency": "QOG-w-3"},
        ...                   evaluation_types={"fluency": "human"})
        >>> [qc], notes = heds.apply_to_criteria([QualityCriterion("Fluency", 1, 5)], {"fluency": "Fluency"})
        >>> qc.evaluation_type, qc.qcet_id, notes
        ('human', 'QOG-w-3', [])
        """
        names = criterion_names or {}
        by_study_name = {names.get(c, c): c for c in self.criteria}
        updated, notes = [], []
        for qc in criteria:
            heds_name = by_study_name.get(qc.name)
            changes = {}
            for field_name, values, unset in (
                ("evaluation_type", self.evaluation_types, "unknown"),
                ("qcet_id", self.qcet_ids, None),
            ):
                value = values.get(heds_name) if heds_name is not None else None
                current = getattr(qc, field_name)
                if value is None or value == current:
                    continue
                if current == unset:
                    changes[field_name] = value
                else:
                    notes.append(f"{qc.name}: the datasheet gives {field_name} {value!r}; kept the study's {current!r}")
            updated.append(replace(qc, **changes) if changes else qc)
        return updated, notes

    def only(self, criteria) -> HEDSImport:
        """A copy keeping the per-criterion answers of ``criteria`` only (the others dropped)."""
        keep = set(criteria)
        properties = {}
        for property_id, value in self.properties.items():
            if PROPERTIES[property_id].per_criterion:
                value = {c: v for c, v in value.items() if c in keep}
                if not value:
                    continue
            properties[property_id] = value
        return replace(
            self,
            properties=properties,
            criteria=[c for c in self.criteria if c in keep],
            qcet_ids={c: i for c, i in self.qcet_ids.items() if c in keep},
            participant_names={c: n for c, n in self.participant_names.items() if c in keep},
            evaluation_types={c: t for c, t in self.evaluation_types.items() if c in keep},
        )


def match_criteria(heds: HEDSImport, study_criteria) -> dict[str, str]:
    """Which study criterion each HEDS criterion describes: ``{HEDS name: study QC name}``.

    ``study_criteria`` are QC names or :class:`~qra_widgets.QualityCriterion` objects.  A
    HEDS criterion matches, in this order: a study QC of the same name; of the same name
    ignoring case and spacing; whose ``qcet_id`` is the QCET id of the HEDS criterion's
    ``mapped_criterion_name`` (HEDS 3.0); the same for the name evaluators saw.  If one
    criterion is left on each side, they match.  No study QC is used twice; HEDS criteria
    missing from the result match nothing (e.g. the app reports them as not imported).

    >>> heds = HEDSImport(criteria=["fluency", "Info"], qcet_ids={"Info": "QOG-c-2"})
    >>> from qra_widgets import QualityCriterion
    >>> match_criteria(heds, ["Fluency", QualityCriterion("Informativeness (1-5)", qcet_id="QOG-c-2")])
    {'fluency': 'Fluency', 'Info': 'Informativeness (1-5)'}
    """
    names, qcet = [], {}
    for item in study_criteria:
        name = getattr(item, "name", item)
        if not isinstance(name, str):
            raise QRAInputError(f"study criteria: expected names or quality criteria, got {item!r}")
        names.append(name)
        if getattr(item, "qcet_id", None):
            qcet.setdefault(item.qcet_id, name)
    squash = lambda text: re.sub(r"\s+", " ", text).strip().casefold()
    mapping: dict[str, str] = {}
    rules = (
        lambda c: c if c in names else None,
        lambda c: next((n for n in names if squash(n) == squash(c)), None),
        lambda c: qcet.get(heds.qcet_ids.get(c, "")),
        lambda c: next(
            (n for n in names if c in heds.participant_names and squash(n) == squash(heds.participant_names[c])), None
        ),
    )
    for rule in rules:
        for criterion in heds.criteria:
            if criterion in mapping:
                continue
            found = rule(criterion)
            if found is not None and found not in mapping.values():
                mapping[criterion] = found
    left = [c for c in heds.criteria if c not in mapping]
    free = [n for n in names if n not in mapping.values()]
    if len(left) == 1 and len(free) == 1:
        mapping[left[0]] = free[0]
    return {c: mapping[c] for c in heds.criteria if c in mapping}


def merge_heds(
    study: Study, experiment_id: str, heds: HEDSImport, source: str = "HEDS datasheet"
) -> tuple[HEDSImport, list[str], list[str]]:
    """Merge a datasheet into ``study`` (in place, all or nothing): its answers into the
    experiment ``experiment_id``, its evaluation types and QCET ids into the criteria that
    leave them open (:meth:`HEDSImport.apply_to_criteria`).

    A HEDS criterion is matched to a study criterion of the same name, or one to one when both
    have only one (:func:`qra_widgets.io.parse.match_criteria`); the answers of the others are
    dropped, never added as criteria.  Returns ``(the sheet kept, with notes of what the study
    kept; the criteria filled, as "name (type, QCET id)"; the HEDS criteria not imported)``.

    >>> study = Study("s", quality_criteria=[QualityCriterion("Fluency", 1, 5)], experiments=[Experiment("E1")])
    >>> sheet = HEDSImport(criteria=["Fluency", "Adequacy"], evaluation_types={"Fluency": "human"})
    >>> kept, filled, unmatched = merge_heds(study, "E1", sheet)
    >>> filled, unmatched, study.quality_criteria[0].evaluation_type
    (['Fluency (human, QCET none)'], ['Adequacy'], 'human')
    """
    experiment = study.experiment(experiment_id)
    mapping, unmatched = match_criterion_names(heds.criteria, study.qc_names)
    kept = heds.only(mapping) if unmatched else heds
    updated = kept.apply_to(experiment, mapping)
    check_properties(updated.properties, study.qc_names, source)
    before = list(study.quality_criteria)
    criteria, notes = kept.apply_to_criteria(before, mapping)
    kept = replace(kept, notes=[*kept.notes, *notes])
    study.replace_experiment(updated)
    filled = []
    for old, criterion in zip(before, criteria):
        if criterion is not old:
            study.replace_quality_criterion(old.name, criterion)
            filled.append(f"{criterion.name} ({criterion.evaluation_type}, QCET {criterion.qcet_id or 'none'})")
    return kept, filled, unmatched


# ----------------------------------------------------------------------------- validation


def _scoped(value: Any, where: str, kinds: tuple, what: str) -> dict:
    if not isinstance(value, dict):
        raise QRAInputError(f"{where}: should be an object mapping scopes to {what}, got {type(value).__name__}")
    for scope, item in value.items():
        if item is not None and (not isinstance(item, kinds) or (bool not in kinds and isinstance(item, bool))):
            raise QRAInputError(f"{where}[{scope!r}]: should hold {what}, got {type(item).__name__} {str(item)[:40]!r}")
    return value


def _entries(data: Any, source: str) -> dict[str, dict]:
    """Check the shape of every entry; a malformed one raises, naming the key and field."""
    if not isinstance(data, dict):
        raise QRAInputError(f"{source}: a HEDS datasheet is a JSON object, got {type(data).__name__}")
    if not any(isinstance(k, str) and k.startswith("heds-") for k in data):
        raise QRAInputError(
            f"{source}: not a HEDS 2 datasheet nor a HEDS 3.0 one (no 'heds-...' keys); save it with the HEDS form"
        )
    for key, entry in data.items():
        where = f"{source}: key {key!r}"
        if not isinstance(entry, dict):
            raise QRAInputError(
                f"{where} should hold {{'data': {{...}}}}, got {type(entry).__name__} {str(entry)[:60]!r}"
            )
        _scoped(entry.get("data", {}), f"{where}: data", (str, bool), "text or true/false")
        _scoped(entry.get("control", {}), f"{where}: control", (bool,), "true/false")
        _scoped(entry.get("text", {}), f"{where}: text", (str,), "text")
        if entry.get("number") is not None and not isinstance(entry["number"], str):
            raise QRAInputError(f"{where}: number should be text such as '4.3.8', got {entry['number']!r}")
    return data


def detect_version(entries: dict[str, dict]) -> int:
    """3 for a HEDS 3.0 file (its criterion-name keys, or question numbers in its entries), else 2."""
    if any(key in entries for key in HEDS3_ONLY_KEYS) or any("number" in entry for entry in entries.values()):
        return 3
    return 2


def _criteria(entries: dict[str, dict]) -> list[str]:
    """Every criterion the sheet has: the form marks only the one being edited ``true``."""
    control = entries.get(CRITERIA_KEY, {}).get("control", {})
    return [name for name in control if isinstance(name, str) and name.strip()]


def _label(text: str) -> str:
    return _NUMBERED.sub("", text).strip().rstrip(".")


def _match_option(property_id: str, label: str) -> str | None:
    options = PROPERTIES[property_id].options
    lowered = label.lower()
    alias = ALIASES.get(property_id, {}).get(lowered)
    if alias:
        return alias
    by_lower = {o.lower(): o for o in options}
    close = difflib.get_close_matches(lowered, list(by_lower), n=1, cutoff=0.6)
    return by_lower[close[0]] if close else None


_QCET_LABEL = re.compile(r"\(([A-Z][A-Za-z]*(?:-[A-Za-z]+)?(?:-[\d.]+)?)\)\s*$")


def qcet_node(text: str) -> QCETNode | None:
    """The QCET node a HEDS 3.0 ``mapped_criterion_name`` names: an id (``QOG-w-3``), a label
    (``Fluency (QOG-w-3)``) or a name (``fluency``, any case); ``None`` if none.

    >>> qcet_node("Fluency").id, qcet_node("Informativeness (QOG-c-2)").id, qcet_node("QOG-w-2").name
    ('QOG-w-3', 'QOG-c-2', 'Readability')
    >>> qcet_node("general goodness") is None
    True
    """
    taxonomy = qcet_taxonomy()
    text = text.strip()
    if text in taxonomy:
        return taxonomy[text]
    label = _QCET_LABEL.search(text)
    if label and label.group(1) in taxonomy:
        return taxonomy[label.group(1)]
    by_name = {node.name.casefold().lstrip("*"): node for node in taxonomy.values()}
    return by_name.get(text.casefold().lstrip("*"))


class _Reader:
    def __init__(self, entries: dict[str, dict], source: str, keys: dict[str, str]):
        self.entries, self.source, self.keys = entries, source, keys
        self.used: set[str] = {CRITERIA_KEY}
        self.notes: list[str] = []

    def text(self, key: str, scope: str) -> str | None:
        entry = self.entries.get(key)
        if entry is None:
            return None
        self.used.add(key)
        value = entry.get("data", {}).get(scope)
        if isinstance(value, bool):
            raise QRAInputError(f"{self.source}: key {key!r}: data[{scope!r}] should hold text, got {value!r}")
        return value.strip() if value and value.strip() else None

    def ticked(self, prefix: str, scope: str) -> list[tuple[str, str]]:
        pattern = re.compile(re.escape(prefix) + r"-(\d+)$")
        ticked = []
        for key in sorted((k for k in self.entries if pattern.match(k)), key=lambda k: int(pattern.match(k).group(1))):
            self.used.add(key)
            entry = self.entries[key]
            if entry.get("data", {}).get(scope) is True:
                ticked.append((key, _label(str(entry.get("text", {}).get(scope) or ""))))
        return ticked

    def choice(self, property_id: str, scope: str) -> str | list[str] | None:
        prop = PROPERTIES[property_id]
        prefix = self.keys[property_id]
        other = self.text(f"{prefix}-other_text", scope)
        values = []
        for key, label in self.ticked(prefix, scope):
            option = _match_option(property_id, label)
            if option is None and prop.has_other:
                option = f"Other: {label}"
                self.notes.append(f"{property_id}: {key} ({label!r}) has no HEDS 3.0 equivalent; kept as 'Other'")
            elif option is None:
                self.notes.append(f"{property_id}: {key} ({label!r}) matches no option of {prop.name}; not imported")
                continue
            if option.startswith("Other (") and other:
                option = f"Other: {other}"
            elif option.startswith("N/A (") and other:
                self.notes.append(f"{property_id}{_for(scope)}: {option}, explained as {other[:200]!r}")
            values.append(option)
        if not values:
            return None
        if prop.kind == "single":
            if len(values) > 1:
                self.notes.append(f"{property_id}{_for(scope)}: several options ticked {values}; kept the first")
            return values[0]
        return list(dict.fromkeys(values))

    def integer(self, property_id: str, scope: str) -> int | str | None:
        text = self.text(self.keys[property_id], scope)
        if text is None:
            return None
        if re.fullmatch(r"\d{1,15}", text):
            return int(text)
        if re.fullmatch(r"\d+", text):  # all digits, past any count of evaluators or items: refused, not kept
            raise QRAInputError(
                f"{property_id}{_for(scope)}: a whole number of {len(text):,} digits; the limit is 15 digits"
            )
        why = "not applicable" if text.upper().rstrip(".") == "N/A" else "not a single whole number"
        self.notes.append(f"{property_id}{_for(scope)}: {text[:60]!r} is {why}; kept as text")
        return text

    def qcet(self, scope: str, result: HEDSImport) -> str | None:
        text = self.text(self.keys["H4.3.1.2"], scope)
        if text is None:
            return None
        node = qcet_node(text)
        if node is None:
            names = {n.name.casefold(): n for n in qcet_taxonomy().values()}
            near = difflib.get_close_matches(text.casefold(), list(names), n=2, cutoff=0.6)
            hint = f" (close: {', '.join(names[n].label for n in near)})" if near else ""
            self.notes.append(
                f"H4.3.1.2{_for(scope)}: mapped criterion name {text[:60]!r} is not a QCET v3.4.1 "
                f"name or id{hint}; not imported"
            )
            return None
        result.qcet_ids[scope] = node.id
        if node.label not in PROPERTIES["H4.3.1.2"].options:
            self.notes.append(f"H4.3.1.2{_for(scope)}: {node.label!r} is not an option of the catalogue; not imported")
            return None
        return node.label

    def answer(self, property_id: str, scope: str, result: HEDSImport):
        if property_id == "H4.3.1.2":
            return self.qcet(scope, result)
        kind = PROPERTIES[property_id].kind
        if kind in ("single", "multiple"):
            return self.choice(property_id, scope)
        if kind == "integer":
            return self.integer(property_id, scope)
        return self.text(self.keys[property_id], scope)


def _for(scope: str) -> str:
    return f" ({scope})" if scope else ""


def _evaluation_type(entries: dict[str, dict], result: HEDSImport) -> None:
    """Fill ``result.evaluation_types`` from section 3.2 (who the evaluators are); see the module notes."""
    said = []
    for key, entry in entries.items():
        if key in EVALUATOR_KEYS or (
            key.startswith(EVALUATOR_KEYS) and key[-1].isdigit()
        ):  # a text field or a ticked option
            value = entry.get("data", {}).get("")
            if value is True:
                said.append(str(entry.get("text", {}).get("") or ""))
            elif (
                isinstance(value, str)
                and value.strip()
                and value.strip().upper().rstrip(".") not in ("N/A", "-", "TBA", "TBD")
            ):
                said.append(value)
    if not said:
        result.notes.append(
            "evaluation type: section 3.2 (evaluators) is unanswered; the criteria's evaluation type is left unknown"
        )
        return
    llm = next((m.group(0) for text in said if (m := _LLM_JUDGE.search(text))), None)
    kind = "llm-as-judge" if llm else "human"
    if llm:
        result.notes.append(f"evaluation type: section 3.2 names {llm!r} as the evaluator; imported as llm-as-judge")
    result.evaluation_types = {criterion: kind for criterion in result.criteria}


def _has_answer(entry: dict) -> bool:
    return any(
        v is True or (isinstance(v, str) and v.strip() and v.strip() != "N/A") for v in entry.get("data", {}).values()
    )


def heds_from_dict(data: Any, source: str = "HEDS datasheet") -> HEDSImport:
    """Read parsed HEDS 2 or 3.0 JSON (see :func:`import_heds`)."""
    entries = _entries(data, source)
    version = detect_version(entries)
    keys = HEDS3_KEYS if version == 3 else HEDS2_KEYS
    result = HEDSImport(criteria=_criteria(entries), version=version)
    reader = _Reader(entries, source, keys)
    for property_id in keys:
        if PROPERTIES[property_id].per_criterion:
            answers = {c: a for c in result.criteria if (a := reader.answer(property_id, c, result)) is not None}
            if answers:
                result.properties[property_id] = answers
        elif (answer := reader.answer(property_id, "", result)) is not None:
            result.properties[property_id] = answer
    if version == 3:
        for criterion in result.criteria:
            name = reader.text(HEDS3_ONLY_KEYS[1], criterion)
            if name:
                result.participant_names[criterion] = name
    else:  # HEDS 2 has no QCET question; a criterion named exactly as in QCET is that criterion
        for criterion in result.criteria:
            node = qcet_node(criterion)
            if node is not None:
                result.qcet_ids[criterion] = node.id
                reader.notes.append(
                    f"QCET ({criterion}): HEDS 2 has no QCET question; the criterion's name is the "
                    f"QCET name {node.label!r}"
                )
    result.unmapped = sorted(k for k, entry in entries.items() if k not in reader.used and _has_answer(entry))
    result.notes = reader.notes
    _evaluation_type(entries, result)
    return result


def import_heds(path: str | os.PathLike) -> HEDSImport:
    """Read a saved HEDS 2 or HEDS 3.0 datasheet (JSON) into QRA++ property values.

    Returns a :class:`HEDSImport` whose ``version`` is 2 or 3, whose ``properties`` maps
    property ids to values (integers as ``int``, choices as option labels, a list for
    multiple choice, per-criterion answers as ``{criterion name: value}``), and whose
    ``unmapped`` lists the HEDS keys with answers that no property uses.  Malformed files
    (not UTF-8, not JSON, nested too deeply, wrong shapes or types) raise
    :class:`~qra_widgets.QRAInputError` naming the file, key and field.

    Parameters
    ----------
    path : str or os.PathLike
        The datasheet's JSON file, as the HEDS form saves it.

    Returns
    -------
    HEDSImport
        The form version, the property values and the unmapped keys.
    """
    path = Path(path)
    return heds_from_bytes(read_bytes(path), path.name)


def heds_from_bytes(data: bytes, source: str = "HEDS datasheet") -> HEDSImport:
    return heds_from_dict(load_json(data, source), source)
