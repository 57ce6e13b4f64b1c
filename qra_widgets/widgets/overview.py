"""The Overview tab: every study, criterion and system in the library, for shared-task organisers.

The view reads the library's stored results once (:func:`qra_widgets.overview`) when it is
opened or refreshed; filtering, sorting and paging then work on the frames in memory.  Rows
are buttons: clicking one opens that study in the other tabs.  Distributions are box plots
(outliers only as points above 300 values) and the experiment-pair property analysis is a
table and an interval chart.  No statistics happen here.
"""

from __future__ import annotations

import html
import math

import ipywidgets as w

from .. import charts
from ..overview import overview
from .common import Confirm, Status, guard_unsaved, guarded, run_reported
from .results import clear_figure, show_figure
from .state import AppState

ALL = "(all)"
LEVELS = {"studies": "Studies", "criteria": "Quality criteria", "systems": "Systems"}
COLUMNS = {  # (column, header, width)
    "studies": [("study", "study", 30), ("evaluation_type", "type", 14), ("mean CV*", "mean CV*", 9), ("P", "P", 6),
                ("W / τ", "W / τ", 6), ("α", "α", 6), ("n", "n", 3), ("systems", "sys.", 5), ("problem", "problem", 30)],
    "criteria": [("study", "study", 30), ("quality_criterion", "criterion", 22), ("evaluation_type", "type", 12),
                 ("qcet_name", "QCET criterion", 24), ("mean CV*", "mean CV*", 9), ("P", "P", 6), ("W / τ", "W / τ", 6),
                 ("α", "α", 6), ("n", "n", 3)],
    "systems": [("study", "study", 30), ("quality_criterion", "criterion", 22), ("system", "system", 22),
                ("evaluation_type", "type", 12), ("CV*", "CV*", 9), ("n", "n", 3)],
}
SORTS = {"studies": ["mean CV*", "P", "W / τ", "α", "n", "study"], "criteria": ["mean CV*", "P", "W / τ", "α", "κ", "n", "study"],
         "systems": ["CV*", "n", "study", "system"]}
FILTER_LABELS = {"evaluation_type": "evaluation type", "qcet": "QCET criterion", "result_type": "result type", "team": "team",
                 "year": "year", "track": "track", "tag": "tag"}
STYLE = ("<style>.qra-overview-row button, button.qra-overview-row {font-family: monospace; white-space: pre; "
         "text-align: left; justify-content: flex-start;} .qra-overview-head {font-family: monospace; white-space: pre; "
         "font-weight: bold;}</style>")


def _cell(value, width: int) -> str:
    if isinstance(value, float):
        text = "–" if math.isnan(value) else (f"{value:.2f}" if abs(value) >= 10 else f"{value:.3f}")
    elif isinstance(value, list):
        text = ", ".join(map(str, value))
    else:
        text = str(value)
    return (text[: width - 1] + "…" if len(text) > width else text).ljust(width)


class OverviewView:
    """Study / criterion / system tables (sortable, filterable, worst first, paginated), distributions
    and the experiment-pair property analysis, from the library's stored results."""

    PAGE_SIZE = 25

    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.data = None  # the Overview read from the library
        self.view = None  # the filtered Overview
        self.page = 0
        self.level = w.ToggleButtons(options=[(label, key) for key, label in LEVELS.items()], value="criteria")
        self.filters = {key: w.Dropdown(options=[ALL], value=ALL, description=label, style={"description_width": "initial"},
                                        layout=w.Layout(width="260px")) for key, label in FILTER_LABELS.items()}
        self.sort_by = w.Dropdown(options=SORTS["criteria"], value="mean CV*", description="Sort by", layout=w.Layout(width="220px"))
        self.worst_first = w.Checkbox(description="worst first", value=True, indent=False)
        self.update = w.Button(description="Update overview", icon="refresh")
        self.previous, self.next = w.Button(description="◀ previous"), w.Button(description="next ▶")
        self.where = w.HTML()
        self.table = w.HTML()  # the header line of the current page
        self.rows = w.VBox()
        self.row_buttons: list[w.Button] = []
        self.measure = w.Dropdown(options=["CV*", "P", "W / τ", "α"], value="CV*", description="Distribution of")
        self.by_qcet, self.by_type, self.by_year = w.Output(), w.Output(), w.Output()
        self.effects, self.effects_chart = w.HTML(), w.Output()
        self.update.add_class("qra-overview-update")
        self.level.add_class("qra-overview-level")
        self.sort_by.add_class("qra-overview-sort")
        self.worst_first.add_class("qra-overview-worst-first")
        for key, dropdown in self.filters.items():
            dropdown.add_class(f"qra-overview-filter-{key.replace('_', '-')}")
            dropdown.observe(lambda _: self.on_filter(), "value")
        self.update.on_click(self.on_update)
        self.level.observe(lambda _: self.on_level(), "value")
        self.sort_by.observe(lambda _: self.show_page(0), "value")
        self.worst_first.observe(lambda _: self.show_page(0), "value")
        self.previous.on_click(lambda _: self.show_page(self.page - 1))
        self.next.on_click(lambda _: self.show_page(self.page + 1))
        self.measure.observe(lambda _: self.show_charts(), "value")
        self.confirm = Confirm(lambda action: run_reported(self.status, action))
        self.widget = w.VBox([
            self.confirm.widget,
            w.HTML(STYLE + "<h4>All studies in the library</h4><p>Worst first by default (highest CV*, lowest P, W, α). "
                   "Click a row to open its study. Read from the results stored with each save.</p>"),
            w.HBox([self.update, self.level]), w.HBox(list(self.filters.values())[:4]), w.HBox(list(self.filters.values())[4:]),
            w.HBox([self.sort_by, self.worst_first, self.previous, self.next, self.where]), self.table, self.rows,
            w.HTML("<h4>Distributions</h4><p>Human, metric and LLM-as-judge results are shown apart, never ranked together.</p>"),
            self.measure, self.by_qcet, self.by_type, self.by_year,
            w.HTML("<h4>Why? Properties that go with poorer reproducibility (experiment pairs, QRA++ section 8)</h4>"
                   "<p>Pair CV* where two experiments of a study answer a property differently minus where they answer it the "
                   "same, with a 95% interval resampling whole studies. Too few pairs: listed, not ranked.</p>"),
            self.effects_chart, self.effects,
        ])
        self.widget.add_class("qra-overview")

    # ------------------------------------------------------------------ data

    @guarded(lambda self: self.status)
    def on_update(self, _=None) -> None:
        self.data = overview(self.state.library)
        for key, dropdown in self.filters.items():
            dropdown.options = [ALL] + self._choices(key)
            dropdown.value = ALL
        self.on_filter()
        effects = self.data.property_effects
        if len(effects) and (effects.status != "too few pairs").any():
            show_figure(self.effects_chart, charts.property_effects_chart(effects))
        else:
            clear_figure(self.effects_chart)
        self.effects.value = (effects.round(3).to_html(index=False, escape=True, na_rep="–") if len(effects) else
                              "<p>No pair of experiments answers a catalogue property in both: fill in the properties in the "
                              "Experiments tab to see which ones matter.</p>")
        self.status.ok(f"Overview of {len(self.data.studies)} studies.")

    def _choices(self, key: str) -> list[str]:
        data = self.data
        if key in ("evaluation_type",):
            return sorted(set(data.criteria.evaluation_type))
        if key == "qcet":
            return sorted(set(data.criteria.qcet_name))
        if key == "result_type":
            return sorted({t for types in data.criteria.result_types for t in types})
        if key == "track":
            return sorted({t for t in data.studies.track if t})
        column = {"team": "teams", "year": "years", "tag": "tags"}[key]
        return sorted({v for values in data.studies[column] for v in values})

    @guarded(lambda self: self.status)
    def on_filter(self) -> None:
        if self.data is None:
            return
        chosen = {key: d.value for key, d in self.filters.items() if d.value != ALL}
        self.view = self.data.filter(**chosen)
        self.show_page(0)
        self.show_charts()

    @guarded(lambda self: self.status)
    def on_level(self) -> None:
        options = SORTS[self.level.value]
        self.sort_by.options = options
        self.sort_by.value = options[0]
        self.show_page(0)

    # ------------------------------------------------------------------ table

    def sorted_frame(self):
        return self.view.sorted(self.level.value, self.sort_by.value, worst_first=self.worst_first.value)

    @guarded(lambda self: self.status)
    def show_page(self, page: int) -> None:
        if self.view is None:
            return
        frame = self.sorted_frame()
        pages = max(1, math.ceil(len(frame) / self.PAGE_SIZE))
        self.page = min(max(page, 0), pages - 1)
        shown = frame.iloc[self.page * self.PAGE_SIZE:(self.page + 1) * self.PAGE_SIZE]
        columns = COLUMNS[self.level.value]
        header = "".join(_cell(title, width) + " " for _c, title, width in columns)
        self.table.value = f"<div class='qra-overview-head'>{html.escape(header)}</div>"
        self.row_buttons = []
        for record in shown.to_dict("records"):
            text = "".join(_cell(record[c], width) + " " for c, _t, width in columns)
            button = w.Button(description=text, tooltip=f"open {record['study']}", layout=w.Layout(width="auto", height="26px"))
            button.add_class("qra-overview-row")
            button.study_id = record["study"]
            button.on_click(self.on_open)
            self.row_buttons.append(button)
        for old in self.rows.children:
            old.close()
        self.rows.children = self.row_buttons
        self.previous.disabled, self.next.disabled = self.page == 0, self.page >= pages - 1
        self.where.value = (f"<span class='qra-overview-where'>page {self.page + 1} of {pages} · {len(frame)} "
                            f"{LEVELS[self.level.value].lower()}</span>")

    @guarded(lambda self: self.status)
    def on_open(self, button) -> None:
        study_id = button.study_id

        def open_study() -> None:
            self.state.open_from_library(study_id)
            self.status.ok(f"Opened {study_id!r} (revision {self.state.revision}) from the overview.")

        guard_unsaved(self.state, self.confirm, f"open {study_id!r}", open_study)

    # ------------------------------------------------------------------ charts

    @guarded(lambda self: self.status)
    def show_charts(self) -> None:
        if self.view is None:
            return
        values = self.view.values(self.measure.value)
        for output, by in ((self.by_qcet, "qcet_name"), (self.by_type, "evaluation_type"), (self.by_year, "year")):
            if len(values):
                show_figure(output, charts.measure_distribution(values, by, self.measure.value))
            else:
                clear_figure(output)
