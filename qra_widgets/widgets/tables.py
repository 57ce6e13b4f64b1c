"""HTML the Assessment tab shows: headline cards, the QRA++ template as a styled table, the
published-vs-computed table of a paper example, and two conventions side by side.

Presentation only: every number comes from an :class:`~qra_widgets.Assessment`; nothing is
computed here except formatting (decimals, "n/a" with its reason, a colour for CV*).
Every user-given name is HTML-escaped.
"""

from __future__ import annotations

import math

from ..overview import COLUMN_TITLES
from ..report.escape import html as escape_html
from ..report.formats import DEFAULT_DECIMALS, MEASURE_LABELS, OTHER_DECIMALS

TYPE_TITLES = {
    "I": "Type I results: precision of measured values (CV*, lower is more reproducible)",
    "II": "Type II results: correlation of scores across experiments (higher is more reproducible)",
    "III": "Type III results: agreement of labels across experiments",
    "IV": "Type IV results: agreement of findings (P, share of system pairs ranked the same way)",
}
CV_COLOUR_TOP = 40.0  # CV* at or above this gets the full warm colour (QRA++ §6.1 calls < 12 good for human evaluation)
COLLAPSE_ROWS = 25  # a result type with more rows than this starts folded (its study-level value stays in view)


def _places(measure: str) -> int:
    return DEFAULT_DECIMALS.get(measure, OTHER_DECIMALS)


def number(value: float, measure: str) -> str:
    """A value at the precision the template uses (CV* 2 decimals, the others 3)."""
    return f"{value:.{_places(measure)}f}"


def cell(value: float, measure: str, note: str = "", colour: bool = False) -> str:
    """A right-aligned table cell; ``n/a`` with the reason on hover where the value is undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        reason = escape_html(note or "not defined for these data")
        return f"<td class='qra-num qra-na' title='{reason}'>n/a</td>"
    style = f" style='background:{cv_colour(value)}'" if colour else ""
    title = f" title='{escape_html(note)}'" if note else ""
    return f"<td class='qra-num'{style}{title}>{number(value, measure)}</td>"


def cv_colour(value: float) -> str:
    """Green (0) to warm red (>= 40) for a CV* cell: a light tint, so the number stays readable."""
    share = max(0.0, min(1.0, value / CV_COLOUR_TOP))
    low, high = (230, 244, 234), (251, 214, 214)
    rgb = tuple(round(a + (b - a) * share) for a, b in zip(low, high))
    return f"rgb{rgb}"


def _label(measure: str) -> str:
    return escape_html(MEASURE_LABELS.get(measure, measure))


def template_table(assessment, collapse_rows: int = COLLAPSE_ROWS) -> str:
    """The QRA++ template as one folding section per result type: the study-level value in its
    own row (and in the section's summary), then per criterion its QC-level value and its systems."""
    all_rows = assessment.rows
    sections = []
    for result_type in ("I", "II", "III", "IV"):
        rows = [r for r in all_rows if r.result_type == result_type]
        if not rows:
            continue
        body, summary_values = [], []
        colour = result_type == "I"
        for row in (r for r in rows if r.level == "study"):
            label = f"{_label(row.measure)}, whole study"
            body.append(f"<tr class='qra-study-row'><th scope='row'>{label}</th><td>all criteria</td>"
                        f"{cell(row.value, row.measure, row.note, colour)}<td class='qra-num'>{row.n}</td></tr>")
            summary_values.append(f"{label} {number(row.value, row.measure) if not math.isnan(row.value) else 'n/a'}")
        for qc in dict.fromkeys(r.quality_criterion for r in rows if r.quality_criterion):
            block = [r for r in rows if r.quality_criterion == qc]
            body.append(f"<tr class='qra-criterion-row'><th colspan='4' scope='rowgroup'>{escape_html(qc)}</th></tr>")
            for row in (r for r in block if r.level == "qc"):
                mean = "mean over systems" if row.measure == "CV*" else "criterion level"
                body.append(f"<tr class='qra-qc-row'><th scope='row'>{_label(row.measure)}</th><td>{mean}</td>"
                            f"{cell(row.value, row.measure, row.note, colour)}<td class='qra-num'>{row.n}</td></tr>")
            for row in (r for r in block if r.level == "system"):
                body.append(f"<tr class='qra-system-row'><th scope='row'>{_label(row.measure)}</th>"
                            f"<td>{escape_html(str(row.system))}</td>{cell(row.value, row.measure, row.note, colour)}"
                            f"<td class='qra-num'>{row.n}</td></tr>")
        opened = " open" if len(body) <= collapse_rows else ""
        summary = escape_html(TYPE_TITLES[result_type]) + (
            f" <span class='qra-summary-value'>{' · '.join(summary_values)}</span>" if summary_values else "")
        sections.append(
            f"<details class='qra-type qra-type-{result_type}'{opened}><summary>{summary}</summary>"
            "<table class='qra-template'><thead><tr><th>Measure</th><th>Level / system</th><th class='qra-num'>Value</th>"
            f"<th class='qra-num' title='experiments with results'>n</th></tr></thead><tbody>{''.join(body)}</tbody></table></details>")
    caption = f"<p class='qra-caption'>{escape_html(assessment.caption())}</p>"
    legend = ("<p class='qra-hint'>CV* cells are tinted from green (0) to red (≥ 40); hover “n/a” for the reason a value "
              "is not defined. Click a section title to fold it.</p>")
    return caption + "".join(sections) + legend


def headline_cards(assessment) -> str:
    """Study-level CV*, P and W (τ for two experiments) as cards, with n and the conventions."""
    rows = assessment.rows

    def card(title: str, value: str, detail: str, css: str) -> str:
        return (f"<div class='qra-card {css}'><div class='qra-card-title'>{escape_html(title)}</div>"
                f"<div class='qra-card-value'>{escape_html(value)}</div><div class='qra-card-detail'>{escape_html(detail)}</div></div>")

    def study_value(measure: str) -> str:
        found = [r.value for r in rows if r.level == "study" and r.measure == measure]
        return "n/a" if not found or math.isnan(found[0]) else number(found[0], measure)

    shown = lambda r: "n/a" if math.isnan(r.value) else number(r.value, r.measure)
    agreement = [r for r in rows if r.level == "qc" and r.measure in ("W", "tau")]
    symbol = {"W": "W", "tau": "τ"}
    # W and τ are different statistics: the card names each value's own, never one "W / τ"
    title = " and ".join(dict.fromkeys(symbol[r.measure] for r in agreement)) or "W"
    if len(agreement) == 1:
        row = agreement[0]
        rank = (shown(row), f"{symbol[row.measure]} · {row.quality_criterion}")
    elif agreement:
        rank = (" / ".join(shown(r) for r in agreement[:3]),
                "per criterion: " + ", ".join(f"{r.quality_criterion} {symbol[r.measure]} {shown(r)}" for r in agreement[:3]))
    else:
        rank = ("n/a", "needs scores of two or more systems")
    cards = [
        card("CV* (study)", study_value("CV*"), "mean of the system CV*s · lower is better", "qra-card-cv"),
        card("P (study)", study_value("P"), "system pairs ranked the same way", "qra-card-p"),
        card(title, *rank, "qra-card-w"),
        card("n", str(assessment.n), f"experiments · {assessment.conventions.describe()} conventions", "qra-card-n"),
    ]
    return f"<div class='qra-cards'>{''.join(cards)}</div>"


def published_comparison(assessment, records: list[dict]) -> str:
    """A paper example's published numbers beside the computed ones, rounded as the paper printed
    them, with the documented reason where they differ (``metadata.published_values``)."""
    from ..errors import QRAInputError
    from ..examples import published_table

    rows, sources = [], []
    for record in records:
        try:
            computed = assessment.value(record["measure"], record["level"], record.get("quality_criterion"), record.get("system"))
        except QRAInputError:
            continue
        where = " / ".join(p for p in (record.get("quality_criterion"), record.get("system")) if p) or "whole study"
        rows.append((f"{MEASURE_LABELS.get(record['measure'], record['measure'])} · {where}", computed, record["published"],
                     record.get("note", "")))
        sources.append(record.get("source", ""))
    if not rows:
        return ""
    table = published_table(rows)
    body = []
    for (_, row), source in zip(table.iterrows(), sources):
        state = "qra-match" if row["match"] else ("qra-explained" if row["note"] else "qra-mismatch")
        mark = "✓ same" if row["match"] else ("differs: " + row["note"] if row["note"] else "differs (no documented reason)")
        body.append(f"<tr class='{state}'><th scope='row'>{escape_html(row['what'])}</th><td class='qra-num'>{escape_html(row['published'])}</td>"
                    f"<td class='qra-num'>{escape_html(row['computed'])}</td><td>{escape_html(source)}</td><td>{escape_html(mark)}</td></tr>")
    return ("<table class='qra-template qra-published'><thead><tr><th>Value</th><th class='qra-num'>Published</th>"
            "<th class='qra-num'>Computed</th><th>Where</th><th>Check</th></tr></thead><tbody>" + "".join(body) + "</tbody></table>"
            "<p class='qra-hint'>Computed values are rounded to the digits the paper printed.</p>")


def side_by_side(first, second) -> str:
    """QC- and study-level values of the same study under two conventions, with the difference."""
    def keyed(assessment):
        frame = assessment.to_frame()
        frame = frame[frame.level != "system"]
        # a study-level row has no criterion: None on pandas 2, NaN in pandas 3's str column (truthy)
        return {(r.result_type, r.measure, r.level, r.quality_criterion if isinstance(r.quality_criterion, str) else ""): r.value
                for r in frame.itertuples()}

    a, b = keyed(first), keyed(second)
    name_a, name_b = escape_html(first.conventions.describe()), escape_html(second.conventions.describe())
    body = []
    for key in dict.fromkeys([*a, *b]):
        _, measure, _level, qc = key
        va, vb = a.get(key, float("nan")), b.get(key, float("nan"))
        differs = not (math.isnan(va) and math.isnan(vb)) and (math.isnan(va) or math.isnan(vb) or number(va, measure) != number(vb, measure))
        where = escape_html(qc) if qc else "whole study"
        body.append(f"<tr class='{'qra-differs' if differs else ''}'><th scope='row'>{_label(measure)}</th><td>{where}</td>"
                    f"{cell(va, measure)}{cell(vb, measure)}</tr>")
    return (f"<table class='qra-template qra-side-by-side'><thead><tr><th>Measure</th><th>Level</th><th class='qra-num'>{name_a}</th>"
            f"<th class='qra-num'>{name_b}</th></tr></thead><tbody>{''.join(body)}</tbody></table>"
            "<p class='qra-hint'>Highlighted rows differ at the printed precision.</p>")


HEADERS = COLUMN_TITLES  # human column headers (the app and the HTML report share them)


def frame_table(frame, *, caption: str = "", headers: dict | None = None, decimals: int = 3, index: bool = False,
                css: str = "") -> str:
    """Any frame in the app's one table style (the template's): human headers (:data:`HEADERS`),
    numbers right-aligned at ``decimals`` places, "–" where a value is undefined, every cell escaped."""
    import numpy as np
    import pandas as pd

    names = {**HEADERS, **(headers or {})}
    frame = frame.reset_index() if index else frame
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]) for c in frame.columns]
    head = "".join(f"<th scope='col' class='{'qra-num' if num else ''}'>{escape_html(str(names.get(c, c)))}</th>"
                   for c, num in zip(frame.columns, numeric))
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for value, num in zip(row, numeric):
            if isinstance(value, list):
                value = ", ".join(map(str, value))
            if value is None or (not isinstance(value, str) and pd.isna(value)):
                cells.append("<td class='qra-num qra-na'>–</td>" if num else "<td></td>")
            elif num and isinstance(value, (float, np.floating)):
                cells.append(f"<td class='qra-num'>{float(value):.{decimals}f}</td>")
            elif num:
                cells.append(f"<td class='qra-num'>{escape_html(str(value))}</td>")
            else:
                cells.append(f"<td>{escape_html(str(value))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    title = f"<caption>{escape_html(caption)}</caption>" if caption else ""
    return (f"<div class='qra-scroll'><table class='qra-template {css}'>{title}<thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table></div>")


def interval_template(assessment) -> str:
    """The QRA++ template with each interval after its value ("12.01 [9.8, 14.3]"), in the template's
    style: the value columns right-aligned, the caption saying how the intervals were made, and under
    the table the caution of each interval marked ‡ (the frame's ``ci_note``)."""
    table = assessment.table(intervals=True)
    caption = escape_html(assessment.caption() + ". " + assessment.interval_caption())
    value_columns = {c for c in table.columns if c.endswith("level")}
    head = "".join(("<th scope='col' class='qra-num'>" if c in value_columns else "<th scope='col'>") + f"{escape_html(c)}</th>"
                   for c in table.columns)
    body = []
    for row in table.itertuples(index=False):
        cells = [("<td class='qra-num'>" if c in value_columns else "<td>") + f"{escape_html(str(v).strip())}</td>"
                 for c, v in zip(table.columns, row)]
        kind = (" class='qra-type-start'" if str(row[0]).startswith("Type ") else
                " class='qra-system-row'" if str(row[0]).startswith(" ") else "")  # the template indents a system
        body.append(f"<tr{kind}>{''.join(cells)}</tr>")
    cautions = "".join(f"<li>{escape_html(line)}</li>" for line in assessment.caution_footnotes())
    return (f"<div class='qra-scroll'><p class='qra-caption'>{caption}</p><table class='qra-template qra-interval-table'>"
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            + (f"<ul class='qra-cautions'>{cautions}</ul>" if cautions else "") + "</div>")
