"""Test-suite wide settings: markers by location, and the repository-local test data.

Markers (registered in pyproject.toml, ``--strict-markers``):

* ``browser`` -- drives the Voila app in headless Chromium (``tests/e2e``, the app benchmark);
* ``slow`` -- takes more than a few seconds (multi-process store tests, benchmarks).

``scripts/test`` runs everything; ``pytest -m "not browser and not slow"`` is the quick loop.
Every file a test reads is inside the repository: ``DATA`` holds copies of what the tests
need from the project's shared data folder.
"""

from __future__ import annotations

import os
import sys
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
FIELD_DATA_VARIABLE = "QRA_WIDGETS_FIELD_DATA"
_FIELD = os.environ.get(FIELD_DATA_VARIABLE)
_FIELD = os.path.join(os.path.abspath(_FIELD), "") if _FIELD else None


def _refuse_shared_data(event: str, args: tuple) -> None:
    if event == "open" and isinstance(args[0], (str, os.PathLike)):
        path = os.path.abspath(os.fspath(args[0]))
        if path.startswith(_OUTSIDE) and not (_FIELD and path.startswith(_FIELD)):
            raise PermissionError(f"tests must not read outside the repository: {path} "
                                  f"(published data is read through ${FIELD_DATA_VARIABLE}, the field_data fixture)")


def field_data_folder() -> Path | None:
    """The folder of published field data named by ``$QRA_WIDGETS_FIELD_DATA``, or None."""
    return Path(_FIELD) if _FIELD else None


@pytest.fixture(scope="session")
def field_data() -> Path:
    """The published field data (``../shared/data`` in CI); the test is skipped, saying why, without it."""
    folder = field_data_folder()
    if folder is None:
        pytest.skip(f"published field data not available: set ${FIELD_DATA_VARIABLE} to the data folder "
                    "(.ci/run sets it to ../shared/data when that folder exists)")
    if not folder.is_dir():
        pytest.fail(f"${FIELD_DATA_VARIABLE} names {folder}, which is not a folder")
    return folder


@pytest.fixture(scope="session")
def vanmiltenburg2024(field_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding our annotation spec (``tests/data/vanmiltenburg2024/spec.json``) beside
    the published van Miltenburg et al. (2024) ratings it names, and the QRA++ Example 1 means
    file (a spec reads only files in its own folder, so the three meet in a temporary one)."""
    import shutil

    folder = tmp_path_factory.mktemp("vanmiltenburg2024")
    shutil.copy(DATA / "vanmiltenburg2024" / "spec.json", folder / "spec.json")
    for path in [*sorted((field_data / "vanmiltenburg2024").glob("*.csv")), field_data / "qrapp_example1_fluency_scores.csv"]:
        shutil.copy(path, folder / path.name)
    return folder


sys.addaudithook(_refuse_shared_data)

BROWSER_TESTS = ("tests/e2e/", "tests/test_benchmarks_run.py::test_app_benchmark_runs")
SLOW_TESTS = ("tests/e2e/", "tests/test_benchmarks_run.py", "tests/test_store_concurrency.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(config.rootpath)
    for item in items:
        try:
            where = Path(item.path).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
        node = f"{where}::{item.name}"
        if any(node.startswith(prefix) for prefix in BROWSER_TESTS):
            item.add_marker(pytest.mark.browser)
        if any(node.startswith(prefix) for prefix in SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
