"""System values and tests from pairwise and best-worst judgements (qra_widgets.measures.pairwise)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests

import qra_widgets as qw
from qra_widgets.measures.pairwise import (
    best_worst_scores,
    bradley_terry,
    holm,
    preference_scores,
    sign_tests,
    win_rates,
)


def random_judgements(seed: int, n: int = 400):
    rng = np.random.default_rng(seed)
    systems = np.array(["s0", "s1", "s2", "s3"], dtype=object)
    a = rng.integers(0, 4, n)
    b = (a + rng.integers(1, 4, n)) % 4
    strength = np.array([1.0, 0.4, 0.0, -0.6])
    p = 1 / (1 + np.exp(strength[b] - strength[a]))
    u = rng.random(n)
    outcome = np.where(u < 0.1, "tie", np.where(u < 0.1 + 0.9 * p, "a", "b")).astype(object)
    return systems[a], systems[b], outcome


@pytest.mark.parametrize("seed", range(5))
def test_preference_is_twice_the_half_tie_win_rate_minus_100(seed):
    a, b, o = random_judgements(seed)
    preference, rate = preference_scores(a, b, o), win_rates(a, b, o, ties="half")
    assert preference.keys() == rate.keys()
    for system in preference:
        assert preference[system] == pytest.approx(2 * rate[system] - 100, abs=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_pairwise_judgements_as_two_shown_best_worst_tuples_give_the_preference_score(seed):
    a, b, o = random_judgements(seed)
    keep = o != "tie"  # best-worst has no ties
    a, b, o = a[keep], b[keep], o[keep]
    best = np.where(o == "a", a, b)
    worst = np.where(o == "a", b, a)
    assert best_worst_scores(list(zip(a, b)), best, worst) == pytest.approx(preference_scores(a, b, o))


def test_bradley_terry_orders_systems_by_their_true_strength():
    a, b, o = random_judgements(11, n=3000)
    values = bradley_terry(a, b, o)
    assert values["s0"] > values["s1"] > values["s2"] > values["s3"]
    assert np.mean(list(values.values())) == pytest.approx(50.0, abs=1e-9)  # P(i beats j) + P(j beats i) = 1


def test_sign_tests_equal_scipy_binomtest_and_statsmodels_holm():
    a, b, o = random_judgements(3)
    frame = pd.DataFrame(sign_tests(a, b, o))
    assert len(frame) == 6
    for row in frame.itertuples():
        assert row.p == pytest.approx(binomtest(row.wins_x, row.wins_x + row.wins_y, 0.5).pvalue, rel=1e-12)
    assert np.allclose(frame.p_holm, multipletests(frame.p, method="holm")[1])


def test_holm_leaves_nan_out_of_the_family():
    adjusted = holm([0.01, float("nan"), 0.04])
    assert np.isnan(adjusted[1]) and adjusted[[0, 2]].tolist() == pytest.approx([0.02, 0.04])
    assert np.isnan(holm([float("nan")])).all() and holm([]).size == 0


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: preference_scores(["x"], ["x"], ["a"]), "position 0 compares 'x' with itself"),
        (lambda: preference_scores(["x"], ["y"], ["A"]), "outcome: value 'A' at position 0 is not one of a, b, tie"),
        (lambda: win_rates(["x"], ["y"], ["a"], ties="drop"), "ties: must be one of half, exclude"),
        (lambda: preference_scores(["x", "y"], ["y"], ["a"]), "three 1-D sequences of the same length"),
        (lambda: best_worst_scores([["x", "y"]], ["z"], ["x"]), "'z' / 'x' is not among the systems shown"),
    ],
)
def test_malformed_judgements_are_refused_by_name(call, message):
    with pytest.raises(qw.QRAInputError, match=message):
        call()
