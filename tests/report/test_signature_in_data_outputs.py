"""The data outputs (CSV and JSON) say how they were made and how to cite, as the Markdown, LaTeX
and HTML reports do, and read back with pandas: one writer for the library, the CLI, the site
and the app."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pandas as pd
import pytest
from exactcsv import read_csv_exact

import qra_widgets as qw
from qra_widgets import Study, examples
from qra_widgets.citation import cite_line
from qra_widgets.cli import main
from qra_widgets.version import __version__


def sharp_study() -> Study:
    """QRA++ Example 1's scores (QRA++ Table 3) under a system name holding a '#' and one a
    spreadsheet would run."""
    example = examples.load("qrapp_example1")
    renamed = {"SVM": "C# model", "GeDi": '=HYPERLINK("http://example.invalid")'}
    return Study(
        id="sharp",
        quality_criteria=example.quality_criteria,
        systems=[renamed.get(s, s) for s in example.systems],
        experiments=example.experiments,
        scores={(q, renamed.get(s, s), e): v for (q, s, e), v in example.scores.items()},
    )


def test_the_csv_starts_with_the_signature_and_the_citation():
    result = qw.assess(examples.load("qrapp_example1"))
    lines = result.to_csv().splitlines()
    assert (
        lines[0]
        == f"# signature: conventions:qrapp|version:{__version__}"
        == f"# signature: {result.conventions.signature()}"
    )
    assert lines[1] == f"# {cite_line()}" and "Belz, Popović & Mille (2022)" in lines[1]
    qra3 = qw.assess(examples.load("qrapp_example1"), conventions="qra3").to_csv().splitlines()[0]
    assert qra3.startswith("# signature: conventions:qra3|")


def test_pandas_reads_the_csv_back_with_comment_and_a_sharp_inside_a_name_survives():
    result = qw.assess(sharp_study(), bootstrap=200, seed=5, resample="systems")
    text = result.to_csv()
    back = read_csv_exact(io.StringIO(text), comment="#")
    frame = result.to_frame()
    assert list(back.columns) == list(frame.columns) and len(back) == len(frame)
    assert set(back.system.dropna()) == {
        "C# model",
        '\'=HYPERLINK("http://example.invalid")',
        "DExperts",
    }  # neutralised, not cut
    np.testing.assert_array_equal(back.value.to_numpy(), frame.value.to_numpy())  # floats round-trip exactly
    np.testing.assert_array_equal(back.ci_low.to_numpy(), frame.ci_low.to_numpy())
    assert pd.api.types.is_float_dtype(back.value) and back.ci_B.dropna().eq(200).all()
    assert back.ci_method.fillna("").tolist() == frame.ci_method.tolist()
    # the same file with skiprows: the two comment lines are always two
    assert read_csv_exact(io.StringIO(text), skiprows=2).equals(back)


def test_with_ratings_the_agreement_table_follows_a_blank_line_and_reads_back(vanmiltenburg2024):
    result = qw.assess(qw.load_annotations(vanmiltenburg2024 / "spec.json"), bootstrap=200, seed=2)
    results_block, agreement_block = result.to_csv().split("\n\n")
    assert pd.read_csv(io.StringIO(results_block), comment="#").shape == result.to_frame().shape
    agreement = read_csv_exact(io.StringIO(agreement_block))
    assert agreement.shape == result.annotator_agreement().shape
    assert agreement.value.tolist() == result.annotator_agreement().value.tolist()


def test_the_json_object_carries_signature_version_and_citation():
    result = qw.assess(examples.load("qrapp_example1"))
    data = json.loads(result.to_json())
    assert list(data) == ["signature", "version", "cite", "results", "annotator_agreement", "bootstrap"]
    assert (data["signature"], data["version"], data["cite"]) == (
        result.conventions.signature(),
        __version__,
        cite_line(),
    )
    assert (
        len(data["results"]) == len(result.to_frame()) and data["annotator_agreement"] == [] and data["bootstrap"] == {}
    )
    svm = next(r for r in data["results"] if r["measure"] == "CV*" and r["system"] == "SVM")
    assert (
        svm["value"] == pytest.approx(19.96, abs=0.005) and svm["ci_low"] is None and svm["ci_note"] == ""
    )  # QRA++ Table 3


def test_the_cli_prints_what_the_library_writes(capsys):
    result = qw.assess(examples.load("qrapp_example1"))
    assert main(["report", "--example", "qrapp_example1", "--format", "csv"]) == 0
    assert capsys.readouterr().out == result.to_csv()
    assert main(["report", "--example", "qrapp_example1", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(result.to_json())


def test_the_quoted_csv_still_has_no_formula_cell():
    cells = [cell for row in csv.reader(io.StringIO(qw.assess(sharp_study()).to_csv())) for cell in row]
    assert '\'=HYPERLINK("http://example.invalid")' in cells
    assert not [
        c for c in cells if c.startswith(("=", "+", "@")) or (c.startswith("-") and not c.lstrip("-")[:1].isdigit())
    ]


def test_the_site_downloads_are_the_library_outputs(tmp_path):
    from qra_widgets.io import save_study

    folder = tmp_path / "studies"
    folder.mkdir()
    save_study(examples.load("qrapp_example1"), folder / "example1.json")
    assert main(["site", str(folder), "--out", str(tmp_path / "site")]) == 0
    written = tmp_path / "site" / "studies" / "qrapp-example1.csv"  # the page's "results (CSV)" download
    assert written.read_text(encoding="utf-8") == qw.assess(examples.load("qrapp_example1")).to_csv()
