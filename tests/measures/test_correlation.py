"""measures/correlation.py: Pearson's r, Spearman's rho, Kendall's tau, the mean over experiment pairs, their p-values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from measure_extremes import (
    EXTREMES,
    R_0351,
    R_0727,
    exact_pearson,
    magnitudes,
    quiet,
    scores,
    ulps_above,
    well_separated,
)
from scipy import stats

from qra_widgets import QRAInputError, UndefinedMeasureWarning
from qra_widgets import measures as m
from qra_widgets.measures.correlation import correlation_pvalue


def test_correlations_match_scipy():
    from scipy import stats

    x, y = [1.0, 2.0, 3.0, 5.0, 4.0], [2.0, 1.0, 4.0, 5.0, 5.0]
    assert m.pearson_r(x, y) == pytest.approx(stats.pearsonr(x, y).statistic)
    assert m.spearman_rho(x, y) == pytest.approx(stats.spearmanr(x, y).statistic)
    assert m.kendall_tau(x, y) == pytest.approx(stats.kendalltau(x, y).statistic)


@pytest.mark.parametrize("function", [m.pearson_r, m.spearman_rho, m.kendall_tau])
def test_correlation_of_constant_scores_is_undefined(function):
    with pytest.warns(UndefinedMeasureWarning, match="all values of y are equal"):
        assert math.isnan(function([1, 2, 3], [2, 2, 2]))


def test_a_correlation_of_lists_of_different_lengths_is_refused():
    with pytest.raises(QRAInputError, match="lengths differ \\(3 vs 2\\)"):
        m.pearson_r([1, 2, 3], [1, 2])


def test_mean_pairwise_uses_systems_scored_in_both():
    scores = [[1.0, 2.0, 3.0, np.nan], [1.0, 2.0, 3.0, 4.0], [3.0, 2.0, 1.0, 0.0]]
    result = m.mean_pairwise(scores, "r")
    assert result.value == pytest.approx((1 - 1 - 1) / 3)
    assert (result.pairs_used, result.min_systems) == (3, 3)


def test_mean_pairwise_skips_undefined_pairs():
    scores = [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [2.0, 2.0, 2.0]]
    result = m.mean_pairwise(scores, "rho")
    assert (result.value, result.pairs_used, result.pairs_undefined) == (1.0, 1, 2)


def test_mean_pairwise_refuses_an_unknown_measure():
    with pytest.raises(QRAInputError, match="measure: must be one of"):
        m.mean_pairwise([[1, 2], [2, 1]], "pearson")


def test_correlation_pvalue_is_scipys():
    x, y = [3.71, 3.2, 2.33, 2.9], [3.12, 2.57, 2.28, 2.5]
    assert correlation_pvalue(x, y) == pytest.approx(stats.pearsonr(x, y).pvalue, rel=1e-12)
    assert correlation_pvalue(x, y, measure="rho") == pytest.approx(stats.spearmanr(x, y).pvalue, rel=1e-12)
    assert correlation_pvalue(x, y, measure="tau") == pytest.approx(stats.kendalltau(x, y).pvalue, rel=1e-12)
    # r = 0.8 on n = 4 by hand: t = r sqrt((n-2)/(1-r^2)) = 1.8856 on 2 df, two-sided p = 1 - t / sqrt(t^2 + 2) = 0.2
    assert correlation_pvalue([1, 2, 3, 4], [1, 3, 2, 4], measure="rho") == pytest.approx(0.2, abs=1e-12)
    with pytest.warns(
        UndefinedMeasureWarning, match="the p-value of Pearson.s r is undefined: all values of y are equal"
    ):
        assert math.isnan(correlation_pvalue([1, 2, 3], [2, 2, 2]))
    with pytest.warns(UndefinedMeasureWarning, match="n - 2 >= 1"):
        assert correlation_pvalue([1, 2], [1, 3], measure="rho", replace_undefined_by=-1) == -1.0
    assert correlation_pvalue([1, 2], [1, 3]) == 1.0  # scipy: r = +-1 always for two points, p = 1
    with pytest.raises(QRAInputError, match="measure: must be one of"):
        correlation_pvalue(x, y, measure="W")


# ---------------------------------------------------------------------- at the extremes


@pytest.mark.parametrize(
    "factor, data, expected",
    [(1e-190, R_0727, 0.727), (1e200, R_0351, 0.351), (1e-300, R_0727, 0.727), (1e300, R_0351, 0.351)],
)
def test_pearson_r_does_not_depend_on_scale(factor, data, expected):
    """r was 1.0 near 1e-190 (expected 0.727) and nan near 1e200 (expected 0.351)."""
    from scipy.stats import pearsonr

    x, y = data
    assert round(pearsonr(x, y).statistic, 3) == expected
    assert round(m.pearson_r(x * factor, y * factor), 3) == expected
    assert m.pearson_r(x * factor, y * factor) == pytest.approx(pearsonr(x, y).statistic, abs=1e-14)
    assert m.mean_pairwise_r(np.vstack([x, y]) * factor) == pytest.approx(pearsonr(x, y).statistic, abs=1e-14)


@EXTREMES
@given(magnitudes, magnitudes, st.integers(-250, 250), st.integers(-250, 250))
def test_correlations_are_scale_free(x, y, px, py):
    """r, rho and tau of x * 10^px and y * 10^py equal those of x and y."""
    n = min(len(x), len(y))
    x, y = np.array(x[:n]), np.array(y[:n])
    assume(well_separated(x) and well_separated(y))
    for function in (m.pearson_r, m.spearman_rho, m.kendall_tau):
        plain = function(x, y)
        scaled = function(x * 10.0**px, y * 10.0**py)
        assert scaled == pytest.approx(plain, abs=1e-9)
        assert -1 <= scaled <= 1


@EXTREMES
@given(st.floats(-1e300, 1e300), st.lists(st.integers(0, 3), min_size=3, max_size=8), scores)
def test_correlation_of_values_one_ulp_apart(level, ulps, y):
    """Values a few ulps apart are not constant: r is defined and equals the exact r of
    those binary values (the centring subtracts one of them first, which is exact); equal
    values are undefined by the structural test."""
    x = ulps_above(level, ulps)
    y = np.array((y * 3)[: len(ulps)])
    assume(np.ptp(y) > 0)
    value, reasons = quiet(m.pearson_r, x, y)
    if np.ptp(x) == 0:
        assert math.isnan(value) and reasons == ["Pearson's r is undefined: all values of x are equal"]
    else:
        assert not reasons
        assert value == pytest.approx(exact_pearson(x, y), abs=1e-12)
        # ranks of values one ulp apart are the ranks of the ulp offsets: rho and tau exactly
        from scipy import stats

        assert m.spearman_rho(x, y) == pytest.approx(stats.spearmanr(ulps, y).statistic, abs=1e-12)
        assert m.kendall_tau(x, y) == pytest.approx(stats.kendalltau(ulps, y).statistic, abs=1e-12)


@EXTREMES
@given(
    st.lists(st.lists(st.floats(1, 10), min_size=4, max_size=4), min_size=3, max_size=5),
    st.lists(st.integers(-250, 250), min_size=5, max_size=5),
)
def test_mean_pairwise_correlations_are_scale_free_per_experiment(rows, powers):
    matrix = np.array(rows)
    assume(all(well_separated(row) for row in matrix))
    scaled = matrix * 10.0 ** np.array(powers[: len(rows)])[:, None]
    for measure in ("r", "rho", "tau"):
        assert m.mean_pairwise(scaled, measure).value == pytest.approx(m.mean_pairwise(matrix, measure).value, abs=1e-9)
