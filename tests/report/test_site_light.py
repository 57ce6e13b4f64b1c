"""The static site from the core install: chart JSON written directly, no plotly.

``qra-widgets site`` is a core command: it must work without the ``[app]`` extra (no plotly,
ipywidgets or Voila), write each chart as the JSON the ``charts.*_json`` builders give (no
figure validation), ship plotly.js once, and keep text from the data inside its script.
"""

import json
import re
import subprocess
import sys

import plotly.graph_objects as go

from qra_widgets import charts, examples
from qra_widgets.io import save_study
from qra_widgets.report.site import PLOTLY_FILE, build_site

WITHOUT_APP_STACK = """
import sys
class Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("ipywidgets", "plotly", "voila", "ipykernel"):
            raise ImportError(f"{name} is not installed")
sys.meta_path.insert(0, Absent())
from qra_widgets.cli import main
status = main(sys.argv[1:])
print("loaded:", sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0] in ("ipywidgets", "plotly", "voila", "ipykernel")}))
sys.exit(status)
"""


def charts_of(page: str) -> list[tuple[list, dict]]:
    """The (data, layout) of every Plotly.newPlot call in a page."""
    calls = re.findall(r'Plotly\.newPlot\("[^"]+", (.*?)\);</script>', page)
    return [tuple(json.loads("[" + call.replace("<\\/", "</") + "]")[:2]) for call in calls]


def test_the_site_builds_without_plotly_ipywidgets_or_voila(tmp_path, qrapp_example1):
    studies = tmp_path / "studies"
    studies.mkdir()
    for name in ("qrapp_example1", "belz2021_torc"):
        save_study(examples.load(name), studies / f"{name}.json")
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_APP_STACK, "site", str(studies), "--out", str(tmp_path / "site")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "loaded: []" in done.stdout
    site = tmp_path / "site"
    assert (site / PLOTLY_FILE).read_text(encoding="utf-8").startswith("/**\n* plotly.js v")
    page = next((site / "studies").glob("qrapp-example1*.html")).read_text(encoding="utf-8")
    drawn = charts_of(page)
    from qra_widgets import assess

    expected = charts.cv_by_system_json(assess(qrapp_example1), guides=True)
    assert drawn[0][0] == json.loads(json.dumps(expected["data"]))
    assert drawn[0][1]["title"] == expected["layout"]["title"]
    assert len(charts_of((site / "index.html").read_text(encoding="utf-8"))) >= 1


def test_chart_json_is_what_plotly_draws(qrapp_example1):
    """The JSON the site writes is a valid figure: plotly accepts it with validation on, and the
    shipped template is plotly's plotly_white."""
    result = __import__("qra_widgets").assess(qrapp_example1)
    for spec in (charts.cv_by_system_json(result, guides=True), charts.p_and_w_by_qc_json(result)):
        figure = go.Figure(spec)  # validates every trace and layout key
        assert figure.layout.title.text == spec["layout"]["title"]["text"]
    assert go.layout.Template(charts._template()).layout.paper_bgcolor == "white"


def test_text_from_the_data_cannot_end_the_chart_script(tmp_path):
    evil = "</script><script>alert(1)</script>"
    folder = tmp_path / "studies"
    folder.mkdir()
    rows = [
        (e, s, v)
        for e, values in (("A", (3.1, 2.5)), ("B", (3.4, 2.2)), ("C", (3.0, 2.0)))
        for s, v in zip((evil, "GeDi"), values)
    ]
    (folder / "s.csv").write_text(
        "experiment,quality_criterion,system,score,scale_min\n"
        + "".join(f"{e},Fluency,{s},{v},1\n" for e, s, v in rows),
        encoding="utf-8",
    )
    build_site(folder, tmp_path / "site")
    page = next((tmp_path / "site" / "studies").glob("*.html")).read_text(encoding="utf-8")
    assert "<script>alert(1)" not in page
    names = {
        name for data, _layout in charts_of(page) for trace in data for name in [trace.get("name"), *trace.get("x", [])]
    }
    assert any(isinstance(n, str) and "alert(1)" in n for n in names)  # the name is there, as text in the JSON
