"""measures/concordance.py: Kendall's W (with its tie correction) and its p-value."""

from __future__ import annotations

import json
import math

import irrcac_cases as peers
import numpy as np
import pytest
from fielddata import field_path, needs_field_data
from hypothesis import given
from hypothesis import strategies as st
from measure_extremes import EXTREMES, exact_kendall_w, quiet
from scipy import stats

from qra_widgets import QRAInputError, UndefinedMeasureWarning
from qra_widgets import measures as m
from qra_widgets.measures.correlation import kendall_w_pvalue

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning"),
]

PUBLISHED = field_path("qra3", "output-4-studies", "Yao2022", "data.json")  # published field data


def test_kendall_w_with_ties_equals_the_hand_computed_tie_corrected_value():
    """Hand-computed: with ties the corrected W is above the uncorrected value."""
    scores = [[1.0, 1.0, 2.0, 3.0], [1.0, 2.0, 2.0, 3.0], [1.0, 2.0, 3.0, 3.0]]
    ranks = np.array([[1.5, 1.5, 3, 4], [1, 2.5, 2.5, 4], [1, 2, 3.5, 3.5]])
    sums = ranks.sum(axis=0)
    spread = ((sums - sums.mean()) ** 2).sum()
    expected = 12 * spread / (9 * 60 - 3 * (6 + 6 + 6))
    assert m.kendall_w(scores) == pytest.approx(expected)
    assert m.kendall_w(scores) > 12 * spread / (9 * 60)


def test_kendall_w_drops_incomplete_systems():
    assert m.kendall_w([[1, 2, 3, np.nan], [1, 2, 3, 9], [1, 2, 3, 1]]) == 1.0


def test_kendall_w_all_constant_is_undefined():
    with pytest.warns(UndefinedMeasureWarning, match="all values of each experiment are equal"):
        assert math.isnan(m.kendall_w([[1, 1, 1], [2, 2, 2]]))


@pytest.mark.parametrize(
    "scores, message",
    [
        ([[1, 2, 3]], "needs at least 2 experiments"),
        ([1, 2, 3], "expected a 2-D array"),
        ([[1, 2], [1, np.inf]], "infinite"),
        ([[1, "x"], [1, 2]], "'x' at position 1 is not a number"),
    ],
)
def test_kendall_w_refuses_a_bad_score_matrix_saying_why(scores, message):
    with pytest.raises(QRAInputError, match=message):
        m.kendall_w(scores)


@needs_field_data
def test_kendall_w_pvalue_is_qra3s_and_friedmans():
    """QRA3 Yao 2022: W = 1 over m = 4 experiments and n = 3 systems, chi2 = 8 on 2 df, p = exp(-4)."""
    data = json.loads(PUBLISHED.read_text())
    kendall = data["result_types"]["Type II"]["per_level_results"]["Criterion"]["criterion"]["Readability"][
        "per_measure_results"
    ]["kendall"]
    assert kendall_w_pvalue(kendall["measurements"], tie_correction=False, method="chi2") == pytest.approx(
        kendall["p"], abs=1e-15
    )
    assert kendall["p"] == pytest.approx(math.exp(-4), abs=1e-15)
    # with ties: the tie-corrected chi2 is Friedman's statistic (systems = treatments, experiments = blocks)
    tied = np.array([[1, 1, 2, 3], [1, 2, 2, 3], [1, 2, 3, 3], [2, 1, 3, 4]], dtype=float)
    friedman = stats.friedmanchisquare(*tied.T)
    assert kendall_w_pvalue(tied, method="chi2") == pytest.approx(friedman.pvalue, rel=1e-12)
    uncorrected = m.kendall_w(tied, tie_correction=False)
    assert kendall_w_pvalue(tied, tie_correction=False, method="chi2") == pytest.approx(
        stats.chi2.sf(4 * 3 * uncorrected, 3), rel=1e-12
    )
    assert kendall_w_pvalue(tied, tie_correction=False, method="chi2") > kendall_w_pvalue(
        tied, method="chi2"
    )  # a smaller W is less significant
    # with 4 systems the default is the permutation p-value, which the chi-square approximation overstates
    assert kendall_w_pvalue(tied) < kendall_w_pvalue(tied, method="chi2")
    with pytest.warns(UndefinedMeasureWarning, match="Kendall's W is undefined"):
        assert kendall_w_pvalue([[1, 1, 1], [2, 2, 2]], replace_undefined_by=-1) == -1.0


# ---------------------------------------------------------------------- at the extremes


@EXTREMES
@given(st.integers(2, 5), st.integers(2, 8), st.floats(-1e300, 1e300), st.integers(0, 7), st.integers(0, 4))
def test_kendall_w_with_all_but_one_score_tied(raters, systems, level, position, row):
    """Every experiment gives all systems the same score except one score one ulp higher:
    W is defined and exact; with no such score it is undefined by the structural test."""
    matrix = np.full((raters, systems), level)
    value, reasons = quiet(m.kendall_w, matrix)
    assert math.isnan(value) and reasons == ["Kendall's W is undefined: all values of each experiment are equal"]
    matrix[row % raters, position % systems] = np.nextafter(level, np.inf)
    value, reasons = quiet(m.kendall_w, matrix)
    assert not reasons
    assert value == pytest.approx(float(exact_kendall_w(matrix)), rel=1e-12)


# ---------------------------------------------------------------------- against peers


@peers.PEERS
@given(st.integers(2, 6), st.integers(2, 15), st.randoms(use_true_random=False))
def test_kendall_w_equals_mean_spearman_identity_without_ties(raters, systems, rnd):
    """Without ties, mean pairwise rho = (m W - 1) / (m - 1) (Kendall & Babington Smith)."""
    scores = np.array([rnd.sample(range(100), systems) for _ in range(raters)], dtype=float)
    w = m.kendall_w(scores)
    assert m.mean_pairwise_rho(scores) == pytest.approx((raters * w - 1) / (raters - 1), abs=1e-9)


# ---------------------------------------------------------------------- the batch form, as the bootstrap calls it


def test_w_permutation_p_value_equals_brute_force_enumeration():
    from itertools import permutations, product

    scores = np.array([[1.0, 2.0, 3.0, 4.0], [2.0, 1.0, 3.0, 4.0], [1.0, 3.0, 2.0, 4.0]])
    ranks = m.average_ranks(scores)[0]
    observed = (ranks.sum(axis=0) ** 2).sum()
    orders = list(permutations(range(4)))
    hits = sum(
        ((ranks[0] + ranks[1][list(a)] + ranks[2][list(b)]) ** 2).sum() >= observed - 1e-9
        for a, b in product(orders, orders)
    )
    assert m.kendall_w_pvalue(scores) == pytest.approx(hits / len(orders) ** 2, rel=1e-12)
    assert m.kendall_w_pvalue(scores, method="chi2") > m.kendall_w_pvalue(scores)  # chi-square is conservative here


def test_qra3_keeps_the_chi_square_p_value_of_w():
    """QRA3's published Yao 2022 run (tests/data/qra3) reports p = exp(-4) for W = 1, m = 4, n = 3."""
    from qra_widgets.conventions import QRA3, QRAPP

    scores = [[3, 2, 1], [3.1, 2, 1], [3, 2.5, 1], [4, 2, 1]]
    assert m.kendall_w_pvalue(scores, **QRA3.to_kwargs("kendall_w_pvalue")) == pytest.approx(np.exp(-4), rel=1e-12)
    assert m.kendall_w_pvalue(scores, **QRAPP.to_kwargs("kendall_w_pvalue")) == pytest.approx(1 / 216, rel=1e-12)
