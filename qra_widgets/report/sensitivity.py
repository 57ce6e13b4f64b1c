r"""The sensitivity report (:func:`qra_widgets.sensitivity.sensitivity`) as text, HTML or LaTeX:
each distinct value once with the combinations of choices that give it, those that reproduce
the published value marked, and a hint when only a spreadsheet's standard deviation
(Excel's STDEV.P or STDEV.S, without c4) reproduces it.

Every name (criterion, system, a variant's label) goes through its language's one escaper
(:mod:`qra_widgets.report.escape`): a newline in a name never starts a line, ``<`` never opens a
tag, ``\input`` is never a command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import QRAInputError
from ..sensitivity import SENSITIVITY_CHOICES
from . import escape

if TYPE_CHECKING:
    import pandas as pd

FORMATS = ("text", "html", "latex")


def _groups(frame) -> tuple[list[str], list[tuple[float, bool, list[str]]]]:
    """The choices shown, and per distinct value: the value, whether it reproduces, its
    combinations as ``choice=value`` texts (unescaped: each writer escapes them)."""
    shown = [c for c in SENSITIVITY_CHOICES if c not in frame.attrs["not_applicable"] and c in frame.columns]
    groups = []
    for _group, rows in frame.groupby("group", sort=True):
        combinations = [", ".join(f"{c}={row[c]}" for c in shown) for _, row in rows.iterrows()]
        groups.append((float(rows["value"].iloc[0]), bool(rows["reproduces"].iloc[0]), combinations))
    return shown, groups


def _hint(frame) -> str:
    """Which standard deviation the published value needs, when QRA's s/c4 does not reproduce it."""
    if "sd" not in frame.columns or not frame["reproduces"].any():
        return ""
    found = set(frame.loc[frame["reproduces"], "sd"])
    if "s/c4" in found or found == {"n/a"}:
        return ""
    names = {
        "STDEV.P": "the population standard deviation (Excel STDEV.P, numpy's default ddof=0)",
        "STDEV.S": "the sample standard deviation without the c4 correction (Excel STDEV.S)",
    }
    return (
        "hint: the published value is reproduced only with "
        + " or ".join(names[s] for s in sorted(found) if s in names)
        + ", not with QRA's unbiased s* = s/c4(n)"
    )


def _lines(frame) -> tuple[str, str | None, list[tuple[str, list[str]]], str, str]:
    attrs = frame.attrs
    title = (
        f"CV* of {attrs['quality_criterion']} / {attrs['system']}: published {attrs['published']} "
        f"(compared at {attrs['digits']} decimals)"
    )
    na = (
        ("n/a (cannot change the value for this input): " + ", ".join(attrs["not_applicable"]))
        if attrs["not_applicable"]
        else None
    )
    _shown, groups = _groups(frame)
    blocks = [
        (f"{value:.{max(attrs['digits'] + 2, 4)}f}  {'REPRODUCES' if hit else ''}".rstrip(), combinations)
        for value, hit, combinations in groups
    ]
    found = frame[frame["reproduces"]]
    summary = (
        f"{found['group'].nunique()} of {frame['group'].nunique()} distinct values reproduce the published "
        f"value ({len(found)} of {len(frame)} combinations)"
    )
    return title, na, blocks, summary, _hint(frame)


def sensitivity_report(frame: pd.DataFrame, format: str = "text") -> str:
    r"""The report of :func:`~qra_widgets.sensitivity.sensitivity` as ``text`` (what the
    ``sensitivity`` command prints), ``html`` (a fragment) or ``latex`` (a ``description``-free
    block of paragraphs that ``\input`` can take).

    Values 3.0 and 3.3 (mean 3.15): STDEV.S = 0.2121 gives 6.734%, STDEV.P = 0.15 gives 4.762%.
    The system's name holds a newline: it stays on the title's line.

    >>> from qra_widgets.study import Experiment, QualityCriterion, Study
    >>> from qra_widgets.sensitivity import sensitivity
    >>> study = Study("s", quality_criteria=[QualityCriterion("Q", 0, 5)], systems=["A\nREPRODUCES"],
    ...               experiments=[Experiment("O"), Experiment("R")], scores={("Q", "A\nREPRODUCES", "O"): 3.0,
    ...                                                                       ("Q", "A\nREPRODUCES", "R"): 3.3})
    >>> print(sensitivity_report(sensitivity(study, published="6.7", quality_criterion="Q", system="A\nREPRODUCES")))
    CV* of Q / A REPRODUCES: published 6.7 (compared at 1 decimals)
    n/a (cannot change the value for this input): optional_exclude, scale_shift, aggregation, rounding
    4.7619
        small_sample_factor=False, sd=STDEV.P
    5.3571
        small_sample_factor=True, sd=STDEV.P
    6.7344  REPRODUCES
        small_sample_factor=False, sd=STDEV.S
    7.5761
        small_sample_factor=True, sd=STDEV.S
    8.4403
        small_sample_factor=False, sd=s/c4
    9.4953
        small_sample_factor=True, sd=s/c4
    1 of 6 distinct values reproduce the published value (1 of 6 combinations)
    hint: the published value is reproduced only with the sample standard deviation without the c4 correction (Excel STDEV.S), not with QRA's unbiased s* = s/c4(n)
    <BLANKLINE>
    """
    if format not in FORMATS:
        raise QRAInputError(f"format: must be one of {', '.join(FORMATS)}, got {escape.text(format)[:30]!r}")
    title, na, blocks, summary, hint = _lines(frame)
    if format == "text":
        e = escape.text
        lines = [e(title)] + ([e(na)] if na else [])
        for head, combinations in blocks:
            lines += [e(head)] + ["    " + e(c) for c in combinations]
        lines += [e(summary)] + ([e(hint)] if hint else [])
        return "\n".join(lines) + "\n"
    if format == "html":

        def e(value) -> str:  # one line too: a newline in a name never starts a line of the page's source
            return escape.html(escape.text(value))

        parts = [f'<section class="qra-sensitivity">\n<h3>{e(title)}</h3>'] + ([f"<p>{e(na)}</p>"] if na else [])
        parts.append("<table>\n<thead><tr><th>CV*</th><th>combinations of choices</th></tr></thead>\n<tbody>")
        for head, combinations in blocks:
            parts.append(f"<tr><td>{e(head)}</td><td>{'<br>'.join(e(c) for c in combinations)}</td></tr>")
        parts += (
            ["</tbody>\n</table>", f"<p>{e(summary)}</p>"] + ([f"<p>{e(hint)}</p>"] if hint else []) + ["</section>"]
        )
        return "\n".join(parts) + "\n"
    e = escape.latex
    parts = [f"\\paragraph{{{e(title)}}}"] + ([f"{e(na)}\\par"] if na else [])
    parts.append("\\begin{tabular}{rl}\n\\hline\nCV* & combinations of choices \\\\\n\\hline")
    for head, combinations in blocks:
        parts.append(
            " \\\\\n".join(f"{e(head) if k == 0 else ''} & {e(c)}" for k, c in enumerate(combinations)) + " \\\\"
        )
    parts += ["\\hline\n\\end{tabular}\\par", f"{e(summary)}\\par"] + ([f"{e(hint)}\\par"] if hint else [])
    return "\n".join(parts) + "\n"
