"""measures/kappa.py: Cohen's and Fleiss' kappa."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from measure_extremes import EXTREMES, kappa_pair, quiet

from qra_widgets import QRAInputError, UndefinedMeasureWarning
from qra_widgets import measures as m


def test_a_label_outside_the_declared_categories_is_refused():
    with pytest.raises(QRAInputError, match="label 5.0 is not one of the declared categories"):
        m.cohen_kappa([1, 2, 5], [1, 2, 3], categories=[1, 2, 3])


def test_empty_label_lists_are_refused():
    with pytest.raises(QRAInputError, match="are empty"):
        m.cohen_kappa([], [])


def test_unknown_kappa_weights_and_alpha_levels_are_refused():
    with pytest.raises(QRAInputError, match="weights: must be one of"):
        m.cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(QRAInputError, match="level: must be one of"):
        m.krippendorff_alpha([[1, 2], [1, 2]], level="circular")


def test_single_category_is_undefined():
    with pytest.warns(UndefinedMeasureWarning, match="chance agreement is 1"):
        assert math.isnan(m.cohen_kappa(["a", "a"], ["a", "a"]))
    with pytest.warns(UndefinedMeasureWarning, match="only one category is used, so there is no expected disagreement"):
        assert math.isnan(m.krippendorff_alpha([["a", "a"], ["a", "a"]]))


# ---------------------------------------------------------------------- at the extremes


def test_kappa_with_chance_agreement_near_one_matches_scikit_learn():
    """2 categories, 10^6 items, one disagreement.  The old code called chance
    agreement 0.999995 'exactly 1' and returned nan; scikit-learn gives 0.80."""
    from sklearn.metrics import cohen_kappa_score

    a, b = kappa_pair(10**6 - 3, 2, 0, 1)
    assert a.size == 10**6 and int((a != b).sum()) == 1
    expected = cohen_kappa_score(a, b)
    assert round(expected, 2) == 0.80
    assert m.cohen_kappa(a, b) == pytest.approx(expected, rel=1e-12)
    # exact: P_o = 1 - 10^-6; marginals a: 2/10^6 ones, b: 3/10^6 ones
    pa, pb = Fraction(2, 10**6), Fraction(3, 10**6)
    exact_kappa = 1 - Fraction(1, 10**6) / (pa * (1 - pb) + pb * (1 - pa))
    assert m.cohen_kappa(a, b) == pytest.approx(float(exact_kappa), rel=1e-12)
    for weights in ("linear", "quadratic"):  # with two categories every weighting is the identity
        assert m.cohen_kappa(a, b, weights=weights) == pytest.approx(float(exact_kappa), rel=1e-12)
    # the same two raters as a reliability matrix: Fleiss' kappa, exact value 1 - D_o / D_e
    exact = 1 - Fraction(1, 10**6) / (2 * Fraction(5, 2 * 10**6) * (1 - Fraction(5, 2 * 10**6)))
    assert m.fleiss_kappa(np.vstack([a, b])) == pytest.approx(float(exact), rel=1e-12)


@settings(EXTREMES, max_examples=15)
@given(st.integers(10, 10**5), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3),
       st.sampled_from([None, "linear", "quadratic"]))
def test_cohen_kappa_near_unanimity_matches_scikit_learn(common, rare_agree, a1_b0, a0_b1, weights):
    from sklearn.metrics import cohen_kappa_score

    a, b = kappa_pair(common, rare_agree, a1_b0, a0_b1)
    value, reasons = quiet(m.cohen_kappa, a, b, weights=weights)
    if len(np.union1d(a, b)) == 1:
        assert math.isnan(value) and reasons == ["kappa is undefined: only one category is used, so chance agreement is 1"]
    else:
        assert not reasons
        assert value == pytest.approx(cohen_kappa_score(a, b, weights=weights), rel=1e-9, abs=1e-12)
