"""A researcher's journeys through the Annotations tab, in the real page (Voilà + headless Chromium):
real clicks, the real file chooser, controls found only by their stable ``qw-ann-*`` classes
(docs/app.md lists them), on published files from the field data (skipped, saying why, without
``$QRA_WIDGETS_FIELD_DATA``):

- the four QRA3 annotation files of Yao et al. (2022) and its three ReproNLP reproductions, four
  cards, give the QRA3 tool's published Readability CV* (``qra3/output-4-studies/Yao2022/table.csv``);
- Hosking & Lapata (2021)'s meaning preservation: Arvan & Parde (2025)'s raw pairwise judgements in
  one card, the original's four printed values typed into a ``scores`` card, give the team's
  published CV* 0.63 / 7.60 / 1.65 / 10.31 (``results/lab1/tables/cv_summary.csv``);
- Puduppully & Lapata (2021): Lab 1's and Lab 2's ``coherence.csv.gz`` (same name, two folders)
  stay two files and two experiments, with their own values;
- the downloaded spec gives the same numbers through ``qra-widgets report --data-root``.

Each journey's screenshot is saved in the screenshots folder (tests/conftest.py) as ``journey-<name>.png`` (never in docs/;
``scripts/docs-screenshots`` copies them there as ``docs/screenshot-journey-<name>.png``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from qra_widgets.io.annotations import load_annotations

from .conftest import OUTPUT
from .test_browser import check_no_code_or_traceback, open_app, tab

pytestmark = [pytest.mark.browser, pytest.mark.slow]

QRA3_FILES = ("yao2022.csv", "florescu2024.csv", "braun2025.csv", "mroczek2026.csv")
HOSKING = "atlas/hosking2021_sepae_bws/DERIVED_responses_long_from_mo-arvan_responses.csv"
PUDUPPULLY = "reproductions/puduppully2021_rotowire_pairwise_lab1_lab2/raw_mturk"
FIELD_SPECS = Path(__file__).parents[1] / "field"
STATUS = "document.querySelector('.qw-status')?.innerText || ''"
ASSESSMENT = (
    "[...document.querySelectorAll('.qw-assessment-table tr')].map(r => [...r.children].map(c => c.textContent.trim()))"
)


def wait_status(page, pattern: str) -> str:
    """Wait until the status line matches ``pattern`` (a regular expression); return it."""
    page.wait_for_function(f"() => new RegExp({json.dumps(pattern)}).test({STATUS})")
    return page.evaluate(f"() => {STATUS}")


def card(page, index: int):
    return page.locator(".qw-ann-card").nth(index)


def choose_files(page, button, paths) -> None:
    """Click the FileUpload and answer the browser's file chooser, as a person does."""
    with page.expect_file_chooser() as chooser:
        button.click()
    chooser.value.set_files([str(p) for p in paths])


def type_into(locator, value: str) -> None:
    field = locator.locator("input, textarea").first if locator.locator("input, textarea").count() else locator
    field.fill(value)
    field.press("Tab")  # the widgets sync on blur


def select(locator, *labels: str) -> None:
    locator.locator("select").first.select_option(label=list(labels) if len(labels) > 1 else labels[0])


def layout_label(page, box, name: str) -> str:
    """The layout option whose label contains the spec name (the contract: every label does)."""
    labels = box.locator(".qw-ann-layout select option").all_inner_texts()
    return next(label for label in labels if label.endswith(f"({name})"))


def chosen_layout(box) -> str:
    """The chosen layout option's label, as shown (ipywidgets shows spaces as no-break spaces)."""
    return (
        box.locator(".qw-ann-layout select")
        .evaluate("s => s.options[s.selectedIndex].textContent")
        .replace("\xa0", " ")
    )


def set_criterion(page, index: int, name: str, low: str, high: str) -> None:
    type_into(page.locator(".qw-ann-criterion-name").nth(index), name)
    type_into(page.locator(".qw-ann-scale-min").nth(index), low)
    type_into(page.locator(".qw-ann-scale-max").nth(index), high)


def load(page) -> None:
    page.locator(".qw-ann-load").click()
    wait_status(page, r"Loaded \d+")


def assessment(page, conventions: str | None = None) -> dict:
    """The Assessment tab's CV* cells of the first criterion as ``{system or "mean over systems":
    value text}``, read from its ``qw-assessment-table`` (the QRA++ template, with its header row)."""
    tab(page, "Assessment")
    page.wait_for_selector(".qw-assessment-table", state="attached")
    if conventions:
        page.select_option(".qra-conventions select", label=conventions)
        wait_status(page, "Assessed with the")
    rows = page.evaluate(f"() => {ASSESSMENT}")
    assert rows[0] == ["Type of result", "Measure applied", "System level", "QC level", "Study level"]  # the header row
    found, blocks = {}, 0  # the first criterion's Type I block of the QRA++ template
    for row in rows[1:]:
        if row[1] == "(mean) CV*":
            blocks += 1
            if blocks == 1:
                found["mean over systems"] = row[3]
        elif row[1] == "CV*" and blocks == 1:
            found[row[0]] = row[2]
    return found


def screenshot(page, name: str) -> None:
    """The cards from their top (the viewport, not the whole page)."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.locator(".qw-ann-card").first.evaluate("el => el.scrollIntoView()")
    page.screenshot(path=str(OUTPUT / f"journey-{name}.png"), full_page=False)


def test_four_qra3_annotation_files_in_four_cards_give_qra3s_readability_cv(page, server, field_data):
    url, _library, _log = server
    folder = field_data / "qra3" / "annotations"
    open_app(page, url)
    tab(page, "Annotations")
    page.wait_for_selector(".qw-ann-card")
    set_criterion(page, 0, "Readability", "1", "5")
    choose_files(page, card(page, 0).locator(".qw-ann-files"), [folder / QRA3_FILES[0]])
    wait_status(page, r"O: read 1 file")
    # the preview is a scrollable box at most 400 px tall
    height = page.evaluate("() => document.querySelector('.qw-ann-preview').getBoundingClientRect().height")
    assert 0 < height <= 400
    for index, name in enumerate(QRA3_FILES[1:], 1):
        page.locator(".qw-ann-add-experiment").click()
        page.wait_for_function(f"() => document.querySelectorAll('.qw-ann-card').length === {index + 1}")
        choose_files(page, card(page, index).locator(".qw-ann-files"), [folder / name])
        wait_status(page, rf"R{index}: read 1 file")
    # the guesses: labeller_id, qa_id, source, and the column named like the criterion
    for index in range(4):
        box = card(page, index)
        assert box.locator(".qw-ann-col-system select").input_value() == "source"
        assert box.locator(".qw-ann-col-rater select").input_value() == "labeller_id"
    select(
        card(page, 1).locator(".qw-ann-col-criterion-readability"), "readability_new"
    )  # Florescu's corrected ratings
    type_into(page.locator(".qw-ann-renames"), "groundtruth = GT\nOurs = QAG")  # QRA3's system names
    load(page)
    assert "from 4 experiments (O, R1, R2, R3)" in page.evaluate(f"() => {STATUS}")
    screenshot(page, "qra3-four-files")
    cv = assessment(page, "QRA3 (organisers' tool)")
    # qra3/output-4-studies/Yao2022/table.csv: GT, QAG, PAQ, and the criterion's mean
    assert {system: cv[system] for system in ("GT", "QAG", "PAQ", "mean over systems")} == {
        "GT": "12.01",
        "QAG": "14.78",
        "PAQ": "19.09",
        "mean over systems": "15.29",
    }
    check_no_code_or_traceback(page)


def hosking_form(page, field_data) -> None:
    """The Hosking & Lapata journey up to Load: a scores card and a pairwise card."""
    set_criterion(page, 0, "Meaning", "-100", "100")
    page.locator(".qw-ann-add-experiment").click()
    page.wait_for_function("() => document.querySelectorAll('.qw-ann-card').length === 2")
    repeat = card(page, 1)
    choose_files(page, repeat.locator(".qw-ann-files"), [field_data / HOSKING])
    wait_status(page, "R1: read 1 file")
    # guessed from the content: two system columns and a True/False choice column
    assert chosen_layout(repeat).endswith("(pairwise)")
    assert repeat.locator(".qw-ann-col-system_a select").input_value() == "system_a"
    assert repeat.locator(".qw-ann-col-system_b select").input_value() == "system_b"
    assert repeat.locator(".qw-ann-col-choice select").input_value() == "chose_b"
    assert repeat.locator(".qw-ann-col-rater select").input_value() == "worker"
    repeat.locator(".qw-ann-col-item select").select_option(["dataset", "ix"])
    # the distractor and attention checks, and the three submissions that failed the distractor check
    select(repeat.locator(".qw-ann-exclude-column").nth(0), "system_a")
    type_into(repeat.locator(".qw-ann-exclude-values").nth(0), "distractor, inputs")
    repeat.locator(".qw-ann-add-exclude").click()
    page.wait_for_function(
        "() => document.querySelectorAll('.qw-ann-card')[1].querySelectorAll('.qw-ann-exclude-column').length === 2"
    )
    select(repeat.locator(".qw-ann-exclude-column").nth(1), "worker")
    type_into(repeat.locator(".qw-ann-exclude-values").nth(1), "anon_worker_32, anon_worker_72, anon_worker_111")
    repeat.locator(".qw-ann-fill-map").click()
    wait_status(page, "R1: found 2 answer")
    entries = repeat.locator(".qw-ann-map-entry")
    titles = {
        entries.nth(i).evaluate("el => el.title || el.querySelector('input')?.title") for i in range(entries.count())
    }
    assert titles == {"True", "False"}
    assert (
        repeat.locator(
            ".qw-ann-map-entry[title='True'] input, .qw-ann-map-entry input[title='True']"
        ).first.input_value()
        == "b"
    )
    original = card(page, 0)
    original.locator(".qw-ann-layout select").select_option(label=layout_label(page, original, "scores"))
    page.wait_for_function("() => document.querySelectorAll('.qw-ann-score').length === 4")
    for system, value in {
        "vae": "58",
        "sep_ae": "-6",
        "lbow": "-12",
        "dips": "-39",
    }.items():  # results/original/results.csv
        title = f"{system} / Meaning"
        type_into(original.locator(f".qw-ann-score[title='{title}'], .qw-ann-score:has(input[title='{title}'])"), value)
    page.select_option(".qw-ann-agreement-coding select", label="the answer's position")
    type_into(page.locator(".qw-ann-study-id"), "hosking2021-meaning")


def test_hosking_raw_pairwise_and_a_scores_card_give_the_published_cv(page, server, field_data):
    url, _library, _log = server
    open_app(page, url)
    tab(page, "Annotations")
    page.wait_for_selector(".qw-ann-card")
    hosking_form(page, field_data)
    load(page)
    screenshot(page, "hosking-pairwise-scores")
    cv = assessment(page)
    # results/lab1/tables/cv_summary.csv of mo-arvan/reprohum-0744-02
    # (the template drops trailing zeros, as QRA++'s tables do: 7.6 is the published 7.60)
    assert {system: f"{float(cv[system]):.2f}" for system in ("vae", "sep_ae", "lbow", "dips")} == {
        "vae": "0.63",
        "sep_ae": "7.60",
        "lbow": "1.65",
        "dips": "10.31",
    }
    check_no_code_or_traceback(page)


def test_the_downloaded_spec_gives_the_same_numbers_through_the_cli(page, server, field_data, tmp_path):
    url, _library, _log = server
    open_app(page, url)
    tab(page, "Annotations")
    page.wait_for_selector(".qw-ann-card")
    hosking_form(page, field_data)
    with page.expect_download() as download:
        page.locator(".qw-ann-download-spec button").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    spec = json.loads(saved.read_text(encoding="utf-8"))
    assert spec["experiments"][1]["file"] == Path(HOSKING).name
    screenshot(page, "download-spec")
    data_root = tmp_path / "data"
    data_root.mkdir()
    (data_root / Path(HOSKING).name).write_bytes((field_data / HOSKING).read_bytes())
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "qra_widgets.cli",
            "report",
            str(saved),
            "--data-root",
            str(data_root),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = json.loads(out)
    cv = {r["system"]: r["value"] for r in rows["results"] if r["measure"] == "CV*" and r.get("system")}
    assert {s: round(v, 2) for s, v in cv.items()} == {"vae": 0.63, "sep_ae": 7.60, "lbow": 1.65, "dips": 10.31}


def test_two_labs_files_of_the_same_name_stay_two_experiments(page, server, field_data, tmp_path):
    url, _library, _log = server
    open_app(page, url)
    tab(page, "Annotations")
    page.wait_for_selector(".qw-ann-card")
    set_criterion(page, 0, "Coherence", "-100", "100")
    page.locator(".qw-ann-add-experiment").click()
    page.wait_for_function("() => document.querySelectorAll('.qw-ann-card').length === 2")
    for index, lab in enumerate(("lab1", "lab2")):
        box = card(page, index)
        type_into(box.locator(".qw-ann-experiment"), f"Lab{index + 1}")
        choose_files(page, box.locator(".qw-ann-files"), [field_data / PUDUPPULLY / lab / "coherence.csv.gz"])
        wait_status(page, f"Lab{index + 1}: read 1 file")
        # guessed: a best-worst batch (two systems shown, a best and a worst column)
        assert chosen_layout(box).endswith("(best_worst)")
        assert box.locator(".qw-ann-col-best select").input_value() == "Answer.best_coh"
        assert box.locator(".qw-ann-col-worst select").input_value() == "Answer.worst_coh"
        assert box.locator(".qw-ann-col-rater select").input_value() == "WorkerId"
        assert box.locator(".qw-ann-col-item select").evaluate("s => [...s.selectedOptions].map(o => o.value)") == [
            "Input.code"
        ]
        box.locator(".qw-ann-fill-map").click()
        wait_status(page, f"Lab{index + 1}: found 2 answer")
    load(page)
    said = page.evaluate(f"() => {STATUS}")
    assert "from 2 experiments (Lab1, Lab2)" in said
    screenshot(page, "two-labs-same-name")
    with page.expect_download() as download:
        page.locator(".qw-ann-download-spec button").click()
    spec = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    names = [e["file"] for e in spec["experiments"]]
    assert names == ["Lab1/coherence.csv.gz", "Lab2/coherence.csv.gz"]
    # the spec, with each lab's file where it names it, gives each lab its own values: those of the
    # field spec (tests/field/puduppully2021_rotowire_pairwise_lab1_lab2.json), whose names map sys0..sys4
    for name, lab in zip(names, ("lab1", "lab2")):
        (tmp_path / name).parent.mkdir(parents=True)
        (tmp_path / name).write_bytes((field_data / PUDUPPULLY / lab / "coherence.csv.gz").read_bytes())
    ours = load_annotations(spec, base=tmp_path).scores
    field = json.loads((FIELD_SPECS / "puduppully2021_rotowire_pairwise_lab1_lab2.json").read_text(encoding="utf-8"))
    reference = load_annotations(field, base=field_data).scores
    renamed = {(qc, field["systems"][system], experiment): value for (qc, system, experiment), value in ours.items()}
    assert renamed == {key: value for key, value in reference.items() if key[0] == "Coherence" and key[2] != "O"}
    assert ours[("Coherence", "sys0", "Lab1")] != ours[("Coherence", "sys0", "Lab2")]
    check_no_code_or_traceback(page)


CUT = """sel => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
                                                   .map(e => e.innerText)"""


def test_tab_titles_and_the_overview_headers_read_whole_at_800_px(page, server):
    url, _library, _log = server
    page.set_viewport_size({"width": 800, "height": 900})
    open_app(page, url)
    page.select_option(".qra-example-choice select", index=1)
    page.locator(".qra-load-example").click()
    wait_status(page, "Loaded the example")
    tab(page, "Library")
    page.locator(".qra-save").first.click()
    wait_status(page, "as revision 1")
    titles = page.evaluate(
        "() => [...document.querySelectorAll('.qra-dashboard .lm-TabBar-tab')].map(t => t.innerText)"
    )
    assert {"Experiments", "Annotations", "Side by side"} <= set(titles)  # whole titles, none cut to "Experim"
    assert page.evaluate(CUT, ".qra-dashboard .lm-TabBar-tabLabel") == []
    tab(page, "Overview")
    page.wait_for_selector(".qra-dt-head .qra-dt-sort")
    assert page.evaluate(CUT, ".qra-dt-head .qra-dt-sort") == []
    assert "Mean CV*" in page.evaluate("() => document.querySelector('.qra-dt-head').innerText")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 801
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / "journey-800px-tabs-and-overview.png"))
