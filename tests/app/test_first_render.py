"""A new study's first render (what every ``qra-widgets app`` tab's kernel does) imports no
pandas, scipy or plotly, draws no chart and builds only the Study tab, for
20 tabs opened at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from ipywidgets.widgets.widget import _instances
from qra_widgets.widgets import Dashboard
before = len(_instances)
app = Dashboard()
models = len(_instances) - before
modules = sorted(m for m in ("pandas", "scipy", "plotly") if m in sys.modules)
print(json.dumps({"modules": modules, "models": models,
                  "outputs": [len(o.outputs) for o in (app.charts.cv_chart, app.charts.p_and_w, app.charts.scores,
                                                       app.compare.heatmap, app.compare.chart)]}))
"""


def probe() -> dict:
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        env=environment,
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_new_study_renders_without_pandas_scipy_plotly_or_a_chart():
    found = probe()
    assert found["modules"] == []
    assert found["outputs"] == [0, 0, 0, 0, 0]


def test_the_first_page_has_only_the_study_tabs_widgets():
    # 875 widget models (layouts and styles included) when every tab was built with the page;
    # each one is state the visitor's browser receives and a model it builds.
    assert probe()["models"] < 250


def test_a_tab_is_built_when_first_shown_and_shows_the_current_study(tmp_path, qrapp_example1):
    from qra_widgets.widgets import Dashboard
    from qra_widgets.widgets.dashboard import TITLES

    app = Dashboard(library_path=tmp_path / "library.sqlite3")
    assert app._views == {}
    assert [len(child.children) for child in app.tabs.children[1:]] == [0] * (len(TITLES) - 1)  # empty placeholders
    app.state.load(qrapp_example1)
    app.show_tab("Charts")
    assert set(app._views) == {"charts"}
    assert app.tabs.children[TITLES.index("Charts")].children == (app.charts.widget,)
    bars = app.charts.cv_chart.outputs[0]["data"]["application/vnd.plotly.v1+json"]["data"][0]
    assert [round(y, 2) for y in bars["y"]] == [19.96, 29.9, 30.76]  # QRA++ Table 3, loaded before the tab was built
    view = app.assessment  # asked for by name: built and put in its tab
    assert app.tabs.children[TITLES.index("Assessment")].children == (view.widget,) and app.assessment is view


def test_the_heatmap_appears_with_experiments_and_the_empty_cv_figure_is_a_figure(tmp_path, qrapp_example1):
    from qra_widgets.widgets import Dashboard

    app = Dashboard(library_path=tmp_path / "library.sqlite3")
    assert len(app.charts.cv_figure.data) == 0  # built on first use: an empty plotly Figure
    assert app.compare.save_heatmap.click() is None
    assert "add experiments first" in app.status.value
    app.state.load(qrapp_example1)
    heatmap = app.compare.heatmap.outputs[0]["data"]["application/vnd.plotly.v1+json"]
    assert heatmap["data"][0]["type"] == "heatmap"
    assert len(heatmap["data"][0]["x"]) == len(app.state.study.experiments)
    assert app.charts.cv_figure.data[0].type == "bar"
