"""The study model's validation and the study files (JSON, long CSV, Excel, labels)."""

import json
import math

import pytest
from hypothesis import given, settings
from strategies import studies

import qra_widgets as qw
from qra_widgets import Experiment, QRAInputError, QualityCriterion, Study
from qra_widgets.io import (
    save_study,
    study_from_dict,
    study_from_json,
    study_to_dict,
    study_to_json,
)
from qra_widgets.limits import MAX_FILE_BYTES


def small_study(**overrides):
    fields = {
        "id": "s1",
        "quality_criteria": [QualityCriterion("Fluency", scale_min=1, scale_max=5)],
        "systems": ["A", "B"],
        "experiments": [Experiment("orig", role="original"), Experiment("rep")],
        "scores": {("Fluency", "A", "orig"): 3.0, ("Fluency", "B", "orig"): 2.0, ("Fluency", "A", "rep"): 3.5},
    }
    fields.update(overrides)
    return Study(**fields)


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"id": ""}, "study id: must be a non-empty text"),
        ({"systems": ["A", "A"]}, "systems: duplicate name 'A'"),
        ({"systems": ["A", ""]}, "system name: must be a non-empty text"),
        ({"experiments": [Experiment("x"), Experiment("x")]}, "experiments: duplicate name 'x'"),
        ({"quality_criteria": [QualityCriterion("Q"), QualityCriterion("Q")]}, "quality_criteria: duplicate name 'Q'"),
        ({"scores": {("Fluency", "C", "orig"): 3.0}}, "unknown system 'C'"),
        ({"scores": {("Fluency", "A", "nope"): 3.0}}, "unknown experiment 'nope'"),
        ({"scores": {("Clarity", "A", "orig"): 3.0}}, "unknown quality criterion 'Clarity'"),
        ({"scores": {("Fluency", "A", "orig"): 0.5}}, "0.5 is below the scale minimum 1.0 of 'Fluency'"),
        ({"scores": {("Fluency", "A", "orig"): 6.0}}, "6.0 is above the scale maximum 5.0"),
        ({"scores": {("Fluency", "A", "orig"): math.nan}}, "must be a finite number, got nan"),
        ({"scores": {("Fluency", "A", "orig"): "3,5"}}, "must be a number, got '3,5'"),
        ({"scores": {("Fluency", "A", "orig"): True}}, "must be a number, got True"),
        ({"labels": {("Fluency", "A", "i1", "orig"): None}}, "label is missing"),
        ({"findings": {("Fluency", "orig", "A", "A"): 1}}, "compares a system with itself"),
        ({"findings": {("Fluency", "orig", "A", "B"): 2}}, "sign must be -1, 0 or 1"),
    ],
)
def test_study_validation_names_the_field(overrides, message):
    with pytest.raises(QRAInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        small_study(**overrides)


@pytest.mark.parametrize(
    "build, message",
    [
        (
            lambda: QualityCriterion("Q", scale_min=5, scale_max=1),
            "scale_max \\(1.0\\) must be above scale_min \\(5.0\\)",
        ),
        (lambda: QualityCriterion("Q", label_level="fuzzy"), "label_level must be one of"),
        (lambda: Experiment("e", role="replication"), "role must be one of \\('original', 'repeat'\\)"),
        (lambda: Experiment("e", conditions={"hardware": {}}), "conditions must map some of"),
    ],
)
def test_each_part_of_a_study_refuses_bad_values_when_built(build, message):
    with pytest.raises(QRAInputError, match=message):
        build()


def test_assessing_one_experiment_is_refused_asking_for_two():
    study = small_study(scores={("Fluency", "A", "orig"): 3.0})
    with pytest.raises(QRAInputError, match="at least two experiments, got 1"):
        qw.assess(study)


def test_edits_are_validated_and_keep_results_consistent():
    study = small_study()
    with pytest.raises(QRAInputError, match="below the scale minimum"):
        study.set_score("Fluency", "B", "rep", 0)
    study.set_score("Fluency", "B", "rep", 2.5)
    study.rename_system("A", "Alpha")
    assert ("Fluency", "Alpha", "orig") in study.scores and ("Fluency", "A", "orig") not in study.scores
    with pytest.raises(QRAInputError, match="duplicate name 'B'"):
        study.rename_system("Alpha", "B")
    study.remove_experiment("rep")
    assert set(study.scores) == {("Fluency", "Alpha", "orig"), ("Fluency", "B", "orig")}
    study.replace_quality_criterion("Fluency", QualityCriterion("Fluency (1-5)", scale_min=1, scale_max=5))
    assert {key[0] for key in study.scores} == {"Fluency (1-5)"}
    with pytest.raises(QRAInputError, match="below the scale minimum 2.5"):
        study.replace_quality_criterion("Fluency (1-5)", QualityCriterion("F", scale_min=2.5))
    study.remove_system("B")
    assert list(study.scores) == [("Fluency (1-5)", "Alpha", "orig")]


def test_subset_keeps_only_the_chosen_experiments():
    sub = small_study().subset(["rep"])
    assert sub.experiment_ids == ["rep"] and list(sub.scores) == [("Fluency", "A", "rep")]


# --------------------------------------------------------------------------- JSON


def test_json_round_trip_loses_nothing(tmp_path, qra2022_nts):

    study = qra2022_nts
    study.labels[("BLEU", "NTS_def", "item 1", "Nisioi2017")] = "good"
    study.labels[("BLEU", "NTS_def", "item 1", "QRA2022-o1-b3")] = 3
    study.findings[("SARI", "Nisioi2017", "NTS_def", "NTS-w2v_def")] = -1
    study.validate()
    path = tmp_path / "nts.json"
    save_study(study, path)
    assert qw.load_study(path) == study


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"schema": "qra-widgets/study", "version": 1, "id": "x"', "not valid JSON \\(line 1"),
        ("[]", "expected a JSON object at the top level"),
        ('{"schema": "heds", "version": 1}', "schema: expected 'qra-widgets/study'"),
        ('{"schema": "qra-widgets/study", "version": 2, "id": "x"}', "version: 2 is not supported"),
        ('{"schema": "qra-widgets/study", "version": 1, "id": 7}', "study.id: expected str, got int"),
        ('{"schema": "qra-widgets/study", "version": 1, "id": "x", "systems": "A"}', "study.systems: expected list"),
        (
            '{"schema": "qra-widgets/study", "version": 1, "id": "x", "experiments": [{"label": "y"}]}',
            "experiments\\[0\\]: missing field 'id'",
        ),
        (
            '{"schema": "qra-widgets/study", "version": 1, "id": "x", "quality_criteria": [{"name": "Q", "scale_min": "1"}]}',
            "quality_criteria\\[0\\].scale_min: expected int/float, got str",
        ),
    ],
)
def test_broken_json_names_the_problem(text, message):
    with pytest.raises(QRAInputError, match=message):
        study_from_json(text)


def test_a_score_cell_given_twice_in_json_is_refused_naming_its_index():
    data = study_to_dict(small_study())
    data["scores"].append(dict(data["scores"][0]))
    with pytest.raises(QRAInputError, match="scores\\[3\\]: duplicate cell"):
        study_from_dict(data)


def test_a_truncated_study_file_is_refused_as_not_valid_json(tmp_path):
    path = tmp_path / "study.json"
    path.write_text(study_to_json(small_study())[:-40], encoding="utf-8")
    with pytest.raises(QRAInputError, match="study.json: not valid JSON"):
        qw.load_study(path)


def test_a_file_over_the_size_limit_is_refused_saying_both_sizes(tmp_path):
    path = tmp_path / "big.csv"
    path.write_bytes(b"experiment,quality_criterion,system,score\n" + b"e,q,s,1\n" * (MAX_FILE_BYTES // 8 + 10))
    with pytest.raises(QRAInputError, match="big.csv: is 20.0 MiB; the limit is 20 MiB"):
        qw.load_study(path)


# --------------------------------------------------------------------------- long CSV / Excel


def write(tmp_path, name, text, encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


CSV = "experiment,quality_criterion,system,score,scale_min\nA22,Fluency,SVM,3.71,1\nA22,Fluency,GeDi,3.2,1\nvM24,Fluency,SVM,3.12,1\nvM24,Fluency,GeDi,2.57,1\n"


def test_a_long_scores_csv_reads_systems_experiments_roles_and_scores(tmp_path):
    study = qw.load_study(write(tmp_path, "ex.csv", CSV))
    assert (study.id, study.systems, study.experiment_ids) == ("ex", ["SVM", "GeDi"], ["A22", "vM24"])
    assert study.quality_criterion("Fluency").scale_min == 1.0
    assert study.experiment("A22").role == "original" and study.experiment("vM24").role == "repeat"
    assert study.scores[("Fluency", "GeDi", "vM24")] == 2.57


@pytest.mark.parametrize(
    "variant",
    [
        lambda text: "\ufeff" + text,  # Excel's byte-order mark
        lambda text: text.replace("\n", "\r\n"),  # Windows line endings
        lambda text: text.replace(",", ";"),  # European delimiter
        lambda text: text.replace(",", "\t"),  # tab-separated
        lambda text: text.replace(",", ", "),  # spaces after commas
    ],
)
def test_long_csv_variants_read_the_same(tmp_path, variant):
    expected = qw.load_study(write(tmp_path, "ex.csv", CSV)).scores
    assert qw.load_study(write(tmp_path, "ex.csv", variant(CSV))).scores == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("experiment,qc,system,score\nA,F,S,1\n", "missing column\\(s\\) \\['quality_criterion'\\]"),
        ("experiment,quality_criterion,system,score\n", "has a header but no rows"),
        (CSV.replace("3.2,1", "N/A,1"), "row 3, column 'score': 'N/A' is not a number"),
        (
            CSV.replace(";", "").replace("3.2,1", '"3,2",1'),
            "row 3, column 'score': '3,2' is not a number \\(use '.' as the decimal point, no thousands separators\\)",
        ),
        (CSV.replace("3.2,1", "inf,1"), "row 3, column 'score': 'inf' is not a finite number"),
        (CSV + "A22,Fluency,SVM,3.0,1\n", "rows 2 and 6 both give the score of 'SVM' in 'A22' on 'Fluency'"),
        (
            CSV.replace("vM24,Fluency,SVM,3.12,1", "vM24,Fluency,SVM,3.12,0"),
            "row 4: scale_min of 'Fluency' is 0.0, but 1.0 earlier",
        ),
        (CSV.replace("3.12,1", "0.5,1"), "0.5 is below the scale minimum 1.0"),
        (CSV.replace("A22,Fluency,GeDi", ",Fluency,GeDi"), "row 3, column 'experiment' is empty"),
        (
            'experiment,quality_criterion,system,score\n"A,F,S,1\n',
            "row 2: cannot be read as CSV \\(unexpected end of data\\); is a quote",
        ),
    ],
)
def test_broken_csv_names_row_and_column(tmp_path, text, message):
    with pytest.raises(QRAInputError, match=message):
        qw.load_study(write(tmp_path, "bad.csv", text))


def test_a_csv_in_a_legacy_encoding_is_refused_as_not_utf8(tmp_path):
    path = write(tmp_path, "latin.csv", CSV.replace("SVM", "Système"), encoding="latin-1")
    with pytest.raises(QRAInputError, match="latin.csv: is not UTF-8 text \\(byte 0xe8"):
        qw.load_study(path)


def test_an_unknown_file_type_is_refused_naming_the_extension(tmp_path):
    with pytest.raises(QRAInputError, match="unknown file type '.ods'"):
        qw.load_study(write(tmp_path, "x.ods", "x"))


def test_an_excel_scores_table_reads_as_the_same_csv_does(tmp_path):
    import pandas as pd

    frame = pd.read_csv(write(tmp_path, "ex.csv", CSV))
    frame.to_excel(tmp_path / "ex.xlsx", index=False)
    assert qw.load_study(tmp_path / "ex.xlsx").scores == qw.load_study(tmp_path / "ex.csv").scores


def test_a_labels_csv_adds_numeric_and_text_labels_to_the_study(tmp_path):
    scores = write(tmp_path, "ex.csv", CSV)
    labels = write(
        tmp_path,
        "labels.csv",
        "experiment,quality_criterion,system,item,label\n"
        "A22,Fluency,SVM,d1,3\nvM24,Fluency,SVM,d1,3\nA22,Fluency,SVM,d2,good\nvM24,Fluency,GeDi,d1,2\n",
    )
    study = qw.load_study(scores, labels=labels)
    assert study.labels[("Fluency", "SVM", "d1", "A22")] == 3.0
    assert study.labels[("Fluency", "SVM", "d2", "A22")] == "good"


@pytest.mark.parametrize(
    "rows, message",
    [
        ("A22,Fluency,SVM,d1,3\nA22,Fluency,SVM,d1,2\n", "rows 2 and 3 both label item 'd1' of 'SVM' in 'A22'"),
        ("A22,Fluency,XYZ,d1,3\n", "labels.csv: label for item 'd1' of 'XYZ'.*unknown system 'XYZ'"),
        ("A22,Fluency,SVM,d1,\n", "row 2, column 'label' is empty"),
    ],
)
def test_a_bad_labels_csv_is_refused_naming_the_problem(tmp_path, rows, message):
    labels = write(tmp_path, "labels.csv", "experiment,quality_criterion,system,item,label\n" + rows)
    with pytest.raises(QRAInputError, match=message):
        qw.load_study(write(tmp_path, "ex.csv", CSV), labels=labels)


# --------------------------------------------------------------------------- property: round trip


@settings(max_examples=50, deadline=None)
@given(studies())
def test_any_study_survives_a_json_round_trip(study):
    assert study_from_json(study_to_json(study)) == study
    assert json.loads(study_to_json(study))["version"] == 1


def test_a_score_error_carries_the_cell_and_the_reason_without_the_place():
    from qra_widgets.errors import ScoreError

    study = small_study()
    with pytest.raises(ScoreError, match=r"^score for 'B' in experiment 'rep' on 'Fluency': 0.0 is below") as caught:
        study.set_score("Fluency", "B", "rep", 0)
    assert caught.value.key == ("Fluency", "B", "rep")
    assert caught.value.reason == "0.0 is below the scale minimum 1.0 of 'Fluency'"
    with pytest.raises(ScoreError, match=r"^B / Repeat: unknown quality criterion 'Grammar'$") as caught:
        study.set_score("Grammar", "B", "rep", 3, where="B / Repeat")
    assert caught.value.reason == "unknown quality criterion 'Grammar'"


def test_replacing_an_experiment_under_a_new_id_carries_its_results_and_refuses_a_taken_id():
    study = small_study()
    rep = {k: v for k, v in study.scores.items() if k[2] == "rep"}
    study.replace_experiment(Experiment("rep-2", role="repeat"), "rep")
    assert study.experiment_ids == ["orig", "rep-2"]
    assert {k[:2]: v for k, v in study.scores.items() if k[2] == "rep-2"} == {k[:2]: v for k, v in rep.items()}
    with pytest.raises(QRAInputError, match="'orig' is already used"):
        study.replace_experiment(Experiment("orig"), "rep-2")
    assert study.experiment_ids == ["orig", "rep-2"]
