"""The Dashboard inside JupyterLab, the way the docs (docs/app.md) tell people to use it.

A real ``jupyter lab`` (token disabled, loopback, a free port, a temporary root folder with its
own settings and workspaces) serves a notebook whose first cell is
``Dashboard(examples.load("qrapp_example1"))`` (QRA++ example 1: Fluency of SVM, GeDi and
DExperts).  Headless Debian Chromium opens it and runs the cell with Shift+Enter, then:

- every chart draws at once, before any edit (``ChartsView`` used to stay empty until
  the first edit): the CV*, P/W and scores charts are Plotly plots with their bars;
- an edit in the page (renaming a system on the Study tab) reaches the dashboard's study and
  its chart, and the caller's ``study`` object is unchanged (the Dashboard edits a copy, as
  documented in ``qra_widgets/widgets/dashboard.py``); the second cell prints both;
- ``Dashboard()`` (no study) renders in the third cell, and a criterion added on its Study tab
  reaches its state (the fourth cell prints it).

The server is always stopped (try/finally in :func:`tests.browser.running_app`'s way).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser import CHROMIUM, chromium, free_port, stop, wait_until_serving

from .conftest import OUTPUT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# chart -> the Plotly layer its marks are in (the scores chart draws one point per score)
CHARTS = {".qra-cv-chart": "barlayer", ".qra-pw-chart": "barlayer", ".qra-scores-chart": "scatterlayer"}
FIRST_CELL = (
    "from qra_widgets import Dashboard, examples\n"
    'study = examples.load("qrapp_example1")\n'
    "dashboard = Dashboard(study)\n"
    "dashboard"
)
SECOND_CELL = 'print("caller:", study.systems, "| dashboard:", dashboard.state.study.systems)'
EMPTY_CELL = "empty = Dashboard()\nempty"  # a new, empty study: what a researcher starting from nothing runs
EMPTY_PRINT = 'print("empty:", empty.state.study.qc_names)'


def notebook(cells: list[str]) -> dict:
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "cells": [
            {
                "cell_type": "code",
                "id": f"cell-{i}",
                "metadata": {},
                "execution_count": None,
                "outputs": [],
                "source": source,
            }
            for i, source in enumerate(cells)
        ],
    }


def lab_command(port: int, root: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.user_settings_dir={root / '.settings'}",
        f"--LabApp.workspaces_dir={root / '.workspaces'}",
        "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        "--ServerApp.terminals_enabled=False",
        *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
    ]  # CI containers run as root


def marks_drawn(selector: str) -> str:
    """JS: the number of bars (or points) Plotly drew inside ``selector``'s chart."""
    return f"document.querySelectorAll('{selector} .js-plotly-plot .{CHARTS[selector]} .point').length"


def run_cell(page, index: int) -> None:
    """Run a cell as a person does: click into it, Shift+Enter, and see its prompt get a number.

    The kernel's status bar says "Idle" a moment before its websocket takes requests; a cell
    run in that moment is never executed (its prompt stays ``[ ]``), and a person would run
    it again; so does this, once (never a cell that is queued or running).
    """
    page.wait_for_selector(".jp-StatusBar-TextItem:has-text('Idle')")
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    for attempt in range(2):
        cell.locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")
        try:
            cell.locator(".jp-InputPrompt").filter(has_text=re.compile(r"\[(\*|\d+)\]")).wait_for(timeout=15_000)
            break  # queued or running: never run it twice
        except PlaywrightTimeout:
            if attempt:
                raise
    cell.locator(".jp-InputPrompt").filter(has_text=re.compile(r"\[\d+\]")).wait_for()


def test_dashboard_in_jupyterlab_draws_every_chart_and_edits_a_copy(tmp_path):
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: run scripts/test, which installs Debian's chromium"
    root = tmp_path / "lab"
    root.mkdir()
    (root / "dashboard.ipynb").write_text(json.dumps(notebook([FIRST_CELL, SECOND_CELL, EMPTY_CELL, EMPTY_PRINT])))
    port = free_port()
    environment = dict(
        os.environ, QRA_WIDGETS_DB=str(tmp_path / "library.sqlite3"), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime")
    )
    OUTPUT.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with open(tmp_path / "lab.log", "w") as log:
        process = subprocess.Popen(
            lab_command(port, root), env=environment, stdout=log, stderr=subprocess.STDOUT, cwd=root
        )
        try:
            url = f"http://127.0.0.1:{port}/"
            wait_until_serving(url, process, timeout=60)
            with chromium() as browser:
                page = browser.new_page()
                page.set_default_timeout(60_000)
                try:
                    page.goto(url + "lab/tree/dashboard.ipynb")
                    page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content")
                    run_cell(page, 0)

                    # every chart draws at once, with no edit
                    page.wait_for_selector(".qra-study-tab")
                    page.locator(".widget-tab .lm-TabBar-tab", has_text="Charts").click()
                    for selector in CHARTS:
                        page.wait_for_function(f"() => {marks_drawn(selector)} > 0")
                    drawn = {selector: page.evaluate(marks_drawn(selector)) for selector in CHARTS}
                    # one CV* bar per system; P and W of Fluency; 3 systems x 3 experiments' scores (QRA++ example 1)
                    assert drawn == {".qra-cv-chart": 3, ".qra-pw-chart": 2, ".qra-scores-chart": 9}
                    ticks = page.evaluate(
                        "Array.from(document.querySelectorAll('.qra-cv-chart .xtick text')).map(t => t.textContent)"
                    )
                    assert sorted(ticks) == ["DExperts", "GeDi", "SVM"]
                    page.screenshot(path=str(OUTPUT / "jupyterlab-dashboard-charts.png"), full_page=True)

                    # an edit in the page: rename SVM on the Study tab
                    page.locator(".widget-tab .lm-TabBar-tab", has_text="Study").click()
                    page.locator(".qra-system-list select").select_option("SVM")
                    # the kernel answers the pick by filling the name field: wait for it before typing
                    page.wait_for_function("() => document.querySelector('.qra-system-name input')?.value === 'SVM'")
                    page.locator(".qra-system-name input").fill("SVM (edited)")
                    page.locator("button.qra-rename-system").click()
                    page.wait_for_selector(".qra-status:has-text(\"Renamed system 'SVM' to 'SVM (edited)'\")")
                    page.locator(".widget-tab .lm-TabBar-tab", has_text="Charts").click()
                    page.wait_for_function(
                        "() => Array.from(document.querySelectorAll('.qra-cv-chart .xtick text'))"
                        ".some(t => t.textContent === 'SVM (edited)')"
                    )

                    # the caller's study is unchanged; the dashboard's copy has the edit
                    run_cell(page, 1)
                    printed = page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-OutputArea-output")
                    printed.wait_for()
                    assert printed.inner_text().strip() == (
                        "caller: ['SVM', 'GeDi', 'DExperts'] | dashboard: ['SVM (edited)', 'GeDi', 'DExperts']"
                    )

                    # Dashboard() with no study: it renders, and a criterion typed into it reaches its state
                    run_cell(page, 2)
                    empty = page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".jp-OutputArea-output")
                    empty.locator(".qra-study-tab").wait_for()
                    for css, value in ((".qra-qc-name", "Fluency"), (".qra-qc-min", "1"), (".qra-qc-max", "5")):
                        field = empty.locator(f"{css} input").first
                        field.fill(value)
                        field.press("Tab")
                    empty.locator("button.qra-add-criterion").click()
                    empty.locator(".qra-status:has-text(\"Added quality criterion 'Fluency'\")").wait_for()
                    run_cell(page, 3)
                    said = page.locator(".jp-Notebook .jp-Cell").nth(3).locator(".jp-OutputArea-output")
                    said.wait_for()
                    assert said.inner_text().strip() == "empty: ['Fluency']"
                finally:
                    page.screenshot(path=str(OUTPUT / "jupyterlab-dashboard-last.png"), full_page=True)
        except Exception:
            print((tmp_path / "lab.log").read_text()[-4000:])  # the server's side of a failure
            raise
        finally:
            stop(process)
    assert process.returncode is not None  # the server is stopped
    print(f"JupyterLab journey: {time.monotonic() - started:.1f} s")  # 17-33 s here (2 shared cores); target under 90 s
