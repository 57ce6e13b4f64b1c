"""Intraclass correlations (qra_widgets.measures.icc) against pingouin's intraclass_corr, as fixed data."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import qra_widgets as qw
from qra_widgets.errors import QRAInputError, UndefinedMeasureWarning
from qra_widgets.measures.icc import ICC_TYPES, icc_matrix
from qra_widgets.ratings import Ratings, annotator_agreement
from qra_widgets.study import Experiment, QualityCriterion, Study

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "reference" / "pingouin_icc.json").read_text())


@pytest.mark.parametrize("case", REFERENCE["sets"], ids=lambda c: c["name"])
def test_icc_equals_pingouin_intraclass_corr_to_1e9(case):
    # made by tests/data/reference/make_icc_reference.py with pingouin 0.7.0 (intervals unrounded)
    frame = pd.DataFrame(case["ratings"])
    ours = qw.icc(frame, item="item", rater="rater", value="value")
    assert list(ours.index) == list(ICC_TYPES) == list(case["pingouin"])
    for kind, theirs in case["pingouin"].items():
        for column, value in theirs.items():
            assert ours.loc[kind, column] == pytest.approx(value, abs=1e-9, rel=1e-9), (kind, column)


def test_shrout_and_fleiss_table_2_values():
    # Shrout & Fleiss (1979), Table 2 data and the six values printed in their Table 4
    table2 = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    found = icc_matrix(table2)
    assert [round(found[t][0], 2) for t in ICC_TYPES] == [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]


def test_items_not_rated_by_every_rater_are_left_out_and_counted():
    frame = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4], "rater": list("abababa"), "value": [4, 5, 2, 2, 3, 4, 5.0]})
    found = qw.icc(frame, item="item", rater="rater", value="value")
    assert found.attrs == {"items": 3, "raters": 2, "items_left_out": 1, "ci": 0.95}
    complete = qw.icc(frame.iloc[:6], item="item", rater="rater", value="value")
    # equal up to rounding: which rows are summed first differs (pandas 2.1 sums in another order)
    assert found.icc.tolist() == pytest.approx(complete.icc.tolist(), rel=1e-12)


def test_icc_refuses_malformed_input_and_is_undefined_for_constant_ratings():
    frame = pd.DataFrame({"item": [1, 1, 2, 2], "rater": list("abab"), "value": [3, 3, 3, 3.0]})
    with pytest.warns(UndefinedMeasureWarning, match="intraclass correlation is undefined"):
        found = qw.icc(frame, item="item", rater="rater", value="value")
    assert found.icc.isna().all()
    with pytest.raises(QRAInputError, match="no column 'score'"):
        qw.icc(frame, item="item", rater="rater", value="score")
    with pytest.raises(QRAInputError, match="rated twice"):
        qw.icc(pd.concat([frame, frame.iloc[:1]]), item="item", rater="rater", value="value")


def test_annotator_agreement_lists_icc_for_interval_criteria_only():
    rng = np.random.default_rng(3)
    columns = {k: [] for k in ("qc", "system", "item", "experiment", "rater", "rating")}
    truth = rng.normal(50, 15, 12)
    for qc in ("Score", "Fluency"):
        for i, value in enumerate(truth):
            for r, bias in (("r1", 0.0), ("r2", 4.0), ("r3", -2.0)):
                columns["qc"].append(qc)
                columns["system"].append("A" if i < 6 else "B")
                columns["item"].append(f"i{i}")
                columns["experiment"].append("E1")
                columns["rater"].append(r)
                rating = value + bias + rng.normal(0, 5) if qc == "Score" else float(rng.integers(1, 6))
                columns["rating"].append(float(np.clip(round(rating), 0, 100)) if qc == "Score" else rating)
    ratings = Ratings.from_columns(*columns.values())
    study = Study(
        "icc",
        quality_criteria=[
            QualityCriterion("Score", scale_min=0, scale_max=100, label_level="interval"),
            QualityCriterion("Fluency", scale_min=1, scale_max=5, label_level="ordinal"),
        ],
        systems=["A", "B"],
        experiments=[Experiment("E1")],
        ratings=ratings,
    )
    frame = annotator_agreement(study)
    listed = frame[frame.measure.str.startswith("ICC")]
    assert set(listed.quality_criterion) == {"Score"} and list(listed.measure) == ["ICC2", "ICC2k"]
    wide = pd.DataFrame({"item": columns["item"][:36], "rater": columns["rater"][:36], "value": columns["rating"][:36]})
    expected = qw.icc(wide, item="item", rater="rater", value="value")
    assert listed.value.tolist() == pytest.approx(expected.loc[["ICC2", "ICC2k"], "icc"].tolist(), abs=1e-12)
    assert (listed.n_items == 12).all() and (listed.n_raters == 3).all() and not math.isnan(listed.value.iloc[0])
