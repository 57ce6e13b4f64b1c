"""Study JSON: the versioned schema, reading and writing it, and atomic saves.

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

Long score and label tables are :mod:`qra_widgets.io.tables`.

Every problem raises :class:`~qra_widgets.QRAInputError` naming the file, row or field.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..errors import QRAInputError
from ..study import Experiment, QualityCriterion, Study
from .reading import load_json

SCHEMA = "qra-widgets/study"
SCHEMA_VERSION = 1


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
        raise QRAInputError(
            f"{where}.{key}: expected {'/'.join(k.__name__ for k in kinds)}, got {type(value).__name__}"
        )
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
        raise QRAInputError(
            f"schema: expected {SCHEMA!r}, got {data.get('schema')!r}; is this a qra-widgets study file?"
        )
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
        quality_criteria=[
            _quality_criterion(q, f"quality_criteria[{i}]") for i, q in enumerate(_records(data, "quality_criteria"))
        ],
        systems=list(_field(data, "systems", list, "study", default=[])),
        experiments=[_experiment(e, f"experiments[{i}]") for i, e in enumerate(_records(data, "experiments"))],
        scores=scores,
        labels=_keyed(
            _records(data, "labels"),
            ("quality_criterion", "system", "item", "experiment"),
            "label",
            (str, int, float),
            "labels",
        ),
        findings=_keyed(
            _records(data, "findings"),
            ("quality_criterion", "experiment", "system_a", "system_b"),
            "sign",
            int,
            "findings",
        ),
        sources=sources,
        metadata=_with_conventions(_field(data, "metadata", dict, "study", default={}), data),
        ratings=_ratings(data),
    )


def _with_conventions(metadata: dict, data: dict) -> dict:
    """The optional ``conventions`` key (a preset name or fields, see :mod:`qra_widgets.conventions`)
    is validated and kept in ``metadata["conventions"]``, where ``assess()`` finds it."""
    if data.get("conventions") is None:
        return metadata
    from ..conventions import Conventions

    return {**metadata, "conventions": Conventions.from_dict(data["conventions"], "conventions").to_stored()}


def _ratings(data: dict):
    """The optional item-level ``"ratings"`` block (columnar) and its ``"annotation_spec"``."""
    from ..ratings import Ratings

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
            {
                "name": q.name,
                "scale_min": q.scale_min,
                "scale_max": q.scale_max,
                "qcet_id": q.qcet_id,
                "label_level": q.label_level,
                "description": q.description,
                "evaluation_type": q.evaluation_type,
            }
            for q in study.quality_criteria
        ],
        "systems": list(study.systems),
        "experiments": [
            {
                "id": e.id,
                "label": e.label,
                "team": e.team,
                "date": e.date,
                "role": e.role,
                "properties": e.properties,
                "conditions": e.conditions,
            }
            for e in study.experiments
        ],
        "scores": [score_record(k, v) for k, v in study.scores.items()],
        "labels": [
            dict(zip(("quality_criterion", "system", "item", "experiment"), k), label=v)
            for k, v in study.labels.items()
        ],
        "findings": [
            dict(zip(("quality_criterion", "experiment", "system_a", "system_b"), k), sign=v)
            for k, v in study.findings.items()
        ],
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
    """A study from JSON text, read with :func:`qra_widgets.io.reading.load_json`'s caps."""
    return study_from_dict(load_json(text, source))


# ----------------------------------------------------------------------------- files


def _umask() -> int:
    """The process's umask, read without changing it where Linux reports it (``/proc``); else
    set and restored at once."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` so that a crash leaves either the old file or the new one, never half.

    The file gets the mode any other tool's output gets: an existing file keeps its mode, a new
    one ``0o666`` less the umask (the temporary file :func:`tempfile.mkstemp` makes is ``0o600``).
    """
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
            try:
                mode = path.stat().st_mode & 0o7777
            except OSError:
                mode = 0o666 & ~_umask()
            os.fchmod(stream.fileno(), mode)
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise QRAInputError(
            f"{path}: cannot be written ({error.strerror or error}); the old file, if any, is unchanged"
        ) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def save_study(study: Study, path: str | os.PathLike) -> None:
    """Write ``study`` as JSON, atomically (validated first, so the file can be read back)."""
    study.validate()
    atomic_write_text(path, study_to_json(study))
