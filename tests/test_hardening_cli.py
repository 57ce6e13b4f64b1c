"""The CLI and the study library under hostile input: one line on stderr
naming the file and the problem, exit status 2, never a traceback; restores that never pick
the wrong file or half-succeed silently."""

import errno
import json
import sqlite3
import subprocess
import sys

import pytest

from qra_widgets import QRAInputError, Study
from qra_widgets.cli import main
from qra_widgets.store import MAX_REVISION, StudyLibrary, _safe_file_name


def run(capsys, *args):
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def one_line_error(err: str, status: int) -> str:
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("qra-widgets: ") and "Traceback" not in err
    return err[len("qra-widgets: ") : -1]


@pytest.fixture
def backup(tmp_path, example_study, qra2022_nts):
    """An export-all folder of two studies; qrapp-example1 has two revisions."""
    library = StudyLibrary(tmp_path / "lib.sqlite3")
    library.save(example_study("qrapp_example1"))
    library.save(example_study("qrapp_example1"), expected_revision=1)
    library.save(qra2022_nts)
    library.export_all(tmp_path / "backup")
    return tmp_path / "backup"


# ----------------------------------------------------------------------------- files the user names


def test_report_on_a_folder_a_missing_file_and_an_unreadable_file(capsys, tmp_path, monkeypatch):
    assert one_line_error(*reversed(run(capsys, "report", tmp_path)[::2])) == f"{tmp_path}: is a folder, not a file"
    missing = tmp_path / "missing.csv"
    assert one_line_error(*reversed(run(capsys, "report", missing)[::2])) == f"{missing}: no such file"
    path = tmp_path / "s.json"
    path.write_text("{}")

    def denied(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(type(path), "read_bytes", denied)
    assert one_line_error(*reversed(run(capsys, "report", path)[::2])) == f"{path}: cannot be read (Permission denied)"


@pytest.mark.parametrize(
    "name, data, message",
    [
        (
            "rows.csv",
            b"experiment,quality_criterion,system,score\nA,Q,s,1\nB,Q,s\n",
            "rows.csv: row 3 has 3 fields but the header has 4",
        ),
        (
            "big.json",
            b'{"schema": "qra-widgets/study", "version": ' + b"1" * 400 + b"}",
            "big.json: the integer 111111111111... has 400 digits; the limit is 20",
        ),
        ("deep.json", b"[" * 50_000 + b"]" * 50_000, "deep.json: JSON nested more than 64 levels deep"),
        (
            "comma.csv",
            b"experiment,quality_criterion,system,score,\nA,Q,s,1,\n",
            "comma.csv: column 5 has no name in the header row: every row ends with a delimiter (a trailing comma?); remove it",
        ),
        (
            "dup.csv",
            b"experiment,quality_criterion,system,score,score\nA,Q,s,1,2\n",
            "dup.csv: column 'score' appears twice in the header (columns 4 and 5); keep one",
        ),
        (
            "sep.csv",
            b"experiment,quality_criterion,system,score\nA,Q,s,1_000\n",
            "sep.csv: row 2, column 'score': '1_000' is not a number (remove the '_' digit separators)",
        ),
    ],
)
def test_report_on_a_malformed_file_prints_one_line_naming_the_problem(capsys, tmp_path, name, data, message):
    (tmp_path / name).write_bytes(data)
    status, _, err = run(capsys, "report", tmp_path / name)
    assert one_line_error(err, status) == message


# ----------------------------------------------------------------------------- the library file


def test_a_corrupted_library_file_is_refused_advising_a_restore(capsys, tmp_path):
    db = tmp_path / "lib.sqlite3"
    db.write_bytes(b"this is not SQLite" * 100)
    status, _, err = run(capsys, "export-all", tmp_path / "out", "--db", db)
    assert one_line_error(err, status) == (
        f"{db}: is not a qra-widgets library, or it is damaged (SQLite: file is not a database); "
        "restore it from a backup (import-all) into a new file"
    )


def test_another_applications_sqlite_file_is_refused_and_left_unchanged(capsys, tmp_path):
    import sqlite3

    db = tmp_path / "other.sqlite3"
    with sqlite3.connect(db) as other:
        other.execute("CREATE TABLE users (name TEXT)")
        other.execute("INSERT INTO users VALUES ('ada')")
    other.close()
    before = db.read_bytes()
    status, _, err = run(capsys, "export-all", tmp_path / "out", "--db", db)
    assert one_line_error(err, status) == (
        f"{db}: is an SQLite database of another application (tables: users), "
        "not a qra-widgets library; give a new file or an existing library"
    )
    assert db.read_bytes() == before  # no WAL switch, no tables added
    assert not (tmp_path / "other.sqlite3-wal").exists()


def test_db_that_is_a_folder_or_cannot_be_created(capsys, tmp_path):
    status, _, err = run(capsys, "export-all", tmp_path / "out", "--db", tmp_path)
    assert (
        one_line_error(err, status)
        == f"{tmp_path}: is a folder; the library must be a file (for example {tmp_path / 'library.sqlite3'})"
    )
    blocker = tmp_path / "file"
    blocker.write_text("x")
    status, _, err = run(capsys, "export-all", tmp_path / "out", "--db", blocker / "lib.sqlite3")
    assert one_line_error(err, status) == f"{blocker}: cannot create the library's folder (File exists)"


def test_a_read_only_library_is_refused_advising_to_check_permissions(capsys, tmp_path, backup, monkeypatch):
    db = tmp_path / "empty.sqlite3"
    StudyLibrary(db)
    connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite3, "connect", lambda path, **options: connect(f"file:{path}?mode=ro", uri=True, **options)
    )
    status, _, err = run(capsys, "import-all", backup, "--db", db)
    assert one_line_error(err, status) == (
        f"{db}: the library cannot be written (SQLite: attempt to write a readonly database); "
        "check the file's and its folder's permissions (stopped at qra2022-nts.json)"
    )


def test_export_all_into_a_file_and_onto_a_full_disk(capsys, tmp_path, backup, monkeypatch):
    target = tmp_path / "a-file"
    target.write_text("x")
    status, _, err = run(capsys, "export-all", target, "--db", tmp_path / "lib.sqlite3")
    assert one_line_error(err, status) == f"{target}: is a file; export-all writes one file per study into a folder"
    from qra_widgets.io import study_json as study_io

    def full(_descriptor):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(study_io.os, "fsync", full)
    status, _, err = run(capsys, "export-all", tmp_path / "new", "--db", tmp_path / "lib.sqlite3")
    assert one_line_error(err, status).endswith(
        "cannot be written (No space left on device); the old file, if any, is unchanged"
    )
    assert list((tmp_path / "new").iterdir()) == []  # no half-written backup file


# ----------------------------------------------------------------------------- restores


def test_an_ambiguous_backup_folder_is_refused_and_nothing_restored(capsys, tmp_path, backup):
    stray = json.loads((backup / "qrapp-example1.json").read_text())
    stray["revisions"], stray["latest"] = stray["revisions"][:1], 1
    (backup / "a-stray-copy.json").write_text(json.dumps(stray))  # sorts before the real one
    db = tmp_path / "new.sqlite3"
    status, out, err = run(capsys, "import-all", backup, "--db", db)
    assert one_line_error(err, status) == (
        f"{backup}: ambiguous backup: a-stray-copy.json, qrapp-example1.json all hold study "
        "'qrapp-example1'; move the stray files out of the folder; nothing was restored"
    )
    assert out == "" and not db.exists()


def test_a_partial_restore_exits_2_and_says_what_was_restored(capsys, tmp_path, backup):
    (backup / "broken.json").write_text(
        '{"id": "x", "latest": 1, "revisions": [{"revision": 18446744073709551616, "study": {}}]}'
    )
    db = tmp_path / "new.sqlite3"
    status, out, err = run(capsys, "import-all", backup, "--db", db)
    assert out == f"restored 2 of 3 studies (every revision) into {db}\n"
    assert one_line_error(err, status) == (
        "not restored: 1 of 3 backup files: broken.json: revisions[0]: revision must be a whole "
        "number from 1 to 2147483647, got '18446744073709551616 (20 digits)'"
    )
    assert [s.id for s in StudyLibrary(db).list()] == ["qra2022-nts", "qrapp-example1"]


@pytest.mark.parametrize("number", [0, 2**31, 2**63 - 1, 2**64, True, "3"])
def test_revision_numbers_are_validated_on_import(tmp_path, backup, number):
    data = json.loads((backup / "qra2022-nts.json").read_text())
    data["revisions"][0]["revision"] = data["latest"] = number
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    with pytest.raises(
        QRAInputError, match=r"^r.json: revisions\[0\]: revision must be a whole number from 1 to 2147483647, got "
    ):
        StudyLibrary(tmp_path / "new.sqlite3").import_backup(path)


def test_the_largest_revision_number_still_allows_saving(tmp_path, backup):
    data = json.loads((backup / "qra2022-nts.json").read_text())
    data["revisions"][0]["revision"] = data["latest"] = MAX_REVISION
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    library = StudyLibrary(tmp_path / "new.sqlite3")
    library.import_backup(path)
    edited = library.open("qra2022-nts")
    edited.name = "edited"
    assert library.save(edited, expected_revision=MAX_REVISION) == MAX_REVISION + 1


def test_backup_file_names_differ_on_case_insensitive_disks(tmp_path):
    library = StudyLibrary(tmp_path / "lib.sqlite3")
    for study_id in ("Study", "study", "STUDY", "con"):
        library.save(Study(id=study_id))
    names = [p.name for p in library.export_all(tmp_path / "backup")]
    assert len({name.lower() for name in names}) == 4
    assert _safe_file_name("study") == "study" and _safe_file_name("Study").startswith("Study-")
    assert _safe_file_name("con").startswith("con-")
    restored = StudyLibrary(tmp_path / "new.sqlite3")
    for path in (tmp_path / "backup").iterdir():
        restored.import_backup(path)
    assert sorted(s.id for s in restored.list()) == ["STUDY", "Study", "con", "study"]


def test_metadata_that_json_would_merge_is_never_saved(tmp_path):
    library = StudyLibrary(tmp_path / "lib.sqlite3")
    study = Study(id="m", metadata={"1": "text"})
    study.metadata[1] = "number"
    with pytest.raises(QRAInputError, match=r"^metadata: key 1 is not text"):
        library.save(study)
    assert library.list() == []


# ----------------------------------------------------------------------------- anything unexpected


def test_an_unexpected_error_is_one_line_and_debug_shows_the_traceback(capsys, monkeypatch):
    assess_module = sys.modules["qra_widgets.assess"]

    def broken(*_args, **_kwargs):
        raise TypeError("something internal\nacross lines")

    monkeypatch.setattr(assess_module, "assess", broken)
    status, _, err = run(capsys, "report", "--example", "qrapp_example1")
    assert one_line_error(err, status) == (
        "unexpected error TypeError: something internal across lines "
        "(run with --debug or QRA_WIDGETS_DEBUG=1 for details)"
    )
    status, _, err = run(capsys, "--debug", "report", "--example", "qrapp_example1")
    assert status == 2 and err.startswith("Traceback (most recent call last)")
    assert err.endswith("qra-widgets: unexpected error TypeError: something internal across lines\n")


def test_app_without_the_extra_prints_a_hint(capsys, monkeypatch):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name in ("voila", "plotly") else find_spec(name, *a)
    )
    status, _, err = run(capsys, "app", "--no-browser")
    assert one_line_error(err, status) == (
        "the dashboard needs plotly, voila, which this installation lacks; "
        "install the app extra: pip install 'qra-widgets[app]'"
    )


def test_a_real_process_prints_no_traceback(tmp_path):
    """The installed entry point's code path, in a fresh interpreter: a folder given as a file."""
    result = subprocess.run(
        [sys.executable, "-m", "qra_widgets.cli", "report", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        f"qra-widgets: {tmp_path}: is a folder, not a file\n",
    )


BLOCK_APP_STACK = """
import sys
class Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("ipywidgets", "plotly", "voila", "jupyterlab", "anywidget", "ipykernel"):
            raise ImportError(f"{name} is not installed")
sys.meta_path.insert(0, Absent())
from qra_widgets.cli import main
status = main(sys.argv[1:])
print("loaded:", sorted(m for m in sys.modules if m.split(".")[0] in ("ipywidgets", "plotly", "voila", "ipykernel")))
sys.exit(status)
"""


def test_report_works_without_the_app_stack():
    """`pip install qra-widgets` (no [app] extra): import and `report` never touch the Jupyter stack."""
    result = subprocess.run(
        [sys.executable, "-c", BLOCK_APP_STACK, "report", "--example", "qrapp_example1", "--format", "csv"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[3].startswith(
        '"I","CV*","qc","Fluency","",26.87'
    )  # QRA++ Table 3: mean CV* 26.87
    assert result.stdout.splitlines()[-1] == "loaded: []"
    result = subprocess.run(
        [sys.executable, "-c", BLOCK_APP_STACK, "app", "--no-browser"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr == (
        "qra-widgets: the dashboard needs ipywidgets, plotly, voila, ipykernel, which "
        "this installation lacks; install the app extra: pip install 'qra-widgets[app]'\n"
    )


def test_the_core_install_has_no_jupyter_stack():
    from pathlib import Path

    import tomllib

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]
    names = lambda requirements: {r.split(">")[0].split("[")[0].split("=")[0] for r in requirements}
    assert names(project["dependencies"]) == {
        "numpy",
        "scipy",
        "pandas",
        "platformdirs",
        "openpyxl",
        "tqdm",
        "jinja2",
        "choix",
        "threadpoolctl",
    }  # jinja2: `qra-widgets site`; choix: Bradley-Terry; threadpoolctl: the bootstrap's BLAS threads
    assert names(project["optional-dependencies"]["app"]) == {"ipywidgets", "plotly", "voila", "ipykernel", "psutil"}
    assert "qra-widgets[app]" in project["optional-dependencies"]["dev"]
    extras = project["optional-dependencies"]
    assert not {"anywidget", "jupyterlab"} & names(
        sum((v for k, v in extras.items() if k != "dev"), project["dependencies"])
    )
    assert names(extras["dev"]) & {"anywidget", "jupyterlab"} == {
        "jupyterlab"
    }  # only the JupyterLab browser test needs it
