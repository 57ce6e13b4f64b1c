"""measures/correlation_batch.py: the batch forms of r, rho, tau and W (a ``(B, ...)`` stack, the bootstrap's
way): each row equals the scalar measure, value and undefined reason alike."""

from __future__ import annotations

import batch_cases as cases
import numpy as np
import pytest

from qra_widgets import measures as m

# ---------------------------------------------------------------------- the batch form, as the bootstrap calls it


@pytest.mark.parametrize("case", range(len(cases.SCORES)))
def test_type_i_and_ii_measures_give_one_value_and_one_reason_through_both_paths(case):
    scores = cases.SCORES[case]
    stack = scores[None]
    for j in range(scores.shape[1]):
        found = m.cv_star_batch(scores[:, j][None])
        value, reason = cases.scalar(lambda v: m.cv_star(v).cv_star, scores[:, j])
        cases.same(found.values[0], found.reasons[0], value, reason)
    for batch, function in (
        (m.pearson_batch, m.pearson_r),
        (m.spearman_batch, m.spearman_rho),
        (m.tau_b_batch, m.kendall_tau),
    ):
        found = batch(scores[0][None], scores[1][None])
        cases.same(found.values[0], found.reasons[0], *cases.scalar(function, scores[0], scores[1]))
    for name, function in (("r", m.mean_pairwise_r), ("rho", m.mean_pairwise_rho), ("tau", m.mean_pairwise_tau)):
        found, _pairs = m.mean_pairwise_batch(stack, name)
        cases.same(found.values[0], found.reasons[0], *cases.scalar(function, scores))
    for tie_correction in (True, False):
        found = m.kendall_w_batch(stack, tie_correction=tie_correction)
        cases.same(found.values[0], found.reasons[0], *cases.scalar(m.kendall_w, scores, tie_correction=tie_correction))
    for ties in ("sign", "untied"):
        same_pairs, compared = m.rank_counts_batch(stack, ties=ties)
        assert (same_pairs[0], compared[0]) == tuple(vars(m.rank_counts(scores, ties=ties)).values())


def test_a_stack_gives_each_row_its_own_value_and_reason():
    """The bootstrap's form: one call on a stack equals one cases.scalar call per row."""
    stacked = np.stack([s[:, :4] / np.abs(s).max() for s in cases.SCORES])  # rows of one shape
    found = m.kendall_w_batch(stacked)
    for b, scores in enumerate(stacked):
        cases.same(found.values[b], found.reasons[b], *cases.scalar(m.kendall_w, scores))
    cv = m.cv_star_batch(np.swapaxes(stacked, 1, 2))
    for b, scores in enumerate(stacked):
        for j in range(4):
            cases.same(cv.values[b, j], cv.reasons[b, j], *cases.scalar(lambda v: m.cv_star(v).cv_star, scores[:, j]))
    r = m.pearson_batch(stacked[:, 0], stacked[:, 2])
    for b, scores in enumerate(stacked):
        cases.same(r.values[b], r.reasons[b], *cases.scalar(m.pearson_r, scores[0], scores[2]))


def test_ranks_need_no_loop_and_equal_scipy_at_any_number_of_systems():
    from scipy.stats import rankdata

    rng = np.random.default_rng(0)
    values = rng.integers(0, 40, size=(50, 3, 300)).astype(float)  # 300 systems, many ties
    ranks, ties = m.average_ranks(values)
    np.testing.assert_array_equal(ranks, rankdata(values, axis=-1))
    sizes = np.array([[[np.sum(row == v) for v in row] for row in block] for block in values[:2]])
    np.testing.assert_array_equal(ties[:2], sizes)  # each value's tie group size
    w = m.kendall_w_batch(values).values
    assert w == pytest.approx([m.kendall_w(v) for v in values], rel=1e-12)
