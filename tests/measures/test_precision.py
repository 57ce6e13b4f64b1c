"""measures/precision.py: CV* (Belz 2021; QRA++ section 4) and the standard error of s*."""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction

import batch_cases as cases
import numpy as np
import pytest
from fielddata import field_path, needs_field_data
from hypothesis import assume, given
from hypothesis import strategies as st
from measure_extremes import EXTREMES, cv_star_bound, positive, quiet, ulps_above
from scipy import stats

from qra_widgets import QRAInputError, UndefinedMeasureWarning
from qra_widgets import measures as m
from qra_widgets.measures._validation import CANCELLATION_RTOL
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


# ---------------------------------------------------------------------- at the extremes


def test_cv_star_mean_that_cancels_to_zero_is_undefined_with_a_reason():
    """A mean that is 0 up to rounding gave CV* = 3.6e17 with no warning."""
    value, reasons = quiet(m.cv_star, [0.1, 0.2, -0.3])  # mean 1.85e-17 in floating point
    assert math.isnan(value.cv_star)
    assert reasons == ["CV* is undefined: the mean of the (shifted) values is 0 (to the precision of the input)"]
    assert value.reason == reasons[0]
    # the sibling that respects scale_min: 0.1 + 0.2 = 0.30000000000000004 on a scale from 0.3
    value, reasons = quiet(m.cv_star, [0.1 + 0.2, 0.3], scale_min=0.3)
    assert math.isnan(value.cv_star) and len(reasons) == 1


def test_cv_star_refuses_values_below_scale_min():
    """The study model refuses them, the measure must too.  The old bug report's
    ``cv_star([1.1, 0.9], scale_min=1)`` is such an input (0.9 < 1): malformed, not nan."""
    with pytest.raises(QRAInputError, match=r"values: value 0.9 at position 1 is below scale_min 1.0"):
        m.cv_star([1.1, 0.9], scale_min=1)
    with pytest.raises(QRAInputError, match="scale_min: must be a finite number or None"):
        m.cv_star([1.0, 2.0], scale_min=float("nan"))
    assert m.cv_star([1.0, 1.0 + 2**-40], scale_min=1).cv_star > 0  # exactly at the minimum is allowed


@pytest.mark.parametrize("factor", [1e160, 1e-200, 1e300, 1e-300])
def test_cv_star_does_not_depend_on_scale(factor):
    """It gave ``inf`` near 1e160, 0.0 after x 1e-200.  QRA 2022 Table 4 NTS_def BLEU values."""
    values = np.array([84.51, 84.50, 87.46, 85.60, 84.20, 86.61, 86.20])
    plain, scaled = m.cv_star(values), m.cv_star(values * factor)
    assert scaled.cv_star == pytest.approx(plain.cv_star, rel=1e-12)
    assert round(scaled.cv_star, 3) == 1.562  # QRA 2022 Table 4
    assert scaled.sd == pytest.approx(plain.sd * factor, rel=1e-12)
    assert scaled.mean == pytest.approx(plain.mean * factor, rel=1e-12)
    assert scaled.ci95 == pytest.approx((plain.ci95[0] * factor, plain.ci95[1] * factor), rel=1e-12)
    assert (scaled.within_1sd, scaled.within_2sd) == (plain.within_1sd, plain.within_2sd)


@EXTREMES
@given(st.lists(st.floats(1e-3, 1e3), min_size=1, max_size=10), st.randoms(use_true_random=False))
def test_cv_star_of_values_and_their_negations_is_undefined(values, rnd):
    """A mean that is 0 by construction (x and -x) is undefined in any order, although the
    floating-point sum of the shuffled values is rarely exactly 0."""
    both = values + [-v for v in values]
    rnd.shuffle(both)
    result, reasons = quiet(m.cv_star, both)
    assert math.isnan(result.cv_star) and len(reasons) == 1 and "mean of the (shifted) values is 0" in reasons[0]


@EXTREMES
@given(st.floats(-1e6, 1e6), st.lists(st.integers(0, 4), min_size=2, max_size=8))
def test_cv_star_just_above_scale_min_is_bounded_or_undefined(scale_min, ulps):
    """Values a few ulps above the scale minimum: CV* is either undefined (the shifted mean
    is rounding noise) or at most its mathematical bound -- never 1e17."""
    values = [float(np.nextafter(scale_min, np.inf)) if k else scale_min for k in ulps]
    values = [v for v, k in zip(values, ulps) for _ in range(max(k, 1))][: len(ulps)]
    result, reasons = quiet(m.cv_star, values, scale_min=scale_min)
    if reasons:
        assert math.isnan(result.cv_star)
    else:
        assert 0 <= result.cv_star <= cv_star_bound(len(values)) * (1 + 1e-12)


@EXTREMES
@given(st.lists(positive, min_size=2, max_size=8), st.integers(-1000, 1000), st.integers(-300, 300))
def test_cv_star_is_scale_free(values, power_of_two, power_of_ten):
    plain = m.cv_star(values)
    assert m.cv_star(np.ldexp(values, power_of_two)).cv_star == plain.cv_star  # bit for bit
    assert m.cv_star(np.array(values) * 10.0**power_of_ten).cv_star == pytest.approx(plain.cv_star, rel=1e-9, abs=1e-9)


@EXTREMES
@given(st.floats(1e-300, 1e300), st.integers(1, 4))
def test_cv_star_tolerance_is_rounding_and_nothing_more(level, ulps):
    """The one tolerance (CANCELLATION_RTOL, 16 eps relative): a mean of a few ulps of
    the values is undefined; a mean of 1e-10 of the values is a (large) defined CV*."""
    above = level
    for _ in range(ulps):
        above = float(np.nextafter(above, np.inf))
    for values in ([-level, level], [-level, above]):
        result, reasons = quiet(m.cv_star, values)
        assert math.isnan(result.cv_star) and len(reasons) == 1
    values = [-level, level * (1 + 1e-10)]
    result, reasons = quiet(m.cv_star, values)
    assert not reasons
    s = abs(values[1] - values[0]) / math.sqrt(2)
    expected = (1 + 1 / 8) * (s / m.c4(2)) / abs(sum(values) / 2) * 100  # QRA++ eq. 3, n = 2
    assert result.cv_star == pytest.approx(expected, rel=1e-12)
    assert 16 * np.finfo(float).eps == CANCELLATION_RTOL


@EXTREMES
@given(st.floats(-1e300, 1e300), st.lists(st.integers(0, 3), min_size=2, max_size=8))
def test_cv_star_spread_of_values_one_ulp_apart_is_exact(level, ulps):
    """s* of values a few ulps apart keeps its digits (no cancellation against the mean)."""
    assume(abs(level) > 1e-290)  # a few ulps of a smaller level are subnormal, with fewer digits to keep
    values = ulps_above(level, ulps)
    result = m.cv_star(values)
    exact = [Fraction(float(v)) for v in values]
    mean = sum(exact) / len(exact)
    s = math.sqrt(float(sum((v - mean) ** 2 for v in exact) / (len(exact) - 1) / Fraction(level) ** 2)) * abs(level)
    assert result.sd == pytest.approx(s / m.c4(len(values)), rel=1e-12, abs=0)


# ---------------------------------------------------------------------- the batch form, as the bootstrap calls it


def test_a_mean_that_cancels_is_undefined_with_the_same_reason_in_both_paths():
    """The audit's case: the CV* of a mean that cancels to ~0 was 3.6e17 in the bootstrap's copy."""
    values = np.array([0.1 + 0.2, -0.3, 0.1 - 0.1])
    found = m.cv_star_batch(values[None])
    value, reason = cases.scalar(lambda v: m.cv_star(v).cv_star, values)
    assert "mean of the (shifted) values is 0" in reason
    cases.same(found.values[0], found.reasons[0], value, reason)


@pytest.mark.parametrize("values", [["1.5", "2.5"], [1.0, "2"], np.array(["3", "4"])])
def test_numbers_given_as_text_are_refused_by_cv_star(values):
    with pytest.raises(QRAInputError, match="is not a number \\(it is text"):
        m.cv_star(values)


@pytest.mark.parametrize(
    "values, scale_min",
    [([1.7e308, 1.79e308 - 1e292, 1.6e308], None), ([-1.79e308, 1.79e308, 1.79e308], None), ([1.7e308, 1.0], -1.7e308)],
)
def test_huge_finite_values_do_not_overflow_inside_cv_star(values, scale_min):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning, no OverflowError
        try:
            result = m.cv_star(values, scale_min=scale_min)
        except QRAInputError as error:
            assert "float range" in str(error)
        else:
            assert np.isfinite(result.cv_star) and np.isfinite(result.sd)
            assert result.cv_star == pytest.approx(m.cv_star(np.asarray(values) / 1e300).cv_star, rel=1e-12)
