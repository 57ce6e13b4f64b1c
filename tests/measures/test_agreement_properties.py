"""Property tests: every agreement measure against an independent implementation.

Peers (test-only dependencies): scikit-learn (Cohen's kappa without missing labels,
percent agreement), statsmodels (Fleiss' kappa), the ``krippendorff`` package (alpha, all
four levels), and brute force (P, adjacent agreement, W).  Random data has ties and missing
values.

irrCAC (Cohen's kappa with missing labels via ``conger()``, Gwet's AC1/AC2, Brennan-Prediger
and Fleiss' kappa, weighted, any number of raters, missing labels) pins old releases of scipy
and pandas, so it never runs in the test environment: its values on 120 seeded random label
matrices are committed in ``tests/data/reference/irrcac_random.json`` with the irrCAC version
and the command that made them (``tests/data/reference/make_irrcac_reference.py``).
"""

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import qra_widgets as qw
from qra_widgets import measures as m

# the peers' own noise, not ours
pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning"),
]

# local settings (not a global profile, which would change every other module's tests)
PEERS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Q = 4  # categories 1..Q
IRRCAC = json.loads((Path(__file__).parents[1] / "data" / "reference" / "irrcac_random.json").read_text())
WEIGHTS = {"none": None, "linear": "linear", "quadratic": "quadratic"}
CASES = [(index, name, np.array(case["labels"], dtype=float), case["irrcac"][name])
         for index, case in enumerate(IRRCAC["cases"]) for name in WEIGHTS]
CASE_IDS = [f"case{index}-{name}" for index, name, _, _ in CASES]


@st.composite
def label_matrix(draw, min_raters=2, max_raters=5, missing=True):
    raters = draw(st.integers(min_raters, max_raters))
    items = draw(st.integers(2, 30))
    values = draw(arrays(np.float64, (raters, items), elements=st.integers(1, Q).map(float)))
    if missing:
        mask = draw(arrays(np.bool_, (raters, items), elements=st.booleans()))
        values = np.where(mask & (draw(st.floats(0, 0.4)) > 0.2), np.nan, values)
    return values


@st.composite
def label_pair(draw, missing=False):
    labels = draw(label_matrix(2, 2, missing=missing))
    return labels[0], labels[1]


def _complete_pairs(a, b):
    keep = ~np.isnan(a) & ~np.isnan(b)
    return a[keep].astype(int), b[keep].astype(int)


@PEERS
@given(label_pair(missing=False), st.sampled_from([None, "linear", "quadratic"]))
def test_cohen_kappa_matches_scikit_learn(pair, weights):
    """Without missing labels the missing-label rule plays no part: scikit-learn's value."""
    from sklearn.metrics import cohen_kappa_score

    a, b = pair[0].astype(int), pair[1].astype(int)
    categories = list(range(1, Q + 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = cohen_kappa_score(a, b, labels=categories, weights=weights)
    assume(np.isfinite(expected))
    ours = m.cohen_kappa(pair[0], pair[1], weights=weights, categories=categories)
    assert ours == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("index, weights, labels, expected", [c for c in CASES if len(c[2]) == 2],
                         ids=[i for i, c in zip(CASE_IDS, CASES) if len(c[2]) == 2])
def test_cohen_kappa_with_missing_labels_matches_irrcac(index, weights, labels, expected):
    """The missing-label rule: P_a over items both labelled, each rater's distribution over
    all its labels -- irrCAC's ``conger()``, which for two raters is Cohen's kappa."""
    if not (~np.isnan(labels)).all(axis=0).any() or len(np.unique(labels[~np.isnan(labels)])) < 2:
        # irrCAC has no value here; ours is undefined too: nan, by the one undefined rule
        with pytest.warns(qw.UndefinedMeasureWarning):
            assert np.isnan(m.cohen_kappa(labels[0], labels[1], weights=WEIGHTS[weights],
                                          categories=list(map(float, range(1, Q + 1)))))
        return
    ours = m.cohen_kappa(labels[0], labels[1], weights=WEIGHTS[weights], categories=list(map(float, range(1, Q + 1))))
    assert ours == pytest.approx(expected["conger"], abs=1e-9)


@PEERS
@given(label_pair(missing=True))
def test_percent_agreement_matches_scikit_learn_accuracy(pair):
    from sklearn.metrics import accuracy_score

    a, b = _complete_pairs(*pair)
    assume(a.size >= 1)
    assert m.percent_agreement(*pair) == pytest.approx(accuracy_score(a, b))


@PEERS
@given(label_pair(missing=True), st.integers(0, 3))
def test_adjacent_agreement_matches_brute_force(pair, tolerance):
    a, b = _complete_pairs(*pair)
    assume(a.size >= 1)
    assert m.adjacent_agreement(*pair, tolerance=tolerance) == pytest.approx(np.mean(np.abs(a - b) <= tolerance))


@PEERS
@given(label_matrix(missing=False))
def test_fleiss_kappa_matches_statsmodels(labels):
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    table, _ = aggregate_raters(labels.T.astype(int))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = fleiss_kappa(table)
    assume(np.isfinite(expected))
    assert m.fleiss_kappa(labels) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("index, weights, labels, expected", [c for c in CASES if len(c[2]) == 2],
                         ids=[i for i, c in zip(CASE_IDS, CASES) if len(c[2]) == 2])
def test_gwet_ac_and_bp_match_irrcac(index, weights, labels, expected):
    if not (~np.isnan(labels)).all(axis=0).any():
        with pytest.warns(qw.UndefinedMeasureWarning):  # nothing to compare: undefined, as irrCAC has no value
            assert np.isnan(m.gwet_ac(labels[0], labels[1], weights=WEIGHTS[weights], categories=list(map(float, range(1, Q + 1)))))
        return
    categories = list(map(float, range(1, Q + 1)))
    ac = m.gwet_ac(labels[0], labels[1], weights=WEIGHTS[weights], categories=categories)
    bp = m.brennan_prediger(labels[0], labels[1], weights=WEIGHTS[weights], categories=categories)
    assert ac == pytest.approx(expected["gwet"], abs=1e-9)
    assert bp == pytest.approx(expected["bp"], abs=1e-9)


@pytest.mark.parametrize("index, weights, labels, expected", CASES, ids=CASE_IDS)
def test_multi_rater_ac_bp_fleiss_match_irrcac(index, weights, labels, expected):
    """Gwet (2014)'s multi-rater AC1/AC2, BP and weighted Fleiss' kappa, missing labels
    allowed, from the labels and from precomputed counts."""
    if (~np.isnan(labels)).sum(axis=0).max() < 2:
        with pytest.warns(qw.UndefinedMeasureWarning):  # no item with two labels: undefined, as irrCAC has no value
            assert np.isnan(m.gwet_ac(labels, categories=list(map(float, range(1, Q + 1)))))
        return
    categories = list(map(float, range(1, Q + 1)))
    counts = m.category_counts(labels)
    weights = WEIGHTS[weights]
    assert m.gwet_ac(labels, weights=weights, categories=categories) == pytest.approx(expected["gwet"], abs=1e-9)
    assert m.gwet_ac(counts, weights=weights, categories=categories) == pytest.approx(expected["gwet"], abs=1e-9)
    assert m.brennan_prediger(counts, weights=weights, categories=categories) == pytest.approx(expected["bp"], abs=1e-9)
    if len(np.unique(labels[~np.isnan(labels)])) >= 2:
        assert m.fleiss_kappa(counts, weights=weights, categories=categories) == pytest.approx(expected["fleiss"], abs=1e-9)


def test_the_irrcac_reference_says_where_it_came_from():
    """The committed peer values name their source, the irrCAC version and the command."""
    assert IRRCAC["versions"]["irrCAC"] == "0.4.4" and "make_irrcac_reference.py" in IRRCAC["command"]
    assert len(CASES) == 360 and sum(len(c[2]) == 2 for c in CASES) >= 120
    assert sum(np.isnan(c[2]).any() for c in CASES) >= 180  # most matrices have missing labels


@PEERS
@given(label_matrix(2, 2, missing=True), st.sampled_from([None, "linear", "quadratic"]))
def test_two_rater_and_matrix_forms_agree(labels, weights):
    """``gwet_ac(a, b)`` (the O(q^2) pair table) and ``gwet_ac([a, b])`` (the count matrix)."""
    assume((~np.isnan(labels)).all(axis=0).any())
    categories = list(map(float, range(1, Q + 1)))
    for function in (m.gwet_ac, m.brennan_prediger):
        pair = function(labels[0], labels[1], weights=weights, categories=categories)
        assert pair == pytest.approx(function(labels, weights=weights, categories=categories), abs=1e-12)


@pytest.mark.parametrize("index, weights, labels, expected", [c for c in CASES if c[1] == "none"],
                         ids=[i for i, c in zip(CASE_IDS, CASES) if c[1] == "none"])
def test_fleiss_kappa_with_missing_matches_irrcac(index, weights, labels, expected):
    if (~np.isnan(labels)).sum(axis=0).max() < 2 or len(np.unique(labels[~np.isnan(labels)])) < 2:
        with pytest.warns(qw.UndefinedMeasureWarning):  # undefined, as irrCAC has no value
            assert np.isnan(m.fleiss_kappa(labels, categories=list(map(float, range(1, Q + 1)))))
        return
    assert m.fleiss_kappa(labels, categories=list(map(float, range(1, Q + 1)))) == pytest.approx(expected["fleiss"], abs=1e-9)


@PEERS
@given(label_matrix(missing=True), st.sampled_from(["nominal", "ordinal", "interval", "ratio"]))
def test_krippendorff_alpha_matches_krippendorff_package(labels, level):
    import krippendorff

    pairable = (~np.isnan(labels)).sum(axis=0) >= 2
    assume(pairable.any() and len(np.unique(labels[:, pairable][~np.isnan(labels[:, pairable])])) >= 2)
    expected = krippendorff.alpha(reliability_data=labels, level_of_measurement=level)
    assert m.krippendorff_alpha(labels, level=level) == pytest.approx(expected, abs=1e-9)


def naive_p(scores):
    same = total = 0
    for i, j in combinations(range(scores.shape[0]), 2):
        for a, b in combinations(range(scores.shape[1]), 2):
            cells = scores[[i, i, j, j], [a, b, a, b]]
            if np.isnan(cells).any():
                continue
            total += 1
            same += np.sign(cells[0] - cells[1]) == np.sign(cells[2] - cells[3])
    return same, total


@pytest.mark.parametrize("pair_signs_up_to", [m.ranking.PAIR_SIGNS_UP_TO, 1], ids=["pair signs", "sorting"])
@PEERS
@given(scores=arrays(np.float64, st.tuples(st.integers(2, 5), st.integers(2, 12)),
                     elements=st.one_of(st.integers(0, 4).map(float), st.just(np.nan))))
def test_rank_agreement_matches_the_double_loop(pair_signs_up_to, scores):
    """Both ways of counting P (pair signs for few systems, sorting for many) against the loop."""
    same, total = naive_p(scores)
    original = m.ranking.PAIR_SIGNS_UP_TO
    m.ranking.PAIR_SIGNS_UP_TO = pair_signs_up_to
    try:
        assert m.rank_counts(scores) == m.RankCounts(same, total)
    finally:
        m.ranking.PAIR_SIGNS_UP_TO = original


@PEERS
@given(st.integers(2, 6), st.integers(2, 15), st.randoms(use_true_random=False))
def test_kendall_w_equals_mean_spearman_identity_without_ties(raters, systems, rnd):
    """Without ties, mean pairwise rho = (m W - 1) / (m - 1) (Kendall & Babington Smith)."""
    scores = np.array([rnd.sample(range(100), systems) for _ in range(raters)], dtype=float)
    w = m.kendall_w(scores)
    assert m.mean_pairwise_rho(scores) == pytest.approx((raters * w - 1) / (raters - 1), abs=1e-9)
