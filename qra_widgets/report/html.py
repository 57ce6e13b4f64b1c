"""The one HTML door for what people read: the table writer, the QRA++ template as HTML and the
HTML escaper, used by the app's views, the static site, the atlas site and ``Assessment._repr_html_``.

* :func:`escape` -- the one HTML escaper (:func:`qra_widgets.report.escape.html`): every user-given
  text that becomes HTML goes through it;
* :func:`table` -- any frame as an HTML table in one style: headers in words, numbers right-aligned
  (``qra-num``) at ``decimals`` places, "–" where a number is undefined, every cell escaped;
* :func:`template_html` -- the QRA++ reporting template (QRA++ Tables 3-5, the rows of
  :func:`qra_widgets.report.formats.template_rows`, the same cells as Markdown and LaTeX), one
  ``<tbody>`` per result type, with or without intervals.

>>> import pandas as pd
>>> table(pd.DataFrame({"system": ["<b>A</b>"], "value": [0.12345]}))
"<table><thead><tr><th scope='col'>system</th><th scope='col' class='qra-num'>value</th></tr></thead><tbody><tr><td>&lt;b&gt;A&lt;/b&gt;</td><td class='qra-num'>0.123</td></tr></tbody></table>"
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

from .escape import html as escape

if TYPE_CHECKING:
    from ..assess import Assessment

__all__ = ["escape", "table", "template_html"]


def _missing(value) -> bool:
    """None, NaN, ``pd.NA`` or ``NaT``: a cell with nothing to show."""
    import numpy as np

    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    return type(value).__name__ in ("NAType", "NaTType")


def table(
    frame,
    *,
    headers: dict | None = None,
    decimals: int = 3,
    css: str = "",
    caption: str = "",
    link: Callable[[str], str] | None = None,
    scroll: bool = False,
    numeric: Collection[str] = (),
    row_classes: Sequence[str] | None = None,
) -> str:
    """``frame`` as an HTML table: ``headers`` maps column names to the words shown, numeric
    columns (``qra-num``; also the columns named in ``numeric``, e.g. numbers already formatted as
    text) show floats at ``decimals`` places and "–" where undefined, a list becomes "a, b",
    ``link`` (a study id -> its page) makes the ``study`` column links; ``css`` classes the table,
    ``row_classes`` each row, ``caption`` captions it, ``scroll`` wraps it in a horizontally
    scrolling box."""
    import numpy as np

    names = headers or {}
    numeric = [frame[c].dtype.kind in "fiu" or c in numeric for c in frame.columns]
    head = "".join(
        ("<th scope='col' class='qra-num'>" if num else "<th scope='col'>") + f"{escape(names.get(c, c))}</th>"
        for c, num in zip(frame.columns, numeric)
    )
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for column, value, num in zip(frame.columns, row, numeric):
            if isinstance(value, (list, tuple)):
                value = ", ".join(map(str, value))
            if _missing(value):
                cells.append("<td class='qra-num qra-na'>–</td>" if num else "<td></td>")
            elif num and isinstance(value, (float, np.floating)):
                cells.append(f"<td class='qra-num'>{float(value):.{decimals}f}</td>")
            elif num:
                cells.append(f"<td class='qra-num'>{escape(value)}</td>")
            elif link is not None and column == "study":
                cells.append(f"<td><a href='{escape(link(value))}'>{escape(value)}</a></td>")
            else:
                cells.append(f"<td>{escape(value)}</td>")
        kind = row_classes[len(body)] if row_classes is not None else ""
        body.append((f"<tr class='{kind}'>" if kind else "<tr>") + "".join(cells) + "</tr>")
    classes = f" class='{css}'" if css else ""
    title = f"<caption>{escape(caption)}</caption>" if caption else ""
    out = f"<table{classes}>{title}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return f"<div class='qra-scroll'>{out}</div>" if scroll else out


def template_html(
    assessment: Assessment,
    intervals: bool | None = None,
    *,
    caption: bool = True,
    footnotes: bool = True,
    css: str = "",
) -> str:
    """The QRA++ template as HTML: the cells of :func:`~qra_widgets.report.formats.template_rows`
    (values, and with ``intervals`` each interval after its value, "12.01 [9.8, 14.3]"), one
    ``<tbody class='qra-type qra-type-I'>`` per result type, a system's row ``qra-system-row``, an
    undefined value "–" (``qra-na``, the Markdown report's "nan"); above it the caption (with intervals, how they were made), under it the notes and the caution
    of each interval marked ‡ (``footnotes``); ``css`` adds classes to the table."""
    from .template import TEMPLATE_COLUMNS, interval_caption, template_rows
    from .template import caption as caption_of

    shown = intervals if intervals is not None else bool(assessment.intervals)
    value_columns = {c for c in TEMPLATE_COLUMNS if c.endswith("level")}
    head = "".join(
        ("<th scope='col' class='qra-num'>" if c in value_columns else "<th scope='col'>") + f"{escape(c)}</th>"
        for c in TEMPLATE_COLUMNS
    )
    groups: list[tuple[str, list[str]]] = []
    for row in template_rows(assessment, intervals=shown):
        first = str(row[0])
        if first.startswith("Type ") or not groups:
            groups.append((first.split(":")[0].removeprefix("Type ").strip() if first.startswith("Type ") else "", []))
        kind = " class='qra-system-row'" if first.startswith(" ") else ""  # the template indents a system
        cells = "".join(
            "<td class='qra-num qra-na'>–</td>"
            if v == "nan"
            # undefined: its reason is in the notes
            else ("<td class='qra-num'>" if c in value_columns else "<td>") + f"{escape(str(v).strip())}</td>"
            for c, v in zip(TEMPLATE_COLUMNS, row)
        )
        groups[-1][1].append(f"<tr{kind}>{cells}</tr>")
    body = "".join(f"<tbody class='qra-type qra-type-{kind}'>{''.join(rows)}</tbody>" for kind, rows in groups)
    text = caption_of(assessment) + (f". {interval_caption(assessment)}" if shown and assessment.bootstrap_info else "")
    top = f"<p class='qra-caption'>{escape(text)}</p>" if caption else ""
    cautions = assessment.caution_footnotes() if footnotes else []
    reasons = [note for note in assessment.notes if note not in cautions] if footnotes else []
    lists = "".join(
        f"<ul class='{css}'>" + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>"
        for css, lines in (("qra-notes", reasons), ("qra-cautions", cautions))
        if lines
    )
    classes = " ".join(["qra-template", *css.split()])
    return f"<div class='qra-scroll'>{top}<table class='{classes}'><thead><tr>{head}</tr></thead>{body}</table>{lists}</div>"
