"""The SQLite study library: revisions, conflicts, soft delete, concurrency, round trips."""

import multiprocessing
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from strategies import studies

from qra_widgets import QRAInputError, examples, load_study
from qra_widgets.io import save_study
from qra_widgets.store import ConflictError, StudyLibrary, default_path


@pytest.fixture
def library(tmp_path):
    return StudyLibrary(tmp_path / "library.sqlite3")


def test_default_path_uses_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("QRA_WIDGETS_DB", str(tmp_path / "x.sqlite3"))
    assert default_path() == tmp_path / "x.sqlite3"
    monkeypatch.delenv("QRA_WIDGETS_DB")
    assert default_path().name == "library.sqlite3" and "qra-widgets" in str(default_path())


def test_each_save_is_a_revision_in_a_wal_mode_database(library, qrapp_example1):
    study = qrapp_example1
    assert library.save(study) == 1
    study.set_score("Fluency", "SVM", "Li2024", 3.5)
    assert library.save(study, expected_revision=1) == 2
    assert library.open(study.id).scores[("Fluency", "SVM", "Li2024")] == 3.5
    assert library.open(study.id, revision=1).scores[("Fluency", "SVM", "Li2024")] == 3.02
    assert [r.revision for r in library.history(study.id)] == [1, 2]
    with sqlite3.connect(library.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert library.integrity_check() == "ok"


def test_two_editors_one_wins_both_revisions_kept(library, qrapp_example1):
    study = qrapp_example1
    base = library.save(study)
    alice, bob = library.open(study.id), library.open(study.id)
    alice.set_score("Fluency", "SVM", "Li2024", 3.3)
    bob.set_score("Fluency", "SVM", "Li2024", 3.9)
    assert library.save(alice, expected_revision=base) == 2
    with pytest.raises(
        ConflictError, match="changed since revision 1: the latest is revision 2; your version was kept as revision 3"
    ) as caught:
        library.save(bob, expected_revision=base)
    assert caught.value.stored_revision == 3
    assert library.open(study.id).scores[("Fluency", "SVM", "Li2024")] == 3.3
    assert library.open(study.id, revision=3).scores[("Fluency", "SVM", "Li2024")] == 3.9
    assert [(r.revision, r.conflict, r.based_on) for r in library.history(study.id)] == [
        (1, False, None),
        (2, False, 1),
        (3, True, 1),
    ]
    assert library.latest_revision(study.id) == 2


def test_saving_an_existing_study_as_new_is_a_conflict(library, qrapp_example1):
    study = qrapp_example1
    library.save(study)
    study.set_score("Fluency", "SVM", "Li2024", 3.9)
    with pytest.raises(ConflictError, match="already exists \\(latest revision 1\\)"):
        library.save(study)
    assert len(library.history(study.id)) == 2


def test_saving_the_content_of_the_latest_revision_again_adds_no_revision(library, example_study):
    study = example_study("qrapp_example1")
    assert library.save_if_changed(study) == (1, True)
    assert library.save_if_changed(example_study("qrapp_example1")) == (1, False)  # as new: no conflict revision
    assert library.save(study, expected_revision=1) == 1
    assert [r.revision for r in library.history(study.id)] == [1]
    library.delete(study.id)  # a deleted study is not silently brought back: the save is kept as a conflict
    with pytest.raises(ConflictError, match="is deleted"):
        library.save(study, expected_revision=1)


def test_a_deleted_study_is_hidden_refuses_saves_and_comes_back_on_restore(library, example_study, belz2021_torc):
    library.save(example_study("qrapp_example1"))
    library.save(belz2021_torc)
    library.delete("qrapp-example1")
    assert [s.id for s in library.list()] == ["belz2021-torc"]
    assert [s.id for s in library.list(include_deleted=True)] == ["belz2021-torc", "qrapp-example1"]
    with pytest.raises(ConflictError, match="deleted"):
        library.save(example_study("qrapp_example1"), expected_revision=1)
    library.restore("qrapp-example1")
    assert library.open("qrapp-example1").systems == ["SVM", "GeDi", "DExperts"]


def test_an_unknown_study_or_revision_is_refused_naming_it(library, qrapp_example1, belz2021_torc):
    with pytest.raises(QRAInputError, match="no study 'nope'"):
        library.open("nope")
    library.save(qrapp_example1)
    with pytest.raises(QRAInputError, match="has no revision 7"):
        library.open("qrapp-example1", revision=7)
    with pytest.raises(QRAInputError, match="not in the library"):
        library.save(belz2021_torc, expected_revision=3)


def test_a_study_exported_and_imported_or_saved_to_a_file_comes_back_equal(library, tmp_path, qra2022_nts):
    study = qra2022_nts
    library.save(study)
    copy = StudyLibrary(tmp_path / "other.sqlite3")
    copy.import_json(library.export_json(study.id))
    assert copy.open(study.id) == study
    path = tmp_path / "nts.json"
    save_study(library.open(study.id), path)
    assert load_study(path) == study
    assert copy.import_file(path, expected_revision=1) == 1  # the same content: no new revision
    written = library.export_all(tmp_path / "backup")
    assert [p.name for p in written] == ["qra2022-nts.json"]


def test_a_backup_restores_every_revision_conflict_and_deletion(library, tmp_path, qra2022_essay_scoring, qra2022_nts):
    """export_all then import_backup: the restored library is the same, revision by revision."""
    essay, nts = qra2022_essay_scoring, qra2022_nts
    library.save(essay)
    essay.set_score("wF1", "mult-base", "VajjalaRama2018", 0.61)
    library.save(essay, expected_revision=1)
    essay.set_score("wF1", "mult-base", "VajjalaRama2018", 0.62)
    with pytest.raises(ConflictError):
        library.save(essay, expected_revision=1)  # kept as conflict revision 3
    library.save(nts)
    library.delete(nts.id)
    restored = StudyLibrary(tmp_path / "restored.sqlite3")
    for path in library.export_all(tmp_path / "backup"):
        restored.import_backup(path)
    for study_id in (essay.id, nts.id):
        assert restored.history(study_id) == library.history(study_id)
        for revision in library.history(study_id):
            assert restored.open(study_id, revision.revision) == library.open(study_id, revision.revision)
    assert [(r.revision, r.conflict) for r in restored.history(essay.id)] == [(1, False), (2, False), (3, True)]
    assert restored.open(essay.id).scores[("wF1", "mult-base", "VajjalaRama2018")] == 0.61
    assert [s.id for s in restored.list()] == [essay.id]  # the deleted study stays deleted...
    restored.restore(nts.id)  # ...and can be brought back
    assert restored.open(nts.id) == nts
    assert restored.integrity_check() == "ok"


def test_a_restore_never_overwrites_a_study_already_there(library, tmp_path, qrapp_example1):
    study = qrapp_example1
    library.save(study)
    [backup] = library.export_all(tmp_path / "backup")
    study.set_score("Fluency", "SVM", "Li2024", 3.3)
    library.save(study, expected_revision=1)
    with pytest.raises(QRAInputError, match="'qrapp-example1' is already in the library"):
        library.import_backup(backup)
    assert library.latest_revision(study.id) == 2
    assert library.open(study.id).scores[("Fluency", "SVM", "Li2024")] == 3.3


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"id": "x", "latest": 1', "not valid JSON"),
        ('{"id": "x", "latest": 1, "revisions": []}', "not a qra-widgets library backup"),
        (
            '{"id": "x", "latest": 1, "revisions": [{"revision": 0, "study": {}}]}',
            r"revisions\[0\]: revision must be a whole number from 1 to 2147483647, got 0",
        ),
        (
            '{"id": "x", "latest": 1, "revisions": [{"revision": 1, "study": {"schema": "other"}}]}',
            r"revisions\[0\]: schema: expected",
        ),
    ],
)
def test_a_malformed_backup_is_refused_and_nothing_is_written(library, tmp_path, content, message):
    path = tmp_path / "broken.json"
    path.write_text(content)
    with pytest.raises(QRAInputError, match=message):
        library.import_backup(path)
    assert library.list(include_deleted=True) == []


def test_a_backup_whose_latest_is_a_conflict_is_refused(library, tmp_path, qrapp_example1):
    library.save(qrapp_example1)
    [path] = library.export_all(tmp_path / "backup")
    backup = __import__("json").loads(path.read_text())
    backup["revisions"][0]["conflict"] = True
    path.write_text(__import__("json").dumps(backup))
    with pytest.raises(QRAInputError, match="latest"):
        StudyLibrary(tmp_path / "other.sqlite3").import_backup(path)


def _save_many(path, worker, count):
    library = StudyLibrary(path)
    for i in range(count):
        study = examples.load("qrapp_example1")
        study.id = f"w{worker}-s{i}"
        study.set_score("Fluency", "SVM", "Li2024", 1 + (worker * count + i) / 100)
        library.save(study)


@pytest.mark.slow
def test_four_processes_save_one_hundred_studies(tmp_path):
    path = tmp_path / "shared.sqlite3"
    StudyLibrary(path)
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_save_many, args=(path, w, 25)) for w in range(4)]
    for p in workers:
        p.start()
    for p in workers:
        p.join(timeout=120)
    assert [p.exitcode for p in workers] == [0, 0, 0, 0]
    library = StudyLibrary(path)
    summaries = library.list()
    assert len(summaries) == 100
    for w in range(4):
        for i in range(25):
            assert library.open(f"w{w}-s{i}").scores[("Fluency", "SVM", "Li2024")] == 1 + (w * 25 + i) / 100
    assert library.integrity_check() == "ok"


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(study=studies())
def test_property_round_trip_through_the_library(tmp_path, study):
    library = StudyLibrary(tmp_path / "round.sqlite3")
    if library.list(include_deleted=True) and study.id in {s.id for s in library.list(include_deleted=True)}:
        revision = library.save(study, expected_revision=library.latest_revision(study.id))
    else:
        revision = library.save(study)
    assert library.open(study.id, revision) == study


def test_a_first_save_under_a_held_id_is_refused_with_a_free_id_and_nothing_is_stored(library, qrapp_example1):
    from qra_widgets.errors import IdTakenError

    study = qrapp_example1
    study.id = "Yao2022"
    assert library.save(study, new=True) == 1
    assert library.free_id("Yao2022") == "yao2022-2"  # compared without case: never yao2022 beside Yao2022
    with pytest.raises(IdTakenError, match="already has a study with the id 'Yao2022'") as taken:
        library.save(study, new=True)
    assert (taken.value.study_id, taken.value.suggestion) == ("Yao2022", "yao2022-2")
    assert [r.revision for r in library.history("Yao2022")] == [1]  # not filed as a conflict revision
    library.delete("Yao2022")  # a deleted study keeps its id
    with pytest.raises(IdTakenError):
        library.save(study, new=True)
    study.id = taken.value.suggestion
    assert library.save(study, new=True) == 1
    assert library.free_id("Yao 2022") == "yao-2022" and library.free_id("yao2022") == "yao2022-3"
    study.id = "YAO2022"  # the same id in other case: taken, as free_id says, not a second study
    with pytest.raises(IdTakenError, match="already has a study with the id 'YAO2022'") as taken:
        library.save(study, new=True)
    assert taken.value.suggestion == "yao2022-3"
    assert sorted(s.id for s in library.list(include_deleted=True)) == ["Yao2022", "yao2022-2"]
