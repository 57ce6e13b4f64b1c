"""JSON whose ``"records"`` path reaches an object of records (issue 29): each value is one record,
its key the column value ``{"key": true}``.  The shape of the QAMPARI team's tau files
(``{"C1": {"Vstrict": {"run": 0.887, ...}, ...}, ...}``); the field test reads the real ones
(tests/field/test_field_label_studies.py).  Also: nulls are missing values, hostile objects are
refused by the existing caps, and a key is escaped in every output."""

from __future__ import annotations

import csv
import io
import json

import pytest

import qra_widgets as qw
from qra_widgets.io.annotations import load_annotations
from qra_widgets.limits import MAX_JSON_DEPTH, MAX_ROWS
from qra_widgets.report.csvsafe import safe_cell
from qra_widgets.report.escape import latex, markdown_cell

COLUMNS = {"system": {"key": True}, "item": {"key": True}, "criteria": {"Vstrict_run": "Vstrict.run"}}


def spec(columns=None, records="original_kendall", criteria=None, **entry):
    columns = columns or COLUMNS
    return {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "object-records",
        "quality_criteria": criteria
        or [{"name": "Vstrict_run", "scale_min": -1, "scale_max": 1, "evaluation_type": "metric"}],
        "conventions": {"name": "qrapp", "scale_shift": False},
        "experiments": [
            {"id": e, "role": role, "file": f"{e}.json", "records": records, "columns": columns, **entry}
            for e, role in (("O", "original"), ("R", "repeat"))
        ],
    }


def kendall(values: dict) -> bytes:
    """A file shaped as the team's: unit -> metric -> level -> tau."""
    return json.dumps(
        {"notes": "unknowns remain null", "original_kendall": {c: {"Vstrict": {"run": v}} for c, v in values.items()}}
    ).encode()


def test_each_value_of_the_object_is_a_record_and_its_key_a_column():
    files = {"O.json": kendall({"C1": 0.887, "C2": 0.727}), "R.json": kendall({"C1": 0.81, "C2": 0.81})}
    study = load_annotations(spec(), files=files)
    assert study.systems == ["C1", "C2"]
    assert study.scores == {
        ("Vstrict_run", "C1", "O"): 0.887,
        ("Vstrict_run", "C2", "O"): 0.727,
        ("Vstrict_run", "C1", "R"): 0.81,
        ("Vstrict_run", "C2", "R"): 0.81,
    }
    # QAMPARI's qra_type_i_by_qc.csv: Vstrict run C1, 0.887 / 0.81 -> 9.047661451661178
    assert qw.assess(study).value("CV*", "system", "Vstrict_run", "C1") == pytest.approx(9.047661451661178, rel=1e-12)


def test_a_null_is_a_missing_value():
    """original_qra_spec.json: "Known values are pre-filled ...; unknowns remain null"."""
    files = {"O.json": kendall({"C1": 0.887, "C2": None}), "R.json": kendall({"C1": 0.81, "C2": 0.81})}
    study = load_annotations(spec(), files=files)
    assert ("Vstrict_run", "C2", "O") not in study.scores and study.scores[("Vstrict_run", "C2", "R")] == 0.81
    frame = qw.assess(study).to_frame()
    c2 = frame[(frame.measure == "CV*") & (frame.system == "C2")].iloc[0]
    assert (c2.n, c2.note) == (1, "CV* needs at least 2 values")


def test_explode_inside_an_object_of_records_keeps_each_rows_key():
    document = json.dumps({"units": {"A": {"ann": [{"q": 3}, {"q": 4}]}, "B": {"ann": [{"q": 2}]}}}).encode()
    columns = {"system": {"key": True}, "item": {"key": True}, "rater": {"index": "ann"}, "criteria": {"Q": "ann.q"}}
    criteria = [{"name": "Q", "scale_min": 1, "scale_max": 5}]
    study = load_annotations(
        spec(columns, records="units", criteria=criteria, explode="ann"),
        files={"O.json": document, "R.json": document},
    )
    frame = study.ratings.frame()
    assert sorted(zip(frame.system, frame.rater, frame.rating)) == sorted(
        [("A", "0", 3.0), ("A", "1", 4.0), ("B", "0", 2.0)] * 2
    )


def test_key_needs_an_object_of_records_and_true():
    listed = json.dumps({"original_kendall": [{"Vstrict": {"run": 0.5}}]}).encode()
    with pytest.raises(qw.QRAInputError, match=r'O.json: system is \{"key": true\}, but the records are not an object'):
        load_annotations(spec(), files={"O.json": listed, "R.json": listed})
    wrong = {**COLUMNS, "system": {"key": "name"}}
    with pytest.raises(qw.QRAInputError, match=r"columns.system.key: expected true"):
        load_annotations(spec(wrong), files={})
    scalar = json.dumps({"original_kendall": {"C1": 0.5}}).encode()
    with pytest.raises(qw.QRAInputError, match=r"O.json: record 'C1' is not an object"):
        load_annotations(spec(), files={"O.json": scalar, "R.json": scalar})


def test_an_object_with_about_a_million_keys_is_refused_by_the_caps():
    """An object of 2^20 + 1 records (about 10^6; 13 MiB, under the file-size cap): one key a line
    stops at the row cap before a record is read; on one line, at the line-length cap."""
    keys = [f'"{k}":{{}}' for k in range(MAX_ROWS + 1)]
    for joined, message in (
        (",\n", rf"has more than {MAX_ROWS:,} rows"),
        (",", r"line 1 is .* MiB long; the limit is 1 MiB per line \(write the JSON with line breaks"),
    ):
        document = ('{"original_kendall": {' + joined.join(keys) + "}}").encode()
        with pytest.raises(qw.QRAInputError, match=rf"O.json: {message}"):
            load_annotations(spec(), files={"O.json": document, "R.json": document})


def test_deep_nesting_is_refused_by_the_depth_cap():
    deep = '{"a": ' * (MAX_JSON_DEPTH + 5) + "{}" + "}" * (MAX_JSON_DEPTH + 5)
    document = ('{"original_kendall": {"C1": ' + deep + "}}").encode()
    with pytest.raises(qw.QRAInputError, match=r"O.json: .*nest"):
        load_annotations(spec(), files={"O.json": document, "R.json": document})


HOSTILE = '=HYPERLINK("http://x.invalid","y")\n| row | <b>&amp;</b> \\input{secret} #'


def test_a_key_with_formula_characters_and_a_newline_is_escaped_in_every_output():
    files = {
        "O.json": json.dumps({"t": {HOSTILE: {"q": 3}, "C2": {"q": 4}}}).encode(),
        "R.json": json.dumps({"t": {HOSTILE: {"q": 4}, "C2": {"q": 4}}}).encode(),
    }
    columns = {"system": {"key": True}, "item": {"key": True}, "criteria": {"Q": "q"}}
    study = load_annotations(
        spec(columns, records="t", criteria=[{"name": "Q", "scale_min": 1, "scale_max": 5}]), files=files
    )
    assert HOSTILE in study.systems
    result = qw.assess(study)
    # CSV: the cell reads back as the key behind a leading ' (csvsafe), never as a formula
    rows = list(csv.reader(io.StringIO(result.to_csv().split("\n\n")[0]), strict=True))
    cells = [cell for row in rows for cell in row if "HYPERLINK" in cell]
    assert cells and all(cell == safe_cell(HOSTILE) and cell.startswith("'") for cell in cells)
    # Markdown: one table row per value (no raw newline or |), the escaper's text
    markdown = result.to_markdown()
    assert markdown_cell(HOSTILE) in markdown and HOSTILE not in markdown
    assert not any(line.startswith("row") for line in markdown.splitlines())
    # LaTeX: the escaper's text; no \input reaches the document
    tex = result.to_latex()
    assert latex(HOSTILE) in tex and "\\input{secret}" not in tex
    # HTML: no live tag, no raw newline inside the name
    html = result._repr_html_()
    assert "<b>" not in html and "HYPERLINK" in html
    # JSON: the key exactly, as a JSON string
    records = json.loads(result.to_json())["results"]
    assert HOSTILE in {r["system"] for r in records}
