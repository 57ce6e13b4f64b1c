"""Chart builders: the figure data equal the assessment's values; names are escaped."""

import copy

import pytest

import qra_widgets as qw
from qra_widgets import charts
from qra_widgets.compare import compare_subsets, property_differences


@pytest.fixture(scope="module")
def example1(example_studies):
    study = copy.deepcopy(example_studies["qrapp_example1"])
    return study, qw.assess(study)


def test_cv_by_system_draws_a_bar_per_system_and_the_mean_line_above_them(example1):
    _, result = example1
    figure = charts.cv_by_system(result)
    bars = [t for t in figure.data if t.type == "bar"]
    assert len(bars) == 1 and list(bars[0].x) == ["SVM", "GeDi", "DExperts"]
    assert [round(v, 2) for v in bars[0].y] == [19.96, 29.9, 30.76]
    mean = next(t for t in figure.data if t.type == "scatter")
    assert round(mean.y[0], 2) == 26.87
    [line] = figure.layout.shapes  # the mean, drawn as a line above the bars (it was hidden behind them)
    assert round(line.y0, 2) == 26.87 and line.layer == "above"
    guided = charts.cv_by_system(result, guides=True)
    assert sorted(round(shape.y0, 2) for shape in guided.layout.shapes) == [1.0, 12.0, 26.87]
    assert {shape.layer for shape in guided.layout.shapes} == {"above"}


def test_long_category_names_are_wrapped_or_put_on_horizontal_boxes(qra2022_essay_scoring):
    study = qra2022_essay_scoring  # QRA 2022 Table 6: experiments named up to 43 characters
    figure = charts.scores_by_experiment(study, "wF1")
    assert "Caines &amp; Buttery<br>(2020), R<br>reimplementation" in figure.data[0].x
    assert figure.layout.xaxis.tickangle == 0
    import pandas as pd

    values = pd.DataFrame(
        {
            "study": ["s"] * 4,
            "quality_criterion": ["q"] * 4,
            "system": list("abcd"),
            "evaluation_type": ["metric"] * 4,
            "value": [1.0, 2.0, 3.0, 4.0],
            "qcet_name": ["Similarity to Target Outputs (form)"] * 2 + ["Classification Accuracy"] * 2,
        }
    )
    boxes = charts.measure_distribution(values, "qcet_name")
    assert {box.orientation for box in boxes.data} == {"h"}  # long QCET names: one line each, beside the box
    assert [box.name for box in boxes.data] == [
        "Classification Accuracy (n = 2)",
        "Similarity to Target Outputs (form) (n = 2)",
    ]
    short = charts.measure_distribution(values.assign(qcet_name=["A"] * 2 + ["B"] * 2), "qcet_name")
    assert {box.orientation for box in short.data} == {None}


def test_cv_by_system_draws_one_bar_group_per_quality_criterion(qra2022_pass):
    figure = charts.cv_by_system(qw.assess(qra2022_pass))
    assert [t.name for t in figure.data if t.type == "bar"] == ["Clarity", "Fluency", "Stance identifiability"]


def test_p_and_w_chart_shows_w_for_three_experiments_and_tau_for_two(example1, qrapp_table4_illustrative):
    _, result = example1
    figure = charts.p_and_w_by_qc(result)
    assert {t.name: list(t.y) for t in figure.data} == {"P": [1.0], "W": [1.0]}
    two = charts.p_and_w_by_qc(qw.assess(qrapp_table4_illustrative))
    assert {t.name: [round(v, 3) for v in t.y] for t in two.data} == {"P": [0.0, 0.667], "τ": [-1.0, 0.816]}


def test_scores_by_experiment_draws_a_trace_per_system_on_the_scale_range(example1):
    study, _ = example1
    figure = charts.scores_by_experiment(study, "Fluency")
    assert [t.name for t in figure.data] == ["SVM", "GeDi", "DExperts"]
    assert list(figure.data[0].y) == [3.71, 3.12, 3.02]
    assert list(figure.layout.yaxis.range) == [1.0, 4.0]


def test_property_heatmap_and_subset_chart_show_the_studys_values(qra2022_essay_scoring):
    study = qra2022_essay_scoring
    heat = charts.property_heatmap(study, property_differences(study))
    assert heat.data[0].z.shape == (8, 8) and heat.data[0].z[0][0] == 1.0
    figure = charts.subset_comparison(compare_subsets(study, subsets=study.metadata["subsets"]))
    assert [t.name for t in figure.data] == ["mean CV*", "W (τ if n = 2)", "P"]
    assert round(figure.data[1].y[1], 3) == 0.509


def test_user_names_are_escaped_everywhere(qrapp_example1):
    study = qrapp_example1
    study.rename_system("SVM", "<img src=x onerror=alert(1)>")
    figure = charts.cv_by_system(qw.assess(study))
    assert "<img" not in figure.to_json() and "&lt;img src=x onerror=alert(1)&gt;" in figure.data[0].x
    lines = charts.scores_by_experiment(study, "Fluency")
    assert lines.data[0].name.startswith("&lt;img")


def test_to_html_is_standalone(example1):
    _, result = example1
    page = charts.to_html(charts.cv_by_system(result))
    assert page.lstrip().lower().startswith("<!doctype html>") and "plotly" in page and len(page) > 1_000_000


def big_result(systems):
    import numpy as np

    from qra_widgets.study import Experiment, QualityCriterion, Study

    rng = np.random.default_rng(1)
    names = [f"system {i}" for i in range(systems)]
    exps = [Experiment(f"e{j}") for j in range(4)]
    study = Study(
        "big",
        quality_criteria=[QualityCriterion("Q", 1, 5)],
        systems=names,
        experiments=exps,
        scores={("Q", s, e.id): float(rng.uniform(1, 5)) for s in names for e in exps},
    )
    return study, qw.assess(study)


def test_charts_stay_readable_for_many_systems():
    study, result = big_result(200)
    cv = charts.cv_by_system(result)
    assert cv.data[0].orientation == "h" and len(cv.data[0].y) == 200  # names on the y axis
    assert cv.layout.height == charts.MAX_HEIGHT  # 160 + 22 px x 200 bars is above the cap
    assert cv.layout.xaxis.title.text == "CV* (%)"
    scores = charts.scores_by_experiment(study, "Q")
    assert [t.type for t in scores.data] == ["heatmap"] and len(scores.data[0].y) == 200
    _, small = big_result(5)
    assert charts.cv_by_system(small).layout.height == 440 and charts.cv_by_system(small).data[0].orientation is None


def test_subtitles_name_the_conventions_and_n(example1):
    _, result = example1
    for figure in (charts.cv_by_system(result), charts.p_and_w_by_qc(result)):
        assert "<sup>conventions: qrapp · n = 3 experiments</sup>" in figure.layout.title.text
    study, _ = example1
    assert (
        "3 systems · n = 3 experiments · scale 1–4" in charts.scores_by_experiment(study, "Fluency").layout.title.text
    )
    qra3 = charts.cv_by_system(qw.assess(study, conventions="qra3"))
    assert "conventions: qra3" in qra3.layout.title.text


def test_guides_are_in_the_legend_not_written_over_the_bars(example1):
    _, result = example1
    guided = charts.cv_by_system(result, guides=True)
    assert not guided.layout.annotations
    assert [t.name for t in guided.data if t.name and t.name.startswith("QRA++ §6.1")] == [
        "QRA++ §6.1 guide 12: good for human evaluation",
        "QRA++ §6.1 guide 1: good for metrics",
    ]
