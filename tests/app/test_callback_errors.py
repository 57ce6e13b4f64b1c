"""Every callback of the app goes through one error handler (``widgets.common.run_reported``): a
failing callback says one line on the page (the status line) and logs its traceback on the server,
instead of failing silently in the kernel."""

import logging

import pytest

from qra_widgets.widgets import tables


@pytest.fixture(autouse=True)
def example_loaded(app):
    """Every test here starts with QRA++ Example 1 loaded (three experiments, three systems)."""
    app.examples.choice.value = "qrapp_example1"
    app.examples.load.click()


def test_a_failing_score_cell_edit_says_one_line_and_logs_the_traceback(app, monkeypatch, caplog):
    cell = app.scores.grid("Fluency").cells[("SVM", "Li2024")]

    def broken(*_args, **_kwargs):
        raise RuntimeError("the kernel's pandas could not be imported")

    monkeypatch.setattr(app.state, "set_scores", broken)
    with caplog.at_level(logging.ERROR, logger="qra_widgets"):
        cell.value = "3.5"  # the observe callback runs here; nothing may escape it
    assert "Something went wrong (RuntimeError)" in app.status.value
    assert "the details are in the server log" in app.status.value
    assert any("the kernel's pandas could not be imported" in (r.exc_text or "") for r in caplog.records)


def test_a_failing_side_by_side_says_so_instead_of_showing_nothing(app, monkeypatch, caplog):
    def broken(*_args, **_kwargs):
        raise TypeError("escape() argument must be str")

    monkeypatch.setattr(tables, "side_by_side", broken)
    with caplog.at_level(logging.ERROR, logger="qra_widgets"):
        app.assessment.compare_presets.value = True
    assert "Something went wrong (TypeError)" in app.status.value
    assert any(r.exc_info for r in caplog.records)


def test_side_by_side_shows_both_presets_on_this_pandas(app):
    """The real thing, no patch: QRA++ Example 1 under qrapp and qra3, a row per QC/study value."""
    app.assessment.compare_presets.value = True
    shown = app.assessment.presets.value
    assert "qra-side-by-side" in shown and "qrapp" in shown and "qra3" in shown and "whole study" in shown
    assert "Something went wrong" not in app.status.value
