"""The app shows what the frame says: the Intervals tab marks each interval with a caution and lists
the cautions under the table (van Miltenburg et al. 2024's fluency ratings, published field
data), and the downloads are the library's CSV and JSON, signature included."""

from __future__ import annotations

import html
import json

import pytest

import qra_widgets as qw
from qra_widgets import examples
from qra_widgets.io.annotations import load_annotations
from qra_widgets.widgets.common import Status
from qra_widgets.widgets.results import AssessmentView
from qra_widgets.widgets.state import AppState
from qra_widgets.widgets.uncertainty import UncertaintyView


@pytest.fixture(scope="module")
def study(vanmiltenburg2024):
    return load_annotations(vanmiltenburg2024 / "spec.json")


def test_the_intervals_tab_marks_and_explains_the_cautions_of_items_and_raters(study):
    view = UncertaintyView(AppState(study), Status())
    view.replicates.value, view.seed.value, view.resample.value = 300, 1, "items+raters"
    view.on_compute()
    view.job.join(120)
    expected = qw.assess(study, bootstrap=300, seed=1, resample="items+raters")
    shown = html.unescape(view.intervals.value)
    assert "<td>SVM</td><td>CV*</td><td class='qra-num'>13.07 [4.18, 24.34]‡1</td>" in shown
    assert "<td>DExperts</td><td>CV*</td><td class='qra-num'>3.81 [0, 31.28]</td>" in shown  # one-sided: no caution
    footnotes = [f"<li>{line}</li>" for line in expected.caution_footnotes()]
    assert len(footnotes) == 2 and f"<ul class='qra-cautions'>{''.join(footnotes)}</ul>" in shown
    assert "Krippendorff's α</td><td class='qra-num'>0.519 [0.420, 0.603]‡2</td>" in html.unescape(view.agreement.value)


def test_the_downloads_are_the_library_csv_and_json():
    state = AppState(examples.load("qrapp_example1"))
    view = AssessmentView(state, Status())
    _name, mime, text = view.download("CSV (tidy)")
    assert (
        mime == "text/csv" and text == state.assessment.to_csv() and text.startswith("# signature: conventions:qrapp|")
    )
    _name, mime, text = view.download("JSON (tidy)")
    assert json.loads(text)["signature"] == state.assessment.conventions.signature()
