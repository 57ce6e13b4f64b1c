"""Bulk import (issue 13 section 3): many studies into a library in one action.

:func:`import_paths` takes files, folders and zip files and imports every study it finds:

* study files: ``.json`` (qra-widgets study), long ``.csv``/``.tsv``/``.xlsx`` score tables
  (one study per file, its id the file name) -- as :func:`qra_widgets.load_study` reads them;
* a long CSV with a ``study`` column: one study per value of that column;
* QRA3 ``metrics.csv`` + ``config.json`` pairs in the same folder (read by
  ``qra_widgets.qra3.read_qra3``, loaded only when such a pair is found);
* annotation specs (any other JSON object; read by ``qra_widgets.io.annotations.load_annotations``).

Nothing already in the library is overwritten: a study whose id exists (deleted ones included)
is reported under ``existed`` and left alone.  Every file that cannot be read is reported under
``refused`` with the reason; the rest are still imported.  Zip files are checked from their
directory before anything is decompressed (member count, each member's and the total
uncompressed size, compression ratio).
"""

from __future__ import annotations

import io
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .errors import QRAInputError
from .io.reading import check_size, check_zip, load_json

STUDY_SUFFIXES = (".json", ".csv", ".tsv", ".txt", ".xlsx")
MAX_ZIP_MEMBERS = 10_000


@dataclass
class ImportReport:
    """What an import did: ``added`` and ``existed`` are (source, study id); ``refused`` (source, reason)."""

    added: list[tuple[str, str]] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    existed: list[tuple[str, str]] = field(default_factory=list)

    def to_frame(self):
        import pandas as pd

        rows = [("added", s, i, "") for s, i in self.added] + [("already existed", s, i, "kept the library's version; not overwritten")
                                                                for s, i in self.existed]
        rows += [("refused", s, "", reason) for s, reason in self.refused]
        return pd.DataFrame(rows, columns=["outcome", "source", "study", "reason"])

    def summary(self) -> str:
        lines = [(f"added {len(self.added)} studies, {len(self.existed)} already existed (not overwritten), "
                  f"{len(self.refused)} refused")]
        lines += [f"added: {i} (from {s})" for s, i in self.added]
        lines += [f"already existed, not overwritten: {i} (from {s})" for s, i in self.existed]
        lines += [f"refused: {s}: {reason}" for s, reason in self.refused]
        return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- gathering files


def _gather(paths, report: ImportReport) -> dict[str, bytes]:
    """``{source name: bytes}`` of every candidate file, in a stable order; unreadable ones are refused."""
    files: dict[str, bytes] = {}
    for given in paths:
        path = Path(given)
        if path.is_dir():
            candidates = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
        elif path.is_file():
            candidates = [path]
        else:
            report.refused.append((str(path), "no such file or folder"))
            continue
        for candidate in candidates:
            name = str(candidate)
            try:
                check_size(candidate.stat().st_size, name)
                if candidate.suffix.lower() == ".zip":
                    files.update(_zip_members(candidate.read_bytes(), name))
                elif candidate.suffix.lower() in STUDY_SUFFIXES:
                    files[name] = candidate.read_bytes()
                elif path.is_file():
                    raise QRAInputError(f"{candidate.name}: unknown file type {candidate.suffix!r}; use .json, .csv, .xlsx or .zip")
            except (QRAInputError, OSError, zipfile.BadZipFile) as error:
                report.refused.append((name, str(error)))
    return files


def _zip_members(data: bytes, source: str) -> dict[str, bytes]:
    """The study files in a zip, after :func:`~qra_widgets.io.reading.check_zip` has checked its
    directory (no byte is decompressed before that) and each member's size."""
    check_zip(data, source)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
        if len(members) > MAX_ZIP_MEMBERS:
            raise QRAInputError(f"{source}: holds {len(members)} files; the limit is {MAX_ZIP_MEMBERS}")
        for member in members:
            check_size(member.file_size, f"{source}/{member.filename}")
        return {f"{source}/{m.filename}": archive.read(m) for m in members
                if PurePosixPath(m.filename).suffix.lower() in STUDY_SUFFIXES and not PurePosixPath(m.filename).name.startswith(".")}


# ----------------------------------------------------------------------------- reading studies


def _folder(name: str) -> str:
    return str(PurePosixPath(name.replace(os.sep, "/")).parent)


QRA3_METRICS_HEADER = ["key", "study", "experiment", "system", "criterion", "result"]


def _is_qra3_metrics(name: str, data: bytes) -> bool:
    """A CSV whose header is QRA3's ``Key,Study,Experiment,System,Criterion,Result``."""
    if PurePosixPath(name).suffix.lower() != ".csv":
        return False
    first = data[:4096].decode("utf-8-sig", errors="replace").splitlines()[:1]
    return bool(first) and [c.strip().lower() for c in first[0].split(",")] == QRA3_METRICS_HEADER


def _is_qra3_config(name: str, data: bytes) -> bool:
    """A JSON object of study -> settings with QRA3's ``criteria`` (or ``experiments``) keys."""
    if PurePosixPath(name).suffix.lower() != ".json":
        return False
    try:
        parsed = load_json(data, PurePosixPath(name).name)
    except QRAInputError:
        return False
    return (isinstance(parsed, dict) and bool(parsed) and "schema" not in parsed
            and all(isinstance(v, dict) and ("criteria" in v or "experiments" in v) for v in parsed.values()))


def _qra3_pairs(names: list[str], files: dict[str, bytes]) -> list[tuple[str, str]]:
    """QRA3 (metrics, config) pairs among one folder's files: the only two, or matched by the
    name after ``metrics``/``config`` (``metrics-4-studies.csv`` with ``config-4-studies.json``)."""
    metrics = [n for n in names if _is_qra3_metrics(n, files[n])]
    configs = [n for n in names if _is_qra3_config(n, files[n])]
    if len(metrics) == 1 and len(configs) == 1:
        return [(metrics[0], configs[0])]
    tail = lambda n, head: PurePosixPath(n).stem.lower().removeprefix(head)
    by_tail = {tail(c, "config"): c for c in configs}
    return [(m, by_tail[tail(m, "metrics")]) for m in metrics if tail(m, "metrics") in by_tail]


def _read_qra3_pair(metrics: str, config: str, files: dict[str, bytes]):
    from .qra3 import read_qra3_bytes

    return read_qra3_bytes(files[metrics], files[config], metrics_name=PurePosixPath(metrics).name,
                           config_name=PurePosixPath(config).name)


def _read_annotation_spec(name: str, data: bytes):
    try:
        from .io.annotations import load_annotations
    except ImportError:
        raise QRAInputError("not a qra-widgets study; as an annotation spec it needs qra_widgets.io.annotations, "
                            "which this qra-widgets does not have") from None
    from .io.annotations import check_spec
    from .io.reading import load_json

    spec = check_spec(load_json(data, PurePosixPath(name).name))
    # An uploaded spec is data, never a path: its files are read only from what came with it.
    return [load_annotations(spec, files={})]


def _read_table(name: str, data: bytes):
    from .io import SCORE_COLUMNS, read_table, study_from_scores_table

    stem, suffix = PurePosixPath(name).stem, PurePosixPath(name).suffix.lower()
    frame = read_table(data, PurePosixPath(name).name, SCORE_COLUMNS, excel=suffix == ".xlsx")
    if "study" not in frame:
        return [study_from_scores_table(frame, stem, PurePosixPath(name).name)]
    empty = frame.index[frame["study"] == ""]
    if len(empty):
        raise QRAInputError(f"{PurePosixPath(name).name}: row {empty[0] + 2}, column 'study' is empty")
    return [study_from_scores_table(group.drop(columns="study"), study_id, f"{PurePosixPath(name).name} (study {study_id!r})")
            for study_id, group in frame.groupby("study", sort=False)]


def _read_json(name: str, data: bytes):
    from .io import SCHEMA, study_from_dict

    parsed = load_json(data, PurePosixPath(name).name)
    if isinstance(parsed, dict) and parsed.get("schema") == SCHEMA:
        return [study_from_dict(parsed)]
    if isinstance(parsed, dict) and "revisions" in parsed:
        raise QRAInputError("a library backup (export-all file); restore it with `qra-widgets import-all`")
    if not isinstance(parsed, dict):
        raise QRAInputError(f"expected a JSON object, got {type(parsed).__name__}")
    return _read_annotation_spec(name, data)


def import_paths(library, paths) -> ImportReport:
    """Import every study found in ``paths`` (files, folders, zips) into ``library``.

    ``library`` is a :class:`~qra_widgets.store.StudyLibrary` (or a path to one).  Returns an
    :class:`ImportReport`; never raises for one bad file, and never overwrites a study.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    report = ImportReport()
    files = _gather(paths, report)
    return _import(library, files, report)


def _import(library, files: dict[str, bytes], report: ImportReport) -> ImportReport:
    """Read every study in ``files`` (``{source name: bytes}``) and add the new ones to ``library``."""
    by_folder: dict[str, list[str]] = {}
    for name in files:
        by_folder.setdefault(_folder(name), []).append(name)
    paired = set()
    jobs = []
    for names in by_folder.values():
        for metrics, config in _qra3_pairs(names, files):
            paired |= {metrics, config}
            jobs.append((f"{metrics} + {PurePosixPath(config).name}", lambda m=metrics, c=config: _read_qra3_pair(m, c, files)))
    for name, data in files.items():
        if name in paired:
            continue
        reader = _read_json if PurePosixPath(name).suffix.lower() == ".json" else _read_table
        jobs.append((name, lambda n=name, d=data, r=reader: r(n, d)))
    library = _library(library)
    known = {s.id for s in library.list(include_deleted=True)}
    for source, read in jobs:
        try:
            studies = read()
        except QRAInputError as error:
            report.refused.append((source, str(error)))
            continue
        add_studies(library, studies, source, report, known=known)
    return report


# ----------------------------------------------------------------------------- uploads (the app's Library tab)


def _library(library):
    from .store import StudyLibrary

    return library if isinstance(library, StudyLibrary) else StudyLibrary(library)


def add_studies(library, studies, source: str, report: ImportReport | None = None, *, known: set | None = None) -> ImportReport:
    """Save each of ``studies`` (read from ``source``) in ``library`` unless its id is there already.

    A study whose id the library holds (deleted ones included) is reported under ``existed`` and
    left alone; one the library refuses (e.g. saved by someone else a moment ago) under
    ``refused``.  Nothing is ever overwritten.  ``known`` (the library's ids, kept up to date
    here) saves listing the library again when called for many sources.
    """
    library = _library(library)
    report = report if report is not None else ImportReport()
    known = {s.id for s in library.list(include_deleted=True)} if known is None else known
    for study in studies:
        if study.id in known:
            report.existed.append((source, study.id))
            continue
        try:
            library.save(study)
        except QRAInputError as error:  # e.g. saved by someone else a moment ago: kept, not overwritten
            report.refused.append((source, str(error)))
            continue
        known.add(study.id)
        report.added.append((source, study.id))
    return report


def import_bytes(library, named_bytes: dict[str, bytes]) -> ImportReport:
    """:func:`import_paths` for uploaded files: ``{file name: bytes}`` (the app's "Import many").

    The files are taken as one folder: QRA3 ``metrics.csv`` + ``config.json`` pairs among them
    are found by content; a ``.zip`` is checked (:func:`~qra_widgets.io.reading.check_zip`) and its
    members read as a folder of their own.  Nothing is written to disk.

    >>> import json, tempfile, pathlib
    >>> library = pathlib.Path(tempfile.mkdtemp()) / "library.sqlite3"
    >>> metrics = "Key,Study,Experiment,System,Criterion,Result\\n" + "".join(
    ...     f"Demo,Demo,{e},{s},Fluency,{v}\\n" for e, s, v in [("O", "A", 4.2), ("O", "B", 3.1), ("R1", "A", 4.0), ("R1", "B", 3.3)])
    >>> config = {"Demo": {"scale_starts_at": 1, "experiments": {"O": "original", "R1": "repeat"}, "citation": "original",
    ...           "criteria": {"F": {"map": "Fluency", "apply_over_correction": False, "normal_data": True}}}}
    >>> files = {"metrics.csv": metrics.encode(), "config.json": json.dumps(config).encode(), "notes.pdf": b"%PDF"}
    >>> report = import_bytes(library, files)
    >>> report.added, report.refused
    ([('metrics.csv + config.json', 'Demo')], [('notes.pdf', "notes.pdf: unknown file type '.pdf'; use .json, .csv, .xlsx or .zip")])
    >>> import_bytes(library, files).existed
    [('metrics.csv + config.json', 'Demo')]
    """
    report = ImportReport()
    files: dict[str, bytes] = {}
    for given, data in named_bytes.items():
        name = PurePosixPath(str(given).replace("\\", "/")).name or "upload"  # a browser sends a bare name; never a path
        suffix = PurePosixPath(name).suffix.lower()
        try:
            check_size(len(data), name)
            if suffix == ".zip":
                files.update(_zip_members(bytes(data), name))
            elif suffix in STUDY_SUFFIXES:
                files[name] = bytes(data)
            else:
                raise QRAInputError(f"{name}: unknown file type {suffix!r}; use .json, .csv, .xlsx or .zip")
        except (QRAInputError, zipfile.BadZipFile) as error:
            report.refused.append((name, str(error)))
    return _import(library, files, report)
