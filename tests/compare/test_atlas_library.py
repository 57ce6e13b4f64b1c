"""``atlas build --db`` saves each family into the library once: a rebuild of unchanged families adds
no revision, a changed family adds one (never a conflict revision)."""

from __future__ import annotations

import warnings

import pytest

from qra_widgets import atlas
from qra_widgets.cli import main
from qra_widgets.store import StudyLibrary

FAMILY = "hosking2021_sepae_bws"  # three small files


@pytest.fixture(scope="module")
def cache(atlas_mirror, tmp_path_factory):
    folder = tmp_path_factory.mktemp("cache")
    atlas.fetch(cache=folder, mirror=atlas_mirror, families=[FAMILY])
    return folder


def history(library: StudyLibrary) -> list[tuple[int, bool]]:
    return [(r.revision, r.conflict) for r in library.history(FAMILY)]


def test_two_builds_of_an_unchanged_family_leave_one_revision(cache, tmp_path, capsys):
    db = tmp_path / "library.sqlite3"
    for _ in range(2):
        assert main(["atlas", "build", "--cache", str(cache), "--db", str(db), "--family", FAMILY]) == 0
    assert "ok  hosking2021_sepae_bws" in capsys.readouterr().out
    assert history(StudyLibrary(db)) == [(1, False)]


def test_a_family_changed_in_the_library_is_replaced_by_one_revision_without_a_conflict(cache, tmp_path):
    db = tmp_path / "library.sqlite3"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = atlas.build(cache=cache, db=db, families=[FAMILY], bootstrap=20)[0].study
        library = StudyLibrary(db)
        edited = library.open(FAMILY)
        edited.name = "renamed by hand"
        library.save(edited, expected_revision=1)
        atlas.build(cache=cache, db=db, families=[FAMILY], bootstrap=20)
    assert history(library) == [(1, False), (2, False), (3, False)]
    assert library.open(FAMILY).name == built.name != "renamed by hand"
