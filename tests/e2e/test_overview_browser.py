"""End to end at library scale: 300 stored studies, the Overview tab in headless
Chromium opens, filters and sorts; clicking a criterion row opens that study; the page stays light."""

from __future__ import annotations

import numpy as np
import pytest

import qra_widgets as qw
from qra_widgets import Experiment, QualityCriterion, Study
from qra_widgets.store import StudyLibrary
from tests.browser import running_app

from .conftest import OUTPUT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STUDIES = 300
MAX_DOM_NODES = 6_000  # the stated size: the whole page, Overview shown (rows are paginated, charts aggregated)
MAX_HTML_BYTES = 3 * 2**20


def simulated(index: int, rng: np.random.Generator) -> Study:
    systems = [f"system-{j}" for j in range(5)]
    kind = "metric" if index % 4 == 0 else "human"
    qc = QualityCriterion(
        "BLEU" if kind == "metric" else "Fluency",
        scale_min=0 if kind == "metric" else 1,
        scale_max=100 if kind == "metric" else 5,
        evaluation_type=kind,
        qcet_id=None if kind == "metric" else "QOG-w-3",
    )
    base = rng.uniform(qc.scale_min + 1, qc.scale_max - 1, len(systems))
    experiments = [
        Experiment(
            f"e{i}",
            team=f"team-{index % 7}",
            date=f"{2020 + index % 5}-01-01",
            properties={"G.test_dataset": str(rng.choice(["A", "B"]))},
        )
        for i in range(3)
    ]
    spread = 0.01 + 0.1 * rng.random()
    scores = {
        (qc.name, s, e.id): float(
            np.clip(base[j] + rng.normal(0, spread * (qc.scale_max - qc.scale_min)), qc.scale_min, qc.scale_max)
        )
        for e in experiments
        for j, s in enumerate(systems)
    }
    return Study(
        f"sim-{index:04d}",
        name=f"Simulated study {index}",
        quality_criteria=[qc],
        systems=systems,
        experiments=experiments,
        scores=scores,
    )


@pytest.fixture(scope="module")
def big_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("overview-app")
    library = StudyLibrary(folder / "library.sqlite3")
    rng = np.random.default_rng(300)
    for i in range(STUDIES):
        library.save(simulated(i, rng))
    with running_app(folder) as (url, _process):
        yield url, library


def status(page) -> str:
    return page.inner_text(".qra-status")


def test_overview_of_300_studies_filters_sorts_and_opens_a_study(page, big_server):
    url, library = big_server
    expected = qw.overview(library)
    page.goto(url, wait_until="commit")
    page.wait_for_selector(".qra-dashboard")
    page.click(".lm-TabBar-tab:has-text('Overview')")  # read when first shown
    page.wait_for_function("() => document.querySelector('.qra-status')?.innerText.includes('Overview of 300 studies')")
    page.wait_for_function(
        f"() => [...document.querySelectorAll('{VISIBLE_ROWS}')].filter(r => r.offsetParent).length === 25"
    )
    assert "page 1 of 12 · 300 quality criteria" in page.inner_text(".qra-overview-where")
    worst = expected.criteria.study.iloc[0]  # the worst human criterion: each type is ranked on its own
    assert first_key(page) == worst

    metric = expected.filter(evaluation_type="metric")
    page.select_option(".qra-overview-filter-evaluation-type select", label="metric")
    page.wait_for_function(
        f"() => document.querySelector('.qra-overview-where')?.innerText?.includes('· {len(metric.criteria)} quality criteria')"
    )
    page.click(".qra-overview-table .qra-dt-head .qra-col-mean-cv")  # the sorted column again: best first now
    best = metric.sorted("criteria", worst_first=False).study.iloc[0]
    page.wait_for_function("() => document.querySelector('.qra-overview-where')?.innerText?.includes('best first')")
    assert first_key(page) == best

    nodes = page.evaluate("() => document.querySelectorAll('*').length")
    size = page.evaluate("() => document.documentElement.outerHTML.length")
    page.screenshot(path=str(OUTPUT / "overview-300.png"), full_page=True)
    (OUTPUT / "overview-300-size.txt").write_text(f"DOM nodes: {nodes}\nHTML characters: {size}\n")
    assert nodes < MAX_DOM_NODES and size < MAX_HTML_BYTES

    page.click(f".qra-overview-table .qra-dt-row:has(.qra-dt-cells[data-key='{best}']) .qra-dt-hit")
    page.wait_for_function(f"() => document.querySelector('.qra-status')?.innerText?.includes(\"Opened '{best}'\")")
    assert f"Simulated study {int(best.split('-')[1])}" in page.inner_text(".qra-dashboard .qra-study-title")
    assert page.inner_text(".lm-TabBar-tab.lm-mod-current").strip() == "Assessment"


VISIBLE_ROWS = ".qra-overview-table .qra-dt-cells"


def first_key(page) -> str:
    return page.evaluate(
        f"() => [...document.querySelectorAll('{VISIBLE_ROWS}')].find(r => r.offsetParent).dataset.key"
    )
