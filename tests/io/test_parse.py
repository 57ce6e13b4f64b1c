"""qra_widgets.io.parse: what people type or paste, turned into values or a message naming the problem."""

import pytest

from qra_widgets import QRAInputError
from qra_widgets.io import parse


@pytest.mark.parametrize(
    "text, value", [("3.5", 3.5), (" 4 ", 4.0), ("", None), ("   ", None), ("-0.25", -0.25), ("1e2", 100.0)]
)
def test_a_score_typed_in_a_form_parses_to_its_number(text, value):
    assert parse.score(text) == value


@pytest.mark.parametrize(
    "text, message", [("3,5", "'3,5' is not a number (use '.' as the decimal point)"), ("N/A", "'N/A' is not a number")]
)
def test_a_score_that_is_not_a_number_is_refused_saying_why(text, message):
    with pytest.raises(QRAInputError) as error:
        parse.score(text)
    assert str(error.value) == message


def test_optional_and_required_numbers_in_forms_parse_or_say_what_is_wrong():
    assert parse.optional_number("", "scale maximum") is None
    assert parse.optional_number("7", "scale maximum") == 7.0
    with pytest.raises(QRAInputError, match="scale maximum: 'seven' is not a number"):
        parse.optional_number("seven", "scale maximum")
    with pytest.raises(QRAInputError, match="scale minimum: give a number \\(it is not assumed to be 0\\)"):
        parse.required_number(" ", "scale minimum")
    assert parse.required_number("0", "scale minimum") == 0.0


def test_pasted_block_with_and_without_headers():
    systems, labels = ["SVM", "GeDi"], ["August", "vM", "Li"]
    with_headers = "\tAugust\tvM\tLi\nSVM\t3.7\t3.1\t3.0\nGeDi\t3.2\t2.6\t2.4\n"
    assert parse.pasted_block(with_headers, systems, labels) == [["3.7", "3.1", "3.0"], ["3.2", "2.6", "2.4"]]
    assert parse.pasted_block("3.7,3.1\n3.2\n", systems, labels) == [["3.7", "3.1"], ["3.2"]]


@pytest.mark.parametrize(
    "text, message",
    [
        ("1\t2\n3\t4\n5\t6\n", "paste: 3 rows but the grid has 2 systems"),
        ("1\t2\t3\t4\n", "paste: row 1 has 4 cells but the grid has 3 experiments"),
        ("\n  \n", "paste: nothing to paste"),
    ],
)
def test_pasted_block_never_drops_cells_silently(text, message):
    with pytest.raises(QRAInputError) as error:
        parse.pasted_block(text, ["SVM", "GeDi"], ["August", "vM", "Li"])
    assert str(error.value) == message


def test_conditions_round_trip_and_errors():
    text = "procedure: Performed by = us\nobject: Code by = them\n\n"
    parsed = parse.conditions(text)
    assert parsed == {"procedure": {"Performed by": "us"}, "object": {"Code by": "them"}}
    assert parse.conditions(parse.conditions_text(parsed)) == parsed
    with pytest.raises(QRAInputError, match="conditions, line 2: write 'object|method|procedure: name = value'"):
        parse.conditions("object: a = b\nhardware = GPU")


def test_a_qcet_id_is_read_from_a_menu_label_or_refused_when_not_in_the_taxonomy():
    taxonomy = ["QOG-w-3", "QOG-w-4"]
    assert parse.qcet_id("Fluency (QOG-w-3)", taxonomy) == "QOG-w-3"
    assert parse.qcet_id("", taxonomy) is None
    with pytest.raises(QRAInputError, match="'Fluentness' is not in QCET v3.4.1"):
        parse.qcet_id("Fluentness", taxonomy)


def test_ids_from_names_are_unique_and_plain():
    assert parse.slug("Ünïcode & Co. — study #2") == "unicode-co-study-2"
    assert parse.unique_id("PASS study", []) == "pass-study"
    assert parse.unique_id("PASS study", ["pass-study"]) == "pass-study-2"
    assert parse.unique_id("!!!", []) == "study"


def test_heds_criteria_match_by_name_or_one_to_one_and_the_rest_are_listed():
    assert parse.match_criteria(["Fluency", "Adequacy"], ["Fluency", "Clarity"]) == (
        {"Fluency": "Fluency"},
        ["Adequacy"],
    )
    assert parse.match_criteria(["quality"], ["Overall"]) == ({"quality": "Overall"}, [])
    assert parse.match_criteria(["a", "b"], ["c"]) == ({}, ["a", "b"])


def _two_runs():
    from qra_widgets.study import Experiment, QualityCriterion, Study

    return Study(
        "s",
        quality_criteria=[QualityCriterion("Fluency", 1, 5)],
        systems=["A", "B"],
        experiments=[Experiment("E1", label="Original 2022"), Experiment("E2")],
    )


def test_pasted_scores_are_parsed_and_checked_against_the_study_and_applied_all_or_nothing():
    from qra_widgets.errors import ScoreError

    study = _two_runs()
    cells = {("Fluency", "A", "E1"): "3.5", ("Fluency", "B", "E1"): 4, ("Fluency", "A", "E2"): " "}
    values = parse.score_cells(study, cells)
    assert values == {("Fluency", "A", "E1"): 3.5, ("Fluency", "B", "E1"): 4.0, ("Fluency", "A", "E2"): None}
    assert study.scores == {}  # checking changes nothing
    study.update_scores(values)
    assert study.scores == {("Fluency", "A", "E1"): 3.5, ("Fluency", "B", "E1"): 4.0}
    with pytest.raises(
        ScoreError, match=r"^B / Original 2022 on 'Fluency': 0.0 is below the scale minimum 1.0"
    ) as error:
        parse.score_cells(study, {("Fluency", "A", "E2"): "2", ("Fluency", "B", "E1"): "0"})
    assert error.value.key == ("Fluency", "B", "E1")
    with pytest.raises(QRAInputError, match=r"^A / E2: '3,5' is not a number \(use '.' as the decimal point\)"):
        parse.score_cells(study, {("Fluency", "A", "E1"): "2", ("Fluency", "A", "E2"): "3,5"})
    with pytest.raises(ScoreError, match=r"^score for 'A' in experiment 'Original 2022' on 'Fluency': 9.0 is above"):
        parse.score_cells(study, {("Fluency", "A", "E1"): "9"})  # one cell: the long form the grid shows
    with pytest.raises(ScoreError, match="unknown system 'C'"):
        study.update_scores({("Fluency", "A", "E1"): None, ("Fluency", "C", "E1"): 2})
    assert study.scores == {("Fluency", "A", "E1"): 3.5, ("Fluency", "B", "E1"): 4.0}  # the clear was not applied
    study.update_scores({("Fluency", "A", "E1"): None})
    assert study.scores == {("Fluency", "B", "E1"): 4.0}
