"""The catalogue of bad input: every case must raise QRAInputError naming the field and the
problem (or, for well-formed degenerate input, give nan with a reason)."""

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import studies

import qra_widgets as qw
from qra_widgets import Experiment, QRAInputError, QualityCriterion, Study, UndefinedMeasureWarning
from qra_widgets import measures as m
from qra_widgets.io import SCORE_COLUMNS, read_table, study_from_json, study_to_json
from qra_widgets.io.heds import heds_from_bytes, heds_from_dict
from qra_widgets.properties import check_properties
from qra_widgets.store import _safe_file_name
from qra_widgets.widgets.common import safe_file_stem

QC = QualityCriterion("Fluency", 1, 5)


def study(**overrides):
    fields = {
        "id": "s",
        "quality_criteria": [QC],
        "systems": ["A", "B"],
        "experiments": [Experiment("o", role="original"), Experiment("r")],
        "scores": {("Fluency", "A", "o"): 3.0, ("Fluency", "B", "o"): 2.0},
    }
    fields.update(overrides)
    return Study(**fields)


def csv(text: str) -> bytes:
    return text.encode("utf-8")


GOOD_CSV = "experiment,quality_criterion,system,score\nA,Q,s1,3\nA,Q,s2,2\nB,Q,s1,3.5\nB,Q,s2,2.5\n"
SCHEMA = '{"schema": "qra-widgets/study", "version": 1, "id": "x"'

CATALOGUE = [
    # measures: empty, n = 1, NaN, inf, non-numeric, shape and option errors (the agreement
    # coefficients' labels and options: tests/measures/test_agreement.py)
    ("empty values", lambda: m.cv_star([]), "values: needs at least 2 values, got 0"),
    ("a single value", lambda: m.cv_star([3.0]), "values: needs at least 2 values, got 1"),
    ("NaN score", lambda: m.cv_star([1.0, float("nan")]), "values: value at position 1 is nan"),
    ("infinite score", lambda: m.cv_star([1.0, float("inf")]), "values: value at position 1 is inf"),
    ("decimal comma in a measure", lambda: m.cv_star(["3,5", 2]), "values: value '3,5' at position 0 is not a number"),
    ("N/A in a measure", lambda: m.cv_star([2, "N/A"]), "values: value 'N/A' at position 1 is not a number"),
    ("one experiment for W", lambda: m.kendall_w([[1, 2, 3]]), "scores: needs at least 2 experiments"),
    ("score vectors of different length", lambda: m.pearson_r([1, 2, 3], [1, 2]), "x and y: lengths differ (3 vs 2)"),
    (
        "a finding that is not a sign",
        lambda: m.sign_counts([[2, 1], [1, 1]]),
        "signs: every stated finding must be -1, 0 or 1",
    ),
    # the study model
    (
        "score below the scale minimum",
        lambda: study(scores={("Fluency", "A", "o"): 0.5}),
        "0.5 is below the scale minimum 1.0 of 'Fluency'",
    ),
    (
        "score above the scale maximum",
        lambda: study(scores={("Fluency", "A", "o"): 5.5}),
        "5.5 is above the scale maximum 5.0",
    ),
    (
        "NaN score in a study",
        lambda: study(scores={("Fluency", "A", "o"): math.nan}),
        "must be a finite number, got nan",
    ),
    ("text score in a study", lambda: study(scores={("Fluency", "A", "o"): "3,5"}), "must be a number, got '3,5'"),
    ("system missing from the study", lambda: study(scores={("Fluency", "C", "o"): 3.0}), "unknown system 'C'"),
    ("unknown experiment", lambda: study(scores={("Fluency", "A", "x"): 3.0}), "unknown experiment 'x'"),
    (
        "unknown quality criterion",
        lambda: study(scores={("Clarity", "A", "o"): 3.0}),
        "unknown quality criterion 'Clarity'",
    ),
    ("duplicate system names", lambda: study(systems=["A", "A"]), "systems: duplicate name 'A'"),
    (
        "duplicate experiment ids",
        lambda: study(experiments=[Experiment("o"), Experiment("o")]),
        "experiments: duplicate name 'o'",
    ),
    ("duplicate QC names", lambda: study(quality_criteria=[QC, QC]), "quality_criteria: duplicate name 'Fluency'"),
    ("empty study id", lambda: study(id=" "), "study id: must be a non-empty text"),
    (
        "scale maximum below minimum",
        lambda: QualityCriterion("Q", 5, 1),
        "scale_max (1.0) must be above scale_min (5.0)",
    ),
    ("unknown role", lambda: Experiment("e", role="replicate"), "role must be one of ('original', 'repeat')"),
    ("missing label", lambda: study(labels={("Fluency", "A", "i1", "o"): None}), "label is missing or not finite"),
    (
        "a finding comparing a system with itself",
        lambda: study(findings={("Fluency", "o", "A", "A"): 1}),
        "compares a system with itself",
    ),
    (
        "a property answer that is not an option",
        lambda: check_properties({"H4.2.2": {"Fluency": "Both"}}, ["Fluency"]),
        "'Both' is not an option of H4.2.2",
    ),
    ("assessment with one experiment", lambda: qw.assess(study()), "at least two experiments, got 1"),
    # tables (CSV / Excel)
    (
        "CSV with the wrong columns",
        lambda: read_table(csv("exp,qc,system,score\nA,Q,s,1\n"), "x.csv", SCORE_COLUMNS),
        "x.csv: missing column(s) ['experiment', 'quality_criterion']",
    ),
    (
        "CSV with the wrong delimiter",
        lambda: read_table(csv(GOOD_CSV.replace(",", "|")), "x.csv", SCORE_COLUMNS),
        "x.csv: missing column(s)",
    ),
    (
        "CSV with a header only",
        lambda: read_table(csv("experiment,quality_criterion,system,score\n"), "x.csv", SCORE_COLUMNS),
        "x.csv: has a header but no rows",
    ),
    (
        "CSV in a legacy encoding",
        lambda: read_table(
            "experiment,quality_criterion,system,score\nA,Q,Système,1\n".encode("latin-1"), "x.csv", SCORE_COLUMNS
        ),
        "x.csv: is not UTF-8 text (byte 0xe8",
    ),
    (
        "CSV mixing encodings",
        lambda: read_table(csv(GOOD_CSV) + "A,Q,s3,é\n".encode("cp1252"), "x.csv", SCORE_COLUMNS),
        "is not UTF-8 text",
    ),
    (
        "CSV with broken quoting",
        lambda: read_table(csv('experiment,quality_criterion,system,score\n"A,Q,s,1\n'), "x.csv", SCORE_COLUMNS),
        'x.csv: row 2: cannot be read as CSV (unexpected end of data); is a quote (") left open?',
    ),
    (
        "broken Excel file",
        lambda: read_table(b"PK\x03\x04 not really a workbook", "x.xlsx", SCORE_COLUMNS, excel=True),
        "x.xlsx: is not a valid .xlsx/.zip file (File is not a zip file)",
    ),
    # JSON
    (
        "JSON with the wrong schema version",
        lambda: study_from_json('{"schema": "qra-widgets/study", "version": 9, "id": "x"}'),
        "version: 9 is not supported",
    ),
    (
        "JSON with a wrong type",
        lambda: study_from_json(SCHEMA + ', "systems": [1, 2]}'),
        "system name: must be a non-empty text, got 1",
    ),
    (
        "JSON score of the wrong type",
        lambda: study_from_json(
            SCHEMA + ', "quality_criteria": [{"name": "Q"}], "systems": ["a"], '
            '"experiments": [{"id": "e"}], "scores": [{"quality_criterion": "Q", '
            '"system": "a", "experiment": "e", "score": "high"}]}'
        ),
        "scores[0].score: expected int/float, got str",
    ),
    ("truncated JSON", lambda: study_from_json(SCHEMA), "not valid JSON"),
    ("JSON that is not an object", lambda: study_from_json("[1, 2]"), "expected a JSON object at the top level"),
    # HEDS
    (
        "HEDS from a different form version",
        lambda: heds_from_dict({"form": "HEDS 3", "questions": {}}),
        "not a HEDS 2 datasheet",
    ),
    (
        "HEDS entry of the wrong shape",
        lambda: heds_from_dict({"heds-system-tasks-1": True}),
        "key 'heds-system-tasks-1' should hold",
    ),
    ("truncated HEDS file", lambda: heds_from_bytes(b'{"heds-system-tasks-1": {"data"'), "not valid JSON"),
    # size
    (
        "oversized table",
        lambda: read_table(b"x" * (20 * 2**20 + 1), "big.csv", SCORE_COLUMNS),
        "big.csv: is 20.0 MiB; the limit is 20 MiB",
    ),
]


@pytest.mark.parametrize("case, action, message", CATALOGUE, ids=[c[0] for c in CATALOGUE])
def test_each_bad_input_is_refused_with_a_message_naming_the_problem(case, action, message):
    with pytest.raises(QRAInputError) as caught:
        action()
    assert message in str(caught.value), f"{case}: {caught.value}"


def test_catalogue_has_at_least_forty_cases():
    assert len(CATALOGUE) >= 40


def test_csv_with_bom_and_windows_line_endings_is_fine():
    frame = read_table(b"\xef\xbb\xbf" + GOOD_CSV.replace("\n", "\r\n").encode(), "x.csv", SCORE_COLUMNS)
    assert list(frame.columns) == list(SCORE_COLUMNS) and len(frame) == 4


def test_mean_of_zero_after_shift_is_nan_with_a_reason():
    with pytest.warns(UndefinedMeasureWarning, match="mean of the \\(shifted\\) values is 0"):
        assert math.isnan(m.cv_star([1, 1], scale_min=1).cv_star)
    result = qw.assess(study(scores={("Fluency", s, e): 1.0 for s in "AB" for e in ("o", "r")}))
    row = result.to_frame().query("measure == 'CV*' and level == 'system'").iloc[0]
    assert math.isnan(row.value) and "mean of the (shifted) values is 0" in row.note


def test_names_with_html_render_as_text_in_every_export():
    s = study(
        systems=["<b>A</b>", "B & C"], scores={("Fluency", "<b>A</b>", e): v for e, v in (("o", 3.0), ("r", 3.5))}
    )
    s.name = "A & B_50% {x}"
    result = qw.assess(s)
    assert "<b>A</b>" not in result._repr_html_() and "&lt;b&gt;A&lt;/b&gt;" in result._repr_html_()
    assert "A \\& B\\_50\\% \\{x\\}" in result.to_latex()
    assert (
        "<b>" not in result.to_markdown() and "&lt;b&gt;A&lt;/b&gt;" in result.to_markdown()
    )  # entities: renderers show HTML
    assert json.loads(result.to_json())["results"][1]["system"] == "<b>A</b>"  # data formats keep the name as data


@pytest.mark.parametrize("name", ["../../etc/passwd", "a/b\\c", "..", "con:nul", "/abs/path", "Study name"])
def test_names_with_path_separators_never_escape_into_file_names(name):
    for cleaned in (_safe_file_name(name), safe_file_stem(name)):
        assert "/" not in cleaned and "\\" not in cleaned and ":" not in cleaned and cleaned not in ("", ".", "..")


# ----------------------------------------------------------------------------- property-based


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(studies(), st.data())
def test_assess_and_exporters_raise_only_qra_input_errors(random_study, data):
    # adversarial values: huge, tiny, equal, at the scale minimum
    for key in list(random_study.scores)[: data.draw(st.integers(0, 5))]:
        qc = random_study.quality_criterion(key[0])
        random_study.scores[key] = qc.scale_min + data.draw(st.sampled_from([0.0, 1e-300, 1e300, 1.0]))
    try:
        result = qw.assess(random_study)
    except QRAInputError:
        return
    for export in (
        result.to_markdown,
        result.to_latex,
        result.to_csv,
        result.to_json,
        result._repr_html_,
        result.table,
    ):
        export()
    for qc, system in result.cv:
        result.narrative(qc, system)
    assert study_from_json(study_to_json(random_study)) == random_study


@settings(max_examples=80, deadline=None)
@given(st.binary(max_size=400))
def test_loaders_raise_only_qra_input_errors_on_random_bytes(data):
    for load in (
        lambda: study_from_json(data),
        lambda: read_table(data, "x.csv", SCORE_COLUMNS),
        lambda: heds_from_bytes(data),
    ):
        try:
            load()
        except QRAInputError:
            pass


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300))
def test_loaders_raise_only_qra_input_errors_on_random_text(text):
    candidates = [text, SCHEMA + text, '{"schema": "qra-widgets/study", "version": 1, ' + text]
    for candidate in candidates:
        try:
            study_from_json(candidate)
        except QRAInputError:
            pass
        try:
            read_table(candidate.encode("utf-8"), "x.csv", SCORE_COLUMNS)
        except QRAInputError:
            pass


def test_load_study_on_a_directory_and_a_missing_file(tmp_path):
    with pytest.raises(QRAInputError, match="is a folder, not a file"):
        qw.load_study(tmp_path)
    with pytest.raises(QRAInputError, match="no such file"):
        qw.load_study(Path(tmp_path) / "missing.json")
