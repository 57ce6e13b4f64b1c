"""The app's tables as HTML: every table a view of the app shows is written here from the
library's results (frames, assessments, comparisons), so the views (:mod:`qra_widgets.widgets`)
hold HTML strings and plain Python data, never a pandas frame.

Presentation only: nothing is computed here except formatting (decimals, which rows to show);
every table goes through :func:`qra_widgets.report.html.table` and every user-given name is
escaped (:mod:`qra_widgets.report.escape`).
"""

from __future__ import annotations

import math

from .. import charts
from ..overview import COLUMN_TITLES
from .formats import AGREEMENT_LABELS
from .html import escape, table
from .template import DEFAULT_DECIMALS, MEASURE_LABELS, OTHER_DECIMALS

#: The rows of an import report shown on the Library tab (the rest are counted).
REPORT_ROWS_SHOWN = 200


def _places(measure: str) -> int:
    return DEFAULT_DECIMALS.get(measure, OTHER_DECIMALS)


def number(value: float, measure: str) -> str:
    """A value at the precision the template uses (CV* 2 decimals, the others 3)."""
    return f"{value:.{_places(measure)}f}"


# ---------------------------------------------------------------------- the Assessment tab


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


def subset_table(comparison) -> str:
    """A subset comparison (:func:`~qra_widgets.compare.compare_subsets`): its table, one row per
    measure, in the app's table style."""
    return frame_table(comparison.table, index=True, headers={"index": "Measure"})


# ---------------------------------------------------------------------- the Side by side tab


def _cell(value, decimals: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{decimals}f}"
    return str(value)


def verdict_table(frame, system: str | None = None) -> str:
    """The consistency verdicts (of one ``system``, or every one) as an escaped HTML table
    (:func:`qra_widgets.report.html.table`)."""
    import pandas as pd

    if system is not None:
        frame = frame[frame.system == system]
    if not len(frame):
        return "<p>No reproduction to compare with the original.</p>"
    columns = [
        ("system", "System"),
        ("experiment", "Reproduction"),
        ("original_value", "Original"),
        ("value", "Reproduction value"),
        ("pi_low", "PI low"),
        ("pi_high", "PI high"),
        ("inside_pi", "Inside PI"),
        ("tost_p", "TOST p"),
        ("equivalent", "Equivalent"),
        ("order_kept", "Order kept"),
        ("note", "Note"),
    ]
    rows = []
    for record in frame.to_dict("records"):
        cells = []
        for key, _ in columns:
            value = record[key]
            value = (
                None
                if value is None or (not isinstance(value, (str, float, int, bool)) and str(value) == "<NA>")
                else value
            )
            cells.append(_cell(value))
        rows.append(cells)
    return table(pd.DataFrame(rows, columns=[title for _, title in columns]), css="qra-template qra-verdicts")


def pooled_summary(frame) -> str:
    """One line per system: the estimator, the pooled value and interval, the prediction interval, τ², I², Q."""
    lines = []
    for record in frame[frame.row == "pooled"].to_dict("records"):
        prediction = frame[(frame.row == "prediction") & (frame.system == record["system"])].iloc[0]
        pi = (
            f"prediction interval [{prediction.ci_low:.3f}, {prediction.ci_high:.3f}]"
            if not math.isnan(prediction.ci_low)
            else escape(prediction.note or "no prediction interval")
        )
        if math.isnan(record["value"]):
            lines.append(f"<li>{escape(str(record['system']))}: {escape(record['note'])}</li>")
            continue
        lines.append(
            f"<li><b>{escape(str(record['system']))}</b>: pooled {record['value']:.3f} "
            f"[{record['ci_low']:.3f}, {record['ci_high']:.3f}] ({escape(record['estimator'])}, "
            f"{escape(charts.CI_LABELS.get(record['ci_method'], record['ci_method']))} interval, k = {record['k']}); "
            f"{pi}; τ² = {record['tau2']:.4g} [{record['tau2_low']:.4g}, {record['tau2_high']:.4g}], "
            f"I² = {record['i2']:.0f}% [{record['i2_low']:.0f}, {record['i2_high']:.0f}], Q({record['q_df']}) = {record['q']:.2f}, "
            f"p = {record['q_p']:.3g}</li>"
        )
    return "<ul>" + "".join(lines) + "</ul>"


def influence_note(influence) -> str:
    """One line naming the experiments that leave-one-out pooling marks influential (ringed on the plot)."""
    marked = influence[influence["influential"].fillna(False).astype(bool)] if len(influence) else influence
    if not len(marked):
        return ""
    names = ", ".join(
        f"{escape(str(r.system))} · {escape(str(r.label))} (deleted residual {r.deleted_residual:.2f}, "
        f"pooled without it {r.estimate:.3f})"
        for r in marked.itertuples()
    )
    return f"<p class='qra-note qra-influential'>Influential (leave one out; ringed): {names}.</p>"


# ---------------------------------------------------------------------- the Intervals tab


def agreement_table(assessment) -> str:
    """The annotator agreement within each experiment (with intervals after a bootstrap)."""
    import pandas as pd

    frame = assessment.annotator_agreement()
    if not len(frame):
        return ""
    marks = assessment.interval_cautions()  # the caution of an interval: its mark, explained under the interval table
    rows = []
    for record in frame.to_dict("records"):
        value = record["value"]
        text = "n/a" if math.isnan(value) else f"{value:.3f}"
        low, high = record.get("ci_low", math.nan), record.get("ci_high", math.nan)
        if not (math.isnan(low) or math.isnan(high)):
            text += f" [{low:.3f}, {high:.3f}]" + marks.get(record.get("ci_note", ""), "")
        rows.append(
            [
                str(record["experiment"]),
                str(record["quality_criterion"]),
                AGREEMENT_LABELS.get(record["measure"], str(record["measure"])),
                text,
                record["n_items"],
                record["n_raters"],
            ]
        )
    shown = pd.DataFrame(rows, columns=["Experiment", "Criterion", "Measure", "Value", "Items", "Raters"])
    return table(
        shown,
        css="qra-template qra-agreement",
        caption="Annotator agreement within each experiment",
        numeric=("Value",),
    )


def plan_table(plan) -> str:
    """The reproduction planner's designs (:func:`~qra_widgets.plan_reproduction` rows), their
    widths at 3 decimals, without the ``runs`` column."""
    shown = plan.drop(columns=["runs"]).round(
        {c: 3 for c in ("expected_ci_width", "expected_half_width", "ci_width_sd", "ci_width_p10", "ci_width_p90")}
    )
    return frame_table(shown, caption="Expected 95% interval width of each design")


# ---------------------------------------------------------------------- the Overview and Library tabs


def property_effects(effects) -> tuple[str, bool]:
    """The Overview's property analysis (``Overview.property_effects``): its table, or the hint
    saying how to get one, and whether any property had enough pairs to draw."""
    if not len(effects):
        hint = (
            "<p>No pair of experiments answers a catalogue property in both: fill in the properties in the "
            "Experiments tab to see which ones matter.</p>"
        )
        return hint, False
    return frame_table(effects, caption="Properties and pair CV*"), bool((effects.status != "too few pairs").any())


def upload_preview(uploads, rows: int, cell: int) -> str:
    """An Annotations card's preview: the first ``rows`` rows of its first file, each cell cut at
    ``cell`` characters (:meth:`~qra_widgets.io.uploads.UploadedFiles.preview`), escaped."""
    name, head, total = uploads.preview(rows, cell)
    more = f" ({len(uploads) - 1} more file(s) with the same columns)" if len(uploads) > 1 else ""
    return f"<p>First {len(head)} of {total} rows of <code>{escape(name)}</code>{more}:</p>" + head.to_html(
        index=False, escape=True, classes="qra-template"
    )


def report_table(report) -> str:
    """The ImportReport as an escaped HTML table (the first :data:`REPORT_ROWS_SHOWN` rows)."""
    frame = report.to_frame()
    more = len(frame) - REPORT_ROWS_SHOWN
    table = frame.head(REPORT_ROWS_SHOWN).to_html(
        index=False, escape=True, border=0, justify="left", classes="qra-import-table"
    )
    return table + (f"<p>… and {more} more rows.</p>" if more > 0 else "")
