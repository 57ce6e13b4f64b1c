"""The Side by side tab in the served app: a forest plot and the verdicts of QRA++ Example 1."""

from __future__ import annotations

import pytest

from tests.e2e.test_browser import load_example1

from .conftest import OUTPUT

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_side_by_side_tab_draws_the_forest_plot_and_the_verdicts_of_an_example(page, server):
    url, _library, _log = server
    load_example1(page, url)
    page.click(".lm-TabBar-tab:has-text('Side by side')")
    page.wait_for_selector(".qra-sidebyside .js-plotly-plot .main-svg")
    # QRA++ Example 1 has system means only: drawn, not pooled, and the verdicts say which standard error is missing
    assert (
        page.locator(".qra-sidebyside .js-plotly-plot .scatterlayer .point").count() >= 9
    )  # 3 systems x 3 experiments
    verdicts = page.inner_text(".qra-verdicts-box")
    assert "Margin ±0.15" in verdicts and "no standard error for the original and reproduction" in verdicts
    page.screenshot(path=str(OUTPUT / "screenshot-side-by-side.png"), full_page=True)
