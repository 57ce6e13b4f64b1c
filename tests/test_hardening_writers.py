r"""Hostile names through every writer (issue 31): the CLI's reports, the static site (its HTML, its
Markdown and every CSV it writes, QRA3's metrics.csv included), the atlas site, the sensitivity
report in text, HTML and LaTeX, the one-experiment Markdown report and the forest JSON.

Names are built from the pieces an attacker uses (a newline, ``\input``, ``<img onerror>``,
``</script>``, ``=HYPERLINK(``...), and each output is read as its reader would: a text line never
starts inside a name, HTML holds no tag from a name, LaTeX no command but the writer's own, a CSV
cell no formula, Markdown no raw ``<``, and JSON in a page never closes its ``<script>``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import warnings

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import qra_widgets as qw
from qra_widgets.cli import main
from qra_widgets.report.csvsafe import _PLAIN_NUMBER, FORMULA_STARTS
from qra_widgets.report.sensitivity import sensitivity_report
from qra_widgets.sensitivity import sensitivity
from tests.report.test_escaping_properties import check_latex

PIECES = [
    "\n",
    "\r\n",
    "\x0b",
    "\u2028",
    r"\input{/etc/passwd}",
    "<img src=x onerror=alert(1)>",
    "</script><script>alert(1)//",
    '=HYPERLINK("http://x","y")',
    "@SUM(A1)",
    "+1",
    "-x",
    "|",
    "&",
    "%",
    "#",
    "_",
    "{",
    "}",
    "`",
    "*",
    "\x1b[2J",
    "REPRODUCES",
    "    indented",
    "\t",
]
hostile = (
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=4)
    .map("".join)
    .map(str.strip)
    .filter(lambda s: len(s) > 1 and s not in ("B", "C", "Quality"))
)
FORMULA = '=HYPERLINK("http://x","y")'  # a name that starts with a formula, always tried
TAG = re.compile(r"<\s*(img|script|svg|iframe)\b", re.IGNORECASE)


def study_of(name: str, system: str, criterion: str = "Quality") -> qw.Study:
    systems = [system, "B", "C"]
    values = {"O": (3.1, 2.2, 4.0), "R": (3.3, 2.0, 3.9)}
    return qw.Study(
        id=f"s-{hashlib.sha1(name.encode()).hexdigest()[:6]}",
        name=name,
        quality_criteria=[qw.QualityCriterion(criterion, scale_min=1, scale_max=5)],
        systems=systems,
        experiments=[qw.Experiment("O", role="original"), qw.Experiment("R", role="repeat")],
        scores={(criterion, s, e): v[j] for e, v in values.items() for j, s in enumerate(systems)},
    )


def check_csv(text: str, where: str) -> None:
    for row in csv.reader(io.StringIO(text, newline="")):
        for cell in row:
            assert not (cell.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(cell)), (where, cell)


def check_html(text: str, where: str) -> None:
    assert "<img" not in text, where  # a name's tag is text (&lt;img) or, in JSON, \u003c
    assert text.count("<script") == text.count("</script>"), where  # no name closes or opens a script


def check_markdown(text: str, where: str) -> None:
    assert "<img" not in text and "</script>" not in text, where


def check_text_lines(text: str, allowed: tuple[str, ...]) -> None:
    for line in text.splitlines():
        assert line.startswith(allowed) or re.match(r"\d", line), line
        assert "\x1b" not in line


FEW = settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
SOME = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SOME
@given(hostile, hostile, hostile)
@example("s\nREPRODUCES", "A\n    small_sample_factor=True", "\\input{/etc/passwd}\n<img src=x onerror=alert(1)>")
def test_the_sensitivity_report_keeps_every_name_on_its_line_in_text_html_and_latex(name, system, criterion):
    frame = sensitivity(study_of(name, system, criterion), published="6.7", quality_criterion=criterion, system=system)
    text = sensitivity_report(frame)
    check_text_lines(text, ("CV* of ", "n/a ", "    ", "hint: "))
    assert len(text.splitlines()) == 2 + 2 * frame.group.nunique() + 1 + bool("hint: " in text) - (
        not frame.attrs["not_applicable"]
    )
    html = sensitivity_report(frame, "html")
    assert not TAG.search(html) and html.count("<tr>") == frame.group.nunique() + 1
    assert all(line.startswith("<") for line in html.splitlines())  # every line is the writer's own markup
    latex = sensitivity_report(frame, "latex")
    check_latex(latex.replace("\\paragraph{", "\\textbf{").replace("\\par", ""))  # the writer's own two commands
    for line in latex.splitlines():  # a line of the LaTeX starts with the writer's own text
        assert line.startswith(("\\", "CV*", " & ", "n/a", "hint:")) or re.match(r"\d", line), line


@SOME
@given(hostile, hostile)
@example("# x\n<img src=x onerror=alert(1)>", "B2")
def test_the_one_experiment_markdown_report_escapes_its_heading(name, system):
    from qra_widgets.conventions import resolve
    from qra_widgets.report.one_experiment import one_experiment_report

    study = study_of(name, system).subset(["O"])
    text = one_experiment_report(study, "markdown", resolve(None))
    heading = text.splitlines()[0]
    assert heading.startswith("# ") and text.splitlines()[1] == ""
    check_markdown(text, "one-experiment report")
    check_csv(one_experiment_report(study, "csv", resolve(None)), "one-experiment csv")


@FEW
@given(hostile, hostile)
@example("x\ny", "<img src=x onerror=alert(1)>")
def test_the_cli_reports_and_the_forest_json(tmp_path_factory, name, system):
    from qra_widgets.charts import forest_figure_json
    from qra_widgets.io import save_study
    from qra_widgets.meta import forest

    folder = tmp_path_factory.mktemp("cli")
    study = study_of(name, system)
    path = folder / "study.json"
    save_study(study, path)
    outputs = {}
    for fmt in ("markdown", "csv", "latex", "json"):
        status = main(["report", str(path), "--format", fmt])
        assert status == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = qw.assess(study)
        outputs = {"markdown": result.to_markdown(), "csv": result.to_csv(), "latex": result.to_latex()}
        spec = forest_figure_json(forest(result, quality_criterion="Quality"))
    check_markdown(outputs["markdown"], "report markdown")
    check_csv("\n".join(line for line in outputs["csv"].splitlines() if not line.startswith("#")), "report csv")
    check_latex(outputs["latex"])
    labels = [str(y) for trace in json.loads(json.dumps(spec))["data"] for y in (trace.get("y") or [])]
    assert labels and not any(
        "<img" in label or "</script" in label for label in labels
    )  # Plotly labels hold HTML: escaped


@pytest.mark.slow  # builds a site per example
@FEW
@given(hostile, hostile)
@example(FORMULA, FORMULA)
def test_the_static_site_escapes_html_markdown_and_every_csv(tmp_path_factory, name, system):
    from qra_widgets.io import save_study
    from qra_widgets.report.site import build_site

    folder = tmp_path_factory.mktemp("site")
    (folder / "studies").mkdir()
    save_study(study_of(name, system), folder / "studies" / "study.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        written = build_site(folder / "studies", folder / "out")
    suffixes = {p.suffix for p in written}
    assert {".html", ".csv", ".md"} <= suffixes
    for path in written:
        text = path.read_text(encoding="utf-8") if path.suffix in (".html", ".csv", ".md", ".tex") else ""
        if path.suffix == ".csv":
            check_csv(text, path.name)
        elif path.suffix == ".html":
            check_html(text, path.name)
        elif path.suffix == ".md":
            check_markdown(text, path.name)
        elif path.suffix == ".tex":
            check_latex(text)
    assert any(p.name.endswith(".qra3-metrics.csv") for p in written)


@pytest.mark.slow  # fetches, builds and writes an atlas per example
@settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(hostile)
@example(FORMULA)
def test_the_atlas_site_escapes_hostile_system_names(tmp_path_factory, system):
    from qra_widgets import atlas
    from qra_widgets.atlas.site import build_atlas_site
    from tests.test_hardening_atlas import toy_manifest

    cell = '"' + system.replace('"', '""') + '"'
    original = f"item,system,rater,q\n1,{cell},r1,4\n1,{cell},r2,5\n2,B,r1,2\n2,B,r2,3\n3,{cell},r1,4\n4,B,r2,2\n"
    repeat = f"item,system,rater,q\n1,{cell},r1,4\n1,{cell},r2,4\n2,B,r1,2\n2,B,r2,2\n3,{cell},r1,5\n4,B,r2,3\n"
    folder = tmp_path_factory.mktemp("atlas")
    files = {"o.csv": original, "r.csv": repeat}
    for file, text in files.items():
        (folder / "mirror" / "toy" / "me__toy").mkdir(parents=True, exist_ok=True)
        (folder / "mirror" / "toy" / "me__toy" / file).write_text(text)
    manifest = toy_manifest(files)
    manifest["families"][0]["published"] = []
    atlas.fetch(cache=folder / "cache", mirror=folder / "mirror", manifest=manifest)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = atlas.build(cache=folder / "cache", manifest=manifest, bootstrap=20)
        written = build_atlas_site(folder / "out", results=results)
    for path in written:
        if path.suffix == ".html":
            check_html(path.read_text(encoding="utf-8"), path.name)
        elif path.suffix == ".csv":
            check_csv(path.read_text(encoding="utf-8"), path.name)
