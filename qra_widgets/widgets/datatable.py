"""Two small browser-side widgets (anywidget): a real, sortable HTML table whose rows can be
clicked, and a download button that saves a file in one click.

Both draw with the DOM API (``textContent``, never ``innerHTML``), so a user-given name is
always text.  Everything they send back is checked against what the kernel gave them: a
sort key must be a sortable column, an opened row one of the rows shown.  No statistics here:
the rows arrive as text, formatted by the view.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable

import anywidget
import traitlets

from .common import run_reported, safe_file_stem

_TABLE_ESM = r"""
function cellClass(column) {
  return (column.numeric ? "qra-num" : "qra-text") + (column.optional ? " qra-col-optional" : "");
}
function render({ model, el }) {
  el.classList.add("qra-datatable");
  const draw = () => {
    const columns = model.get("columns"), rows = model.get("rows"), sort = model.get("sort") || {};
    const wrap = document.createElement("div");
    wrap.className = "qra-datatable-scroll";
    const table = document.createElement("table");
    table.className = "qra-template qra-datatable-table";
    const head = table.createTHead().insertRow();
    for (const column of columns) {
      const th = document.createElement("th");
      th.scope = "col";
      th.className = cellClass(column);
      th.dataset.key = column.key;
      if (column.hint) th.title = column.hint;
      if (column.sortable) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "qra-sort";
        let text = column.title;
        if (sort.key === column.key) {
          th.setAttribute("aria-sort", sort.ascending ? "ascending" : "descending");
          text += sort.ascending ? " \u25B2" : " \u25BC";
        }
        button.textContent = text;
        button.title = (column.hint ? column.hint + " \u00B7 " : "") + "click to sort";
        button.addEventListener("click", () => model.send({ event: "sort", key: column.key }));
        th.appendChild(button);
      } else {
        th.textContent = column.title;
      }
      head.appendChild(th);
    }
    const body = table.createTBody();
    for (const row of rows) {
      const tr = body.insertRow();
      if (row.group !== undefined) {
        tr.className = "qra-group-row";
        const th = document.createElement("th");
        th.colSpan = columns.length;
        th.scope = "rowgroup";
        th.textContent = row.group;
        tr.appendChild(th);
        continue;
      }
      tr.className = "qra-datatable-row";
      tr.tabIndex = 0;
      tr.dataset.key = row.key;
      if (row.title) tr.title = row.title;
      row.cells.forEach((text, i) => {
        const td = tr.insertCell();
        td.className = cellClass(columns[i]);
        td.dataset.key = columns[i].key;
        td.textContent = text;
        const full = row.titles && row.titles[i];
        if (full) td.title = full;
      });
      const open = () => model.send({ event: "open", key: row.key });
      tr.addEventListener("click", open);
      tr.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); open(); }
      });
    }
    if (!rows.length) {
      const td = body.insertRow().insertCell();
      td.colSpan = columns.length;
      td.className = "qra-empty";
      td.textContent = model.get("empty");
    }
    wrap.appendChild(table);
    el.replaceChildren(wrap);
  };
  draw();
  model.on("change:rows", draw);
  model.on("change:columns", draw);
  model.on("change:sort", draw);
}
export default { render };
"""

_DOWNLOAD_ESM = r"""
function render({ model, el }) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "qra-download-button jupyter-button widget-button";
  const label = () => { button.textContent = model.get("label"); button.title = model.get("tooltip"); };
  label();
  model.on("change:label", label);
  model.on("change:tooltip", label);
  button.addEventListener("click", () => model.send({ event: "download" }));
  model.on("msg:custom", (message, buffers) => {
    if (!message || message.event !== "file" || !buffers || !buffers.length) return;
    const blob = new Blob([buffers[0]], { type: message.mime });
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url;
    link.download = message.name;
    link.style.display = "none";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  });
  el.classList.add("qra-download-widget");
  el.appendChild(button);
}
export default { render };
"""


class DataTable(anywidget.AnyWidget):
    """A sortable table of text cells; a row click or Enter calls ``on_open(key)``, a header
    click ``on_sort(column key)``.

    ``columns``: ``[{"key", "title", "numeric", "sortable", "optional", "hint"}]`` (an
    *optional* column is hidden on narrow screens; numbers never are); ``rows``: ``[{"key",
    "cells", "titles", "title"}]`` (``titles``: each cell's full text, shown on hover) or
    ``{"group": "heading"}`` rows between groups; ``sort``: ``{"key", "ascending"}``.
    """

    _esm = _TABLE_ESM
    columns = traitlets.List().tag(sync=True)
    rows = traitlets.List().tag(sync=True)
    sort = traitlets.Dict().tag(sync=True)
    empty = traitlets.Unicode("Nothing to show.").tag(sync=True)

    def __init__(self, on_sort: Callable[[str], None] | None = None, on_open: Callable[[str], None] | None = None, **kwargs):
        super().__init__(**kwargs)
        self.on_sort, self.on_open = on_sort, on_open
        self.on_msg(self._message)

    def _message(self, _widget, content, _buffers) -> None:
        if not isinstance(content, dict):
            return
        key = content.get("key")
        if content.get("event") == "sort":
            self.click_header(key)
        elif content.get("event") == "open":
            self.click_row(key)

    def click_header(self, key) -> None:
        """What a click on column ``key``'s header does (the browser sends the same)."""
        if self.on_sort and any(c["key"] == key and c.get("sortable") for c in self.columns):
            self.on_sort(key)

    def click_row(self, key) -> None:
        """What a click on the row ``key`` does (the browser sends the same)."""
        if self.on_open and any(r.get("key") == key for r in self.rows if "group" not in r):
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


class DownloadButton(anywidget.AnyWidget):
    """A button that downloads a file in one click: ``make()`` returns ``(file name, mime type,
    text or bytes)`` and runs only when clicked.  With a ``status``, an error is shown there
    (:func:`~qra_widgets.widgets.common.run_reported`) and nothing is downloaded."""

    _esm = _DOWNLOAD_ESM
    label = traitlets.Unicode().tag(sync=True)
    tooltip = traitlets.Unicode().tag(sync=True)

    def __init__(self, label: str, make: Callable[[], tuple[str, str, str | bytes]], status=None, tooltip: str = "",
                 **kwargs):
        super().__init__(label=label, tooltip=tooltip or label, **kwargs)
        self.make, self.status = make, status
        self.last_name: str | None = None
        self.on_msg(self._message)

    def _message(self, _widget, content, _buffers) -> None:
        if isinstance(content, dict) and content.get("event") == "download":
            self.click()

    def click(self) -> tuple[str, bytes] | None:
        """Build the file and send it to the browser; returns ``(name, bytes)``, or None when it failed
        (the reason is on the status line)."""
        return self._deliver() if self.status is None else run_reported(self.status, self._deliver)

    def _deliver(self) -> tuple[str, bytes]:
        name, mime, data = self.make()
        payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        self.last_name = name
        self.send({"event": "file", "name": name, "mime": mime}, buffers=[payload])
        return name, payload
