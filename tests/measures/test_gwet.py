"""measures/gwet.py: percent and adjacent agreement, Gwet's AC1/AC2, Brennan-Prediger."""

from __future__ import annotations

import math

import irrcac_cases as peers
import numpy as np
import pytest
import vanmiltenburg_irrcac as vm_irrcac
from hypothesis import assume, given
from hypothesis import strategies as st
from measure_extremes import EXTREMES, exact_agreement, near_unanimous_counts, quiet

import qra_widgets as qw
from qra_widgets import QRAInputError
from qra_widgets import measures as m

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning"),
]


# Malformed labels and options: tests/measures/test_agreement.py (one table for every coefficient).


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
    for name, function in (
        ("fleiss", m.fleiss_kappa),
        ("ac", m.gwet_ac),
        ("bp", m.brennan_prediger),
        ("alpha", m.krippendorff_alpha),
    ):
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


# ---------------------------------------------------------------------- against peers


@peers.PEERS
@given(peers.label_pair(missing=True))
def test_percent_agreement_matches_scikit_learn_accuracy(pair):
    from sklearn.metrics import accuracy_score

    a, b = peers._complete_pairs(*pair)
    assume(a.size >= 1)
    assert m.percent_agreement(*pair) == pytest.approx(accuracy_score(a, b))


@peers.PEERS
@given(peers.label_pair(missing=True), st.integers(0, 3))
def test_adjacent_agreement_matches_brute_force(pair, tolerance):
    a, b = peers._complete_pairs(*pair)
    assume(a.size >= 1)
    assert m.adjacent_agreement(*pair, tolerance=tolerance) == pytest.approx(np.mean(np.abs(a - b) <= tolerance))


@pytest.mark.parametrize(
    "index, weights, labels, expected",
    [c for c in peers.CASES if len(c[2]) == 2],
    ids=[i for i, c in zip(peers.CASE_IDS, peers.CASES) if len(c[2]) == 2],
)
def test_gwet_ac_and_bp_match_irrcac(index, weights, labels, expected):
    if not (~np.isnan(labels)).all(axis=0).any():
        with pytest.warns(qw.UndefinedMeasureWarning):  # nothing to compare: undefined, as irrCAC has no value
            assert np.isnan(
                m.gwet_ac(
                    labels[0],
                    labels[1],
                    weights=peers.WEIGHTS[weights],
                    categories=list(map(float, range(1, peers.Q + 1))),
                )
            )
        return
    categories = list(map(float, range(1, peers.Q + 1)))
    ac = m.gwet_ac(labels[0], labels[1], weights=peers.WEIGHTS[weights], categories=categories)
    bp = m.brennan_prediger(labels[0], labels[1], weights=peers.WEIGHTS[weights], categories=categories)
    assert ac == pytest.approx(expected["gwet"], abs=1e-9)
    assert bp == pytest.approx(expected["bp"], abs=1e-9)


@pytest.mark.parametrize("index, weights, labels, expected", peers.CASES, ids=peers.CASE_IDS)
def test_multi_rater_ac_bp_fleiss_match_irrcac(index, weights, labels, expected):
    """Gwet (2014)'s multi-rater AC1/AC2, BP and weighted Fleiss' kappa, missing labels
    allowed, from the labels and from precomputed counts."""
    if (~np.isnan(labels)).sum(axis=0).max() < 2:
        with pytest.warns(qw.UndefinedMeasureWarning):  # no item with two labels: undefined, as irrCAC has no value
            assert np.isnan(m.gwet_ac(labels, categories=list(map(float, range(1, peers.Q + 1)))))
        return
    categories = list(map(float, range(1, peers.Q + 1)))
    counts = m.category_counts(labels)
    weights = peers.WEIGHTS[weights]
    assert m.gwet_ac(labels, weights=weights, categories=categories) == pytest.approx(expected["gwet"], abs=1e-9)
    assert m.gwet_ac(counts, weights=weights, categories=categories) == pytest.approx(expected["gwet"], abs=1e-9)
    assert m.brennan_prediger(counts, weights=weights, categories=categories) == pytest.approx(expected["bp"], abs=1e-9)
    if len(np.unique(labels[~np.isnan(labels)])) >= 2:
        assert m.fleiss_kappa(counts, weights=weights, categories=categories) == pytest.approx(
            expected["fleiss"], abs=1e-9
        )


def test_the_irrcac_reference_says_where_it_came_from():
    """The committed peer values name their source, the irrCAC version and the command."""
    assert peers.IRRCAC["versions"]["irrCAC"] == "0.4.4" and "make_irrcac_reference.py" in peers.IRRCAC["command"]
    assert len(peers.CASES) == 360 and sum(len(c[2]) == 2 for c in peers.CASES) >= 120
    assert sum(np.isnan(c[2]).any() for c in peers.CASES) >= 180  # most matrices have missing labels


@peers.PEERS
@given(peers.label_matrix(2, 2, missing=True), st.sampled_from([None, "linear", "quadratic"]))
def test_two_rater_and_matrix_forms_agree(labels, weights):
    """``gwet_ac(a, b)`` (the O(q^2) pair table) and ``gwet_ac([a, b])`` (the count matrix)."""
    assume((~np.isnan(labels)).all(axis=0).any())
    categories = list(map(float, range(1, peers.Q + 1)))
    for function in (m.gwet_ac, m.brennan_prediger):
        pair = function(labels[0], labels[1], weights=weights, categories=categories)
        assert pair == pytest.approx(function(labels, weights=weights, categories=categories), abs=1e-12)


# ---------------------------------------------------------------------- against peers


def test_the_data_has_missing_labels(vm_ratings):
    assert vm_ratings.shape == (300, 10)
    assert vm_ratings.notna().sum().tolist() == [300, 300, 120, 120, 120, 120, 120, 120, 300, 300]


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_gwet_bp_fleiss_match_irrcac_on_van_miltenburg(vm_ratings, weights):
    labels = vm_ratings.to_numpy(float).T  # rows = raters
    counts = m.category_counts(labels, categories=vm_irrcac.SCALE)
    assert m.gwet_ac(counts, weights=weights) == pytest.approx(vm_irrcac.ALL[vm_irrcac.KEY[weights]]["gwet"], abs=1e-9)
    assert m.brennan_prediger(counts, weights=weights) == pytest.approx(
        vm_irrcac.ALL[vm_irrcac.KEY[weights]]["bp"], abs=1e-9
    )
    assert m.fleiss_kappa(counts, weights=weights) == pytest.approx(
        vm_irrcac.ALL[vm_irrcac.KEY[weights]]["fleiss"], abs=1e-9
    )
    # the label matrix gives the same as the counts
    assert m.gwet_ac(labels, weights=weights, categories=vm_irrcac.SCALE) == m.gwet_ac(counts, weights=weights)


@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_two_rater_forms_with_missing_labels_match_irrcac(vm_ratings, weights):
    pair = vm_ratings[["002", "005"]]
    a, b = pair["002"].to_numpy(), pair["005"].to_numpy()
    expected = vm_irrcac.IRRCAC["pair_002_005"][vm_irrcac.KEY[weights]]
    assert m.gwet_ac(a, b, weights=weights, categories=vm_irrcac.SCALE) == pytest.approx(expected["gwet"], abs=1e-9)
    assert m.brennan_prediger(a, b, weights=weights, categories=vm_irrcac.SCALE) == pytest.approx(
        expected["bp"], abs=1e-9
    )
    assert m.fleiss_kappa([a, b], weights=weights, categories=vm_irrcac.SCALE) == pytest.approx(
        expected["fleiss"], abs=1e-9
    )


def test_precomputed_counts_are_put_on_the_declared_scale():
    """Counts built from the labels used (2 and 3) and then given the whole 1..4 scale: AC
    and BP count q = 4, exactly as when the scale is given from the start."""
    labels = [[2, 3, 3, 2, np.nan], [2, 3, 2, 2, 3], [3, 3, 2, np.nan, 3]]
    used_only = m.category_counts(labels)
    assert used_only.categories.tolist() == [2.0, 3.0]
    for function in (m.gwet_ac, m.brennan_prediger):
        assert function(used_only, categories=vm_irrcac.SCALE) == pytest.approx(
            function(labels, categories=vm_irrcac.SCALE), abs=1e-15
        )
        assert function(used_only, categories=vm_irrcac.SCALE) != pytest.approx(function(used_only), abs=1e-3)
    assert (
        m.category_counts(used_only, categories=vm_irrcac.SCALE).counts.tolist()
        == m.category_counts(labels, categories=vm_irrcac.SCALE).counts.tolist()
    )


def test_precomputed_counts_outside_the_declared_scale_are_refused():
    counts = m.category_counts([[1, 5], [1, 2]])
    with pytest.raises(QRAInputError, match="label 5.0 is not one of the declared categories"):
        m.gwet_ac(counts, categories=vm_irrcac.SCALE)


def test_annotators_of_one_experiment_with_string_labels():
    """Three annotators, string labels, one missing: the same AC1 from labels and counts."""
    labels = [["good", "bad", "good", None], ["good", "bad", "bad", "good"], ["good", "good", "bad", "good"]]
    counts = m.category_counts(labels)
    assert counts.counts.tolist() == [[0, 3], [2, 1], [2, 1], [0, 2]]
    # P_a: units 1 and 4 agree fully (1, 1); units 2 and 3 have 1 agreeing pair of 3 -> mean 2/3
    # pi_good = (1 + 1/3 + 1/3 + 1) / 4 = 2/3, pi_bad = 1/3;
    # P_e = T_w / (q (q - 1)) * sum pi (1 - pi) = 2 / 2 * (2/9 + 2/9) = 4/9  (Gwet 2014, AC1)
    expected = (2 / 3 - 4 / 9) / (1 - 4 / 9)
    assert m.gwet_ac(labels) == pytest.approx(expected, abs=1e-15)
    assert m.gwet_ac(counts) == pytest.approx(expected, abs=1e-15)
