"""Chart builders: the figure data equal the assessment's values; names are escaped."""

import pytest

import qra_widgets as qw
from qra_widgets import charts, examples
from qra_widgets.compare import compare_subsets


@pytest.fixture(scope="module")
def example1():
    study = examples.load("qrapp_example1")
    return study, qw.assess(study)


def test_cv_by_system_bars_and_mean(example1):
    _, result = example1
    figure = charts.cv_by_system(result)
    bars = [t for t in figure.data if t.type == "bar"]
    assert len(bars) == 1 and list(bars[0].x) == ["SVM", "GeDi", "DExperts"]
    assert [round(v, 2) for v in bars[0].y] == [19.96, 29.9, 30.76]
    mean = next(t for t in figure.data if t.type == "scatter")
    assert round(mean.y[0], 2) == 26.87
    assert not figure.layout.shapes
    guided = charts.cv_by_system(result, guides=True)
    assert sorted(shape.y0 for shape in guided.layout.shapes) == [1.0, 12.0]


def test_cv_by_system_groups_per_qc():
    figure = charts.cv_by_system(qw.assess(examples.load("qra2022_pass")))
    assert [t.name for t in figure.data if t.type == "bar"] == ["Clarity", "Fluency", "Stance identifiability"]


def test_p_and_w(example1):
    _, result = example1
    figure = charts.p_and_w_by_qc(result)
    assert {t.name: list(t.y) for t in figure.data} == {"P": [1.0], "W": [1.0]}
    two = charts.p_and_w_by_qc(qw.assess(examples.load("qrapp_table4_illustrative")))
    assert {t.name: [round(v, 3) for v in t.y] for t in two.data} == {"P": [0.0, 0.667], "τ": [-1.0, 0.816]}


def test_scores_by_experiment(example1):
    study, _ = example1
    figure = charts.scores_by_experiment(study, "Fluency")
    assert [t.name for t in figure.data] == ["SVM", "GeDi", "DExperts"]
    assert list(figure.data[0].y) == [3.71, 3.12, 3.02]
    assert list(figure.layout.yaxis.range) == [1.0, 4.0]


def test_property_heatmap_and_subsets():
    study = examples.load("qra2022_essay_scoring")
    heat = charts.property_heatmap(study)
    assert heat.data[0].z.shape == (8, 8) and heat.data[0].z[0][0] == 1.0
    figure = charts.subset_comparison(compare_subsets(study, subsets=study.metadata["subsets"]))
    assert [t.name for t in figure.data] == ["mean CV*", "W (τ if n = 2)", "P"]
    assert round(figure.data[1].y[1], 3) == 0.509


def test_user_names_are_escaped_everywhere():
    study = examples.load("qrapp_example1")
    study.rename_system("SVM", "<img src=x onerror=alert(1)>")
    figure = charts.cv_by_system(qw.assess(study))
    assert "<img" not in figure.to_json() and "&lt;img src=x onerror=alert(1)&gt;" in figure.data[0].x
    lines = charts.scores_by_experiment(study, "Fluency")
    assert lines.data[0].name.startswith("&lt;img")


def test_to_html_is_standalone(example1):
    _, result = example1
    page = charts.to_html(charts.cv_by_system(result))
    assert page.lstrip().lower().startswith("<!doctype html>") and "plotly" in page and len(page) > 1_000_000
