"""Import many through the real page (Voilà + headless Chromium): a zip with an encrypted, an
unknown-method and a corrupt member next to a good study, a spec bundle, and a spec naming a
server file.  The good files import, each bad member is listed with its reason, the page shows
the same one-line summary as the CLI's counts, and no server path or server file content
reaches the page."""

from __future__ import annotations

import json

import pytest

from tests.io.test_safe_import import RATINGS, RATINGS_CSV, SPEC, STUDY_ID, bad_members_zip, zipped

from .test_browser import check_no_code_or_traceback, open_app, tab
from .test_library_browser import choose_files, wait_status

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_import_many_lists_each_bad_member_and_imports_the_good_files(page, server):
    url, _library, _log = server
    open_app(page, url)
    tab(page, "Library")
    attack = json.loads(SPEC)
    attack["id"] = "attack"
    attack["experiments"][0]["file"] = "/etc/passwd"
    files = [
        {"name": "batch.zip", "mimeType": "application/zip", "buffer": bad_members_zip()},
        {
            "name": "team1.zip",
            "mimeType": "application/zip",
            "buffer": zipped(
                [("team1/spec.json", SPEC), (f"team1/{RATINGS}", RATINGS_CSV), ("team1/notes.pdf", b"%PDF")]
            ),
        },
        {
            "name": "attack.zip",
            "mimeType": "application/zip",
            "buffer": zipped([("a/spec.json", json.dumps(attack).encode()), (f"a/{RATINGS}", RATINGS_CSV)]),
        },
    ]
    choose_files(page, ".qra-bulk-upload", files)
    page.locator(".qra-import-many").click()
    wait_status(page, "Refused 4 (see below). Skipped 1 file (see below).")
    status = page.inner_text(".qra-status")
    assert (
        status.startswith("Imported 2 studies from 3 files:")
        and f"'{STUDY_ID}'" in status
        and "'qrapp-example1'" in status
    )
    report = page.inner_text(".qra-import-report")
    assert "encrypted (password-protected) member" in report and "unknown compression method 99" in report
    assert "cannot be unpacked: the zip is damaged" in report
    assert "'/etc/passwd': not among the uploaded files" in report
    assert "root:" not in page.content() and "/tmp" not in page.content()
    check_no_code_or_traceback(page)
