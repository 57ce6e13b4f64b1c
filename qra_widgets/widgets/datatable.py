"""Two pieces built from plain ipywidgets (no front-end extension beyond the widgets'): a table
whose headers sort and whose rows open on a click, and a button that downloads a file in one
click.

**The table.**  Every row is a CSS-grid line of cells (``theme.css`` sets the columns per
level, hides the optional ones below 1000 px and keeps every number), with a transparent
button laid over it: a click or Enter on the row is that button's click, its tooltip the row's
full names.  Header cells are buttons.  The row widgets are kept and refilled page after page,
so paging adds no widget.  Every cell is HTML-escaped.

**The download.**  A click builds the file (only then) and hands it to the browser through a
one-off script output that saves it under its name; nothing touches the server's disk.
"""

from __future__ import annotations

import base64
import datetime as _dt
import itertools
import json
import re
from collections.abc import Callable

import ipywidgets as w

from ..report.html import escape
from .common import run_reported, safe_file_stem


def column_class(key: str) -> str:
    """A CSS class for a column key (``"mean CV*"`` -> ``qra-col-mean-cv``, ``"τ"`` -> ``qra-col-tau``)."""
    words = {"τ": "tau", "α": "alpha", "κ": "kappa", "#": "rank"}
    slug = re.sub(r"[^a-z0-9]+", "-", words.get(key, key).lower()).strip("-")
    return f"qra-col-{slug or 'x'}"


class DataTable:
    """A sortable table of text cells: ``show(columns, rows, sort)``; a row click calls
    ``on_open(key)``, a header click ``on_sort(column key)``.

    ``columns``: ``[{"key", "title", "numeric", "sortable", "optional", "hint"}]`` (an optional
    column is hidden on narrow screens; numbers never are); ``rows``: ``[{"key", "cells",
    "titles", "title"}]`` (``titles``: each cell's full text; ``title``: the row's tooltip) or
    ``{"group": "heading"}``; ``sort``: ``{"key", "ascending"}``.  ``layout`` names the
    column widths in ``theme.css`` (``qra-dt-<layout>``).
    """

    def __init__(
        self,
        on_sort: Callable[[str], None] | None = None,
        on_open: Callable[[str], None] | None = None,
        empty: str = "Nothing to show.",
    ):
        self.on_sort, self.on_open, self.empty = on_sort, on_open, empty
        self.columns: list[dict] = []
        self.rows: list[dict] = []
        self.sort: dict = {}
        self.header = w.Box()
        self.header.add_class("qra-dt-head")
        self.body = w.VBox()
        self.body.add_class("qra-dt-body")
        self.widget = w.VBox([self.header, self.body], layout=w.Layout(width="100%"))
        self.widget.add_class("qra-datatable")
        self._heads: list[w.Widget] = []
        self._slots: list[tuple[w.Box, w.HTML, w.Button]] = []
        self._layout = ""

    def add_class(self, name: str) -> None:
        self.widget.add_class(name)

    # ------------------------------------------------------------------ drawing

    def show(self, columns: list[dict], rows: list[dict], sort: dict, layout: str = "") -> None:
        if layout != self._layout:
            if self._layout:
                self.widget.remove_class(f"qra-dt-{self._layout}")
            self.widget.add_class(f"qra-dt-{layout}")
            self._layout = layout
        if [c["key"] for c in columns] != [c["key"] for c in self.columns]:
            self._build_header(columns)
        self.columns, self.rows, self.sort = columns, rows, dict(sort)
        for column, head in zip(columns, self._heads):
            arrow = (" ▲" if sort.get("ascending") else " ▼") if sort.get("key") == column["key"] else ""
            if isinstance(head, w.Button):
                head.description = column["title"] + arrow
        shown = rows or [{"group": self.empty}]
        while len(self._slots) < len(shown):
            self._slots.append(self._new_slot())
        for (box, cells, hit), row in itertools.zip_longest(self._slots, shown):
            if row is None:
                box.layout.display = "none"
                continue
            box.layout.display = ""
            if "group" in row:
                cells.value = f"<div class='qra-dt-group'>{escape(row['group'])}</div>"
                hit.layout.display, hit.row_key = "none", None
                continue
            cells.value = self._cells_html(row)
            hit.layout.display, hit.row_key, hit.tooltip = "", row["key"], row.get("title") or ""
        self.body.children = [slot[0] for slot in self._slots]

    def _build_header(self, columns: list[dict]) -> None:
        old = self._heads
        heads = []
        for column in columns:
            classes = ["qra-dt-cell", column_class(column["key"]), "qra-num" if column.get("numeric") else "qra-text"]
            if column.get("optional"):
                classes.append("qra-col-optional")
            if column.get("sortable"):
                head = w.Button(
                    description=column["title"],
                    tooltip=(column.get("hint") or column["title"]) + " · click to sort",
                    layout=w.Layout(width="auto", height="auto"),
                )
                head.on_click(lambda _, key=column["key"]: self.click_header(key))
                classes.append("qra-dt-sort")
            else:
                hint = escape(column.get("hint") or "")
                head = w.HTML(f"<span title='{hint}'>{escape(column['title'])}</span>")
            for name in classes:
                head.add_class(name)
            heads.append(head)
        self._heads = heads
        self.header.children = heads
        for head in old:
            head.close()

    def _new_slot(self) -> tuple[w.Box, w.HTML, w.Button]:
        cells = w.HTML(layout=w.Layout(width="100%"))
        cells.add_class("qra-dt-cells-box")
        hit = w.Button(description="", layout=w.Layout(width="100%", height="100%"))
        hit.add_class("qra-dt-hit")
        hit.row_key = None
        hit.on_click(lambda button: self.click_row(button.row_key))
        box = w.Box([cells, hit])
        box.add_class("qra-dt-row")
        return box, cells, hit

    def _cells_html(self, row: dict) -> str:
        spans = []
        titles = row.get("titles") or [""] * len(row["cells"])
        for column, text, full in zip(self.columns, row["cells"], titles):
            classes = f"qra-dt-cell {column_class(column['key'])} {'qra-num' if column.get('numeric') else 'qra-text'}"
            if column.get("optional"):
                classes += " qra-col-optional"
            title = f" title='{escape(full)}'" if full else ""
            spans.append(f"<span class='{classes}'{title}>{escape(text)}</span>")
        return f"<div class='qra-dt-cells' data-key='{escape(row['key'])}'>{''.join(spans)}</div>"

    # ------------------------------------------------------------------ clicks

    def click_header(self, key) -> None:
        """What a click on column ``key``'s header does."""
        if self.on_sort and any(c["key"] == key and c.get("sortable") for c in self.columns):
            self.on_sort(key)

    def click_row(self, key) -> None:
        """What a click on the row ``key`` does (a key the page does not show is ignored)."""
        if self.on_open and key is not None and key in self.row_keys:
            self.on_open(key)

    @property
    def row_keys(self) -> list[str]:
        """The keys of the rows shown, in order (group headings left out)."""
        return [r["key"] for r in self.rows if "group" not in r]


def download_name(study_id: str, what: str, extension: str, today: _dt.date | None = None) -> str:
    """``<study id>-<what>-<date>.<extension>``, safe on every file system.

    >>> download_name("qrapp-example1", "assessment", "md", today=_dt.date(2026, 11, 25))
    'qrapp-example1-assessment-2026-11-25.md'
    """
    day = (today or _dt.date.today()).isoformat()
    return f"{safe_file_stem(study_id)}-{safe_file_stem(what)}-{day}.{extension}"


_SAVE_SCRIPT = """(() => {{
  const token = {token};
  window.qraDownloads = window.qraDownloads || new Set();
  if (window.qraDownloads.has(token)) return;  // a redrawn output never saves the file twice
  window.qraDownloads.add(token);
  const bytes = Uint8Array.from(atob({data}), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], {{type: {mime}}}));
  const link = document.createElement("a");
  link.href = url;
  link.download = {name};
  link.style.display = "none";
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}})();"""
_tokens = itertools.count(1)


class DownloadButton(w.Box):
    """A button that downloads a file in one click: ``make()`` returns ``(file name, mime type,
    text or bytes)`` and runs only when clicked.  With a ``status``, an error is shown there and
    nothing is downloaded."""

    def __init__(self, label: str, make: Callable[[], tuple[str, str, str | bytes]], status=None, tooltip: str = ""):
        self.button = w.Button(
            description=label, tooltip=tooltip or label, layout=w.Layout(width="auto", min_width="max-content")
        )
        self.button.add_class("qra-button")
        self.button.add_class("qra-download-button")
        self.output = w.Output(layout=w.Layout(display="none"))
        super().__init__([self.button, self.output])
        self.make, self.status = make, status
        self.last_name: str | None = None
        self.button.on_click(lambda _: self.click())

    def click(self) -> tuple[str, bytes] | None:
        """Build the file and have the browser save it; returns ``(name, bytes)``, or None when it
        failed (the reason is on the status line)."""
        return self._deliver() if self.status is None else run_reported(self.status, self._deliver)

    def _deliver(self) -> tuple[str, bytes]:
        name, mime, data = self.make()
        payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        script = _SAVE_SCRIPT.format(
            token=json.dumps(f"{id(self)}-{next(_tokens)}"),
            data=json.dumps(base64.b64encode(payload).decode("ascii")),
            mime=json.dumps(mime),
            name=json.dumps(name),
        )
        self.output.outputs = (
            {
                "output_type": "display_data",
                "metadata": {},
                "data": {"application/javascript": script, "text/plain": f"download {name}"},
            },
        )
        self.last_name = name
        return name, payload
