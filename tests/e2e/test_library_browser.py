"""The Library tab's file actions through the real page (Voilà + headless Chromium): import the
organisers' QRA3 files, see the study open with QRA3's published CV*, have a second upload of the
same id refused, import many files, and download the report and QRA3's two input files, one click each.

The number asserted is the organisers' tool's own output for Yao et al. 2022's readability
evaluation (``qra3/output-4-studies/Yao2022/table.csv`` of the published field data: Type I, Readability, GT,
system-level CV* 12.01).
"""

from __future__ import annotations

from datetime import date

import pytest
from fielddata import field_bytes, needs_field_data

from qra_widgets.qra3 import read_qra3_bytes

from .conftest import OUTPUT
from .test_browser import check_no_code_or_traceback, open_app, tab

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STATUS = "document.querySelector('.qra-status')?.innerText"
PAIR = [
    {"name": "metrics-4-studies.csv", "mimeType": "text/csv", "buffer": field_bytes("qra3", "metrics-4-studies.csv")},
    {
        "name": "config-4-studies.json",
        "mimeType": "application/json",
        "buffer": field_bytes("qra3", "config-4-studies.json"),
    },
]


def wait_status(page, text: str) -> None:
    page.wait_for_function(f"() => {STATUS}.includes({text!r})")


def choose_files(page, css: str, files: list[dict]) -> None:
    """ipywidgets' FileUpload never puts its <input type=file> in the page: click it and answer the file chooser."""
    with page.expect_file_chooser() as chooser:
        page.locator(css).first.click()
    chooser.value.set_files(files=files)
    page.wait_for_function(f"() => document.querySelector({css!r}).innerText.includes('({len(files)})')")


@needs_field_data
def test_import_qra3_files_open_the_study_refuse_a_repeat_and_download_the_report(page, server, tmp_path):
    url, _library, _log = server
    open_app(page, url)
    tab(page, "Library")
    choose_files(page, ".qra-qra3-upload", PAIR)
    page.locator(".qra-import-qra3").click()
    wait_status(
        page,
        "Imported 1 study from metrics-4-studies.csv + config-4-studies.json: 'Yao2022'. Opened 'Yao2022' (revision 1).",
    )
    page.wait_for_function("() => document.querySelector('.qra-header')?.innerText.includes('saved · revision 1')")
    assert "Yao2022" in page.inner_text(".qra-header")
    assert page.locator(".qra-library-list select").input_value() == "Yao2022 · rev 1 · Yao2022"  # selected in the list
    tab(page, "Assessment")
    page.wait_for_function("() => document.querySelector('.qra-assessment')?.innerText.includes('12.01')")

    tab(page, "Library")
    choose_files(page, ".qra-qra3-upload", PAIR)
    page.locator(".qra-import-qra3").click()
    wait_status(page, "Already in the library, not overwritten: 'Yao2022'.")
    assert page.inner_text(".qra-status").startswith("Imported no study")
    assert [t.replace("\xa0", " ") for t in page.locator(".qra-library-list option").all_inner_texts()] == [
        "Yao2022 · rev 1 · Yao2022"
    ]

    choose_files(
        page, ".qra-bulk-upload", [{"name": "notes.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.4"}, *PAIR]
    )
    page.locator(".qra-import-many").click()
    wait_status(page, "Imported no study from 3 files. Already in the library, not overwritten: 'Yao2022'. Refused 1")
    assert "unknown file type '.pdf'" in page.inner_text(".qra-import-report")

    day = date.today().isoformat()
    with page.expect_download() as download:  # one click: the file itself, named after the study, what and the day
        page.locator(".qra-download-report button").click()
    assert download.value.suggested_filename == f"Yao2022-report-{day}.html"
    wait_status(page, f"Downloaded the report of 'Yao2022' as Yao2022-report-{day}.html (qra3 conventions).")
    saved = tmp_path / "report.html"
    download.value.save_as(saved)
    report = saved.read_text(encoding="utf-8")
    assert "<h2>QRA++ template</h2>" in report and "12.01" in report
    assert '<script src="http' not in report
    for what, suffix in (("metrics", "csv"), ("config", "json")):  # QRA3's two input files, one click each
        with page.expect_download() as download:
            page.locator(f".qra-download-qra3-{what} button").click()
        assert download.value.suggested_filename == f"Yao2022-qra3-{what}-{day}.{suffix}"
        download.value.save_as(tmp_path / f"{what}.{suffix}")
    [study] = read_qra3_bytes((tmp_path / "metrics.csv").read_bytes(), (tmp_path / "config.json").read_bytes())
    assert study.id == "Yao2022"
    page.screenshot(path=str(OUTPUT / "library-file-actions.png"), full_page=True)
    check_no_code_or_traceback(page)
