"""The inferential companions of the measures: SE/CI of s*, and the p-values of W, r and rho.

They used to be computed inside ``qra_widgets/qra3.py``; the values checked here are QRA3's
published Yao 2022 run (``qra3/`` of the field data, see tests/test_qra3.py) and independent
computations (scipy's Friedman test, the textbook kurtosis formula).
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from fielddata import field_path, needs_field_data
from scipy import stats

from qra_widgets import QRAInputError, UndefinedMeasureWarning
from qra_widgets import measures as m
from qra_widgets.measures.correlation import correlation_pvalue, kendall_w_pvalue
from qra_widgets.measures.precision import sd_standard_error

PUBLISHED = field_path("qra3", "output-4-studies", "Yao2022", "data.json")  # published field data


def published_systems() -> dict:
    data = json.loads(PUBLISHED.read_text())
    return data["result_types"]["Type I"]["per_level_results"]["System"]["system"]["Readability"]["results"]


@needs_field_data
@pytest.mark.parametrize("system", ["GT", "PAQ", "QAG"])
def test_sd_standard_error_is_qra3s_for_normal_data(system):
    """QRA3 Yao 2022 data.json: est_SE_of_SD... and confidence_interval (normal_data: true), scale from 1."""
    published = published_systems()[system]
    result = sd_standard_error(published["measurements"], scale_min=1)
    assert result.se == pytest.approx(published["est_SE_of_SD_based_on_SE_of_unbiassed_sample_variance"], abs=1e-12)
    assert result.ci95 == pytest.approx(published["confidence_interval"], abs=1e-12)
    assert result.kurtosis is None and result.n == 4
    assert result.ci95 == m.cv_star(published["measurements"], scale_min=1).ci95  # the same interval, bit for bit


def test_sd_standard_error_without_normality_uses_the_sample_kurtosis():
    """[1, 2, 2, 2, 5]: by hand, m2 = 1.84, m4 = 9.9232, g2 = m4/m2^2 - 3, G2 = ((n+1) g2 + 6)(n-1)/((n-2)(n-3));
    var(s^2) = s^4 (2/(n-1) + G2/n) (O'Neill 2014), SE(s*) = sqrt(var(s^2)) / (2 s*)."""
    values = [1.0, 2.0, 2.0, 2.0, 5.0]
    n, s2 = 5, 2.3
    g2 = 9.9232 / 1.84**2 - 3
    kurtosis = ((n + 1) * g2 + 6) * (n - 1) / ((n - 2) * (n - 3))
    assert kurtosis == pytest.approx(3.724007561436676, rel=1e-12)
    sd = math.sqrt(s2) / m.c4(n)
    se = s2 * math.sqrt(2 / (n - 1) + kurtosis / n) / (2 * sd)
    result = sd_standard_error(values, normal=False)
    assert result.kurtosis == pytest.approx(kurtosis, rel=1e-12)
    assert result.se == pytest.approx(se, rel=1e-12)
    t = stats.t.ppf(0.975, n - 1)
    assert result.ci95 == pytest.approx((sd - t * se, sd + t * se), rel=1e-12)
    assert result.se > sd_standard_error(values).se  # heavy tails widen the interval
    # shifting by scale_min changes nothing but what is subtracted
    assert sd_standard_error([v + 1 for v in values], scale_min=1, normal=False).se == pytest.approx(se, rel=1e-12)


def test_sd_standard_error_undefined_and_degenerate():
    with pytest.warns(UndefinedMeasureWarning, match="the sample kurtosis needs 4"):
        result = sd_standard_error([1.0, 2.0, 4.0], normal=False)
    assert math.isnan(result.se) and "needs 4" in result.reason
    with pytest.warns(UndefinedMeasureWarning, match="variance of s\\^2 is not positive"):
        result = sd_standard_error([0.0, 0.0, 1.0, 1.0], normal=False, replace_undefined_by=-1)
    assert result.se == -1.0 and result.kurtosis == pytest.approx(-6.0)  # G2 of two tied pairs, n = 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        constant = sd_standard_error([3.0, 3.0, 3.0])
    assert (constant.se, constant.ci95) == (0.0, (0.0, 0.0))
    with pytest.raises(QRAInputError, match="below scale_min 1"):
        sd_standard_error([0.5, 2.0], scale_min=1)
    with pytest.raises(TypeError):
        sd_standard_error([1.0, 2.0], None, False)  # options are keyword-only


@needs_field_data
def test_kendall_w_pvalue_is_qra3s_and_friedmans():
    """QRA3 Yao 2022: W = 1 over m = 4 experiments and n = 3 systems, chi2 = 8 on 2 df, p = exp(-4)."""
    data = json.loads(PUBLISHED.read_text())
    kendall = data["result_types"]["Type II"]["per_level_results"]["Criterion"]["criterion"]["Readability"]["per_measure_results"]["kendall"]
    assert kendall_w_pvalue(kendall["measurements"], tie_correction=False, method="chi2") == pytest.approx(kendall["p"], abs=1e-15)
    assert kendall["p"] == pytest.approx(math.exp(-4), abs=1e-15)
    # with ties: the tie-corrected chi2 is Friedman's statistic (systems = treatments, experiments = blocks)
    tied = np.array([[1, 1, 2, 3], [1, 2, 2, 3], [1, 2, 3, 3], [2, 1, 3, 4]], dtype=float)
    friedman = stats.friedmanchisquare(*tied.T)
    assert kendall_w_pvalue(tied, method="chi2") == pytest.approx(friedman.pvalue, rel=1e-12)
    uncorrected = m.kendall_w(tied, tie_correction=False)
    assert kendall_w_pvalue(tied, tie_correction=False, method="chi2") == pytest.approx(stats.chi2.sf(4 * 3 * uncorrected, 3), rel=1e-12)
    assert kendall_w_pvalue(tied, tie_correction=False, method="chi2") > kendall_w_pvalue(tied, method="chi2")  # a smaller W is less significant
    # with 4 systems the default is the permutation p-value, which the chi-square approximation overstates
    assert kendall_w_pvalue(tied) < kendall_w_pvalue(tied, method="chi2")
    with pytest.warns(UndefinedMeasureWarning, match="Kendall's W is undefined"):
        assert kendall_w_pvalue([[1, 1, 1], [2, 2, 2]], replace_undefined_by=-1) == -1.0


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
