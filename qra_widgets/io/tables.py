"""Long score and label tables (CSV, TSV or Excel) to a study, and ``load_study`` for any study file.

Long CSV (or Excel) scores: columns ``experiment, quality_criterion, system, score`` and
optionally ``scale_min`` / ``scale_max`` (constant per QC), ``role``, ``source``.
Long CSV labels: ``experiment, quality_criterion, system, item, label``.

Every problem raises :class:`~qra_widgets.QRAInputError` naming the file, row or field.
"""

from __future__ import annotations

import csv
import math
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import QRAInputError, ScalesNeeded
from ..labels import Labels
from ..study import Experiment, QualityCriterion, Study
from .parse import required_number
from .reading import check_size, decode, read_bytes, read_csv_frame, read_excel_rows, shown, shown_values
from .study_json import study_from_json

SCORE_COLUMNS = ("experiment", "quality_criterion", "system", "score")
LABEL_COLUMNS = ("experiment", "quality_criterion", "system", "item", "label")


# ----------------------------------------------------------------------------- tables


def read_table(data: bytes, source: str, required: tuple[str, ...], excel: bool = False):
    """A long table as a DataFrame of stripped strings, with the required columns checked.

    The bytes go through :mod:`qra_widgets.io.reading` (size, zip-bomb and row/column caps,
    rows as long as the header); a column named twice is refused rather than renamed.
    """
    import pandas as pd

    check_size(len(data), source)
    if excel:
        table = pd.DataFrame(read_excel_rows(data, source), dtype=object)
    else:
        text = decode(data, source)
        table = read_csv_frame(text, source, delimiter=_delimiter(text))
    columns = [str(c).strip().lower() for c in table.iloc[0]]
    seen: dict[str, int] = {}
    for number, name in enumerate(columns, start=1):
        if name == "":
            trailing = number == len(columns) and (table.iloc[1:, -1].str.strip() == "").all()
            hint = (
                ": every row ends with a delimiter (a trailing comma?); remove it"
                if trailing
                else "; name it or remove it"
            )
            raise QRAInputError(f"{source}: column {number} has no name in the header row{hint}")
        if name in seen:
            raise QRAInputError(
                f"{source}: column {shown(name)} appears twice in the header (columns {seen[name]} and {number}); "
                "keep one"
            )
        seen[name] = number
    missing = [c for c in required if c not in seen]
    if missing:
        raise QRAInputError(
            f"{source}: missing column(s) {missing}; found {shown_values(columns)}; expected {list(required)}"
        )
    if len(table) == 1:
        raise QRAInputError(f"{source}: has a header but no rows")
    frame = table.iloc[1:].reset_index(drop=True)
    frame.columns = columns
    return frame.apply(lambda column: column.str.strip())


def _delimiter(text: str) -> str:
    head = "\n".join(text.splitlines()[:20])
    try:
        return csv.Sniffer().sniff(head, delimiters=",;\t").delimiter
    except csv.Error:
        return ","


_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _cell_number(value: str, source: str, row: int, column: str) -> float:
    """A table cell as a number: plain decimal notation only (``1_000``, ``0x10`` are refused)."""
    shown = value if len(value) <= 40 else f"{value[:20]}...{value[-8:]}' ({len(value)} characters)"
    where = (
        f"{source}: row {row}, column {column!r}: {shown!r}"
        if len(value) <= 40
        else f"{source}: row {row}, column {column!r}: '{shown}"
    )
    if not _NUMBER.fullmatch(value):
        if "_" in value:
            raise QRAInputError(f"{where} is not a number (remove the '_' digit separators)")
        if "," in value:
            raise QRAInputError(f"{where} is not a number (use '.' as the decimal point, no thousands separators)")
        if value.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise QRAInputError(f"{where} is not a finite number")
        raise QRAInputError(f"{where} is not a number")
    number = float(value)
    if not math.isfinite(number):
        raise QRAInputError(f"{where} is not a finite number (too large)")
    return number


def _constant_per_qc(frame, column: str, source: str) -> dict[str, float]:
    values: dict[str, float] = {}
    for index, (qc, raw) in enumerate(zip(frame["quality_criterion"], frame[column])):
        if raw == "":
            continue
        number = _cell_number(raw, source, index + 2, column)
        if values.setdefault(qc, number) != number:
            raise QRAInputError(
                f"{source}: row {index + 2}: {column} of {shown(qc)} is {number}, but {values[qc]} earlier; it must be constant per quality criterion"
            )
    return values


def _first_seen(values) -> list[str]:
    return list(dict.fromkeys(values))


def study_from_scores_table(
    frame, study_id: str, source: str = "scores table", scale_min: float | dict[str, float] | None = None
) -> Study:
    """A study from a long scores table (columns ``experiment, quality_criterion, system, score``).

    Each criterion's scale minimum comes from the ``scale_min`` column, else from ``scale_min``
    (one number for every criterion, or ``{criterion: number}``: the CLI's ``--scale-min``).
    It is never assumed: a criterion without one is refused, naming the column and the option.
    """
    for column in ("experiment", "quality_criterion", "system"):
        empty = frame.index[frame[column] == ""]
        if len(empty):
            raise QRAInputError(f"{source}: row {empty[0] + 2}, column {column!r} is empty")
    minimums = _constant_per_qc(frame, "scale_min", source) if "scale_min" in frame else {}
    maximums = _constant_per_qc(frame, "scale_max", source) if "scale_max" in frame else {}
    given = scale_min if isinstance(scale_min, dict) else {}
    names = _first_seen(frame["quality_criterion"])
    for q in names:
        if q not in minimums and (q in given or (scale_min is not None and not isinstance(scale_min, dict))):
            minimums[q] = float(given.get(q, scale_min))
    roles: dict[str, str] = {}
    for row, (experiment, role) in enumerate(
        zip(frame["experiment"], frame["role"]) if "role" in frame else (), start=2
    ):
        if role and roles.setdefault(experiment, role) != role:  # one experiment, one role
            raise QRAInputError(
                f"{source}: row {row}, column 'role': experiment {shown(experiment)} is {shown(role)} here "
                f"but {shown(roles[experiment])} above; give each experiment one role"
            )
    experiments = [
        Experiment(e, label=e, role=roles.get(e) or ("original" if i == 0 else "repeat"))
        for i, e in enumerate(_first_seen(frame["experiment"]))
    ]
    scores, sources, rows = {}, {}, {}
    for index, record in enumerate(frame.to_dict("records")):
        key = (record["quality_criterion"], record["system"], record["experiment"])
        if key in rows:
            raise QRAInputError(
                f"{source}: rows {rows[key]} and {index + 2} both give the score of {shown(key[1])} in {shown(key[2])} on {shown(key[0])}"
            )
        rows[key] = index + 2
        scores[key] = _cell_number(record["score"], source, index + 2, "score")
        if record.get("source"):
            sources[key] = record["source"]
    without = [q for q in names if q not in minimums]
    if without:
        raise QRAInputError(
            f"{source}: no scale minimum for {', '.join(map(shown, without[:5]))}: add a 'scale_min' "
            f"column (constant per quality criterion) or give --scale-min (e.g. --scale-min 1, or "
            f"--scale-min {shown(without[0])}=1); CV* subtracts it, so it is never assumed to be 0"
        )
    qcs = [QualityCriterion(q, minimums[q], maximums.get(q)) for q in names]
    return Study(
        id=study_id,
        name=study_id,
        quality_criteria=qcs,
        systems=_first_seen(frame["system"]),
        experiments=experiments,
        scores=scores,
        sources=sources,
    )


def merge_scores_table(
    study: Study, frame, source: str = "scores table", scales: dict[str, tuple[Any, float | None]] | None = None
) -> Study:
    """``study`` with its scores, systems and experiments replaced by a long scores table's.

    Scales come from the table's ``scale_min`` / ``scale_max`` columns if it has them (the
    study's criteria keep their other fields); otherwise a criterion the study has keeps its
    scale (every score is checked against it), and a new criterion needs ``scales[name] =
    (min, max)``.  A scale is never assumed: without one, :class:`~qra_widgets.errors.ScalesNeeded`
    names the criteria.  Experiments the study has keep their labels, roles and properties;
    its metadata is kept but for published values (they belong to the old scores).
    ``study`` is not changed; the result is validated.

    >>> import pandas as pd
    >>> table = pd.DataFrame({"experiment": ["E1", "E2"], "quality_criterion": ["Fluency"] * 2,
    ...                       "system": ["A", "A"], "score": ["4.5", "3.0"]})
    >>> old = Study("s", quality_criteria=[QualityCriterion("Fluency", 1, 5)])
    >>> merged = merge_scores_table(old, table)
    >>> merged.quality_criteria[0].scale_min, sorted(merged.scores.values())
    (1.0, [3.0, 4.5])
    >>> merge_scores_table(Study("s"), table)
    Traceback (most recent call last):
    ...
    qra_widgets.errors.ScalesNeeded: scores table: give the scale minimum of 'Fluency'
    """
    scales = scales or {}
    current = {qc.name: qc for qc in study.quality_criteria}
    has_scales = "scale_min" in frame
    shifted = frame
    if not has_scales:  # read (numbers, duplicates, empty cells checked) without assuming a minimum...
        shifted = frame.assign(scale_min=[str(min(_lowest(frame, q), 0.0)) for q in frame["quality_criterion"]])
    imported = study_from_scores_table(shifted, study.id, source)
    missing = [] if has_scales else [q for q in imported.qc_names if q not in current and q not in scales]
    if missing:  # ...then ask for the scales it does not have
        raise ScalesNeeded(f"{source}: give the scale minimum of {', '.join(map(repr, missing))}", criteria=missing)
    criteria = []
    for qc in imported.quality_criteria:
        if has_scales:
            base = current.get(qc.name)
            criteria.append(replace(base, scale_min=qc.scale_min, scale_max=qc.scale_max) if base else qc)
        elif qc.name in current:
            criteria.append(current[qc.name])
        else:
            low, high = scales[qc.name]
            criteria.append(QualityCriterion(qc.name, required_number(str(low), f"{qc.name}: scale minimum"), high))
    existing = {e.id: e for e in study.experiments}
    scales_of = {qc.name: qc for qc in criteria}
    scores = {
        key: scales_of[key[0]].check_score(value, f"{source}: score of {key[1]!r} in {key[2]!r} on {key[0]!r}")
        for key, value in imported.scores.items()
    }
    merged = Study(
        id=study.id,
        name=study.name,
        description=study.description,
        quality_criteria=criteria,
        systems=imported.systems,
        experiments=[existing.get(e.id, e) for e in imported.experiments],
        scores=scores,
        sources=dict(imported.sources),
        metadata={k: v for k, v in study.metadata.items() if k != "published_values"},
    )
    merged.validate()
    return merged


def _lowest(frame, criterion: str) -> float:
    """The lowest score of a criterion in a table (non-numbers are left for the reader to report)."""
    import pandas as pd

    values = pd.to_numeric(frame.loc[frame["quality_criterion"] == criterion, "score"], errors="coerce")
    return float(values.min()) if values.notna().any() else 0.0


def add_labels_table(study: Study, frame, source: str = "labels table") -> Study:
    """Add Type III labels from a long table (``experiment, quality_criterion, system, item, label``).

    Numeric labels become numbers, others stay text.  Nothing is added if any row is bad.
    """
    import pandas as pd

    keys = list(LABEL_COLUMNS[:4])
    repeated = frame.duplicated(subset=keys, keep=False).to_numpy()
    if repeated.any():
        rows = [i + 2 for i in np.flatnonzero(repeated)[:2]]
        item, system, experiment = (frame.iloc[rows[0] - 2][c] for c in ("item", "system", "experiment"))
        raise QRAInputError(
            f"{source}: rows {rows[0]} and {rows[1]} both label item {shown(item)} of {shown(system)} in {shown(experiment)}"
        )
    empty = (frame["label"] == "").to_numpy()
    if empty.any():
        raise QRAInputError(f"{source}: row {int(np.argmax(empty)) + 2}, column 'label' is empty")
    numbers = pd.to_numeric(frame["label"], errors="coerce")
    unreadable = (
        numbers.isna() | np.isinf(numbers.fillna(0))
    ).to_numpy()  # pandas 3 reads '1e400' as inf, pandas 2 as nan
    for row in np.flatnonzero(unreadable):  # text labels; a number too large for a float is refused
        value = frame["label"].iloc[row]
        if value.strip().lower().lstrip("+-") in ("nan", "na", "n/a", "null", "none", "inf", "infinity"):
            raise QRAInputError(
                f"{source}: row {int(row) + 2}, column 'label': {shown(value)} is not a label but a missing or "
                "infinite value; leave out the row of an item without a label"
            )
        if _NUMBER.fullmatch(value) and not math.isfinite(float(value)):
            _cell_number(value, source, int(row) + 2, "label")
    labels = np.where(
        numbers.notna() & np.isfinite(numbers.fillna(0)), numbers.astype(object), frame["label"].astype(object)
    )
    added = Labels.from_columns(
        frame["quality_criterion"].to_numpy(),
        frame["system"].to_numpy(),
        frame["item"].to_numpy(),
        frame["experiment"].to_numpy(),
        labels,
    )
    previous = study.labels
    study.labels = Labels(previous).merged(added) if not isinstance(previous, Labels) else previous.merged(added)
    try:
        study.validate()
    except QRAInputError as error:
        study.labels = previous  # nothing half-added
        raise QRAInputError(f"{source}: {error}") from None
    return study


def load_study(
    path: str | os.PathLike,
    labels: str | os.PathLike | None = None,
    *,
    scale_min: float | dict[str, float] | None = None,
) -> Study:
    """Read a study from JSON, a long scores CSV, or an Excel file (.xlsx).

    ``labels`` optionally names a long labels CSV to add as Type III results.  ``scale_min``
    gives the scale minimum of a scores table without a ``scale_min`` column (see
    :func:`study_from_scores_table`).
    A CSV/Excel study takes its id from the file name; the first experiment seen is the
    original unless a ``role`` column says otherwise.

    Parameters
    ----------
    path : str or os.PathLike
        A study JSON file, a long scores CSV or an Excel workbook (.xlsx).
    labels : str or os.PathLike, optional
        A long labels CSV (experiment, quality_criterion, system, item, label).
    scale_min : float or dict of str to float, optional
        The scale minimum of a scores table without a ``scale_min`` column: one number for
        every criterion, or criterion -> number (never assumed to be 0).

    Returns
    -------
    Study
        The study read from the file.
    """
    path = Path(path)
    data = read_bytes(path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        study = study_from_json(data, path.name)
    elif suffix in (".csv", ".tsv", ".txt", ".xlsx"):
        frame = read_table(data, path.name, SCORE_COLUMNS, excel=suffix == ".xlsx")
        study = study_from_scores_table(frame, path.stem, path.name, scale_min)
    else:
        raise QRAInputError(f"{path.name}: unknown file type {suffix!r}; use .json, .csv or .xlsx")
    if labels is not None:
        labels_path = Path(labels)
        add_labels_table(study, read_table(read_bytes(labels_path), labels_path.name, LABEL_COLUMNS), labels_path.name)
    return study
