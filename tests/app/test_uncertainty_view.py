"""The Intervals tab (output, progress, planner) on the van Miltenburg et al. (2024)
fluency ratings (published field data, with our spec ``tests/data/vanmiltenburg2024/spec.json``:
three rater groups as three experiments; skipped without ``$QRA_WIDGETS_FIELD_DATA``).

What is asserted: the tab's intervals are exactly ``assess(study, bootstrap=B, seed=S)``'s; Cancel
and a score edit during a run leave the assessment without intervals (the edit does not wait for
the run, and a result that finishes after an edit is discarded); the template shows
"value [low, high]", the CV* chart's error bars are the intervals, the annotator-agreement table
is the library's; the planner is ``plan_reproduction`` design by design.
"""

from __future__ import annotations

import html
import re
import threading

import numpy as np
import pytest

import qra_widgets as qw
from qra_widgets.planning import plan_reproduction
from qra_widgets.widgets.common import Status
from qra_widgets.widgets.interval_commands import plan_designs
from qra_widgets.widgets.state import AppState, IntervalsDropped
from qra_widgets.widgets.uncertainty import UncertaintyView

B, SEED = 2000, 11  # 4 chunks of 500 replicates: progress is reported 4 times


@pytest.fixture(scope="module")
def study(vanmiltenburg2024_study):
    return vanmiltenburg2024_study  # shared by the session: the views copy it, nothing here edits it


@pytest.fixture(scope="module")
def direct(study):
    return qw.assess(study, bootstrap=B, seed=SEED)


def tab(study) -> UncertaintyView:
    view = UncertaintyView(AppState(study), Status())
    view.replicates.value, view.seed.value = B, SEED
    return view


def compute(view: UncertaintyView) -> None:
    view.on_compute()
    view.job.join(120)
    assert not view.job.running


def shown_figure(output) -> dict:
    return output.outputs[0]["data"]["application/vnd.plotly.v1+json"]


def test_a_fixed_seed_gives_the_intervals_of_assess(study, direct):
    view = tab(study)
    assert "No intervals yet" in view.intervals.value
    compute(view)
    result = view.state.assessment
    assert result.bootstrap_info == direct.bootstrap_info and result.bootstrap_info["seed"] == SEED
    assert result.intervals.keys() == direct.intervals.keys()
    for key, (low, high, method, note, over) in direct.intervals.items():
        got = result.intervals[key]
        assert (got[2], got[3], got[4]) == (method, note, over)
        np.testing.assert_array_equal(got[:2], (low, high))
    assert view.progress.value == B and view.compute.disabled is False and view.cancel.disabled is True
    assert "95% intervals from 2000 bootstrap replicates (seed 11)" in view.message.value
    assert "95% intervals from 2000 bootstrap replicates (seed 11)" in view.status.value  # the status line says it too
    assert not view.state.dirty  # intervals are not an edit of the study


def test_the_template_shows_value_and_interval_and_the_chart_has_error_bars(study, direct):
    view = tab(study)
    compute(view)
    cv = direct.cv[("Fluency", "SVM")].cv_star
    low, high = direct.intervals[("CV*", "system", "Fluency", "SVM")][:2]
    text = html.unescape(view.intervals.value)
    found = re.search(r"<td>SVM</td>\s*<td>CV\*</td>\s*<td class='qra-num'>([\d.]+) \[([\d.]+), ([\d.]+)\]</td>", text)
    assert found, text[:2000]
    assert [float(v) for v in found.groups()] == pytest.approx(
        [cv, low, high], abs=0.005
    )  # 2 decimals, as QRA++ prints CV*
    assert "seed 11" in text
    figure = shown_figure(view.cv_chart)
    bar = figure["data"][0]
    at = bar["x"].index("SVM")
    assert bar["error_y"]["array"][at] == pytest.approx(high - cv, abs=1e-12)
    assert bar["error_y"]["arrayminus"][at] == pytest.approx(cv - low, abs=1e-12)


def test_the_annotator_agreement_table_is_the_libraries(study, direct, qrapp_example1):
    view = tab(study)
    frame = qw.assess(study).annotator_agreement()
    alpha = frame[(frame.experiment == "direct") & (frame.measure == "alpha")].iloc[0]
    assert (alpha.n_items, alpha.n_raters) == (300, 2)  # 300 items, raters 001 and 002
    row = re.search(
        r"<td>direct</td><td>Fluency</td><td>Krippendorff's α</td><td class='qra-num'>([^<]+)</td>",
        html.unescape(view.agreement.value),
    )
    assert row.group(1) == f"{alpha.value:.3f}"
    compute(view)  # after the bootstrap, with its interval
    agreement = direct.annotator_agreement()
    first = agreement[(agreement.experiment == "direct") & (agreement.measure == "alpha")].iloc[0]
    assert f"{first.value:.3f} [{first.ci_low:.3f}, {first.ci_high:.3f}]" in html.unescape(view.agreement.value)
    # a study of scores only has no ratings: no agreement table
    assert UncertaintyView(AppState(qrapp_example1), Status()).agreement.value == ""


def test_cancel_leaves_the_assessment_without_intervals(study):
    view = tab(study)
    view.progress.observe(lambda change: view.on_cancel() if change["new"] == 500 else None, "value")
    compute(view)
    assert view.progress.value == 500  # stopped at the next chunk: 500 of 2000 replicates
    assert view.state.assessment.intervals == {} and view.state.assessment.bootstrap_info == {}
    assert "Intervals cancelled" in view.message.value and "No intervals yet" in view.intervals.value
    assert view.compute.disabled is False


def test_an_edit_after_the_intervals_drops_them_and_their_message(study):
    """The page never says "intervals from 2000 replicates" above a table that has none."""
    view = tab(study)
    compute(view)
    assert "[" in view.intervals.value and "bootstrap replicates" in view.message.value
    view.state.set_scores({("Fluency", "SVM", "direct"): 3.5})
    assert view.state.assessment.bootstrap_info == {} and "No intervals yet" in view.intervals.value
    assert view.message.value == ""


def test_a_score_edit_during_a_run_does_not_wait_and_never_shows_stale_intervals(study):
    view = tab(study)
    reached, edited = threading.Event(), threading.Event()

    def hold(change):  # the worker thread, after its first chunk, waits until the edit is done
        if change["new"] == 500:
            reached.set()
            edited.wait(60)

    view.progress.observe(hold, "value")
    view.on_compute()
    assert reached.wait(60) and view.job.running
    view.state.set_scores({("Fluency", "SVM", "direct"): 3.5})  # returns while the bootstrap is still running
    assert view.job.running
    edited.set()
    view.job.join(120)
    result = view.state.assessment
    assert result.bootstrap_info == {} and result.intervals == {}
    assert result.cv[("Fluency", "SVM")] == qw.assess(view.state.study).cv[("Fluency", "SVM")]
    assert view.progress.value == 500  # the stale run stopped at its next chunk
    assert "The study changed while the intervals were computed" in view.message.value


def test_a_result_that_finishes_after_an_edit_is_discarded(study):
    state = AppState(study)
    run = state.bootstrap_request()
    result = run.compute(200, seed=1)
    assert result.bootstrap_info["B"] == 200
    state.set_scores({("Fluency", "GeDi", "extra"): 2.0})
    event = state.apply_intervals(run, result)
    assert isinstance(event, IntervalsDropped) and state.assessment.bootstrap_info == {}
    # without an edit the same result is shown
    run = state.bootstrap_request()
    state.apply_intervals(run, run.compute(200, seed=1))
    assert state.assessment.bootstrap_info["seed"] == 1


def test_an_unassessable_study_is_refused_by_name():
    view = UncertaintyView(AppState(), Status())
    view.on_compute()
    assert "intervals: the study cannot be assessed yet" in html.unescape(view.status.value)
    assert view.job.thread is None


def test_the_planner_is_plan_reproduction_design_by_design(study):
    view = tab(study)
    shown, show_plan = [], view.show_plan
    view.show_plan = lambda frame: (shown.append(frame), show_plan(frame))  # the frame the tab shows
    view.plan_items.value, view.plan_raters.value, view.plan_replicates.value = "40, 80", "2, 3", 50
    view.on_plan()
    view.plan_job.join(300)
    assert view.plan_progress.value == 4 and view.plan_button.disabled is False
    expected = [
        plan_reproduction(study, items=[n], raters_per_item=[k], B=50, runs=3, seed=0) for n in (40, 80) for k in (2, 3)
    ]
    [frame] = shown
    for (_, row), design in zip(frame.groupby(["items", "raters_per_item"], sort=False), expected):
        np.testing.assert_array_equal(row.expected_ci_width.to_numpy(), design.expected_ci_width.to_numpy())
    assert view.plan_table.value.count("<tr") == 1 + len(frame) == 1 + 8  # CV* and alpha per design
    figure = shown_figure(view.plan_chart)
    assert {trace["name"] for trace in figure["data"]} == {
        f"{m} (Fluency), {k} raters per item" for m in ("CV*", "alpha") for k in (2, 3)
    }
    view.plan_items.value = "40, many"
    view.on_plan()
    assert "plan: items: 'many' is not a whole number" in html.unescape(view.status.value)


def test_the_plan_box_plans_the_same_items_design_when_asked(study):
    view = tab(study)
    view.plan_items.value, view.plan_raters.value, view.plan_replicates.value = "40", "2", 30
    view.plan_design.value = "same items"
    view.on_plan()
    view.plan_job.join(300)
    assert view.plan_button.disabled is False
    expected = plan_reproduction(study, items=[40], raters_per_item=[2], B=30, runs=3, seed=0, design="same items")
    assert "same items" in view.plan_table.value and "ci_width_p90" in view.plan_table.value
    np.testing.assert_array_equal(
        plan_designs(
            view.state.study, view.state.conventions, [40], [2], B=30, design="same items"
        ).expected_ci_width.to_numpy(),
        expected.expected_ci_width.to_numpy(),
    )
