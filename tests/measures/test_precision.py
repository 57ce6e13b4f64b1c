"""measures/precision.py: CV* (Belz 2021; QRA++ section 4) and the standard error of s*."""

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
from qra_widgets.measures.precision import sd_standard_error

PUBLISHED = field_path("qra3", "output-4-studies", "Yao2022", "data.json")  # published field data


def published_systems() -> dict:
    data = json.loads(PUBLISHED.read_text())
    return data["result_types"]["Type I"]["per_level_results"]["System"]["system"]["Readability"]["results"]


def test_cv_star_large_n_does_not_overflow():
    """c4 uses lgamma: the authors' math.gamma version overflows past ~343 values."""
    values = np.tile([1.0, 2.0, 3.0], 400)
    result = m.cv_star(values)
    s = values.std(ddof=1)
    assert result.n == 1200
    assert result.cv_star == pytest.approx((1 + 1 / 4800) * s / m.c4(1200) / 2 * 100)
    assert m.c4(1200) == pytest.approx(1 - 1 / (4 * 1200), abs=1e-6)


def test_cv_star_is_scale_invariant():
    a = m.cv_star([3.0, 4.0, 4.5])
    b = m.cv_star([30.0, 40.0, 45.0])
    assert a.cv_star == pytest.approx(b.cv_star)


def test_cv_star_shift_changes_the_value():
    assert m.cv_star([5.36, 6.14], scale_min=1).cv_star > m.cv_star([5.36, 6.14]).cv_star


def test_cv_star_no_variation_is_zero_not_undefined():
    """Belz 2021 section 5.1 reports CV* = 0 for two identical weighings."""
    result = m.cv_star([88.1, 88.1])
    assert (result.cv_star, result.sd, result.ci95, result.reason) == (0.0, 0.0, (0.0, 0.0), "")


def test_cv_star_mean_zero_is_undefined_with_reason():
    with pytest.warns(UndefinedMeasureWarning, match="mean of the \\(shifted\\) values is 0"):
        result = m.cv_star([1.0, 1.0], scale_min=1)
    assert math.isnan(result.cv_star) and "mean" in result.reason


def test_cv_star_replaces_an_undefined_value_when_asked_and_warns():
    with pytest.warns(UndefinedMeasureWarning):
        assert m.cv_star([-1.0, 1.0], replace_undefined_by=0.0).cv_star == 0.0


def test_cv_star_uses_absolute_mean():
    assert m.cv_star([-2.0, -4.0]).cv_star == pytest.approx(m.cv_star([2.0, 4.0]).cv_star)


@pytest.mark.parametrize(
    "values, message",
    [
        ([], "needs at least 2 values, got 0"),
        ([3.0], "needs at least 2 values, got 1"),
        ([1.0, float("nan")], "position 1 is nan"),
        ([1.0, float("inf")], "position 1 is inf"),
        ([1.0, "N/A"], "'N/A' at position 1 is not a number"),
        ([[1.0, 2.0]], "expected a 1-D sequence"),
    ],
)
def test_cv_star_refuses_bad_input_saying_why(values, message):
    with pytest.raises(QRAInputError, match=message):
        m.cv_star(values)


def test_cv_star_within_counts_are_strict():
    result = m.cv_star([1.0, 2.0, 3.0, 4.0, 100.0])
    assert result.within_2sd == 1.0 and result.within_1sd == 0.8


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
