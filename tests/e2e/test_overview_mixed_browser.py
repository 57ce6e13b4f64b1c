"""End to end in headless Chromium: an Overview of studies that mix W and τ, human and metric
evaluations keeps them apart; a row click lands on the study's Assessment tab; at 800 px every
number stays visible.  The docs' screenshots of the Overview, Charts and Intervals tabs are
taken here into the tests' screenshots folder (``screenshot-overview.png``, ``-overview-800px``, ``-overview-qcet``,
``-charts-essay-scoring``, ``-charts-scores``, ``-intervals``); ``scripts/docs-screenshots`` copies them into
``docs/`` (the same views before this change are in ``docs/before/``)."""

from __future__ import annotations

import json
import math
import shutil
from datetime import date
from pathlib import Path

import pytest
from conftest import field_data_folder

import qra_widgets as qw
from qra_widgets import Experiment, QualityCriterion, Study, examples
from qra_widgets.io.annotations import load_annotations
from qra_widgets.store import StudyLibrary
from tests.browser import running_app

from .conftest import OUTPUT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DATA = Path(__file__).parents[1] / "data" / "vanmiltenburg2024"


def mixed_study() -> Study:
    """Human Fluency in three experiments (W) and metric BLEU in two (τ), in one study."""
    fluency = [[4.1, 3.2, 2.5], [4.0, 3.5, 2.2], [3.8, 3.3, 2.6]]
    bleu = [[30.1, 25.2, 20.3], [19.0, 24.0, 29.5]]
    scores = {
        **{("Fluency", s, e): v for e, row in zip(["e1", "e2", "e3"], fluency) for s, v in zip("ABC", row)},
        **{("BLEU", s, e): v for e, row in zip(["e1", "e2"], bleu) for s, v in zip("ABC", row)},
    }
    return Study(
        "mixed-w-tau",
        name="Human fluency and metric BLEU",
        systems=["A", "B", "C"],
        quality_criteria=[
            QualityCriterion("Fluency", scale_min=1, scale_max=5, evaluation_type="human", qcet_id="QOG-w-3"),
            QualityCriterion("BLEU", scale_min=0, scale_max=100, evaluation_type="metric", qcet_id="QTG-f-1"),
        ],
        experiments=[Experiment("e1"), Experiment("e2"), Experiment("e3")],
        scores=scores,
    )


@pytest.fixture(scope="module")
def mixed_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mixed-app")
    library = StudyLibrary(folder / "library.sqlite3")
    for name in examples.titles():
        library.save(examples.load(name))
    library.save(mixed_study())
    field = field_data_folder()
    if field is not None:  # van Miltenburg et al. (2024): published ratings, read from the field data beside our spec
        shutil.copy(DATA / "spec.json", folder / "spec.json")
        shutil.copy(field / "vanmiltenburg2024" / "vanmiltenburg2024_fluency_ratings_long.csv", folder)
        library.save(load_annotations(json.loads((folder / "spec.json").read_text()), base=folder))
    with running_app(folder) as (url, _process):
        yield url, library


ROWS = """() => [...document.querySelectorAll('.qra-overview-table .qra-dt-cells')].filter(div => div.offsetParent !== null)
    .map(div => ({key: div.dataset.key, cells: Object.fromEntries([...div.querySelectorAll('.qra-dt-cell')]
        .map(span => [span.className.match(/qra-col-([a-z0-9-]+)/)[1], span.innerText]))}))"""


def rows(page) -> list[dict]:
    """Each row shown in the overview table: its study key and its cells by column (``mean-cv``, ``tau``...)."""
    return page.evaluate(ROWS)


def open_row(page, study_id: str) -> None:
    page.click(f".qra-overview-table .qra-dt-row:has(.qra-dt-cells[data-key='{study_id}']) .qra-dt-hit")


def shown(value: float, places: int) -> str:
    return "–" if math.isnan(value) else f"{value:.{places}f}"


def test_overview_keeps_w_and_tau_and_human_and_metric_apart_and_a_row_opens_the_assessment(
    field_data, page, mixed_server
):
    url, library = mixed_server
    expected = qw.overview(library)
    page.goto(url, wait_until="commit")
    page.wait_for_selector(".qra-dashboard")
    page.click(".lm-TabBar-tab:has-text('Overview')")
    page.wait_for_selector(".qra-overview-table .qra-dt-cells")  # loaded on first show, no click
    page.click(".qra-overview-level button:has-text('Studies')")
    page.wait_for_function("() => document.querySelector('.qra-overview-where')?.innerText.includes('studies')")
    headers = page.eval_on_selector_all(
        ".qra-overview-table .qra-dt-head .qra-dt-cell", "hs => hs.map(h => h.innerText.trim())"
    )
    assert {"W", "τ"} <= {h.rstrip(" ▲▼") for h in headers} and "W / τ" not in headers
    groups = page.eval_on_selector_all(
        ".qra-overview-table .qra-dt-group", "gs => gs.filter(g => g.offsetParent).map(g => g.innerText)"
    )
    assert [g.split(" · ")[0] for g in groups] == ["Human evaluation", "Automatic metrics", "Evaluation type not given"]
    found = rows(page)
    mixed = [r for r in found if r["key"] == "mixed-w-tau"]
    assert [r["cells"]["evaluation-type"] for r in mixed] == ["human", "metric"]  # one row per type, never pooled
    studies = expected.studies.set_index(["study", "evaluation_type"])
    for row in mixed:
        values = studies.loc[("mixed-w-tau", row["cells"]["evaluation-type"])]
        assert row["cells"]["mean-cv"] == shown(values["mean CV*"], 2)
        assert row["cells"]["w"] == shown(values["W"], 3) and row["cells"]["tau"] == shown(values["τ"], 3)
    human, metric = mixed
    assert human["cells"]["w"] != "–" and human["cells"]["tau"] == "–"
    assert metric["cells"]["tau"] == "-1.000" and metric["cells"]["w"] == "–"
    table4 = next(r for r in found if r["key"] == "qrapp-table4-illustrative")
    assert table4["cells"]["tau"] == "–"  # two criteria with a τ each: no study τ (the old mean was -0.092)
    types = [r["cells"]["evaluation-type"] for r in found]
    assert types == sorted(types, key=["human", "metric", "unknown"].index)  # each type ranked among itself
    assert [r["cells"]["rank"] for r in found if r["cells"]["evaluation-type"] == "metric"][:3] == ["1", "2", "3"]
    page.screenshot(path=str(OUTPUT / "screenshot-overview.png"), full_page=False)
    qcet = page.locator(".qra-overview-by-qcet .js-plotly-plot")
    qcet.scroll_into_view_if_needed()
    ticks = page.eval_on_selector_all(".qra-overview-by-qcet .ytick text", "ts => ts.map(t => t.textContent)")
    values = expected.values("CV*")
    bleu_like = (
        (values.qcet_name == "Similarity to Target Outputs (form)") & (values.evaluation_type == "metric")
    ).sum()
    assert (
        f"Similarity to Target Outputs (form) · metric (n = {bleu_like})" in ticks
    )  # long names: one line beside the box
    qcet.screenshot(path=str(OUTPUT / "screenshot-overview-qcet.png"))

    page.click(".qra-overview-table .qra-dt-head .qra-col-p")  # sort by P, worst (lowest) first
    page.wait_for_function(
        "() => document.querySelector('.qra-overview-table .qra-dt-head .qra-col-p')?.innerText.includes('▲')"
    )
    human_p = [
        r["cells"]["p"] for r in rows(page) if r["cells"]["evaluation-type"] == "human" and r["cells"]["p"] != "–"
    ]
    assert human_p == sorted(human_p, key=float)

    page.set_viewport_size({"width": 800, "height": 900})
    page.wait_for_timeout(500)
    hidden = page.evaluate("""() => [...document.querySelectorAll('.qra-overview-table .qra-dt-cells .qra-num:not(.qra-col-optional)')]
        .filter(span => span.closest('.qra-dt-row').offsetParent !== null).filter(span => {
        const box = span.getBoundingClientRect();
        return box.width === 0 || box.right > window.innerWidth || box.left < 0; }).length""")
    assert hidden == 0  # every value is on screen at 800 px, without scrolling sideways (counts of criteria
    # and systems, like the note, are left out below 1000 px)
    page.screenshot(path=str(OUTPUT / "screenshot-overview-800px.png"), full_page=False)
    page.set_viewport_size({"width": 1280, "height": 900})

    open_row(page, "qra2022-essay-scoring")
    page.wait_for_function("() => document.querySelector('.qra-status')?.innerText?.includes('qra2022-essay-scoring')")
    selected = page.inner_text(".lm-TabBar-tab.lm-mod-current")
    assert selected.strip() == "Assessment"
    page.wait_for_selector(".qra-assessment-tab .qra-cards")
    assert "Multilingual essay scoring" in page.inner_text(".qra-dashboard .qra-study-title")
    with page.expect_download() as download:  # one click: the file, named after the study, what and the day
        page.click(".qra-download-md button")
    assert download.value.suggested_filename == f"qra2022-essay-scoring-assessment-{date.today().isoformat()}.md"
    assert (
        Path(download.value.path()).read_text(encoding="utf-8")
        == qw.assess(examples.load("qra2022_essay_scoring")).to_markdown()
    )

    page.click(".lm-TabBar-tab:has-text('Charts')")
    page.wait_for_selector(".qra-scores-chart .js-plotly-plot")
    page.wait_for_timeout(1000)
    page.screenshot(path=str(OUTPUT / "screenshot-charts-essay-scoring.png"), full_page=True)
    labels = page.eval_on_selector_all(".qra-scores-chart .xtick text", "ts => ts.map(t => t.textContent)")
    assert "Caines & Buttery(2020), R" not in labels and any("reimplementation" in t for t in labels)
    angles = page.eval_on_selector_all(
        ".qra-scores-chart .xtick text", "ts => ts.map(t => t.getAttribute('transform') || '')"
    )
    assert not any("rotate" in a for a in angles)  # wrapped, not rotated
    page.locator(".qra-scores-chart").screenshot(path=str(OUTPUT / "screenshot-charts-scores.png"))


def test_intervals_use_the_template_style_with_numbers_aligned(field_data, page, mixed_server):
    url, _library = mixed_server
    page.goto(url, wait_until="commit")
    page.wait_for_selector(".qra-dashboard")
    page.click(".lm-TabBar-tab:has-text('Overview')")
    open_row(page, "vanmiltenburg2024-fluency")
    page.wait_for_function("() => document.querySelector('.qra-status')?.innerText?.includes('Opened')")
    page.click(".lm-TabBar-tab:has-text('Intervals')")
    box = page.locator(".qra-uncertainty-tab")
    box.locator("input[type=number]").nth(0).fill("200")
    box.locator("input[type=number]").nth(0).press("Enter")
    page.click(".qra-compute-intervals")
    page.wait_for_selector(".qra-intervals table.qra-interval-table")
    aligned = page.eval_on_selector_all(
        ".qra-interval-table td.qra-num", "tds => tds.map(td => getComputedStyle(td).textAlign)"
    )
    assert aligned and set(aligned) == {"right"}
    headers = page.eval_on_selector_all(".qra-interval-table thead th", "ths => ths.map(th => th.innerText.trim())")
    assert headers == ["Type of result", "Measure applied", "System level", "QC level", "Study level"]
    page.wait_for_timeout(1000)
    page.screenshot(path=str(OUTPUT / "screenshot-intervals.png"), full_page=True)
