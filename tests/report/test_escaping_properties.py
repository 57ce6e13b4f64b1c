r"""Every writer keeps hostile names as text: property tests over names built from the pieces an
attacker uses (``\input{/etc/passwd}``, ``\write18``, a newline, ``|``, ``<script>``,
``=HYPERLINK(``...).

A study of QRA++ Example 1's shape (three systems, two experiments, one criterion) gets hostile
study, system, criterion and experiment names; then each output is parsed as its reader would:
the Markdown table keeps one row per line and its column count, the LaTeX has no command but the
writer's own and balanced braces, ``references.bib`` has valid keys, the HTML has no tag from a
name, and the CSV has no formula cell.
"""

from __future__ import annotations

import csv
import io
import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qra_widgets as qw
from qra_widgets.report import escape

PIECES = [
    r"\input{/etc/passwd}",
    r"\write18{rm -rf ~}",
    "\n",
    "\r\n",
    "|",
    "<script>alert('qra')</script>",
    '=HYPERLINK("http://x")',
    "@SUM(A1)",
    "+1",
    "-x",
    "&",
    "%",
    "$",
    "#",
    "_",
    "{",
    "}",
    "~",
    "^",
    "`",
    "*",
    "[link](http://x)",
    "\\",
    '"',
    "'",
    "\x00",
    "\t",
    "Puduppully & Lapata",
    "ü",
    " ",
]
hostile = st.lists(st.sampled_from(PIECES), min_size=1, max_size=5).map("".join).map(lambda s: "x" + s.strip() + "y")

#: The commands the writers themselves write (tables, captions, colours, escapes of special characters).
WRITER_COMMANDS = {
    "begin",
    "end",
    "centering",
    "hline",
    "caption",
    "textbf",
    "textbackslash",
    "textasciitilde",
    "textasciicircum",
    "multirow",
    "multicolumn",
    "cline",
    "cellcolor",
    "phantom",
    "footnotesize",
    "label",
    "vspace",
    "citet",
    "uparrow",
    "downarrow",
    "textbraceleft",
    "textbraceright",
    "rho",
    "tau",
    "kappa",
    "alpha",
    "mathit",
    "mathrm",
    "bar",
    "text",
    "hat",
    "CV",
    "mu",
    "sigma",
    "left",
    "right",
    "times",
    "approx",
    "pm",
}


def hostile_study(study_name: str, systems: list[str], criterion: str, experiments: list[str]) -> qw.Study:
    values = {0: (3.1, 2.2, 4.0), 1: (3.3, 2.0, 3.9)}
    return qw.Study(
        id=study_name,
        name=study_name,
        quality_criteria=[qw.QualityCriterion(criterion, scale_min=1)],
        systems=systems,
        experiments=[qw.Experiment(e, role="original" if k == 0 else "repeat") for k, e in enumerate(experiments)],
        scores={(criterion, s, e): values[k][j] for k, e in enumerate(experiments) for j, s in enumerate(systems)},
    )


names = st.tuples(
    hostile,
    st.lists(hostile, min_size=3, max_size=3, unique=True),
    hostile,
    st.lists(hostile, min_size=2, max_size=2, unique=True),
)


def assessed(drawn):
    study = hostile_study(*drawn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return study, qw.assess(study)


def check_latex(text: str) -> None:
    commands = set(re.findall(r"\\([A-Za-z]+)", text))
    assert commands <= WRITER_COMMANDS, commands - WRITER_COMMANDS
    assert "input" not in commands and "write" not in commands
    depth = 0
    for match in re.finditer(r"\\[{}]|[{}]", text):  # escaped braces are text, the others must balance
        token = match.group()
        if token in ("{", "}"):
            depth += 1 if token == "{" else -1
            assert depth >= 0
    assert depth == 0


def unescaped(text: str, character: str) -> int:
    return len(re.findall(r"(?<!\\)(?:\\\\)*" + re.escape(character), text))


FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(names)
def test_markdown_keeps_one_row_per_line_and_every_column(drawn):
    _study, result = assessed(drawn)
    lines = result.to_markdown().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| Type of result"))
    columns = unescaped(lines[header], "|")
    rows = []
    for line in lines[header + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(line)
    assert rows and all(unescaped(row, "|") == columns for row in rows)
    assert len(rows) == len(result.table())
    for line in lines:
        assert unescaped(line, "<") == 0 and unescaped(line, "[") == 0 and "\x00" not in line
    assert lines[0].startswith("**QRA++ reproducibility assessment of ") and lines[0].endswith("**")


@FAST
@given(names)
def test_the_latex_table_runs_no_command_from_a_name(drawn):
    _study, result = assessed(drawn)
    check_latex(result.to_latex())


@FAST
@given(names)
def test_qra3_table_tex_and_references_bib_stay_latex_and_bibtex_text(drawn):
    """The round trip an attacker's study takes: exported for QRA3 (``\\citet{<id>}`` per experiment), read back, written."""
    import json
    import tempfile
    from pathlib import Path

    from qra_widgets.qra3 import export, outputs, read_qra3

    study, _ = assessed(drawn)
    folder = Path(tempfile.mkdtemp())
    metrics, config = export([study])
    (folder / "metrics.csv").write_text(metrics, encoding="utf-8")
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    if any("\x00" in name for name in [drawn[0], *drawn[1], drawn[2], *drawn[3]]):
        # the export writes a NUL as U+FFFD (every Python's csv alike: 3.10's refuses a NUL); a file
        # that does hold a NUL byte is refused on reading, never dropped (tests/io/test_hostile_inputs.py)
        assert "\x00" not in metrics and "\ufffd" in metrics
        metrics = metrics.replace("\ufffd", "\x00")
        (folder / "metrics.csv").write_text(metrics, encoding="utf-8")
        with pytest.raises(qw.QRAInputError, match="NUL"):
            read_qra3(folder / "metrics.csv", folder / "config.json")
        return
    [study] = read_qra3(folder / "metrics.csv", folder / "config.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        files = outputs(study)
    check_latex(files["table.tex"])
    keys = re.findall(r"@misc\{([^,\n]*),", files["references.bib"])
    assert keys == list(dict.fromkeys([escape.bibtex_key(e) for e in drawn[3]] + [escape.bibtex_key(drawn[0])]))
    assert all(re.fullmatch(r"[A-Za-z0-9_:.+/-]+", key) for key in keys)
    for entry in files["references.bib"].split("@misc")[1:]:
        assert entry.count("{") == entry.count("}") and "\\input" not in entry and "\\write" not in entry


@FAST
@given(names)
def test_html_writers_show_names_as_text(drawn):
    from qra_widgets.widgets.tables import template_table

    _study, result = assessed(drawn)
    for page in (result._repr_html_(), template_table(result)):
        assert "<script" not in page  # the text alert('qra') may stay: it is element text, not a tag
        tags = set(re.findall(r"<(/?[^\s>/]*)", page))
        assert {t.lstrip("/") for t in tags} <= {
            "p",
            "b",
            "i",
            "ul",
            "li",
            "table",
            "thead",
            "tbody",
            "tr",
            "th",
            "td",
            "details",
            "summary",
            "div",
            "span",
            "small",
            "a",
            "br",
            "em",
            "strong",
            "sup",
            "sub",
            "abbr",
            "caption",
            "code",
        }, tags


@FAST
@given(names)
def test_csv_has_no_formula_cell_and_reads_back_every_name(drawn):
    study, result = assessed(drawn)
    cells = [cell for row in csv.reader(io.StringIO(result.to_csv())) for cell in row]
    assert not [
        c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r") and not re.fullmatch(r"[+-]?[\d.e+-]+", c)
    ]
    assert {escape.csv_cell(s) for s in study.systems} <= set(cells)


def test_the_static_site_page_shows_a_hostile_study_name_as_text(tmp_path):
    from qra_widgets.report.site import study_page_html

    study = hostile_study(
        "<script>alert('qra')</script>\n| x", ["</script><script>alert('qra')</script>", "B", "C"], "Q", ["o", "r"]
    )
    page = study_page_html(study, plotly_src="plotly.min.js")
    assert "<script>alert('qra')" not in page and "</script><script>alert" not in page


def test_the_markdown_caption_writes_html_characters_as_entities_and_renders_them_as_text():
    """Issue 31: Markdown renderers show raw HTML, so ``< > &`` are entities (an ``&`` renders as ``&``)."""
    study = hostile_study("Puduppully & Lapata (2019)", ["A", "B", "C"], "Q", ["o", "r"])
    caption = qw.assess(study).to_markdown().splitlines()[0]
    assert caption.startswith("**QRA++ reproducibility assessment of Puduppully &amp; Lapata (2019) (n = 2;")
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py renders the Markdown")
    assert "Puduppully &amp; Lapata (2019)" in markdown_it.MarkdownIt("commonmark").render(caption)  # shown as "&"


def test_a_citation_given_in_a_qra3_config_cannot_run_a_command():
    assert escape.latex_citation(r"\citet{Yao2022}") == r"\citet{Yao2022}"
    for attack in (
        r"\input{/etc/passwd}",
        r"\immediate\write18{id}",
        r"\citet{a}\input{/etc/passwd}",
        r"\citet{a\input{x}}",
    ):
        check_latex(escape.latex_citation(attack))
