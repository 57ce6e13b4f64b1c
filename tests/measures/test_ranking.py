"""measures/ranking.py: P, the share of system pairs ranked the same way (QRA++ Type IV)."""

from __future__ import annotations

import math

import irrcac_cases as peers
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from measure_extremes import EXTREMES, naive_p

from qra_widgets import QRAInputError, UndefinedMeasureWarning
from qra_widgets import measures as m
from qra_widgets.uncertainty import bootstrap

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning"),
]


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


# ---------------------------------------------------------------------- at the extremes


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


# ---------------------------------------------------------------------- against peers


@pytest.mark.parametrize("pair_signs_up_to", [m.ranking.PAIR_SIGNS_UP_TO, 1], ids=["pair signs", "sorting"])
@peers.PEERS
@given(
    scores=arrays(
        np.float64,
        st.tuples(st.integers(2, 5), st.integers(2, 12)),
        elements=st.one_of(st.integers(0, 4).map(float), st.just(np.nan)),
    )
)
def test_rank_agreement_matches_the_double_loop(pair_signs_up_to, scores):
    """Both ways of counting P (pair signs for few systems, sorting for many) against the loop."""
    same, total = peers.naive_p(scores)
    original = m.ranking.PAIR_SIGNS_UP_TO
    m.ranking.PAIR_SIGNS_UP_TO = pair_signs_up_to
    try:
        assert m.rank_counts(scores) == m.RankCounts(same, total)
    finally:
        m.ranking.PAIR_SIGNS_UP_TO = original


# ---------------------------------------------------------------------- the batch form, as the bootstrap calls it


def test_a_system_drawn_twice_is_not_a_pair_ranked_the_same(qra2022_essay_scoring):
    """QRA 2022 essay scoring, resample="systems": P's interval was (0.59, 0.89) when copies of one
    system counted as a pair ranked the batch.same way; without them (0.54, 0.88) at B = 2,000."""
    study = qra2022_essay_scoring
    result = bootstrap(study, B=2000, seed=1, resample="systems")
    p = result.replicates[("P", "qc", "wF1", None)]
    low, high = np.quantile(p, [0.025, 0.975])
    assert (round(low, 2), round(high, 2)) == (0.54, 0.88)
    picks = np.array([[0, 0, 1, 2]])
    scores = np.array([[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 5.0]])[:, picks[0]][None]
    same_pairs, compared = m.rank_counts_batch(scores, copies=picks)
    assert (same_pairs[0], compared[0]) == (5, 5)  # 6 pairs less the copy pair (0, 0)
    assert tuple(x[0] for x in m.rank_counts_batch(scores)) == (
        6,
        6,
    )  # the earlier count: the copy pair "ranked the batch.same"
    w = m.kendall_w_batch(np.repeat(scores, 1, axis=0), tie_correction=False, copies=picks).values[0]
    assert w == pytest.approx(1.0)  # two experiments ranking the drawn systems alike: W = 1 with or without ties
