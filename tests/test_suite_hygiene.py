"""The test suite leaves no trace outside the repository and the temporary folders.

``tests/conftest.py`` points HOME and the XDG folders into a temporary folder for the whole run,
and its audit hook refuses a write (a file opened for writing, an SQLite database) anywhere else,
as it refuses reading the maintainers' shared folder beside the repository.  It removes each
process's temporary HOME when the process ends, keeps the browser tests' screenshots out of the work
tree, and fails a run that changes the work tree (``tests/worktree.py``).
"""

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import SANDBOX, SCREENSHOTS
from worktree import changed_paths, tree_state

TESTS = Path(__file__).parent

OUTSIDE = Path("/qra-widgets-tests-must-not-write-here")


def test_home_and_the_xdg_folders_are_temporary():
    temp = os.path.realpath(tempfile.gettempdir())
    for variable in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "JUPYTER_RUNTIME_DIR"):
        assert os.path.realpath(os.environ[variable]).startswith(temp + os.sep), variable
    assert str(Path.home()) == os.environ["HOME"]


def test_the_study_librarys_default_file_is_in_the_temporary_home():
    from qra_widgets.store import default_path

    path = default_path()
    assert str(path).startswith(os.environ["XDG_DATA_HOME"]) and path.name == "library.sqlite3"


@pytest.mark.parametrize("how", ["w", "a", "x", "r+"])
def test_opening_a_file_for_writing_outside_is_refused(how):
    with (
        pytest.raises(PermissionError, match="tests must not write outside the repository and the temporary folders"),
        open(OUTSIDE, how),
    ):
        pass
    assert not OUTSIDE.exists()


def test_an_sqlite_database_outside_is_refused_and_inside_is_not(tmp_path):
    with pytest.raises(PermissionError, match=r"must not write outside .*\(SQLite\)"):
        sqlite3.connect(OUTSIDE)
    sqlite3.connect(tmp_path / "fine.sqlite3").close()
    sqlite3.connect(":memory:").close()


def test_writing_in_a_temporary_folder_is_allowed(tmp_path):
    (tmp_path / "x.txt").write_text("ok")
    assert (tmp_path / "x.txt").read_text() == "ok"


def test_screenshots_go_to_a_temporary_folder_not_the_work_tree():
    if os.environ.get("QRA_WIDGETS_SCREENSHOTS"):
        assert SCREENSHOTS == Path(os.environ["QRA_WIDGETS_SCREENSHOTS"]).absolute()
    else:
        assert SCREENSHOTS.is_relative_to(SANDBOX) and SANDBOX.is_relative_to(os.path.realpath(tempfile.gettempdir()))
    assert not SCREENSHOTS.is_relative_to(TESTS.parent / "docs")


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A git repository of two committed files, a .gitignore'd cache folder and nothing else."""
    if shutil.which("git") is None:
        pytest.fail("git is needed: the suite's work-tree check runs it")
    root = tmp_path / "checkout"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "screenshot-a.png").write_bytes(b"picture")
    (root / "notes.md").write_text("notes\n")
    (root / ".gitignore").write_text("cache/\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    return root


def test_a_rewritten_tracked_file_a_deleted_one_and_a_new_file_are_changes(checkout):
    before = tree_state(checkout)
    assert before == {}
    (checkout / "docs" / "screenshot-a.png").write_bytes(b"another picture")
    (checkout / "notes.md").unlink()
    (checkout / "docs" / "screenshot-b.png").write_bytes(b"new")
    (checkout / "cache").mkdir()
    (checkout / "cache" / "ignored.bin").write_bytes(b"x")  # ignored: not a change
    assert changed_paths(before, tree_state(checkout)) == ["docs/screenshot-a.png", "docs/screenshot-b.png", "notes.md"]


def test_changes_made_before_the_run_are_not_reported_but_a_rewrite_of_them_is(checkout):
    (checkout / "notes.md").write_text("the developer's edit\n")
    (checkout / "draft.md").write_text("untracked before the run\n")
    before = tree_state(checkout)
    assert set(before) == {"notes.md", "draft.md"}
    assert changed_paths(before, tree_state(checkout)) == []
    os.utime(checkout / "notes.md", ns=(before["notes.md"][2] + 10**9,) * 2)  # rewritten with the same text
    assert changed_paths(before, tree_state(checkout)) == ["notes.md"]


def test_outside_a_checkout_or_below_its_top_nothing_is_compared(checkout, tmp_path):
    (tmp_path / "plain").mkdir()
    assert tree_state(tmp_path / "plain") is None
    assert tree_state(checkout / "docs") is None


def _suite_copy(checkout: Path, test_text: str) -> Path:
    """``checkout`` with this suite's conftest and its helpers, and one test file, committed."""
    (checkout / "tests").mkdir()
    for name in ("conftest.py", "fielddata.py", "worktree.py"):
        shutil.copy(TESTS / name, checkout / "tests" / name)
    (checkout / "tests" / "test_one.py").write_text(test_text)
    git(checkout, "add", "-A")
    git(checkout, "commit", "-q", "-m", "tests")
    return checkout


def _pytest(checkout: Path, *args: str) -> subprocess.CompletedProcess:
    """Run pytest on ``checkout``'s test file, with a temporary folder of its own (``TMPDIR``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "QRA_WIDGETS_SCREENSHOTS"))}
    env["TMPDIR"] = str(checkout.parent / "tmp")
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # a quick start: only the plugin asked for (xdist) loads
    (checkout.parent / "tmp").mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args, "tests/test_one.py"],
        check=False,
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


WRITES_A_TRACKED_FILE = """
from pathlib import Path

def test_writes_into_docs():
    (Path(__file__).parents[1] / "docs" / "screenshot-a.png").write_bytes(b"rewritten by a test")
"""

WRITES_ONLY_TMP = """
import os

def test_writes_under_tmp_path(tmp_path):
    (tmp_path / "x.png").write_bytes(b"fine")
    assert os.path.isdir(os.environ["HOME"])
"""


XDIST = ["-p", "xdist.plugin", "-n", "2"]  # slow: two workers start (about 5 s)


@pytest.mark.parametrize(
    "workers", [pytest.param([], id="one process"), pytest.param(XDIST, id="xdist", marks=pytest.mark.slow)]
)
def test_a_run_that_changes_the_work_tree_fails_and_names_the_file(checkout, workers):
    result = _pytest(_suite_copy(checkout, WRITES_A_TRACKED_FILE), *workers)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 passed" in result.stdout and "work tree changed" in result.stdout
    assert "docs/screenshot-a.png" in result.stdout


@pytest.mark.parametrize(
    "workers", [pytest.param([], id="one process"), pytest.param(XDIST, id="xdist", marks=pytest.mark.slow)]
)
def test_a_clean_run_passes_on_a_tree_already_changed_and_leaves_no_temporary_home(checkout, workers):
    _suite_copy(checkout, WRITES_ONLY_TMP)
    (checkout / "notes.md").write_text("edited before the run\n")
    result = _pytest(checkout, *workers)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout and "work tree changed" not in result.stdout
    assert list((checkout.parent / "tmp").glob("qra-widgets-tests-home-*")) == []  # each process removed its HOME
