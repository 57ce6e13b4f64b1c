"""Leave-one-out pooling and its marks on the forest plot (qra_widgets.meta.leave_one_out)."""

from __future__ import annotations

import math
import warnings

import pytest
from test_meta import three_lab_study

import qra_widgets as qw
from qra_widgets import charts
from qra_widgets.errors import UndefinedMeasureWarning
from qra_widgets.meta import random_effects


def test_each_row_pools_the_other_experiments():
    result = qw.assess(three_lab_study())
    frame = qw.leave_one_out(result, quality_criterion="Fluency", system="A")
    forest = qw.forest(result, quality_criterion="Fluency", system="A")
    experiments = forest[forest.row == "experiment"].set_index("experiment")
    full = forest[forest.row == "pooled"].iloc[0]
    assert list(frame.left_out) == ["O", "R1", "R2"] and (frame.k == 2).all()
    for row in frame.itertuples():
        rest = experiments.drop(row.left_out)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMeasureWarning)
            other = random_effects(rest.value, rest.se)
        assert (row.estimate, row.ci_low, row.ci_high, row.tau2) == (
            other.estimate,
            other.ci_low,
            other.ci_high,
            other.tau2,
        )
        assert row.shift == pytest.approx(other.estimate - full.value, abs=1e-15)
        se = experiments.loc[row.left_out, "se"]
        expected = (row.value - other.estimate) / math.sqrt(se**2 + other.tau2 + other.se_model**2)
        assert row.deleted_residual == pytest.approx(expected, abs=1e-12)
        assert bool(row.influential) == (
            abs(expected) > 1.959963984540054 or not full.ci_low <= other.estimate <= full.ci_high
        )


def test_an_experiment_far_from_the_others_is_marked_influential_and_ringed_on_the_forest_plot():
    study = three_lab_study(shift=(0.0, 0.1, 1.8))  # R2's raters score far above the other two teams
    result = qw.assess(study)
    frame = qw.leave_one_out(result, quality_criterion="Fluency", system="A").set_index("left_out")
    assert frame.loc["R2", "influential"] and abs(frame.loc["R2", "deleted_residual"]) > 1.96
    assert not frame.loc["O", "influential"]
    figure = charts.forest_figure_json(
        qw.forest(result, quality_criterion="Fluency", system="A"),
        influence=qw.leave_one_out(result, quality_criterion="Fluency", system="A"),
    )
    ring = [t for t in figure["data"] if t["name"] == "Influential (leave one out)"]
    repeats = next(t for t in figure["data"] if t["name"] == "Reproduction")
    assert len(ring) == 1 and ring[0]["y"] == repeats["y"][1:]


def test_two_experiments_leave_nothing_to_pool_and_say_why():
    study = three_lab_study().subset(["O", "R1"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        frame = qw.leave_one_out(qw.assess(study), quality_criterion="Fluency")
    assert len(frame) == 4 and frame.estimate.isna().all() and frame.influential.isna().all()
    assert frame.note.str.contains("only 2 experiments with a standard error").all()


def test_the_forest_plot_draws_no_empty_pooled_or_prediction_row_when_pooling_is_undefined(qrapp_example1):
    study = qrapp_example1
    qc, system = study.qc_names[0], study.systems[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        frame = qw.forest(qw.assess(study), quality_criterion=qc, system=system)
    assert frame[frame.row == "pooled"].value.isna().all()  # no standard error anywhere: nothing pooled
    figure = charts.forest_figure_json(frame)
    assert [t["name"] for t in figure["data"]] == ["Original", "Reproduction"] or [
        t["name"] for t in figure["data"]
    ] == ["Reproduction"]
    labels = figure["layout"]["yaxis"]["categoryarray"]
    assert not any("Pooled" in label or "Prediction" in label for label in labels)
    assert len(labels) == (frame.row == "experiment").sum()


def test_two_experiments_get_a_pooled_row_but_no_prediction_row():
    study = three_lab_study().subset(["O", "R1"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        frame = qw.forest(qw.assess(study), quality_criterion="Fluency", system="A")
    names = [t["name"] for t in charts.forest_figure_json(frame)["data"]]
    assert names == ["Original", "Reproduction", "Pooled (random effects)"]


def test_the_forest_plot_escapes_a_criterion_and_a_system_name_once():
    """Plotly reads labels as HTML: "A&B" must reach it as "A&amp;B", never "A&amp;amp;B" (shown as
    the literal text "A&amp;B")."""
    result = qw.assess(three_lab_study())
    frame = qw.forest(result, quality_criterion="Fluency").copy()
    frame["quality_criterion"] = "A&B <i>"
    frame["system"] = frame["system"].map({"A": "S&T", "B": "U"})
    layout = charts.forest_figure_json(frame, template=False)["layout"]
    texts = [layout["title"]["text"], layout["xaxis"]["title"]["text"]]
    assert texts[0].startswith("Forest plot: A&amp;B &lt;i&gt;<br><sup>") and "S&amp;T: τ²" in texts[0]
    assert texts[1] == "A&amp;B &lt;i&gt; (scale units)"
    assert all("&amp;amp;" not in text and "&amp;lt;" not in text for text in texts)
