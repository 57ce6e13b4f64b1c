"""Kendall's W p-value beyond seven systems: a seeded Monte-Carlo permutation p with its error (issue 30)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from qra_widgets.errors import QRAInputError
from qra_widgets.measures import kendall_w, kendall_w_pvalue, kendall_w_test


def agreeing(systems: int, experiments: int = 3, noise: float = 1.0, seed: int = 4):
    """Seeded scores: experiments that rank the systems alike up to noise."""
    rng = np.random.default_rng(seed)
    truth = np.linspace(0, 3, systems)
    return truth[None, :] + rng.normal(0, noise, (experiments, systems))


def reference_pvalue(scores, resamples=10_000, seed=99):
    """An independent 10,000-permutation p-value: scipy's permutation_test, each experiment's
    scores shuffled over the systems ("pairings"), statistic W."""
    rows = [np.asarray(row) for row in scores]
    assert kendall_w(np.vstack(rows)) == pytest.approx(w_untied(*rows))  # continuous scores: no ties

    result = stats.permutation_test(
        rows,
        w_untied,
        permutation_type="pairings",
        n_resamples=resamples,
        alternative="greater",
        random_state=seed,
        vectorized=True,
        axis=-1,
    )
    return result.pvalue


def w_untied(*rows, axis=-1):
    """Kendall's W without ties, 12 S / (m^2 (n^3 - n)), over the last axis (vectorised for scipy)."""
    sums = sum(stats.rankdata(row, axis=-1) for row in rows)
    m, n = len(rows), sums.shape[-1]
    return 12 * ((sums - m * (n + 1) / 2) ** 2).sum(axis=-1) / (m**2 * (n**3 - n))


@pytest.mark.parametrize(("systems", "noise"), [(10, 1.0), (15, 1.6)])
def test_w_pvalue_beyond_seven_systems_is_within_monte_carlo_error_of_a_10000_permutation_p(systems, noise):
    scores = agreeing(systems, noise=noise)
    ours = kendall_w_test(scores)
    assert ours.method == "monte-carlo" and ours.draws == 100_000 and ours.seed == 0
    reference = reference_pvalue(scores)
    assert 0.005 < reference < 0.5  # a p-value whose Monte-Carlo error is measurable
    error = np.hypot(ours.mc_se, np.sqrt(reference * (1 - reference) / 10_000))
    assert abs(ours.p - reference) < 4 * error
    assert ours.mc_se == pytest.approx(np.sqrt(ours.p * (1 - ours.p) / 100_000))


def test_chi_square_overstates_the_p_value_with_three_experiments_and_fifteen_systems():
    scores = agreeing(15, noise=0.6, seed=1)
    permutation = kendall_w_pvalue(scores)
    chi2 = kendall_w_pvalue(scores, method="chi2")
    assert permutation < chi2 / 5  # the audit: 0.0039 by chi-square where the permutation p is 0.00003
    assert kendall_w_pvalue(scores) == permutation  # seeded: the same p every time
    assert kendall_w_pvalue(scores, seed=1) != permutation or permutation == 1 / 100_001


def test_up_to_seven_systems_the_p_value_stays_exact():
    found = kendall_w_test(agreeing(6))
    assert found.method == "exact" and found.mc_se == 0.0 and found.draws == 0


def test_monte_carlo_can_be_asked_for_and_refuses_too_few_draws():
    scores = agreeing(5)
    exact, drawn = kendall_w_test(scores), kendall_w_test(scores, method="monte-carlo", draws=50_000)
    assert drawn.method == "monte-carlo" and abs(drawn.p - exact.p) < 4 * drawn.mc_se + 1e-5
    with pytest.raises(QRAInputError, match="draws"):
        kendall_w_pvalue(scores, method="monte-carlo", draws=10)
    with pytest.raises(QRAInputError, match="method"):
        kendall_w_pvalue(scores, method="exact")
