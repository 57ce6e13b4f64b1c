"""Side by side tab: the forest plot of one criterion (every system, or one), its pooled
estimate, prediction interval and heterogeneity, the consistency verdicts of each reproduction
with the original within a margin the user gives (recorded with the verdicts), the
replication-success matrix (seven criteria side by side) and the rank intervals.  The numbers come from :mod:`qra_widgets.meta` (on ``state.assessment``) and the
figures from :mod:`qra_widgets.charts`; this module only renders them.
"""

from __future__ import annotations

import ipywidgets as w

from .. import charts
from ..meta import consistency, forest, leave_one_out, rank_intervals
from ..replication import replication_success
from ..report.app_html import influence_note, pooled_summary, verdict_table
from ..report.html import escape
from .common import Status, button, guarded, labelled
from .results import clear_figure, show_figure
from .state import AppState

ALL_SYSTEMS = "(every system)"
METHODS = (("REML", "reml"), ("DerSimonian–Laird", "dl"))
CI_METHODS = (("Knapp–Hartung (t, k − 1)", "hksj"), ("normal (z)", "z"))
RANK_B, RANK_SEED = 500, 1


def default_margin(criterion) -> float:
    """5% of the criterion's scale range (0.2 on 1..5), else 0.1: the margin offered first."""
    if criterion.scale_max is None:
        return 0.1
    return round(0.05 * (criterion.scale_max - criterion.scale_min), 6)


class SideBySideView:
    """Forest plots, consistency verdicts and rank intervals of the study being edited."""

    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.criterion = w.Dropdown(layout=w.Layout(width="16em"))
        self.system = w.Dropdown(layout=w.Layout(width="16em"))
        self.method = w.Dropdown(options=METHODS, value="reml", layout=w.Layout(width="14em"))
        self.ci_method = w.Dropdown(options=CI_METHODS, value="hksj", layout=w.Layout(width="16em"))
        self.ci_method.add_class("qra-ci-method")
        self.margin = w.FloatText(value=0.2, step=0.05, layout=w.Layout(width="8em"))
        self.margin.add_class("qra-margin")
        self.ranks_button = button("Compute rank intervals", "qra-ranks-run")
        self.summary = w.HTML()
        self.forest = w.Output()
        self.verdicts = w.HTML()
        self.verdict_matrix = w.Output()
        self.verdict_matrix.add_class("qra-verdict-matrix")
        self.ranks = w.Output()
        self.ranks_note = w.HTML()
        for control in (self.criterion, self.system, self.method, self.ci_method, self.margin):
            control.observe(self.on_change, names="value")
        self.ranks_button.on_click(self.on_ranks)
        state.on("scores", self.refresh)
        self.widget = w.VBox(
            [
                w.HTML(
                    "<h4>Reproductions side by side</h4><p>Each experiment's value with its 95% interval (from the items' "
                    "mean ratings), the random-effects pooled estimate, and the prediction interval for a new reproduction.</p>"
                ),
                w.HBox(
                    [
                        labelled("Criterion", self.criterion, "6em"),
                        labelled("System", self.system, "5em"),
                        labelled("Estimator", self.method, "6em"),
                        labelled("Interval", self.ci_method, "5em"),
                    ],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                self.summary,
                self.forest,
                w.HTML(
                    "<h4>Consistency with the original</h4><p>Inside the prediction interval of Patil, Peng &amp; Leek (2016), "
                    "and equivalent within ±margin (two one-sided tests, α = 0.05). The margin is in the criterion's scale units.</p>"
                ),
                labelled("Margin (±)", self.margin, "7em"),
                self.verdicts,
                w.HTML(
                    "<h4>Replication success by criterion</h4><p>Each reproduction (and the reproductions pooled) against "
                    "the original by seven criteria; the effect is the system's difference from the middle of the scale. "
                    "Green: success by that criterion, red: not, blank: no standard error. Hover a cell for its numbers.</p>"
                ),
                self.verdict_matrix,
                w.HTML("<h4>Rank intervals</h4>"),
                self.ranks_button,
                self.ranks_note,
                self.ranks,
            ]
        )
        self.widget.add_class("qra-sidebyside")
        self.verdicts.add_class("qra-verdicts-box")
        self._updating = False
        self.refresh()

    def refresh(self, event=None) -> None:
        study = self.state.study
        self._updating = True
        try:
            names = study.qc_names
            self.criterion.options = names
            if names and self.criterion.value not in names:
                self.criterion.value = names[0]
                self.margin.value = default_margin(study.quality_criterion(names[0]))
            self.system.options = [ALL_SYSTEMS, *study.systems]
            if self.system.value not in self.system.options:
                self.system.value = ALL_SYSTEMS
        finally:
            self._updating = False
        clear_figure(self.ranks)
        self.ranks_note.value = ""
        self.render()

    def on_change(self, change) -> None:
        if self._updating:
            return
        if change["owner"] is self.criterion and change["new"]:
            self._updating = True
            self.margin.value = default_margin(self.state.study.quality_criterion(change["new"]))
            self._updating = False
        self.render()

    @guarded(lambda self: self.status)
    def render(self) -> None:
        assessment = self.state.assessment
        if assessment is None or not self.criterion.value:
            self.summary.value = "<p>Enter the results of at least two experiments to see them side by side.</p>"
            clear_figure(self.forest)
            self.verdicts.value = ""
            return
        system = None if self.system.value == ALL_SYSTEMS else self.system.value
        frame = forest(
            assessment,
            quality_criterion=self.criterion.value,
            system=system,
            method=self.method.value,
            ci_method=self.ci_method.value,
        )
        influence = leave_one_out(
            assessment,
            quality_criterion=self.criterion.value,
            system=system,
            method=self.method.value,
            ci_method=self.ci_method.value,
        )
        self.summary.value = pooled_summary(frame) + influence_note(influence)
        show_figure(self.forest, charts.forest_figure_json(frame, influence=influence))
        clear_figure(self.verdict_matrix)
        if not any(e.role == "original" for e in self.state.study.experiments):
            self.verdicts.value = (
                "<p>Mark one experiment as the original (Experiments tab) to compare the reproductions with it.</p>"
            )
            return
        if not (self.margin.value > 0):
            self.verdicts.value = "<p>Give a margin above 0.</p>"
            return
        if self.state.study.quality_criterion(self.criterion.value).scale_max is None:
            return  # no scale middle to measure an effect from (replication_success needs null= or baseline=)
        success = replication_success(
            assessment, quality_criterion=self.criterion.value, margin=float(self.margin.value), system=system
        )
        if len(success):
            show_figure(self.verdict_matrix, charts.verdict_figure_json(success))
        verdicts = consistency(assessment, margin=float(self.margin.value), quality_criterion=self.criterion.value)
        self.verdicts.value = (
            f"<p class='qra-note'>Margin ±{self.margin.value:g} (scale units of "
            f"{escape(self.criterion.value)}).</p>" + verdict_table(verdicts, system)
        )

    @guarded(lambda self: self.status)
    def on_ranks(self, _=None) -> None:
        if not self.criterion.value or self.state.assessment is None:
            self.ranks_note.value = "<p>Nothing to rank yet.</p>"
            return
        frame = rank_intervals(self.state.study, quality_criterion=self.criterion.value, B=RANK_B, seed=RANK_SEED)
        self.ranks_note.value = (
            f"<p class='qra-note'>Bootstrap over each system's items, B = {RANK_B}, seed {RANK_SEED}.</p>"
        )
        show_figure(self.ranks, charts.rank_intervals_json(frame))
