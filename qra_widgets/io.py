"""Study files: the versioned JSON schema, long CSV / Excel tables, and atomic saves.

JSON (``"schema": "qra-widgets/study"``, ``"version": 1``)::

    {"schema": "qra-widgets/study", "version": 1,
     "id": "qrapp-example1", "name": "...", "description": "...",
     "quality_criteria": [{"name": "Fluency", "scale_min": 1, "scale_max": 4, "qcet_id": null}],
     "systems": ["SVM", "GeDi"],
     "experiments": [{"id": "August2022", "label": "...", "team": "...", "date": "2022",
                      "role": "original", "properties": {}, "conditions": {}}],
     "scores": [{"quality_criterion": "Fluency", "system": "SVM", "experiment": "August2022",
                 "score": 3.71, "source": "paper, table, row"}],
     "labels": [{"quality_criterion": "...", "system": "...", "item": "...", "experiment": "...", "label": 3}],
     "findings": [{"quality_criterion": "...", "experiment": "...", "system_a": "...", "system_b": "...", "sign": 1}],
     "metadata": {}}

Long CSV (or Excel) scores: columns ``experiment, quality_criterion, system, score`` and
optionally ``scale_min`` / ``scale_max`` (constant per QC), ``role``, ``source``.
Long CSV labels: ``experiment, quality_criterion, system, item, label``.

Every problem raises :class:`~qra_widgets.QRAInputError` naming the file, row or field.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from .errors import QRAInputError
from .labels import Labels
from .reading import MAX_FILE_BYTES, check_size, decode, load_json, read_bytes, read_csv_frame, read_excel_rows  # noqa: F401 (MAX_FILE_BYTES re-exported)
from .study import Experiment, QualityCriterion, Study

SCHEMA = "qra-widgets/study"
SCHEMA_VERSION = 1
SCORE_COLUMNS = ("experiment", "quality_criterion", "system", "score")
LABEL_COLUMNS = ("experiment", "quality_criterion", "system", "item", "label")


# ----------------------------------------------------------------------------- JSON


def _field(data: dict, key: str, kind, where: str, default: Any = ...) -> Any:
    if key not in data:
        if default is ...:
            raise QRAInputError(f"{where}: missing field {key!r}")
        return default
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if value is None and default is None:
        return None
    if isinstance(value, bool) and bool not in kinds:
        raise QRAInputError(f"{where}.{key}: expected {'/'.join(k.__name__ for k in kinds)}, got {value!r}")
    if not isinstance(value, kinds):
        raise QRAInputError(f"{where}.{key}: expected {'/'.join(k.__name__ for k in kinds)}, got {type(value).__name__}")
    return value


def _records(data: dict, key: str) -> list[dict]:
    items = _field(data, key, list, "study", default=[])
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise QRAInputError(f"{key}[{i}]: expected an object, got {type(item).__name__}")
    return items


def _quality_criterion(item: dict, where: str) -> QualityCriterion:
    return QualityCriterion(
        name=_field(item, "name", str, where),
        scale_min=_field(item, "scale_min", (int, float), where, default=0.0),
        scale_max=_field(item, "scale_max", (int, float), where, default=None),
        qcet_id=_field(item, "qcet_id", str, where, default=None),
        label_level=_field(item, "label_level", str, where, default="nominal"),
        description=_field(item, "description", str, where, default=""),
        evaluation_type=_field(item, "evaluation_type", str, where, default="unknown"),
    )


def _experiment(item: dict, where: str) -> Experiment:
    return Experiment(
        id=_field(item, "id", str, where),
        label=_field(item, "label", str, where, default=""),
        team=_field(item, "team", str, where, default=""),
        date=_field(item, "date", str, where, default=""),
        role=_field(item, "role", str, where, default="repeat"),
        properties=_field(item, "properties", dict, where, default={}),
        conditions=_field(item, "conditions", dict, where, default={}),
    )


def _keyed(records: list[dict], key_fields: tuple[str, ...], value_field: str, kinds, name: str) -> dict:
    result: dict = {}
    for i, item in enumerate(records):
        where = f"{name}[{i}]"
        key = tuple(_field(item, f, str, where) for f in key_fields)
        if key in result:
            raise QRAInputError(f"{where}: duplicate cell {dict(zip(key_fields, key))}")
        result[key] = _field(item, value_field, kinds, where)
    return result


def study_from_dict(data: Any) -> Study:
    """Build a validated :class:`Study` from parsed JSON (schema version 1)."""
    if not isinstance(data, dict):
        raise QRAInputError(f"study: expected a JSON object at the top level, got {type(data).__name__}")
    if data.get("schema") != SCHEMA:
        raise QRAInputError(f"schema: expected {SCHEMA!r}, got {data.get('schema')!r}; is this a qra-widgets study file?")
    version = data.get("version")
    if version != SCHEMA_VERSION:
        raise QRAInputError(f"version: {version!r} is not supported; this qra-widgets reads version {SCHEMA_VERSION}")
    score_records = _records(data, "scores")
    scores = _keyed(score_records, ("quality_criterion", "system", "experiment"), "score", (int, float), "scores")
    sources = {
        (r["quality_criterion"], r["system"], r["experiment"]): _field(r, "source", str, f"scores[{i}]")
        for i, r in enumerate(score_records)
        if r.get("source") is not None
    }
    return Study(
        id=_field(data, "id", str, "study"),
        name=_field(data, "name", str, "study", default=""),
        description=_field(data, "description", str, "study", default=""),
        quality_criteria=[_quality_criterion(q, f"quality_criteria[{i}]") for i, q in enumerate(_records(data, "quality_criteria"))],
        systems=list(_field(data, "systems", list, "study", default=[])),
        experiments=[_experiment(e, f"experiments[{i}]") for i, e in enumerate(_records(data, "experiments"))],
        scores=scores,
        labels=_keyed(_records(data, "labels"), ("quality_criterion", "system", "item", "experiment"), "label", (str, int, float), "labels"),
        findings=_keyed(_records(data, "findings"), ("quality_criterion", "experiment", "system_a", "system_b"), "sign", int, "findings"),
        sources=sources,
        metadata=_with_conventions(_field(data, "metadata", dict, "study", default={}), data),
        ratings=_ratings(data),
    )


def _with_conventions(metadata: dict, data: dict) -> dict:
    """The optional ``conventions`` key (a preset name or fields, see :mod:`qra_widgets.conventions`)
    is validated and kept in ``metadata["conventions"]``, where ``assess()`` finds it."""
    if data.get("conventions") is None:
        return metadata
    from .conventions import Conventions

    return {**metadata, "conventions": Conventions.from_dict(data["conventions"], "conventions").to_stored()}


def _ratings(data: dict):
    """The optional item-level ``"ratings"`` block (columnar) and its ``"annotation_spec"``."""
    from .ratings import Ratings

    spec = _field(data, "annotation_spec", dict, "study", default=None)
    if "ratings" not in data:
        return Ratings(spec=spec)
    return Ratings.from_dict(data["ratings"], spec=spec)


def study_to_dict(study: Study) -> dict:
    """The JSON-ready form of ``study`` (schema version 1)."""
    def score_record(key, value):
        record = dict(zip(("quality_criterion", "system", "experiment"), key), score=value)
        if key in study.sources:
            record["source"] = study.sources[key]
        return record

    return {
        "schema": SCHEMA,
        "version": SCHEMA_VERSION,
        "id": study.id,
        "name": study.name,
        "description": study.description,
        "quality_criteria": [
            {"name": q.name, "scale_min": q.scale_min, "scale_max": q.scale_max, "qcet_id": q.qcet_id,
             "label_level": q.label_level, "description": q.description, "evaluation_type": q.evaluation_type}
            for q in study.quality_criteria
        ],
        "systems": list(study.systems),
        "experiments": [
            {"id": e.id, "label": e.label, "team": e.team, "date": e.date, "role": e.role,
             "properties": e.properties, "conditions": e.conditions}
            for e in study.experiments
        ],
        "scores": [score_record(k, v) for k, v in study.scores.items()],
        "labels": [dict(zip(("quality_criterion", "system", "item", "experiment"), k), label=v) for k, v in study.labels.items()],
        "findings": [dict(zip(("quality_criterion", "experiment", "system_a", "system_b"), k), sign=v) for k, v in study.findings.items()],
        "metadata": {k: v for k, v in study.metadata.items() if k != "conventions"},
        **({"conventions": study.metadata["conventions"]} if study.metadata.get("conventions") is not None else {}),
        **_ratings_record(study),
    }


def _ratings_record(study: Study) -> dict:
    ratings = getattr(study, "ratings", None)
    record = {}
    if ratings:
        record["ratings"] = ratings.to_dict()
    if ratings is not None and ratings.spec is not None:
        record["annotation_spec"] = ratings.spec
    return record


def study_to_json(study: Study) -> str:
    return json.dumps(study_to_dict(study), ensure_ascii=False, indent=1, allow_nan=False)


def study_from_json(text: str | bytes, source: str = "study JSON") -> Study:
    """A study from JSON text, read with :func:`qra_widgets.reading.load_json`'s caps."""
    return study_from_dict(load_json(text, source))


# ----------------------------------------------------------------------------- tables


def read_table(data: bytes, source: str, required: tuple[str, ...], excel: bool = False):
    """A long table as a DataFrame of stripped strings, with the required columns checked.

    The bytes go through :mod:`qra_widgets.reading` (size, zip-bomb and row/column caps,
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
            hint = ": every row ends with a delimiter (a trailing comma?); remove it" if trailing else "; name it or remove it"
            raise QRAInputError(f"{source}: column {number} has no name in the header row{hint}")
        if name in seen:
            raise QRAInputError(f"{source}: column {name!r} appears twice in the header (columns {seen[name]} and {number}); "
                                "keep one")
        seen[name] = number
    missing = [c for c in required if c not in seen]
    if missing:
        raise QRAInputError(f"{source}: missing column(s) {missing}; found {columns}; expected {list(required)}")
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
    where = f"{source}: row {row}, column {column!r}: {shown!r}" if len(value) <= 40 else f"{source}: row {row}, column {column!r}: '{shown}"
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
            raise QRAInputError(f"{source}: row {index + 2}: {column} of {qc!r} is {number}, but {values[qc]} earlier; it must be constant per quality criterion")
    return values


def _first_seen(values) -> list[str]:
    return list(dict.fromkeys(values))


def study_from_scores_table(frame, study_id: str, source: str = "scores table") -> Study:
    """A study from a long scores table (columns ``experiment, quality_criterion, system, score``)."""
    for column in ("experiment", "quality_criterion", "system"):
        empty = frame.index[frame[column] == ""]
        if len(empty):
            raise QRAInputError(f"{source}: row {empty[0] + 2}, column {column!r} is empty")
    minimums = _constant_per_qc(frame, "scale_min", source) if "scale_min" in frame else {}
    maximums = _constant_per_qc(frame, "scale_max", source) if "scale_max" in frame else {}
    qcs = [QualityCriterion(q, minimums.get(q, 0.0), maximums.get(q)) for q in _first_seen(frame["quality_criterion"])]
    roles = dict(zip(frame["experiment"], frame["role"])) if "role" in frame else {}
    experiments = [Experiment(e, label=e, role=roles.get(e) or ("original" if i == 0 else "repeat"))
                   for i, e in enumerate(_first_seen(frame["experiment"]))]
    scores, sources, rows = {}, {}, {}
    for index, record in enumerate(frame.to_dict("records")):
        key = (record["quality_criterion"], record["system"], record["experiment"])
        if key in rows:
            raise QRAInputError(f"{source}: rows {rows[key]} and {index + 2} both give the score of {key[1]!r} in {key[2]!r} on {key[0]!r}")
        rows[key] = index + 2
        scores[key] = _cell_number(record["score"], source, index + 2, "score")
        if record.get("source"):
            sources[key] = record["source"]
    return Study(id=study_id, name=study_id, quality_criteria=qcs, systems=_first_seen(frame["system"]),
                 experiments=experiments, scores=scores, sources=sources)


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
        raise QRAInputError(f"{source}: rows {rows[0]} and {rows[1]} both label item {item!r} of {system!r} in {experiment!r}")
    empty = (frame["label"] == "").to_numpy()
    if empty.any():
        raise QRAInputError(f"{source}: row {int(np.argmax(empty)) + 2}, column 'label' is empty")
    numbers = pd.to_numeric(frame["label"], errors="coerce")
    # text labels; a number too large for a float is refused (pandas 3 reads '1e400' as inf, pandas 2 as NaN)
    for row in np.flatnonzero((numbers.isna() | ~np.isfinite(numbers.fillna(0))).to_numpy()):
        value = frame["label"].iloc[row]
        if _NUMBER.fullmatch(value) and not math.isfinite(float(value)):
            _cell_number(value, source, int(row) + 2, "label")
    labels = np.where(numbers.notna() & np.isfinite(numbers.fillna(0)), numbers.astype(object), frame["label"].astype(object))
    added = Labels.from_columns(frame["quality_criterion"].to_numpy(), frame["system"].to_numpy(), frame["item"].to_numpy(),
                                frame["experiment"].to_numpy(), labels)
    previous = study.labels
    study.labels = Labels(previous).merged(added) if not isinstance(previous, Labels) else previous.merged(added)
    try:
        study.validate()
    except QRAInputError as error:
        study.labels = previous  # nothing half-added
        raise QRAInputError(f"{source}: {error}") from None
    return study


# ----------------------------------------------------------------------------- files


def load_study(path: str | os.PathLike, labels: str | os.PathLike | None = None) -> Study:
    """Read a study from JSON, a long scores CSV, or an Excel file (.xlsx).

    ``labels`` optionally names a long labels CSV to add as Type III results.
    A CSV/Excel study takes its id from the file name; the first experiment seen is the
    original unless a ``role`` column says otherwise.
    """
    path = Path(path)
    data = read_bytes(path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        study = study_from_json(data, path.name)
    elif suffix in (".csv", ".tsv", ".txt", ".xlsx"):
        frame = read_table(data, path.name, SCORE_COLUMNS, excel=suffix == ".xlsx")
        study = study_from_scores_table(frame, path.stem, path.name)
    else:
        raise QRAInputError(f"{path.name}: unknown file type {suffix!r}; use .json, .csv or .xlsx")
    if labels is not None:
        labels_path = Path(labels)
        add_labels_table(study, read_table(read_bytes(labels_path), labels_path.name, LABEL_COLUMNS), labels_path.name)
    return study


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` so that a crash leaves either the old file or the new one, never half."""
    path = Path(path)
    if path.is_dir():
        raise QRAInputError(f"{path}: is a folder; give a file name to write")
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent or ".", prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise QRAInputError(f"{path}: cannot be written ({error.strerror or error})") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise QRAInputError(f"{path}: cannot be written ({error.strerror or error}); the old file, if any, is unchanged") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def save_study(study: Study, path: str | os.PathLike) -> None:
    """Write ``study`` as JSON, atomically (validated first, so the file can be read back)."""
    study.validate()
    atomic_write_text(path, study_to_json(study))
