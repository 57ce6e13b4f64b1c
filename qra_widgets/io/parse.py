"""Pure parsing of what people type or paste into the app: numbers, pasted spreadsheet blocks,
conditions of measurement, QCET picker entries, study ids, and HEDS criterion matching.

No widgets here: every function takes text (or names) and returns values, or raises
:class:`~qra_widgets.QRAInputError` naming the field, line or cell and the problem.

>>> score("3.5"), score("  "), optional_number("", "scale maximum")
(3.5, None, None)
>>> pasted_block("sys\\te1\\te2\\nA\\t1\\t2", ["A"], ["e1", "e2"])
[['1', '2']]
>>> conditions("object: Code by = authors")
{'object': {'Code by': 'authors'}}
>>> slug("Fluency study (2024)!")
'fluency-study-2024'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from ..errors import QRAInputError
from ..study import CONDITION_GROUPS


def score(text: str) -> float | None:
    """A score typed into a grid cell: a number, or ``None`` for an empty cell.

    A decimal comma is refused with a hint (``3,5`` is ambiguous in a CSV-minded app).
    """
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        hint = " (use '.' as the decimal point)" if "," in text else ""
        raise QRAInputError(f"{text!r} is not a number{hint}") from None


def score_cells(study, cells: dict) -> dict:
    """Typed or pasted scores ``{(criterion, system, experiment): text, number or None}``, checked
    against ``study``: ``{key: score or None}`` (``None``, like empty text, clears the cell).
    Changes nothing; the first problem raises :class:`~qra_widgets.errors.ScoreError` (or
    :class:`QRAInputError` for text that is not a number) naming the cell by the experiment's
    label users see: ``score for 'A' in experiment 'Original 2022' on 'Fluency'`` for one cell,
    ``A / Original 2022 on 'Fluency'`` in a paste of several.  Apply the result with
    :meth:`~qra_widgets.study.Study.update_scores`.

    >>> from qra_widgets.study import Experiment, QualityCriterion, Study
    >>> study = Study("s", quality_criteria=[QualityCriterion("Fluency", 1, 5)], systems=["A"],
    ...               experiments=[Experiment("E1", label="Original 2022"), Experiment("E2")])
    >>> score_cells(study, {("Fluency", "A", "E1"): "3.5", ("Fluency", "A", "E2"): ""})
    {('Fluency', 'A', 'E1'): 3.5, ('Fluency', 'A', 'E2'): None}
    >>> score_cells(study, {("Fluency", "A", "E1"): "3", ("Fluency", "A", "E2"): "3,5"})
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: A / E2: '3,5' is not a number (use '.' as the decimal point)
    """
    labels = {e.id: e.display_name for e in study.experiments}
    several = len(cells) > 1
    checked = {}
    for key, value in cells.items():
        qc, system, experiment = key
        label = labels.get(experiment, experiment)
        if isinstance(value, str):
            try:
                value = score(value)
            except QRAInputError as error:
                raise QRAInputError(f"{system} / {label}: {error}" if several else str(error)) from None
        if value is not None:
            where = (
                f"{system} / {label} on {qc!r}"
                if several
                else f"score for {system!r} in experiment {label!r} on {qc!r}"
            )
            value = study.checked_score(qc, system, experiment, value, where=where)
        checked[key] = value
    return checked


def optional_number(text: str, field: str) -> float | None:
    """A number typed into a form field named ``field``, or ``None`` if left empty."""
    if not text.strip():
        return None
    try:
        return float(text)
    except ValueError:
        raise QRAInputError(f"{field}: {text!r} is not a number") from None


def required_number(text: str, field: str) -> float:
    """A number that must be given (e.g. a new criterion's scale minimum): never assumed 0."""
    value = optional_number(text, field)
    if value is None:
        raise QRAInputError(f"{field}: give a number (it is not assumed to be 0)")
    return value


def pasted_block(text: str, systems: list[str], experiment_labels: list[str]) -> list[list[str]]:
    """Cells copied from a spreadsheet, as rows of text in grid order (rows = systems,
    columns = experiments).

    Tab-separated if any line has a tab, else comma-separated.  A header row naming
    experiments and a first column naming systems are recognised and skipped.  Rows and
    columns beyond the grid are refused, so nothing is dropped silently.
    """
    lines = [line for line in text.strip("\n").splitlines()]
    if not any(line.strip() for line in lines):
        raise QRAInputError("paste: nothing to paste")
    separator = "\t" if any("\t" in line for line in lines) else ","
    rows = [line.split(separator) for line in lines]
    if rows and rows[0] and rows[0][0].strip() not in systems and any(c.strip() in experiment_labels for c in rows[0]):
        rows = rows[1:]
    result = []
    for i, row in enumerate(rows):
        if i < len(systems) and row and row[0].strip() == systems[i]:
            row = row[1:]
        result.append([cell.strip() for cell in row])
    if len(result) > len(systems):
        raise QRAInputError(f"paste: {len(result)} rows but the grid has {len(systems)} systems")
    wide = [i + 1 for i, row in enumerate(result) if len(row) > len(experiment_labels)]
    if wide:
        raise QRAInputError(
            f"paste: row {wide[0]} has {len(result[wide[0] - 1])} cells but the grid has "
            f"{len(experiment_labels)} experiments"
        )
    return result


def conditions(text: str) -> dict[str, dict[str, str]]:
    """Conditions of measurement, one per line: ``object|method|procedure: name = value``."""
    parsed: dict[str, dict[str, str]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        head, sep, value = line.partition("=")
        group, colon, name = head.partition(":")
        if not sep or not colon or group.strip() not in CONDITION_GROUPS or not name.strip():
            raise QRAInputError(
                f"conditions, line {number}: write 'object|method|procedure: name = value', got {line!r}"
            )
        parsed.setdefault(group.strip(), {})[name.strip()] = value.strip()
    return parsed


def conditions_text(conditions_: dict[str, dict[str, str]]) -> str:
    """The inverse of :func:`conditions`."""
    return "\n".join(
        f"{group}: {name} = {value}" for group, pairs in conditions_.items() for name, value in pairs.items()
    )


def qcet_id(picked: str, taxonomy: Iterable[str]) -> str | None:
    """The QCET id of a picker entry such as ``"Fluency (QOG-w-3)"``; an empty entry gives None."""
    if not picked.strip():
        return None
    match = re.search(r"\(([^()]+)\)\s*$", picked)
    if not match or match.group(1) not in set(taxonomy):
        raise QRAInputError(f"QCET criterion: {picked!r} is not in QCET v3.4.1; pick one from the list")
    return match.group(1)


def slug(name: str) -> str:
    """A study id from a name: lower case ASCII letters, digits and hyphens."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")[:60]


def unique_id(name: str, taken: Iterable[str], fallback: str = "study") -> str:
    """:func:`slug` of ``name``, with ``-2``, ``-3``, ... appended until it is not in ``taken``.

    >>> unique_id("My study", ["my-study", "my-study-2"])
    'my-study-3'
    """
    taken = set(taken)
    base = slug(name) or fallback
    candidate, k = base, 2
    while candidate in taken:
        candidate, k = f"{base}-{k}", k + 1
    return candidate


def match_criteria(heds_criteria: list[str], study_criteria: list[str]) -> tuple[dict[str, str], list[str]]:
    """Which HEDS criterion fills which study criterion: same name, or the only one to the only one.

    Returns ``(mapping heds name -> study name, HEDS criteria not in the study)``.

    >>> match_criteria(["Fluency", "Adequacy"], ["Fluency"])
    ({'Fluency': 'Fluency'}, ['Adequacy'])
    >>> match_criteria(["quality"], ["Overall"])
    ({'quality': 'Overall'}, [])
    """
    mapping = {c: c for c in heds_criteria if c in study_criteria}
    if len(heds_criteria) == 1 and len(study_criteria) == 1:
        mapping = {heds_criteria[0]: study_criteria[0]}
    return mapping, [c for c in heds_criteria if c not in mapping]
