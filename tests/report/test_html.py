"""report/html.py is the one HTML door: one table writer, the QRA++ template as HTML and the one
escaper, and nothing outside report/ writes a ``<table`` or calls the standard library's escaper."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

import qra_widgets as qw
from qra_widgets.report.html import escape, table, template_html

PACKAGE = Path(qw.__file__).parent
# charts.py sits below report/ in the house plan (report imports charts), so it cannot import the
# escaper; it escapes the names Plotly shows as HTML with the standard library's.  annotation_cards.py
# is being rewritten in another branch: the merge makes its one preview call this module's escaper.
STDLIB_ESCAPE_ALLOWED = {"charts.py"}


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if not name.startswith("report/"):
            yield name, path.read_text(encoding="utf-8")


def test_no_table_is_written_outside_report():
    written = [name for name, text in _sources() if "<table" in text]
    assert written == []


def test_no_module_outside_report_calls_the_standard_librarys_html_escaper():
    pattern = re.compile(r"^\s*(import html\b|from html import)|\bhtml\.escape\(", re.MULTILINE)
    calling = {name for name, text in _sources() if pattern.search(text)}
    assert calling <= STDLIB_ESCAPE_ALLOWED, calling - STDLIB_ESCAPE_ALLOWED
    assert "widgets/tables.py" not in calling and "report/site.py" not in calling


def test_a_table_escapes_every_cell_and_header_and_marks_numbers_and_undefined_values():
    frame = pd.DataFrame(
        {
            "<i>name</i>": ["<script>x</script>", None],
            "value": [0.123456, np.nan],
            "n": pd.array([3, None], dtype="Int64"),
            "systems": [["a", "b<"], []],
        }
    )
    html = table(frame, headers={"value": "CV*"}, decimals=2, css="qra-template", caption="A & B")
    assert html.startswith("<table class='qra-template'><caption>A &amp; B</caption><thead><tr>")
    assert "<th scope='col'>&lt;i&gt;name&lt;/i&gt;</th><th scope='col' class='qra-num'>CV*</th>" in html
    assert "<td>&lt;script&gt;x&lt;/script&gt;</td><td class='qra-num'>0.12</td><td class='qra-num'>3</td>" in html
    assert "<td>a, b&lt;</td>" in html
    assert "<tr><td></td><td class='qra-num qra-na'>–</td><td class='qra-num qra-na'>–</td><td></td></tr>" in html
    assert "<script" not in html
    linked = table(pd.DataFrame({"study": ["x'y"]}), link=lambda s: f"studies/{s}.html", scroll=True)
    assert linked == (
        "<div class='qra-scroll'><table><thead><tr><th scope='col'>study</th></tr></thead><tbody><tr>"
        "<td><a href='studies/x&#x27;y.html'>x&#x27;y</a></td></tr></tbody></table></div>"
    )


def test_the_template_as_html_has_the_markdown_reports_cells_one_section_per_result_type(qrapp_example1):
    """QRA++ Table 3 (Example 1): the Markdown report's template rows, cell for cell."""
    result = qw.assess(qrapp_example1)
    html = template_html(result)
    markdown_rows = [line.strip("|").split(" | ") for line in result.to_markdown().splitlines()[4:12]]
    html_rows = re.findall(r"<tr[^>]*>(.*?)</tr>", html.split("<tbody", 1)[1])
    assert len(html_rows) == len(markdown_rows) == 8
    for cells, expected in zip(html_rows, markdown_rows):
        shown = [escape(c.strip().replace("\\", "")) for c in expected]
        assert re.findall(r"<td[^>]*>(.*?)</td>", cells) == shown
    assert "<td>SVM</td><td>CV*</td><td class='qra-num'>19.96</td>" in html  # QRA++ Table 3: SVM CV* 19.96
    assert [m for m in re.findall(r"<tbody class='qra-type qra-type-(\w+)'>", html)] == ["I", "II", "IV"]
    assert html.count("<tr class='qra-system-row'>") == 3
    assert "QRA++ reproducibility assessment of" in html and escape(result.caption()) in html
