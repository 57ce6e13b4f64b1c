"""The CSV writer: plain frames are written by the standard library's csv writer, and the text is
exactly what pandas' ``to_csv`` writes for the same (neutralised) frame."""

from __future__ import annotations

import csv
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qra_widgets as qw
from qra_widgets.examples import load as load_example
from qra_widgets.report.csvsafe import _cells, columns_to_csv, frame_to_csv, safe_frame

TEXT = st.text(alphabet=st.sampled_from(list("ab ,;\"'\n\r\t=+-@.0123456789eé|") + ["\u2028"]), max_size=8)
FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.1, -0.0, 1e-5, 1e16, 123456789.125, 5e-324])
)


def columns(rows: int):
    """One column of each kind the writer handles itself."""
    return st.fixed_dictionaries(
        {
            "text": st.lists(st.one_of(TEXT, st.none()), min_size=rows, max_size=rows).map(
                lambda v: pd.Series(v, dtype="str")
            ),
            "float": st.lists(FLOATS, min_size=rows, max_size=rows).map(lambda v: np.array(v, dtype=float)),
            "int": st.lists(st.integers(-(2**63), 2**63 - 1), min_size=rows, max_size=rows).map(
                lambda v: np.array(v, dtype=np.int64)
            ),
            "Int64": st.lists(st.one_of(st.integers(-(10**12), 10**12), st.none()), min_size=rows, max_size=rows).map(
                lambda v: pd.array(v, dtype="Int64")
            ),
            "bool": st.lists(st.booleans(), min_size=rows, max_size=rows).map(lambda v: np.array(v, dtype=bool)),
            "boolean": st.lists(st.one_of(st.booleans(), st.none()), min_size=rows, max_size=rows).map(
                lambda v: pd.array(v, dtype="boolean")
            ),
            "object": st.lists(
                st.one_of(TEXT, st.none(), FLOATS, st.integers(), st.just(pd.NA), st.lists(st.integers(), max_size=2)),
                min_size=rows,
                max_size=rows,
            ).map(lambda v: pd.Series(v, dtype=object)),
            "category": st.lists(st.sampled_from(["=x", "b", "c,d"]), min_size=rows, max_size=rows).map(pd.Categorical),
            "names": st.lists(st.one_of(TEXT, st.none()), min_size=rows, max_size=rows),  # a list of texts, as given
        }
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 6).flatmap(columns))
def test_the_csv_writer_writes_exactly_what_pandas_writes(data):
    frame = pd.DataFrame(data)
    assert all(_cells(frame[name]) is not None for name in frame)  # written by the csv module, not handed to pandas
    assert frame_to_csv(frame) == safe_frame(frame).to_csv(index=False)
    assert columns_to_csv(data) == frame_to_csv(frame)  # the same text without making the frame
    for name in frame.columns:  # one column: an empty cell alone on its line is quoted ("")
        assert frame_to_csv(frame[[name]]) == safe_frame(frame[[name]]).to_csv(index=False)
    quoted = {"quoting": csv.QUOTE_NONNUMERIC}  # the assessment's own CSV quotes every text cell
    assert frame_to_csv(frame, **quoted) == safe_frame(frame).to_csv(index=False, **quoted)
    assert columns_to_csv(data, nonnumeric=True) == frame_to_csv(frame, **quoted)


@pytest.mark.parametrize(
    "name", ["qrapp_example1", "belz2021_torc", "qra2022_essay_scoring", "qrapp_table4_illustrative"]
)
def test_the_tidy_frames_csv_is_pandas_csv(name):
    result = qw.assess(load_example(name), bootstrap=30, seed=1)
    frame = result.to_frame()
    assert frame_to_csv(frame) == safe_frame(frame).to_csv(index=False) == columns_to_csv(result._columns())
    assert ",Int64" not in frame_to_csv(frame) and frame_to_csv(frame).count("\n") == len(frame) + 1
    quoted = safe_frame(frame).to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC)
    assert result.to_csv().split("\n", 2)[2].startswith(quoted)  # after the signature and citation lines


def test_other_kinds_of_column_and_options_go_through_pandas():
    dated = pd.DataFrame({"when": pd.to_datetime(["2024-05-01", None]), "x": ["=a", "b"]})
    assert _cells(dated["when"]) is None
    assert frame_to_csv(dated) == "when,x\n2024-05-01,'=a\n,b\n"
    assert frame_to_csv(pd.DataFrame({"v": [0.5, math.nan]}), na_rep="NA") == "v\n0.5\nNA\n"
    assert frame_to_csv(pd.DataFrame({"v": pd.array([0.5, None], dtype="Float64")})) == 'v\n0.5\n""\n'
