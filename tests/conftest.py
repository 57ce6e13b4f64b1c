"""Test-suite wide settings: the repository-local test data, the field data, HOME in a sandbox.

Markers (registered in pyproject.toml, ``--strict-markers``) travel with the test files, as
``pytestmark`` or a decorator, so a moved or renamed file keeps them:

* ``browser`` -- drives the Voila app in headless Chromium (``tests/e2e``, the app benchmark);
* ``slow`` -- takes more than a few seconds (multi-process store tests, benchmarks, simulations,
  fuzzing with many examples, and every notebook cell: set below by the kind of test).

``scripts/test`` runs everything, on every core (pytest-xdist); ``scripts/test -m "not browser and
not slow"`` is the quick loop.
Every file a test reads is inside the repository (``DATA``: the project's own small files,
specs and expected values) or in the published field data named by ``$QRA_WIDGETS_FIELD_DATA``
(never committed; ``tests/fielddata.py``).  No test reads or writes outside the repository, the
field data and the temporary folders: HOME and the XDG folders point into a temporary folder for
the whole run (removed at its end), and an audit hook refuses the rest.  Browser tests save their
screenshots in ``SCREENSHOTS`` (a temporary folder; ``scripts/docs-screenshots`` makes the docs'
pictures from them), and a run that changes the git work tree fails (``tests/worktree.py``).
"""

from __future__ import annotations

import copy
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
REPOSITORY = Path(__file__).resolve().parents[1]
# The project's shared data folder sits beside the repository on the maintainers' machines but
# not in a user's clone: a test that opens a file there passes here and fails there.
_OUTSIDE = os.path.join(str(REPOSITORY.parent), "shared") + os.sep


# Published data fetched from public repositories is never committed: tests read it only from the
# folder named by QRA_WIDGETS_FIELD_DATA (``.ci/run`` sets it to ../shared/data when that exists)
# and skip, saying why, when it is not set (the ``field_data`` fixture).
from fielddata import FIELD, FIELD_DATA_VARIABLE

_FIELD = os.path.join(str(FIELD), "") if FIELD else None


# HOME and the XDG folders point into a temporary folder for the whole run (and the servers, kernels
# and browsers the tests start, which inherit the environment): the study library's default file
# (platformdirs' user data folder), Jupyter's runtime files and Chromium's profile land there, never
# in the user's home.  Each pytest process (each xdist worker) makes its own and removes it when it
# ends (pytest_unconfigure below), so no run leaves one behind.
TEMP = os.path.join(os.path.realpath(tempfile.gettempdir()), "")
SANDBOX = Path(tempfile.mkdtemp(prefix="qra-widgets-tests-home-"))
# Browser tests save every screenshot here, never in the work tree: the folder named by
# $QRA_WIDGETS_SCREENSHOTS (scripts/docs-screenshots names one, then copies the docs' pictures,
# the files named screenshot-*.png or journey-*.png, into docs/; name a folder to keep a failing
# run's pictures), else the sandbox's, removed with it.
SCREENSHOTS_VARIABLE = "QRA_WIDGETS_SCREENSHOTS"
SCREENSHOTS = Path(os.environ.get(SCREENSHOTS_VARIABLE) or SANDBOX / "screenshots").absolute()
for _variable, _folder in (
    ("HOME", "home"),
    ("XDG_DATA_HOME", "home/.local/share"),
    ("XDG_CONFIG_HOME", "home/.config"),
    ("XDG_CACHE_HOME", "home/.cache"),
    ("XDG_STATE_HOME", "home/.local/state"),
    ("XDG_RUNTIME_DIR", "runtime"),
    ("JUPYTER_RUNTIME_DIR", "runtime/jupyter"),
    ("IPYTHONDIR", "home/.ipython"),
    ("MPLCONFIGDIR", "home/.config/matplotlib"),
):
    (SANDBOX / _folder).mkdir(parents=True, exist_ok=True, mode=0o700)
    os.environ[_variable] = str(SANDBOX / _folder)
os.environ.pop("QRA_WIDGETS_DB", None)  # a user's own library is never the tests' library
_WRITABLE = tuple(os.path.join(os.path.realpath(p), "") for p in (REPOSITORY, tempfile.gettempdir())) + ("/dev/",)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _writes(args: tuple) -> bool:
    mode, flags = (args + (None, None))[1:3]
    return bool(
        (isinstance(mode, str) and set(mode) & set("wax+")) or (isinstance(flags, int) and flags & _WRITE_FLAGS)
    )


def _refuse_shared_data(event: str, args: tuple) -> None:
    """Reads outside the repository's neighbours and writes outside the repository and the
    temporary folders fail, as they would on a user's machine where they mean a leak."""
    if (
        event == "sqlite3.connect"
        and isinstance(args[0], (str, os.PathLike))
        and os.fspath(args[0]) not in ("", ":memory:")
    ):
        target = os.fspath(args[0])
        target = target[5:].split("?")[0] if target.startswith("file:") else target
        path = os.path.join(os.path.realpath(target), "")
        if not path.startswith(_WRITABLE):
            raise PermissionError(
                f"tests must not write outside the repository and the temporary folders: {path} (SQLite)"
            )
    if event == "open" and isinstance(args[0], (str, os.PathLike)):
        path = os.path.abspath(os.fspath(args[0]))
        if path.startswith(_OUTSIDE) and not (_FIELD and path.startswith(_FIELD)):
            raise PermissionError(
                f"tests must not read outside the repository: {path} "
                f"(published data is read through ${FIELD_DATA_VARIABLE}, the field_data fixture)"
            )
        if _writes(args) and not os.path.join(os.path.realpath(path), "").startswith(_WRITABLE):
            raise PermissionError(f"tests must not write outside the repository and the temporary folders: {path}")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Two rules by the kind of test, never by a list of paths (a renamed file keeps them):

    * every notebook cell is ``slow``: a notebook runs a whole paper's analysis (bootstraps on
      the published data), and ``scripts/docs`` executes the same notebooks again;
    * under ``pytest-xdist`` (``scripts/test`` runs ``-n auto --dist loadgroup``) the tests of one
      file stay on one worker, so a notebook's cells run in order in one kernel and a module's
      fixtures are built once; the ``browser`` tests all share one worker, one Voila and
      Chromium at a time.
    """
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)
        group = "browser" if item.get_closest_marker("browser") else os.path.relpath(item.path, config.rootpath)
        item.add_marker(pytest.mark.xdist_group(group))


_TREE_BEFORE = pytest.StashKey[object]()


def pytest_sessionstart(session: pytest.Session) -> None:
    """Note the git work tree's state before any test runs (in the controlling process only:
    under pytest-xdist the workers' runs end before the controller's)."""
    if not hasattr(session.config, "workerinput"):
        from worktree import tree_state

        session.config.stash[_TREE_BEFORE] = tree_state(REPOSITORY)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if it changed the work tree: a tracked file rewritten, a new untracked file
    (ignored files, such as caches, do not count).  A tree already changed before the run is
    compared with itself, so only what the run did is reported."""
    before = session.config.stash.get(_TREE_BEFORE, None)
    if before is None:  # not a git checkout, git missing, or a worker process
        return
    from worktree import changed_paths, tree_state

    changed = changed_paths(before, tree_state(REPOSITORY))
    if changed:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        lines = [
            f"the test run changed the work tree (tests write only under pytest's tmp paths): {len(changed)} path(s)",
            *(f"  {path}" for path in changed[:20]),
        ]
        if reporter is not None:
            reporter.write_sep("=", "work tree changed", red=True)
            for line in lines:
                reporter.write_line(line)
        else:
            print("\n".join(lines), file=sys.stderr)
        if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):  # keep a graver status
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove this process's sandbox (HOME, the XDG folders, the default screenshots)."""
    shutil.rmtree(SANDBOX, ignore_errors=True)


def field_data_folder() -> Path | None:
    """The folder of published field data named by ``$QRA_WIDGETS_FIELD_DATA``, or None."""
    return Path(_FIELD) if _FIELD else None


@pytest.fixture(scope="session")
def field_data() -> Path:
    """The published field data (``../shared/data`` in CI); the test is skipped, saying why, without it."""
    folder = field_data_folder()
    if folder is None:
        pytest.skip(
            f"published field data not available: set ${FIELD_DATA_VARIABLE} to the data folder "
            "(.ci/run sets it to ../shared/data when that folder exists)"
        )
    if not folder.is_dir():
        pytest.fail(f"${FIELD_DATA_VARIABLE} names {folder}, which is not a folder")
    return folder


@pytest.fixture(scope="session")
def atlas_mirror(field_data: Path) -> Path:
    """The atlas's published files (``<field data>/atlas``, one folder per family), the mirror
    ``atlas.fetch`` copies from; the test is skipped, saying why, without it."""
    folder = field_data / "atlas"
    if not folder.is_dir():
        pytest.skip(f"no atlas folder in {field_data}")
    return folder


@pytest.fixture(scope="session")
def vanmiltenburg2024(field_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding our annotation spec (``tests/data/vanmiltenburg2024/spec.json``) beside
    the published van Miltenburg et al. (2024) ratings it names, and the QRA++ Example 1 means
    file (a spec reads only files in its own folder, so the three meet in a temporary one)."""
    import shutil

    folder = tmp_path_factory.mktemp("vanmiltenburg2024")
    shutil.copy(DATA / "vanmiltenburg2024" / "spec.json", folder / "spec.json")
    for path in [
        *sorted((field_data / "vanmiltenburg2024").glob("*.csv")),
        field_data / "qrapp_example1_fluency_scores.csv",
    ]:
        shutil.copy(path, folder / path.name)
    return folder


@pytest.fixture(scope="session")
def vanmiltenburg2024_study(vanmiltenburg2024: Path):
    """van Miltenburg et al. (2024)'s fluency ratings read with our spec (three rater groups as
    three experiments), read once: shared by every test, so never edit it (copy it first)."""
    from qra_widgets.io.annotations import load_annotations

    return load_annotations(vanmiltenburg2024 / "spec.json")


@pytest.fixture(scope="session")
def vm(vanmiltenburg2024_study):
    """van Miltenburg et al. (2024)'s fluency ratings (published field data) read with our spec, read
    once for the session; never edited by a test (copy it first)."""
    return vanmiltenburg2024_study


@pytest.fixture
def app(tmp_path):
    """The dashboard on an empty library of its own (ipywidgets and plotly load when a test asks for it)."""
    from qra_widgets.widgets import Dashboard

    return Dashboard(library_path=tmp_path / "library.sqlite3")


# The shipped example studies (``qra_widgets/examples``) are read once per session; every test gets
# its own deep copy, so a test that edits its study (adds an experiment, saves a new revision)
# never changes what the next test reads.
@pytest.fixture(scope="session")
def example_studies() -> dict:
    """Name -> the shipped example study, read once: shared by every test, so never edit one
    (take :func:`copy.deepcopy` of it, or use the fixtures below, which do)."""
    from qra_widgets import examples

    return {name: examples.load(name) for name in examples.names()}


@pytest.fixture
def example_study(example_studies: dict) -> Callable:
    """``example_study(name)``: a fresh copy of the shipped example study ``name`` at each call
    (for a test that needs two equal but separate studies, or picks the example by a parameter)."""
    return lambda name: copy.deepcopy(example_studies[name])


# One fixture per shipped example, named after it: the test's own copy of that study.
EXAMPLES = {
    "qrapp_example1": "QRA++ Example 1 (QRA++ Table 3): mean Fluency of SVM, GeDi and DExperts, original and two repeats.",
    "qrapp_table4_illustrative": "An illustrative study reproducing QRA++ Table 4 (not the original data): "
    "two criteria, two experiments.",
    "qra2022_pass": "QRA 2022 Tables 2-3: the PASS data-to-text human evaluation (Clarity, Fluency, Stance "
    "identifiability) and its reproduction.",
    "qra2022_nts": "QRA 2022 Tables 4-5: BLEU and SARI of two neural text simplification variants, original and "
    "reproductions.",
    "qra2022_essay_scoring": "QRA 2022 Tables 6-7: weighted F1 of eleven multilingual essay-scoring variants in eight "
    "experiments.",
    "belz2021_torc": "Belz (2021) Table 1, Section 5.1: seven weighings of a British Museum torc (a physical measurement).",
}


def _example_fixture(name: str, description: str):
    def fixture(example_study):
        return example_study(name)

    fixture.__doc__ = f"A fresh copy of the shipped example {name!r}: {description}"
    return pytest.fixture(name=name)(fixture)


for _name, _description in EXAMPLES.items():
    globals()[f"_{_name}_fixture"] = _example_fixture(_name, _description)


sys.addaudithook(_refuse_shared_data)


@pytest.fixture(scope="session")
def coverage_study():
    """``benchmarks/coverage.py`` (the coverage study's model and targets), loaded by path: the
    name ``coverage`` is taken by coverage.py, the tool."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("coverage_study", REPOSITORY / "benchmarks" / "coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def vm_ratings(field_data):
    """van Miltenburg et al. (2024)'s fluency ratings, items x raters, NaN where a rater did not rate
    an item (the measures' tests; here, not in a tests/measures/conftest.py, which would shadow this
    module's ``from conftest import ...`` under pytest-xdist)."""
    import pandas as pd

    return pd.read_csv(
        field_data / "vanmiltenburg2024" / "vanmiltenburg2024_fluency_ratings_item_by_rater.csv",
        index_col="item",
        dtype={"item": str},
    )
