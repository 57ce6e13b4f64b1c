"""Assessment, Charts and Compare tabs: they display what ``assess``, ``compare`` and
``charts`` compute; nothing is computed here."""

from __future__ import annotations

import html

import ipywidgets as w
import plotly.graph_objects as go

from .. import charts
from ..compare import compare_subsets, experiment_attributes
from .common import Status, download_link, guarded, safe_file_stem, set_options
from .state import AppState


def show_figure(output: w.Output, figure: go.Figure) -> None:
    """Show a figure through the Plotly mime renderer (its JS is cached by the browser, unlike
    a FigureWidget's, which is sent over the websocket).  The Output's contents are replaced
    in one state update, as ``Output.append_display_data`` does, so this works from any
    callback (no kernel output capture) and the page never shows a half-cleared chart."""
    output.outputs = ({"output_type": "display_data", "metadata": {},
                       "data": {"application/vnd.plotly.v1+json": figure.to_plotly_json()}},)


def clear_figure(output: w.Output) -> None:
    """Remove a figure shown by :func:`show_figure` (the same one-update way)."""
    output.outputs = ()


class AssessmentView:
    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.table = w.HTML()
        self.table.add_class("qra-assessment")
        self.narrative_qc = w.Dropdown(description="Criterion")
        self.narrative_system = w.Dropdown(description="System")
        self.narrative = w.HTML()
        self.narrative.add_class("qra-narrative")
        self.downloads = w.HTML()
        self.downloads.add_class("qra-downloads")
        self.narrative_qc.observe(lambda _: self.sync_systems(), "value")
        self.narrative_system.observe(lambda _: self.show_narrative(), "value")
        state.on("scores", self.refresh)
        self.widget = w.VBox([w.HTML("<h4>QRA++ reproducibility assessment</h4>"), self.table,
                              w.HTML("<h4>Report sentence (Belz 2021, §5)</h4>"),
                              w.HBox([self.narrative_qc, self.narrative_system]), self.narrative,
                              w.HTML("<h4>Download</h4>"), self.downloads])
        self.refresh()

    def refresh(self) -> None:
        result = self.state.assessment
        if result is None:
            self.table.value = f"<p class='qra-not-assessed'>Not assessed yet: {html.escape(self.state.assessment_problem)}</p>"
            self.downloads.value, self.narrative.value = "", ""
            return
        self.table.value = result._repr_html_()
        stem = safe_file_stem(self.state.study.name or self.state.study.id)
        self.downloads.value = " · ".join([
            download_link(result.to_markdown(), f"{stem}-qra.md", "text/markdown", "Markdown"),
            download_link(result.to_latex(), f"{stem}-qra.tex", "application/x-tex", "LaTeX"),
            download_link(result.to_csv(), f"{stem}-qra.csv", "text/csv", "CSV (tidy)"),
        ])
        set_options(self.narrative_qc, list(dict.fromkeys(qc for qc, _ in result.cv)))
        self.sync_systems()

    def sync_systems(self) -> None:
        result = self.state.assessment
        set_options(self.narrative_system, [s for q, s in (result.cv if result else {}) if q == self.narrative_qc.value])
        self.show_narrative()

    def show_narrative(self) -> None:
        result = self.state.assessment
        key = (self.narrative_qc.value, self.narrative_system.value)
        self.narrative.value = f"<p><i>{html.escape(result.narrative(*key))}</i></p>" if result and key in result.cv else ""


class ChartsView:
    """CV* by system, P and W by criterion, and scores by experiment, each rendered through
    Plotly's mime renderer and redrawn whole on every change.

    No FigureWidget: with plotly >= 6 (anywidget) a FigureWidget's browser view
    intermittently missed the update that adds its traces and stayed blank (plotly.py
    #4998 and its kin), and each one sends the whole plotly.js (~5 MB) over the websocket
    on every page load.  A mime-rendered figure always shows the figure it was given; the
    price is that zoom resets when the scores change.  ``cv_figure`` is the figure shown.
    """

    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.cv_figure = go.Figure()
        self.cv_chart = w.Output()
        self.cv_chart.add_class("qra-cv-chart")
        self.guides = w.Checkbox(description="Show the QRA++ §6.1 guide lines (12 human, 1 metric)", value=False, indent=False,
                                 layout=w.Layout(width="auto"))
        self.score_qc = w.Dropdown(description="Criterion")
        self.p_and_w = w.Output()
        self.scores = w.Output()
        self.save_buttons = {name: w.Button(description=f"Save {name} chart as HTML", icon="download")
                             for name in ("CV*", "P and W", "scores")}
        self.saved = w.HTML()
        self.guides.observe(lambda _: self.refresh(), "value")
        self.score_qc.observe(lambda _: self.show_scores(), "value")
        for name, button in self.save_buttons.items():
            button.on_click(lambda _, n=name: self.on_save(n))
        state.on("scores", self.refresh)
        state.on("study", self.on_structure)
        self.widget = w.VBox([self.guides, self.cv_chart, self.p_and_w, self.score_qc, self.scores,
                              w.HBox(list(self.save_buttons.values())), self.saved])
        self.widget.add_class("qra-charts")
        self.on_structure()

    def on_structure(self) -> None:
        set_options(self.score_qc, self.state.study.qc_names)  # the "scores" event that follows redraws

    def figures(self) -> dict[str, go.Figure]:
        result = self.state.assessment
        if result is None:
            return {}
        figures = {"CV*": charts.cv_by_system(result, guides=self.guides.value), "P and W": charts.p_and_w_by_qc(result)}
        if self.score_qc.value:
            figures["scores"] = charts.scores_by_experiment(self.state.study, self.score_qc.value)
        return figures

    def refresh(self) -> None:
        """Redraw after every score change; each figure is built once (the scores chart by
        :meth:`show_scores`, not also here)."""
        result = self.state.assessment
        if result is None:
            self.cv_figure = go.Figure()
            clear_figure(self.cv_chart)
        else:
            self.cv_figure = charts.cv_by_system(result, guides=self.guides.value)
            show_figure(self.cv_chart, self.cv_figure)
            show_figure(self.p_and_w, charts.p_and_w_by_qc(result))
        self.show_scores()

    def show_scores(self) -> None:
        if self.score_qc.value and self.score_qc.value in self.state.study.qc_names:
            show_figure(self.scores, charts.scores_by_experiment(self.state.study, self.score_qc.value))

    @guarded(lambda self: self.status)
    def on_save(self, name: str) -> None:
        figure = self.figures().get(name)
        if figure is None:
            self.saved.value = "<p>Nothing to save yet.</p>"
            return
        stem = safe_file_stem(self.state.study.name or self.state.study.id)
        self.saved.value = download_link(charts.to_html(figure), f"{stem}-{safe_file_stem(name)}.html", "text/html",
                                         f"Download the {name} chart (interactive HTML)")


class CompareView:
    """Similarity of the experiments and the QRA++ Table 6 subset comparison."""

    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.attribute = w.SelectMultiple(description="Group by", rows=6, layout=w.Layout(width="520px"))
        self.run = w.Button(description="Compare subsets", icon="columns")
        self.table = w.HTML()
        self.chart = w.Output()
        self.heatmap = w.Output()
        self.save_heatmap = w.Button(description="Save heatmap as HTML", icon="download")
        self.save_comparison = w.Button(description="Save comparison chart as HTML", icon="download")
        self.saved = w.HTML()
        self.figures: dict[str, go.Figure] = {}
        self.run.on_click(self.on_run)
        self.save_heatmap.on_click(lambda _: self.on_save("heatmap"))
        self.save_comparison.on_click(lambda _: self.on_save("subsets"))
        state.on("study", self.refresh)
        self.widget = w.VBox([
            w.HTML("<h4>How similar are the experiments?</h4>"), self.heatmap,
            w.HTML("<h4>Subsets of experiments (QRA++ Table 6)</h4><p>Group the experiments by the value of one or more "
                   "properties or conditions; each group with at least two experiments is assessed.</p>"),
            w.HBox([self.attribute, self.run]), self.table, self.chart,
            w.HBox([self.save_heatmap, self.save_comparison]), self.saved,
        ])
        self.refresh()

    def refresh(self) -> None:
        names = sorted({n for e in self.state.study.experiments for n in experiment_attributes(e)})
        self.attribute.options = names
        self.figures = {"heatmap": charts.property_heatmap(self.state.study)}
        show_figure(self.heatmap, self.figures["heatmap"])
        self.table.value = "" if names else "<p>Give the experiments properties or conditions (Experiments tab) to compare subsets.</p>"
        clear_figure(self.chart)

    @guarded(lambda self: self.status)
    def on_run(self, _=None) -> None:
        if not self.attribute.value:
            self.table.value = "<p>Choose at least one property or condition to group by.</p>"
            return
        comparison = compare_subsets(self.state.study, by=list(self.attribute.value))
        skipped = "".join(f"<li>{html.escape(g)}: {html.escape(r)}</li>" for g, r in comparison.skipped.items())
        self.table.value = comparison.table.round(3).to_html(escape=True) + (f"<p>Not assessed:</p><ul>{skipped}</ul>" if skipped else "")
        if comparison.assessments:
            self.figures["subsets"] = charts.subset_comparison(comparison)
            show_figure(self.chart, self.figures["subsets"])
        else:
            self.figures.pop("subsets", None)
            clear_figure(self.chart)

    @guarded(lambda self: self.status)
    def on_save(self, name: str) -> None:
        if name not in self.figures:
            self.saved.value = "<p>Run a comparison first.</p>"
            return
        stem = safe_file_stem(self.state.study.name or self.state.study.id)
        self.saved.value = download_link(charts.to_html(self.figures[name]), f"{stem}-{name}.html", "text/html",
                                         f"Download the {name} chart (interactive HTML)")
