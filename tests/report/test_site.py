"""The static site: built from a folder of study files and from a library,
opened in headless Debian Chromium from file:// with every other request recorded -- all pages
load offline and every chart draws."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from qra_widgets import Study, examples
from qra_widgets.cli import main
from qra_widgets.io import save_study
from qra_widgets.report.site import PLOTLY_FILE, build_site, page_name, study_page_html
from qra_widgets.store import StudyLibrary
from tests.browser import CHROMIUM, chromium


@pytest.fixture(scope="module")
def site(tmp_path_factory, example_studies):
    folder = tmp_path_factory.mktemp("studies")
    for name in examples.titles():
        save_study(examples.load(name), folder / f"{name}.json")
    hostile = copy.deepcopy(example_studies["qrapp_example1"])
    hostile.id, hostile.name = "x/<script>alert(1)</script>", "<img src=x onerror=alert(1)>"
    save_study(hostile, folder / "hostile.json")
    out = tmp_path_factory.mktemp("site")
    assert main(["site", str(folder), "--out", str(out)]) == 0
    return out


def test_the_site_has_an_index_a_page_per_study_and_downloads(site):
    pages = sorted(p.name for p in (site / "studies").glob("*.html"))
    assert len(pages) == len(examples.titles()) + 1
    assert (site / PLOTLY_FILE).stat().st_size > 1_000_000  # bundled once...
    for page in [site / "index.html", *(site / "studies").glob("*.html")]:
        text = page.read_text()
        assert "https://cdn" not in text and "<script>alert(1)" not in text and "<img src=x" not in text
        assert len(text) < 200_000  # ...not inlined in any page
    example1 = (site / "studies" / "qrapp-example1.html").read_text()
    assert "26.87" in example1  # QRA++ Table 3: mean CV* of Example 1
    assert (site / "studies" / "qrapp-example1.tex").read_text().startswith(r"\begin{table}")
    assert "overview-criteria.csv" in (site / "index.html").read_text()


@pytest.mark.browser
def test_every_page_loads_offline_and_its_charts_draw_in_chromium(site):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium")
    pages = [site / "index.html", *sorted((site / "studies").glob("*.html"))]
    with chromium() as context:
        outside: list[str] = []
        context.route(
            "**/*",
            lambda route: (
                outside.append(route.request.url) if not route.request.url.startswith("file://") else None,
                route.abort() if not route.request.url.startswith("file://") else route.continue_(),
            ),
        )
        for path in pages:
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error, seen=errors: seen.append(str(error)))
            page.goto(path.as_uri())
            charts = page.locator(".plotly-graph-div").count()
            page.wait_for_function(
                f"document.querySelectorAll('.plotly-graph-div .main-svg').length >= {charts}", timeout=60_000
            )
            assert charts >= 1, path.name
            assert page.locator(".plotly-graph-div .main-svg").count() >= charts
            assert errors == [], (path.name, errors)
            page.close()
        assert outside == []


def test_study_page_html_is_one_self_contained_file(tmp_path, qrapp_example1):
    html = study_page_html(qrapp_example1)
    assert "Plotly" in html and len(html) > 1_000_000 and "<script src=" not in html
    assert "19.96" in html  # QRA++ Table 3: CV* of SVM


def test_a_study_that_cannot_be_assessed_gets_a_page_that_says_why(tmp_path, qrapp_example1):
    from qra_widgets import Experiment, QualityCriterion

    library = StudyLibrary(tmp_path / "lib.sqlite3")
    library.save(qrapp_example1)
    library.save(
        Study(
            "lonely",
            quality_criteria=[QualityCriterion("Q")],
            systems=["a"],
            experiments=[Experiment("e1")],
            scores={("Q", "a", "e1"): 1.0},
        )
    )
    build_site(library.path, tmp_path / "out")
    assert "at least two experiments" in (tmp_path / "out" / "studies" / f"{page_name('lonely')}.html").read_text()
