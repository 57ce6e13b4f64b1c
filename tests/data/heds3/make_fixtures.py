"""Make the HEDS 3.0 fixtures in this folder with the official HEDS 3.0 form, in headless Chromium.

The form (``/work/shared/data/heds3/index.html``, a static page) keeps every answer in the
browser's local storage and its "download json" button (``exportJson``) turns the whole
local storage into a ``datacard-<date>.json`` download.  This script fills the form as a
team would -- typing into the fields, ticking radio buttons and check boxes, adding two
quality criteria with the form's "New" button -- then clicks "download json" and keeps the
downloaded file.  It is not run by the test suite (it needs Chromium and about 30 s).

    PYTHONPATH=$PWD python tests/data/heds3/make_fixtures.py [/path/to/heds3/index.html]

Fixtures:

``heds3_two_criteria.json``
    A complete sheet: 150 outputs, 3 evaluators (non-experts, not authors), two criteria
    (Fluency, mapped by its QCET name "Fluency"; Informativeness, mapped by the QCET label
    "Informativeness (QOG-c-2)"), each with its own response elicitation and a 5-point scale.
``heds3_messy.json``
    What real sheets look like before submission: "TBA" and "N/A" in the number fields, a
    sentence instead of a number of evaluators, a criterion whose mapped name is not a QCET
    name, an "Other" answer with its text, and a second criterion left empty.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
FORM = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/data/heds3/index.html")

E = "heds-sample_evaluators_design-evaluators-"
D = "heds-sample_evaluators_design-experimental_design-"
C = "heds-criteria-criterion-"
R = C + "response_elicitation-"


def fill(page, element_id: str, text: str) -> None:
    """Enter text and fire the key-up event on which the form stores a field.

    The form shows one section at a time, so fields are set through the page's DOM (the
    same value and event a person's typing produces) rather than by clicking sections open.
    """
    page.eval_on_selector(
        f"#{element_id}",
        "(el, text) => { el.value = text; el.dispatchEvent(new Event('keyup')); "
        "el.dispatchEvent(new Event('change')); }",
        text,
    )


def tick(page, element_id: str) -> None:
    """Tick a radio button or check box (a click: the form's own handlers run)."""
    page.eval_on_selector(f"#{element_id}", "el => { if (!el.checked) el.click(); }")


def click(page, element_id: str) -> None:
    page.eval_on_selector(f"#{element_id}", "el => el.click()")


def store(page) -> None:
    """What the form does before a download: write every field to local storage."""
    page.evaluate("updateAllStore()")


def new_criterion(page, name: str) -> None:
    store(page)
    fill(page, "heds-criteria-criterion", name)
    click(page, "heds-criteria-criterion_new")
    page.wait_for_selector(f"#heds-criteria-criterion-{name.replace(' ', '_')}", state="attached")


def download(page, target: Path) -> None:
    store(page)
    with page.expect_download() as info:
        click(page, "download_button_id")
    info.value.save_as(target)


def two_criteria(page) -> None:
    fill(
        page,
        "heds-paper_and_resources-paper-experiment_identification",
        "Human evaluation of fluency and informativeness, section 5",
    )
    tick(page, "heds-system-input_types-1")  # raw/structured data
    tick(page, "heds-system-output_types-5")
    tick(page, "heds-system-tasks-4")
    fill(page, "heds-sample_evaluators_design-sample-number_of_system_outputs", "150")
    fill(page, E + "number_of_evaluators", "3")
    tick(page, E + "evaluators-expertise-2")  # No
    tick(page, E + "evaluators-are_authors-2")  # No
    fill(page, E + "training_practice", "A practice round of five items with feedback")
    fill(page, E + "characteristics", "Crowd workers on Prolific, native speakers of English")
    fill(page, D + "collection_method", "Google Forms")
    tick(page, D + "quality_assurance-method-1")
    tick(page, D + "quality_assurance-method-3")
    for name, qcet, question, scale in (
        ("Fluency", "Fluency", "How fluent is this text?", "5"),
        (
            "Informativeness",
            "Informativeness (QOG-c-2)",
            "How much of the input's information does the text give?",
            "5",
        ),
    ):
        new_criterion(page, name)
        fill(page, R + "qc_name-participant_criterion_name", name)
        fill(page, R + "qc_name-mapped_criterion_name", qcet)
        tick(page, C + "evaluation_mode-objective_or_subjective-2")  # Subjective
        tick(page, C + "evaluation_mode-absolute_or_relative-1")  # Absolute
        tick(page, C + "evaluation_mode-intrinsic_or_extrinsic-1")  # Intrinsic
        fill(page, R + "size_of_scale", scale)
        fill(page, R + "list_or_range", "1 (worst) to 5 (best)")
        tick(page, R + "scale_presented_as-1")  # multiple-choice options
        fill(page, R + "verbatim_question", question)
        tick(page, R + "form_of_response-2")  # direct quality estimation


def messy(page) -> None:
    tick(page, "heds-system-input_types-2")
    fill(page, "heds-sample_evaluators_design-sample-number_of_system_outputs", "TBA")
    fill(page, E + "number_of_evaluators", "between 3 and 5, depending on the batch")
    tick(page, E + "evaluators-expertise-3")  # N/A (please explain)
    fill(page, E + "evaluators-expertise-other_text", "Experts for the medical texts only")
    fill(page, E + "training_practice", "N/A")
    new_criterion(page, "Overall quality")
    fill(page, R + "qc_name-mapped_criterion_name", "general goodness, as we call it")
    tick(page, C + "evaluation_mode-objective_or_subjective-2")
    tick(page, R + "scale_presented_as-1")
    fill(page, R + "size_of_scale", "N/A")
    fill(page, R + "verbatim_question", "Which text is better overall?")
    tick(page, R + "form_of_response-3")  # relative quality estimation
    new_criterion(page, "Correctness")  # added, never filled in


def main() -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            tempfile.mkdtemp(),
            executable_path="/usr/bin/chromium",
            headless=True,
            accept_downloads=True,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
        )
        try:
            for name, scenario in (("heds3_two_criteria.json", two_criteria), ("heds3_messy.json", messy)):
                page = context.new_page()
                page.goto(FORM.resolve().as_uri())
                page.evaluate("localStorage.clear()")
                page.reload()
                scenario(page)
                download(page, HERE / name)
                page.close()
                print(f"wrote {HERE / name}")
        finally:
            context.close()


if __name__ == "__main__":
    main()
