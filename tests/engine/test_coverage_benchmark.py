"""benchmarks/coverage.py --quick runs every design cell end to end (the full study runs outside CI)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[2]


def test_the_quick_coverage_study_runs_every_design_cell():
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "coverage.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    elapsed = time.perf_counter() - started
    out = result.stdout
    assert "Replications per cell: 2 to 2 (72 in all" in out and "Seed 20261125, B = 100" in out
    summary = out.split("## Summary")[1].split("\n## ")[0]
    rows = [line for line in summary.splitlines() if line.startswith("| ") and not line.startswith("| measure")]
    names = {tuple(cell.strip() for cell in row.split("|")[1:5]) for row in rows}
    for expected in [
        ("CV* (system)", "items", "percentile", "raters"),
        ("CV* (system)", "scores", "vangel", "experiments"),
        ("CV* (criterion)", "items+raters", "bca", "over raters"),
        ("r", "systems", "percentile", "over raters"),
        ("P", "items", "bca", "raters"),
        ("W", "items", "percentile", "raters"),
        ("alpha (each team)", "items", "percentile", "raters"),
    ]:
        assert expected in names, expected
    shares = [float(x) for x in re.findall(r"\| (\d+\.\d) \(\d+\.\d\)", summary)]
    assert shares and all(0 <= x <= 100 for x in shares)
    # under three minutes on a free CI core (about 40 s of CPU); a shared machine's wall clock is not asserted
    print(f"--quick: {elapsed:.0f} s wall clock")


def test_the_exact_targets_agree_with_a_large_simulation(coverage_study):
    """The model's expected system mean and ordinal alpha, computed by normal integrals and quadrature,
    match 200,000 simulated items (a check of the truths the coverage is measured against)."""
    study = coverage_study
    from qra_widgets.measures import krippendorff_alpha

    rng = np.random.default_rng(0)
    centre, raters = np.array([2.6, 3.4]), np.array([-0.4, 0.1, 0.3])
    items = 100_000
    latent = (
        centre[:, None, None]
        + rng.normal(0, study.SD_ITEM, (2, items, 1))
        + raters
        + rng.normal(0, study.SD_NOISE, (2, items, 3))
    )
    ratings = np.clip(np.round(latent), 1, 5)
    mean = study.expected_rating(centre[:, None] + raters, np.hypot(study.SD_ITEM, study.SD_NOISE)).mean(axis=1)
    assert mean == pytest.approx(ratings.mean(axis=(1, 2)), abs=0.01)
    simulated = krippendorff_alpha(ratings.reshape(-1, 3).T, level="ordinal")
    assert study.alpha_truth(centre, raters) == pytest.approx(simulated, abs=0.01)
