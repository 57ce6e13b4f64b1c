"""Assessment, Charts and Compare tabs: they display what ``assess``, ``compare`` and
``charts`` compute; nothing is computed here."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import ipywidgets as w

from .. import charts
from ..compare import compare_subsets, experiment_attributes, property_differences
from ..errors import QRAInputError
from ..report.html import escape
from . import tables
from .common import Status, button, guarded, labelled, run_reported, set_options
from .datatable import DownloadButton, download_name
from .state import AppState

if TYPE_CHECKING:  # plotly is imported by the first figure built (an empty study has none)
    import plotly.graph_objects as go


def show_figure(output: w.Output, figure: go.Figure | dict) -> None:
    """Show a figure (a ``go.Figure``, or its plain Plotly JSON from a ``charts.*_json``
    builder) through the Plotly mime renderer (its JS is cached by the browser, unlike
    a FigureWidget's, which is sent over the websocket).  The Output's contents are replaced
    in one state update, as ``Output.append_display_data`` does, so this works from any
    callback (no kernel output capture) and the page never shows a half-cleared chart."""
    spec = figure if isinstance(figure, dict) else figure.to_plotly_json()
    output.outputs = (
        {"output_type": "display_data", "metadata": {}, "data": {"application/vnd.plotly.v1+json": spec}},
    )


def clear_figure(output: w.Output) -> None:
    """Remove a figure shown by :func:`show_figure` (the same one-update way)."""
    output.outputs = ()


def assessment_with(study, conventions: str):
    """``study`` assessed with other conventions (the side-by-side table); None if not assessable."""
    from ..assess import assess

    try:
        return assess(study, conventions=conventions)
    except QRAInputError:
        return None


class AssessmentView:
    """Headline cards, the conventions picker (and both presets side by side), the template
    table, a paper example's published numbers, the report sentence and downloads (built
    when clicked, never on every edit)."""

    DOWNLOADS: ClassVar[dict[str, tuple[str, str]]] = {
        "Markdown": ("md", "text/markdown"),
        "LaTeX": ("tex", "application/x-tex"),
        "CSV (tidy)": ("csv", "text/csv"),
        "JSON (tidy)": ("json", "application/json"),
    }

    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.cards = w.HTML()
        self.cards.add_class("qra-headline")
        self.conventions = w.Dropdown(
            options=[("QRA++ (papers as published)", "qrapp"), ("QRA3 (organisers' tool)", "qra3")],
            value="qrapp" if state.conventions.name == "qrapp" else "qra3",
            layout=w.Layout(width="auto"),
        )
        self.conventions.add_class("qra-conventions")
        self.compare_presets = w.Checkbox(
            description="show both presets side by side", value=False, indent=False, layout=w.Layout(width="auto")
        )
        self.compare_presets.add_class("qra-compare-presets")
        self.presets = w.HTML()
        self.presets.add_class("qra-presets")
        self.table = w.HTML()
        self.table.add_class("qra-assessment")
        self.published = w.HTML()
        self.published.add_class("qra-published-box")
        self.narrative_qc = w.Dropdown(layout=w.Layout(width="auto"))
        self.narrative_system = w.Dropdown(layout=w.Layout(width="auto"))
        self.narrative = w.HTML()
        self.narrative.add_class("qra-narrative")
        self.download_buttons = {
            name: DownloadButton(
                name, lambda n=name: self.download(n), status=status, tooltip=f"Download the assessment as {name}"
            )
            for name in self.DOWNLOADS
        }
        for name, widget in self.download_buttons.items():
            widget.add_class(f"qra-download-{self.DOWNLOADS[name][0]}")
        self.conventions.observe(self.on_conventions, "value")
        self.compare_presets.observe(lambda _: self.show_presets(), "value")
        self.narrative_qc.observe(lambda _: self.sync_systems(), "value")
        self.narrative_system.observe(lambda _: self.show_narrative(), "value")
        state.on("scores", self.refresh)
        self.widget = w.VBox(
            [
                self.cards,
                w.HBox(
                    [labelled("Conventions", self.conventions, "8em"), self.compare_presets],
                    layout=w.Layout(flex_flow="row wrap", align_items="center", grid_gap="1em"),
                ),
                self.presets,
                self.table,
                self.published,  # the table's caption is its title (printed once)
                w.HTML("<h4>Report sentence (Belz 2021, §5)</h4>"),
                w.HBox(
                    [labelled("Criterion", self.narrative_qc, "6em"), labelled("System", self.narrative_system, "5em")],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                self.narrative,
                w.HTML("<h4>Download the assessment</h4>"),
                w.HBox(list(self.download_buttons.values()), layout=w.Layout(flex_flow="row wrap")),
            ]
        )
        self.widget.add_class("qra-assessment-tab")
        self.refresh()

    def refresh(self, event=None) -> None:
        result = self.state.assessment
        if result is None:
            problem = self.state.assessment_problem
            self.cards.value = ""
            self.table.value = f"<p class='qra-not-assessed'>Not assessed yet: {escape(problem)}</p>"
            self.narrative.value = self.published.value = self.presets.value = ""
            set_options(self.narrative_qc, [])
            return
        if self.conventions.value != self.state.conventions.name and self.state.conventions.name in ("qrapp", "qra3"):
            self.conventions.value = self.state.conventions.name  # a loaded study may carry its conventions
        self.cards.value = tables.headline_cards(result)
        self.table.value = tables.template_table(result, css="qw-assessment-table")  # the class browser tests read
        records = self.state.study.metadata.get("published_values") or []
        self.published.value = (
            ("<h4>Published beside computed</h4>" + tables.published_comparison(result, records)) if records else ""
        )
        set_options(self.narrative_qc, list(dict.fromkeys(qc for qc, _ in result.cv)))
        self.sync_systems()
        self.show_presets()

    def on_conventions(self, change) -> None:
        if change["new"] == self.state.conventions.name:
            return
        run_reported(self.status, lambda: self.status.ok(self.state.set_conventions(change["new"]).message))

    @guarded(lambda self: self.status)
    def show_presets(self) -> None:
        if not self.compare_presets.value or self.state.assessment is None:
            self.presets.value = ""
            return
        first, second = assessment_with(self.state.study, "qrapp"), assessment_with(self.state.study, "qra3")
        self.presets.value = tables.side_by_side(first, second) if first and second else ""

    @guarded(lambda self: self.status)
    def sync_systems(self) -> None:
        result = self.state.assessment
        set_options(
            self.narrative_system, [s for q, s in (result.cv if result else {}) if q == self.narrative_qc.value]
        )
        self.show_narrative()

    @guarded(lambda self: self.status)
    def show_narrative(self) -> None:
        result = self.state.assessment
        key = (self.narrative_qc.value, self.narrative_system.value)
        self.narrative.value = f"<p><i>{escape(result.narrative(*key))}</i></p>" if result and key in result.cv else ""

    def download(self, name: str) -> tuple[str, str, str]:
        """The file a download button saves: ``<study id>-assessment-<date>.<ext>``, built when clicked."""
        result = self.state.assessment
        if result is None:
            raise QRAInputError(f"download: nothing to download yet ({self.state.assessment_problem})")
        ext, mime = self.DOWNLOADS[name]
        text = {"md": result.to_markdown, "tex": result.to_latex, "csv": result.to_csv, "json": result.to_json}[ext]()
        return download_name(self.state.study.id, "assessment", ext), mime, text


class ChartsView:
    """CV* by system, P and W by criterion, and scores by experiment, each rendered through
    Plotly's mime renderer and redrawn whole on every change.

    An edit builds the figures as plain Plotly JSON (``charts.*_json``), which is all the
    mime renderer takes: no ``go.Figure`` is built per edit (it deep-copies every trace
    twice and leaves reference cycles, garbage that made the full collections of a big
    study's kernel part of an edit's time).  ``cv_figure`` builds the ``go.Figure`` of the
    JSON shown when asked for.

    No FigureWidget: with plotly >= 6 (anywidget) a FigureWidget's browser view
    intermittently missed the update that adds its traces and stayed blank (plotly.py
    #4998 and its kin), and each one sends the whole plotly.js (~5 MB) over the websocket
    on every page load.  A mime-rendered figure always shows the figure it was given; the
    price is that zoom resets when the scores change.  ``cv_figure`` is the figure shown.
    Every chart is drawn when the view is built (``Dashboard(study)`` shows them at once).
    """

    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self._cv_json: dict | None = None  # the CV* figure shown, as Plotly JSON
        self._cv_figure = None  # its go.Figure, built when first asked for (an empty study imports no plotly)
        self.cv_chart = w.Output()
        self.cv_chart.add_class("qra-cv-chart")
        self.guides = w.Checkbox(
            description="Show the QRA++ §6.1 guide lines (12 human, 1 metric)",
            value=False,
            indent=False,
            layout=w.Layout(width="auto"),
        )
        self.score_qc = w.Dropdown(layout=w.Layout(width="auto"))
        self.p_and_w = w.Output()
        self.p_and_w.add_class("qra-pw-chart")
        self.scores = w.Output()
        self.scores.add_class("qra-scores-chart")
        self.empty = w.HTML()
        self.save_buttons = {
            name: DownloadButton(f"Save the {name} chart as HTML", lambda n=name: self.chart_file(n), status=status)
            for name in ("CV*", "P and W", "scores")
        }
        for i, widget in enumerate(self.save_buttons.values()):
            widget.add_class(f"qra-save-chart-{i}")
        self.saved = w.HTML()
        self.guides.observe(lambda _: self.refresh(), "value")
        self.score_qc.observe(lambda _: self.show_scores(), "value")
        state.on("study", self.on_structure)
        state.on("scores", self.refresh)
        self.widget = w.VBox(
            [
                self.empty,
                self.guides,
                self.cv_chart,
                self.p_and_w,
                labelled("Scores of criterion", self.score_qc),
                self.scores,
                w.HBox(list(self.save_buttons.values()), layout=w.Layout(flex_flow="row wrap")),
                self.saved,
            ]
        )
        self.widget.add_class("qra-charts")
        set_options(self.score_qc, self.state.study.qc_names)
        self.refresh()

    @property
    def cv_figure(self) -> go.Figure:
        """The CV* figure shown (an empty figure before the first assessment)."""
        if self._cv_figure is None:
            self._cv_figure = charts.as_figure(self._cv_json or {})
        return self._cv_figure

    def on_structure(self, event=None) -> None:
        self._quiet = True  # the "scores" part of the same event redraws: do not draw the scores chart twice
        try:
            set_options(self.score_qc, self.state.study.qc_names)
        finally:
            self._quiet = False

    def figures(self) -> dict[str, go.Figure]:
        result = self.state.assessment
        if result is None:
            return {}
        figures = {
            "CV*": charts.cv_by_system(result, guides=self.guides.value),
            "P and W": charts.p_and_w_by_qc(result),
        }
        if self.score_qc.value:
            figures["scores"] = charts.scores_by_experiment(self.state.study, self.score_qc.value)
        return figures

    @guarded(lambda self: self.status)
    def refresh(self, event=None) -> None:
        """Redraw after every change; each figure is built once (the scores chart by
        :meth:`show_scores`, not also here)."""
        result = self.state.assessment
        self.saved.value = ""
        self._cv_figure = None
        if result is None:
            self._cv_json = None
            for output in (self.cv_chart, self.p_and_w):
                clear_figure(output)
            self.empty.value = f"<p class='qra-not-assessed'>No charts yet: {escape(self.state.assessment_problem)}</p>"
        else:
            self.empty.value = ""
            self._cv_json = charts.cv_by_system_json(result, guides=self.guides.value)
            show_figure(self.cv_chart, self._cv_json)
            show_figure(self.p_and_w, charts.p_and_w_by_qc_json(result))
        self.show_scores()

    @guarded(lambda self: self.status)
    def show_scores(self) -> None:
        if getattr(self, "_quiet", False):
            return
        if self.score_qc.value and self.score_qc.value in self.state.study.qc_names and self.state.study.experiments:
            show_figure(self.scores, charts.scores_by_experiment_json(self.state.study, self.score_qc.value))
        else:
            clear_figure(self.scores)

    def chart_file(self, name: str) -> tuple[str, str, str]:
        """The interactive HTML of one chart: ``<study id>-<chart>-chart-<date>.html``, built when clicked."""
        figure = self.figures().get(name)
        if figure is None:
            raise QRAInputError(
                f"save the {name} chart: nothing to save yet ({self.state.assessment_problem or 'no scores'})"
            )
        what = {"CV*": "cv", "P and W": "p-and-w", "scores": f"scores-{self.score_qc.value}"}[name]
        return download_name(self.state.study.id, f"{what}-chart", "html"), "text/html", charts.to_html(figure)


class CompareView:
    """Similarity of the experiments and the QRA++ Table 6 subset comparison."""

    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.attribute = w.SelectMultiple(rows=6, layout=w.Layout(width="32em", max_width="100%"))
        self.run = button("Compare subsets", "qra-compare-run", primary=True)
        self.table = w.HTML()
        self.chart = w.Output()
        self.heatmap = w.Output()
        self.save_heatmap = DownloadButton(
            "Save the heatmap as HTML", lambda: self.chart_file("heatmap"), status=status
        )
        self.save_heatmap.add_class("qra-save-heatmap")
        self.save_comparison = DownloadButton(
            "Save the comparison chart as HTML", lambda: self.chart_file("subsets"), status=status
        )
        self.save_comparison.add_class("qra-save-comparison")
        self.saved = w.HTML()
        self.figures: dict[str, go.Figure] = {}
        self.run.on_click(self.on_run)
        state.on("study", self.refresh)
        self.widget = w.VBox(
            [
                w.HTML("<h4>How similar are the experiments?</h4>"),
                self.heatmap,
                w.HTML(
                    "<h4>Subsets of experiments (QRA++ Table 6)</h4><p>Group the experiments by the value of one or more "
                    "properties or conditions; each group with at least two experiments is assessed.</p>"
                ),
                w.HBox(
                    [labelled("Group by", self.attribute, "6em"), self.run],
                    layout=w.Layout(flex_flow="row wrap", align_items="flex-end"),
                ),
                self.table,
                self.chart,
                w.HBox([self.save_heatmap, self.save_comparison], layout=w.Layout(flex_flow="row wrap")),
                self.saved,
            ]
        )
        self.refresh()

    def refresh(self, event=None) -> None:
        names = sorted({n for e in self.state.study.experiments for n in experiment_attributes(e)})
        self.attribute.options = names
        if self.state.study.experiments:
            study = self.state.study
            self.figures = {"heatmap": charts.property_heatmap(study, property_differences(study))}
            show_figure(self.heatmap, self.figures["heatmap"])
        else:  # nothing to compare: no chart (a new study's first render needs no pandas, plotly or plotly.js)
            self.figures = {}
            clear_figure(self.heatmap)
        self.table.value = (
            ""
            if names
            else "<p>Give the experiments properties or conditions (Experiments tab) to compare subsets.</p>"
        )
        clear_figure(self.chart)

    @guarded(lambda self: self.status)
    def on_run(self, _=None) -> None:
        if not self.attribute.value:
            self.table.value = "<p>Choose at least one property or condition to group by.</p>"
            return
        comparison = compare_subsets(self.state.study, by=list(self.attribute.value))
        skipped = "".join(f"<li>{escape(g)}: {escape(r)}</li>" for g, r in comparison.skipped.items())
        self.table.value = tables.subset_table(comparison) + (
            f"<p>Not assessed:</p><ul>{skipped}</ul>" if skipped else ""
        )
        if comparison.assessments:
            self.figures["subsets"] = charts.subset_comparison(comparison)
            show_figure(self.chart, self.figures["subsets"])
        else:
            self.figures.pop("subsets", None)
            clear_figure(self.chart)

    def chart_file(self, name: str) -> tuple[str, str, str]:
        """The interactive HTML of the heatmap or the subset chart: ``<study id>-<chart>-<date>.html``."""
        if name not in self.figures:
            raise QRAInputError(
                "save the heatmap: add experiments first"
                if name == "heatmap"
                else "save the comparison chart: run a comparison first"
            )
        return download_name(self.state.study.id, name, "html"), "text/html", charts.to_html(self.figures[name])
