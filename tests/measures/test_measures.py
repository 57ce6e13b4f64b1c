"""Unit tests of the measures: values, the bad-input errors and the undefined rule."""

import math

import numpy as np
import pytest

from qra_widgets import QRAInputError, UndefinedMeasureWarning
from qra_widgets import measures as m

# --------------------------------------------------------------------------- CV*


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


# --------------------------------------------------------------------------- Type II


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


# --------------------------------------------------------------------------- Type IV


def test_rank_agreement_ties_in_one_experiment_differ():
    assert m.rank_agreement([[1, 1, 2], [1, 2, 3]]) == pytest.approx(2 / 3)


def test_rank_agreement_pools_over_experiment_pairs_with_missing():
    scores = [[1, 2, 3], [1, 3, 2], [np.nan, 1, 2]]
    # pairs: (0,1) 2 of 3; (0,2) 1 of 1; (1,2) 0 of 1
    assert m.rank_counts(scores) == m.RankCounts(3, 5)


def test_rank_agreement_undefined_without_shared_pairs():
    with pytest.warns(UndefinedMeasureWarning, match="no system pair"):
        assert math.isnan(m.rank_agreement([[1, np.nan], [np.nan, 2]]))


def test_sign_counts_reject_other_values():
    with pytest.raises(QRAInputError, match="-1, 0 or 1"):
        m.sign_counts([[2, 1], [1, 1]])


# --------------------------------------------------------------------------- Type III


def test_a_label_outside_the_declared_categories_is_refused():
    with pytest.raises(QRAInputError, match="label 5.0 is not one of the declared categories"):
        m.cohen_kappa([1, 2, 5], [1, 2, 3], categories=[1, 2, 3])


def test_label_lengths_must_match():
    with pytest.raises(QRAInputError, match="lengths differ \\(3 vs 2\\)"):
        m.gwet_ac([1, 2, 3], [1, 2])


def test_empty_label_lists_are_refused():
    with pytest.raises(QRAInputError, match="are empty"):
        m.cohen_kappa([], [])


def test_unknown_kappa_weights_and_alpha_levels_are_refused():
    with pytest.raises(QRAInputError, match="weights: must be one of"):
        m.cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(QRAInputError, match="level: must be one of"):
        m.krippendorff_alpha([[1, 2], [1, 2]], level="circular")


def test_interval_alpha_needs_numbers():
    with pytest.raises(QRAInputError, match="needs numeric labels"):
        m.krippendorff_alpha([["a", "b"], ["a", "a"]], level="interval")


def test_single_category_is_undefined():
    with pytest.warns(UndefinedMeasureWarning, match="chance agreement is 1"):
        assert math.isnan(m.cohen_kappa(["a", "a"], ["a", "a"]))
    with pytest.warns(UndefinedMeasureWarning, match="only one category is used, so there is no expected disagreement"):
        assert math.isnan(m.krippendorff_alpha([["a", "a"], ["a", "a"]]))


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


def test_string_labels_count_per_category_leaving_missing_values_out():
    labels = [["good", "bad", None], ["good", "good", "bad"], ["good", "bad", ""]]
    counts = m.category_counts(labels)
    assert counts.categories.tolist() == ["bad", "good"]
    assert counts.counts.tolist() == [[0, 3], [2, 1], [1, 0]]


def test_precomputed_counts_give_the_same_alpha():
    labels = [[1, 2, 3, 3, 1], [1, 2, 3, 2, 1], [2, 2, 3, 3, np.nan]]
    counts = m.category_counts(labels)
    for level in ("nominal", "ordinal", "interval", "ratio"):
        assert m.krippendorff_alpha(counts, level=level) == m.krippendorff_alpha(labels, level=level)
    assert m.fleiss_kappa(counts) == m.fleiss_kappa(labels)


def test_non_integer_labels_use_the_sorting_path():
    labels = [[0.5, 1.5, 2.25], [0.5, 1.5, 1.5]]
    counts = m.category_counts(labels)
    assert counts.categories.tolist() == [0.5, 1.5, 2.25]
    assert counts.counts.tolist() == [[2, 0, 0], [0, 2, 0], [0, 1, 1]]
