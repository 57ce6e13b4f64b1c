"""``report --format json`` writes every number at full precision (issue 29 item 10): pandas'
``to_json`` rounded to 10 decimals, so QAMPARI's Vstrict/run C1 CV* (ReproNLP 2026,
MoJa-Ardestani ``qra_type_i_by_qc.csv``: 9.047661451661178) came out as 9.0476614517 where the
CSV and the library give 9.04766145166118x."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

import qra_widgets as qw
from qra_widgets.cli import main


def _study(tmp_path):
    path = tmp_path / "tau.csv"
    path.write_text(
        "experiment,quality_criterion,system,score,scale_min,scale_max\n"
        "O,Vstrict_run,C1,0.887,-1,1\nR,Vstrict_run,C1,0.81,-1,1\n"
        "O,Vstrict_run,C2,0.727,-1,1\nR,Vstrict_run,C2,0.81,-1,1\n"
    )
    return path


def test_json_report_numbers_read_back_as_the_librarys_floats(tmp_path, capsys):
    path = _study(tmp_path)
    conventions = '{"name": "qrapp", "scale_shift": false}'
    assert main(["report", str(path), "--format", "json", "--conventions", conventions]) == 0
    data = json.loads(capsys.readouterr().out)
    result = qw.assess(qw.load_study(path), conventions=qw.conventions.Conventions.from_dict(json.loads(conventions)))
    expected = result.to_frame()
    assert len(data["results"]) == len(expected)
    for got, (_, want) in zip(data["results"], expected.iterrows()):
        if pd.isna(want.value):
            assert got["value"] is None
        else:
            assert got["value"] == want.value  # exactly: the same float, not rounded to 10 decimals
    written = pd.DataFrame(data["results"])
    c1 = written[(written.measure == "CV*") & (written.system == "C1")].value.iloc[0]
    assert abs(c1 - 9.047661451661178) < 1e-13  # the team's printed value
    assert round(c1, 10) != c1  # more than 10 decimals survive


def test_json_report_still_writes_missing_values_as_null(tmp_path):
    path = _study(tmp_path)
    text = qw.assess(qw.load_study(path)).to_json()
    data = json.loads(text)
    assert all(isinstance(r["value"], float) or r["value"] is None for r in data["results"])
    assert not any(isinstance(r["value"], float) and np.isnan(r["value"]) for r in data["results"])
