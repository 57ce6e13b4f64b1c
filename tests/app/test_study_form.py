"""The Study form's evaluation type and QCET picker: what the form sets is
the study's criterion field, and the organisers' Overview splits on it.

The study is the bundled QRA++ example 1 (QRA++ Table 4, Fluency of three systems, 1-4 scale).
"""

from __future__ import annotations

from pathlib import Path

import qra_widgets as qw
from qra_widgets import charts
from qra_widgets.widgets import Dashboard
from qra_widgets.widgets.study_form import EVALUATION_LABELS


def criterion(app, name="Fluency"):
    return app.state.study.quality_criterion(name)


def pick(app, name="Fluency"):
    app.study_view.criteria.value = None
    app.study_view.criteria.value = name


def test_dropdown_offers_every_evaluation_type_and_shows_the_criterions(qrapp_example1):
    original = qrapp_example1
    app = Dashboard(original)
    pick(app)
    view = app.study_view
    assert [value for _, value in view.qc_evaluation.options] == list(qw.study.EVALUATION_TYPES)
    assert view.qc_evaluation.label == EVALUATION_LABELS["human"]  # the example's Fluency is a human evaluation
    assert view.qc_qcet.value == "Fluency (QOG-w-3)"


def test_update_sets_the_studys_criterion_and_keeps_its_other_fields(qrapp_example1):
    original = qrapp_example1
    app = Dashboard(original)
    pick(app)
    before = criterion(app)
    app.study_view.qc_evaluation.value = "metric"
    app.study_view.qc_qcet.value = "Grammaticality (QOG-w-1)"
    app.study_view.update_qc.click()
    after = criterion(app)
    assert (after.evaluation_type, after.qcet_id) == ("metric", "QOG-w-1")
    assert (after.scale_min, after.scale_max, after.label_level, after.description) == (
        before.scale_min,
        before.scale_max,
        before.label_level,
        before.description,
    )
    assert (
        app.state.dirty
        and app.status.value == "<span class='qra-ok'>Updated quality criterion &#x27;Fluency&#x27;.</span>"
    )
    assert original.quality_criterion("Fluency").evaluation_type == "human"  # the caller's study is a copy
    cv = lambda frame: frame[frame.measure == "CV*"].value.round(6).tolist()
    assert cv(app.state.assessment.to_frame()) == cv(
        qw.assess(original).to_frame()
    )  # re-assessed; scores and CV* unchanged


def test_new_criterion_from_the_form_carries_its_type():
    app = Dashboard()
    view = app.study_view
    view.qc_name.value, view.qc_min.value, view.qc_max.value = "Faithfulness", "1", "5"
    view.qc_evaluation.value = "llm-as-judge"
    view.add_qc.click()
    assert criterion(app, "Faithfulness").evaluation_type == "llm-as-judge"
    assert qw.compare.evaluation_type(app.state.study) == "llm-as-judge"


def test_picking_a_criterion_after_a_heds_import_shows_the_filled_type():
    """A HEDS 3.0 sheet (the official form's fixture) fills the open fields; the form shows them."""
    study = qw.Study(
        "s",
        quality_criteria=[qw.QualityCriterion("Fluency", 1, 5), qw.QualityCriterion("Informativeness", 1, 5)],
        systems=["A"],
        experiments=[qw.Experiment("E1", role="original")],
    )
    app = Dashboard(study)
    pick(app, "Informativeness")
    assert app.study_view.qc_evaluation.value == "unknown"
    sheet = Path(__file__).parents[1] / "data" / "heds3" / "heds3_two_criteria.json"
    app.state.import_heds("E1", sheet.read_bytes(), sheet.name)
    assert app.study_view.criteria.value == "Informativeness"
    assert (app.study_view.qc_evaluation.value, app.study_view.qc_qcet.value) == ("human", "Informativeness (QOG-c-2)")


def test_overview_splits_on_the_type_set_in_the_form(tmp_path, example_study):
    """Two saved copies of QRA++ example 1, one marked human and one metric in the form: the
    Overview's criterion table, its filter and its distribution boxes keep them apart."""
    library = tmp_path / "library.sqlite3"
    for study_id, kind in (("fluency-human", "human"), ("fluency-metric", "metric")):
        app = Dashboard(example_study("qrapp_example1"), library_path=library)
        app.study_view.study_id.value = study_id
        app.study_view.apply_details.click()
        pick(app)
        app.study_view.qc_evaluation.value = kind
        app.study_view.update_qc.click()
        app.state.save()
    data = qw.overview(library)
    assert dict(zip(data.criteria.study, data.criteria.evaluation_type)) == {
        "fluency-human": "human",
        "fluency-metric": "metric",
    }
    assert list(data.filter(evaluation_type="metric").criteria.study) == ["fluency-metric"]
    values = data.values("CV*")
    assert sorted(values.groupby("evaluation_type").size().items()) == [("human", 3), ("metric", 3)]  # 3 systems each
    figure = charts.measure_distribution(values, "qcet_name")
    assert [box.name for box in figure.data] == ["Fluency · human (n = 3)", "Fluency · metric (n = 3)"]
    app.overview.on_update()
    assert list(app.overview.filters["evaluation_type"].options) == ["(all)", "human", "metric"]
