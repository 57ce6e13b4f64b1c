"""HTML the Assessment tab shows: headline cards, the QRA++ template as a styled table, the
published-vs-computed table of a paper example, and two conventions side by side.

Presentation only: every number comes from an :class:`~qra_widgets.Assessment`; nothing is
computed here except formatting (decimals); every table goes through :mod:`qra_widgets.report.html`.
Every user-given name is HTML-escaped.
"""

from __future__ import annotations

import math

from ..report.app_html import HEADERS, frame_table, number, published_comparison, side_by_side, subset_table  # noqa: F401 (the tab's tables)
from ..report.html import escape as escape_html
from ..report.html import template_html


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


def interval_template(assessment) -> str:
    """The QRA++ template with each interval after its value ("12.01 [9.8, 14.3]"):
    :func:`qra_widgets.report.html.template_html` with intervals, the caption saying how they were
    made, under the table the caution of each interval marked ‡."""
    return template_html(assessment, intervals=True, css="qra-interval-table")
