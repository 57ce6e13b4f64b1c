"""The Annotations tab: upload, preview, guessed mapping, criteria scales, load.

The van Miltenburg et al. (2024) fluency ratings (published field data, skipped without
``$QRA_WIDGETS_FIELD_DATA``; the same rater groups as ``tests/data/vanmiltenburg2024/spec.json`` used by
``tests/test_annotations.py`` and ``tests/engine/test_ratings.py``) are mapped in the form and must give
the team's published system means for raters 001+002: SVM 3.125, GeDi 2.570, DExperts 2.275
(the exact means QRA++ Example 1 quotes from their results.xlsx).
"""

from __future__ import annotations

import datetime
import html
import json
from pathlib import Path

import pytest
from fielddata import field_bytes, needs_field_data

from qra_widgets.widgets.annotation_cards import NONE
from qra_widgets.widgets.annotations import AnnotationsView, parse_renames
from qra_widgets.widgets.common import Status
from qra_widgets.widgets.state import AppState

SPEC = Path(__file__).parents[1] / "data" / "vanmiltenburg2024" / "spec.json"  # ours; the ratings are field data
TOY = Path(__file__).parents[1] / "data" / "annotations"
LONG = "vanmiltenburg2024_fluency_ratings_long.csv"
PUBLISHED = {"SVM": 3.125, "GeDi": 2.570, "DExperts": 2.275}  # van Miltenburg et al. (2024), raters 001+002
GROUPS = (("direct", "001, 002"), ("extra", "009, 010"), ("augmented", "003, 004, 005, 006, 007, 008"))


def upload(view: AnnotationsView, name: str, data: bytes) -> None:
    """What the browser's FileUpload sends (ipywidgets 8 value)."""
    view.upload.value = (
        {
            "name": name,
            "type": "text/csv",
            "size": len(data),
            "content": memoryview(data),
            "last_modified": datetime.datetime(2024, 1, 1),
        },
    )


def said(view) -> str:
    """The status line as the user reads it."""
    return html.unescape(view.status.value)


def vanmiltenburg_form(state: AppState | None = None) -> AnnotationsView:
    """The form filled in as spec.json says: one file, three rater groups as three experiments."""
    view = AnnotationsView(state or AppState(), Status())
    upload(view, LONG, field_bytes("vanmiltenburg2024", LONG))
    criterion = view.criteria[0]
    criterion.name.value, criterion.scale_min.value, criterion.scale_max.value = "Fluency", "1", "4"
    spec = json.loads(SPEC.read_text())
    view.renames.value = "\n".join(f"{old} = {new}" for old, new in spec["systems"].items())
    view.study_id.value = spec["id"]
    for index, (experiment_id, raters) in enumerate(GROUPS):
        if index:  # the same file in three cards, each keeping other raters' rows
            view.add_experiment().add_files({LONG: field_bytes("vanmiltenburg2024", LONG)})
        card = view.experiments[index]
        card.id.value = experiment_id
        card.filter_column.value, card.filter_values.value = "participant", raters
    return view


def test_vanmiltenburg_through_the_form_gives_the_published_means(vanmiltenburg2024_study):
    view = vanmiltenburg_form()
    card = view.experiments[0]
    # the guessed mapping is pre-selected: model_type / item / participant, the rating column "score"
    assert (card.system.value, card.item.value, card.rater.value) == ("model_type", ("item",), "participant")
    assert [p.column.value for p in card.pickers.values()] == ["score"]
    assert card.role.value == "original" and view.experiments[1].role.value == "repeat"
    view.on_load()
    study = view.state.study
    assert "Loaded 1920 ratings from 3 experiments (direct, extra, augmented)" in said(view)
    assert study.experiment_ids == ["direct", "extra", "augmented"]
    assert sorted(study.systems) == sorted(PUBLISHED)
    for system, value in PUBLISHED.items():
        assert abs(study.scores[("Fluency", system, "direct")] - value) < 1e-12
    # the same study as the checked-in spec gives (scores and ratings)
    reference = vanmiltenburg2024_study
    for key, value in reference.scores.items():
        assert study.scores[key] == pytest.approx(value, abs=1e-12)
    assert len(study.ratings) == len(reference.ratings) == 1920
    # the spec the form built is kept with the ratings, and a download link for it is offered
    assert study.ratings.spec["experiments"][0]["rows"] == {"participant": ["001", "002"]}
    assert f"vanmiltenburg2024-fluency-annotations-{datetime.date.today().isoformat()}.json" in view.spec_view.value


@needs_field_data
def test_the_spec_is_saved_with_the_study_in_the_library(tmp_path):
    state = AppState(library_path=tmp_path / "library.sqlite3")
    view = vanmiltenburg_form(state)
    view.on_load()
    state.save()
    reopened = state.library.open("vanmiltenburg2024-fluency")
    assert reopened.ratings.spec == state.study.ratings.spec
    assert reopened.ratings.spec["quality_criteria"] == [
        {
            "name": "Fluency",
            "scale_min": 1.0,
            "label_level": "ordinal",
            "evaluation_type": "human",
            "scale_max": 4.0,
            "qcet_id": "QOG-w-3",
        }
    ]  # QCET's Fluency, suggested by name
    assert reopened.scores[("Fluency", "GeDi", "direct")] == pytest.approx(2.570, abs=1e-12)


def test_preview_and_guessed_columns_for_two_criteria():
    view = AnnotationsView(AppState(), Status())
    view.criteria[0].name.value = "Readability"
    view.add_criterion("Relevance")
    upload(view, "original.csv", (TOY / "original.csv").read_bytes())
    card = view.experiments[0]
    assert card.preview.value.count("<tr") == 1 + 5  # header + the first five rows
    assert "readability (1-5)" in card.preview.value
    assert (card.system.value, card.item.value, card.rater.value) == ("source", ("qa_id",), "labeller_id")
    assert [p.column.value for p in card.pickers.values()] == ["readability (1-5)", "relevance (1-5)"]
    # renaming a criterion keeps its column
    view.criteria[0].name.value = "Readable"
    assert next(iter(card.pickers.values())).column.value == "readability (1-5)"
    for row, (low, high) in zip(view.criteria, ((1, 5), (1, 5))):
        row.scale_min.value, row.scale_max.value = str(low), str(high)
    view.criteria[0].name.value = "Readability"
    view.renames.value = "groundtruth = GT\nOurs = QAG"
    view.missing.value = "NA, *"
    view.study_id.value = "toy"
    view.on_load()
    # original.csv, Relevance of GT: 4, 4, NA, 3, 3, * -> 14 / 4 (as tests/test_annotations.py)
    assert view.state.study.scores[("Relevance", "GT", "O")] == 3.5
    assert view.state.study.systems == ["GT", "QAG"]


def test_form_problems_are_named_and_nothing_changes():
    state = AppState()
    before = state.study.id
    view = AnnotationsView(state, Status())
    view.on_load()
    assert "quality criterion 1: give it a name" in said(view)
    upload(view, "original.csv", (TOY / "original.csv").read_bytes())
    view.criteria[0].name.value = "Readability"
    view.on_load()
    assert "Readability: scale minimum" in said(view) and state.study.id == before
    view.criteria[0].scale_min.value, view.criteria[0].scale_max.value = "1", "4"  # 5s in the file are outside 1..4
    view.on_load()
    assert "original.csv: row 2, column 'readability (1-5)': 5 is outside the scale 1..4 of 'Readability'" in said(view)
    assert state.study.id == before
    next(iter(view.experiments[0].pickers.values())).column.value = NONE
    view.on_load()
    assert "experiment 1 (O): choose the column of at least one quality criterion" in said(view)
    with pytest.raises(Exception, match="line 1: write 'name in the file = name in the study'"):
        parse_renames("groundtruth GT")


def test_an_unreadable_upload_is_refused_by_name():
    view = AnnotationsView(AppState(), Status())
    upload(view, "broken.xlsx", b"not a workbook")
    assert "broken.xlsx" in said(view) and "qra-error" in said(view)
    assert view.files == {} and [card.files for card in view.experiments] == [{}]


@needs_field_data
def test_unsaved_changes_are_guarded_before_loading():
    state = AppState()
    state.set_details(name="Work in progress")
    view = vanmiltenburg_form(state)
    view.on_load()
    assert state.study.name == "Work in progress"  # asked first, nothing replaced yet
    assert view.confirm.widget.layout.display == "flex"
    view.confirm._on_yes()
    assert state.study.id == "vanmiltenburg2024-fluency" and not state.dirty
