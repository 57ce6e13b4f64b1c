"""Hostile files: resource caps, misleading table messages, metadata
that a JSON round trip would change, and formula cells in CSV exports.

Each refusal is a QRAInputError whose message names the file (row, column, field) and the
problem; each test asserts that message.
"""

import io
import json
import zipfile

import pandas as pd
import pytest

from qra_widgets import QRAInputError, Study, assess, load_study
from qra_widgets.io import (
    LABEL_COLUMNS,
    SCORE_COLUMNS,
    add_labels_table,
    read_table,
    reading,
    save_study,
    study_from_json,
    study_to_json,
)
from qra_widgets.labels import Labels
from qra_widgets.report.csvsafe import frame_to_csv, safe_cell
from qra_widgets.study import Experiment, QualityCriterion

HEADER = b"experiment,quality_criterion,system,score\n"


def refusal(call, *args, **options) -> str:
    """The message of the QRAInputError that ``call(*args, **options)`` raises; the test fails if it raises none."""
    with pytest.raises(QRAInputError) as caught:
        call(*args, **options)
    return str(caught.value)


def workbook(*sheets) -> bytes:
    """An .xlsx with the given sheets, each a list of rows."""
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    for index, rows in enumerate(sheets):
        sheet = book.create_sheet(f"Sheet{index + 1}")
        for row in rows:
            sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


SCORES = [["experiment", "quality_criterion", "system", "score"], ["A", "Q", "s1", 3], ["B", "Q", "s1", 3.5]]


# ----------------------------------------------------------------------------- zip bombs and caps


def test_a_zip_bomb_xlsx_is_refused_from_its_directory(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/worksheets/sheet1.xml", "<row/>" * 2_000_000)  # 12 MB of XML, a few KiB packed
    path = tmp_path / "bomb.xlsx"
    path.write_bytes(buffer.getvalue())
    assert path.stat().st_size < 100_000
    with pytest.raises(
        QRAInputError,
        match=r"^bomb.xlsx: xl/worksheets/sheet1.xml unpacks to 11.4 MiB from \d+ KiB "
        r"\(ratio \d+ > 100\); refused as a zip bomb$",
    ):
        load_study(path)


def test_the_total_unpacked_size_is_capped(monkeypatch):
    data = workbook(SCORES)
    monkeypatch.setattr(reading, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(QRAInputError, match=r"^s.xlsx: unpacks to 0 MiB; the limit is 0 MiB$"):
        read_table(data, "s.xlsx", SCORE_COLUMNS, excel=True)


def test_a_plain_workbook_passes_the_zip_check():
    frame = read_table(workbook(SCORES), "s.xlsx", SCORE_COLUMNS, excel=True)
    assert frame.to_dict("records") == [
        {"experiment": "A", "quality_criterion": "Q", "system": "s1", "score": "3"},
        {"experiment": "B", "quality_criterion": "Q", "system": "s1", "score": "3.5"},
    ]


def test_rows_and_columns_are_capped(monkeypatch):
    monkeypatch.setattr(reading, "MAX_ROWS", 3)
    rows = HEADER + b"".join(b"A,Q,s%d,1\n" % i for i in range(4))
    with pytest.raises(QRAInputError, match=r"^x.csv: has more than 3 rows; the limit is 3$"):
        read_table(rows, "x.csv", SCORE_COLUMNS)
    with pytest.raises(QRAInputError, match=r"^x.xlsx: has more than 3 rows; the limit is 3$"):
        read_table(workbook(SCORES + SCORES[1:] * 2), "x.xlsx", SCORE_COLUMNS, excel=True)
    wide = (",".join(f"c{i}" for i in range(1001)) + "\n").encode()
    with pytest.raises(QRAInputError, match=r"^w.csv: has 1,001 columns; the limit is 1,000$"):
        read_table(wide, "w.csv", SCORE_COLUMNS)


@pytest.mark.parametrize("depth", [65, 100_000])
def test_deeply_nested_json_is_refused(depth):
    with pytest.raises(QRAInputError, match=r"^deep.json: JSON nested more than 64 levels deep$"):
        study_from_json("[" * depth + "]" * depth, "deep.json")


def test_json_at_the_depth_limit_parses():
    assert reading.load_json("[" * 64 + "]" * 64, "ok.json") is not None


def test_a_400_digit_integer_is_refused_before_it_is_converted(qrapp_example1):
    text = study_to_json(qrapp_example1).replace('"score": 3.71', '"score": ' + "9" * 400, 1)
    with pytest.raises(
        QRAInputError, match=r"^big.json: the integer 999999999999\.\.\. has 400 digits; the limit is 20$"
    ):
        study_from_json(text, "big.json")
    assert reading.load_json("1" * 20, "ok.json") == int("1" * 20)


def test_numbers_beyond_the_float_range_are_refused():
    with pytest.raises(QRAInputError, match=r"^x.json: the number 1e400 is too large for a floating-point number$"):
        reading.load_json('{"a": 1e400}', "x.json")


def test_nan_in_a_study_files_metadata_is_refused_on_load(tmp_path, qrapp_example1):
    data = json.loads(study_to_json(qrapp_example1))
    data["metadata"] = {"note": float("nan")}
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(data))  # json.dumps writes NaN, as many tools do
    with pytest.raises(QRAInputError, match=r"^nan.json: NaN is not valid JSON; write null for a missing value$"):
        load_study(path)


# ----------------------------------------------------------------------------- a round trip loses nothing


def test_metadata_keys_1_and_text_1_are_refused_not_merged():
    with pytest.raises(
        QRAInputError, match=r"^metadata: key 1 is not text; JSON keys are text, so 1 and '1' would become one key$"
    ):
        Study(id="x", metadata={1: "number", "1": "text"})
    with pytest.raises(QRAInputError, match=r"^metadata\['a'\]\[0\]: key 2 is not text"):
        Study(id="x", metadata={"a": [{2: "nested"}]})


def test_metadata_that_cannot_be_saved_is_refused_at_once(tmp_path, qrapp_example1):
    study = qrapp_example1
    study.metadata = {"sd": float("inf")}
    with pytest.raises(
        QRAInputError,
        match=r"^metadata\['sd'\]: inf cannot be saved \(JSON has no NaN or infinity\); use null or text$",
    ):
        study.validate()
    study.metadata = {"when": {1, 2}}
    with pytest.raises(QRAInputError, match=r"^metadata\['when'\]: set values cannot be saved as JSON"):
        study.validate()
    study.metadata = {"nested": {"a": [1, 2.5, None, True, "x"]}}
    save_study(study, tmp_path / "ok.json")
    assert load_study(tmp_path / "ok.json").metadata == study.metadata


def test_labels_from_columns_of_different_lengths_is_an_input_error():
    with pytest.raises(
        QRAInputError,
        match=r"^labels: the five columns differ in length \(\{'quality_criterion': 1, "
        r"'system': 1, 'item': 1, 'experiment': 1, 'label': 0\}\)$",
    ):
        Labels.from_columns(["Q"], ["s"], ["i"], ["A"], [])


# ----------------------------------------------------------------------------- messages name the real problem


@pytest.mark.parametrize(
    "data, message",
    [
        (
            HEADER.replace(b"\n", b",\n") + b"A,Q,s,1,\nB,Q,s,2,\n",
            "x.csv: column 5 has no name in the header row: every row ends with a delimiter (a trailing comma?); remove it",
        ),
        (
            HEADER + b"A,Q,s,1,\nB,Q,s,2,\n",
            "x.csv: row 2 has 5 fields but the header has 4: a trailing delimiter at the end of the row? remove it (or name the extra column)",
        ),
        (HEADER + b"A,Q,s,1\nB,Q,s\n", "x.csv: row 3 has 3 fields but the header has 4"),
        (HEADER + b"A,Q,s,1,2,3\n", "x.csv: row 2 has 6 fields but the header has 4"),
        (
            b"experiment,quality_criterion,system,score,Score\nA,Q,s,1,2\n",
            "x.csv: column 'score' appears twice in the header (columns 4 and 5); keep one",
        ),
    ],
)
def test_a_table_of_the_wrong_shape_is_refused_saying_which_row_or_column(data, message):
    assert refusal(read_table, data, "x.csv", SCORE_COLUMNS) == message


@pytest.mark.parametrize(
    "cell, message",
    [
        ("1_000", "x.csv: row 2, column 'score': '1_000' is not a number (remove the '_' digit separators)"),
        ("0x10", "x.csv: row 2, column 'score': '0x10' is not a number"),
        (
            "9" * 400,
            "x.csv: row 2, column 'score': '99999999999999999999...99999999' (400 characters) is not a finite number (too large)",
        ),
        ("nan", "x.csv: row 2, column 'score': 'nan' is not a finite number"),
    ],
)
def test_score_cells_are_plain_decimal_numbers(tmp_path, cell, message):
    path = tmp_path / "x.csv"
    path.write_bytes(HEADER + f"A,Q,s,{cell}\n".encode())
    assert refusal(load_study, path) == message


def test_a_label_too_large_for_a_float_is_refused(qrapp_example1):
    study = qrapp_example1
    table = read_table(
        b"experiment,quality_criterion,system,item,label\nAugust2022,Fluency,SVM,i1,1e400\n", "l.csv", LABEL_COLUMNS
    )
    with pytest.raises(
        QRAInputError, match=r"^l.csv: row 2, column 'label': '1e400' is not a finite number \(too large\)$"
    ):
        add_labels_table(study, table, "l.csv")
    assert len(study.labels) == 0


def test_a_second_excel_sheet_with_data_is_refused(tmp_path):
    path = tmp_path / "two.xlsx"
    path.write_bytes(workbook(SCORES, [["notes"], ["more scores here"]]))
    assert refusal(load_study, path) == (
        "two.xlsx: has data on more than one sheet ('Sheet1', then 'Sheet2'); "
        "qra-widgets reads one table: keep it on one sheet and remove or empty the others"
    )
    path.write_bytes(workbook(SCORES, []))  # an empty second sheet is harmless
    assert load_study(path, scale_min=1).scores == {("Q", "s1", "A"): 3.0, ("Q", "s1", "B"): 3.5}


def test_an_excel_value_beyond_the_named_columns_is_refused():
    rows = [SCORES[0], ["A", "Q", "s1", 3, "stray"]]
    with pytest.raises(QRAInputError, match=r"^x.xlsx: row 2 has a value \('stray'\) beyond the last named column"):
        read_table(workbook(rows), "x.xlsx", SCORE_COLUMNS, excel=True)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: p.mkdir(), "is a folder, not a file"),
        (lambda p: None, "no such file"),
    ],
)
def test_a_missing_file_or_a_folder_is_refused_naming_the_path(tmp_path, make, message):
    path = tmp_path / "study.json"
    make(path)
    assert refusal(load_study, path) == f"{path}: {message}"


def test_an_unreadable_file_is_refused_saying_why(tmp_path, monkeypatch):
    path = tmp_path / "study.json"
    path.write_text("{}")

    def denied(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(type(path), "read_bytes", denied)
    assert refusal(load_study, path) == f"{path}: cannot be read (Permission denied)"


def test_a_full_disk_leaves_the_old_file_and_says_so(tmp_path, monkeypatch, qrapp_example1):
    import errno

    from qra_widgets.io import study_json as study_io

    path = tmp_path / "study.json"
    path.write_text("old")

    def full(_descriptor):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(study_io.os, "fsync", full)
    assert refusal(save_study, qrapp_example1, path) == (
        f"{path}: cannot be written (No space left on device); the old file, if any, is unchanged"
    )
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["study.json"]


# ----------------------------------------------------------------------------- CSV injection (OWASP)


def formula_study() -> Study:
    systems = ['=HYPERLINK("http://evil","x")', "@SUM(A1)", "+cmd", "-2+3", "plain"]
    experiments = [Experiment("o", role="original"), Experiment("r")]
    scores = {
        ("Q", s, e): v
        for s, base in zip(systems, (2.0, 3.0, 4.0, 5.0, 6.0))
        for e, v in (("o", base), ("r", base + 0.5))
    }
    return Study(
        id="f", quality_criteria=[QualityCriterion("Q", 1, 10)], systems=systems, experiments=experiments, scores=scores
    )


def test_assessment_csv_neutralises_formula_cells_and_keeps_numbers():
    text = assess(formula_study()).to_csv()
    frame = pd.read_csv(io.StringIO(text), keep_default_na=False, comment="#")
    systems = set(frame.loc[frame.level == "system", "system"])
    assert systems == {'\'=HYPERLINK("http://evil","x")', "'@SUM(A1)", "'+cmd", "'-2+3", "plain"}
    assert not any(line.startswith(("=", "+", "-", "@")) or ",=" in line or ",@" in line for line in text.splitlines())
    assert pd.api.types.is_float_dtype(frame["value"])  # numbers stay numbers


def test_csv_cells_starting_a_formula_are_quoted_and_numbers_are_kept():
    assert [safe_cell(v) for v in ("=1", "+1a", "-x", "@x", "\tx", "\rx", "-0.5", "+3", "1e5", "ok", "")] == [
        "'=1",
        "'+1a",
        "'-x",
        "'@x",
        "'\tx",
        "'\rx",
        "-0.5",
        "+3",
        "1e5",
        "ok",
        "",
    ]
    assert safe_cell(-0.5) == -0.5 and safe_cell(None) is None
    out = frame_to_csv(pd.DataFrame({"=name": ["=1+1"], "v": [-0.5]}))
    assert out == "'=name,v\n'=1+1,-0.5\n"


def test_what_a_study_may_hold_matches_what_can_be_read_back(tmp_path, qrapp_example1):
    deepest = {}
    for _ in range(61):  # study object (1) > metadata (2) > "deep" (3) > 61 more levels = 64
        deepest = {"a": deepest}
    study = qrapp_example1
    study.metadata = {"deep": deepest, "big": 10**19}
    save_study(study, tmp_path / "deep.json")
    assert load_study(tmp_path / "deep.json").metadata == study.metadata
    study.metadata = {"deep": {"a": deepest}}
    with pytest.raises(
        QRAInputError, match=r"^metadata\['deep'\](\['a'\]){62}: nested more than 64 levels deep in the study file"
    ):
        study.validate()
    study.metadata = {"big": 10**20}
    with pytest.raises(
        QRAInputError, match=r"^metadata\['big'\]: an integer of 21 digits cannot be read back; the limit is 20"
    ):
        study.validate()


def test_a_large_study_in_the_library_is_not_held_to_the_file_size_limit(monkeypatch, tmp_path, qrapp_example1):
    from qra_widgets.store import StudyLibrary

    library = StudyLibrary(tmp_path / "lib.sqlite3")
    study = qrapp_example1
    library.save(study)
    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 100)  # the stored body is far larger
    assert library.open("qrapp-example1") == study


def test_the_suite_refuses_to_read_the_shared_data_folder():
    """tests/conftest.py's audit hook: reading ../shared (other than the field data named by
    $QRA_WIDGETS_FIELD_DATA) fails here as it would in a user's clone."""
    from conftest import REPOSITORY

    with pytest.raises(PermissionError, match="tests must not read outside the repository"):
        (REPOSITORY.parent / "shared" / "papers" / "000_3bb071b74378a137.txt").read_text(encoding="utf-8")


def test_an_integer_label_that_could_not_be_read_back_is_refused(tmp_path, qrapp_example1):
    study = qrapp_example1
    study.labels[("Fluency", "SVM", "i1", "August2022")] = 10**20
    with pytest.raises(
        QRAInputError,
        match=r"^label for item 'i1' of 'SVM' in experiment 'August2022' on 'Fluency': the integer "
        r"label 100000000000000000000 has more than 20 digits; use text or a float$",
    ):
        study.validate()
    study.labels[("Fluency", "SVM", "i1", "August2022")] = 10**19  # 20 digits: saved and read back unchanged
    save_study(study, tmp_path / "l.json")
    assert load_study(tmp_path / "l.json").labels[("Fluency", "SVM", "i1", "August2022")] == 10**19
