"""Bulk import: many studies into a library in one action.

:func:`import_paths` takes files, folders and zip files and imports every study it finds:

* study files: ``.json`` (qra-widgets study), long ``.csv``/``.tsv``/``.xlsx`` score tables
  (one study per file, its id the file name) -- as :func:`qra_widgets.load_study` reads them;
* a long CSV with a ``study`` column: one study per value of that column;
* QRA3 ``metrics.csv`` + ``config.json`` pairs in the same folder (read by
  ``qra_widgets.qra3.read_qra3``, loaded only when such a pair is found);
* spec bundles: a folder or zip (or the set of uploaded files) whose top level holds exactly
  one annotation spec (``"schema": "qra-widgets/annotations"``) is one study, read by
  ``qra_widgets.io.annotations.load_annotations`` **only from that folder's own files**, by their
  path under it: an uploaded file is data, never a path on the server.  Two specs at one top
  level are refused, naming both.  An annotation spec given as a file (the CLI) reads its files
  under its own folder, or under ``data_root`` (``--data-root``).

Nothing already in the library is overwritten: a study whose id exists (deleted ones included)
is reported under ``existed`` and left alone; a study equal to the stored latest revision adds
no revision, even when several processes import it at once.  Every file that is not imported is
listed: under ``refused`` (it should have been read and could not: a bad member, an unknown file
type, a name two zip members share, a zip inside a zip, a link) or ``skipped`` (a hidden or
system file, a bundle's file its spec does not name), with the reason; the rest are still
imported.  Zip files are checked from their directory before anything is decompressed (member
count, each member's and the total uncompressed size, compression ratio); each member is read
on its own, so one encrypted or damaged member refuses only itself.
"""

from __future__ import annotations

import io
import os
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .errors import QRAInputError
from .io.reading import check_size, check_zip, load_json, shown

STUDY_SUFFIXES = (".json", ".csv", ".tsv", ".txt", ".xlsx")
MAX_ZIP_MEMBERS = 10_000
MAX_FILES = 10_000  # files gathered from the folders of one import


@dataclass
class ImportReport:
    """What an import did: ``added`` and ``existed`` are (source, study id); ``refused`` (source,
    reason): a file or member that should have been read and was not; ``skipped`` (source,
    reason): a hidden or system file, or a file of a bundle its spec does not name."""

    added: list[tuple[str, str]] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    existed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def to_frame(self):
        import pandas as pd

        rows = [("added", s, i, "") for s, i in self.added] + [
            ("already existed", s, i, "kept the library's version; not overwritten") for s, i in self.existed
        ]
        rows += [("refused", s, "", reason) for s, reason in self.refused]
        rows += [("skipped", s, "", reason) for s, reason in self.skipped]
        return pd.DataFrame(rows, columns=["outcome", "source", "study", "reason"])

    def headline(self) -> str:
        """The one-line summary: how many studies were added, already there, refused and skipped."""
        skipped = f", {len(self.skipped)} files skipped" if self.skipped else ""
        return (
            f"added {len(self.added)} studies, {len(self.existed)} already existed (not overwritten), "
            f"{len(self.refused)} refused{skipped}"
        )

    def summary(self) -> str:
        lines = [self.headline()]
        lines += [f"added: {i} (from {s})" for s, i in self.added]
        lines += [f"already existed, not overwritten: {i} (from {s})" for s, i in self.existed]
        lines += [f"refused: {s}: {reason}" for s, reason in self.refused]
        lines += [f"skipped: {s}: {reason}" for s, reason in self.skipped]
        return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- gathering files

#: Names of folders and files that are not content (macOS and Windows bookkeeping, hidden files).
_BOOKKEEPING = ("__MACOSX", "Thumbs.db", "desktop.ini")


def _hidden(relative: str) -> bool:
    return any(part.startswith(".") or part in _BOOKKEEPING for part in PurePosixPath(relative).parts)


def _gather(paths, report: ImportReport) -> tuple[dict[str, bytes], dict[str, Path]]:
    """``{source name: bytes}`` of every candidate file, in a stable order, and the files given
    one by one (``{source name: path}``: a spec among them reads its files from disk, under its
    folder).  Folders are walked without following links; a link, an unreadable file or a bad
    zip is refused, a hidden file is skipped, each with the reason.  A folder's files are named
    by the folder's own name and their path under it (``submissions/team1/metrics.csv``), never
    by the server path above it."""
    files: dict[str, bytes] = {}
    loose: dict[str, Path] = {}
    for given in paths:
        path = Path(given)
        if path.is_symlink() and path.is_dir():
            report.refused.append((str(path), "a link to a folder; links are not followed"))
            continue
        if path.is_dir():
            root_name = path.resolve().name or "folder"
            for folder, subfolders, names in os.walk(path, followlinks=False):
                subfolders.sort()
                for name in sorted(names + [d for d in subfolders if (Path(folder) / d).is_symlink()]):
                    candidate = Path(folder) / name
                    relative = candidate.relative_to(path).as_posix()
                    _add_file(files, f"{root_name}/{relative}", candidate, report, hidden=_hidden(relative))
        elif path.is_file() or (
            path.exists() and not path.is_dir()
        ):  # a FIFO or device given by name: refused by _add_file
            before = set(files)
            _add_file(files, str(path), path, report, hidden=False)
            loose.update({name: path for name in set(files) - before if name == str(path)})
        else:
            report.refused.append((str(path), "no such file or folder"))
        if len(files) > MAX_FILES:
            raise QRAInputError(f"import: more than {MAX_FILES:,} files; import them in parts")
    return files, loose


def _add_file(files: dict[str, bytes], name: str, path: Path, report: ImportReport, *, hidden: bool) -> None:
    """Add one file (a zip: its members) under ``name``, or say why it is not added."""
    if hidden:
        report.skipped.append((name, "hidden or system file; not read"))
        return
    if path.is_symlink():
        report.refused.append((name, "a link; links are not followed"))
        return
    try:
        data = _regular_file_bytes(path, PurePosixPath(name).name)
    except QRAInputError as error:
        report.refused.append((name, str(error)))
        return
    except OSError as error:
        report.refused.append((name, f"cannot be read ({error.strerror or type(error).__name__})"))
        return
    _add_bytes(files, name, data, report)


def _regular_file_bytes(path: Path, shown_as: str) -> bytes:
    """The bytes of a regular file, opened without following a link and without blocking: a FIFO,
    a device (``/dev/zero``) or a socket is refused at once instead of read for ever."""
    import stat

    handle = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(handle, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise QRAInputError(f"{shown_as}: not a regular file (a FIFO, a device or a socket); not read")
        check_size(info.st_size, shown_as)
        data = file.read(info.st_size + 1)
    check_size(len(data), shown_as)
    return data


def _add_bytes(files: dict[str, bytes], name: str, data: bytes, report: ImportReport) -> None:
    if PurePosixPath(name).suffix.lower() == ".zip":
        try:
            files.update(_zip_members(data, name, report))
        except QRAInputError as error:
            report.refused.append((name, str(error)))
    else:
        files[name] = data


_READABLE_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)


def _member_refusal(member: zipfile.ZipInfo) -> str | None:
    """Why a zip member cannot be read, from its directory entry alone (nothing is decompressed)."""
    if member.flag_bits & 0x1:
        return "encrypted (password-protected) member; unpack it and give the files"
    if member.compress_type not in _READABLE_METHODS:
        return (
            f"unknown compression method {member.compress_type}; re-pack the zip with the usual (deflate) compression"
        )
    return None


def _zip_members(data: bytes, source: str, report: ImportReport) -> dict[str, bytes]:
    """The files in a zip as ``{source/member: bytes}``, after :func:`~qra_widgets.io.reading.check_zip`
    has checked its directory (no byte is decompressed before that) and each member's size.

    Each member that cannot be read (encrypted, an unknown compression method, a corrupt
    stream), a name given to two members, a zip inside the zip and hidden or system files
    are listed in ``report`` with the reason; the other members are still read.
    """
    check_zip(data, source)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
        if len(members) > MAX_ZIP_MEMBERS:
            raise QRAInputError(f"{source}: holds {len(members)} files; the limit is {MAX_ZIP_MEMBERS}")
        counts: dict[str, int] = {}
        for member in members:
            counts[member.filename] = counts.get(member.filename, 0) + 1
        read: dict[str, bytes] = {}
        for member in members:
            name = f"{source}/{member.filename}"
            if _hidden(member.filename):
                report.skipped.append((name, "hidden or system file; not read"))
                continue
            if counts[member.filename] > 1:
                if name not in read and not any(n == name for n, _ in report.refused):
                    report.refused.append(
                        (
                            name,
                            (
                                f"{counts[member.filename]} members of the zip have this name; "
                                "which one is meant? none is read"
                            ),
                        )
                    )
                continue
            if PurePosixPath(member.filename).suffix.lower() == ".zip":
                report.refused.append((name, "a zip inside a zip is not opened; unpack it and give its files"))
                continue
            reason = _member_refusal(member)
            if reason is None:
                try:
                    check_size(member.file_size, f"{PurePosixPath(member.filename).name}")
                    read[name] = archive.read(member)
                    continue
                except QRAInputError as error:
                    reason = str(error)
                except (
                    zipfile.BadZipFile,
                    zlib.error,
                    EOFError,
                    OSError,
                    RuntimeError,
                    NotImplementedError,
                    ValueError,
                ) as error:
                    reason = f"cannot be unpacked: the zip is damaged ({type(error).__name__}: {shown(str(error), 60)})"
            report.refused.append((name, reason))
        return read


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
    return (
        isinstance(parsed, dict)
        and bool(parsed)
        and "schema" not in parsed
        and all(isinstance(v, dict) and ("criteria" in v or "experiments" in v) for v in parsed.values())
    )


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
    from .io.qra3 import read_qra3_bytes

    return read_qra3_bytes(
        files[metrics], files[config], metrics_name=PurePosixPath(metrics).name, config_name=PurePosixPath(config).name
    )


def _read_annotation_spec(name: str, data: bytes, *, base: Path | None = None, files: dict[str, bytes] | None = None):
    """An annotation spec: its files read only from ``files`` (a bundle's members), or, for a
    spec file given by path, only under ``base`` (its folder or the ``--data-root``)."""
    try:
        from .io.annotations import check_spec, load_annotations
    except ImportError:
        raise QRAInputError(
            "not a qra-widgets study; as an annotation spec it needs qra_widgets.io.annotations, "
            "which this qra-widgets does not have"
        ) from None

    spec = check_spec(load_json(data, PurePosixPath(name).name))
    if base is not None:
        return [load_annotations(spec, base=base)]
    return [load_annotations(spec, files=files if files is not None else {})]


def _is_annotation_spec(name: str, data: bytes) -> bool:
    """A JSON object whose ``schema`` is the annotation spec's."""
    if PurePosixPath(name).suffix.lower() != ".json":
        return False
    try:
        from .io.annotations import SCHEMA
    except ImportError:
        return False
    try:
        parsed = load_json(data, PurePosixPath(name).name)
    except QRAInputError:
        return False
    return isinstance(parsed, dict) and parsed.get("schema") == SCHEMA


def _spec_file_names(data: bytes) -> set[str]:
    """Every file a spec names, through ``file`` or ``files``."""
    try:
        parsed = load_json(data, "spec")
        named = set()
        for entry in parsed.get("experiments", []):
            if isinstance(entry, dict):  # "file", or "files" of names and {"file": name, ...} entries
                listed = entry.get("files") if isinstance(entry.get("files"), list) else [entry.get("file")]
                named.update(str(f.get("file") if isinstance(f, dict) else f) for f in listed if f is not None)
        return named
    except (QRAInputError, AttributeError):
        return set()


def _bundles(files: dict[str, bytes], loose: dict[str, Path], report: ImportReport) -> tuple[list, set[str]]:
    """Spec bundles among ``files``: a folder (or zip, or the uploads) whose top level holds
    exactly one annotation spec is one study, read only through that spec from the folder's own
    files (named by their path under it); two or more specs at one top level are refused,
    naming them.  Returns the jobs and every file name a bundle took."""
    by_folder: dict[str, list[str]] = {}
    for name in files:
        if name not in loose:
            by_folder.setdefault(_folder(name), []).append(name)
    specs = {
        folder: sorted(n for n in names if _is_annotation_spec(n, files[n])) for folder, names in by_folder.items()
    }
    specs = {folder: found for folder, found in specs.items() if found}
    taken: set[str] = set()
    jobs = []
    for folder in sorted(specs, key=lambda f: (0 if f == "." else f.count("/") + 1, f)):
        prefix = "" if folder == "." else folder + "/"
        members = [n for n in files if n not in loose and n not in taken and n.startswith(prefix)]
        if not members:  # inside a bundle found above it: read only through that bundle's spec
            continue
        taken.update(members)
        found = specs[folder]
        if len(found) > 1:
            where = "the uploaded files" if folder == "." else folder
            listed = ", ".join(PurePosixPath(n).name for n in found)
            report.refused.append(
                (
                    where,
                    (
                        f"holds {len(found)} annotation specs at its top level ({listed}); "
                        "a bundle has exactly one: which one is the study? nothing in it was read"
                    ),
                )
            )
            report.skipped.extend(
                (n, f"in {where}, which holds {len(found)} annotation specs") for n in members if n not in found
            )
            continue
        spec = found[0]
        relative = {n[len(prefix) :]: files[n] for n in members if n != spec}
        named = _spec_file_names(files[spec])
        report.skipped.extend(
            (n, f"part of the bundle of {PurePosixPath(spec).name}, which does not name it")
            for n in members
            if n != spec and n[len(prefix) :] not in named
        )
        jobs.append((spec, lambda s=spec, r=relative: _read_annotation_spec(s, files[s], files=r)))
    return jobs, taken


def _read_table(name: str, data: bytes, scale_min=None):
    from .io import SCORE_COLUMNS, read_table, study_from_scores_table

    stem, suffix = PurePosixPath(name).stem, PurePosixPath(name).suffix.lower()
    frame = read_table(data, PurePosixPath(name).name, SCORE_COLUMNS, excel=suffix == ".xlsx")
    if "study" not in frame:
        return [study_from_scores_table(frame, stem, PurePosixPath(name).name, scale_min)]
    empty = frame.index[frame["study"] == ""]
    if len(empty):
        raise QRAInputError(f"{PurePosixPath(name).name}: row {empty[0] + 2}, column 'study' is empty")
    return [
        study_from_scores_table(
            group.drop(columns="study"), study_id, f"{PurePosixPath(name).name} (study {shown(study_id)})", scale_min
        )
        for study_id, group in frame.groupby("study", sort=False)
    ]


def _read_json(name: str, data: bytes, base: Path | None = None):
    from .io import SCHEMA, study_from_dict

    parsed = load_json(data, PurePosixPath(name).name)
    if isinstance(parsed, dict) and parsed.get("schema") == SCHEMA:
        return [study_from_dict(parsed)]
    if isinstance(parsed, dict) and "revisions" in parsed:
        raise QRAInputError("a library backup (export-all file); restore it with `qra-widgets import-all`")
    if not isinstance(parsed, dict):
        raise QRAInputError(f"expected a JSON object, got {type(parsed).__name__}")
    if not _is_annotation_spec(name, data):
        raise QRAInputError(
            "a JSON object that is neither a qra-widgets study (schema qra-widgets/study) "
            "nor an annotation spec (schema qra-widgets/annotations)"
        )
    return _read_annotation_spec(name, data, base=base)


def import_paths(library, paths, *, data_root: str | os.PathLike | None = None, scale_min=None) -> ImportReport:
    """Import every study found in ``paths`` (files, folders, zips) into ``library``.

    ``library`` is a :class:`~qra_widgets.store.StudyLibrary` (or a path to one).  Returns an
    :class:`ImportReport`; never raises for one bad file, and never overwrites a study.  A
    folder or zip whose top level holds one annotation spec is a bundle (one study, its files
    read only through the spec); an annotation spec given as a file reads its files under its
    own folder, or under ``data_root`` when given.  ``scale_min`` is the scale minimum of
    scores tables without a ``scale_min`` column (a number, or ``{criterion: number}``).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    report = ImportReport()
    files, loose = _gather(paths, report)
    return _import(
        library,
        files,
        report,
        loose=loose,
        data_root=None if data_root is None else Path(data_root),
        scale_min=scale_min,
    )


def _import(
    library,
    files: dict[str, bytes],
    report: ImportReport,
    *,
    loose: dict[str, Path] | None = None,
    data_root: Path | None = None,
    scale_min=None,
) -> ImportReport:
    """Read every study in ``files`` (``{source name: bytes}``) and add the new ones to ``library``."""
    loose = loose or {}
    jobs, taken = _bundles(files, loose, report)
    rest = {name: data for name, data in files.items() if name not in taken}
    by_folder: dict[str, list[str]] = {}
    for name in rest:
        by_folder.setdefault(_folder(name), []).append(name)
    paired = set()
    for names in by_folder.values():
        for metrics, config in _qra3_pairs(names, rest):
            paired |= {metrics, config}
            jobs.append(
                (f"{metrics} + {PurePosixPath(config).name}", lambda m=metrics, c=config: _read_qra3_pair(m, c, rest))
            )
    for name, data in rest.items():
        if name in paired:
            continue
        suffix = PurePosixPath(name).suffix.lower()
        if suffix not in STUDY_SUFFIXES:
            reason = f"unknown file type {suffix or '(none)'!r}; use .json, .csv, .tsv, .xlsx or .zip"
            if name in loose or "/" not in name:  # a file the user gave or uploaded: refused
                report.refused.append((name, reason))
            else:  # one of a folder's or zip's files (a README, a PDF): listed, not a study
                report.skipped.append((name, f"not a study file ({reason})"))
            continue
        if suffix == ".json":
            base = (data_root or loose[name].parent) if name in loose else None
            jobs.append((name, lambda n=name, d=data, b=base: _read_json(n, d, b)))
        else:
            jobs.append((name, lambda n=name, d=data: _read_table(n, d, scale_min)))
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


def add_studies(
    library, studies, source: str, report: ImportReport | None = None, *, known: set | None = None
) -> ImportReport:
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
            _revision, added = library.save_if_changed(study)
        except QRAInputError as error:  # e.g. a different study of this id saved a moment ago: kept, not overwritten
            report.refused.append((source, str(error)))
            continue
        known.add(study.id)
        (report.added if added else report.existed).append((source, study.id))
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
    ([('metrics.csv + config.json', 'Demo')], [('notes.pdf', "unknown file type '.pdf'; use .json, .csv, .tsv, .xlsx or .zip")])
    >>> import_bytes(library, files).existed
    [('metrics.csv + config.json', 'Demo')]
    """
    report = ImportReport()
    files: dict[str, bytes] = {}
    for given, data in named_bytes.items():
        name = (
            PurePosixPath(str(given).replace("\\", "/")).name or "upload"
        )  # a browser sends a bare name; never a path
        try:
            check_size(len(data), name)
        except QRAInputError as error:
            report.refused.append((name, str(error)))
            continue
        if name in files:
            report.refused.append((name, "two uploaded files have this name; the second is not read"))
            continue
        _add_bytes(files, name, bytes(data), report)
    return _import(library, files, report)
