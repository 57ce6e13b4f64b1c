"""HEDS 3.0 datasheets and malformed HEDS files.

The HEDS 3.0 fixtures in ``tests/data/heds3/`` were saved by the official HEDS 3.0 form in
headless Chromium (``tests/data/heds3/make_fixtures.py`` fills it in and clicks "download
json"); the HEDS 2 files are real ReproHum sheets, published field data (``heds2/`` of
``$QRA_WIDGETS_FIELD_DATA``; their tests skip without it).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from fielddata import field_path, needs_field_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qra_widgets as qw
from qra_widgets.cli import main
from qra_widgets.io.heds import HEDSImport, detect_version, heds_from_bytes, heds_from_dict, import_heds, match_criteria
from qra_widgets.properties import check_properties

DATA = Path(__file__).parents[1] / "data"
TWO_CRITERIA = DATA / "heds3" / "heds3_two_criteria.json"


@pytest.fixture
def two_criteria():
    """The official HEDS 3 form filled in for two criteria (``TWO_CRITERIA``), imported."""
    return import_heds(TWO_CRITERIA)


MESSY = DATA / "heds3" / "heds3_messy.json"
HEDS2 = [
    field_path("heds2", name)
    for name in (
        "heds2_example_napiernlp_reprohum2024.json",
        "heds2_example_vanmiltenburg_datacard-2023-12-06-16-57-46.json",
    )
]


def test_a_heds3_sheet_from_the_official_form_imports_its_answers(two_criteria):
    result = two_criteria
    p = result.properties
    assert result.version == 3
    assert result.criteria == ["Fluency", "Informativeness"]  # both, though the form marks only the last as current
    assert (p["H3.1.1"], p["H3.2.1"], p["H3.2.2.1"], p["H3.2.2.4"]) == (150, 3, "No", "No")
    assert (
        p["H2.1"] == ["Raw/structured data"]
        and p["H2.2"] == ["Text: sentence"]
        and p["H2.3"] == ["Referring expression generation"]
    )
    assert p["H3.3.2"] == "Google Forms" and p["H3.2.5"] == "Crowd workers on Prolific, native speakers of English"
    assert p["H3.3.3.1"] == [
        "Evaluators are required to be native speakers of the language they evaluate",
        "Manual quality checking methods are used during/post evaluation",
    ]
    assert p["H4.3.1.2"] == {"Fluency": "Fluency (QOG-w-3)", "Informativeness": "Informativeness (QOG-c-2)"}
    assert result.qcet_ids == {"Fluency": "QOG-w-3", "Informativeness": "QOG-c-2"}
    assert p["H4.3.8"] == {"Fluency": "Direct quality estimation", "Informativeness": "Direct quality estimation"}
    assert p["H4.3.5"] == {"Fluency": "Multiple-choice options", "Informativeness": "Multiple-choice options"}
    assert p["H4.2.1"] == {"Fluency": "Subjective", "Informativeness": "Subjective"}
    assert p["H4.3.7"] == {
        "Fluency": "How fluent is this text?",
        "Informativeness": "How much of the input's information does the text give?",
    }
    assert result.notes == []
    assert (
        "heds-criteria-criterion-response_elicitation-size_of_scale" in result.unmapped
    )  # the scale: answered, not a property
    check_properties(p, result.criteria)


def test_messy_heds3_answers_are_kept_and_explained():
    result = import_heds(MESSY)
    p = result.properties
    assert result.version == 3 and result.criteria == ["Overall quality", "Correctness"]
    assert p["H3.1.1"] == "TBA" and p["H3.2.1"] == "between 3 and 5, depending on the batch" and p["H3.2.4"] == "N/A"
    assert p["H3.2.2.1"] == "N/A (please explain)"
    assert "H4.3.1.2" not in p and result.qcet_ids == {}
    assert result.notes == [
        "H3.1.1: 'TBA' is not a single whole number; kept as text",
        "H3.2.1: 'between 3 and 5, depending on the batch' is not a single whole number; kept as text",
        "H3.2.2.1: N/A (please explain), explained as 'Experts for the medical texts only'",
        "H4.3.1.2 (Overall quality): mapped criterion name 'general goodness, as we call it' is not a QCET v3.4.1 name or id; not imported",
    ]
    assert p["H4.3.8"] == {
        "Overall quality": "Relative quality estimation (including ranking)"
    }  # the empty criterion adds nothing
    check_properties(p, result.criteria)


def test_na_in_a_number_field_is_explained():
    data = json.loads(TWO_CRITERIA.read_text())
    data["heds-sample_evaluators_design-sample-number_of_system_outputs"]["data"][""] = "N/A"
    result = heds_from_dict(data)
    assert result.properties["H3.1.1"] == "N/A" and result.notes == ["H3.1.1: 'N/A' is not applicable; kept as text"]


@needs_field_data
@pytest.mark.parametrize("path", HEDS2, ids=lambda p: p.name)
def test_heds2_files_still_import(path):
    result = import_heds(path)
    assert result.version == 2 and len(result.criteria) == 1 and result.properties["H3.2.1"] in (2, 131)
    check_properties(result.properties, result.criteria)


@needs_field_data
def test_version_is_read_from_the_keys():
    heds2 = json.loads(HEDS2[0].read_text())
    heds3 = json.loads(TWO_CRITERIA.read_text())
    assert (detect_version(heds2), detect_version(heds3)) == (2, 3)
    without_numbers = {k: {f: v for f, v in e.items() if f != "number"} for k, e in heds3.items()}
    assert detect_version(without_numbers) == 3  # the qc_name-... keys alone say 3.0


def test_heds3_answers_fill_a_study_experiment(two_criteria):
    result = two_criteria
    study = qw.Study(
        "s",
        quality_criteria=[
            qw.QualityCriterion("Fluency (1-5)", 1, 5),
            qw.QualityCriterion("Info", 1, 5, qcet_id="QOG-c-2"),
        ],
        systems=["A"],
        experiments=[qw.Experiment("E1", role="original")],
    )
    mapping = match_criteria(result, study.quality_criteria)
    assert mapping == {"Informativeness": "Info", "Fluency": "Fluency (1-5)"}  # QCET id, then the one left on each side
    study.replace_experiment(result.apply_to(study.experiment("E1"), mapping))
    properties = study.experiment("E1").properties
    assert properties["H4.3.1.2"] == {"Fluency (1-5)": "Fluency (QOG-w-3)", "Info": "Informativeness (QOG-c-2)"}
    assert properties["H3.2.1"] == 3


def test_heds_criteria_match_by_name_participant_name_or_qcet_id(two_criteria):
    heds = HEDSImport(
        criteria=["Fluency", "grammaticality ", "Clarity"],
        qcet_ids={"Clarity": "QOG-w-2"},
        participant_names={"grammaticality ": "Grammar"},
    )
    assert match_criteria(heds, ["Grammar", "Fluency", qw.QualityCriterion("Readable", qcet_id="QOG-w-2")]) == {
        "Fluency": "Fluency",
        "grammaticality ": "Grammar",
        "Clarity": "Readable",
    }
    assert match_criteria(heds, ["fluency"]) == {"Fluency": "fluency"}  # the others match nothing
    assert match_criteria(HEDSImport(criteria=["Q"]), ["Overall"]) == {"Q": "Overall"}  # one on each side
    assert match_criteria(HEDSImport(criteria=["Q", "R"]), ["Overall"]) == {}
    only = two_criteria.only(["Fluency"])
    assert only.criteria == ["Fluency"] and only.properties["H4.3.8"] == {"Fluency": "Direct quality estimation"}
    assert only.qcet_ids == {"Fluency": "QOG-w-3"}


# ----------------------------------------------------------------------------- malformed files

CRITERIA = "heds-criteria-criterion"
EVALUATORS = "heds-sample_evaluators_design-evaluators-number_of_evaluators"


def with_entry(key, entry):
    data = json.loads(TWO_CRITERIA.read_text())
    data[key] = entry
    return data


@pytest.mark.parametrize(
    "data, message",
    [
        (
            with_entry(CRITERIA, {"data": {}, "control": ["Fluency", "Informativeness"], "text": {}}),
            "key 'heds-criteria-criterion': control: should be an object mapping scopes to true/false, got list",
        ),
        (
            with_entry(CRITERIA, {"data": {}, "control": {"Fluency": "yes"}}),
            "key 'heds-criteria-criterion': control['Fluency']: should hold true/false, got str",
        ),
        (
            with_entry(EVALUATORS, {"data": {"": 3}}),
            f"key '{EVALUATORS}': data['']: should hold text or true/false, got int",
        ),
        (
            with_entry(EVALUATORS, {"data": {"": {"deep": ["er"]}}}),
            f"key '{EVALUATORS}': data['']: should hold text or true/false, got dict",
        ),
        (
            with_entry(EVALUATORS, {"data": "3"}),
            f"key '{EVALUATORS}': data: should be an object mapping scopes to text or true/false, got str",
        ),
        (with_entry(EVALUATORS, {"data": {"": "3"}, "number": 3.2}), f"key '{EVALUATORS}': number should be text"),
        (
            with_entry("heds-system-tasks-4", {"data": {"": True}, "text": ["4. Referring"]}),
            "key 'heds-system-tasks-4': text: should be an object",
        ),
        (
            with_entry("heds-system-tasks-4", {"data": {"": True}, "text": {"": 4}}),
            "key 'heds-system-tasks-4': text['']: should hold text, got int",
        ),
        (with_entry(EVALUATORS, {"data": {"": True}}), f"key '{EVALUATORS}': data[''] should hold text, got True"),
        (with_entry(EVALUATORS, None), f"key '{EVALUATORS}' should hold {{'data': {{...}}}}, got NoneType"),
        ([["heds-x"]], "a HEDS datasheet is a JSON object, got list"),
        ({"form": "HEDS 3"}, "not a HEDS 2 datasheet nor a HEDS 3.0 one"),
    ],
)
def test_malformed_heds_names_the_field(data, message):
    with pytest.raises(qw.QRAInputError) as error:
        heds_from_dict(data, "sheet.json")
    assert str(error.value).startswith("sheet.json: ") and message in str(error.value)


@pytest.mark.parametrize(
    "raw, message",
    [
        (b"[" * 200_000 + b"]" * 200_000, "sheet.json: JSON nested more than 64 levels deep"),
        (b'{"heds-system-tasks-1": {"data"', "sheet.json: not valid JSON (line 1, column 32: Expecting ':' delimiter)"),
        ('{"heds-x": {"data": {"": "é"}}}'.encode("latin-1"), "sheet.json: is not UTF-8 text (byte 0xe9"),
        (b"", "sheet.json: not valid JSON"),
    ],
)
def test_unreadable_heds_bytes_are_refused_saying_why(raw, message):
    with pytest.raises(qw.QRAInputError) as error:
        heds_from_bytes(raw, "sheet.json")
    assert message in str(error.value)


def test_cli_report_on_a_heds_file_is_one_line(tmp_path, capsys):
    """A HEDS file given where a study is expected: one line, exit 2."""
    path = tmp_path / "heds.json"
    path.write_bytes(TWO_CRITERIA.read_bytes())
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("qra-widgets: schema:")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=12,
)


@pytest.mark.slow  # 150 fuzzed sheets
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    key=st.sampled_from(sorted(json.loads(TWO_CRITERIA.read_text()))),
    field=st.sampled_from(["data", "control", "text", "number", None]),
    scope=st.sampled_from(["", "Fluency", "Informativeness", "new"]),
    value=json_values,
)
def test_fuzzed_heds3_sheet_imports_or_names_the_problem(key, field, scope, value):
    """Any one entry, field or answer replaced by any JSON value: an import or a QRAInputError, never another error."""
    data = copy.deepcopy(BASE)
    if field is None:
        data[key] = value
    elif field == "number" or not isinstance(data[key].get(field), dict):
        data[key][field] = value
    else:
        data[key][field][scope] = value
    try:
        result = heds_from_dict(data, "fuzzed.json")
    except qw.QRAInputError as error:
        assert str(error).startswith("fuzzed.json: ") and "\n" not in str(error)
        return
    assert result.version == 3 and isinstance(result.properties, dict)


@settings(max_examples=100, deadline=None)
@given(raw=st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_fuzzed_bytes_never_crash(raw):
    try:
        heds_from_bytes(raw, "any.json")
    except qw.QRAInputError as error:
        assert str(error).startswith("any.json: ")


BASE = json.loads(TWO_CRITERIA.read_text())


# ---------------------------------------------------------------- evaluation type and QCET id of the study's criteria


def test_heds3_sheet_gives_each_criterion_human_and_its_qcet_id(two_criteria):
    """The fixture's section 3.2 says 3 evaluators, crowd workers on Prolific; its 4.3.1.2 maps
    Fluency by the QCET name and Informativeness by the label "Informativeness (QOG-c-2)"."""
    result = two_criteria
    assert result.evaluation_types == {"Fluency": "human", "Informativeness": "human"}
    assert result.qcet_ids == {"Fluency": "QOG-w-3", "Informativeness": "QOG-c-2"}


def test_messy_heds3_sheet_is_human_but_has_no_qcet_id():
    """Its 3.2.1 is a sentence ("between 3 and 5 ...") yet still describes people; its mapped names
    are not QCET names or empty, so no QCET id is filled."""
    result = import_heds(MESSY)
    assert result.evaluation_types == {"Overall quality": "human", "Correctness": "human"}
    assert result.qcet_ids == {}


@needs_field_data
@pytest.mark.parametrize(
    "path, qcet", [(HEDS2[0], {}), (HEDS2[1], {"Fluency": "QOG-w-3"})], ids=lambda p: getattr(p, "name", "")
)
def test_heds2_sheets_give_human_and_qcet_where_the_name_is_qcet(path, qcet):
    """ReproHum HEDS 2 sheets: Napier et al. (131 crowd workers, criterion "Accuracy against input
    data", not a QCET name) and van Miltenburg et al. (2 evaluators, criterion "Fluency")."""
    result = import_heds(path)
    assert result.evaluation_types == {c: "human" for c in result.criteria}
    assert result.qcet_ids == qcet


def test_sheet_naming_an_llm_as_evaluator_is_llm_as_judge():
    data = copy.deepcopy(BASE)
    data["heds-sample_evaluators_design-evaluators-characteristics"]["data"][""] = (
        "GPT-4o prompted with the rating guidelines"
    )
    result = heds_from_dict(data, "judge.json")
    assert result.evaluation_types == {"Fluency": "llm-as-judge", "Informativeness": "llm-as-judge"}
    assert "evaluation type: section 3.2 names 'GPT-4o' as the evaluator; imported as llm-as-judge" in result.notes


def test_sheet_without_evaluators_leaves_the_type_unknown():
    data = {
        k: v for k, v in copy.deepcopy(BASE).items() if not k.startswith("heds-sample_evaluators_design-evaluators-")
    }
    result = heds_from_dict(data, "no-evaluators.json")
    assert result.evaluation_types == {}
    assert any(n.startswith("evaluation type: section 3.2 (evaluators) is unanswered") for n in result.notes)
    [fluency], _ = result.apply_to_criteria([qw.QualityCriterion("Fluency", 1, 5)])
    assert (fluency.evaluation_type, fluency.qcet_id) == ("unknown", "QOG-w-3")


def test_apply_to_criteria_fills_open_fields_and_keeps_the_studys_choice(two_criteria):
    result = two_criteria
    criteria = [
        qw.QualityCriterion("Fluency (1-5)", 1, 5),
        qw.QualityCriterion("Info", 1, 5, qcet_id="QOG-c-2", evaluation_type="metric"),
    ]
    mapping = match_criteria(result, criteria)
    filled, notes = result.apply_to_criteria(criteria, mapping)
    assert [(q.name, q.evaluation_type, q.qcet_id) for q in filled] == [
        ("Fluency (1-5)", "human", "QOG-w-3"),
        ("Info", "metric", "QOG-c-2"),
    ]
    assert notes == ["Info: the datasheet gives evaluation_type 'human'; kept the study's 'metric'"]
    assert (filled[0].scale_min, filled[0].scale_max) == (1, 5)  # other fields untouched


def test_app_heds_import_fills_the_study_criteria():
    """What the Experiments tab's "Import into the selected experiment" does (AppState.import_heds)."""
    from qra_widgets.widgets.state import AppState

    study = qw.Study(
        "s",
        quality_criteria=[qw.QualityCriterion("Fluency", 1, 5), qw.QualityCriterion("Informativeness", 1, 5)],
        systems=["A"],
        experiments=[qw.Experiment("E1", role="original")],
    )
    state = AppState(study)
    event, _, _ = state.import_heds("E1", TWO_CRITERIA.read_bytes(), TWO_CRITERIA.name)
    assert event.message == (
        "HEDS datasheet imported into 'E1'. Filled from the sheet: Fluency (human, QCET QOG-w-3); "
        "Informativeness (human, QCET QOG-c-2)."
    )
    assert [(q.evaluation_type, q.qcet_id) for q in state.study.quality_criteria] == [
        ("human", "QOG-w-3"),
        ("human", "QOG-c-2"),
    ]
    assert state.dirty
    assert [q.evaluation_type for q in study.quality_criteria] == ["unknown", "unknown"]  # the caller's study is a copy
    from qra_widgets.compare import evaluation_type

    assert evaluation_type(state.study) == "human"


def test_merge_heds_imports_the_matched_criterion_and_drops_the_answers_of_the_other(two_criteria):
    from qra_widgets.io.heds import merge_heds
    from qra_widgets.properties import PROPERTIES

    study = qw.Study(
        "s",
        quality_criteria=[qw.QualityCriterion("Fluency", 1, 5), qw.QualityCriterion("Grammar", 1, 5)],
        systems=["A"],
        experiments=[qw.Experiment("E1")],
    )
    sheet = two_criteria
    kept, filled, unmatched = merge_heds(study, "E1", sheet, TWO_CRITERIA.name)
    assert (filled, unmatched) == (["Fluency (human, QCET QOG-w-3)"], ["Informativeness"])
    per_criterion = {p: v for p, v in study.experiment("E1").properties.items() if PROPERTIES[p].per_criterion}
    assert per_criterion["H4.3.7"] == {"Fluency": "How fluent is this text?"}
    assert all(set(v) == {"Fluency"} for v in per_criterion.values())
    assert [(q.evaluation_type, q.qcet_id) for q in study.quality_criteria] == [("human", "QOG-w-3"), ("unknown", None)]
    assert kept.criteria == ["Fluency"] and sheet.criteria == [
        "Fluency",
        "Informativeness",
    ]  # the sheet read is not changed


def test_merge_heds_keeps_what_the_study_says_and_notes_the_difference(two_criteria):
    from qra_widgets.io.heds import merge_heds

    study = qw.Study(
        "s",
        quality_criteria=[
            qw.QualityCriterion("Fluency", 1, 5, evaluation_type="metric"),
            qw.QualityCriterion("Informativeness", 1, 5),
        ],
        systems=["A"],
        experiments=[qw.Experiment("E1")],
    )
    kept, filled, unmatched = merge_heds(study, "E1", two_criteria)
    assert kept.notes[-1] == "Fluency: the datasheet gives evaluation_type 'human'; kept the study's 'metric'"
    assert filled == ["Fluency (metric, QCET QOG-w-3)", "Informativeness (human, QCET QOG-c-2)"] and unmatched == []
    assert study.quality_criterion("Fluency").evaluation_type == "metric"
