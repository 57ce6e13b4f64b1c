"""Results stored with a revision stand for its assessment only while they are that revision's:
the same text, the same conventions and package version, the same stored-results version."""

import sqlite3

import pandas as pd
import pytest

import qra_widgets.version
from qra_widgets import assess, examples, store
from qra_widgets.store import StudyLibrary, results_key


@pytest.fixture
def library(tmp_path):
    library = StudyLibrary(tmp_path / "library.sqlite3")
    for name in examples.names():
        library.save(examples.load(name))
    qra3 = examples.load("qrapp_example1")
    qra3.id, qra3.metadata = "example1-under-qra3", {**(qra3.metadata or {}), "conventions": "qra3"}
    library.save(qra3)
    return library


def reused(library: StudyLibrary) -> dict:
    return {study.id: assessment for study, assessment in library.assessed_studies()}


def test_every_rebuilt_assessment_has_the_frame_and_template_of_assessing_the_study_again(library):
    found = reused(library)
    assert len(found) == len(examples.names()) + 1 and all(a is not None for a in found.values())
    for study_id, assessment in found.items():
        fresh = assess(library.open(study_id))
        pd.testing.assert_frame_equal(assessment.to_frame(), fresh.to_frame(), check_exact=True)
        pd.testing.assert_frame_equal(assessment.table(), fresh.table())
        assert (assessment.to_csv(), assessment.to_latex(), assessment.to_markdown()) == (
            fresh.to_csv(),
            fresh.to_latex(),
            fresh.to_markdown(),
        )
    assert found["example1-under-qra3"].conventions.name == "qra3"
    # QRA++ Example 1 under QRA3's conventions (no small-sample correction): SVM's CV* is 18.43, not 19.96
    assert round(found["example1-under-qra3"].value("CV*", "system", "Fluency", "SVM"), 2) == 18.43


def test_an_edited_study_gets_its_own_results_and_the_old_revisions_are_not_served(library):
    study = library.open("qrapp-example1")
    study.set_score("Fluency", "SVM", "Li2024", 3.9)
    library.save(study, expected_revision=library.latest_revision(study.id))
    rebuilt = reused(library)["qrapp-example1"]
    assert rebuilt.study.scores[("Fluency", "SVM", "Li2024")] == 3.9
    assert rebuilt.value("CV*", "system", "Fluency", "SVM") == assess(study).value("CV*", "system", "Fluency", "SVM")
    assert round(rebuilt.value("CV*", "system", "Fluency", "SVM"), 2) != 19.96  # QRA++ Example 1's published value


def test_results_whose_text_no_longer_matches_the_revision_are_not_reused(library):
    """A revision's text changed behind the library's back (not through save): its key no longer matches."""
    study = library.open("qrapp-example1")
    study.set_score("Fluency", "SVM", "Li2024", 3.9)
    with sqlite3.connect(library.path) as db:
        db.execute(
            "UPDATE revisions SET body = ? WHERE study_id = 'qrapp-example1'", (qra_widgets.io.study_to_json(study),)
        )
    found = reused(library)
    assert found["qrapp-example1"] is None and found["belz2021-torc"] is not None


def test_results_of_another_package_version_or_results_version_are_not_reused(library, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(qra_widgets.version, "__version__", "99.0")
        assert set(reused(library).values()) == {None}
    with monkeypatch.context() as patch:
        patch.setattr(store, "RESULTS_VERSION", "next")
        assert set(reused(library).values()) == {None}
    assert None not in reused(library).values()


def test_the_key_names_the_revisions_text_and_the_conventions_signature(library):
    with sqlite3.connect(library.path) as db:
        body, info = db.execute(
            "SELECT rv.body, r.info FROM revisions rv JOIN results r USING (study_id, revision) "
            "WHERE study_id = 'qrapp-example1'"
        ).fetchone()
    key = __import__("json").loads(info)["key"]
    assert key == results_key(body, "conventions:qrapp|version:" + qra_widgets.version.__version__)
    assert len(key["sha256"]) == 64


def test_a_study_that_cannot_be_assessed_has_no_rebuilt_assessment(library):
    study = examples.load("qrapp_example1")
    study.id = "one-experiment"
    keep = study.experiments[0].id
    study.experiments = study.experiments[:1]
    study.scores = {k: v for k, v in study.scores.items() if k[2] == keep}
    study.sources = {k: v for k, v in study.sources.items() if k[2] == keep}
    library.save(study)
    assert reused(library)["one-experiment"] is None


def test_deleted_studies_are_left_out(library):
    library.delete("belz2021-torc")
    assert "belz2021-torc" not in reused(library)
