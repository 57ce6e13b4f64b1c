"""The QRA++ reporting template (QRA++ Tables 3-5), once: its rows as text cells, its caption and the
sentence on its intervals, which every writer renders (Markdown, LaTeX and CSV in
:mod:`~qra_widgets.report.formats`, HTML in :mod:`~qra_widgets.report.html`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..assess import Assessment
    from ..result import ResultRow


MEASURE_LABELS = {
    "CV*": "CV*",
    "r": "r",
    "rho": "ρ",
    "tau": "τ",
    "W": "W",
    "kappa": "κ",
    "fleiss_kappa": "Fleiss' κ",
    "alpha": "α",
    "P": "P",
}
DEFAULT_DECIMALS = {"CV*": 2}
OTHER_DECIMALS = 3
TEMPLATE_COLUMNS = ["Type of result", "Measure applied", "System level", "QC level", "Study level"]  # QRA++ Tables 3-5


def table(assessment: Assessment, decimals: dict[str, int] | None = None, intervals: bool | None = None):
    """The QRA++ reporting template (QRA++ Tables 3-5): one row per system or measure.

    Values are rounded to ``decimals[measure]`` places (CV* 2, the rest 3, unless given)
    and shown without trailing zeros, as in the paper; ``n/a`` marks a level where the
    measure does not apply.
    """
    import pandas as pd

    frame = pd.DataFrame(template_rows(assessment, decimals, intervals), columns=TEMPLATE_COLUMNS)
    frame.attrs["n"] = assessment.n
    return frame


def template_rows(
    assessment: Assessment, decimals: dict[str, int] | None = None, intervals: bool | None = None
) -> list[list[str]]:
    """The rows of :func:`table` as lists of text cells (what every writer of the template reads)."""
    places = {**DEFAULT_DECIMALS, **(decimals or {})}
    fmt = lambda row: _format(row.value, places.get(row.measure, OTHER_DECIMALS))
    if intervals if intervals is not None else bool(assessment.intervals):
        fmt = _with_interval(assessment, fmt, places, assessment.interval_cautions())
    rows = assessment.rows
    multi = len({r.quality_criterion for r in rows if r.quality_criterion}) > 1
    lines: list[list[str]] = []
    study_rows = {r.measure: r for r in rows if r.level == "study"}
    for result_type in ("I", "II", "III", "IV"):
        lines += _template_block(rows, result_type, study_rows, multi, fmt)
    return lines


def caption(assessment: Assessment) -> str:
    return (
        f"QRA++ reproducibility assessment of {assessment.study.name or assessment.study.id} (n = {assessment.n}; "
        f"conventions: {assessment.conventions.describe()})"
    )


def _with_interval(assessment: Assessment, fmt, places: dict, marks: dict[str, str]):
    """ "12.01 [9.8, 14.3]": the value, then its interval at the same number of places; a
    Vangel interval (over experiments, not items) is marked "†", an interval with a caution
    its mark (``marks``: :meth:`~qra_widgets.assess.Assessment.interval_cautions`)."""

    def formatted(row: ResultRow) -> str:
        key = row.key
        found = assessment.intervals.get(key)
        text = fmt(row)
        if found is None or not np.isfinite(found[0]):
            return text
        digits = places.get(row.measure, OTHER_DECIMALS)
        high = "inf" if np.isinf(found[1]) else _format(found[1], digits)
        mark = ("†" if found[2] == "vangel" else "") + marks.get(assessment.ci_note(key, row.value), "")
        return f"{text} [{_format(found[0], digits)}, {high}]{mark}"

    return formatted


def interval_caption(assessment: Assessment) -> str:
    """One sentence on the intervals shown (empty when there are none): the method and what
    each kind of interval generalises over, in the words of the ``ci_method`` and ``ci_over``
    columns."""
    info = assessment.bootstrap_info
    if not info:
        return ""
    from ..intervals import method_label

    used = {(found[2], found[4]) for found in assessment.intervals.values() if found[2]}
    parts = [f"Brackets: {info['ci']:.0%} confidence intervals, {method_label(info)}"]
    sided = sorted(method for method, _over in used if method.endswith("one-sided"))
    if sided:
        parts.append(
            " and ".join(sided) + " where the estimate is consistent with a perfect reproduction "
            "(CV* [0, upper bound]; r, rho, tau, W, P, kappa, alpha [lower bound, 1])"
        )
    if any(method == "vangel" for method, _over in used):
        parts.append("† vangel: Vangel (1996) interval of a system's CV*, over experiments")
    return "; ".join(parts) + "."


def _format(value: float | None, decimals: int) -> str:
    if value is None or np.isnan(value):
        return "nan"
    text = f"{round(float(value), decimals):.{decimals}f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text in ("-0", "") else text


def _template_block(rows: list[ResultRow], result_type: str, study_rows: dict, multi: bool, fmt) -> list[list[str]]:
    """Rows of one result type: a QC-level row per measure (labelled once per QC), then its systems."""
    typed = [r for r in rows if r.result_type == result_type]
    lines: list[list[str]] = []
    study_shown: set[str] = set()
    for qc in dict.fromkeys(r.quality_criterion for r in typed if r.quality_criterion):
        label = f"Type {result_type}: {qc}" if multi else f"Type {result_type}"
        for row in (r for r in typed if r.quality_criterion == qc and r.level == "qc"):
            study = study_rows.get(row.measure) if row.experiments is None else None
            study_cell = "n/a" if study is None else ("" if row.measure in study_shown else fmt(study))
            if study is not None:
                study_shown.add(row.measure)
            system_cell = "" if result_type in ("I", "III") else "n/a"
            shown = label if (label and (multi or not lines)) else ""
            lines.append([shown, _measure_label(row, result_type), system_cell, fmt(row), study_cell])
            label = ""
            for system_row in (
                r
                for r in typed
                if r.quality_criterion == qc
                and r.level == "system"
                and r.measure == row.measure
                and r.experiments == row.experiments
            ):
                lines.append([f"  {system_row.system}", _pair_label(system_row), fmt(system_row), "", ""])
    return lines


def _pair_label(row: ResultRow) -> str:
    """``"κ (O vs R2)"``: the measure, and for a value between two of the study's experiments, which."""
    label = MEASURE_LABELS[row.measure]
    return f"{label} ({' vs '.join(row.experiments)})" if row.experiments else label


def _measure_label(row: ResultRow, result_type: str) -> str:
    if row.experiments:
        return _pair_label(row)
    label = MEASURE_LABELS[row.measure]
    if result_type == "I":
        return "(mean) CV*"
    if row.measure in ("r", "rho") and row.n > 2:
        return f"mean {label}"
    if result_type == "III":
        return f"(mean) {label}"
    return label
