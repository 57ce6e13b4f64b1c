"""The Side by side tab renders meta's forest, verdicts and rank intervals for the study being edited."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from qra_widgets.meta import consistency, forest, leave_one_out
from qra_widgets.widgets.dashboard import TITLES, Dashboard
from tests.compare.test_meta import three_lab_study


def _plotly(output):
    return output.outputs[0]["data"]["application/vnd.plotly.v1+json"] if output.outputs else None


def test_side_by_side_tab_shows_the_forest_plot_pooled_summary_and_verdicts_of_the_study():
    dashboard = Dashboard(three_lab_study())
    dashboard.show_tab("Side by side")
    view = dashboard.sidebyside
    assert TITLES[-1] == "Side by side"
    assert view.criterion.value == "Fluency" and view.margin.value == 0.2  # 5% of the 1..5 scale
    spec = _plotly(view.forest)
    names = [trace["name"] for trace in spec["data"]]
    assert names[:4] == ["Original", "Reproduction", "Pooled (random effects)", "Prediction interval"]
    influence = leave_one_out(dashboard.state.assessment, quality_criterion="Fluency")
    marked = influence[influence.influential.fillna(False).astype(bool)]
    assert (names[4:] == ["Influential (leave one out)"]) == bool(len(marked))
    assert all(str(r.label) in view.summary.value for r in marked.itertuples())
    expected = forest(dashboard.state.assessment, quality_criterion="Fluency")
    pooled = expected[expected.row == "pooled"].iloc[0]
    assert f"pooled {pooled.value:.3f}" in view.summary.value and "REML" in view.summary.value
    verdicts = consistency(dashboard.state.assessment, margin=0.2)
    assert view.verdicts.value.count("<tr>") == len(verdicts) + 1
    assert "Margin ±0.2" in view.verdicts.value


def test_changing_the_estimator_margin_and_system_redraws_with_them():
    dashboard = Dashboard(three_lab_study())
    view = dashboard.sidebyside
    view.method.value = "dl"
    assert "DerSimonian" in view.summary.value
    view.system.value = "B"
    assert view.summary.value.count("<li>") == 1
    view.margin.value = 0.05
    assert "Margin ±0.05" in view.verdicts.value and view.verdicts.value.count("<tr>") == 3  # B in R1 and R2


def test_rank_intervals_are_computed_on_request_and_an_edit_clears_them():
    dashboard = Dashboard(three_lab_study())
    view = dashboard.sidebyside
    assert _plotly(view.ranks) is None
    view.on_ranks()
    spec = _plotly(view.ranks)
    assert sum(len(trace["x"]) for trace in spec["data"]) == 6
    dashboard.state.set_scores({("Fluency", "A", "R2"): 4.9})
    assert _plotly(view.ranks) is None
    assert "B = 500" not in view.ranks_note.value


def test_a_study_without_an_original_gets_a_hint_instead_of_verdicts():
    from qra_widgets.study import Experiment

    study = three_lab_study()
    study.experiments[0] = Experiment("O", role="repeat")
    view = Dashboard(study).sidebyside
    assert "Mark one experiment as the original" in view.verdicts.value


def test_side_by_side_tab_shows_the_replication_success_matrix_of_the_criterion():
    from qra_widgets.replication import replication_success

    dashboard = Dashboard(three_lab_study())
    view = dashboard.sidebyside
    spec = _plotly(view.verdict_matrix)
    expected = replication_success(dashboard.state.assessment, quality_criterion="Fluency", margin=0.2)
    heat = spec["data"][0]
    assert heat["type"] == "heatmap" and len(heat["z"]) == 7 and len(heat["x"]) == len(expected) == 6
    assert heat["z"][3] == [int(v) for v in expected.tost_equivalent]
    view.margin.value = 2.0  # a wide margin: every repeat is equivalent
    assert _plotly(view.verdict_matrix)["data"][0]["z"][3] == [1] * 6
