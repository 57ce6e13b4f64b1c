"""measures/correlation.py: Pearson's r, Spearman's rho, Kendall's tau, the mean over experiment pairs, their p-values."""

from __future__ import annotations

import math

import numpy as np
import pytest
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
    with pytest.warns(UndefinedMeasureWarning, match="the p-value of Pearson.s r is undefined: all values of y are equal"):
        assert math.isnan(correlation_pvalue([1, 2, 3], [2, 2, 2]))
    with pytest.warns(UndefinedMeasureWarning, match="n - 2 >= 1"):
        assert correlation_pvalue([1, 2], [1, 3], measure="rho", replace_undefined_by=-1) == -1.0
    assert correlation_pvalue([1, 2], [1, 3]) == 1.0  # scipy: r = +-1 always for two points, p = 1
    with pytest.raises(QRAInputError, match="measure: must be one of"):
        correlation_pvalue(x, y, measure="W")
