"""What people read, as the CLI writes it, for the golden-output test (``tests/report/test_golden.py``).

Every ``qra-widgets report --format`` on every bundled paper example, on an annotation spec (with
and without a bootstrap), on a pairwise spec (sign tests) and on a one-experiment spec, and a
``qra-widgets site`` of two examples.  The expected files live in ``tests/data/golden/``; they are
written only by ``python3 scripts/golden`` (never by a test), after a change to what people read
that is meant, and the diff is reviewed in the commit.

Only what legitimately varies between runs and installs is normalised:

* the package version (``version:0.1.0`` in the signature, ``"version": "0.1.0"`` in JSON, ``Cite
  qra-widgets 0.1.0``) becomes ``<version>``;
* ISO timestamps (a stored result's ``assessed_at`` on the site) become ``<timestamp>``;
* a chart's element id (``qra-chart-8``, from a counter of the whole process) is renumbered in the
  order the page shows them (``qra-chart-1``, ...);
* in a Plotly figure embedded in a site page, ``layout.template`` (Plotly's own theme, which changes
  with the Plotly release) is dropped; the traces and the rest of the layout are kept;
* ``plotly.min.js`` (Plotly's bundle, copied verbatim) is left out.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from pathlib import Path

DATA = Path(__file__).parent / "data"
GOLDEN = DATA / "golden"
INPUTS = GOLDEN / "inputs"
FORMATS = ("markdown", "csv", "latex", "json", "narrative")
SUFFIX = {"markdown": "md", "csv": "csv", "latex": "tex", "json": "json", "narrative": "txt"}
SITE_EXAMPLES = ("qrapp_example1", "belz2021_torc")


def report_cases() -> dict[str, list[str]]:
    """Expected file name -> the ``qra-widgets`` arguments that write it."""
    from qra_widgets import examples

    cases: dict[str, list[str]] = {}
    for name in examples.names():
        for fmt in FORMATS:
            cases[f"report/{name}.{SUFFIX[fmt]}"] = ["report", "--example", name, "--format", fmt]
    for fmt in ("markdown", "csv", "json"):
        cases[f"report/qrapp_example1.boot.{SUFFIX[fmt]}"] = [
            "report",
            "--example",
            "qrapp_example1",
            "--format",
            fmt,
            "--bootstrap",
            "200",
            "--seed",
            "1",
        ]
    specs = {
        "annotations": DATA / "annotations" / "spec.json",
        "pairwise": INPUTS / "pairwise" / "spec.json",
        "pairwise_one_experiment": INPUTS / "pairwise" / "one_experiment.json",
    }
    for label, spec in specs.items():
        for fmt in FORMATS if label == "annotations" else ("markdown", "csv", "json"):
            cases[f"report/{label}.{SUFFIX[fmt]}"] = ["report", str(spec), "--format", fmt]
    cases["report/annotations.boot.md"] = ["report", str(specs["annotations"]), "--bootstrap", "200", "--seed", "1"]
    return cases


def run_cli(argv: list[str]) -> str:
    """The text ``qra-widgets ARGV`` writes on stdout (in this process); fails on a non-zero exit."""
    from qra_widgets.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    if status != 0:
        raise AssertionError(f"qra-widgets {' '.join(argv)} exited {status}: {err.getvalue()}")
    return out.getvalue()


def build_site(scratch: Path) -> dict[str, str]:
    """``qra-widgets site`` of two bundled examples, built under ``scratch``: relative path -> text."""
    from qra_widgets import examples

    studies = scratch / "studies"
    studies.mkdir(parents=True)
    for name in SITE_EXAMPLES:
        shutil.copy(examples.path(name), studies)
    run_cli(["site", str(studies), "--out", str(scratch / "site")])
    root = scratch / "site"
    return {
        f"site/{p.relative_to(root).as_posix()}": p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "plotly.min.js"
    }


_VERSION_PATTERNS = (r"(version:)%s", r'("version": ")%s', r"(qra-widgets )%s")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d|Z)?")
_CHART_ID = re.compile(r"qra-chart-\d+")
_NEW_PLOT = re.compile(r'Plotly\.newPlot\(\s*"[^"]*",\s*')


def _without_plotly_theme(text: str) -> str:
    """Each embedded ``Plotly.newPlot(id, data, layout, ...)`` with ``layout.template`` dropped."""
    decoder = json.JSONDecoder()
    pieces, at = [], 0
    for match in _NEW_PLOT.finditer(text):
        if match.start() < at:
            continue
        data, end = decoder.raw_decode(text, match.end())
        comma = text.index(",", end) + 1
        start = comma + len(text[comma:]) - len(text[comma:].lstrip())
        layout, stop = decoder.raw_decode(text, start)
        layout.pop("template", None)
        pieces += [text[at : match.end()], json.dumps(data, sort_keys=True), ", ", json.dumps(layout, sort_keys=True)]
        at = stop
    return "".join(pieces) + text[at:]


def normalise(text: str) -> str:
    """``text`` with only the parts that legitimately vary replaced (see the module docstring)."""
    from qra_widgets import __version__

    for pattern in _VERSION_PATTERNS:
        text = re.sub(pattern % re.escape(__version__), r"\1<version>", text)
    text = _TIMESTAMP.sub("<timestamp>", text)
    order: dict[str, str] = {}
    text = _CHART_ID.sub(lambda m: order.setdefault(m.group(0), f"qra-chart-{len(order) + 1}"), text)
    return _without_plotly_theme(text) if "Plotly.newPlot" in text else text


def render_all(scratch: Path) -> dict[str, str]:
    """Every golden output, normalised: relative path under ``tests/data/golden`` -> text."""
    outputs = {name: run_cli(argv) for name, argv in report_cases().items()}
    outputs.update(build_site(scratch))
    return {name: normalise(text) for name, text in outputs.items()}
