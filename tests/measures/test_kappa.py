"""measures/kappa.py: Cohen's and Fleiss' kappa."""

from __future__ import annotations

import math
from fractions import Fraction

import irrcac_cases as peers
import numpy as np
import pytest
import vanmiltenburg_irrcac as vm_irrcac
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from measure_extremes import EXTREMES, kappa_pair, quiet

import qra_widgets as qw
from qra_widgets import QRAInputError, UndefinedMeasureWarning
from qra_widgets import measures as m

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning"),
]


# Malformed labels and options: tests/measures/test_agreement.py (one table for every coefficient).


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
@given(
    st.integers(10, 10**5),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 3),
    st.sampled_from([None, "linear", "quadratic"]),
)
def test_cohen_kappa_near_unanimity_matches_scikit_learn(common, rare_agree, a1_b0, a0_b1, weights):
    from sklearn.metrics import cohen_kappa_score

    a, b = kappa_pair(common, rare_agree, a1_b0, a0_b1)
    value, reasons = quiet(m.cohen_kappa, a, b, weights=weights)
    if len(np.union1d(a, b)) == 1:
        assert math.isnan(value) and reasons == [
            "kappa is undefined: only one category is used, so chance agreement is 1"
        ]
    else:
        assert not reasons
        assert value == pytest.approx(cohen_kappa_score(a, b, weights=weights), rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------------- against peers


@peers.PEERS
@given(peers.label_pair(missing=False), st.sampled_from([None, "linear", "quadratic"]))
def test_cohen_kappa_matches_scikit_learn(pair, weights):
    """Without missing labels the missing-label rule plays no part: scikit-learn's value."""
    from sklearn.metrics import cohen_kappa_score

    a, b = pair[0].astype(int), pair[1].astype(int)
    categories = list(range(1, peers.Q + 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = cohen_kappa_score(a, b, labels=categories, weights=weights)
    assume(np.isfinite(expected))
    ours = m.cohen_kappa(pair[0], pair[1], weights=weights, categories=categories)
    assert ours == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    "index, weights, labels, expected",
    [c for c in peers.CASES if len(c[2]) == 2],
    ids=[i for i, c in zip(peers.CASE_IDS, peers.CASES) if len(c[2]) == 2],
)
def test_cohen_kappa_with_missing_labels_matches_irrcac(index, weights, labels, expected):
    """The missing-label rule: P_a over items both labelled, each rater's distribution over
    all its labels -- irrCAC's ``conger()``, which for two raters is Cohen's kappa."""
    if not (~np.isnan(labels)).all(axis=0).any() or len(np.unique(labels[~np.isnan(labels)])) < 2:
        # irrCAC has no value here; ours is undefined too: nan, by the one undefined rule
        with pytest.warns(qw.UndefinedMeasureWarning):
            assert np.isnan(
                m.cohen_kappa(
                    labels[0],
                    labels[1],
                    weights=peers.WEIGHTS[weights],
                    categories=list(map(float, range(1, peers.Q + 1))),
                )
            )
        return
    ours = m.cohen_kappa(
        labels[0], labels[1], weights=peers.WEIGHTS[weights], categories=list(map(float, range(1, peers.Q + 1)))
    )
    assert ours == pytest.approx(expected["conger"], abs=1e-9)


@peers.PEERS
@given(peers.label_matrix(missing=False))
def test_fleiss_kappa_matches_statsmodels(labels):
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    table, _ = aggregate_raters(labels.T.astype(int))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = fleiss_kappa(table)
    assume(np.isfinite(expected))
    assert m.fleiss_kappa(labels) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    "index, weights, labels, expected",
    [c for c in peers.CASES if c[1] == "none"],
    ids=[i for i, c in zip(peers.CASE_IDS, peers.CASES) if c[1] == "none"],
)
def test_fleiss_kappa_with_missing_matches_irrcac(index, weights, labels, expected):
    if (~np.isnan(labels)).sum(axis=0).max() < 2 or len(np.unique(labels[~np.isnan(labels)])) < 2:
        with pytest.warns(qw.UndefinedMeasureWarning):  # undefined, as irrCAC has no value
            assert np.isnan(m.fleiss_kappa(labels, categories=list(map(float, range(1, peers.Q + 1)))))
        return
    assert m.fleiss_kappa(labels, categories=list(map(float, range(1, peers.Q + 1)))) == pytest.approx(
        expected["fleiss"], abs=1e-9
    )


# ---------------------------------------------------------------------- against peers


def test_cohen_kappa_with_missing_labels_matches_irrcac_on_van_miltenburg(vm_ratings):
    """Raters 001 (all 300 items) and 003 (120 items): 180 items have one label only.
    P_a is over the 120 paired items; each rater's distribution over all its labels
    (irrCAC's Conger kappa, which is Cohen's kappa for two raters)."""
    pair = vm_ratings[["001", "003"]]
    ours = m.cohen_kappa(pair["001"].to_numpy(), pair["003"].to_numpy(), categories=vm_irrcac.SCALE)
    assert ours == pytest.approx(vm_irrcac.IRRCAC["pair_001_003_conger"], abs=1e-9)
    paired = pair.dropna()
    assert len(paired) == 120
    from sklearn.metrics import cohen_kappa_score

    # dropping the 180 unpaired items (scikit-learn's only option) gives another number
    dropped = cohen_kappa_score(paired["001"].astype(int), paired["003"].astype(int), labels=[1, 2, 3, 4])
    assert abs(ours - dropped) > 1e-3
    assert m.cohen_kappa(
        paired["001"].to_numpy(), paired["003"].to_numpy(), categories=vm_irrcac.SCALE
    ) == pytest.approx(dropped, abs=1e-12)


# ---------------------------------------------------------------------- the batch form, as the bootstrap calls it


def test_fleiss_kappa_reads_a_count_table_as_statsmodels_does_or_refuses_it():
    """statsmodels' example table (items x categories, 10 raters per item): silently read as raters x
    items, the earlier fleiss_kappa gave a wrong number instead of statsmodels' kappa."""
    from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

    rng = np.random.default_rng(0)
    table = np.array([rng.multinomial(10, p) for p in rng.dirichlet([0.4, 0.4, 0.4, 0.4], size=30)])
    expected = statsmodels_fleiss(table)
    assert m.fleiss_kappa(table, layout="items x categories") == pytest.approx(expected, rel=1e-12)
    with pytest.raises(QRAInputError, match="items x categories"):
        m.fleiss_kappa(table)
    labels = np.repeat(np.arange(4.0), table[0])[None]  # the batch.same data as raters x items still works
    assert np.isfinite(m.fleiss_kappa(np.vstack([np.array([1.0, 2, 3]), [1.0, 2, 2]])))
    assert labels.shape == (1, 10)
