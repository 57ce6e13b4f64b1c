"""The Annotations tab's experiment cards (kernel side): every layout keeps its pickers open,
files are kept by card and parsed once, guesses read the content, a ``scores`` card, and the
spec keys of issue 29 (format, delimiter, raters in columns, constant and row keys) as the
downloaded spec writes them."""

from __future__ import annotations

import datetime

import pytest

from qra_widgets.widgets.annotation_cards import CONSTANT, LAYOUT_CHOICES, ROW
from qra_widgets.widgets.annotations import AnnotationsView
from qra_widgets.widgets.common import Status
from qra_widgets.widgets.state import AppState

PAIRS = (
    "task_number,worker,pos,ix,system_a,system_b,chose_b\n"
    "1,w1,0,1,x,y,True\n"
    "1,w1,1,2,y,z,False\n"
    "2,w2,0,1,x,y,False\n"
    "2,w2,1,2,y,z,True\n"
    "3,w3,0,3,z,x,True\n"
)
RATERS = "item,system,ann1,ann2\ni1,x,3,4\ni2,y,2,2\ni3,x,5,4\ni4,y,1,2\n"


def chosen(card, data: str, name: str = "file.csv") -> None:
    """What the card's file chooser sends (ipywidgets 8 value)."""
    raw = data.encode()
    card.upload.value = (
        {
            "name": name,
            "type": "text/csv",
            "size": len(raw),
            "content": memoryview(raw),
            "last_modified": datetime.datetime(2024, 1, 1),
        },
    )


def form(criterion: str = "Q", low: str = "1", high: str = "5") -> AnnotationsView:
    view = AnnotationsView(AppState(), Status())
    row = view.criteria[0]
    row.name.value, row.scale_min.value, row.scale_max.value = criterion, low, high
    return view


def test_every_layout_keeps_its_pickers_open_and_each_label_names_the_layout():
    view = form()
    card = view.experiments[0]
    chosen(card, PAIRS)
    pickers = [
        card.item,
        card.rater,
        card.system,
        card.system_a,
        card.system_b,
        card.shown,
        card.criterion_column,
        card.rating_column,
        card.answer_map,
        card.fill_map,
        *(p.column for p in card.pickers.values()),
    ]
    for label, layout in LAYOUT_CHOICES * 2:
        assert label.endswith(f"({layout})")
        card.layout.value = layout
        # a closed widget has no comm: the old tab closed them when the layout changed
        assert all(widget.comm is not None for widget in pickers), layout
        # the criterion's class sits on the one picker this layout shows (a test's selector finds it)
        mine = next(iter(card.pickers.values()))
        classed = [
            part
            for part in (mine.column, mine.value, mine.best_worst_row)
            if "qw-ann-col-criterion-q" in part._dom_classes
        ]
        assert len(classed) == (1 if layout in ("wide", "long", "pairwise", "best_worst") else 0), layout
        assert all(part.layout.display != "none" and part.comm is not None for part in classed), layout
    card.layout.value = "pairwise"
    shown = [name for name, row in card.rows.items() if row.layout.display != "none"]
    assert {"item", "rater", "pairwise", "criteria", "map", "filters"} <= set(shown) and "system" not in shown


def test_a_pairwise_file_is_guessed_from_its_content():
    view = form("Meaning", "-100", "100")
    card = view.experiments[0]
    chosen(card, PAIRS, "grammar.csv")
    assert card.layout.value == "pairwise"  # two system columns, a True/False choice column
    assert (card.system_a.value, card.system_b.value, card.rater.value) == ("system_a", "system_b", "worker")
    assert [p.column.value for p in card.pickers.values()] == ["chose_b"]
    assert (card.id.value, card.label.value) == ("O", "grammar") and view.add_experiment().id.value == "R1"


def test_two_cards_keep_two_files_of_one_name_and_each_file_is_parsed_once(monkeypatch):
    from qra_widgets.io import annotations as io_annotations

    reads = []
    read_frame = io_annotations.read_frame
    monkeypatch.setattr(io_annotations, "read_frame", lambda *a, **k: reads.append(a[1]) or read_frame(*a, **k))
    view = form()
    lab1, lab2 = view.experiments[0], view.add_experiment()
    chosen(lab1, RATERS.replace("3,4", "1,1"), "coherence.csv")
    chosen(lab2, RATERS, "coherence.csv")
    for card in (lab1, lab2):
        next(iter(card.pickers.values())).column.value = "ann1"
    assert sorted(view.files) == ["O/coherence.csv", "R1/coherence.csv"]
    view.study_id.value = "labs"
    view.on_load()
    assert "Loaded 8 ratings from 2 experiments (O, R1)" in view.status.value
    assert reads == ["coherence.csv", "coherence.csv"]  # parsed at upload only (io.uploads), not again at Load
    scores = view.state.study.scores
    assert scores[("Q", "x", "O")] == (1 + 5) / 2 and scores[("Q", "x", "R1")] == (3 + 5) / 2


def test_a_scores_card_has_a_box_per_system_and_criterion_filled_from_the_other_cards():
    view = form("Meaning", "-100", "100")
    original, repeat = view.experiments[0], view.add_experiment()
    chosen(repeat, PAIRS)
    repeat.item.value = ("ix",)
    original.layout.value = "scores"
    assert original.score_systems.value == "x, y, z"
    assert {box.tooltip for box in original.score_inputs.values()} == {"x / Meaning", "y / Meaning", "z / Meaning"}
    assert all("qw-ann-score" in box._dom_classes for box in original.score_inputs.values())
    for (system, _), box in original.score_inputs.items():
        box.value = {"x": "10", "y": "-5", "z": ""}[system]
    assert view.spec()["experiments"][0] == {
        "id": "O",
        "role": "original",
        "scores": {"Meaning": {"x": 10.0, "y": -5.0}},
    }


@pytest.mark.parametrize(
    ("format_", "delimiter", "written"),
    [
        ("", "auto", {}),
        ("csv", ";", {"format": "csv", "delimiter": ";"}),
        ("", "\t", {"delimiter": "\t"}),
        ("jsonl", ",", {"format": "jsonl"}),
        ("xlsx", "auto", {"format": "xlsx"}),
        ("json", "auto", {"format": "json"}),
    ],
)
def test_format_and_delimiter_are_written_with_issue_29s_key_names(format_, delimiter, written):
    view = form()
    card = view.experiments[0]
    chosen(card, RATERS)
    next(iter(card.pickers.values())).column.value = "ann1"
    card.format.value, card.delimiter.value = format_, delimiter
    entry = view.spec()["experiments"][0]
    assert {key: entry[key] for key in ("format", "delimiter") if key in entry} == written


def test_raters_in_columns_constant_and_row_keys_are_written_as_issue_29_names_them():
    view = form()
    card = view.experiments[0]
    chosen(card, RATERS)
    card.raters_in_columns.value = True
    next(iter(card.pickers.values())).raters.value = ("ann1", "ann2")
    card.system.value = CONSTANT
    card.constants["system"].value = "corpus"
    card.item.value = (ROW,)
    columns = view.spec()["experiments"][0]["columns"]
    assert columns == {
        "system": {"constant": "corpus"},
        "item": {"row": True},
        "criteria": {"Q": {"raters": {"ann1": "ann1", "ann2": "ann2"}}},
    }
    card.raters_in_columns.value = False
    card.rater.value = CONSTANT
    card.constants["rater"].value = "ann1"
    next(iter(card.pickers.values())).column.value = "ann1"
    assert view.spec()["experiments"][0]["columns"]["rater"] == {"constant": "ann1"}


def test_an_mturk_best_worst_batch_is_guessed_from_its_headers_and_content():
    import pandas as pd

    from qra_widgets.widgets.annotation_cards import guess_layout

    # the columns of Puduppully & Lapata's MTurk batches (Lab 1 and Lab 2), two HITs
    frame = pd.DataFrame(
        {
            "HITId": ["h1", "h2"],
            "WorkerId": ["w1", "w2"],
            "Input.code": ["c1", "c2"],
            "Input.system1": ["sys0", "sys1"],
            "Input.system2": ["sys1", "sys0"],
            "Answer.best_coh": ["A", "B"],
            "Answer.worst_coh": ["B", "A"],
        }
    )
    guess = guess_layout(frame, ["Coherence"])
    assert (guess["layout"], guess["shown"], guess["best"], guess["worst"]) == (
        "best_worst",
        ["Input.system1", "Input.system2"],
        "Answer.best_coh",
        "Answer.worst_coh",
    )
    assert (guess["rater"], guess["item"]) == ("WorkerId", "Input.code")
