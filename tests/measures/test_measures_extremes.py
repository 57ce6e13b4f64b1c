"""Numbers stay right at the extremes, and the undefined rule is one rule.

First the bugs found in earlier versions, each with the value a peer library or exact arithmetic
gives; then, for every measure, Hypothesis tests on near-degenerate input (a category used
once in 10^5 items, values one ulp apart, values near 1e-300 and 1e300, means that cancel)
against exact rational arithmetic (:mod:`fractions`), scikit-learn or scipy.
"""

import math
import warnings
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from qra_widgets import QRAInputError, UndefinedMeasureWarning
from qra_widgets import measures as m
from qra_widgets.measures._validation import CANCELLATION_RTOL

# local settings (not a global profile, which would change every other module's tests)
EXTREMES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# the 4-point data whose Pearson r is 0.727 and 0.351
R_0727 = (np.array([2.0, 6.0, 6.0, 4.0]), np.array([3.0, 6.0, 7.0, 1.0]))
R_0351 = (np.array([4.0, 3.0, 2.0, 6.0]), np.array([7.0, 7.0, 2.0, 5.0]))


def quiet(function, *args, **kwargs):
    """Call a measure, collecting its UndefinedMeasureWarning reasons."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMeasureWarning)
        value = function(*args, **kwargs)
    return value, [str(w.message) for w in caught if issubclass(w.category, UndefinedMeasureWarning)]


# =========================================================================== the listed bugs


def kappa_pair(agree_0: int, agree_1: int, a1_b0: int, a0_b1: int):
    a = np.repeat([0, 1, 1, 0], [agree_0, agree_1, a1_b0, a0_b1])
    b = np.repeat([0, 1, 0, 1], [agree_0, agree_1, a1_b0, a0_b1])
    return a, b


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


@pytest.mark.parametrize("factor, data, expected", [(1e-190, R_0727, 0.727), (1e200, R_0351, 0.351),
                                                     (1e-300, R_0727, 0.727), (1e300, R_0351, 0.351)])
def test_pearson_r_does_not_depend_on_scale(factor, data, expected):
    """r was 1.0 near 1e-190 (expected 0.727) and nan near 1e200 (expected 0.351)."""
    from scipy.stats import pearsonr

    x, y = data
    assert round(pearsonr(x, y).statistic, 3) == expected
    assert round(m.pearson_r(x * factor, y * factor), 3) == expected
    assert m.pearson_r(x * factor, y * factor) == pytest.approx(pearsonr(x, y).statistic, abs=1e-14)
    assert m.mean_pairwise_r(np.vstack([x, y]) * factor) == pytest.approx(pearsonr(x, y).statistic, abs=1e-14)


@pytest.mark.parametrize("factor", [1e-200, 1e200])
def test_interval_alpha_does_not_depend_on_scale(factor):
    """Krippendorff (2011) section A data: interval alpha 0.849 at any unit."""
    data = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
                     [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
                     [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
                     [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan]])
    plain = m.krippendorff_alpha(data, level="interval")
    assert round(plain, 3) == 0.849
    assert m.krippendorff_alpha(data * factor, level="interval") == pytest.approx(plain, rel=1e-12)
    assert m.krippendorff_alpha(data * factor, level="ratio") == pytest.approx(m.krippendorff_alpha(data, level="ratio"), rel=1e-12)


# =========================================================================== exact references


def exact_agreement(patterns: np.ndarray, multiplicity: np.ndarray, q: int):
    """Fleiss' kappa, AC1, BP and nominal alpha in rational arithmetic (Gwet 2014;
    Krippendorff 2011), from distinct unit patterns (counts per category) and how often each occurs."""
    units = [(tuple(int(c) for c in row), int(k)) for row, k in zip(patterns, multiplicity) if k > 0 and row.sum() > 0]
    rated = sum(k for _, k in units)
    pairable = [(row, k) for row, k in units if sum(row) >= 2]
    paired = sum(k for _, k in pairable)
    p_a = sum(k * Fraction(sum(n * (n - 1) for n in row), sum(row) * (sum(row) - 1)) for row, k in pairable) / paired
    pi = [sum(k * Fraction(row[c], sum(row)) for row, k in units) / rated for c in range(q)]
    fleiss_pe = sum(p * p for p in pi)
    ac_pe = sum(p * (1 - p) for p in pi) / (q - 1)
    bp_pe = Fraction(1, q)
    o = [[sum(k * Fraction(row[c] * row[d] - (c == d) * row[c], sum(row) - 1) for row, k in pairable) for d in range(q)]
         for c in range(q)]
    n_c = [sum(o[c]) for c in range(q)]
    n = sum(n_c)
    d_o = sum(o[c][d] for c in range(q) for d in range(q) if c != d) / n
    d_e = sum(n_c[c] * n_c[d] for c in range(q) for d in range(q) if c != d) / (n * (n - 1))
    return {
        "fleiss": (p_a - fleiss_pe) / (1 - fleiss_pe) if fleiss_pe != 1 else None,
        "ac": (p_a - ac_pe) / (1 - ac_pe),
        "bp": (p_a - bp_pe) / (1 - bp_pe),
        "alpha": 1 - d_o / d_e if d_e != 0 else None,
    }


@st.composite
def near_unanimous_counts(draw):
    """Units x 3 categories: one pattern repeated up to 10^5 times, a few rare patterns."""
    raters = draw(st.integers(2, 5))
    q = 3
    common = np.zeros(q, dtype=np.int64)
    common[draw(st.integers(0, q - 1))] = raters
    rare = []
    for _ in range(draw(st.integers(0, 3))):
        labels = draw(st.lists(st.integers(0, q - 1), min_size=1, max_size=raters))
        rare.append(np.bincount(labels, minlength=q))
    patterns = np.vstack([common] + rare)
    multiplicity = np.array([draw(st.integers(1, 10**5))] + [draw(st.integers(1, 3)) for _ in rare])
    return patterns, multiplicity, q


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


# =========================================================================== CV*

positive = st.floats(0.5, 2.0)


@EXTREMES
@given(st.lists(st.floats(1e-3, 1e3), min_size=1, max_size=10), st.randoms(use_true_random=False))
def test_cv_star_of_values_and_their_negations_is_undefined(values, rnd):
    """A mean that is 0 by construction (x and -x) is undefined in any order, although the
    floating-point sum of the shuffled values is rarely exactly 0."""
    both = values + [-v for v in values]
    rnd.shuffle(both)
    result, reasons = quiet(m.cv_star, both)
    assert math.isnan(result.cv_star) and len(reasons) == 1 and "mean of the (shifted) values is 0" in reasons[0]


def cv_star_bound(n: int) -> float:
    """Largest CV* of n values >= 0: s <= n mean / sqrt(n - 1) (all but one value 0)."""
    return (1 + 1 / (4 * n)) * n / math.sqrt(n - 1) / m.c4(n) * 100


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


# =========================================================================== Type II


scores = st.lists(st.floats(-100, 100), min_size=3, max_size=10)
magnitudes = st.lists(st.one_of(st.floats(1e-3, 100), st.floats(-100, -1e-3)), min_size=3, max_size=10)


def well_separated(values: np.ndarray) -> bool:
    """No two values so close that multiplying by 10^p could merge or reorder them."""
    gaps = np.diff(np.unique(values))
    return values.size == np.unique(values).size and (gaps > 1e-9 * np.max(np.abs(values))).all()


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


def exact_pearson(x, y) -> float:
    """r from the exact binary values of x and y, in rational arithmetic."""
    fx, fy = [Fraction(float(v)) for v in x], [Fraction(float(v)) for v in y]
    mx, my = sum(fx) / len(fx), sum(fy) / len(fy)
    sxy = sum((a - mx) * (b - my) for a, b in zip(fx, fy))
    sxx, syy = sum((a - mx) ** 2 for a in fx), sum((b - my) ** 2 for b in fy)
    return math.copysign(math.sqrt(sxy * sxy / (sxx * syy)), sxy)


def ulps_above(level: float, ulps) -> np.ndarray:
    values = np.full(len(ulps), level)
    for i, k in enumerate(ulps):
        for _ in range(k):
            values[i] = np.nextafter(values[i], np.inf)
    return values


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


@EXTREMES
@given(st.lists(st.lists(st.floats(1, 10), min_size=4, max_size=4), min_size=3, max_size=5),
       st.lists(st.integers(-250, 250), min_size=5, max_size=5))
def test_mean_pairwise_correlations_are_scale_free_per_experiment(rows, powers):
    matrix = np.array(rows)
    assume(all(well_separated(row) for row in matrix))
    scaled = matrix * 10.0 ** np.array(powers[: len(rows)])[:, None]
    for measure in ("r", "rho", "tau"):
        assert m.mean_pairwise(scaled, measure).value == pytest.approx(m.mean_pairwise(matrix, measure).value, abs=1e-9)


def exact_kendall_w(matrix: np.ndarray) -> Fraction:
    from scipy.stats import rankdata

    ranks = [[Fraction(r).limit_denominator(2) for r in rankdata(row)] for row in matrix]
    mm, n = len(ranks), len(ranks[0])
    sums = [sum(row[j] for row in ranks) for j in range(n)]
    mean = sum(sums) / n
    ties = 0
    for row in ranks:
        for value in set(row):
            t = row.count(value)
            ties += t**3 - t
    return 12 * sum((s - mean) ** 2 for s in sums) / (mm * mm * (n**3 - n) - mm * ties)


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


def naive_p(matrix):
    same = total = 0
    for i, j in combinations(range(matrix.shape[0]), 2):
        for a, b in combinations(range(matrix.shape[1]), 2):
            total += 1
            same += np.sign(matrix[i, a] - matrix[i, b]) == np.sign(matrix[j, a] - matrix[j, b])
    return same, total


@EXTREMES
@given(st.floats(-1e300, 1e300), st.lists(st.lists(st.integers(0, 2), min_size=4, max_size=4), min_size=2, max_size=4))
def test_rank_agreement_with_scores_one_ulp_apart(level, offsets):
    """Scores 0-2 ulps apart: a one-ulp difference is a difference, not a tie (P counts signs)."""
    matrix = np.array([[level] * 4] * len(offsets))
    for i, row in enumerate(offsets):
        for j, k in enumerate(row):
            for _ in range(k):
                matrix[i, j] = np.nextafter(matrix[i, j], np.inf)
    same, total = naive_p(matrix)
    assert m.rank_counts(matrix) == m.RankCounts(int(same), total)
    assert m.rank_agreement(matrix) == same / total
