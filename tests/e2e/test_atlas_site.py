"""The static atlas renders offline in headless Chromium, with a forest plot per criterion of every family."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from qra_widgets import atlas
from qra_widgets.atlas.site import build_atlas_site
from tests.browser import CHROMIUM, chromium

from .conftest import OUTPUT

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def site(atlas_mirror, tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    out = tmp_path_factory.mktemp("site")
    atlas.fetch(cache=cache, mirror=atlas_mirror)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = atlas.build(cache=cache, bootstrap=0)
    build_atlas_site(out, results=results)
    return out, results


def test_atlas_site_renders_offline_with_a_forest_plot_per_criterion_of_every_family(site):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/test, which installs Debian's chromium")
    out, results = site
    OUTPUT.mkdir(parents=True, exist_ok=True)
    with chromium() as context:
        page = context.new_page()
        requests, problems = [], []
        page.on("request", lambda request: requests.append(request.url))
        page.on(
            "console",
            lambda message: (
                problems.append(message.text) if message.type == "error" or "WARN" in message.text else None
            ),
        )
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto((out / "index.html").as_uri())
        page.wait_for_selector("#distribution-CV .main-svg")
        assert page.locator("#distribution-P.js-plotly-plot").count() == 1
        assert page.locator("table tr").count() == len(results) + 1
        page.screenshot(path=str(OUTPUT / "screenshot-atlas-index.png"), full_page=True)  # docs/user-guide/atlas.md
        for result in results:
            family = result.family["id"]
            page.goto((out / "families" / f"{family}.html").as_uri())
            page.wait_for_selector(".js-plotly-plot .main-svg")
            plots = page.locator("[id^=forest-].js-plotly-plot")
            assert plots.count() == len(result.study.quality_criteria), family
            assert page.locator("[id^=ranks-].js-plotly-plot").count() == len(result.study.quality_criteria), family
            # every experiment of the first criterion is drawn (one y tick per row of the forest frame)
            assert page.locator("[id^=forest-] .ytick").count() > len(result.study.experiments)
            assert "Published vs recomputed" in page.content()
            if family == "yao2022_storyqg":
                page.screenshot(path=str(OUTPUT / "atlas-yao2022.png"), full_page=True)
                # the pictures of docs/user-guide/side-by-side.md: Readability's forest plot and rank intervals
                page.locator("[id^=forest-].js-plotly-plot").first.screenshot(
                    path=str(OUTPUT / "screenshot-forest-yao2022.png")
                )
                page.locator("[id^=ranks-].js-plotly-plot").first.screenshot(
                    path=str(OUTPUT / "screenshot-ranks-yao2022.png")
                )
        assert {url.split(":", 1)[0] for url in requests} == {"file"}, [
            u for u in requests if not u.startswith("file:")
        ]
        assert not problems, problems
