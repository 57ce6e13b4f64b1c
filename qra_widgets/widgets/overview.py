"""The Overview tab: every study, criterion and system in the library, for shared-task organisers.

The view reads the library's stored results (:func:`qra_widgets.overview`) when it is first
shown, and again on Reload or when the tab is shown again; filtering, sorting and paging then
ask that :class:`~qra_widgets.overview.Overview` in memory, which hands this view plain rows
(``Overview.page``) and menus (``Overview.choices``): the view holds no frame.  The rows are a real table (:class:`DataTable`): headers sort,
numbers are right-aligned, full names show on hover, and a click (or Enter) opens the study on
its Assessment tab.  Every level is grouped by evaluation type and ranked within it: a human
CV* is never ranked against a metric CV*.  Distributions are box plots and the experiment-pair
property analysis is a table and an interval chart.  No statistics happen here.
"""

from __future__ import annotations

import ipywidgets as w

from .. import charts
from ..overview import MEASURES, WORSE_IS_HIGHER, overview
from ..report.app_html import property_effects
from ..report.html import _missing, escape
from . import tables
from .common import Confirm, Status, guard_unsaved, guarded, run_reported
from .datatable import DataTable
from .results import clear_figure, show_figure
from .state import AppState

ALL = "(all)"
LEVELS = {"studies": "Studies", "criteria": "Quality criteria", "systems": "Systems"}
SINGULAR = {"studies": "study", "criteria": "quality criterion", "systems": "system"}
TYPE_TITLES = {
    "human": "Human evaluation",
    "metric": "Automatic metrics",
    "llm-as-judge": "LLM as judge",
    "unknown": "Evaluation type not given",
}
EXPERIMENTS_HINT = "n: experiments with results"
TYPE_III_ALPHA_HINT = (
    "Krippendorff's α between experiments (Type III: do the experiments' ratings of the same items agree?)"
)
_RANK = ("rank", "#", "rank", False, "rank within the evaluation type, worst first")
_STUDY = ("study", "Study", "text", False, "")
_TYPE = ("evaluation_type", "Type", "text", False, "evaluation type")
_CRITERION = ("quality_criterion", "Criterion", "text", False, "")
_N = ("n", "n", "count", False, EXPERIMENTS_HINT)


def _measure_columns(scope: str = "") -> list[tuple]:
    """Mean CV*, P, W, τ, α and annotator α, the columns a study and a criterion share (``scope`` ends W's and τ's hints)."""
    return [
        ("mean CV*", "Mean CV*", "CV*", False, "mean of the system-level CV* (lower is better)"),
        ("P", "P", "P", False, "share of system pairs ranked the same way in every pair of experiments"),
        ("W", "W", "W", False, f"Kendall's W (three or more experiments){scope}"),
        ("τ", "τ", "τ", False, f"Kendall's τ (two experiments){scope}"),
        ("α", "α", "α", False, TYPE_III_ALPHA_HINT),
        (
            "annotator α",
            "Annotator α",
            "annotator α",
            False,
            (
                f"Krippendorff's α among each experiment's own raters, the mean over the experiments"
                f"{scope and ' and criteria'} (not the Type III α)"
            ),
        ),
    ]


#: Per level: (column, header, kind, optional, hint); kind "rank", "text" or a measure (its decimals).
COLUMNS = {
    "studies": [
        _RANK,
        _STUDY,
        _TYPE,
        ("criteria", "Criteria", "count", True, "quality criteria of this evaluation type"),
        *_measure_columns("; a study shows it for one criterion"),
        _N,
        ("systems", "Systems", "count", True, ""),
        ("problem", "Note", "text", True, ""),
    ],
    "criteria": [
        _RANK,
        _STUDY,
        _CRITERION,
        _TYPE,
        ("qcet_name", "QCET criterion", "text", True, "the criterion in the QCET taxonomy"),
        *_measure_columns(),
        _N,
    ],
    "systems": [
        _RANK,
        _STUDY,
        _CRITERION,
        ("system", "System", "text", False, ""),
        _TYPE,
        ("CV*", "CV*", "CV*", False, "coefficient of variation, small-sample corrected (lower is better)"),
        _N,
    ],
}
DEFAULT_SORT = {"studies": "mean CV*", "criteria": "mean CV*", "systems": "CV*"}
FILTER_LABELS = {
    "evaluation_type": "evaluation type",
    "qcet": "QCET criterion",
    "result_type": "result type",
    "team": "team",
    "year": "year",
    "track": "track",
    "tag": "tag",
}


def _text(value, kind: str) -> str:
    """A cell's text: numbers at the template's precision, "–" where undefined, lists joined."""
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if value is None or (not isinstance(value, str) and _missing(value)):
        return "–"
    if kind in ("rank", "count"):
        return str(int(value))
    if kind in WORSE_IS_HIGHER or kind in MEASURES:
        return tables.number(float(value), "CV*" if kind in ("CV*", "mean CV*") else "P")
    return str(value)


class OverviewView:
    """Study / criterion / system tables (sortable, filterable, grouped by evaluation type, worst
    first, paginated), distributions and the experiment-pair property analysis."""

    PAGE_SIZE = 25

    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.navigate = None  # the dashboard's show_tab: a row click opens its study on the Assessment tab
        self.data = None  # the Overview read from the library
        self.view = None  # the filtered Overview
        self.page = 0
        self.sort_key, self.worst_first = "mean CV*", True
        self._seen: tuple = ()
        self.level = w.ToggleButtons(options=[(label, key) for key, label in LEVELS.items()], value="criteria")
        self.filters = {
            key: w.Dropdown(
                options=[ALL],
                value=ALL,
                description=label,
                style={"description_width": "initial"},
                layout=w.Layout(width="240px"),
            )
            for key, label in FILTER_LABELS.items()
        }
        self.update = w.Button(description="Reload", tooltip="Read the library again")
        self.previous, self.next = w.Button(description="◀ previous"), w.Button(description="next ▶")
        self.where = w.HTML()
        self.table = DataTable(on_sort=self.on_sort, on_open=self.on_open, empty="No study in the library matches.")
        self.table.add_class("qra-overview-table")
        self.measure = w.Dropdown(options=list(MEASURES), value="CV*", description="Distribution of")
        self.by_qcet, self.by_type, self.by_year = w.Output(), w.Output(), w.Output()
        for output, name in ((self.by_qcet, "qcet"), (self.by_type, "type"), (self.by_year, "year")):
            output.add_class(f"qra-overview-by-{name}")
        self.effects, self.effects_chart = w.HTML(), w.Output()
        self.update.add_class("qra-overview-update")
        self.level.add_class("qra-overview-level")
        for key, dropdown in self.filters.items():
            dropdown.add_class(f"qra-overview-filter-{key.replace('_', '-')}")
            dropdown.observe(lambda _: self.on_filter(), "value")
        self.update.on_click(self.on_update)
        self.level.observe(lambda _: self.on_level(), "value")
        self.previous.on_click(lambda _: self.show_page(self.page - 1))
        self.next.on_click(lambda _: self.show_page(self.page + 1))
        self.measure.observe(lambda _: self.show_charts(), "value")
        self.confirm = Confirm(lambda action: run_reported(self.status, action))
        filters = list(self.filters.values())
        self.widget = w.VBox(
            [
                self.confirm.widget,
                w.HTML(
                    "<h4>All studies in the library</h4><p>Human evaluations, metrics and LLM-as-judge results are ranked "
                    "apart, worst first within each (highest CV*, lowest P, W, τ, α). Click a column header to sort, a row "
                    "to open its study. Read from the results stored with each save.</p>"
                ),
                w.HBox([self.level, self.update], layout=w.Layout(flex_flow="row wrap", grid_gap="0.5em")),
                w.HBox(filters, layout=w.Layout(flex_flow="row wrap")),
                w.HBox(
                    [self.previous, self.next, self.where], layout=w.Layout(flex_flow="row wrap", align_items="center")
                ),
                self.table.widget,
                w.HTML(
                    "<h4>Distributions</h4><p>Human, metric and LLM-as-judge results are shown apart, never pooled.</p>"
                ),
                self.measure,
                self.by_qcet,
                self.by_type,
                self.by_year,
                w.HTML(
                    "<h4>Why? Properties that go with poorer reproducibility (experiment pairs, QRA++ section 8)</h4>"
                    "<p>Pair CV* where two experiments of a study answer a property differently minus where they answer it the "
                    "same, with a 95% interval resampling whole studies. Too few pairs: listed, not ranked.</p>"
                ),
                self.effects_chart,
                self.effects,
            ]
        )
        self.widget.add_class("qra-overview")
        self.on_update()

    # ------------------------------------------------------------------ data

    def _fingerprint(self) -> tuple:
        """Each study's id, latest revision and whether it is deleted: what a reload would change."""
        return tuple((s.id, s.latest, s.deleted) for s in self.state.library.list(include_deleted=True))

    @guarded(lambda self: self.status)
    def refresh(self) -> None:
        """Read the library again if a study was saved, added or deleted since it was last read."""
        if self._fingerprint() != self._seen:
            self.on_update()

    @guarded(lambda self: self.status)
    def on_update(self, _=None) -> None:
        self._seen = self._fingerprint()
        self.data = overview(self.state.library)
        for key, dropdown in self.filters.items():
            kept = dropdown.value
            dropdown.options = [ALL] + self._choices(key)
            dropdown.value = kept if kept in dropdown.options else ALL
        self.on_filter()
        self.effects.value, drawn = property_effects(self.data.property_effects)
        if drawn:
            show_figure(self.effects_chart, charts.property_effects_chart(self.data.property_effects))
        else:
            clear_figure(self.effects_chart)
        self.status.ok(f"Overview of {len(self.data.choices('study'))} studies.")

    def _choices(self, key: str) -> list[str]:
        return self.data.choices(key)

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
        self.sort_key, self.worst_first = DEFAULT_SORT[self.level.value], True
        self.show_page(0)

    def on_sort(self, key: str) -> None:
        """A header click: sort by that column, worst first; the same header again reverses."""
        if key == self.sort_key:
            self.worst_first = not self.worst_first
        else:
            self.sort_key, self.worst_first = key, True
        self.show_page(0)

    # ------------------------------------------------------------------ table

    @guarded(lambda self: self.status)
    def show_page(self, page: int) -> None:
        if self.view is None:
            return
        level = self.level.value
        if self.sort_key not in self.view.page(level, size=1)["columns"]:
            self.sort_key, self.worst_first = DEFAULT_SORT[level], True
        shown = self.view.page(level, self.sort_key, worst_first=self.worst_first, page=page, size=self.PAGE_SIZE)
        pages, self.page, per_type = shown["pages"], shown["page"], shown["per_type"]
        columns = COLUMNS[level]
        rows, group = [], None
        for record in shown["rows"]:
            if record["evaluation_type"] != group:
                group = record["evaluation_type"]
                count = int(per_type.get(group, 0))
                noun = LEVELS[level].lower() if count != 1 else SINGULAR[level]
                rows.append({"group": f"{TYPE_TITLES.get(group, group)} · {count} {noun}, ranked among themselves"})
            cells = [_text(record.get(key), kind) for key, _title, kind, _optional, _hint in columns]
            titles = [self._hover(record, key, kind) for key, _title, kind, _optional, _hint in columns]
            note = record.get("problem") or record.get("note") or ""
            name = record.get("name") or record["study"]
            where = [
                f"{label}: {record[key]}"
                for key, label in (("quality_criterion", "criterion"), ("system", "system"))
                if record.get(key)
            ]
            if record.get("qcet"):
                qcet = f"{record['qcet_name']} ({record['qcet']})" if record.get("qcet_name") else record["qcet"]
                where.append(f"QCET: {qcet}")
            full = " · ".join([f"{name} ({record['study']})", *where, *([note] if note else [])])
            rows.append(
                {
                    "key": record["study"],
                    "cells": cells,
                    "titles": titles,
                    "title": f"{full} · click to open it on the Assessment tab",
                }
            )
        ascending = not WORSE_IS_HIGHER.get(self.sort_key, False)
        self.table.show(
            [
                {
                    "key": key,
                    "title": title,
                    "numeric": kind not in ("text",),
                    "sortable": kind != "rank",
                    "optional": optional,
                    "hint": hint,
                }
                for key, title, kind, optional, hint in columns
            ],
            rows,
            {"key": self.sort_key, "ascending": ascending if self.worst_first else not ascending},
            layout=level,
        )
        self.previous.disabled, self.next.disabled = self.page == 0, self.page >= pages - 1
        order = "worst first" if self.worst_first else "best first"
        self.where.value = (
            f"<span class='qra-overview-where'>page {self.page + 1} of {pages} · {shown['total']} "
            f"{LEVELS[level].lower()} · by {escape(self.sort_key)}, {order}</span>"
        )

    @staticmethod
    def _hover(record: dict, key: str, kind: str) -> str:
        """A cell's full text on hover: the study's name, the QCET id, the reason a value is undefined."""
        value = record.get(key)
        if key == "study":
            return f"{record.get('name') or value} ({value})"
        if key == "qcet_name" and record.get("qcet"):
            return f"{value} ({record['qcet']})"
        if kind in MEASURES or kind in WORSE_IS_HIGHER:
            if _text(value, kind) == "–" and key == "annotator α":
                return "no item-level ratings (system means only), or their α is undefined"
            if _text(value, kind) == "–":
                return record.get("problem") or record.get("note") or "not defined for these data"
            return ""
        return _text(value, kind) if kind == "text" else ""

    @property
    def shown_studies(self) -> list[str]:
        """The study id of each row on the page, in order."""
        return self.table.row_keys

    def on_open(self, study_id: str) -> None:
        def open_study() -> None:
            self.state.open_from_library(study_id)
            if self.navigate is not None:  # first: showing a tab clears the status line
                self.navigate("Assessment")
            self.status.ok(f"Opened {study_id!r} (revision {self.state.revision}) from the overview.")

        run_reported(self.status, guard_unsaved, self.state, self.confirm, f"open {study_id!r}", open_study)

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
