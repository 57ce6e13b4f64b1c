"""End to end: the dashboard served by Voila, driven in headless Chromium as a person would."""

from __future__ import annotations

import pytest

from qra_widgets.examples import titles

from .conftest import OUTPUT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EXAMPLE1 = titles()["qrapp_example1"]
CV_PLOT = (
    "(() => { const el = document.querySelector('.qra-cv-chart'); "
    "return !el ? null : el.classList.contains('js-plotly-plot') ? el : el.querySelector('.js-plotly-plot'); })()"
)

FORBIDDEN = (
    "Traceback (most recent call last)",
    "from qra_widgets.widgets import Dashboard",
    "site-packages",
    "/work/",
)


def open_app(page, url):
    page.goto(url, wait_until="commit")
    page.wait_for_selector(".qra-dashboard")


def tab(page, title):
    page.click(f".lm-TabBar-tab:has-text('{title}')")


def assessment_html(page) -> str:
    page.wait_for_selector(".qra-assessment", state="attached")  # a tab's view arrives when the tab is first shown
    return page.evaluate("() => document.querySelector('.qra-assessment')?.innerHTML")


def load_example1(page, url):
    open_app(page, url)
    page.select_option(".qra-example-choice select", label=EXAMPLE1)
    page.click(".qra-load-example")
    tab(page, "Assessment")  # a tab is built when first shown
    page.wait_for_function("() => document.querySelector('.qra-assessment')?.innerText.includes('30.76')")


def check_no_code_or_traceback(page):
    content = page.content()
    for text in FORBIDDEN:
        assert text not in content, text


def test_an_example_loads_edits_saves_and_reloads_with_its_numbers(page, server):
    url, _library, _log = server
    load_example1(page, url)
    table = assessment_html(page)
    assert all(value in table for value in ("19.96", "29.9", "30.76"))

    tab(page, "Charts")
    page.wait_for_function("() => document.querySelectorAll('.qra-cv-chart .barlayer .point').length === 3")
    heights = page.evaluate(f"() => {CV_PLOT}.data[0].y.map(v => v.toFixed(2))")
    assert heights == ["19.96", "29.90", "30.76"]

    tab(page, "Scores")
    cell = page.locator(".qra-cell-0-0-2 input")
    cell.fill("3.5")
    cell.press("Enter")
    page.wait_for_function("() => !document.querySelector('.qra-assessment')?.innerText.includes('19.96')")
    tab(page, "Charts")
    page.wait_for_function(
        f"() => {{ const y = {CV_PLOT}.data[0]?.y?.[0]; return y !== undefined && y.toFixed(2) !== '19.96'; }}"
    )
    page.screenshot(path=str(OUTPUT / "dashboard-charts.png"), full_page=True)

    tab(page, "Library")
    page.click(".qra-save")
    page.wait_for_function("() => document.querySelector('.qra-status')?.innerText.includes('Saved')")
    check_no_code_or_traceback(page)

    page.reload(wait_until="commit")
    page.wait_for_selector(".qra-dashboard")
    tab(page, "Library")
    page.wait_for_function("() => document.querySelectorAll('.qra-library-list option').length >= 1")
    page.select_option(".qra-library-list select", index=0)
    page.click(".qra-open")
    page.wait_for_function("() => document.querySelector('.qra-status')?.innerText.includes('Opened')")
    tab(page, "Scores")
    assert page.locator(".qra-cell-0-0-2 input").input_value() == "3.5"
    tab(page, "Assessment")
    assert "19.96" not in assessment_html(page) and "29.9" in assessment_html(page)
    page.screenshot(path=str(OUTPUT / "dashboard-assessment.png"), full_page=True)
    check_no_code_or_traceback(page)


def test_invalid_cell_is_marked_without_traceback(page, server):
    url, _library, _log = server
    load_example1(page, url)
    tab(page, "Scores")
    cell = page.locator(".qra-cell-0-1-2 input")
    cell.fill("3,5")
    cell.press("Enter")
    page.wait_for_function("() => document.querySelector('.qra-invalid-list') !== null")
    assert "is not a number (use '.' as the decimal point)" in page.inner_text(".qra-invalid-list")
    assert page.locator(".qra-cell-0-1-2 input").input_value() == "3,5"
    check_no_code_or_traceback(page)
