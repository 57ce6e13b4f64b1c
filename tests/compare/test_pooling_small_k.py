"""Small-k pooling (issue 30): the Knapp–Hartung / Sidik–Jonkman interval, the Q-profile
intervals of τ² and I², and REML at the boundary τ² = 0 (qra_widgets.meta)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from test_meta import bcg_log_risk_ratios, three_lab_study

from qra_widgets.errors import QRAInputError
from qra_widgets.meta import _generalised_q, _restricted_loglik, q_profile, random_effects, typical_variance

combine_effects = pytest.importorskip("statsmodels.stats.meta_analysis").combine_effects

REFERENCE = Path(__file__).parents[1] / "data" / "reference"


def random_families(count=40, seed=11):
    """Seeded families of 3-8 values whose DerSimonian–Laird τ² is positive (statsmodels does
    not floor it, so only then are the two τ² the same)."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        k = int(rng.integers(3, 9))
        se = rng.uniform(0.05, 0.4, k)
        y = rng.normal(1.0, np.sqrt(se**2 + 0.05))
        if combine_effects(y, se**2, method_re="chi2").tau2 > 0:
            found.append((y, se))
    return found


def test_hksj_interval_equals_the_one_built_from_statsmodels_var_hksj_re_to_1e9():
    for y, se in [bcg_log_risk_ratios(), *random_families()]:
        ours = random_effects(y, se, method="DL")  # ci_method="hksj" is the default
        theirs = combine_effects(y, se**2, method_re="chi2")
        half = stats.t.ppf(0.975, len(y) - 1) * math.sqrt(theirs.var_hksj_re)
        assert ours.ci_method == "hksj"
        assert ours.se == pytest.approx(math.sqrt(theirs.var_hksj_re), abs=1e-9)
        assert (ours.ci_low, ours.ci_high) == pytest.approx(
            (theirs.mean_effect_re - half, theirs.mean_effect_re + half), abs=1e-9
        )
        # and statsmodels' own t interval on its WLS scale (conf_int(use_t=True), the 4th pair)
        assert (ours.ci_low, ours.ci_high) == pytest.approx(tuple(theirs.conf_int(use_t=True)[3]), abs=1e-9)


def test_method_and_ci_method_accept_any_case_and_refuse_others():
    y, se = bcg_log_risk_ratios()
    assert random_effects(y, se, method="REML") == random_effects(y, se, method="reml")
    assert random_effects(y, se, method="Dl", ci_method="Z") == random_effects(y, se, method="dl", ci_method="z")
    with pytest.raises(QRAInputError, match="ci_method"):
        random_effects(y, se, ci_method="t")


def test_z_interval_is_kept_as_an_option_and_is_narrower_at_k_3():
    y, se = [0.1, 0.5, 0.3], [0.1, 0.1, 0.1]
    z, hksj = random_effects(y, se, ci_method="z"), random_effects(y, se)
    assert z.ci_method == "z" and z.se == z.se_model
    assert z.ci_high - z.ci_low < hksj.ci_high - hksj.ci_low


def test_q_profile_intervals_equal_metafors_confint_on_the_bcg_trials():
    reference = json.loads((REFERENCE / "metafor_bcg_confint.json").read_text())
    printed = reference["confint"]
    y, se = bcg_log_risk_ratios()
    ours = random_effects(y, se, method="reml")
    # tau^2 and its interval to metafor's 4 printed decimals
    assert [round(x, 4) for x in (ours.tau2, ours.tau2_low, ours.tau2_high)] == printed["tau^2"]
    assert [round(math.sqrt(x), 4) for x in (ours.tau2, ours.tau2_low, ours.tau2_high)] == printed["tau"]
    # I^2 as metafor's confint derives it: 100 tau^2 / (tau^2 + s^2)
    s2 = typical_variance(se**2)
    assert round(100 * ours.tau2 / (ours.tau2 + s2), 4) == printed["I^2(%)"][0]
    assert round(100 * ours.i2_high, 4) == printed["I^2(%)"][2]
    assert round(1 / (1 - ours.i2_high), 3) == round(printed["H^2"][2], 3)
    # metafor's lower bound comes from uniroot(tol = 1.22e-4): its printed I^2 81.9177 is the tau^2
    # 0.11967 (ours 0.119718, the exact root); the two differ by less than that tolerance
    i2 = printed["I^2(%)"][1] / 100
    assert abs(i2 * s2 / (1 - i2) - ours.tau2_low) < reference["uniroot_tol"]
    assert round(100 * ours.i2_low, 2) == 81.92 and round(1 / (1 - ours.i2_low), 2) == round(printed["H^2"][1], 2)
    # the exact root: Q(tau^2) equals the chi^2(12) quantiles (Viechtbauer 2007)
    assert _generalised_q(ours.tau2_low, y, se**2) == pytest.approx(stats.chi2.ppf(0.975, 12), abs=1e-9)
    assert _generalised_q(ours.tau2_high, y, se**2) == pytest.approx(stats.chi2.ppf(0.025, 12), abs=1e-9)


def test_q_profile_bounds_are_zero_when_q_at_zero_is_already_below_the_quantile():
    y, se = np.array([1.0, 1.01, 0.99]), np.array([0.2, 0.2, 0.2])
    assert q_profile(y, se**2) == (0.0, 0.0)
    ours = random_effects(y, se)
    assert (ours.tau2_low, ours.tau2_high, ours.i2_low, ours.i2_high) == (0.0, 0.0, 0.0, 0.0)


def test_reml_returns_zero_where_the_restricted_likelihood_is_largest_at_zero():
    # one of 400 generated families (k = 3) where the old fixed-point iteration from the DL start
    # stopped at a stationary point tau^2 = 0.0774 whose restricted likelihood is below that at 0
    y = np.array([-0.04906771375731498, 0.8885023503498167, -0.2871393003878415])
    se = np.array([0.10006012465598954, 0.4852591113554665, 0.22754631654416918])
    ours = random_effects(y, se, method="reml")
    assert ours.tau2 == 0.0
    grid = np.concatenate([[0.0], np.geomspace(1e-8, 10, 4000)])
    loglik = _restricted_loglik(grid, y, se**2)
    assert loglik[0] == loglik.max()
    assert _restricted_loglik(np.array([0.0774]), y, se**2)[0] < loglik[0]


def test_reml_finds_the_interior_maximum_when_there_is_one():
    y, se = bcg_log_risk_ratios()
    tau2 = random_effects(y, se).tau2
    grid = np.linspace(0.2, 0.45, 2001)
    assert abs(grid[np.argmax(_restricted_loglik(grid, y, se**2))] - tau2) < 2e-4


@pytest.mark.slow
def test_the_default_pooled_interval_covers_the_mean_in_at_least_93_percent_at_k_3():
    # 1,000 seeded families of k = 3 experiments, tau^2 = 0.05, standard errors 0.1..0.2 (reproductions
    # of similar size). With very unequal ones (0.05..0.3) Knapp-Hartung covers about 93% (docs/coverage.md;
    # Jackson et al. 2017 describe this)
    rng = np.random.default_rng(2026)
    hits = {"hksj": 0, "z": 0}
    reps = 1000
    for _ in range(reps):
        se = rng.uniform(0.1, 0.2, 3)
        y = rng.normal(0.0, math.sqrt(0.05), 3) + rng.normal(0.0, se)
        for method in hits:
            pooled = random_effects(y, se, ci_method=method)
            hits[method] += pooled.ci_low <= 0.0 <= pooled.ci_high
    assert hits["hksj"] / reps >= 0.93
    assert hits["z"] / reps < 0.90  # the normal interval is too narrow here


def test_forest_has_a_ci_method_column_and_the_q_profile_intervals_on_the_pooled_row():
    import qra_widgets as qw

    result = qw.assess(three_lab_study())
    frame = qw.forest(result, quality_criterion="Fluency", system="A")
    pooled = frame[frame.row == "pooled"].iloc[0]
    experiments = frame[frame.row == "experiment"]
    expected = random_effects(experiments.value, experiments.se)
    assert pooled.ci_method == "hksj" and (pooled.ci_low, pooled.ci_high) == (expected.ci_low, expected.ci_high)
    assert (pooled.tau2_low, pooled.tau2_high) == (expected.tau2_low, expected.tau2_high)
    assert (pooled.i2_low, pooled.i2_high) == pytest.approx((100 * expected.i2_low, 100 * expected.i2_high))
    z = qw.forest(result, quality_criterion="Fluency", system="A", method="REML", ci_method="z")
    assert z[z.row == "pooled"].iloc[0].ci_method == "z" and z.attrs["method"] == "reml"
