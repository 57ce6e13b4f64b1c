"""The study library: every saved revision of every study, in one SQLite file.

Safe for a Voilà deployment where each browser session is its own kernel process writing
to the same file (see ``shared/recipes``: WAL set once at creation, a busy timeout on every
connection, ``BEGIN IMMEDIATE`` for each save):

* every save appends a revision; nothing is ever overwritten or deleted;
* ``save(study, expected_revision=n)`` succeeds only if ``n`` is still the latest revision.
  Otherwise the edit is **still stored** (as a conflict revision) and
  :class:`ConflictError` says which revision it was stored as and which one won;
* ``save(study)`` without ``expected_revision`` is for a study id not in the library yet;
* a save whose content equals the latest revision's adds nothing and returns that revision
  (checked inside the write lock, so any number of processes importing the same study at
  once store it once);
* ``delete`` is soft (``restore`` undoes it); ``history`` lists every revision.

The file is ``$QRA_WIDGETS_DB`` or ``library.sqlite3`` in the user's data directory.  Use a
local disk: WAL needs shared memory, so network file systems are not supported.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .errors import IdTakenError, QRAInputError
from .io import atomic_write_text, study_from_dict, study_from_json, study_to_json
from .io.parse import unique_id
from .io.reading import load_json, read_bytes
from .limits import shown
from .stored_results import experiment_pairs, results_key, stored_results  # noqa: F401  (results_key re-exported)
from .study import Study

ENV_VAR = "QRA_WIDGETS_DB"
MAX_REVISION = 2**31 - 1  # revision numbers in a backup; far below SQLite's 2**63 - 1, so later saves can add 1
BUSY_TIMEOUT_S = 20  # how long a save waits for another writer (a loaded server can take seconds per save)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS studies (
    id TEXT PRIMARY KEY,
    latest INTEGER NOT NULL,
    deleted_at TEXT
);
CREATE TABLE IF NOT EXISTS revisions (
    study_id TEXT NOT NULL REFERENCES studies(id),
    revision INTEGER NOT NULL,
    based_on INTEGER,
    conflict INTEGER NOT NULL DEFAULT 0,
    name TEXT NOT NULL,
    saved_at TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (study_id, revision)
);
"""

# Stored results: the headline results of every saved revision, written in
# the same transaction as the revision, so the overview never assesses anything.
RESULTS_VERSION = "3"  # raise when a measure or what is stored changes: stale results are recomputed lazily
# 2: ``info["key"]`` names what the rows were computed from (below), so the static site can reuse them
# 3: ``info["annotator_alpha"]``: each experiment's own Krippendorff's alpha per criterion (the overview's annotator α)
_RESULTS_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    study_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    version TEXT NOT NULL,
    info TEXT NOT NULL,
    PRIMARY KEY (study_id, revision)
);
CREATE TABLE IF NOT EXISTS result_rows (
    study_id TEXT NOT NULL, revision INTEGER NOT NULL,
    result_type TEXT, measure TEXT, level TEXT, quality_criterion TEXT, system TEXT,
    value REAL, n INTEGER, n_systems INTEGER, note TEXT, conventions TEXT
);
CREATE INDEX IF NOT EXISTS result_rows_revision ON result_rows (study_id, revision);
CREATE TABLE IF NOT EXISTS result_pairs (
    study_id TEXT NOT NULL, revision INTEGER NOT NULL,
    quality_criterion TEXT, experiment_a TEXT, experiment_b TEXT,
    distance REAL, n_systems INTEGER, same TEXT, differs TEXT
);
CREATE INDEX IF NOT EXISTS result_pairs_revision ON result_pairs (study_id, revision);
"""


class ConflictError(QRAInputError):
    """A save based on a stale revision; the edit was kept as ``stored_revision``."""

    def __init__(self, study_id: str, expected: int | None, latest: int, stored_revision: int, deleted: bool = False):
        self.study_id, self.expected, self.latest, self.stored_revision = study_id, expected, latest, stored_revision
        if deleted:
            problem = f"study {study_id!r} is deleted (latest revision {latest}); restore it before saving"
        elif expected is None:
            problem = f"study {study_id!r} already exists (latest revision {latest})"
        else:
            problem = f"study {study_id!r} changed since revision {expected}: the latest is revision {latest}"
        super().__init__(
            f"{problem}; your version was kept as revision {stored_revision}, open it from the history to merge"
        )


class LibraryError(QRAInputError):
    """The library file itself cannot be used (damaged, read-only, a folder, busy, disk full)."""


@dataclass(frozen=True)
class StudySummary:
    id: str
    name: str
    latest: int
    saved_at: str
    deleted: bool


@dataclass(frozen=True)
class Revision:
    revision: int
    based_on: int | None
    conflict: bool
    name: str
    saved_at: str


def default_path() -> Path:
    """``$QRA_WIDGETS_DB``, else ``library.sqlite3`` in the user's data directory."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("qra-widgets", appauthor=False)) / "library.sqlite3"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class StudyLibrary:
    """A persistent library of studies (see the module docstring)."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_path()
        if self.path.is_dir():
            raise LibraryError(
                f"{self.path}: is a folder; the library must be a file (for example {self.path / 'library.sqlite3'})"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise LibraryError(
                f"{self.path.parent}: cannot create the library's folder ({error.strerror or error})"
            ) from None
        with self._connection() as db:
            self._refuse_foreign(db)
            if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                self._set_wal(db)
            db.executescript(_SCHEMA)
            db.executescript(_RESULTS_SCHEMA)

    def _refuse_foreign(self, db: sqlite3.Connection) -> None:
        """Refuse another application's SQLite database before anything is written to it (the
        WAL switch and the schema would change it): it has tables, and not the library's."""
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and not {"studies", "revisions"} <= tables:
            listed = ", ".join(sorted(tables)[:5]) + (", …" if len(tables) > 5 else "")
            raise LibraryError(
                f"{self.path}: is an SQLite database of another application (tables: {listed}), "
                "not a qra-widgets library; give a new file or an existing library"
            )

    def _set_wal(self, db: sqlite3.Connection) -> None:
        try:
            db.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError:  # another process is creating the file at this moment
            pass

    @contextmanager
    def _connection(self):
        """A connection; any SQLite failure becomes a :class:`QRAInputError` naming the file."""
        try:
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as error:
            raise _library_error(self.path, error) from None
        try:
            db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_S * 1000}")
            yield db
        except sqlite3.Error as error:
            raise _library_error(self.path, error) from None
        finally:
            db.close()

    @contextmanager
    def _write(self):
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    # ------------------------------------------------------------------ writing

    def save(
        self, study: Study, expected_revision: int | None = None, *, force: bool = False, new: bool = False
    ) -> int:
        """Store ``study`` as a new revision and return its number (see the module docstring).

        Over an existing study, a save must name the revision it was based on
        (``expected_revision``): without it, or with an older one, the save is kept as a
        conflict revision and :class:`ConflictError` is raised (nothing saved is ever lost, and
        nothing is replaced silently).  ``force=True`` makes it the latest anyway
        (last-writer-wins, chosen by the caller; the earlier revisions stay in the history).  ``new=True``
        (never saved): an id the library holds, deleted too, raises IdTakenError with a free id, storing nothing."""
        return self.save_if_changed(study, expected_revision, force=force, new=new)[0]

    def free_id(self, name: str) -> str:
        """:func:`~qra_widgets.io.parse.unique_id` of ``name`` against every id of the library, deleted
        ones too, compared without case (never ``yao2022`` beside ``Yao2022``): ``Yao2022`` -> ``yao2022-2``."""
        return unique_id(name, {s.id.lower() for s in self.list(include_deleted=True)})

    def save_if_changed(
        self, study: Study, expected_revision: int | None = None, *, force=False, new=False
    ) -> tuple[int, bool]:
        """:meth:`save`, also saying whether a revision was added: ``(revision, added)``.  A study
        equal to the (not deleted) latest revision adds none: ``(latest, False)``."""
        if not isinstance(study, Study):
            raise QRAInputError(f"save: expected a Study, got {type(study).__name__}")
        expected_revision = _revision_number(expected_revision, "save", "expected_revision", allow_none=True)
        study.validate()
        body = study_to_json(study)
        try:  # computed before the lock; written in the same transaction
            results = stored_results(study)
        except Exception:  # noqa: BLE001 -- never lose a save to the overview: recomputed (and reported) when read
            results = None
        conflict: ConflictError | None = None
        with self._write() as db:
            row = db.execute("SELECT latest, deleted_at FROM studies WHERE id = ?", (study.id,)).fetchone()
            if new:  # taken as free_id sees it: compared without case, deleted ids too
                taken = {i.lower() for (i,) in db.execute("SELECT id FROM studies")}
                if study.id.lower() in taken:
                    raise IdTakenError(study.id, unique_id(study.id, taken))
            if (
                row is not None
                and row[1] is None
                and db.execute(
                    "SELECT body = ? FROM revisions WHERE study_id = ? AND revision = ?", (body, study.id, row[0])
                ).fetchone()[0]
            ):
                return row[0], False  # the same content as the latest revision: nothing to add
            revision = (
                1
                if row is None
                else db.execute("SELECT MAX(revision) FROM revisions WHERE study_id = ?", (study.id,)).fetchone()[0] + 1
            )
            stale = row is not None and ((expected_revision != row[0] and not force) or row[1] is not None)
            if row is None and expected_revision is not None:
                raise QRAInputError(
                    f"save: study {study.id!r} is not in the library, so there is no revision {expected_revision}"
                )
            if row is None:
                db.execute("INSERT INTO studies (id, latest) VALUES (?, ?)", (study.id, revision))
            elif stale:
                conflict = ConflictError(study.id, expected_revision, row[0], revision, deleted=row[1] is not None)
            else:
                db.execute("UPDATE studies SET latest = ? WHERE id = ?", (revision, study.id))
            db.execute(
                "INSERT INTO revisions (study_id, revision, based_on, conflict, name, saved_at, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (study.id, revision, expected_revision, int(stale), study.name, _now(), body),
            )
            if results is not None:
                _write_results(db, study.id, revision, results, body)
        if conflict:
            raise conflict
        return revision, True

    def delete(self, study_id: str) -> None:
        """Hide a study from :meth:`list`; its revisions stay and :meth:`restore` brings it back."""
        with self._write() as db:
            self._require(db, study_id)
            db.execute("UPDATE studies SET deleted_at = ? WHERE id = ?", (_now(), study_id))

    def restore(self, study_id: str) -> None:
        with self._write() as db:
            self._require(db, study_id)
            db.execute("UPDATE studies SET deleted_at = NULL WHERE id = ?", (study_id,))

    # ------------------------------------------------------------------ reading

    def _require(self, db: sqlite3.Connection, study_id: str) -> tuple:
        row = db.execute("SELECT latest, deleted_at FROM studies WHERE id = ?", (study_id,)).fetchone()
        if row is None:
            raise QRAInputError(f"library: no study {study_id!r}")
        return row

    def latest_revision(self, study_id: str) -> int:
        with self._connection() as db:
            return self._require(db, study_id)[0]

    def open(self, study_id: str, revision: int | None = None) -> Study:
        """The latest revision of a study (or the given one, conflicts included)."""
        return study_from_json(self.export_json(study_id, revision), f"library revision of {study_id!r}")

    def export_json(self, study_id: str, revision: int | None = None) -> str:
        revision = _revision_number(
            revision, "library", "revision", allow_none=True
        )  # 2**70: refused, not an SQLite overflow
        with self._connection() as db:
            latest = self._require(db, study_id)[0]
            row = db.execute(
                "SELECT body FROM revisions WHERE study_id = ? AND revision = ?",
                (study_id, latest if revision is None else revision),
            ).fetchone()
        if row is None:
            raise QRAInputError(f"library: study {study_id!r} has no revision {revision}")
        return row[0]

    def list(self, include_deleted: bool = False) -> list[StudySummary]:
        """Studies in the library (latest revision), by id."""
        query = (
            "SELECT s.id, r.name, s.latest, r.saved_at, s.deleted_at FROM studies s "
            "JOIN revisions r ON r.study_id = s.id AND r.revision = s.latest ORDER BY s.id"
        )
        with self._connection() as db:
            rows = db.execute(query).fetchall()
        return [
            StudySummary(i, n, latest, at, d is not None)
            for i, n, latest, at, d in rows
            if include_deleted or d is None
        ]

    def history(self, study_id: str) -> list[Revision]:
        """Every revision of a study, oldest first; ``conflict`` marks refused (stale) saves."""
        with self._connection() as db:
            self._require(db, study_id)
            rows = db.execute(
                "SELECT revision, based_on, conflict, name, saved_at FROM revisions "
                "WHERE study_id = ? ORDER BY revision",
                (study_id,),
            ).fetchall()
        return [Revision(r, b, bool(c), n, at) for r, b, c, n, at in rows]

    # ------------------------------------------------------------------ files

    def import_json(self, text: str | bytes, expected_revision: int | None = None) -> int:
        return self.save(study_from_json(text), expected_revision)

    def import_file(self, path: str | os.PathLike, expected_revision: int | None = None) -> int:
        """Save a study file (anything :func:`~qra_widgets.load_study` reads) into the library."""
        from .io import load_study

        return self.save(load_study(path), expected_revision)

    def export_all(self, folder: str | os.PathLike) -> list[Path]:
        """Back up every study, deleted ones included, with all revisions: one JSON file each.

        File names come from the study ids (:func:`_safe_file_name`), unique even on disks
        that ignore case.
        """
        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise QRAInputError(f"{folder}: is a file; export-all writes one file per study into a folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise QRAInputError(f"{folder}: cannot create the backup folder ({error.strerror or error})") from None
        written = []
        for summary in self.list(include_deleted=True):
            with self._connection() as db:
                rows = db.execute(
                    "SELECT revision, based_on, conflict, saved_at, body FROM revisions "
                    "WHERE study_id = ? ORDER BY revision",
                    (summary.id,),
                ).fetchall()
            backup = {
                "id": summary.id,
                "latest": summary.latest,
                "deleted": summary.deleted,
                "revisions": [
                    {"revision": r, "based_on": b, "conflict": bool(c), "saved_at": at, "study": json.loads(body)}
                    for r, b, c, at, body in rows
                ],
            }
            path = folder / f"{_safe_file_name(summary.id)}.json"
            atomic_write_text(path, json.dumps(backup, ensure_ascii=False, indent=1, allow_nan=False))
            written.append(path)
        return written

    def import_backup(self, path: str | os.PathLike) -> str:
        """Restore one study from an :meth:`export_all` file, every revision as it was.

        Revision numbers, ``based_on``, conflict marks, save times and the deleted state
        are kept.  Every revision is validated before anything is written, and the restore
        is one transaction.  A study whose id is already in the library is refused
        (:class:`~qra_widgets.QRAInputError`): a restore never merges into or overwrites
        what is there; restore into a new library file instead.  Returns the study id.
        """
        path = Path(path)
        return self.restore_backup(read_backup(path), path.name)

    def restore_backup(self, backup: dict, source: str) -> str:
        """Restore a backup already read by :func:`read_backup` (see :meth:`import_backup`)."""
        path = Path(source)
        study_id = backup["id"]
        with self._write() as db:
            if db.execute("SELECT 1 FROM studies WHERE id = ?", (study_id,)).fetchone():
                raise QRAInputError(
                    f"{path.name}: study {study_id!r} is already in the library {self.path}; "
                    "restore into a new library file (--db) so nothing there is overwritten"
                )
            db.execute(
                "INSERT INTO studies (id, latest, deleted_at) VALUES (?, ?, ?)",
                (study_id, backup["latest"], _now() if backup["deleted"] else None),
            )
            db.executemany(
                "INSERT INTO revisions (study_id, revision, based_on, conflict, name, saved_at, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (study_id, r["revision"], r["based_on"], int(r["conflict"]), r["name"], r["saved_at"], r["body"])
                    for r in backup["revisions"]
                ],
            )
        return study_id

    def refresh_results(self) -> int:
        """Recompute the stored results of every latest revision that has none or stale ones
        (older :data:`RESULTS_VERSION`, or restored from a backup).  Returns how many."""
        query = (
            "SELECT s.id, s.latest FROM studies s LEFT JOIN results r ON r.study_id = s.id AND r.revision = s.latest "
            "WHERE r.version IS NULL OR r.version != ?"
        )
        with self._connection() as db:
            stale = db.execute(query, (RESULTS_VERSION,)).fetchall()
        for study_id, revision in stale:
            body = self.export_json(study_id, revision)
            results = stored_results(study_from_json(body, f"library revision of {study_id!r}"))
            with self._write() as db:
                db.execute("DELETE FROM results WHERE study_id = ? AND revision = ?", (study_id, revision))
                db.execute("DELETE FROM result_rows WHERE study_id = ? AND revision = ?", (study_id, revision))
                db.execute("DELETE FROM result_pairs WHERE study_id = ? AND revision = ?", (study_id, revision))
                _write_results(db, study_id, revision, results, body)
        return len(stale)

    def stored_results(self, include_deleted: bool = False, pairs: bool = True) -> dict:
        """The stored results of every study's latest revision: ``{"studies": [(id, revision,
        saved_at, info dict)], "rows": DataFrame, "pairs": DataFrame}`` (``pairs`` only if asked:
        see :meth:`stored_pairs`).  Stale results are recomputed first (:meth:`refresh_results`);
        nothing else is assessed."""
        import pandas as pd

        self.refresh_results()
        alive = "" if include_deleted else "WHERE s.deleted_at IS NULL"
        with self._connection() as db:
            studies = db.execute(
                "SELECT s.id, s.latest, rv.saved_at, r.info FROM studies s JOIN results r ON r.study_id = s.id AND r.revision = s.latest "
                f"JOIN revisions rv ON rv.study_id = s.id AND rv.revision = s.latest {alive} ORDER BY s.id"
            ).fetchall()
            latest = f"JOIN studies s ON s.id = t.study_id AND s.latest = t.revision {alive}"
            rows = pd.read_sql_query(
                "SELECT t.study_id, t.result_type, t.measure, t.level, t.quality_criterion, t.system, "
                f"t.value, t.n, t.n_systems, t.note FROM result_rows t {latest}",
                db,
            )
        stored = {"studies": [(i, rev, at, json.loads(info)) for i, rev, at, info in studies], "rows": rows}
        if pairs:
            stored["pairs"] = self.stored_pairs(include_deleted)
        return stored

    def assessed_studies(self):
        """``(study, assessment)`` for every study's latest revision (not deleted, by id), read over
        one connection: the assessment rebuilt from the stored rows (values, counts, notes, in
        ``assess``'s order; conventions; no intervals, no ``cv`` details), or ``None`` where they
        cannot stand for ``assess(study)`` -- the study cannot be assessed, or the results' version
        or key (:func:`results_key`: this revision's text, the conventions and package now) differs."""
        import math

        from .assess import Assessment
        from .conventions import resolve, stored_conventions
        from .result import ResultRow

        with self._connection() as db:
            studies = db.execute(
                "SELECT s.id, rv.body, r.version, r.info FROM studies s JOIN revisions rv ON rv.study_id = s.id AND rv.revision = s.latest "
                "LEFT JOIN results r ON r.study_id = s.id AND r.revision = s.latest WHERE s.deleted_at IS NULL ORDER BY s.id"
            ).fetchall()
            rows: dict[str, list] = {}
            for study_id, *row in db.execute(  # by rowid: in the order they were written
                "SELECT t.study_id, t.result_type, t.measure, t.level, t.quality_criterion, t.system, t.value, t.n, t.n_systems, "
                "t.note FROM result_rows t JOIN studies s ON s.id = t.study_id AND s.latest = t.revision AND s.deleted_at IS NULL "
                "ORDER BY t.rowid"
            ):
                rows.setdefault(study_id, []).append(row)
        for study_id, body, version, info in studies:
            study = study_from_json(body, f"library revision of {study_id!r}")
            key = json.loads(info).get("key") if version == RESULTS_VERSION else None
            try:
                conventions = resolve(stored_conventions(study.metadata)) if key else None
            except QRAInputError:  # the caller's assess() says why
                conventions = None
            yield (
                study,
                None
                if conventions is None or key != results_key(body, conventions.signature())
                else Assessment(
                    study,
                    [ResultRow(*r[:5], math.nan if r[5] is None else r[5], *r[6:]) for r in rows.get(study_id, [])],
                    conventions=conventions,
                ),
            )

    def stored_pairs(self, include_deleted: bool = False):
        """The stored experiment pairs (:func:`experiment_pairs`) of every study's latest revision."""
        import pandas as pd

        alive = "" if include_deleted else "WHERE s.deleted_at IS NULL"
        with self._connection() as db:
            return pd.read_sql_query(
                f"SELECT t.* FROM result_pairs t JOIN studies s ON s.id = t.study_id AND s.latest = t.revision {alive}",
                db,
            )

    def integrity_check(self) -> str:
        with self._connection() as db:
            return db.execute("PRAGMA integrity_check").fetchone()[0]


def _library_error(path: Path, error: sqlite3.Error) -> LibraryError:
    """One line naming the library file and what SQLite could not do with it."""
    text = str(error)
    if "not a database" in text or isinstance(error, sqlite3.DatabaseError) and "malformed" in text:
        return LibraryError(
            f"{path}: is not a qra-widgets library, or it is damaged (SQLite: {text}); "
            "restore it from a backup (import-all) into a new file"
        )
    if "readonly" in text or "read-only" in text:
        return LibraryError(
            f"{path}: the library cannot be written (SQLite: {text}); check the file's and its folder's permissions"
        )
    if "unable to open" in text:
        return LibraryError(
            f"{path}: the library file cannot be opened (SQLite: {text}); check the path and its permissions"
        )
    if "locked" in text or "busy" in text:
        return LibraryError(f"{path}: the library is busy (SQLite: {text}); try again")
    if "disk" in text and ("full" in text or "I/O" in text):
        return LibraryError(f"{path}: the library cannot be written (SQLite: {text}); nothing was changed")
    return LibraryError(f"{path}: library error (SQLite: {text})")


def read_backup(path: str | os.PathLike) -> dict:
    """Read and check one :meth:`StudyLibrary.export_all` file (nothing is written)."""
    path = Path(path)
    return _parse_backup(read_bytes(path), path.name)


def _revision_number(value, where: str, field: str, allow_none: bool = False):
    if value is None and allow_none:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_REVISION:
        shown = (
            value if not isinstance(value, int) or abs(value) < 10**12 else f"{value} ({len(str(abs(value)))} digits)"
        )
        raise QRAInputError(
            f"{where}: {field} must be a whole number from 1 to {MAX_REVISION}"
            f"{' or null' if allow_none else ''}, got {shown!r}"
        )
    return value


def _parse_backup(data: bytes, source: str) -> dict:
    """Read and check an :meth:`StudyLibrary.export_all` file; each revision is validated as a study."""
    backup = load_json(data, source)
    if not isinstance(backup, dict) or not isinstance(backup.get("revisions"), list) or not backup["revisions"]:
        raise QRAInputError(
            f"{source}: not a qra-widgets library backup (expected an object with a non-empty 'revisions' list)"
        )
    study_id, latest = backup.get("id"), backup.get("latest")
    if not isinstance(study_id, str) or not study_id:
        raise QRAInputError(f"{source}: id must be a non-empty text, got {study_id!r}")
    revisions, numbers = [], []
    for i, record in enumerate(backup["revisions"]):
        where = f"{source}: revisions[{i}]"
        if not isinstance(record, dict):
            raise QRAInputError(f"{where}: expected an object, got {type(record).__name__}")
        number = _revision_number(record.get("revision"), where, "revision")
        based_on = _revision_number(record.get("based_on"), where, "based_on", allow_none=True)
        try:
            study = study_from_dict(record.get("study"))
        except QRAInputError as error:
            raise QRAInputError(f"{where}: {error}") from None
        if study.id != study_id:
            raise QRAInputError(f"{where}: holds study {study.id!r}, but the backup is of {study_id!r}")
        numbers.append(number)
        revisions.append(
            {
                "revision": number,
                "based_on": based_on,
                "conflict": bool(record.get("conflict")),
                "name": study.name,
                "saved_at": str(record.get("saved_at") or _now()),
                "body": study_to_json(study),
            }
        )
    if len(set(numbers)) != len(numbers):
        raise QRAInputError(f"{source}: revision numbers repeat")
    if latest not in numbers or any(r["conflict"] for r in revisions if r["revision"] == latest):
        raise QRAInputError(f"{source}: latest ({latest!r}) must name one of its revisions that is not a conflict")
    deleted = backup.get("deleted", False)
    if not isinstance(deleted, bool):  # "false" (text) is true in Python: never guess
        got = shown(deleted) if isinstance(deleted, str) else type(deleted).__name__
        raise QRAInputError(f"{source}: deleted must be true or false, got {got}")
    return {"id": study_id, "latest": latest, "deleted": deleted, "revisions": revisions}


_RESERVED_NAMES = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


def _safe_file_name(name: str) -> str:
    """A file name from a study id, unique on every disk: unsafe characters (path separators...)
    become '_', and a short hash of the id is added whenever the name is not the id itself in
    lower case ASCII, so ids that differ in case only ("Study", "study") or clean to the same
    text get different files even where the disk ignores case (macOS, Windows).

    >>> _safe_file_name("qrapp-example1"), _safe_file_name("../etc/passwd")
    ('qrapp-example1', 'etc_passwd-e96c47ea')
    >>> _safe_file_name("Study") != _safe_file_name("study") and _safe_file_name("Study").lower() != "study"
    True
    """
    cleaned = (
        "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_.") else "_" for ch in name).strip("._")[:80]
        or "study"
    )
    if cleaned == name and name == name.lower() and name.split(".")[0] not in _RESERVED_NAMES:
        return cleaned
    return f"{cleaned}-{hashlib.sha1(name.encode('utf-8')).hexdigest()[:8]}"


def _write_results(db: sqlite3.Connection, study_id: str, revision: int, results: dict, body: str) -> None:
    info = {**results["info"], "key": results_key(body, results["signature"]) if results["signature"] else None}
    db.execute(
        "INSERT OR REPLACE INTO results (study_id, revision, version, info) VALUES (?, ?, ?, ?)",
        (study_id, revision, RESULTS_VERSION, json.dumps(info, ensure_ascii=False)),
    )
    db.executemany(
        "INSERT INTO result_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(study_id, revision, *row) for row in results["rows"]],
    )
    db.executemany(
        "INSERT INTO result_pairs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(study_id, revision, *pair) for pair in results["pairs"]],
    )
