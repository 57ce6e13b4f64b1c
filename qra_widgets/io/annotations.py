"""Annotation specs: from each experiment's item-level annotation file to a :class:`~qra_widgets.Study`.

A spec (JSON, ``"schema": "qra-widgets/annotations"``, ``"version": 1``) says where each
experiment's file is and what its columns mean::

    {"schema": "qra-widgets/annotations", "version": 1, "id": "yao2022", "name": "...", "conventions": "qrapp",
     "quality_criteria": [{"name": "Readability", "scale_min": 1, "scale_max": 5, "label_level": "ordinal"}],
     "systems": {"groundtruth": "GT", "Ours": "QAG"},
     "missing": ["", "NA", "*"],
     "experiments": [{"id": "O", "role": "original", "file": "original.csv",
                      "columns": {"system": "source", "item": "qa_id", "rater": "labeller_id",
                                  "criteria": {"Readability": "readability (1-5)"}}}]}

* **Layouts** (``"layout"``, :mod:`qra_widgets.io.layouts`): ``wide`` (one column per
  criterion, ``columns.criteria``), ``long`` (``columns.criterion`` and ``columns.rating``),
  ``pairwise`` (one row per judgement of two systems; ``score``: ``preference``,
  ``win_rate`` or ``bradley_terry``), ``best_worst`` (one row per tuple shown) and
  ``items_in_columns`` (a form export: one row per rater, one column per item, named or by
  1-based position).  Without ``layout``: ``long`` when the columns name a rating column,
  else ``wide``.
* **System values only.** An experiment with ``"scores": {criterion: {system: value}}`` (a
  value is a number or ``{"value", "se", "n"}``) mixes with item-level experiments.
* **Files.** ``file``, or ``files`` (several files that together make the experiment; an
  entry may be ``{"file": name, "rater": "ann1", "raters": {...}}``: key columns given as
  constants for that file), read only through :func:`entry_tables` (and
  :func:`spec_file_bytes`): relative to the spec file (or to ``base``), or the uploaded
  ``files``.  ``format``: ``csv`` (``delimiter`` ``,`` ``;`` tab or ``auto``), ``xlsx``
  (optional ``sheet``), ``json`` (``records``) or ``jsonl``, with ``explode`` for nested lists
  (:mod:`qra_widgets.io.file_formats`); gzip-compressed CSV too (``.csv.gz``).  ``rows`` keeps
  rows, ``exclude`` drops rows, ``optional_exclude`` is recorded (and applied with
  ``optional_exclude=True``).
* **Keys.** A key column may be ``{"constant": V}``, ``{"row": true}``, ``{"index": FIELD}`` or, when
  JSON ``records`` reaches an object of records, ``{"key": true}`` (each record's key);
  ``columns.system`` may be omitted (one system, ``"all"``) or ``{"from_experiment": "O", "by":
  "item"}``; a criterion's column may be ``{"raters": {rater: column}}``.
* **Names and answers.** ``systems`` maps the names used in the files to the study's names (per
  experiment too).  ``item``, ``rater`` and ``system`` may name several columns (joined with
  ``/``).  ``rater`` is optional (without it every row is a different rater).  Cells listed
  in ``missing`` (default ``"", "NA", "N/A", "nan", "*"``) are missing and skipped; ``values``
  and ``choices`` map answer texts to numbers or to ``a`` / ``b`` / ``tie`` (an unmapped answer
  is an error listing the answers found).  An unknown key anywhere is an error naming the
  nearest known key.
* **What the study gets.** Its ``ratings`` (kept, with this spec, when the study is saved;
  pairwise and best-worst judgements also keep their raw choices for annotator agreement,
  coded by ``agreement_coding``); Type I scores = each system's mean of all ratings per
  experiment (``aggregation``: ``mean``, ``item_mean`` or ``median``, see
  :mod:`qra_widgets.ratings`), or its pairwise / best-worst score; Type III labels = each
  experiment's per-item label by the rule for the criterion's ``label_level``; the spec's
  ``conventions`` in ``metadata["conventions"]``; pairwise sign tests in
  ``metadata["annotations"]["sign_tests"]``.
* **Bad input** raises :class:`~qra_widgets.QRAInputError` naming the file, row and column:
  a criterion column missing in a file, a rating that is not a number or is outside the
  scale, an item rated under two systems, the same rater rating an item twice, an
  experiment without ratings.  Items that only some experiments rated are allowed and
  reported in ``study.metadata["annotations"]``.  The full grammar, with an example per
  layout: ``docs/user-guide/layouts.md``.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import numpy as np

from ..errors import QRAInputError
from ..limits import SpecBytes, check_criterion_systems, check_experiments, planned_size
from .reading import load_json, read_bytes
from .reading import require as _require
from .reading import shown as _shown

SCHEMA = "qra-widgets/annotations"
SCHEMA_VERSION = 1
NOMINAL_REFUSAL = (
    "a nominal criterion's ratings are categories: no system values (CV*, r, rho, W) are computed from "
    "them; its reproducibility is the label agreement between experiments (Type III), or give category "
    "counts as scores of a criterion that is not nominal"
)
DEFAULT_MISSING = ("", "NA", "N/A", "nan", "*")


# ----------------------------------------------------------------------------- files


def read_frame(data: bytes, source: str, sheet: str | int | None = None):
    """A table of text cells from CSV / TSV / Excel / JSON bytes (the suffix of ``source`` decides;
    a CSV's delimiter is sniffed among ``,`` ``;`` and tab).

    The bytes go through :mod:`qra_widgets.io.reading`'s caps: the file size, the zip directory
    of a workbook (before openpyxl unpacks anything), and the row and column limits.
    """
    from .file_formats import read_table

    return read_table(data, source, {"sheet": sheet} if sheet is not None else {}).frame


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
                if column not in taken and (
                    normal[column].startswith(word + "_") or normal[column].endswith("_" + word)
                ):
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


def check_spec(spec: Any) -> dict:
    """Check the shape of a spec (not its files); return it.

    Every object is checked for unknown keys: a misspelt key is an error naming it and the
    nearest known key (:func:`qra_widgets.io.layout_keys.check_keys`).
    """
    from .layout_keys import AGREEMENT_CODINGS, CRITERION_KEYS, TOP_KEYS, check_entry, check_keys

    if not isinstance(spec, dict):
        raise QRAInputError(f"annotation spec: expected a JSON object, got {type(spec).__name__}")
    if spec.get("schema") != SCHEMA:
        raise QRAInputError(f"annotation spec: schema must be {SCHEMA!r}, got {spec.get('schema')!r}")
    if spec.get("version") != SCHEMA_VERSION:
        raise QRAInputError(
            f"annotation spec: version {spec.get('version')!r} is not supported; this reads {SCHEMA_VERSION}"
        )
    check_keys(spec, TOP_KEYS, "annotation spec")
    _require(spec, "id", str, "annotation spec")
    criteria = _require(spec, "quality_criteria", list, "annotation spec")
    if not criteria:
        raise QRAInputError("annotation spec: quality_criteria is empty")
    names = []
    for i, item in enumerate(criteria):
        if isinstance(item, dict):
            check_keys(item, CRITERION_KEYS, f"annotation spec: quality_criteria[{i}]")
            names.append(item.get("name"))
    experiments = _require(spec, "experiments", list, "annotation spec")
    if len(experiments) < 1:
        raise QRAInputError("annotation spec: experiments is empty")
    check_experiments(len(experiments), "annotation spec")
    for i, experiment in enumerate(experiments):
        check_entry(experiment, f"annotation spec: experiments[{i}]", names)
    for key in ("systems", "values", "choices"):
        _require(spec, key, dict, "annotation spec", default={})
    missing = _require(spec, "missing", list, "annotation spec", default=list(DEFAULT_MISSING))
    if not all(isinstance(v, str) for v in missing):
        raise QRAInputError("annotation spec: missing must be a list of texts")
    coding = _require(spec, "agreement_coding", str, "annotation spec", default="system")
    if coding not in AGREEMENT_CODINGS:
        raise QRAInputError(
            f"annotation spec: agreement_coding must be one of {', '.join(AGREEMENT_CODINGS)}, got {_shown(coding)}"
        )
    if spec.get("conventions") is not None:
        from ..conventions import Conventions

        Conventions.from_dict(spec["conventions"], "annotation spec: conventions")
    return spec


def _criteria(spec: dict):
    from ..study import QualityCriterion

    result = []
    for i, item in enumerate(spec["quality_criteria"]):
        where = f"annotation spec: quality_criteria[{i}]"
        if not isinstance(item, dict):
            raise QRAInputError(f"{where}: expected an object")
        if item.get("scale_min") is None:  # CV* subtracts it: never assumed to be 0
            raise QRAInputError(
                f"{where}: missing field 'scale_min' (the lowest possible rating or score, which CV* "
                f"subtracts; it is never assumed to be 0)"
            )
        result.append(
            QualityCriterion(
                name=_require(item, "name", str, where),
                scale_min=_require(item, "scale_min", (int, float), where),
                scale_max=_require(item, "scale_max", (int, float), where, None),
                qcet_id=_require(item, "qcet_id", str, where, None),
                label_level=_require(item, "label_level", str, where, "ordinal"),
                description=_require(item, "description", str, where, ""),
                evaluation_type=_require(item, "evaluation_type", str, where, "unknown"),
            )
        )
    return result


def entry_file_bytes(
    name: str, *, files: dict[str, bytes] | None = None, root: str | os.PathLike | None = None
) -> tuple[bytes, str]:
    """A spec's file (through :func:`spec_file_bytes`) and the name its format is read from:
    ``x.csv.gz`` is gunzipped (within the unpacked-size cap) and read as ``x.csv``."""
    import zlib

    from .reading import MAX_FILE_BYTES

    data = spec_file_bytes(name, files=files, root=root)
    shown = PurePosixPath(name.replace("\\", "/")).name
    if not shown.lower().endswith(".gz"):
        return data, shown
    unpacker = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        unpacked = unpacker.decompress(data, MAX_FILE_BYTES + 1)
    except zlib.error as error:
        raise QRAInputError(f"{_shown(shown)}: cannot be unpacked as gzip ({error})") from None
    if len(unpacked) > MAX_FILE_BYTES or unpacker.unconsumed_tail:
        raise QRAInputError(
            f"{_shown(shown)}: unpacks to more than {MAX_FILE_BYTES // (1024 * 1024)} MB; the limit is "
            f"{MAX_FILE_BYTES // (1024 * 1024)} MB"
        )
    return unpacked, shown[:-3]


def spec_file_bytes(
    name: str, *, files: dict[str, bytes] | None = None, root: str | os.PathLike | None = None
) -> bytes:
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
            raise QRAInputError(
                f"{shown}: not among the uploaded files ({', '.join(_shown(n) for n in list(files)[:10]) or 'none'})"
            )
        return files[name]
    pure = PurePosixPath(name.replace("\\", "/"))
    if (
        not name
        or pure.is_absolute()
        or PureWindowsPath(name).is_absolute()
        or PureWindowsPath(name).drive
        or ".." in pure.parts
        or "\x00" in name
    ):
        raise QRAInputError(
            f"{shown}: a spec names files relative to its own folder; absolute paths and '..' are refused"
        )
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


def load_annotations(
    spec_or_path: dict | str | os.PathLike,
    *,
    base: str | os.PathLike | None = None,
    files: dict[str, bytes] | None = None,
    aggregation: str | None = None,
    optional_exclude: bool = False,
    frames: dict | None = None,
):
    """Read an annotation spec and its files into a :class:`~qra_widgets.Study` (see the module docstring).

    ``spec_or_path`` is a spec (dict) or the path of a spec file.  File paths are relative
    to the spec file, or to ``base`` for a dict (default: the working directory).
    ``files`` maps file names to their bytes (the app's uploads) instead of reading disk.
    ``aggregation`` overrides the spec's (``mean`` of all ratings by default).
    ``frames`` maps file names to tables already parsed by :func:`read_frame` (the app parses
    each upload once); those files are not read again.
    ``optional_exclude`` also applies each experiment's ``optional_exclude`` (the exclusions
    a team may or may not have applied; by default they are only recorded).

    Parameters
    ----------
    spec_or_path : dict or str or os.PathLike
        The annotation spec, or the path of its JSON file.
    base : str or os.PathLike, optional
        The folder a dict spec's file paths are relative to (default: the working directory).
    files : dict of str to bytes, optional
        File name -> contents, read instead of the disk.
    aggregation : {"mean", "item_mean", "median"}, optional
        How ratings become a system's score; default: the spec's, else ``"mean"``.
    optional_exclude : bool, default False
        Also apply each experiment's ``optional_exclude``.
    frames : dict of str to pandas.DataFrame, optional
        File name -> its table as :func:`read_frame` parsed it (the app's uploads, parsed once).

    Returns
    -------
    Study
        The spec's experiments with their ratings (or judgements) and the scores aggregated from them.
    """
    from ..labels import Labels
    from ..ratings import Choices, Ratings
    from ..study import Experiment, Study
    from .layout_keys import file_entries, file_name, reported_scores
    from .layout_pairwise import sign_test_records, system_values
    from .layout_rows import check_optional_exclude, raters_named, select_rows
    from .layouts import read_entry

    if isinstance(spec_or_path, dict):
        spec, folder = check_spec(spec_or_path), Path(base) if base is not None else Path.cwd()
    else:
        spec = load_spec(spec_or_path)
        folder = Path(base) if base is not None else Path(spec_or_path).parent
    criteria = _criteria(spec)
    by_name = {qc.name: qc for qc in criteria}
    missing = set(spec.get("missing", DEFAULT_MISSING))
    how = aggregation or spec.get("aggregation", "mean")
    systems_map = {str(k): str(v) for k, v in (spec.get("systems") or {}).items()}
    coding = spec.get("agreement_coding", "system")
    experiments: dict[str, Experiment] = {}
    scores, sources, reported = {}, {}, []
    parts, covered = [], {}  # parts: (experiment id, Part, file names, agreement coding)
    budget = SpecBytes("annotation spec")  # max_spec_bytes, re-reads counted, refused before any parse
    budget.plan(
        (f["file"], planned_size(f["file"], files, folder))
        for e in spec["experiments"]
        if "scores" not in e
        for f in file_entries(e)
    )
    for entry in spec["experiments"]:
        eid = entry["id"]
        experiment = Experiment(
            eid,
            label=entry.get("label", ""),
            team=entry.get("team", ""),
            date=str(entry.get("date", "")),
            role=entry.get("role") or "repeat",
        )
        if eid in experiments and (entry.get("role") or "repeat") != experiments[eid].role:
            raise QRAInputError(f"annotation spec: experiment {eid!r} appears twice with different roles")
        if eid not in experiments or (experiment.label and not experiments[eid].label):
            experiments[eid] = experiment
        entry_systems = {**systems_map, **{str(k): str(v) for k, v in (entry.get("systems") or {}).items()}}
        if "scores" in entry:
            values, extras = reported_scores(entry)
            read = set()
            for (qc, system), value in values.items():
                key = (qc, entry_systems.get(system, system), eid)
                if key in scores:
                    raise QRAInputError(f"annotation spec: experiment {eid!r} gives {key[1]!r} on {qc!r} twice")
                by_name[qc].check_score(value, f"experiment {eid!r}: score of {key[1]!r} on {qc!r}")
                scores[key], sources[key] = value, "reported system value (spec)"
                if (qc, system) in extras:
                    reported.append(
                        {"experiment": eid, "quality_criterion": qc, "system": key[1], **extras[(qc, system)]}
                    )
                read.add(qc)
            _cover(covered, eid, read)
            continue
        names = [file_name(f) for f in file_entries(entry)]
        values = entry.get("values", spec.get("values") or None)
        choices = entry.get("choices", spec.get("choices") or None)
        pieces = []
        for table, file_entry in entry_tables(entry, files=files, root=folder, budget=budget, frames=frames):
            check_optional_exclude(table, entry)
            read = _with_file_constants(entry, file_entry, [qc.name for qc in criteria])
            _systems_from_experiment(table, read, parts, eid)
            pieces.append(
                read_entry(
                    select_rows(table, read, optional=optional_exclude),
                    read,
                    by_name,
                    entry_systems,
                    missing,
                    values,
                    choices,
                )
            )
            check_criterion_systems(pieces[-1].ratings["quality_criterion"], pieces[-1].ratings["system"], table.source)
        part = pieces[0]
        for piece in pieces[1:]:
            part.ratings = {k: np.concatenate([part.ratings[k], piece.ratings[k]]) for k in part.ratings}
            part.judgements += piece.judgements
            part.rules.update(piece.rules)
        shown_names = ", ".join(PurePosixPath(n.replace("\\", "/")).name for n in names)
        if len(pieces) > 1:  # the same checks across the files of one experiment
            from .layout_rows import check_items

            check_items(
                part.ratings,
                shown_names,
                entry.get("columns") or {},
                named=raters_named(entry.get("columns") or {})
                or any("rater" in f or "raters" in f for f in file_entries(entry)),
            )
        if not len(part.ratings["rating"]):
            raise QRAInputError(
                f"{shown_names}: experiment {eid!r} has no ratings (every rating cell is missing or filtered out)"
            )
        _cover(covered, eid, set(part.criteria()))
        parts.append((eid, part, shown_names, entry.get("agreement_coding", coding)))
    for eid in experiments:
        if not covered.get(eid):
            raise QRAInputError(f"annotation spec: experiment {eid!r} has no values")
    ratings = _stacked_ratings(parts, spec, Ratings, Choices)
    seen = list(dict.fromkeys([s for (_q, s, _e) in scores] + ratings.columns()[1].tolist()))
    wanted = [s for s in dict.fromkeys(systems_map.values()) if s in seen]
    systems = wanted + [s for s in seen if s not in wanted]
    label_columns = [[], [], [], [], []]
    tests: list[dict] = []
    comparative: dict[str, dict[str, str]] = {}  # criterion -> experiment -> how judgements became values
    rated = ratings.criteria()
    nominal_only: set[str] = set()  # nominal criteria rated item by item: labels, no Type I values
    for qc in criteria:
        if qc.name not in rated:
            continue
        means = ratings.system_means(qc.name, how)
        for eid, part, shown_names, _coding in parts:
            if qc.name not in part.criteria():
                continue
            rule = part.rules.get(qc.name)
            if rule is None and qc.label_level == "nominal":  # categories: a mean of their codes means nothing
                nominal_only.add(qc.name)
            elif rule is None:
                mine = part.ratings["quality_criterion"] == qc.name
                systems_rated = part.ratings["system"][mine].tolist()
                for system, count in Counter(systems_rated).items():
                    scores[(qc.name, str(system), eid)] = means[(str(system), eid)]
                    sources[(qc.name, str(system), eid)] = f"{shown_names}: {how} of {count} ratings"
            else:
                judged = [j for j in part.judgements if j["quality_criterion"][:1].tolist() == [qc.name]]
                n = sum(len(j["unit"]) for j in judged)
                what = rule.get("score", "best-worst score")
                what = {
                    "preference": "preference score",
                    "win_rate": f"win rate (ties: {rule.get('ties')})",
                    "bradley_terry": "Bradley-Terry value",
                }.get(what, what)
                tests += sign_test_records(eid, qc.name, judged)
                comparative.setdefault(qc.name, {})[eid] = rule.get("score", rule["layout"])
                for system, value in system_values(judged, rule, shown_names).items():
                    if not np.isfinite(value):
                        continue
                    scores[(qc.name, system, eid)] = value
                    sources[(qc.name, system, eid)] = f"{shown_names}: {what} from {n} judgements"
        system, item, experiment, label = ratings.item_labels(qc.name, qc.label_level)
        for column, values in zip(
            label_columns, (np.full(len(label), qc.name, dtype=object), system, item, experiment, label.astype(object))
        ):
            column.append(values)
    labels = Labels.from_columns(*(np.concatenate(c) for c in label_columns)) if label_columns[0] else Labels()
    metadata: dict[str, Any] = {}
    if len(ratings):
        coverage = ratings.coverage()
        metadata["annotations"] = {
            "aggregation": how,
            "items": coverage["items"],
            "items_per_experiment": coverage["per_experiment"],
            "items_in_all_experiments": coverage["in_all"],
            "items_not_in_all_experiments": len(coverage["not_in_all"]),
        }
    else:
        metadata["annotations"] = {"aggregation": how}
    if nominal_only:
        metadata["annotations"]["labels_only"] = {name: NOMINAL_REFUSAL for name in sorted(nominal_only)}
    if reported:
        metadata["annotations"]["reported_uncertainty"] = reported
    if tests:
        metadata["annotations"]["sign_tests"] = tests
    if comparative:  # the bootstrap refits what is not a mean of the ratings (Bradley-Terry)
        metadata["annotations"]["comparative_scores"] = comparative
    optional = {e["id"]: e["optional_exclude"] for e in spec["experiments"] if e.get("optional_exclude")}
    if optional:
        metadata["annotations"]["optional_exclude"] = optional
        metadata["annotations"]["optional_exclude_applied"] = bool(optional_exclude)
    if spec.get("conventions") is not None:
        from ..conventions import Conventions

        metadata["conventions"] = Conventions.from_dict(spec["conventions"], "annotation spec: conventions").to_stored()
    return Study(
        id=spec["id"],
        name=spec.get("name", ""),
        description=spec.get("description", ""),
        quality_criteria=criteria,
        systems=systems,
        experiments=list(experiments.values()),
        scores=scores,
        labels=labels,
        sources=sources,
        metadata=metadata,
        ratings=ratings,
    )


def entry_tables(
    entry: dict,
    *,
    files: dict[str, bytes] | None = None,
    root: str | os.PathLike | None = None,
    budget=None,
    frames: dict | None = None,
):
    """Every file of an experiment entry, read: ``[(Table, file entry), ...]``.

    This is the one place a spec's files are read (through :func:`entry_file_bytes`, so only
    uploaded files or files under ``root``) and parsed by the entry's ``format``
    (:func:`qra_widgets.io.file_formats.read_table`).  A file entry is ``{"file": name, ...}``
    with the constants it gives (:func:`qra_widgets.io.layout_keys.file_entries`).  ``budget``
    (a :class:`qra_widgets.limits.SpecBytes`) is charged each file's bytes before it is parsed.
    ``frames`` maps file names to tables the app already parsed with :func:`read_frame`; they are
    used as they are when the entry reads its files as :func:`read_frame` does (no ``format``,
    ``delimiter``, ``records`` or ``explode``, and not a JSON file).
    """
    from .file_formats import read_table
    from .layout_keys import file_entries
    from .layout_rows import Table

    tables = []
    as_read_frame = not any(key in entry for key in ("format", "delimiter", "records", "explode"))
    for file_entry in file_entries(entry):
        name = file_entry["file"]
        if (
            frames is not None
            and name in frames
            and as_read_frame
            and not name.lower().removesuffix(".gz").endswith((".json", ".jsonl"))
        ):
            shown = PurePosixPath(name.replace("\\", "/")).name.removesuffix(".gz")
            if frames[name].empty:
                raise QRAInputError(f"{shown}: experiment {entry['id']!r} has a header but no rows")
            tables.append((Table.of(frames[name], shown), file_entry))
            continue
        data, shown = entry_file_bytes(name, files=files, root=root)
        if budget is not None:
            budget.charge(len(data), shown)
        table = read_table(data, shown, entry)
        if table.frame.empty:
            raise QRAInputError(f"{shown}: experiment {entry['id']!r} has a header but no rows")
        tables.append((table, file_entry))
    return tables


def _with_file_constants(entry: dict, file_entry: dict, criteria: list[str]) -> dict:
    """The entry as one file reads it: each key column the file entry fixes becomes
    ``{"constant": V}``, and its ``raters`` map the columns of the (one) criterion rated."""
    constants = {k: v for k, v in file_entry.items() if k not in ("file", "raters")}
    if not constants and "raters" not in file_entry:
        return entry
    columns = dict(entry.get("columns") or {})
    columns.update({role: {"constant": value} for role, value in constants.items()})
    if "raters" in file_entry:
        rated = list(columns.get("criteria") or entry.get("criteria") or criteria)
        if len(rated) != 1:
            raise QRAInputError(
                f'{file_entry["file"]}: a file\'s "raters" map the columns of one criterion, but '
                f"experiment {entry['id']!r} rates {len(rated)} ({', '.join(map(repr, rated))}); give "
                f'each criterion\'s raters in columns.criteria ({{"raters": {{...}}}})'
            )
        columns["criteria"] = {rated[0]: {"raters": file_entry["raters"]}}
    return {**entry, "columns": columns}


def _systems_from_experiment(table, entry: dict, parts: list, eid: str) -> None:
    """``columns.system`` given as ``{"from_experiment": "O", "by": "item"}``: each row takes the
    system of experiment O's rating of the same item (O's entry must come earlier in the spec)."""
    from .layout_rows import _ref_key

    ref = (entry.get("columns") or {}).get("system")
    if not (isinstance(ref, dict) and "from_experiment" in ref):
        return
    other = ref["from_experiment"]
    earlier = [part for e, part, _names, _coding in parts if e == other]
    if not earlier:
        raise QRAInputError(
            f"annotation spec: experiment {eid!r} takes its systems from experiment {other!r}, "
            f'whose item-level entry must come earlier in "experiments"'
        )
    system_of: dict = {}
    for part in earlier:
        system_of.update(zip(part.ratings["item"].tolist(), part.ratings["system"].tolist()))
    items = table.column(entry["columns"]["item"], "item")
    unknown = [i for i, item in enumerate(items) if item not in system_of]
    if unknown:
        i = unknown[0]
        raise QRAInputError(
            f"{table.source}: row {table.rows[i]}, {table.label(entry['columns']['item'])}: item "
            f"{_shown(items[i])} is not rated in experiment {other!r}, so it has no system "
            f"(columns.system takes it from there by item); {len(unknown)} such rows"
        )
    table.derived[_ref_key(ref)] = np.array([system_of[item] for item in items], dtype=object)


def _cover(covered: dict, eid: str, criteria: set) -> None:
    twice = covered.setdefault(eid, set()) & criteria
    if twice:
        raise QRAInputError(
            f"annotation spec: experiment {eid!r} gives {min(twice)!r} in two entries; the files "
            f'of one experiment go in one entry\'s "files"'
        )
    covered[eid] |= criteria


def _stacked_ratings(parts: list, spec: dict, Ratings, Choices):
    """Every entry's ratings in one :class:`~qra_widgets.ratings.Ratings`, with the judgements'
    raw choices (for annotator agreement) attached."""
    keys = ("quality_criterion", "system", "item", "experiment", "rater", "rating")
    if not parts:
        return Ratings(spec=spec)
    stacked = {k: [] for k in keys}
    choice_columns = {
        k: [] for k in ("quality_criterion", "experiment", "unit", "rater", "code_system", "code_position")
    }
    codings = {}
    for eid, part, _names, coding in parts:
        n = len(part.ratings["rating"])
        for k in keys:
            stacked[k].append(np.full(n, eid, dtype=object) if k == "experiment" else part.ratings[k])
        for j in part.judgements:
            for k, column in choice_columns.items():
                column.append(np.full(len(j["unit"]), eid, dtype=object) if k == "experiment" else j[k])
            codings[eid] = coding
    ratings = Ratings.from_columns(*(np.concatenate(stacked[k]) for k in keys), spec=spec)
    if codings:
        ratings.choices = Choices.from_columns(
            *(np.concatenate(choice_columns[k]) for k in choice_columns), coding=codings
        )
    return ratings
