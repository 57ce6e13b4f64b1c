"""The Annotations tab with the pairwise, best-worst and form layouts: the answer map filled
from the answers found, the QCET suggestion, and "Download spec" giving the same study
through the command line."""

from __future__ import annotations

import base64
import datetime
import html
import json
from pathlib import Path

import pytest

from qra_widgets.cli import main
from qra_widgets.io.annotations import load_annotations
from qra_widgets.widgets.annotations import AnnotationsView
from qra_widgets.widgets.common import Status
from qra_widgets.widgets.state import AppState

FIELD_SPECS = Path(__file__).parents[1] / "field"
PAIRS = (
    "item,rater,left,right,answer\ni1,r1,x,y,A\ni1,r2,x,y,A\ni2,r1,y,z,B\ni2,r2,y,z,same\ni3,r1,x,z,A\ni3,r2,x,z,B\n"
)


def upload(view: AnnotationsView, name: str, data: bytes) -> None:
    """The file chooser of the first card (ipywidgets 8 value)."""
    view.experiments[0].upload.value = (
        {
            "name": name,
            "type": "text/csv",
            "size": len(data),
            "content": memoryview(data),
            "last_modified": datetime.datetime(2024, 1, 1),
        },
    )


def downloaded_spec(view: AnnotationsView) -> dict:
    """One click on "Download spec": the JSON file the browser saves, named after the study and the day."""
    name, data = view.download.click()
    assert name == f"{view.study_id.value}-annotations-{datetime.date.today().isoformat()}.json"
    [shown] = view.download.output.outputs
    assert base64.b64encode(data).decode() in shown["data"]["application/javascript"]
    return json.loads(data)


def cli_values(folder: Path, spec: dict, capsys) -> dict:
    (folder / "spec.json").write_text(json.dumps(spec))
    assert main(["report", str(folder / "spec.json"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    return {(r["quality_criterion"], r["system"], r["experiment"]): r["value"] for r in data["system_values"]}


def test_a_pairwise_file_is_mapped_in_the_form_and_the_downloaded_spec_gives_the_same_study(tmp_path, capsys):
    view = AnnotationsView(AppState(), Status())
    upload(view, "pairs.csv", PAIRS.encode())
    card = view.experiments[0]
    card.layout.value = "pairwise"
    criterion = view.criteria[0]
    criterion.name.value, criterion.scale_min.value, criterion.scale_max.value = "Preference", "-100", "100"
    card.item.value, card.rater.value, card.system_a.value, card.system_b.value = ("item",), "rater", "left", "right"
    next(iter(card.pickers.values())).column.value = "answer"
    card.fill_answer_map()
    # every answer found has its box, titled with the answer, with the obvious guesses filled in
    assert {answer: (box.value, box.tooltip) for answer, box in card.map_entries.items()} == {
        "A": ("a", "A"),
        "B": ("b", "B"),
        "same": ("tie", "same"),
    }
    assert "qw-ann-map-entry" in card.map_entries["A"]._dom_classes
    view.agreement_coding.value = "position"
    view.study_id.value = "pairs"
    view.on_load()
    study = view.state.study
    assert study.scores == {
        ("Preference", "x", "O"): 50.0,
        ("Preference", "y", "O"): -75.0,
        ("Preference", "z", "O"): 25.0,
    }
    assert study.ratings.choices.coding == {"O": "position"}
    spec = downloaded_spec(view)
    assert spec["experiments"][0]["choices"] == {"A": "a", "B": "b", "same": "tie"}
    (tmp_path / "pairs.csv").write_text(PAIRS)
    assert cli_values(tmp_path, spec, capsys) == study.scores


def test_an_unmapped_answer_in_the_form_is_named_with_the_answers_found():
    view = AnnotationsView(AppState(), Status())
    upload(view, "pairs.csv", PAIRS.encode())
    card = view.experiments[0]
    card.layout.value = "pairwise"
    view.criteria[0].name.value, view.criteria[0].scale_min.value, view.criteria[0].scale_max.value = "Q", "-100", "100"
    card.item.value, card.rater.value, card.system_a.value, card.system_b.value = ("item",), "rater", "left", "right"
    next(iter(card.pickers.values())).column.value = "answer"
    card.set_answer_map({"A": "a", "B": "b"})
    view.on_load()
    said = html.unescape(view.status.value)
    assert "answer 'same' is not in the choices map; the answers found are 'A' (3), 'B' (2), 'same' (1)" in said


def test_best_worst_columns_and_the_qcet_suggestion():
    data = "hit,worker,s1,s2,best,worst\nh1,r1,x,y,A,B\nh1,r2,x,y,B,A\nh2,r1,y,z,A,B\n"
    view = AnnotationsView(AppState(), Status())
    upload(view, "bws.csv", data.encode())
    card = view.experiments[0]
    card.layout.value = "best_worst"
    criterion = view.criteria[0]
    criterion.name.value = "Coherence"
    assert criterion.qcet.value == "Coherence (QOG-c-3)"  # suggested from the name
    criterion.scale_min.value, criterion.scale_max.value = "-100", "100"
    card.item.value, card.rater.value, card.shown.value = ("hit",), "worker", ("s1", "s2")
    pair = next(iter(card.pickers.values()))
    assert (pair.best.value, pair.worst.value) == ("best", "worst")  # guessed from the headers
    card.best_worst_by.value = "position"
    card.fill_answer_map()
    assert {answer: box.value for answer, box in card.map_entries.items()} == {"A": "1", "B": "2"}
    view.on_load()
    study = view.state.study
    # x: shown 2, best 1, worst 1 -> 0; y: shown 3, best 2 (h1 r2, h2 r1), worst 1 -> 33.3; z: shown 1, worst 1 -> -100
    assert study.scores[("Coherence", "y", "O")] == pytest.approx(100 / 3, rel=1e-15)
    assert study.quality_criteria[0].qcet_id == "QOG-c-3"
    criterion.qcet.value = "Fluency (QOG-w-3)"  # the user's choice is kept when the name changes
    criterion.name.value = "Coherent"
    assert criterion.qcet.value == "Fluency (QOG-w-3)"


def test_the_luxvu_google_forms_export_through_the_form_equals_its_field_spec(field_data, tmp_path, capsys):
    name = "answers_gform.csv"
    data = (field_data / "reproductions/luxvu2022_tts_preference_gform" / name).read_bytes()
    reference_spec = json.loads((FIELD_SPECS / "luxvu2022_tts_preference_gform.json").read_text(encoding="utf-8"))
    entry = reference_spec["experiments"][0]
    view = AnnotationsView(AppState(), Status())
    upload(view, name, data)
    card = view.experiments[0]
    card.layout.value = "items_in_columns"
    # the template lists the columns by position (the headers repeat, so a repeated one is "column N")
    assert card.items.value.splitlines()[2] == "3 | column 3 | "
    criterion = view.criteria[0]
    criterion.name.value, criterion.scale_min.value, criterion.scale_max.value = "Preference", "-100", "100"
    card.rater.value = "Zeitstempel"
    card.items.value = "\n".join(
        f"{i['column']} | {i['item']} | {i['system_a']} | {i['system_b']}" for i in entry["items"]
    )
    card.fill_answer_map()
    assert sorted(card.map_entries) == sorted(entry["choices"])
    card.set_answer_map(entry["choices"])
    view.agreement_coding.value = "position"
    view.study_id.value = reference_spec["id"]
    card.id.value = "R1"
    view.on_load()
    reference = load_annotations(reference_spec, base=field_data)
    assert view.state.study.scores == reference.scores
    (tmp_path / name).write_bytes(data)
    assert cli_values(tmp_path, downloaded_spec(view), capsys) == reference.scores
