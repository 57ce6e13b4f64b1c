"""Read an atlas family's files into a :class:`~qra_widgets.Study`, reading only what the spec maps.

The atlas specs use the key names of the annotation spec (:mod:`qra_widgets.io.annotations`) and
its extension for the layouts the field publishes: ``scores`` (system-level values), ``files``,
``rows``/``exclude``, ``item``/``rater`` given as several columns, ``choices``, and the
``pairwise`` layout.  Two more keys this reader needs: ``layout: "system_scores"`` (a table of
system-level values, one row per system) and, for ``pairwise``, ``positions`` (one row holds
several judgements, in columns named with ``{i}``), ``aggregate: "majority"`` (one judgement
per item and position, the majority of its raters) and ``score: "net_share"`` (100 × (wins −
losses) over all judgements of the experiment, the normalisation of Watson & Gkatzia 2024).

Privacy: a file is read with only the columns the spec names (``usecols``); rater ids are
replaced by a keyed hash (:func:`pseudonym`) as they are read; nothing else of a row is kept.
Several entries with the same ``id`` make one experiment (a lab whose criteria are in separate
files).
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import NamedTuple

import numpy as np

from ..errors import QRAInputError
from ..limits import shown, shown_values

LAYOUTS = ("wide", "long", "pairwise", "system_scores")


def pseudonym(family: str, value: str) -> str:
    """A stable pseudonym for a rater id: ``"rater-"`` and 10 hex digits of SHA-256 of the family
    and the id.  The id itself is never stored.

    >>> pseudonym("yao2022", "0")
    'rater-ee4c8175da'
    """
    return "rater-" + hashlib.sha256(f"{family}\x00{value}".encode()).hexdigest()[:10]


# ----------------------------------------------------------------------------- the cache, checked on every read


class CacheRefused(QRAInputError):
    """A cached (or mirrored) file that is not what the manifest pins: a sha256 that differs, a
    link, not a regular file, too large. The message is the one line to print."""


class CachedFile(NamedTuple):
    """A cached file's bytes, read once and verified by sha256 before anything parses them."""

    name: str
    data: bytes


def check_relative(path, where: str) -> str:
    """A manifest path (a family id, a repository, a file's path): relative, with no ``..``, no
    drive, no NUL and no backslash, so that joined under the cache it stays under the cache.

    >>> check_relative("annotations/yao2022.csv", "atlas manifest")
    'annotations/yao2022.csv'
    >>> check_relative("../../home/x/.bashrc", "atlas manifest: f: files[0].path")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: atlas manifest: f: files[0].path: '../../home/x/.bashrc' must be a relative path without '..'
    """
    pure = PurePosixPath(path) if isinstance(path, str) else None
    if (
        pure is None
        or not path
        or pure.is_absolute()
        or ".." in pure.parts
        or "\\" in path
        or "\x00" in path
        or PureWindowsPath(path).drive
        or path.startswith("~")
    ):
        raise QRAInputError(
            f"{where}: {shown(path) if isinstance(path, str) else type(path).__name__} must be a relative "
            "path without '..'"
        )
    return path


def check_manifest_paths(manifest: dict) -> None:
    """Every path a manifest joins under the cache or the mirror (family ids, repositories, file
    paths), checked by :func:`check_relative`: at every entry, a library call's manifest included."""
    for n, family in enumerate(manifest.get("families") or []):
        check_relative(family.get("id"), f"atlas manifest: families[{n}].id")
        for source in family.get("sources") or []:
            check_relative(source.get("repository"), f"atlas manifest: {family['id']}: repository")
            for k, entry in enumerate(source.get("files") or []):
                check_relative(
                    entry.get("path"), f"atlas manifest: {family['id']}: {source['repository']}: files[{k}].path"
                )


def read_verified(root: Path, relative: str, sha256: str | None, *, max_bytes: int, what: str = "cache") -> bytes:
    """The bytes of ``root/relative``, refused unless every folder under ``root`` and the file
    itself are no links, the file is a regular file of at most ``max_bytes``, and its sha256 is
    ``sha256`` (unless None: the caller checks it, as ``fetch`` does with its own message).  The file is opened without following a link and read once: what is checked is
    what is parsed.  Refusals name the file under ``root``, never its target or its digest."""
    check_relative(relative, f"atlas {what}")
    where = Path(root)
    for part in PurePosixPath(relative).parts[:-1]:
        where = where / part
        if where.is_symlink():
            raise CacheRefused(
                f"atlas {what}: {relative}: {where.relative_to(root).as_posix()} is a link; links in the "
                f"{what} are refused"
            )
    path = where / PurePosixPath(relative).name
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise
    except OSError as error:
        if path.is_symlink():
            raise CacheRefused(f"atlas {what}: {relative} is a link; links in the {what} are refused") from None
        raise CacheRefused(f"atlas {what}: {relative}: cannot be read ({error.strerror or error})") from None
    with os.fdopen(handle, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise CacheRefused(f"atlas {what}: {relative} is not a regular file; refused")
        if info.st_size > max_bytes:
            raise CacheRefused(
                f"atlas {what}: {relative} is {info.st_size:,} bytes; the limit is {max_bytes:,} per file"
            )
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise CacheRefused(f"atlas {what}: {relative} is over {max_bytes:,} bytes; the limit per file")
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise CacheRefused(
            f"atlas {what}: {relative}: sha256 differs from the manifest's (the file was changed "
            f"after it was fetched); refused: fetch it again"
        )
    return data


def check_no_links(root: Path, relative: str, what: str = "cache") -> None:
    """Refuse a link at any folder or file of ``relative`` under ``root`` (what ``fetch`` writes through)."""
    where = Path(root)
    for part in PurePosixPath(relative).parts:
        where = where / part
        if where.is_symlink():
            raise CacheRefused(
                f"atlas {what}: {relative}: {where.relative_to(root).as_posix()} is a link; links in the "
                f"{what} are refused"
            )


def _columns_of(value) -> list:
    return value if isinstance(value, list) else [value]


def _read_table(path: Path | CachedFile, wanted: list, where: str):
    """The named columns of a CSV or Excel file, as text; a column may be given by 1-based position.
    ``path`` is a :class:`CachedFile` (the verified bytes) or, for a caller's own files, a path."""
    import pandas as pd

    if isinstance(path, CachedFile):
        name, opened = path.name, (lambda: io.BytesIO(path.data))
    else:
        name, opened = str(path), (lambda: path)
    excel = PurePosixPath(name).suffix.lower() in (".xlsx", ".xlsm")
    try:
        header = (
            list(pd.read_excel(opened(), nrows=0).columns)
            if excel
            else list(pd.read_csv(opened(), nrows=0, encoding="utf-8-sig").columns)
        )
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise QRAInputError(f"{where}: cannot read the file ({shown(str(error), 120)})") from None
    names = []
    for column in wanted:
        if isinstance(column, int):
            if not 1 <= column <= len(header):
                raise QRAInputError(f"{where}: column position {column} is outside 1..{len(header)}")
            names.append(header[column - 1])
        elif column not in header:
            raise QRAInputError(f"{where}: column {shown(column)} is missing; found {shown_values(header)}")
        else:
            names.append(column)
    used = list(dict.fromkeys(names))
    if excel:
        frame = pd.read_excel(opened(), usecols=used, dtype=str).fillna("")
    else:
        frame = pd.read_csv(opened(), usecols=used, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    frame.columns = [str(c) for c in frame.columns]
    return frame, dict(zip([str(w) for w in wanted], names))


def _filtered(frame, entry: dict, where: str):
    for key, keep in (("rows", True), ("exclude", False)):
        for column, values in (entry.get(key) or {}).items():
            if column in ("system_a", "system_b"):
                continue  # pairwise: applied to the mapped system columns, after expansion
            if column not in frame.columns:
                raise QRAInputError(f"{where}: column {column!r} (in {key}) is missing")
            hit = frame[column].isin([str(v) for v in _columns_of(values)])
            frame = frame[hit if keep else ~hit]
    return frame


def _key(frame, columns) -> np.ndarray:
    parts = [frame[c].astype(str).to_numpy(dtype=object) for c in _columns_of(columns)]
    if len(parts) == 1:
        return parts[0]
    return np.array(["|".join(p) for p in zip(*parts)], dtype=object)


class Collected:
    """What the reader gathers: ratings columns, system-level scores and their standard errors."""

    def __init__(self) -> None:
        self.ratings: dict[str, list] = {k: [] for k in ("qc", "system", "item", "experiment", "rater", "rating")}
        self.scores: dict[tuple[str, str, str], float] = {}
        self.standard_errors: dict[tuple[str, str, str], float] = {}
        self.sources: dict[tuple[str, str, str], str] = {}

    def add_ratings(self, qc, systems, items, experiment, raters, values) -> None:
        n = len(values)
        self.ratings["qc"] += [qc] * n
        self.ratings["system"] += list(systems)
        self.ratings["item"] += list(items)
        self.ratings["experiment"] += [experiment] * n
        self.ratings["rater"] += list(raters)
        self.ratings["rating"] += [float(v) for v in values]


def _numbers(values, where: str, column: str) -> np.ndarray:
    import pandas as pd

    numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(numbers)
    if bad.any():
        raise QRAInputError(f"{where}: column {shown(column)}: {shown(values[int(np.argmax(bad))])} is not a number")
    return numbers


def _rated(entry, path, where, family, systems, criteria, out: Collected) -> None:
    columns = entry["columns"]
    long = entry.get("layout") == "long"
    wanted = _columns_of(columns["item"]) + _columns_of(columns["system"]) + _columns_of(columns.get("rater") or [])
    wanted += [columns["criterion"], columns["rating"]] if long else list(columns["criteria"].values())
    wanted += list((entry.get("rows") or {}).keys()) + list((entry.get("exclude") or {}).keys())
    frame, _ = _read_table(path, wanted, where)
    frame = _filtered(frame, entry, where)
    names = {**systems, **(entry.get("systems") or {})}
    system = np.array([names.get(v, v) for v in frame[columns["system"]]], dtype=object)
    item = _key(frame, columns["item"])
    rater = (
        np.array([pseudonym(family, v) for v in _key(frame, columns["rater"])], dtype=object)
        if columns.get("rater")
        else np.array([f"row {i}" for i in range(len(frame))], dtype=object)
    )
    for qc, column in columns["criteria"].items():
        if qc not in criteria:
            raise QRAInputError(f"{where}: columns.criteria names {qc!r}, which is not a quality criterion of the spec")
        if long:
            mine = (frame[columns["criterion"]] == column).to_numpy()
            raw = frame[columns["rating"]].to_numpy(dtype=object)[mine]
            rating_column = columns["rating"]
        else:
            mine = np.ones(len(frame), dtype=bool)
            raw = frame[column].to_numpy(dtype=object)
            rating_column = column
        present = raw != ""
        values = _numbers(raw[present], where, rating_column)
        out.add_ratings(qc, system[mine][present], item[mine][present], entry["id"], rater[mine][present], values)


def _system_scores(entry, path, where, systems, criteria, out: Collected) -> None:
    columns = entry["columns"]
    frame, names = _read_table(path, [columns["system"], *columns["criteria"].values()], where)
    system_column = names[str(columns["system"])]
    mapping = {**systems, **(entry.get("systems") or {})}
    for qc, column in columns["criteria"].items():
        values = _numbers(frame[names[str(column)]].to_numpy(dtype=object), where, column)
        for name, value in zip(frame[system_column], values):
            key = (qc, mapping.get(name, name), entry["id"])
            out.scores[key] = float(value)
            out.sources[key] = f"{entry['file']}, column {names[str(column)]!r}"


def _pairwise(entry, path, where, family, systems, criteria, out: Collected) -> None:
    import pandas as pd

    columns = entry["columns"]
    positions = entry.get("positions")
    choices = entry.get("choices") or {}
    if not choices:
        raise QRAInputError(f"{where}: a pairwise experiment needs choices (answer text -> a, b or tie)")
    score = entry.get("score", "preference")
    if score not in ("preference", "net_share"):
        raise QRAInputError(f"{where}: score must be 'preference' or 'net_share', got {score!r}")
    indices = range(positions) if positions else [None]
    fill = (lambda name, i: name.replace("{i}", str(i))) if positions else (lambda name, i: name)
    pair_columns = [columns["system_a"], columns["system_b"], *columns["criteria"].values()]
    wanted = _columns_of(columns["item"]) + _columns_of(columns.get("rater") or [])
    wanted += [fill(c, i) for i in indices for c in pair_columns]
    wanted += list((entry.get("rows") or {}).keys()) + [
        k for k in (entry.get("exclude") or {}) if k not in ("system_a", "system_b")
    ]
    frame, _ = _read_table(path, wanted, where)
    frame = _filtered(frame, entry, where)
    item = _key(frame, columns["item"])
    rater = np.array([pseudonym(family, v) for v in _key(frame, columns["rater"])], dtype=object)
    names = {**systems, **(entry.get("systems") or {})}
    dropped = {
        k: set(map(str, _columns_of(v)))
        for k, v in (entry.get("exclude") or {}).items()
        if k in ("system_a", "system_b")
    }
    for qc, choice_column in columns["criteria"].items():
        if qc not in criteria:
            raise QRAInputError(f"{where}: columns.criteria names {qc!r}, which is not a quality criterion of the spec")
        parts = []
        for i in indices:
            part = pd.DataFrame(
                {
                    "item": item if i is None else [f"{x}#{i}" for x in item],
                    "rater": rater,
                    "a": frame[fill(columns["system_a"], i)].to_numpy(dtype=object),
                    "b": frame[fill(columns["system_b"], i)].to_numpy(dtype=object),
                    "answer": frame[fill(choice_column, i)].to_numpy(dtype=object),
                }
            )
            parts.append(part)
        judged = pd.concat(parts, ignore_index=True)
        keep = ~(judged.a.isin(dropped.get("system_a", set())) | judged.b.isin(dropped.get("system_b", set())))
        judged = judged[keep]
        unknown = sorted(set(judged.answer) - set(choices))
        if unknown:
            raise QRAInputError(
                f"{where}: column {choice_column!r}: answers {unknown} are not in choices "
                f"{sorted(choices)} (map them, or drop their rows with exclude)"
            )
        judged = judged.assign(choice=judged.answer.map(choices))
        if entry.get("aggregate") == "majority":

            def majority(choice):
                counts = choice.value_counts()
                top = counts[counts == counts.max()].index
                return "tie" if len(top) > 1 else top[0]

            winners = judged.groupby(["item", "a", "b"], sort=False)["choice"].apply(majority)  # any pandas 2.x
            judged = winners.rename("choice").reset_index().assign(rater="majority")
        a = np.array([names.get(v, v) for v in judged.a], dtype=object)
        b = np.array([names.get(v, v) for v in judged.b], dtype=object)
        sign_a = judged.choice.map({"a": 1.0, "b": -1.0, "tie": 0.0}).to_numpy(dtype=float)
        if score == "preference":
            systems_col = np.concatenate([a, b])
            items = np.concatenate([judged.item, judged.item]).astype(
                object
            )  # an item is one system's output in one comparison
            items = np.array([f"{i} / {s}" for i, s in zip(items, systems_col)], dtype=object)
            out.add_ratings(
                qc,
                systems_col,
                items,
                entry["id"],
                np.concatenate([judged.rater, judged.rater]),
                np.concatenate([100 * sign_a, -100 * sign_a]),
            )
        else:  # net share over all judgements of the experiment, with its standard error
            total = len(judged)
            for name in dict.fromkeys(np.concatenate([a, b])):
                x = np.where(a == name, sign_a, 0.0) + np.where(b == name, -sign_a, 0.0)
                key = (qc, name, entry["id"])
                out.scores[key] = 100.0 * float(x.sum()) / total
                out.standard_errors[key] = 100.0 * float(np.std(x, ddof=1)) / math.sqrt(total)
                out.sources[key] = f"{entry['file']}: 100 x (wins - losses) / {total} judgements"


def read_family(spec: dict, locate: Callable[[str], Path], *, family: str | None = None):
    """The study of an atlas spec; ``locate("owner/repo:path")`` gives the cached file (a
    :class:`CachedFile` of verified bytes, or a path).

    Returns ``(study, standard_errors)``: the standard errors of system-level values that are not
    means of the study's ratings (printed with a ``scores`` value, or of a ``net_share``)."""
    from ..conventions import resolve
    from ..ratings import Ratings
    from ..study import Experiment, QualityCriterion, Study

    family = family or spec["id"]
    criteria = {c["name"]: c for c in spec["quality_criteria"]}
    systems = spec.get("systems") or {}
    out = Collected()
    experiments: dict[str, Experiment] = {}
    for n, entry in enumerate(spec["experiments"]):
        where = f"{family}: experiments[{n}] ({entry.get('id')})"
        if entry["id"] not in experiments:
            experiments[entry["id"]] = Experiment(
                entry["id"], label=entry.get("label", ""), role=entry.get("role", "repeat")
            )
        if "scores" in entry:
            for qc, values in entry["scores"].items():
                for system, value in values.items():
                    key = (qc, system, entry["id"])
                    if isinstance(value, dict):
                        out.scores[key] = float(value["value"])
                        if value.get("se") is not None:
                            out.standard_errors[key] = float(value["se"])
                    else:
                        out.scores[key] = float(value)
                    out.sources[key] = entry.get("source", "")
            continue
        layout = entry.get("layout", "wide")
        if layout not in LAYOUTS:
            raise QRAInputError(f"{where}: layout must be one of {LAYOUTS}, got {layout!r}")
        path = locate(entry["file"])
        where = f"{where}, {entry['file']}"
        if layout == "system_scores":
            _system_scores(entry, path, where, systems, criteria, out)
        elif layout == "pairwise":
            _pairwise(entry, path, where, family, systems, criteria, out)
        else:
            _rated(entry, path, where, family, systems, criteria, out)
    ratings = Ratings.from_columns(*out.ratings.values()) if out.ratings["rating"] else Ratings()
    system_names: list[str] = []
    for name in list(dict.fromkeys(out.ratings["system"])) + [k[1] for k in out.scores]:
        if name not in system_names:
            system_names.append(name)
    study = Study(
        family,
        name=spec.get("name", family),
        description=spec.get("notes", ""),
        quality_criteria=[
            QualityCriterion(
                c["name"],
                scale_min=c.get("scale_min", 0.0),
                scale_max=c.get("scale_max"),
                label_level=c.get("label_level", "ordinal"),
            )
            for c in criteria.values()
        ],
        systems=system_names,
        experiments=list(experiments.values()),
        ratings=ratings,
        metadata={"conventions": resolve(spec.get("conventions", "qrapp")).to_stored()},
    )
    for qc in criteria:
        if ratings and qc in ratings.criteria():
            for (system, experiment), mean in ratings.system_means(qc).items():
                study.set_score(qc, system, experiment, mean)
    for (qc, system, experiment), value in out.scores.items():
        study.set_score(qc, system, experiment, value)
        study.sources[(qc, system, experiment)] = out.sources.get((qc, system, experiment), "")
    return study, out.standard_errors
