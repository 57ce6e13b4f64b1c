"""Asking the evaluation type and QCET criterion where studies enter without them (QRA3 files,
Import many), with a suggestion from each criterion's name."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from fielddata import field_path, needs_field_data

import qra_widgets as qw
from qra_widgets.library_actions import import_qra3
from qra_widgets.overview import classify_criteria, unclassified_criteria
from qra_widgets.properties.suggest import suggest_criterion
from qra_widgets.store import StudyLibrary
from qra_widgets.widgets import Dashboard

QRA3 = field_path("qra3")  # the published Yao 2022 QRA3 run (ReproNLP 2026), never committed


def qra3_upload() -> tuple[dict, ...]:
    """The published QRA3 metrics and config files as a FileUpload widget's value holds them."""
    return tuple(
        {
            "name": name,
            "content": (QRA3 / name).read_bytes(),
            "type": "",
            "size": 1,
            "last_modified": datetime.now(timezone.utc),
        }
        for name in ("metrics-4-studies.csv", "config-4-studies.json")
    )


@pytest.mark.parametrize(
    ("name", "kind", "qcet"),
    [
        ("BLEU", "metric", "QTG-f-1"),  # as the QRA 2022 Table 4 example (qra2022_nts) files it
        ("SARI", "metric", "QTG-w-2"),  # ditto
        ("wF1", "metric", "QTC-w-1"),  # as the QRA 2022 Table 6 example (qra2022_essay_scoring) files it
        ("ROUGE-L", "metric", "QTG-f-1"),
        ("Fluency", "human", "QOG-w-3"),  # the QCET criterion of that name
        ("readability", "human", "QOG-w-2"),
        ("GPT-4 judged fluency", "llm-as-judge", "QOG-w-3"),
        ("Q7", "unknown", None),
    ],
)
def test_a_criterion_name_suggests_its_evaluation_type_and_qcet_criterion(name, kind, qcet):
    guess = suggest_criterion(name)
    assert (guess.evaluation_type, guess.qcet_id) == (kind, qcet)
    assert guess.reason


@needs_field_data
def test_qra3_studies_without_types_are_listed_with_suggestions_and_classified_as_a_new_revision(tmp_path):
    library = StudyLibrary(tmp_path / "lib.sqlite3")
    report = import_qra3(
        library, (QRA3 / "metrics-4-studies.csv").read_bytes(), (QRA3 / "config-4-studies.json").read_bytes()
    )
    added = [study_id for _source, study_id in report.added]
    frame = unclassified_criteria(library, added)
    yao = frame[frame.study == "Yao2022"].set_index("quality_criterion")
    assert set(yao.evaluation_type) == {"unknown"}  # QRA3 files do not say
    assert yao.loc["Readability", "suggested_type"] == "human" and yao.loc["Readability", "suggested_qcet"] == "QOG-w-2"
    revision = classify_criteria(library, "Yao2022", {"Readability": ("human", "QOG-w-2")})
    assert revision == 2
    criterion = library.open("Yao2022").quality_criterion("Readability")
    assert (criterion.evaluation_type, criterion.qcet_id) == ("human", "QOG-w-2")
    assert "Readability" not in set(unclassified_criteria(library, ["Yao2022"]).quality_criterion)
    with pytest.raises(qw.QRAInputError, match="not a QCET criterion id"):
        classify_criteria(library, "Yao2022", {"Readability": ("human", "QXX-9")})
    with pytest.raises(qw.QRAInputError, match="evaluation_type must be one of"):
        classify_criteria(library, "Yao2022", {"Readability": ("crowd", None)})


def imported(tmp_path, upload: str, button: str) -> Dashboard:
    """A new dashboard whose Library tab was given the published QRA3 files in its ``upload``
    widget and whose ``button`` was clicked."""
    app = Dashboard(library_path=tmp_path / "lib.sqlite3")
    getattr(app.library, upload).value = qra3_upload()
    getattr(app.library, button).click()
    return app


@needs_field_data
def test_the_library_tab_asks_after_a_qra3_import_and_saves_the_answers(tmp_path):
    app = imported(tmp_path, "qra3_upload", "import_qra3")
    prompt = app.library.criteria_prompt
    assert prompt.widget.layout.display == "flex"
    fields = {(study, criterion): (kind, qcet) for study, criterion, kind, qcet in prompt.fields}
    kind, qcet = fields[("Yao2022", "Readability")]
    assert (kind.value, qcet.value) == ("human", "QOG-w-2")  # the suggestion, ready to confirm
    kind.value = "metric"  # the person knows better
    prompt.save.click()
    assert prompt.widget.layout.display == "none" and "Saved the evaluation type" in app.status.value
    saved = app.state.library.open("Yao2022").quality_criterion("Readability")
    assert (saved.evaluation_type, saved.qcet_id) == ("metric", "QOG-w-2")
    overview = qw.overview(app.state.library).criteria.set_index(["study", "quality_criterion"])
    assert overview.loc[("Yao2022", "Readability"), "evaluation_type"] == "metric"


@needs_field_data
def test_the_bulk_import_report_asks_for_the_types_of_the_qra3_criteria_too(tmp_path):
    view = imported(tmp_path, "bulk_upload", "import_many").library
    assert view.criteria_prompt.widget.layout.display == "flex"
    assert {study for study, *_ in view.criteria_prompt.fields} >= {"Yao2022"}


def test_classifying_the_open_study_reloads_it_unless_it_has_unsaved_changes(tmp_path):
    app = Dashboard(library_path=tmp_path / "lib.sqlite3")
    state = app.state
    state.load(example="qrapp_example1")
    state.save()
    message = state.classify_criteria({"qrapp-example1": {"Fluency": ("metric", "QOG-w-3")}})
    assert message == "Saved the evaluation type and QCET criterion of 1 criterion."
    fluency = state.study.quality_criterion("Fluency")  # the open copy is the new revision
    assert (fluency.evaluation_type, fluency.qcet_id, state.revision, state.dirty) == ("metric", "QOG-w-3", 2, False)
    state.set_scores({("Fluency", "SVM", "Li2024"): 3.5})
    message = state.classify_criteria({"qrapp-example1": {"Fluency": ("human", "QOG-w-3")}})
    assert message.endswith(
        "'qrapp-example1' is open with unsaved changes: its saved revision 3 has them, the open copy not."
    )
    assert state.study.quality_criterion("Fluency").evaluation_type == "metric" and state.dirty
    assert state.library.open("qrapp-example1").quality_criterion("Fluency").evaluation_type == "human"
