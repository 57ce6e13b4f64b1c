"""The test suite leaves no trace outside the repository and the temporary folders.

``tests/conftest.py`` points HOME and the XDG folders into a temporary folder for the whole run,
and its audit hook refuses a write (a file opened for writing, an SQLite database) anywhere else,
as it refuses reading the maintainers' shared folder beside the repository.
"""

import os
import sqlite3
import tempfile
from pathlib import Path

import pytest

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
    with pytest.raises(PermissionError, match="tests must not write outside the repository and the temporary folders"), \
            open(OUTSIDE, how):
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
