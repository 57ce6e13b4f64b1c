"""The three users' journeys (researcher, organiser, teacher), through the real page (Voilà + headless Chromium):

- a researcher starting from the empty study (and an upload that needs a scale);
- an organiser loading and saving studies (the unsaved-changes guard, the header's saved
  state, two tabs each saving a new study);
- a teacher reading a paper example's published numbers beside the computed ones.

The README's and the docs' screenshots are taken here, into the tests' screenshots folder
(``screenshot-*.png``); ``scripts/docs-screenshots`` copies them into ``docs/``.
"""

from __future__ import annotations

import pytest

from qra_widgets.examples import titles

from .conftest import OUTPUT
from .test_browser import check_no_code_or_traceback, open_app, tab

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STATUS = "document.querySelector('.qra-status')?.innerText"
HEADER = "document.querySelector('.qra-header')?.innerText"


def wait_status(page, text: str) -> None:
    page.wait_for_function(f"() => {STATUS}.includes({text!r})")


def fill(page, css: str, value: str) -> None:
    field = page.locator(f"{css} input, {css} textarea").first
    field.fill(value)
    field.press("Tab")  # the widgets sync on blur (continuous_update=False)


def click(page, css: str) -> None:
    page.locator(css).first.click()


def load_example(page, name: str) -> None:
    page.select_option(".qra-example-choice select", label=titles()[name])
    click(page, ".qra-load-example")


def screenshot(page, name: str) -> None:
    page.screenshot(path=str(OUTPUT / name), full_page=True)


def test_a_researcher_builds_a_study_from_empty_and_sees_its_assessment_and_chart(page, server):
    url, _library, _log = server
    page.set_viewport_size({"width": 1280, "height": 900})
    open_app(page, url)
    page.wait_for_function(f"() => {HEADER}.includes('Untitled study')")
    assert "not saved in the library yet" in page.evaluate(f"() => {HEADER}")
    assert page.locator(".qra-guide-box").is_visible() and "Start here" in page.inner_text(".qra-guide-box")
    screenshot(page, "screenshot-first-run.png")

    fill(page, ".qra-study-name", "Fluency of my generator")
    click(page, ".qra-apply-details")
    wait_status(page, "Study details updated (id 'fluency-of-my-generator')")
    fill(page, ".qra-qc-name", "Fluency")
    fill(page, ".qra-qc-min", "1")
    fill(page, ".qra-qc-max", "5")
    click(page, ".qra-add-criterion")
    wait_status(page, "Added quality criterion 'Fluency'")
    for system in ("Baseline", "Ours"):
        fill(page, ".qra-system-name", system)
        click(page, ".qra-add-system")
        wait_status(page, f"Added system '{system}'")
    tab(page, "Experiments")
    for exp_id, label in (("orig", "Original 2023"), ("rep", "Our repeat")):
        fill(page, ".qra-exp-id", exp_id)
        fill(page, ".qra-exp-label", label)
        click(page, ".qra-add-experiment")
        wait_status(page, f"Added experiment '{label}'")
    tab(page, "Scores")
    for css, value in (
        (".qra-cell-0-0-0", "3.2"),
        (".qra-cell-0-0-1", "3.6"),
        (".qra-cell-0-1-0", "4.1"),
        (".qra-cell-0-1-1", "4.0"),
    ):
        cell = page.locator(f"{css} input")
        cell.fill(value)
        cell.press("Enter")
    tab(page, "Assessment")
    # every system has two scores: no CV* is n/a any more
    page.wait_for_function(
        "() => document.querySelectorAll('.qra-assessment .qra-system-row').length === 2 && "
        "!document.querySelector('.qra-assessment .qra-type-I')?.innerText.includes('n/a')"
    )
    table = page.inner_text(".qra-assessment")
    assert "Baseline" in table and "Ours" in table and "nan" not in table
    cards = page.text_content(".qra-headline")
    assert "CV* (study)" in cards and "P (study)1.000" in cards  # the ranking held: P = 1 (QRA++ §6, Type IV)
    screenshot(page, "screenshot-assessment.png")
    tab(page, "Charts")
    page.wait_for_function("() => document.querySelectorAll('.qra-cv-chart .barlayer .point').length === 2")
    screenshot(page, "screenshot-charts.png")
    check_no_code_or_traceback(page)


def test_upload_without_scales_asks_for_the_scale(page, server):
    url, _library, _log = server
    open_app(page, url)
    tab(page, "Scores")
    csv = b"experiment,quality_criterion,system,score\nA,Clarity,s1,5.5\nA,Clarity,s2,4.0\nB,Clarity,s1,6.1\nB,Clarity,s2,4.4\n"
    with page.expect_file_chooser() as chooser:  # ipywidgets' FileUpload keeps its <input type=file> off the page
        click(page, ".qra-scores-upload")
    chooser.value.set_files(files=[{"name": "clarity.csv", "mimeType": "text/csv", "buffer": csv}])
    page.wait_for_function("() => document.querySelector('.qra-scores-upload')?.innerText.includes('(1)')")
    click(page, ".qra-scores-upload-button")
    page.wait_for_selector(".qra-scale-prompt .qra-scale-min input")
    assert "no scale_min column" in page.inner_text(".qra-scale-prompt")
    wait_status(page, "give the scale of 'Clarity'")
    click(page, ".qra-scale-apply")  # nothing given: refused, nothing assumed
    wait_status(page, "it is not assumed to be 0")
    fill(page, ".qra-scale-min", "1")
    fill(page, ".qra-scale-max", "7")
    click(page, ".qra-scale-apply")
    wait_status(page, "Loaded 4 scores from clarity.csv")
    page.wait_for_function("() => getComputedStyle(document.querySelector('.qra-scale-prompt')).display === 'none'")
    tab(page, "Study")
    page.select_option(".qra-criteria-list select", index=0)
    page.wait_for_function("() => document.querySelector('.qra-qc-name input')?.value === 'Clarity'")
    assert (
        page.locator(".qra-qc-min input").input_value() == "1"
        and page.locator(".qra-qc-max input").input_value() == "7"
    )
    check_no_code_or_traceback(page)


def test_organiser_loads_and_saves_studies(page, server):
    url, _library, _log = server
    open_app(page, url)
    load_example(page, "qrapp_example1")
    wait_status(page, "Loaded the example")
    tab(page, "Library")
    click(page, ".qra-save")
    wait_status(page, "as revision 1")
    page.wait_for_function(f"() => {HEADER}.includes('saved · revision 1')")
    assert "library.sqlite3" not in page.content()  # the server's path is never shown

    tab(page, "Scores")
    cell = page.locator(".qra-cell-0-0-2 input")
    cell.fill("3.5")
    cell.press("Enter")
    page.wait_for_function(f"() => {HEADER}.includes('unsaved changes · based on revision 1')")
    load_example(page, "qra2022_pass")  # would discard the edit: the page asks first
    page.wait_for_selector(".qra-confirm-yes", state="visible")
    assert "unsaved changes" in page.inner_text(".qra-examples-bar .qra-confirm")
    click(page, ".qra-examples-bar .qra-confirm-no")
    assert "QRA++ Example 1" in page.evaluate(f"() => {HEADER}")
    tab(page, "Library")
    click(page, ".qra-save")
    wait_status(page, "as revision 2")
    load_example(page, "qra2022_pass")  # saved: no question
    page.wait_for_function(f"() => {HEADER}.includes('PASS football reports')")
    click(page, ".qra-save")
    wait_status(page, "as revision 1")
    tab(page, "Library")
    page.wait_for_function("() => document.querySelectorAll('.qra-library-list option').length === 2")
    page.select_option(".qra-library-list select", index=1)
    screenshot(page, "screenshot-library.png")
    check_no_code_or_traceback(page)


def test_two_tabs_each_save_a_new_study(browser, server):
    url, _library, _log = server
    first, second = browser.new_page(), browser.new_page()
    pages = {"first": first, "second": second}
    try:
        for page in (first, second):
            page.set_default_timeout(180_000)
            open_app(page, url)
            fill(page, ".qra-study-name", "Shared task entry")
            click(page, ".qra-apply-details")
            wait_status(page, "Study details updated")
        for page in (first, second):
            tab(page, "Library")
            click(page, ".qra-save")
        wait_status(first, "as revision 1")
        # both tabs derived 'shared-task-entry' before either saved: the second is refused, not filed as a revision
        wait_status(second, "already has a study with the id 'shared-task-entry'")
        assert "'shared-task-entry-2'" in second.evaluate(f"() => {STATUS}")
        tab(second, "Study")
        fill(second, ".qra-study-id", "shared-task-entry-2")
        click(second, ".qra-apply-details")
        wait_status(second, "id 'shared-task-entry-2'")
        tab(second, "Library")
        click(second, ".qra-save")
        wait_status(second, "as revision 1")
        second.wait_for_function("() => document.querySelectorAll('.qra-library-list option').length >= 2")
        options = [o.replace("\xa0", " ") for o in second.locator(".qra-library-list option").all_inner_texts()]
        entries = sorted(o.split(" · ")[:2] for o in options if o.startswith("shared-task-entry"))
        assert entries == [
            ["shared-task-entry", "rev 1"],
            ["shared-task-entry-2", "rev 1"],
        ]  # two studies, no conflict revision
    finally:
        for name, page in pages.items():
            page.screenshot(path=str(OUTPUT / f"two-tabs-{name}-last.png"), full_page=True)
        first.close()
        second.close()


def test_teacher_sees_published_numbers_beside_computed(page, server):
    url, _library, _log = server
    page.set_viewport_size({"width": 1280, "height": 900})
    open_app(page, url)
    load_example(page, "qra2022_pass")
    tab(page, "Assessment")
    page.wait_for_selector(".qra-published")
    published = page.inner_text(".qra-published")
    # QRA 2022 Table 2 prints Clarity CV* 13.193; the 2-decimal scores it publishes give 13.240
    assert "13.193" in published and "13.240" in published and "unrounded means" in published
    assert "16.372" in published and "✓ same" in published
    page.select_option(".qra-conventions select", label="QRA3 (organisers' tool)")
    page.wait_for_function("() => document.querySelector('.qra-assessment')?.innerText.includes('conventions: qra3')")
    page.check(".qra-compare-presets input")
    page.wait_for_selector(".qra-side-by-side")
    screenshot(page, "screenshot-teacher.png")
    check_no_code_or_traceback(page)


def test_labels_read_whole_at_1280_and_the_page_works_at_800(page, server):
    url, _library, _log = server
    open_app(page, url)
    load_example(page, "qrapp_example1")
    wait_status(page, "Loaded the example")
    truncated = """() => [...document.querySelectorAll('.qra-dashboard button, .qra-dashboard .widget-label, .qra-label')]
        .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)"""
    for width in (1280, 800):
        page.set_viewport_size({"width": width, "height": 900})
        for title in ("Study", "Experiments", "Scores", "Assessment", "Library"):
            tab(page, title)
            page.wait_for_timeout(300)
            assert page.evaluate(truncated) == [], (width, title)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width + 1
    page.screenshot(path=str(OUTPUT / "page-800px.png"), full_page=True)
