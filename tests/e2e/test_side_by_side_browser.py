""" "Show both presets side by side" in the browser: ticking it shows the qrapp and qra3 values of
QRA++ Example 1 in one table (it showed nothing on pandas 3: the callback failed in the kernel)."""

from __future__ import annotations

import pytest

from .test_browser import check_no_code_or_traceback, load_example1

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_ticking_side_by_side_shows_both_presets(page, server):
    url, _library, _log = server
    load_example1(page, url)
    page.click(".qra-compare-presets input[type=checkbox]")
    page.wait_for_selector(".qra-presets .qra-side-by-side", timeout=60_000)
    table = page.inner_text(".qra-presets .qra-side-by-side")
    assert "qrapp" in table and "qra3" in table and "whole study" in table
    assert "26.87" in table  # QRA++ Table 3: mean CV* of Example 1 under qrapp
    assert "Something went wrong" not in page.inner_text(".qra-status")
    check_no_code_or_traceback(page)
