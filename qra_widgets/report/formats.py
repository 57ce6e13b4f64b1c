"""The Assessment's writers: the QRA++ template (QRA++ Tables 3-5), Markdown, LaTeX, CSV, JSON,
HTML and the Belz (2021) narrative, with their captions and signature.

Each writer is a function taking an :class:`~qra_widgets.assess.Assessment`, whose ``to_*``
methods delegate here in one line, as a pandas ``DataFrame`` delegates its ``to_*`` methods to
``pandas.io.formats``: the result object holds results and this module only reads them, so nothing
here imports the engine.  Each output language escapes through :mod:`qra_widgets.report.escape`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import QRAInputError
from ..writers import register
from .escape import latex, markdown_cell
from .template import OTHER_DECIMALS, TEMPLATE_COLUMNS, _format, caption, interval_caption, table, template_rows

if TYPE_CHECKING:
    from .. import measures as m
    from ..assess import Assessment

# The writers Assessment.to_* (and table, caption, interval_caption) delegate to; the template's are in template.py.
__all__ = [
    "agreement_rows",
    "caption",
    "csv_head",
    "frame_markdown",
    "interval_caption",
    "narrative",
    "sign_test_frame",
    "sign_test_records",
    "sign_tests_markdown",
    "signature_fields",
    "signature_line",
    "table",
    "template_rows",
    "to_csv",
    "to_html",
    "to_json",
    "to_latex",
    "to_markdown",
]
AGREEMENT_HEADER = ["Experiment", "Quality criterion", "Measure", "Value", "Items", "Raters"]
AGREEMENT_LABELS = {
    "alpha": "Krippendorff's α",
    "fleiss_kappa": "Fleiss' κ",
    "kappa": "Cohen's κ",
    "ac1": "Gwet's AC1",
    "bp": "Brennan–Prediger",
}


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


# ---------------------------------------------------------------------- the QRA++ template


def to_markdown(assessment: Assessment, decimals: dict[str, int] | None = None) -> str:
    escape = markdown_cell  # names stay text: no markup, no new row, no HTML entity
    lines = [
        f"**{escape(caption(assessment))}**",
        "",
        "| " + " | ".join(TEMPLATE_COLUMNS) + " |",
        "|" + "|".join("---" for _ in TEMPLATE_COLUMNS) + "|",
    ]
    lines += ["| " + " | ".join(escape(cell) for cell in row) + " |" for row in template_rows(assessment, decimals)]
    lines += [""] + [f"- {escape(note)}" for note in assessment.notes]
    lines += _agreement_markdown(assessment, escape)
    lines += sign_tests_markdown(assessment.study)
    lines += ["", f"_{escape(signature_line(assessment.conventions))}_"]
    return "\n".join(lines).rstrip() + "\n"


# ---------------------------------------------------------------------- pairwise sign tests

SIGN_TESTS_NOTE = (
    "Two-sided binomial test per system pair (ties left out), p adjusted by Holm's method within "
    "each experiment and criterion."
)


def sign_test_records(study) -> list[dict]:
    """The sign tests the annotation reader computed for a pairwise or best-worst study (one record
    per experiment, criterion and system pair; ``p`` None where undefined), else ``[]``."""
    return list((study.metadata.get("annotations") or {}).get("sign_tests") or [])


def sign_test_frame(study):
    """:func:`sign_test_records` as a frame, or None without sign tests."""
    import pandas as pd

    records = sign_test_records(study)
    return pd.DataFrame(records) if records else None


def sign_tests_markdown(study) -> list[str]:
    """The "Pairwise sign tests" section of a Markdown report (no lines without sign tests)."""
    frame = sign_test_frame(study)
    if frame is None:
        return []
    return ["", "## Pairwise sign tests", "", SIGN_TESTS_NOTE, "", frame_markdown(frame, floatfmt=".3g")]


# ---------------------------------------------------------------------- intervals and annotator agreement in reports


def _caption_with_intervals(assessment: Assessment) -> str:
    """The caption, then (with intervals) how they were made and the cautions: for a LaTeX
    ``\\caption``, which has no room for notes under the table."""
    if not assessment.bootstrap_info:
        return caption(assessment)
    footnotes = "; ".join(assessment.caution_footnotes())
    return f"{caption(assessment)}. {interval_caption(assessment)}" + (f" {footnotes}." if footnotes else "")


def agreement_rows(assessment: Assessment) -> list[list[str]]:
    """The annotator-agreement table as text cells under :data:`AGREEMENT_HEADER` (empty without ratings)."""
    frame = assessment._agreement()
    marks = assessment.interval_cautions() if len(frame) else {}
    rows = []
    columns = {name: frame[name].tolist() for name in frame.columns}  # a record per row, without pandas' to_dict
    for record in (dict(zip(columns, cells)) for cells in zip(*columns.values())):
        value = _format(record["value"], OTHER_DECIMALS)
        if np.isfinite(record.get("ci_low", np.nan)):
            value += f" [{_format(record['ci_low'], OTHER_DECIMALS)}, {_format(record['ci_high'], OTHER_DECIMALS)}]"
            value += marks.get(record.get("ci_note", ""), "")
        rows.append(
            [
                record["experiment"],
                record["quality_criterion"],
                AGREEMENT_LABELS.get(record["measure"], record["measure"]),
                value,
                str(record["n_items"]),
                str(record["n_raters"]),
            ]
        )
    return rows


def _agreement_markdown(assessment: Assessment, escape) -> list[str]:
    lines = ["", f"_{escape(interval_caption(assessment))}_"] if assessment.bootstrap_info else []
    rows = agreement_rows(assessment)
    if not rows:
        return lines
    lines += [
        "",
        "**Annotator agreement within each experiment**",
        "",
        "| " + " | ".join(AGREEMENT_HEADER) + " |",
        "|" + "|".join("---" for _ in AGREEMENT_HEADER) + "|",
    ]
    return lines + ["| " + " | ".join(escape(cell) for cell in row) + " |" for row in rows]


def to_latex(assessment: Assessment, decimals: dict[str, int] | None = None) -> str:
    body = [" & ".join(latex(cell) for cell in row) + r" \\" for row in template_rows(assessment, decimals)]
    return "\n".join(
        [
            r"\begin{table}[t]",
            r"\centering",
            r"\begin{tabular}{llrrr}",
            r"\hline",
            " & ".join(latex(c) for c in TEMPLATE_COLUMNS) + r" \\",
            r"\hline",
            *body,
            r"\hline",
            r"\end{tabular}",
            rf"\caption{{{latex(_caption_with_intervals(assessment))}}}",
            r"\end{table}",
            "",
            *_agreement_latex(assessment),
            f"% {signature_line(assessment.conventions)}",
            "",
        ]
    )


def _agreement_latex(assessment: Assessment) -> list[str]:
    rows = agreement_rows(assessment)
    if not rows:
        return []
    body = [" & ".join(latex(cell) for cell in row) + r" \\" for row in rows]
    return [
        r"\begin{table}[t]",
        r"\centering",
        r"\begin{tabular}{lllrrr}",
        r"\hline",
        " & ".join(latex(c) for c in AGREEMENT_HEADER) + r" \\",
        r"\hline",
        *body,
        r"\hline",
        r"\end{tabular}",
        r"\caption{Annotator agreement within each experiment}",
        r"\end{table}",
        "",
    ]


def to_csv(assessment: Assessment) -> str:
    """The tidy frame as CSV; with item-level ratings, a blank line and the annotator-agreement
    table follow, and with pairwise judgements a blank line and the sign tests.  Two ``#`` lines come first: the signature (conventions and package version)
    and how to cite, so read it with ``pandas.read_csv(path, comment="#")``.  Text cells are
    quoted (as R's ``write.csv`` does), so a ``#`` inside a name is never read as a comment,
    and text cells a spreadsheet would run as formulas get a leading ``'``
    (:mod:`qra_widgets.report.csvsafe`).

    >>> from qra_widgets import assess, examples
    >>> print(to_csv(assess(examples.load("qrapp_example1"))).splitlines()[0])
    # signature: conventions:qrapp|version:...
    """
    import csv

    from .csvsafe import columns_to_csv, frame_to_csv

    head = csv_head(assessment.conventions)
    text = (
        columns_to_csv(assessment._columns(), nonnumeric=True)
        if assessment.rows  # the frame's text, no frame
        else frame_to_csv(assessment.to_frame(), quoting=csv.QUOTE_NONNUMERIC)
    )
    agreement = assessment.annotator_agreement()
    text = head + text + ("\n" + frame_to_csv(agreement, quoting=csv.QUOTE_NONNUMERIC) if len(agreement) else "")
    signs = sign_test_frame(assessment.study)
    return text + ("\n" + frame_to_csv(signs, quoting=csv.QUOTE_NONNUMERIC) if signs is not None else "")


def to_json(assessment: Assessment) -> str:
    """One JSON object: ``signature`` (conventions and package version), ``version``, ``cite``
    (how to cite the tool and the method papers), ``results`` (the tidy frame's records),
    ``annotator_agreement`` (records; empty without item-level ratings) and ``bootstrap``
    (B, seed, level, method, resampling; empty without intervals), then with pairwise judgements
    ``sign_tests`` (records).  ``NaN`` is ``null``; numbers are written at full precision (the
    shortest text that reads back as the same float)."""
    import json

    return json.dumps(
        {
            **signature_fields(assessment.conventions),
            "results": json_records(assessment.to_frame()),
            "annotator_agreement": json_records(assessment.annotator_agreement()),
            "bootstrap": assessment.bootstrap_info,
            **({"sign_tests": signs} if (signs := sign_test_records(assessment.study)) else {}),
        },
        indent=1,
        allow_nan=False,
        default=str,
    )


def to_html(assessment: Assessment) -> str:
    """The template (:func:`qra_widgets.report.html.template_html`: caption, intervals, notes), the
    annotator agreement and the signature as HTML (a notebook's ``_repr_html_``)."""
    import pandas as pd

    from .html import escape, table, template_html

    agreement = agreement_rows(assessment)
    extra = ""
    if agreement:
        extra += table(
            pd.DataFrame(agreement, columns=AGREEMENT_HEADER),
            css="qra-template",
            caption="Annotator agreement within each experiment",
        )
    extra += f"<p class='qra-cite'><small>{escape(signature_line(assessment.conventions))}</small></p>"
    return template_html(assessment) + extra


# ---------------------------------------------------------------------- narrative


def narrative(assessment: Assessment, quality_criterion: str, system: str, *, sd_ci: str = "chi-square") -> str:
    """The Belz (2021) section 5 report sentence for one system and QC.

    ``sd_ci`` is the standard deviation's 95% interval: ``"chi-square"`` (the default,
    :meth:`~qra_widgets.measures.precision.CVStar.sd_interval`, never below 0) or ``"t"`` (the
    papers' s* ± t·SE(s*), ``CVStar.ci95``, which goes below 0 for small n: Belz 2021 prints
    [-3.26, 4.645] for PASS Fluency).  docs/decisions.md says why the default differs."""
    if sd_ci not in ("chi-square", "t"):
        raise QRAInputError(f"narrative: sd_ci must be 'chi-square' or 't', got {sd_ci!r}")
    if (quality_criterion, system) not in assessment.cv:
        raise QRAInputError(f"narrative: no CV* for {system!r} on {quality_criterion!r}")
    result = assessment.cv[(quality_criterion, system)]
    study = assessment.study
    qc = study.quality_criterion(quality_criterion)
    experiments = [e for e in study.experiments if (quality_criterion, system, e.id) in study.scores]
    who = ", ".join(e.display_name for e in experiments)
    shift = ""
    if qc.scale_min != 0 and qc.scale_max is not None:
        shift = f", rescaled to 0..{_format(qc.scale_max - qc.scale_min, 3)}"
    elif qc.scale_min != 0:
        shift = f", shifted by {_format(-qc.scale_min, 3)} to start at 0"
    low, high = result.sd_interval() if sd_ci == "chi-square" else result.ci95
    return (
        f"{quality_criterion} measurement reproducibility for {system} was assessed on the basis of "
        f"{result.n} measurements ({who}){shift}: CV* = {_format(result.cv_star, 3)}, "
        f"mean = {_significant(result.mean)}, unbiased sample standard deviation = {_significant(result.sd)} "
        f"with 95% CI [{_significant(low)}, {_significant(high)}]{' (chi-square)' if sd_ci == 'chi-square' else ''}, "
        f"sample size = {result.n}. "
        f"{_within_sentence(result)}{_interval_sentence(assessment, quality_criterion, system)} "
        f"Computed with the {assessment.conventions.describe()} conventions."
    )


def _interval_sentence(assessment: Assessment, quality_criterion: str, system: str) -> str:
    key = ("CV*", "system", quality_criterion, system)
    found = assessment.intervals.get(key)
    if found is None or not np.isfinite(found[0]):
        return ""
    high = "infinity" if np.isinf(found[1]) else _significant(found[1])
    caution = assessment.ci_note(key, assessment.cv[(quality_criterion, system)].cv_star)
    return (
        f" The {assessment.bootstrap_info.get('ci', 0.95):.0%} confidence interval of CV* is "
        f"[{_significant(found[0])}, {high}] ({found[2]}, over {found[4]})."
        + (f" Caution: {caution}." if caution else "")
    )


def _within_sentence(result: m.CVStar) -> str:
    percent = lambda share: f"{_format(share * 100, 2)}%"
    if result.within_1sd == 1:
        return "Measured values fall within one standard deviation."
    if result.within_2sd == 1:
        return f"All measured values fall within two standard deviations, {percent(result.within_1sd)} within one standard deviation."
    return (
        f"{percent(result.within_2sd)} of measured values fall within two standard deviations, "
        f"{percent(result.within_1sd)} within one standard deviation."
    )


def _significant(value: float, digits: int = 4) -> str:
    """Four significant digits, never in exponent form (88.89, 0.7036, 0.02605, 12346)."""
    if np.isnan(value):
        return "nan"
    if value == 0 or abs(value) >= 10 ** (digits - 1):
        return _format(value, 0 if abs(value) >= 10 ** (digits - 1) else 3)
    decimals = digits - 1 - int(np.floor(np.log10(abs(value))))
    return _format(value, decimals)


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

    lines = [
        "| " + " | ".join(markdown_cell(str(c)) for c in frame.columns) + " |",
        "|" + "|".join("---" for _ in frame.columns) + "|",
    ]
    lines += ["| " + " | ".join(markdown_cell(cell(v)) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def json_records(frame) -> list[dict]:
    """A frame's rows as JSON-ready dicts at full precision: pandas' ``to_json`` rounds floats to
    10 decimals (9.0476614517 for 9.047661451661183); Python floats are written by ``repr``,
    which reads back as the same float.  Missing and non-finite values are ``None``.

    >>> import pandas as pd
    >>> json_records(pd.DataFrame({"v": [9.047661451661183, float("nan")], "n": pd.array([2, None], dtype="Int64")}))
    [{'v': 9.047661451661183, 'n': 2}, {'v': None, 'n': None}]
    """
    import math

    import pandas as pd

    def plain(value):
        if value is None or value is pd.NA or value is pd.NaT:
            return None
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value

    columns = [str(c) for c in frame.columns]
    return [dict(zip(columns, map(plain, row))) for row in frame.astype(object).itertuples(index=False, name=None)]


# Assessment.to_* (and table, caption, interval_caption, narrative) find these by name in
# qra_widgets.writers: the engine sits below this module and never imports it.
register(
    table=table,
    caption=caption,
    interval_caption=interval_caption,
    to_markdown=to_markdown,
    to_latex=to_latex,
    to_csv=to_csv,
    to_json=to_json,
    to_html=to_html,
    narrative=narrative,
)
