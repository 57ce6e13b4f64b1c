"""Annotation specs: from each experiment's item-level annotation file to a :class:`~qra_widgets.Study`.

A spec (JSON, ``"schema": "qra-widgets/annotations"``, ``"version": 1``) says where each
experiment's file is and what its columns mean::

    {"schema": "qra-widgets/annotations", "version": 1, "id": "yao2022", "name": "...",
     "quality_criteria": [{"name": "Readability", "scale_min": 1, "scale_max": 5, "label_level": "ordinal"}],
     "systems": {"groundtruth": "GT", "Ours": "QAG"},
     "missing": ["", "NA", "*"],
     "experiments": [{"id": "O", "role": "original", "file": "original.csv",
                      "columns": {"system": "source", "item": "qa_id", "rater": "labeller_id",
                                  "criteria": {"Readability": "readability (1-5)"}}}]}

* **Layouts.** *Wide*: one column per criterion (``columns.criteria`` maps each criterion
  to its column).  *Long*: ``columns.criterion`` names the column holding the criterion and
  ``columns.rating`` the one holding the rating; ``columns.criteria`` then optionally maps
  each criterion to the value used for it in the criterion column (default: its name).
* **Files.** Paths are relative to the spec file (or to ``base``); ``.csv``, ``.tsv`` /
  ``.tab`` and ``.xlsx`` (optional ``"sheet"``) are read.  An experiment may keep only some
  rows: ``"rows": {"participant": ["001", "002"]}``.
* **Names.** ``systems`` maps the names used in the files to the study's names (per
  experiment too, under the experiment); unmapped names are kept.  ``rater`` is optional
  (without it every rating counts as a different rater).  Cells listed in ``missing``
  (default ``"", "NA", "N/A", "nan", "*"``) are missing ratings and skipped.
* **What the study gets.** Its ``ratings`` (kept, with this spec, when the study is saved);
  Type I scores = each system's mean of all ratings per experiment (``aggregation``:
  ``mean``, ``item_mean`` or ``median``, see :mod:`qra_widgets.ratings`); Type III labels =
  each experiment's per-item label by the rule for the criterion's ``label_level``.
* **Bad input** raises :class:`~qra_widgets.QRAInputError` naming the file, row and column:
  a criterion column missing in a file, a rating that is not a number or is outside the
  scale, an item rated under two systems, the same rater rating an item twice, an
  experiment without ratings.  Items that only some experiments rated are allowed and
  reported in ``study.metadata["annotations"]``.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import numpy as np

from ..errors import QRAInputError
from .reading import check_shape, check_size, check_zip, decode, load_json, read_bytes, read_csv_frame

SCHEMA = "qra-widgets/annotations"
SCHEMA_VERSION = 1
DEFAULT_MISSING = ("", "NA", "N/A", "nan", "*")
EXCEL = (".xlsx", ".xlsm")
TAB = (".tsv", ".tab")


# ----------------------------------------------------------------------------- files


def read_frame(data: bytes, source: str, sheet: str | int | None = None):
    """A table of text cells from CSV / TSV / Excel bytes (the suffix of ``source`` decides).

    The bytes go through :mod:`qra_widgets.io.reading`'s caps: the file size, the zip directory
    of a workbook (before openpyxl unpacks anything), and the row and column limits.
    """
    import pandas as pd

    check_size(len(data), source)
    suffix = Path(source).suffix.lower()
    if suffix in EXCEL:
        check_zip(data, source)
        try:
            frame = pd.read_excel(io.BytesIO(data), sheet_name=sheet or 0, dtype=str, keep_default_na=False)
        except Exception as error:  # noqa: BLE001 - pandas/openpyxl raise many unrelated types for a corrupt file
            raise QRAInputError(f"{source}: cannot be read as a spreadsheet ({error})") from None
        check_shape(len(frame), len(frame.columns), source)
    else:
        text = decode(data, source)
        first = text.split("\n", 1)[0]
        sep = "\t" if suffix in TAB or ("\t" in first and "," not in first) else ","
        table = read_csv_frame(text, source, delimiter=sep)
        frame = pd.DataFrame(table.iloc[1:].to_numpy(), columns=list(table.iloc[0]))
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame.map(lambda v: str(v).strip())


def preview(data: bytes, source: str, rows: int = 5):
    """The first ``rows`` rows of an annotation file, as the app shows them before mapping columns."""
    return read_frame(data, source).head(rows)


_GUESSES = {
    "system": ("system", "model", "source", "model_type", "condition", "method"),
    "item": ("item", "item_id", "id", "qa_id", "example", "sample", "instance", "question_id"),
    "rater": ("rater", "annotator", "participant", "labeller", "labeler", "worker", "judge", "coder", "user"),
    "criterion": ("criterion", "quality_criterion", "aspect", "dimension", "question"),
    "rating": ("rating", "score", "value", "response", "answer", "label"),
}


def _normalised(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def guess_mapping(columns, quality_criteria=()) -> dict[str, Any]:
    """A first guess of which column is what, for the app's dropdowns (the user corrects it).

    >>> guess_mapping(["source", "qa_id", "labeller_id", "readability (1-5)"], ["Readability"])
    {'system': 'source', 'item': 'qa_id', 'rater': 'labeller_id', 'criteria': {'Readability': 'readability (1-5)'}}
    >>> guess_mapping(["participant", "item", "model_type", "score"])
    {'system': 'model_type', 'item': 'item', 'rater': 'participant', 'rating': 'score'}
    """
    columns = [str(c) for c in columns]
    normal = {c: _normalised(c) for c in columns}
    taken: set[str] = set()
    mapping: dict[str, Any] = {}

    def find(role: str) -> str | None:
        for word in _GUESSES[role]:  # exact names first, then names that start with a keyword
            for column in columns:
                if column not in taken and normal[column] == word:
                    return column
        for word in _GUESSES[role]:
            for column in columns:
                if column not in taken and (normal[column].startswith(word + "_") or normal[column].endswith("_" + word)):
                    return column
        return None

    for role in ("system", "item", "rater"):
        found = find(role)
        if found:
            mapping[role] = found
            taken.add(found)
    criteria = {}
    for qc in quality_criteria:
        for column in columns:
            if column not in taken and _normalised(qc) and normal[column].startswith(_normalised(qc)):
                criteria[qc] = column
                taken.add(column)
                break
    if criteria:
        mapping["criteria"] = criteria
    else:
        for role in ("criterion", "rating"):
            found = find(role)
            if found:
                mapping[role] = found
                taken.add(found)
    return mapping


# ----------------------------------------------------------------------------- the spec


def _require(data: dict, key: str, kind, where: str, default: Any = ...) -> Any:
    if key not in data or data[key] is None:
        if default is ...:
            raise QRAInputError(f"{where}: missing field {key!r}")
        return default
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, kind):
        names = "/".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise QRAInputError(f"{where}.{key}: expected {names}, got {value!r}")
    return value


def check_spec(spec: Any) -> dict:
    """Check the shape of a spec (not its files); return it."""
    if not isinstance(spec, dict):
        raise QRAInputError(f"annotation spec: expected a JSON object, got {type(spec).__name__}")
    if spec.get("schema") != SCHEMA:
        raise QRAInputError(f"annotation spec: schema must be {SCHEMA!r}, got {spec.get('schema')!r}")
    if spec.get("version") != SCHEMA_VERSION:
        raise QRAInputError(f"annotation spec: version {spec.get('version')!r} is not supported; this reads {SCHEMA_VERSION}")
    _require(spec, "id", str, "annotation spec")
    criteria = _require(spec, "quality_criteria", list, "annotation spec")
    if not criteria:
        raise QRAInputError("annotation spec: quality_criteria is empty")
    experiments = _require(spec, "experiments", list, "annotation spec")
    if len(experiments) < 1:
        raise QRAInputError("annotation spec: experiments is empty")
    for i, experiment in enumerate(experiments):
        where = f"annotation spec: experiments[{i}]"
        if not isinstance(experiment, dict):
            raise QRAInputError(f"{where}: expected an object")
        _require(experiment, "id", str, where)
        _require(experiment, "file", str, where)
        columns = _require(experiment, "columns", dict, where)
        for role in ("system", "item"):
            _require(columns, role, str, f"{where}.columns")
        long = "rating" in columns or "criterion" in columns
        if long:
            _require(columns, "criterion", str, f"{where}.columns")
            _require(columns, "rating", str, f"{where}.columns")
        else:
            _require(columns, "criteria", dict, f"{where}.columns")
    for key in ("systems",):
        _require(spec, key, dict, "annotation spec", default={})
    missing = _require(spec, "missing", list, "annotation spec", default=list(DEFAULT_MISSING))
    if not all(isinstance(v, str) for v in missing):
        raise QRAInputError("annotation spec: missing must be a list of texts")
    return spec


def _criteria(spec: dict):
    from ..study import QualityCriterion

    result = []
    for i, item in enumerate(spec["quality_criteria"]):
        where = f"annotation spec: quality_criteria[{i}]"
        if not isinstance(item, dict):
            raise QRAInputError(f"{where}: expected an object")
        result.append(QualityCriterion(
            name=_require(item, "name", str, where), scale_min=_require(item, "scale_min", (int, float), where, 0.0),
            scale_max=_require(item, "scale_max", (int, float), where, None), qcet_id=_require(item, "qcet_id", str, where, None),
            label_level=_require(item, "label_level", str, where, "ordinal"),
            description=_require(item, "description", str, where, "")))
    return result


def _experiment_ratings(experiment: dict, frame, source: str, criteria, systems_map: dict, missing: set) -> dict[str, list]:
    """One experiment's ratings as columns, after every check (errors name file, row and column)."""
    import pandas as pd

    columns = experiment["columns"]
    row_number = np.arange(len(frame)) + 2  # header is line / row 1
    for column, wanted in (experiment.get("rows") or {}).items():
        if column not in frame.columns:
            raise QRAInputError(f"{source}: column {column!r} (in rows) is missing; found {list(frame.columns)}")
        keep = frame[column].isin([str(v) for v in (wanted if isinstance(wanted, list) else [wanted])]).to_numpy()
        frame, row_number = frame[keep], row_number[keep]
    needed = [columns["system"], columns["item"]] + ([columns["rater"]] if columns.get("rater") else [])
    long = "rating" in columns
    criterion_of: dict[str, str] = {}
    if long:
        needed += [columns["criterion"], columns["rating"]]
        values = columns.get("criteria") or {qc.name: qc.name for qc in criteria}
        criterion_of = {str(v): name for name, v in values.items()}
    else:
        for qc in criteria:
            if qc.name not in columns["criteria"]:
                raise QRAInputError(f"{source}: the spec gives no column for quality criterion {qc.name!r} (columns.criteria)")
        needed += [columns["criteria"][qc.name] for qc in criteria]
    absent = [c for c in needed if c not in frame.columns]
    if absent:
        raise QRAInputError(f"{source}: column {absent[0]!r} is missing; found {list(frame.columns)}")
    system_names = {**systems_map, **(experiment.get("systems") or {})}
    system = frame[columns["system"]].map(lambda v: system_names.get(v, v)).to_numpy(dtype=object)
    item = frame[columns["item"]].to_numpy(dtype=object)
    rater = (frame[columns["rater"]].to_numpy(dtype=object) if columns.get("rater")
             else np.array([f"row {r}" for r in row_number], dtype=object))
    for values, column in ((system, columns["system"]), (item, columns["item"])):
        empty = values == ""
        if empty.any():
            raise QRAInputError(f"{source}: row {row_number[np.argmax(empty)]}, column {column!r} is empty")
    if long:
        known = frame[columns["criterion"]].isin(list(criterion_of)).to_numpy()
        for value, name in criterion_of.items():
            if not (frame[columns["criterion"]] == value).any():
                raise QRAInputError(f"{source}: column {columns['criterion']!r} has no rows for quality criterion "
                                    f"{name!r} (value {value!r})")
        qc_names = frame[columns["criterion"]].map(criterion_of).to_numpy(dtype=object)
        blocks = [(qc_names[known], frame[columns["rating"]].to_numpy(dtype=object)[known], columns["rating"], known)]
    else:
        blocks = [(np.full(len(frame), qc.name, dtype=object), frame[columns["criteria"][qc.name]].to_numpy(dtype=object),
                   columns["criteria"][qc.name], np.ones(len(frame), dtype=bool)) for qc in criteria]
    scale = {qc.name: qc for qc in criteria}
    out = {name: [] for name in ("quality_criterion", "system", "item", "rater", "rating", "row", "column")}
    for qc_names, raw, column, rows in blocks:
        present = ~pd.Series(raw, dtype=object).isin(missing).to_numpy()
        numbers = pd.to_numeric(pd.Series(raw[present], dtype=object), errors="coerce").to_numpy(dtype=float)
        at = row_number[rows][present]
        bad = ~np.isfinite(numbers)
        if bad.any():
            i = int(np.argmax(bad))
            raise QRAInputError(f"{source}: row {at[i]}, column {column!r}: {raw[present][i]!r} is not a number "
                                f"(list it under \"missing\" if it marks a missing rating)")
        names = qc_names[present]
        for name in dict.fromkeys(names):
            qc = scale[name]
            mine = names == name
            outside = mine & ((numbers < qc.scale_min) | ((numbers > qc.scale_max) if qc.scale_max is not None else False))
            if outside.any():
                i = int(np.argmax(outside))
                raise QRAInputError(f"{source}: row {at[i]}, column {column!r}: {numbers[i]:g} is outside the scale "
                                    f"{qc.scale_min:g}..{'' if qc.scale_max is None else f'{qc.scale_max:g}'} of {name!r}")
        out["quality_criterion"].append(names)
        out["system"].append(system[rows][present])
        out["item"].append(item[rows][present])
        out["rater"].append(rater[rows][present])
        out["rating"].append(numbers)
        out["row"].append(at)
        out["column"].append(np.full(len(at), column, dtype=object))
    merged = {k: (np.concatenate(v) if v else np.array([], dtype=object)) for k, v in out.items()}
    if not len(merged["rating"]):
        raise QRAInputError(f"{source}: experiment {experiment['id']!r} has no ratings (every rating cell is missing "
                            f"or filtered out)")
    _check_items(merged, source, columns)
    return merged


def _check_items(merged: dict, source: str, columns: dict) -> None:
    import pandas as pd

    frame = pd.DataFrame({k: merged[k] for k in ("quality_criterion", "system", "item", "rater", "row")})
    first_system = frame.groupby("item", sort=False).system.transform("first")
    clash = (frame.system != first_system).to_numpy()
    if clash.any():
        i = int(np.argmax(clash))
        earlier = int(frame.row[(frame["item"] == frame["item"].iat[i]) & (frame.system == first_system.iat[i])].iat[0])
        raise QRAInputError(f"{source}: row {frame.row.iat[i]}, column {columns['item']!r}: item {frame['item'].iat[i]!r} is "
                            f"rated under system {frame.system.iat[i]!r} here and {first_system.iat[i]!r} in row {earlier}")
    twice = frame.duplicated(["quality_criterion", "item", "rater"], keep=False).to_numpy()
    if twice.any() and columns.get("rater"):
        rows = frame.row.to_numpy()[twice][:2]
        i = int(np.argmax(twice))
        raise QRAInputError(f"{source}: rows {rows[0]} and {rows[1]}, column {columns['rater']!r}: rater {frame.rater.iat[i]!r} "
                            f"rates item {frame['item'].iat[i]!r} on {frame.quality_criterion.iat[i]!r} twice")


def spec_file_bytes(name: str, *, files: dict[str, bytes] | None = None, root: str | os.PathLike | None = None) -> bytes:
    """The bytes of a file a spec names: an uploaded file is data, never a path.

    With ``files`` (the app's uploads, a bundle's members) the name is looked up there and
    only there: nothing is read from disk.  Otherwise the name must be a relative path under
    ``root`` (the spec's folder or the caller's data root): an absolute path, a ``..``
    component, or a link that leads out of the root is refused.  Messages never show the
    root, only the name the spec gave.
    """
    shown = _shown(name)
    if files is not None:
        if name not in files:
            raise QRAInputError(f"{shown}: not among the uploaded files ({', '.join(_shown(n) for n in list(files)[:10]) or 'none'})")
        return files[name]
    pure = PurePosixPath(name.replace("\\", "/"))
    if (not name or pure.is_absolute() or PureWindowsPath(name).is_absolute() or PureWindowsPath(name).drive
            or ".." in pure.parts or "\x00" in name):
        raise QRAInputError(f"{shown}: a spec names files relative to its own folder; absolute paths and '..' are refused")
    root_path = Path(root if root is not None else Path.cwd()).resolve()
    target = (root_path / Path(*pure.parts)).resolve()
    if target != root_path and root_path not in target.parents:
        raise QRAInputError(f"{shown}: leads outside the spec's folder (through a link); refused")
    if not target.is_file():
        raise QRAInputError(f"{shown}: no such file beside the spec")
    try:
        return read_bytes(target)
    except QRAInputError as error:
        raise QRAInputError(f"{shown}: cannot be read") from error


def _shown(text: str, limit: int = 40) -> str:
    """A value quoted from a user's file or spec in a message: printable and cut."""
    text = "".join(c if c.isprintable() else "?" for c in str(text))
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def load_spec(path: str | os.PathLike) -> dict:
    """Read and check an annotation spec file."""
    path = Path(path)
    return check_spec(load_json(read_bytes(path), path.name))


def is_spec(path: str | os.PathLike) -> bool:
    """Whether a JSON file is an annotation spec (rather than a study file)."""
    try:
        data = load_json(read_bytes(path), Path(path).name)
    except QRAInputError:
        return False  # not a spec; the study-file reader then names what is wrong with it
    return isinstance(data, dict) and data.get("schema") == SCHEMA


def load_annotations(spec_or_path: dict | str | os.PathLike, *, base: str | os.PathLike | None = None,
                     files: dict[str, bytes] | None = None, aggregation: str | None = None):
    """Read an annotation spec and its files into a :class:`~qra_widgets.Study` (see the module docstring).

    ``spec_or_path`` is a spec (dict) or the path of a spec file.  File paths are relative
    to the spec file, or to ``base`` for a dict (default: the working directory).
    ``files`` maps file names to their bytes (the app's uploads) instead of reading disk.
    ``aggregation`` overrides the spec's (``mean`` of all ratings by default).
    """
    from ..labels import Labels
    from ..ratings import Ratings
    from ..study import Experiment, Study

    if isinstance(spec_or_path, dict):
        spec, folder = check_spec(spec_or_path), Path(base) if base is not None else Path.cwd()
    else:
        spec = load_spec(spec_or_path)
        folder = Path(base) if base is not None else Path(spec_or_path).parent
    criteria = _criteria(spec)
    missing = set(spec.get("missing", DEFAULT_MISSING))
    how = aggregation or spec.get("aggregation", "mean")
    systems_map = {str(k): str(v) for k, v in (spec.get("systems") or {}).items()}
    parts, experiments = [], []
    for entry in spec["experiments"]:
        source = entry["file"]
        data = spec_file_bytes(source, files=files, root=folder)
        frame = read_frame(data, Path(source).name, entry.get("sheet"))
        if frame.empty:
            raise QRAInputError(f"{Path(source).name}: experiment {entry['id']!r} has a header but no rows")
        columns = _experiment_ratings(entry, frame, Path(source).name, criteria, systems_map, missing)
        columns["experiment"] = np.full(len(columns["rating"]), entry["id"], dtype=object)
        columns["file"] = Path(source).name
        parts.append(columns)
        experiments.append(Experiment(entry["id"], label=entry.get("label", ""), team=entry.get("team", ""),
                                      date=str(entry.get("date", "")), role=entry.get("role", "repeat")))
    stacked = {k: np.concatenate([p[k] for p in parts]) for k in ("quality_criterion", "system", "item", "experiment",
                                                                    "rater", "rating")}
    ratings = Ratings.from_columns(*(stacked[k] for k in ("quality_criterion", "system", "item", "experiment", "rater",
                                                           "rating")), spec=spec)
    seen = list(dict.fromkeys(stacked["system"].tolist()))
    wanted = [s for s in dict.fromkeys(systems_map.values()) if s in seen]
    systems = wanted + [s for s in seen if s not in wanted]
    scores, sources, label_columns = {}, {}, [[], [], [], [], []]
    counts = {}
    for part in parts:
        for key in zip(part["quality_criterion"], part["system"], part["experiment"]):
            counts[key] = counts.get(key, 0) + 1
    files_of = {p["experiment"][0]: p["file"] for p in parts}
    for qc in criteria:
        for (system, experiment), value in ratings.system_means(qc.name, how).items():
            scores[(qc.name, system, experiment)] = value
            sources[(qc.name, system, experiment)] = (f"{files_of[experiment]}: {how} of "
                                                      f"{counts[(qc.name, system, experiment)]} ratings")
        system, item, experiment, label = ratings.item_labels(qc.name, qc.label_level)
        for column, values in zip(label_columns, (np.full(len(label), qc.name, dtype=object), system, item, experiment,
                                                  label.astype(object))):
            column.append(values)
    labels = Labels.from_columns(*(np.concatenate(c) for c in label_columns))
    coverage = ratings.coverage()
    metadata = {"annotations": {"aggregation": how, "items": coverage["items"], "items_per_experiment":
                                coverage["per_experiment"], "items_in_all_experiments": coverage["in_all"],
                                "items_not_in_all_experiments": len(coverage["not_in_all"])}}
    return Study(id=spec["id"], name=spec.get("name", ""), description=spec.get("description", ""),
                 quality_criteria=criteria, systems=systems, experiments=experiments, scores=scores, labels=labels,
                 sources=sources, metadata=metadata, ratings=ratings)
