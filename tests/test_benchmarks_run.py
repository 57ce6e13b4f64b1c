"""CI proves the benchmarks still run (small sizes); no timing is asserted here."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[1]


def test_benchmarks_run_quick():
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ") and "comparison" not in line]
    names = " ".join(rows)
    for expected in (
        "Krippendorff's alpha, nominal",
        "Krippendorff's alpha, ratio",
        "Fleiss' kappa",
        "cohen_kappa",
        "gwet_ac",
        "brennan_prediger",
        "percent_agreement",
        "adjacent_agreement",
        "P (rank agreement)",
        "Kendall's W",
        "assess()",
        "import qra_widgets",
    ):
        assert expected in names, expected
    assert all(row.count("|") == 8 for row in rows)


@pytest.mark.browser
def test_app_benchmark_runs():
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "app.py"), "--runs", "1", "--arrivals", "3"],
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    for expected in (
        "first render, preheated kernel",
        "grid edit -> CV* chart updated",
        "websocket bytes received per page load",
        "3 tabs opened at once",
        "kernel memory per tab",
    ):
        assert expected in result.stdout


def test_site_benchmark_runs_without_plotly():
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "site.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert "10 studies:" in result.stdout and "plotly imported: False" in result.stdout
