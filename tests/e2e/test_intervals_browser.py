"""End to end: in headless Chromium, upload the van Miltenburg et al.
(2024) fluency ratings on the Annotations tab, map two rater groups (001+002, 009+010) as two
experiments, load, then compute intervals on the Intervals tab and read the bracketed CV*
interval of SVM, which must be the one ``assess(study, bootstrap=500, seed=3)`` gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fielddata import field_path, needs_field_data

import qra_widgets as qw
from qra_widgets.io.annotations import load_annotations

from .conftest import OUTPUT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SPEC = Path(__file__).parents[1] / "data" / "vanmiltenburg2024" / "spec.json"  # ours
DATA = field_path("vanmiltenburg2024")  # the published ratings (field data; the test skips without it)
LONG = "vanmiltenburg2024_fluency_ratings_long.csv"
B, SEED = 500, 3


def expected_cell() -> str:
    spec = json.loads(SPEC.read_text())
    spec["experiments"] = spec["experiments"][:2]  # direct (001, 002) and extra (009, 010)
    spec["id"], spec["name"] = "fluency", ""
    spec["missing"] = ["", "NA", "N/A", "nan", "*"]  # the form's default marks
    for experiment in spec["experiments"]:
        experiment.pop("label")
    study = load_annotations(spec, base=DATA)
    table = qw.assess(study, bootstrap=B, seed=SEED).table()
    row = table[(table["Type of result"].str.strip() == "SVM") & (table["Measure applied"] == "CV*")].iloc[0]
    return row["System level"]


@needs_field_data
def test_compute_intervals_in_the_page_after_uploading_annotations(page, server):
    url, _library, _log = server
    cell = expected_cell()
    assert "[" in cell  # "13.07 [..., ...]"
    page.goto(url, wait_until="commit")
    page.wait_for_selector(".qra-dashboard")
    page.set_default_timeout(90_000)  # the page is up: each step below takes seconds
    page.click(".lm-TabBar-tab:has-text('Annotations')")
    name = page.locator(".qw-ann-criterion-name input")
    name.fill("Fluency")
    name.press("Enter")
    page.fill(".qw-ann-scale-min input", "1")
    page.fill(".qw-ann-scale-max input", "4")
    page.click(".qw-ann-add-experiment")
    page.wait_for_function("() => document.querySelectorAll('.qw-ann-card').length === 2")
    for index, (experiment_id, raters) in enumerate((("direct", "001, 002"), ("extra", "009, 010"))):
        box = page.locator(".qw-ann-card").nth(index)
        with page.expect_file_chooser() as chooser:  # ipywidgets' FileUpload keeps its <input type=file> off the page
            box.locator(".qw-ann-files").click()
        chooser.value.set_files(files=[{"name": LONG, "mimeType": "text/csv", "buffer": (DATA / LONG).read_bytes()}])
        box.locator(".qw-ann-preview table").wait_for()
        box.locator(".qw-ann-experiment input").fill(experiment_id)
        box.locator(".qw-ann-experiment input").press("Tab")
        box.locator(".qw-ann-rows-column select").select_option(label="participant")
        box.locator(".qw-ann-rows-values input").fill(raters)
        box.locator(".qw-ann-rows-values input").press("Tab")
    spec = json.loads(SPEC.read_text())
    page.fill(".qw-ann-renames textarea", "\n".join(f"{a} = {b}" for a, b in spec["systems"].items()))
    page.fill(".qw-ann-study-id input", "fluency")
    page.locator(".qw-ann-study-id input").press("Tab")
    page.click(".qw-ann-load")
    page.wait_for_function(
        "() => document.querySelector('.qra-status')?.innerText.includes('ratings from 2 experiments')"
    )

    page.click(".lm-TabBar-tab:has-text('Intervals')")
    box = page.locator(".qra-uncertainty-tab")
    box.locator("input[type=number]").nth(0).fill(str(B))
    box.locator("input[type=number]").nth(1).fill(str(SEED))
    box.locator("input[type=number]").nth(1).press("Enter")
    page.click(".qra-compute-intervals")
    page.wait_for_function(
        "() => document.querySelector('.qra-interval-message')?.innerText?.includes('intervals from 500 bootstrap replicates (seed 3)')"
    )
    table = page.inner_text(".qra-intervals")
    page.screenshot(path=str(OUTPUT / "intervals.png"), full_page=True)
    assert cell in table
    assert "Annotator agreement within each experiment" in page.inner_text(".qra-agreement-box")
    page.wait_for_selector(".qra-interval-chart .js-plotly-plot .errorbar")
