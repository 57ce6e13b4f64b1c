"""CSV written by ``qra-widgets report --format csv`` is safe to open in a spreadsheet on every
pandas: a system or criterion name that a spreadsheet would run as a formula is
written as text (a leading ``'``), whatever dtype pandas gives the text column (``object`` on
pandas 2, the ``str`` dtype on pandas 3), and numbers are never touched."""

import csv
import io

import pandas as pd

from qra_widgets.cli import main

FORMULA = '=HYPERLINK("http://example.invalid/x","click")'


def test_report_csv_writes_a_formula_system_name_as_text(tmp_path, capsys):
    study = tmp_path / "study.csv"
    rows = [
        ("A", "+Fluency", FORMULA, 3.1),
        ("A", "+Fluency", "GeDi", 2.5),
        ("B", "+Fluency", FORMULA, 3.4),
        ("B", "+Fluency", "GeDi", 2.2),
        ("C", "+Fluency", FORMULA, 3.0),
        ("C", "+Fluency", "GeDi", 2.0),
    ]
    study.write_text(
        "experiment,quality_criterion,system,score\n"
        + "".join(f'{e},{q},"{s.replace(chr(34), chr(34) * 2)}",{v}\n' for e, q, s, v in rows),
        encoding="utf-8",
    )
    assert main(["report", str(study), "--format", "csv", "--scale-min", "1"]) == 0
    out = capsys.readouterr().out
    cells = [cell for row in csv.reader(io.StringIO(out)) for cell in row]
    assert "'" + FORMULA in cells and "'+Fluency" in cells
    assert not [cell for cell in cells if cell.startswith(("=", "+", "@"))]
    # the numbers stay numbers: the CV* of the formula-named system is in the value column
    frame = pd.read_csv(io.StringIO(out.split("\n\n")[0]), comment="#")  # the signature lines first
    assert (
        frame.loc[(frame.system == "'" + FORMULA) & (frame.level == "system") & (frame.measure == "CV*"), "value"]
        .notna()
        .all()
    )
    assert pd.api.types.is_float_dtype(frame["value"])


def test_the_text_columns_of_the_tidy_frame_are_the_ones_neutralised():
    """The test above means something on this pandas: the system column is text of the dtype
    this pandas gives text (``str`` on pandas 3), and the neutralised copy escapes it."""
    from qra_widgets.report.csvsafe import safe_frame

    frame = pd.DataFrame({"system": [FORMULA, "GeDi"], "value": [-0.5, 1.0]})
    if int(pd.__version__.split(".")[0]) >= 3:
        assert str(frame["system"].dtype) == "str"
    assert safe_frame(frame)["system"].tolist() == ["'" + FORMULA, "GeDi"]
    assert safe_frame(frame)["value"].tolist() == [-0.5, 1.0]
