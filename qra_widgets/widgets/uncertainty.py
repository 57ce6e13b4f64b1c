"""Intervals tab: the bootstrap on request (B, seed, a progress bar, Cancel), the assessment
with its intervals ("12.01 [9.8, 14.3]" and CV* error bars), the annotator-agreement table,
and the reproduction planner.  Everything is computed by ``assess`` / ``plan_reproduction``
through :class:`AppState` commands; this module only starts threads and renders.

**Threads and edits.**  The bootstrap and the planner run in a background thread, so the
kernel keeps answering the page.  The thread works on a snapshot of the study; an edit
re-assesses at once (it never waits) and makes the snapshot stale: the bootstrap stops at its
next chunk of replicates, and a result that finishes anyway is discarded, never shown.  The
result is handed back on the kernel's event loop (when there is one), so it is applied
between two edits, never during one.
"""

from __future__ import annotations

import asyncio
import threading

import ipywidgets as w

from .. import charts
from ..errors import QRAInputError
from ..limits import check_plan
from ..report.app_html import agreement_table, plan_table
from ..report.html import escape
from . import tables
from .annotation_cards import split_list
from .common import Status, button, guarded, labelled, run_reported
from .interval_commands import plan_designs
from .results import clear_figure, show_figure
from .state import AppState, IntervalsComputed, IntervalsDropped

#: Simulated reproductions per design in the Plan box (AppState.plan's default).
PLAN_RUNS = 3


def _kernel_loop():
    """The running event loop of the calling thread (the kernel's, in a callback), else None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class Background:
    """One background job at a time: ``start(work, done)`` runs ``work()`` in a thread, then
    ``done(result_or_exception)`` on the kernel's loop (in the thread when there is no loop)."""

    def __init__(self):
        self.thread: threading.Thread | None = None
        self.cancel = threading.Event()

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def start(self, work, done) -> None:
        loop = _kernel_loop()
        self.cancel = threading.Event()

        def body():
            try:
                result = work()
            except Exception as error:  # noqa: BLE001 - handed to ``done``, which reports it
                result = error
            if loop is not None and loop.is_running():
                loop.call_soon_threadsafe(done, result)
            else:
                done(result)

        self.thread = threading.Thread(target=body, daemon=True, name="qra-widgets-background")
        self.thread.start()

    def join(self, timeout: float | None = None) -> None:
        if self.thread is not None:
            self.thread.join(timeout)


def interval_table(assessment) -> str:
    """The QRA++ template with each interval after its value ("12.01 [9.8, 14.3]"), in the template's style."""
    return tables.interval_template(assessment)


class UncertaintyView:
    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.replicates = w.BoundedIntText(value=2000, min=10, max=100_000, layout=w.Layout(width="8em"))
        self.seed = w.IntText(value=1, layout=w.Layout(width="8em"))
        self.method = w.Dropdown(
            options=[("percentile", "percentile"), ("BCa (Efron & Tibshirani 1993)", "bca")],
            value="percentile",
            layout=w.Layout(width="auto"),
        )
        self.resample = w.Dropdown(
            options=[("items", "items"), ("items and raters", "items+raters"), ("systems", "systems")],
            value="items",
            layout=w.Layout(width="auto"),
        )
        self.compute = button("Compute intervals", "qra-compute-intervals", primary=True)
        self.cancel = button("Cancel", "qra-cancel-intervals")
        self.cancel.disabled = True
        self.progress = w.IntProgress(value=0, min=0, max=1, description="", layout=w.Layout(width="20em"))
        self.progress.add_class("qra-interval-progress")
        self.message = w.HTML()
        self.message.add_class("qra-interval-message")
        self.intervals = w.HTML()
        self.intervals.add_class("qra-intervals")
        self.cv_chart = w.Output()
        self.cv_chart.add_class("qra-interval-chart")
        self.agreement = w.HTML()
        self.agreement.add_class("qra-agreement-box")
        self.plan_items = w.Text(value="100, 200, 400", layout=w.Layout(width="12em"))
        self.plan_raters = w.Text(value="2, 3", layout=w.Layout(width="8em"))
        self.plan_replicates = w.BoundedIntText(value=200, min=10, max=10_000, layout=w.Layout(width="7em"))
        self.plan_design = w.Dropdown(
            options=["new items", "same items"], value="new items", layout=w.Layout(width="9em")
        )
        self.plan_button = button("Plan", "qra-plan")
        self.plan_progress = w.IntProgress(value=0, min=0, max=1, layout=w.Layout(width="20em"))
        self.plan_table = w.HTML()
        self.plan_table.add_class("qra-plan-table")
        self.plan_chart = w.Output()
        self.plan_chart.add_class("qra-plan-chart")
        self.job = Background()
        self.plan_job = Background()
        self.compute.on_click(self.on_compute)
        self.cancel.on_click(self.on_cancel)
        self.plan_button.on_click(self.on_plan)
        state.on("scores", self.refresh)
        state.on("study", self.on_study)
        self.widget = w.VBox(
            [
                w.HTML(
                    "<h4>How sure is each number?</h4><p>A bootstrap resamples the items within each system (the same items "
                    "jointly when the experiments rated the same ones) and recomputes every measure. The same seed gives the "
                    "same intervals. Editing a score stops a running computation; intervals are never shown for scores "
                    "they were not computed from.</p>"
                ),
                w.HBox(
                    [
                        labelled("Replicates (B)", self.replicates, "8em"),
                        labelled("Seed", self.seed, "3em"),
                        labelled("Interval", self.method, "5em"),
                        labelled("Resample", self.resample, "6em"),
                    ],
                    layout=w.Layout(flex_flow="row wrap", grid_gap="0.5em"),
                ),
                w.HBox(
                    [self.compute, self.cancel, self.progress],
                    layout=w.Layout(flex_flow="row wrap", align_items="center"),
                ),
                self.message,
                self.intervals,
                self.cv_chart,
                self.agreement,
                w.HTML(
                    "<h4>Plan a reproduction</h4><p>From the original experiment's ratings: the expected width of the 95% "
                    "interval of CV* and of the new team's α, for each number of items and of raters per item, with its "
                    "spread over the simulated reproductions (sd, 10th and 90th percentile). <i>same items</i>: the "
                    "reproduction rates the original's items.</p>"
                ),
                w.HBox(
                    [
                        labelled("Items", self.plan_items, "4em"),
                        labelled("Raters per item", self.plan_raters, "8em"),
                        labelled("Design", self.plan_design, "4em"),
                        labelled("Replicates", self.plan_replicates, "6em"),
                        self.plan_button,
                        self.plan_progress,
                    ],
                    layout=w.Layout(flex_flow="row wrap", align_items="center", grid_gap="0.5em"),
                ),
                self.plan_table,
                self.plan_chart,
            ]
        )
        self.widget.add_class("qra-uncertainty-tab")
        self.refresh()

    # ------------------------------------------------------------------ rendering

    def refresh(self, event=None) -> None:
        # The message is written last: once the page shows it, the table and chart above it are there
        # too (each widget's update reaches the browser in the order it was made).
        result, message = self.state.assessment, None
        if isinstance(event, IntervalsComputed | IntervalsDropped):
            message = f"<p>{escape(event.message)}</p>"
            self.status.ok(event.message)  # announced on the status line too, whichever tab is open
        elif self.job.running:  # an edit during a run: the run stops itself (it is stale); say so now
            self.job.cancel.set()
            message = "<p>The study changed: the running interval computation is being stopped.</p>"
        elif result is not None and not result.bootstrap_info and self.message.value and event is not None:
            message = ""  # an edit dropped the intervals the message announced
        if result is None:
            self.intervals.value = (
                f"<p class='qra-not-assessed'>Not assessed yet: {escape(self.state.assessment_problem)}</p>"
            )
            clear_figure(self.cv_chart)
        elif result.bootstrap_info:
            self.intervals.value = interval_table(result)
            show_figure(self.cv_chart, charts.cv_by_system(result))
        else:
            self.intervals.value = "<p>No intervals yet: choose B and a seed, then Compute intervals.</p>"
            clear_figure(self.cv_chart)
        self.agreement.value = agreement_table(result) if result is not None and self.state.study.ratings else ""
        if message is not None:
            self.message.value = message

    def on_study(self, event=None) -> None:
        self.plan_table.value = ""
        clear_figure(self.plan_chart)

    # ------------------------------------------------------------------ the bootstrap

    @guarded(lambda self: self.status)
    def on_compute(self, _=None) -> None:
        if self.job.running:
            raise QRAInputError("intervals: a computation is already running (Cancel it first)")
        B, seed = int(self.replicates.value), int(self.seed.value)
        method, resample = self.method.value, self.resample.value
        run = self.state.bootstrap_request()
        self.progress.max, self.progress.value = B, 0
        self.compute.disabled, self.cancel.disabled = True, False
        self.message.value = f"<p>Computing {B} bootstrap replicates…</p>"
        self.status.ok(f"Computing {B} bootstrap replicates for the intervals…")
        job = self.job

        def work():
            return run.compute(
                B,
                seed,
                ci_method=method,
                resample=resample,
                progress=lambda done: setattr(self.progress, "value", done),
                cancelled=lambda: job.cancel.is_set(),
            )

        def done(result):
            self.compute.disabled, self.cancel.disabled = False, True
            if isinstance(result, Exception):
                run_reported(self.status, _raise, result)
                self.message.value = ""
                return
            run_reported(self.status, self.state.apply_intervals, run, result)

        job.start(work, done)

    @guarded(lambda self: self.status)
    def on_cancel(self, _=None) -> None:
        self.job.cancel.set()
        self.message.value = "<p>Cancelling…</p>"

    # ------------------------------------------------------------------ the planner

    @guarded(lambda self: self.status)
    def on_plan(self, _=None) -> None:
        if self.plan_job.running:
            raise QRAInputError("plan: a plan is already being computed")
        items = [_whole(v, "plan: items") for v in split_list(self.plan_items.value)]
        raters = [_whole(v, "plan: raters per item") for v in split_list(self.plan_raters.value)]
        B = int(self.plan_replicates.value)
        design = self.plan_design.value
        if not self.state.study.ratings:
            raise QRAInputError("plan: needs a study with item-level ratings (load them on the Annotations tab)")
        check_plan(self.state.study, items, raters, B, PLAN_RUNS)  # the default limits: the page cannot raise them
        self.plan_progress.max, self.plan_progress.value = max(1, len(items) * len(raters)), 0
        self.plan_button.disabled = True
        self.plan_table.value = "<p>Simulating reproductions…</p>"

        def work():
            return plan_designs(
                self.state.study,
                self.state.conventions,
                items,
                raters,
                B=B,
                runs=PLAN_RUNS,
                design=design,
                progress=lambda done, _total: setattr(self.plan_progress, "value", done),
                cancelled=lambda: self.plan_job.cancel.is_set(),
            )

        def done(result):
            self.plan_button.disabled = False
            if isinstance(result, Exception):
                self.plan_table.value = ""
                run_reported(self.status, _raise, result)
                return
            self.show_plan(result)

        self.plan_job.start(work, done)

    def show_plan(self, plan) -> None:
        self.plan_table.value = plan_table(plan)
        show_figure(self.plan_chart, charts.plan_chart(plan))


def _raise(error: Exception):
    raise error


def _whole(text: str, field: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise QRAInputError(f"{field}: {text!r} is not a whole number") from None
