"""The property catalogue (QRA++ Table 1, Appendix A), QCET, and HEDS 2 import."""

import json

import pytest
from fielddata import field_path, needs_field_data

from qra_widgets import Experiment, QRAInputError, QualityCriterion, Study
from qra_widgets.io.heds import heds_from_dict, import_heds
from qra_widgets.properties import PROPERTIES, check_properties, qcet_search, qcet_taxonomy

HEDS_DIR = field_path("heds2")  # ReproHum's published HEDS 2 sheets: field data, never committed
VAN_MILTENBURG = HEDS_DIR / "heds2_example_vanmiltenburg_datacard-2023-12-06-16-57-46.json"
NAPIER = HEDS_DIR / "heds2_example_napiernlp_reprohum2024.json"


def test_catalogue_has_the_22_properties_of_qrapp_table1():
    general = ["G.test_dataset", "G.metric", "G.metric_implementation", "G.runtime_environment"]
    heds = [
        "H2.1",
        "H2.2",
        "H2.3",
        "H3.1.1",
        "H4.2.1",
        "H4.2.2",
        "H4.2.3",
        "H3.2.1",
        "H3.2.2.1",
        "H3.2.2.4",
        "H3.2.4",
        "H3.2.5",
        "H3.3.2",
        "H3.3.3.1",
        "H4.3.1.2",
        "H4.3.5",
        "H4.3.7",
        "H4.3.8",
    ]
    assert sorted(PROPERTIES) == sorted(general + heds)
    human = {p.id for p in PROPERTIES.values() if p.human_only}
    assert human == {
        "H3.2.1",
        "H3.2.2.1",
        "H3.2.2.4",
        "H3.2.4",
        "H3.2.5",
        "H3.3.2",
        "H3.3.3.1",
        "H4.3.1.2",
        "H4.3.5",
        "H4.3.7",
        "H4.3.8",
    }
    per_criterion = {p.id for p in PROPERTIES.values() if p.per_criterion}
    assert {"H4.2.1", "H4.2.2", "H4.2.3", "H4.3.1.2", "H4.3.5", "H4.3.7", "H4.3.8"} <= per_criterion
    assert not {p.id for p in PROPERTIES.values() if p.id.startswith(("H2", "H3"))} & per_criterion


def test_option_lists_follow_appendix_a():
    assert len(PROPERTIES["H2.1"].options) == 15 and "Control feature" in PROPERTIES["H2.1"].options
    assert len(PROPERTIES["H2.2"].options) == 14 and "Control feature" not in PROPERTIES["H2.2"].options
    assert len(PROPERTIES["H2.3"].options) == 20 and PROPERTIES["H2.3"].options[-1] == "Other (please describe)"
    assert PROPERTIES["H4.2.2"].options == ("Absolute", "Relative")
    assert PROPERTIES["H3.2.2.1"].options == ("Yes", "No", "N/A (please explain)")
    assert PROPERTIES["H4.3.8"].options[1] == "Direct quality estimation"
    assert (
        PROPERTIES["H3.1.1"].kind,
        PROPERTIES["H2.1"].kind,
        PROPERTIES["H4.2.1"].kind,
        PROPERTIES["H4.3.7"].kind,
    ) == ("integer", "multiple", "single", "text")
    assert PROPERTIES["H2.1"].has_other and not PROPERTIES["H4.2.1"].has_other


def test_qcet_is_shipped_as_ids_names_and_tree():
    taxonomy = qcet_taxonomy()
    assert len(taxonomy) == 160
    fluency = taxonomy["QOG-w-3"]
    assert (fluency.name, fluency.parent, fluency.depth) == ("Fluency", "QOG-w", 4)
    assert taxonomy["Q"].parent is None
    assert all(node.parent in taxonomy for node in taxonomy.values() if node.parent)
    assert PROPERTIES["H4.3.1.2"].options[0] == "QUALITY OF OUTPUTS (Q)" and len(PROPERTIES["H4.3.1.2"].options) == 160
    assert [n.id for n in qcet_search("grammat")] == ["QOC-f-1"]


@pytest.mark.parametrize(
    "values, message",
    [
        ({"H9.9": "x"}, "unknown property 'H9.9'"),
        ({"H3.2.1": 2.5}, "expected a whole number"),
        ({"H4.2.1": "Subjective"}, "is answered per quality criterion"),
        ({"H4.2.1": {"Fluency": "Sometimes"}}, "'Sometimes' is not an option of H4.2.1"),
        ({"H2.1": "Text: sentence"}, "expected a list of options"),
        ({"H4.2.1": {"Clarity": "Subjective"}}, "unknown quality criterion 'Clarity'"),
    ],
)
def test_bad_property_answers_are_refused_naming_the_property(values, message):
    with pytest.raises(QRAInputError, match=message):
        check_properties(values, ["Fluency"])


def test_other_answers_and_project_properties_are_allowed():
    check_properties({"H2.1": ["Other: tables"], "x-gpu": "A100", "H3.1.1": "varies: 60 tasks"}, ["Fluency"])


# --------------------------------------------------------------------------- HEDS 2 import


@needs_field_data
def test_van_miltenburgs_heds_sheet_imports_the_answers_checked_by_hand():
    """Checked by hand against the file: 2 evaluators, 100 outputs, direct quality estimation."""
    result = import_heds(VAN_MILTENBURG)
    p = result.properties
    assert result.criteria == ["Fluency"]
    assert p["H3.2.1"] == 2 and p["H3.1.1"] == 100
    assert p["H2.1"] == ["Text: sentence", "Text: multiple sentences"]
    assert p["H2.3"] == ["End-to-end text generation"]
    assert (p["H3.2.2.1"], p["H3.2.2.4"]) == ("No", "Yes")  # "2. non-experts"; "1. evaluators include ... authors"
    assert p["H3.3.3.1"] == ["None of the above (no quality assurance methods used)"]
    assert p["H4.3.8"] == {"Fluency": "Direct quality estimation"}
    assert p["H4.3.5"] == {"Fluency": "Multiple-choice options"}
    assert p["H4.2.1"] == {"Fluency": "Subjective"} and p["H4.2.2"] == {"Fluency": "Absolute"}
    assert p["H4.3.7"]["Fluency"].startswith("Please rate the fluency of the definition")
    assert "H4.3.1.2" not in p  # HEDS 2 has no standardised-criterion question
    assert "heds-paper_and_resources-paper-link" in result.unmapped
    assert "heds-criteria-criterion-response_elicitation-size_of_scale-other_text" in result.unmapped
    # the only interpretation: the criterion's own name is the QCET name (HEDS 2 has no QCET question)
    note = "QCET (Fluency): HEDS 2 has no QCET question; the criterion's name is the QCET name 'Fluency (QOG-w-3)'"
    assert result.notes == [note]


@needs_field_data
def test_napiers_heds_sheet_imports_the_answers_checked_by_hand():
    result = import_heds(NAPIER)
    p = result.properties
    criterion = "Accuracy against input data"
    assert result.criteria == [criterion]
    assert p["H3.2.1"] == 131 and p["H3.3.2"] == "Prolific"
    assert p["H4.3.8"] == {criterion: "Relative quality estimation (including ranking)"}
    assert p["H4.2.2"] == {criterion: "Relative"}
    assert p["H2.3"] == ["Paraphrasing/lossless simplification"]
    assert (
        len(p["H3.3.3.1"]) == 5
        and "Automatic quality checking methods are used during and/or after evaluation" in p["H3.3.3.1"]
    )
    assert p["H3.1.1"].startswith("60 tasks total")  # free text, not an integer: kept, and said so
    assert any(note.startswith("H3.1.1:") for note in result.notes)


@needs_field_data
def test_heds_answers_fill_an_experiment_in_a_study():
    result = import_heds(VAN_MILTENBURG)
    experiment = result.apply_to(Experiment("vM2024"), {"Fluency": "Fluency (1-4)"})
    study = Study(
        id="s", quality_criteria=[QualityCriterion("Fluency (1-4)", 1, 4)], systems=["SVM"], experiments=[experiment]
    )
    assert study.experiment("vM2024").properties["H4.3.8"] == {"Fluency (1-4)": "Direct quality estimation"}
    assert study.experiment("vM2024").properties["H3.2.1"] == 2


@needs_field_data
def test_every_mapped_answer_is_valid_for_the_catalogue():
    for path in (VAN_MILTENBURG, NAPIER):
        result = import_heds(path)
        check_properties(result.properties, result.criteria)


@pytest.mark.parametrize(
    "data, message",
    [
        ([], "a HEDS datasheet is a JSON object"),
        ({"schema": "qra-widgets/study"}, "not a HEDS 2 datasheet nor a HEDS 3.0 one"),
        ({"heds-system-tasks-1": "yes"}, "key 'heds-system-tasks-1' should hold"),
        (
            {"heds-sample_evaluators_design-evaluators-number_of_evaluators": {"data": {"": 2}}},
            r"number_of_evaluators': data\[''\]: should hold text or true/false, got int",
        ),
    ],
)
def test_a_malformed_heds_sheet_is_refused_saying_why(data, message):
    with pytest.raises(QRAInputError, match=message):
        heds_from_dict(data)


@needs_field_data
def test_a_truncated_heds_file_is_refused_as_not_valid_json(tmp_path):
    path = tmp_path / "heds.json"
    path.write_text(VAN_MILTENBURG.read_text()[:500])
    with pytest.raises(QRAInputError, match="heds.json: not valid JSON"):
        import_heds(path)


def test_a_file_without_heds_keys_is_refused(tmp_path):
    path = tmp_path / "heds3.json"
    path.write_text(json.dumps({"heds3": {"2.1": ["text"]}}))
    with pytest.raises(QRAInputError, match="heds3.json: not a HEDS 2 datasheet nor a HEDS 3.0 one"):
        import_heds(path)


@needs_field_data
def test_heds2_files_say_version_2():
    assert (import_heds(VAN_MILTENBURG).version, import_heds(NAPIER).version) == (2, 2)
