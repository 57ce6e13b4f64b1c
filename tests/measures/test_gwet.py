"""measures/gwet.py: percent and adjacent agreement, Gwet's AC1/AC2, Brennan-Prediger."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from measure_extremes import EXTREMES, exact_agreement, near_unanimous_counts, quiet

from qra_widgets import QRAInputError
from qra_widgets import measures as m


def test_label_lengths_must_match():
    with pytest.raises(QRAInputError, match="lengths differ \\(3 vs 2\\)"):
        m.gwet_ac([1, 2, 3], [1, 2])


def test_bp_counts_unused_categories_when_declared():
    """Y&C footnote 8: BP depends on the size of the scale, not only the labels used."""
    a, b = [1, 2, 1, 2], [1, 2, 2, 2]
    assert m.brennan_prediger(a, b) == pytest.approx((0.75 - 0.5) / 0.5)
    assert m.brennan_prediger(a, b, categories=[1, 2, 3, 4]) == pytest.approx((0.75 - 0.25) / 0.75)


def test_adjacent_agreement_counts_pairs_within_the_tolerance():
    a, b = [1, 2, 3, 5], [3, 2, 1, 4]
    assert m.adjacent_agreement(a, b, tolerance=0) == 0.25
    assert m.adjacent_agreement(a, b, tolerance=1) == 0.5
    assert m.adjacent_agreement(a, b, tolerance=2) == 1.0
    with pytest.raises(QRAInputError, match="tolerance"):
        m.adjacent_agreement(a, b, tolerance=-1)


def test_missing_labels_are_left_out_pairwise():
    assert m.percent_agreement([1, None, 3, 4], [1, 2, 3, np.nan]) == 1.0


# ---------------------------------------------------------------------- at the extremes


@EXTREMES
@given(near_unanimous_counts())
def test_fleiss_ac_bp_alpha_near_unanimity_match_exact_arithmetic(case):
    """Chance agreement within 1e-5 of 1: no digits lost, and undefined only structurally
    (every label in one category)."""
    patterns, multiplicity, q = case
    counts = m.CategoryCounts(np.repeat(patterns, multiplicity, axis=0), np.arange(q, dtype=float))
    exact = exact_agreement(patterns, multiplicity, q)
    assume(any(row.sum() >= 2 for row in patterns))
    for name, function in (("fleiss", m.fleiss_kappa), ("ac", m.gwet_ac), ("bp", m.brennan_prediger),
                           ("alpha", m.krippendorff_alpha)):
        value, reasons = quiet(function, counts)
        if exact[name] is None:
            assert math.isnan(value) and reasons and "only one category is used" in reasons[0]
        else:
            assert not reasons
            assert value == pytest.approx(float(exact[name]), rel=1e-9, abs=1e-12)


@EXTREMES
@given(st.integers(1, 1000), st.integers(0, 1), st.integers(0, 1))
def test_percent_and_adjacent_agreement_with_almost_nothing_paired(missing, label_a, label_b):
    """One item labelled by both among up to 1000 labelled by one only: defined, 0 or 1;
    none paired: undefined by construction."""
    a = np.concatenate([[label_a], np.full(missing, np.nan), np.ones(missing)])
    b = np.concatenate([[label_b], np.ones(missing), np.full(missing, np.nan)])
    assert m.percent_agreement(a, b) == float(label_a == label_b)
    assert m.adjacent_agreement(a, b, tolerance=0) == float(label_a == label_b)
    value, reasons = quiet(m.percent_agreement, a[1:], b[1:])
    assert math.isnan(value) and reasons == ["percent agreement is undefined: no item has labels from two raters"]
    value, reasons = quiet(m.adjacent_agreement, a[1:], b[1:])
    assert math.isnan(value) and reasons == ["adjacent agreement is undefined: no item has labels from two raters"]
