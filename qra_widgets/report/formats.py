"""The Assessment's writers: the QRA++ template (QRA++ Tables 3-5), Markdown, LaTeX, CSV, JSON,
HTML and the Belz (2021) narrative, with their captions and signature.

:class:`~qra_widgets.assess.Assessment` holds the results and inherits these methods, as a
pandas ``DataFrame`` delegates its ``to_*`` methods to ``pandas.io.formats``: the data object
stays small and each output language escapes through :mod:`qra_widgets.report.escape`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import QRAInputError
from .escape import html as escape_html
from .escape import latex, markdown_cell

if TYPE_CHECKING:
    from .. import measures as m
    from ..assess import _Row

MEASURE_LABELS = {
    "CV*": "CV*", "r": "r", "rho": "ρ", "tau": "τ", "W": "W",
    "kappa": "κ", "fleiss_kappa": "Fleiss' κ", "alpha": "α", "P": "P",
}
DEFAULT_DECIMALS = {"CV*": 2}
AGREEMENT_HEADER = ["Experiment", "Quality criterion", "Measure", "Value", "Items", "Raters"]
AGREEMENT_LABELS = {"alpha": "Krippendorff's α", "fleiss_kappa": "Fleiss' κ", "kappa": "Cohen's κ",
                    "ac1": "Gwet's AC1", "bp": "Brennan–Prediger"}
OTHER_DECIMALS = 3
TEMPLATE_COLUMNS = ["Type of result", "Measure applied", "System level", "QC level", "Study level"]  # QRA++ Tables 3-5
CAUTION_MARK = "‡"  # an interval with a caution (ci_note); "†" marks Vangel's interval


def csv_head(conventions) -> str:
    """The two ``#`` lines every CSV report starts with: the signature and how to cite."""
    from ..citation import cite_line

    return f"# signature: {conventions.signature()}\n# {cite_line()}\n"


def signature_fields(conventions) -> dict:
    """``signature``, ``version`` and ``cite``: the first keys of every JSON report."""
    from ..citation import cite_line
    from ..version import __version__

    return {"signature": conventions.signature(), "version": __version__, "cite": cite_line()}


def signature_line(conventions) -> str:
    """The signature and how to cite, as the last line of a text report."""
    from ..citation import cite_line

    return f"{conventions.signature()}. {cite_line()}"


class AssessmentFormats:
    """The views papers need, for :class:`~qra_widgets.assess.Assessment` (which holds ``study``,
    ``rows``, ``cv``, ``conventions``, ``intervals`` and ``bootstrap_info``)."""

    # ------------------------------------------------------------------ the QRA++ template

    def table(self, decimals: dict[str, int] | None = None, intervals: bool | None = None):
        """The QRA++ reporting template (QRA++ Tables 3-5): one row per system or measure.

        Values are rounded to ``decimals[measure]`` places (CV* 2, the rest 3, unless given)
        and shown without trailing zeros, as in the paper; ``n/a`` marks a level where the
        measure does not apply.
        """
        import pandas as pd

        table = pd.DataFrame(self._template(decimals, intervals), columns=TEMPLATE_COLUMNS)
        table.attrs["n"] = self.n
        return table

    def _template(self, decimals: dict[str, int] | None = None, intervals: bool | None = None) -> list[list[str]]:
        """The rows of :meth:`table` as lists of text cells (what every writer of the template reads)."""
        places = {**DEFAULT_DECIMALS, **(decimals or {})}
        fmt = lambda row: _format(row.value, places.get(row.measure, OTHER_DECIMALS))
        if intervals if intervals is not None else bool(self.intervals):
            fmt = self._with_interval(fmt, places, self.interval_cautions())
        multi = len({r.quality_criterion for r in self.rows if r.quality_criterion}) > 1
        lines: list[list[str]] = []
        study_rows = {r.measure: r for r in self.rows if r.level == "study"}
        for result_type in ("I", "II", "III", "IV"):
            lines += _template_block(self.rows, result_type, study_rows, multi, fmt)
        return lines

    def caption(self) -> str:
        return (f"QRA++ reproducibility assessment of {self.study.name or self.study.id} (n = {self.n}; "
                f"conventions: {self.conventions.describe()})")

    def to_markdown(self, decimals: dict[str, int] | None = None) -> str:
        escape = markdown_cell  # names stay text: no markup, no new row, no HTML entity
        lines = [f"**{escape(self.caption())}**", "", "| " + " | ".join(TEMPLATE_COLUMNS) + " |",
                 "|" + "|".join("---" for _ in TEMPLATE_COLUMNS) + "|"]
        lines += ["| " + " | ".join(escape(cell) for cell in row) + " |" for row in self._template(decimals)]
        lines += [""] + [f"- {escape(note)}" for note in self.notes]
        lines += self._agreement_markdown(escape)
        lines += ["", f"_{escape(self._stamp())}_"]
        return "\n".join(lines).rstrip() + "\n"

    def _stamp(self) -> str:
        """The signature (conventions and package version) and how to cite, for the end of a report."""
        return signature_line(self.conventions)

    # ------------------------------------------------------------------ intervals and annotator agreement in reports

    def _with_interval(self, fmt, places: dict, marks: dict[str, str]):
        """"12.01 [9.8, 14.3]": the value, then its interval at the same number of places; a
        Vangel interval (over experiments, not items) is marked "†", an interval with a caution
        its mark (``marks``: :meth:`interval_cautions`)."""
        def formatted(row: _Row) -> str:
            key = (row.measure, row.level, row.quality_criterion, row.system)
            found = self.intervals.get(key)
            text = fmt(row)
            if found is None or not np.isfinite(found[0]):
                return text
            digits = places.get(row.measure, OTHER_DECIMALS)
            high = "inf" if np.isinf(found[1]) else _format(found[1], digits)
            mark = ("†" if found[2] == "vangel" else "") + marks.get(self.ci_note(key, row.value), "")
            return f"{text} [{_format(found[0], digits)}, {high}]{mark}"
        return formatted

    def ci_note(self, key: tuple, estimate: float) -> str:
        """The caution on the interval of ``key`` (a key of ``intervals``; empty when there is none
        or nothing to say): :func:`~qra_widgets.intervals.interval_caution`, the one rule every
        rendering shows."""
        from ..intervals import interval_caution

        found = self.intervals.get(key)
        if found is None:
            return ""
        low, high, method, _why, over = found
        measure, level = {"annotators": (key[3], "annotators"), "mean": ("mean", "system")}.get(key[0], key[:2])
        info = self.bootstrap_info or {}
        return interval_caution(measure, level, method, over, estimate, low, high,
                                experiments=len(self.study.experiments), paired=info.get("paired"))

    def interval_cautions(self) -> dict[str, str]:
        """``{caution: mark}``: each distinct ``ci_note`` of the tidy frame and the annotator-agreement
        table, in their order, marked ``‡1``, ``‡2``, ... (empty without intervals).  Every rendering
        marks a cautioned interval and says its caution under the table (:meth:`caution_footnotes`)."""
        if not self.intervals:
            return {}
        agreement = self._agreement() if any(key[0] == "annotators" for key in self.intervals) else {}
        notes = [self.ci_note((r.measure, r.level, r.quality_criterion, r.system), r.value) for r in self.rows]
        notes += list(agreement.get("ci_note", ()))
        return {text: f"{CAUTION_MARK}{i}" for i, text in enumerate(dict.fromkeys(n for n in notes if n), 1)}

    def _agreement(self):
        """:meth:`annotator_agreement`, computed once while the ratings, conventions and intervals
        stay the same objects: a report asks for it for its marks, its notes and its table."""
        key = (self.study.ratings, self.conventions, self.intervals, len(self.intervals))
        kept = self.__dict__.get("_agreement_kept")
        if kept is None or len(kept[0]) != len(key) or any(a is not b for a, b in zip(kept[0], key[:3])) or kept[0][3] != key[3]:
            kept = (key, self.annotator_agreement())
            self.__dict__["_agreement_kept"] = kept
        return kept[1]

    def caution_footnotes(self) -> list[str]:
        """``["‡1 criterion-level CV* interval: too short ...", ...]``: the footnotes of the marks."""
        return [f"{mark} {text}" for text, mark in self.interval_cautions().items()]

    def interval_caption(self) -> str:
        """One sentence on the intervals shown (empty when there are none): the method and what
        each kind of interval generalises over, in the words of the ``ci_method`` and ``ci_over``
        columns."""
        info = self.bootstrap_info
        if not info:
            return ""
        from ..intervals import method_label

        used = {(found[2], found[4]) for found in self.intervals.values() if found[2]}
        parts = [f"Brackets: {info['ci']:.0%} confidence intervals, {method_label(info)}"]
        sided = sorted(method for method, _over in used if method.endswith("one-sided"))
        if sided:
            parts.append(" and ".join(sided) + " where the estimate is consistent with a perfect reproduction "
                         "(CV* [0, upper bound]; r, rho, tau, W, P, kappa, alpha [lower bound, 1])")
        if any(method == "vangel" for method, _over in used):
            parts.append("† vangel: Vangel (1996) interval of a system's CV*, over experiments")
        return "; ".join(parts) + "."

    def _caption_with_intervals(self) -> str:
        """The caption, then (with intervals) how they were made and the cautions: for a LaTeX
        ``\\caption``, which has no room for notes under the table."""
        if not self.bootstrap_info:
            return self.caption()
        footnotes = "; ".join(self.caution_footnotes())
        return f"{self.caption()}. {self.interval_caption()}" + (f" {footnotes}." if footnotes else "")

    def _agreement_rows(self) -> list[list[str]]:
        frame = self._agreement()
        marks = self.interval_cautions() if len(frame) else {}
        rows = []
        columns = {name: frame[name].tolist() for name in frame.columns}  # a record per row, without pandas' to_dict
        for record in (dict(zip(columns, cells)) for cells in zip(*columns.values())):
            value = _format(record["value"], OTHER_DECIMALS)
            if np.isfinite(record.get("ci_low", np.nan)):
                value += f" [{_format(record['ci_low'], OTHER_DECIMALS)}, {_format(record['ci_high'], OTHER_DECIMALS)}]"
                value += marks.get(record.get("ci_note", ""), "")
            rows.append([record["experiment"], record["quality_criterion"], AGREEMENT_LABELS.get(record["measure"], record["measure"]),
                         value, str(record["n_items"]), str(record["n_raters"])])
        return rows

    def _agreement_markdown(self, escape) -> list[str]:
        lines = ["", f"_{escape(self.interval_caption())}_"] if self.bootstrap_info else []
        rows = self._agreement_rows()
        if not rows:
            return lines
        lines += ["", "**Annotator agreement within each experiment**", "",
                  "| " + " | ".join(AGREEMENT_HEADER) + " |", "|" + "|".join("---" for _ in AGREEMENT_HEADER) + "|"]
        return lines + ["| " + " | ".join(escape(cell) for cell in row) + " |" for row in rows]

    def to_latex(self, decimals: dict[str, int] | None = None) -> str:
        body = [" & ".join(_latex_escape(cell) for cell in row) + r" \\" for row in self._template(decimals)]
        return "\n".join([
            r"\begin{table}[t]", r"\centering", r"\begin{tabular}{llrrr}", r"\hline",
            " & ".join(_latex_escape(c) for c in TEMPLATE_COLUMNS) + r" \\", r"\hline", *body, r"\hline",
            r"\end{tabular}", rf"\caption{{{_latex_escape(self._caption_with_intervals())}}}",
            r"\end{table}", "", *self._agreement_latex(), f"% {self._stamp()}", "",
        ])

    def _agreement_latex(self) -> list[str]:
        rows = self._agreement_rows()
        if not rows:
            return []
        body = [" & ".join(_latex_escape(cell) for cell in row) + r" \\" for row in rows]
        return [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{lllrrr}", r"\hline",
                " & ".join(_latex_escape(c) for c in AGREEMENT_HEADER) + r" \\", r"\hline", *body, r"\hline",
                r"\end{tabular}", r"\caption{Annotator agreement within each experiment}", r"\end{table}", ""]

    def to_csv(self) -> str:
        """The tidy frame as CSV; with item-level ratings, a blank line and the annotator-agreement
        table follow.  Two ``#`` lines come first: the signature (conventions and package version)
        and how to cite, so read it with ``pandas.read_csv(path, comment="#")``.  Text cells are
        quoted (as R's ``write.csv`` does), so a ``#`` inside a name is never read as a comment,
        and text cells a spreadsheet would run as formulas get a leading ``'``
        (:mod:`qra_widgets.report.csvsafe`).

        >>> from qra_widgets import assess, examples
        >>> print(assess(examples.load("qrapp_example1")).to_csv().splitlines()[0])
        # signature: conventions:qrapp|version:...
        """
        import csv

        from .csvsafe import columns_to_csv, frame_to_csv

        head = csv_head(self.conventions)
        text = (columns_to_csv(self._columns(), nonnumeric=True) if self.rows  # the frame's text, without the frame
                else frame_to_csv(self.to_frame(), quoting=csv.QUOTE_NONNUMERIC))
        agreement = self.annotator_agreement()
        return head + text + ("\n" + frame_to_csv(agreement, quoting=csv.QUOTE_NONNUMERIC) if len(agreement) else "")

    def to_json(self) -> str:
        """One JSON object: ``signature`` (conventions and package version), ``version``, ``cite``
        (how to cite the tool and the method papers), ``results`` (the tidy frame's records),
        ``annotator_agreement`` (records; empty without item-level ratings) and ``bootstrap``
        (B, seed, level, method, resampling; empty without intervals).  ``NaN`` is ``null``."""
        import json

        return json.dumps({**signature_fields(self.conventions),
                           "results": json.loads(self.to_frame().to_json(orient="records")),
                           "annotator_agreement": json.loads(self.annotator_agreement().to_json(orient="records")),
                           "bootstrap": self.bootstrap_info}, indent=1, allow_nan=False, default=str)

    def _repr_html_(self) -> str:
        table = self.table().to_html(index=False, escape=True, classes="qra-table", na_rep="")
        notes = "".join(f"<li>{escape_html(note)}</li>" for note in self.notes)
        agreement = self._agreement_rows()
        extra = ""
        if self.bootstrap_info:
            extra += f"<p><i>{escape_html(self.interval_caption())}</i></p>"
        if agreement:
            header = "".join(f"<th>{escape_html(c)}</th>" for c in AGREEMENT_HEADER)
            body = "".join("<tr>" + "".join(f"<td>{escape_html(c)}</td>" for c in row) + "</tr>" for row in agreement)
            extra += f"<p><b>Annotator agreement within each experiment</b></p><table class='qra-table'><tr>{header}</tr>{body}</table>"
        extra += f"<p class='qra-cite'><small>{escape_html(self._stamp())}</small></p>"
        return f"<p><b>{escape_html(self.caption())}</b></p>{table}" + (f"<ul class='qra-notes'>{notes}</ul>" if notes else "") + extra

    # ------------------------------------------------------------------ narrative

    def narrative(self, quality_criterion: str, system: str) -> str:
        """The Belz (2021) section 5 report sentence for one system and QC."""
        if (quality_criterion, system) not in self.cv:
            raise QRAInputError(f"narrative: no CV* for {system!r} on {quality_criterion!r}")
        result = self.cv[(quality_criterion, system)]
        qc = self.study.quality_criterion(quality_criterion)
        experiments = [e for e in self.study.experiments if (quality_criterion, system, e.id) in self.study.scores]
        who = ", ".join(e.display_name for e in experiments)
        shift = ""
        if qc.scale_min != 0 and qc.scale_max is not None:
            shift = f", rescaled to 0..{_format(qc.scale_max - qc.scale_min, 3)}"
        elif qc.scale_min != 0:
            shift = f", shifted by {_format(-qc.scale_min, 3)} to start at 0"
        low, high = result.ci95
        return (
            f"{quality_criterion} measurement reproducibility for {system} was assessed on the basis of "
            f"{result.n} measurements ({who}){shift}: CV* = {_format(result.cv_star, 3)}, "
            f"mean = {_significant(result.mean)}, unbiased sample standard deviation = {_significant(result.sd)} "
            f"with 95% CI [{_significant(low)}, {_significant(high)}], sample size = {result.n}. "
            f"{_within_sentence(result)}{self._interval_sentence(quality_criterion, system)} "
            f"Computed with the {self.conventions.describe()} conventions."
        )

    def _interval_sentence(self, quality_criterion: str, system: str) -> str:
        found = self.intervals.get(("CV*", "system", quality_criterion, system))
        if found is None or not np.isfinite(found[0]):
            return ""
        high = "infinity" if np.isinf(found[1]) else _significant(found[1])
        caution = self.ci_note(("CV*", "system", quality_criterion, system), self.cv[(quality_criterion, system)].cv_star)
        return (f" The {self.bootstrap_info.get('ci', 0.95):.0%} confidence interval of CV* is "
                f"[{_significant(found[0])}, {high}] ({found[2]}, over {found[4]})."
                + (f" Caution: {caution}." if caution else ""))


def _within_sentence(result: m.CVStar) -> str:
    percent = lambda share: f"{_format(share * 100, 2)}%"
    if result.within_1sd == 1:
        return "Measured values fall within one standard deviation."
    if result.within_2sd == 1:
        return f"All measured values fall within two standard deviations, {percent(result.within_1sd)} within one standard deviation."
    return (f"{percent(result.within_2sd)} of measured values fall within two standard deviations, "
            f"{percent(result.within_1sd)} within one standard deviation.")


def _format(value: float | None, decimals: int) -> str:
    if value is None or np.isnan(value):
        return "nan"
    text = f"{round(float(value), decimals):.{decimals}f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text in ("-0", "") else text


def _significant(value: float, digits: int = 4) -> str:
    """Four significant digits, never in exponent form (88.89, 0.7036, 0.02605, 12346)."""
    if np.isnan(value):
        return "nan"
    if value == 0 or abs(value) >= 10 ** (digits - 1):
        return _format(value, 0 if abs(value) >= 10 ** (digits - 1) else 3)
    decimals = digits - 1 - int(np.floor(np.log10(abs(value))))
    return _format(value, decimals)


def _latex_escape(text: str) -> str:
    return latex(text)


def _template_block(rows: list[_Row], result_type: str, study_rows: dict, multi: bool, fmt) -> list[list[str]]:
    """Rows of one result type: a QC-level row per measure (labelled once per QC), then its systems."""
    typed = [r for r in rows if r.result_type == result_type]
    lines: list[list[str]] = []
    study_shown: set[str] = set()
    for qc in dict.fromkeys(r.quality_criterion for r in typed if r.quality_criterion):
        label = f"Type {result_type}: {qc}" if multi else f"Type {result_type}"
        for row in (r for r in typed if r.quality_criterion == qc and r.level == "qc"):
            study = study_rows.get(row.measure)
            study_cell = "n/a" if study is None else ("" if row.measure in study_shown else fmt(study))
            study_shown.add(row.measure)
            system_cell = "" if result_type in ("I", "III") else "n/a"
            shown = label if (label and (multi or not lines)) else ""
            lines.append([shown, _measure_label(row, result_type), system_cell, fmt(row), study_cell])
            label = ""
            for system_row in (r for r in typed if r.quality_criterion == qc and r.level == "system" and r.measure == row.measure):
                lines.append([f"  {system_row.system}", MEASURE_LABELS[system_row.measure], fmt(system_row), "", ""])
    return lines


def _measure_label(row: _Row, result_type: str) -> str:
    label = MEASURE_LABELS[row.measure]
    if result_type == "I":
        return "(mean) CV*"
    if row.measure in ("r", "rho") and row.n > 2:
        return f"mean {label}"
    if result_type == "III":
        return f"(mean) {label}"
    return label


def frame_markdown(frame, *, floatfmt: str = ".3g") -> str:
    """A frame as a Markdown pipe table, each cell through :func:`~qra_widgets.report.escape.markdown_cell`
    (no ``tabulate`` needed, and a name cannot end a row or start markup).

    >>> import pandas as pd
    >>> print(frame_markdown(pd.DataFrame({"system": ["A|B"], "value": [0.123456]})))
    | system | value |
    |---|---|
    | A\\|B | 0.123 |
    """
    def cell(value) -> str:
        if isinstance(value, (float, np.floating)):
            return "nan" if np.isnan(value) else format(float(value), floatfmt)
        return str(value)

    lines = ["| " + " | ".join(markdown_cell(str(c)) for c in frame.columns) + " |",
             "|" + "|".join("---" for _ in frame.columns) + "|"]
    lines += ["| " + " | ".join(markdown_cell(cell(v)) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)
