"""HTML the Assessment tab shows: headline cards, the QRA++ template as a styled table, the
published-vs-computed table of a paper example, and two conventions side by side.

Presentation only: every number comes from an :class:`~qra_widgets.Assessment`; nothing is
computed here except formatting (decimals); every table goes through :mod:`qra_widgets.report.html`.
Every user-given name is HTML-escaped.
"""

from __future__ import annotations

import math

from ..overview import COLUMN_TITLES
from ..report.html import escape as escape_html
from ..report.html import table, template_html
from ..report.template import DEFAULT_DECIMALS, MEASURE_LABELS, OTHER_DECIMALS


def _places(measure: str) -> int:
    return DEFAULT_DECIMALS.get(measure, OTHER_DECIMALS)


def number(value: float, measure: str) -> str:
    """A value at the precision the template uses (CV* 2 decimals, the others 3)."""
    return f"{value:.{_places(measure)}f}"


def template_table(assessment, css: str = "") -> str:
    """The QRA++ template as the Assessment tab shows it: :func:`qra_widgets.report.html.template_html`
    (the same cells as the Markdown and LaTeX reports, one section per result type, the notes under it)."""
    return template_html(assessment, intervals=False, css=css)


def headline_cards(assessment) -> str:
    """Study-level CV*, P and W (τ for two experiments) as cards, with n and the conventions."""
    rows = assessment.rows

    def card(title: str, value: str, detail: str, css: str) -> str:
        return (
            f"<div class='qra-card {css}'><div class='qra-card-title'>{escape_html(title)}</div>"
            f"<div class='qra-card-value'>{escape_html(value)}</div><div class='qra-card-detail'>{escape_html(detail)}</div></div>"
        )

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
        rank = (
            " / ".join(shown(r) for r in agreement[:3]),
            "per criterion: "
            + ", ".join(f"{r.quality_criterion} {symbol[r.measure]} {shown(r)}" for r in agreement[:3]),
        )
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
            computed = assessment.value(
                record["measure"], record["level"], record.get("quality_criterion"), record.get("system")
            )
        except QRAInputError:
            continue
        where = " / ".join(p for p in (record.get("quality_criterion"), record.get("system")) if p) or "whole study"
        rows.append(
            (
                f"{MEASURE_LABELS.get(record['measure'], record['measure'])} · {where}",
                computed,
                record["published"],
                record.get("note", ""),
            )
        )
        sources.append(record.get("source", ""))
    if not rows:
        return ""
    import pandas as pd

    shown = published_table(rows)
    states = [
        "qra-match" if row["match"] else ("qra-explained" if row["note"] else "qra-mismatch")
        for _, row in shown.iterrows()
    ]
    checks = [
        "✓ same" if row["match"] else ("differs: " + row["note"] if row["note"] else "differs (no documented reason)")
        for _, row in shown.iterrows()
    ]
    frame = pd.DataFrame(
        {
            "Value": shown["what"],
            "Published": shown["published"],
            "Computed": shown["computed"],
            "Where": sources,
            "Check": checks,
        }
    )
    return (
        table(frame, css="qra-template qra-published", numeric=("Published", "Computed"), row_classes=states)
        + "<p class='qra-hint'>Computed values are rounded to the digits the paper printed.</p>"
    )


def side_by_side(first, second) -> str:
    """QC- and study-level values of the same study under two conventions, with the difference."""

    def keyed(assessment):
        frame = assessment.to_frame()
        frame = frame[frame.level != "system"]
        # a study-level row has no criterion: None on pandas 2, NaN in pandas 3's str column (truthy)
        return {
            (
                r.result_type,
                r.measure,
                r.level,
                r.quality_criterion if isinstance(r.quality_criterion, str) else "",
                getattr(r, "experiments", ""),  # "O vs R2": a Type III row of one pair of experiments (n > 2)
            ): r.value
            for r in frame.itertuples()
        }

    import pandas as pd

    a, b = keyed(first), keyed(second)
    name_a, name_b = first.conventions.describe(), second.conventions.describe()
    shown = lambda value, measure: "n/a" if math.isnan(value) else number(value, measure)
    rows, differing = [], []
    for key in dict.fromkeys([*a, *b]):
        _, measure, _level, qc, pair = key
        va, vb = a.get(key, float("nan")), b.get(key, float("nan"))
        differs = not (math.isnan(va) and math.isnan(vb)) and (
            math.isnan(va) or math.isnan(vb) or number(va, measure) != number(vb, measure)
        )
        label = MEASURE_LABELS.get(measure, measure) + (f" ({pair})" if pair else "")
        rows.append([label, qc or "whole study", shown(va, measure), shown(vb, measure)])
        differing.append("qra-differs" if differs else "")
    frame = pd.DataFrame(rows, columns=["Measure", "Level", name_a, name_b])
    return (
        table(frame, css="qra-template qra-side-by-side", numeric=(name_a, name_b), row_classes=differing)
        + "<p class='qra-hint'>Highlighted rows differ at the printed precision.</p>"
    )


HEADERS = COLUMN_TITLES  # human column headers (the app and the HTML report share them)


def frame_table(
    frame, *, caption: str = "", headers: dict | None = None, decimals: int = 3, index: bool = False, css: str = ""
) -> str:
    """Any frame in the app's one table style (the template's): :func:`qra_widgets.report.html.table`
    with human headers (:data:`HEADERS`)."""
    return table(
        frame.reset_index() if index else frame,
        headers={**HEADERS, **(headers or {})},
        decimals=decimals,
        css=f"qra-template {css}",
        caption=caption,
        scroll=True,
    )


def interval_template(assessment) -> str:
    """The QRA++ template with each interval after its value ("12.01 [9.8, 14.3]"):
    :func:`qra_widgets.report.html.template_html` with intervals, the caption saying how they were
    made, under the table the caution of each interval marked ‡."""
    return template_html(assessment, intervals=True, css="qra-interval-table")
