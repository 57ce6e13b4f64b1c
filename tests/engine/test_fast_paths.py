"""The engine's fast paths give what the plain paths give: assess's CV* without the batch set-up,
weights drawn for every system in one call, warm-started Bradley-Terry refits."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from qra_widgets import measures as m
from qra_widgets.errors import UndefinedMeasureWarning
from qra_widgets.judgements import draw_within
from qra_widgets.measures.pairwise import bradley_terry_batch
from qra_widgets.measures.precision import cv_star_checked


def test_cv_star_checked_is_the_batch_form_bit_for_bit_on_random_values():
    rng = np.random.default_rng(0)
    for _ in range(3000):
        n = int(rng.integers(2, 12))
        values = rng.normal(rng.uniform(-2, 5), rng.uniform(0, 3), n) * rng.choice([1e-200, 1e-5, 1.0, 100.0, 1e150])
        values = np.round(values, 1) if rng.random() < 0.1 else values
        scale_min = None if rng.random() < 0.5 else float(np.floor(values.min()))
        factor = bool(rng.random() < 0.7)
        shifted = values if scale_min is None else values - scale_min
        magnitude = max(np.abs(values).max(), 0.0 if scale_min is None else abs(scale_min))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMeasureWarning)
            one = cv_star_checked(values, scale_min=scale_min, small_sample_factor=factor)
            public = m.cv_star(values, scale_min=scale_min, small_sample_factor=factor)
        batch = m.cv_star_batch(shifted[None], magnitude=magnitude, small_sample_factor=factor)
        assert repr(one) == repr(public)  # every field, nan included (repr is exact for floats)
        assert (one.cv_star == batch.values[0]) or (np.isnan(one.cv_star) and np.isnan(batch.values[0]))
        assert one.reason == batch.reasons[0]


def test_weights_drawn_in_one_call_are_a_uniform_multinomial_within_each_stratum():
    strata = np.array([2, 0, 0, 1, 1, 1, 0, 2, 2, 2])  # any order: the counts follow each member's stratum
    counts = draw_within(strata, 20_000, np.random.default_rng(1), np.zeros((20_000, len(strata))))
    for s in (0, 1, 2):
        members = strata == s
        k = members.sum()
        assert set(counts[:, members].sum(axis=1)) == {k}  # each replicate keeps the stratum's size
        # multinomial(k, 1/k): mean 1 and variance (k - 1)/k per member
        assert counts[:, members].mean() == pytest.approx(1.0, abs=0.02)
        assert counts[:, members].var() == pytest.approx((k - 1) / k, rel=0.05)
    same = draw_within(strata, 700, np.random.default_rng(5), np.zeros((700, 10)), rows=256)
    assert np.array_equal(same, draw_within(strata, 700, np.random.default_rng(5), np.zeros((700, 10)), rows=700))


def test_warm_started_bradley_terry_refits_equal_each_matrix_fitted_alone():
    rng = np.random.default_rng(0)
    systems = 12
    strength = rng.normal(0, 1, systems)
    base = np.zeros((systems, systems))
    for _ in range(3000):
        i, j = rng.choice(systems, 2, replace=False)
        winner, loser = (i, j) if rng.random() < 1 / (1 + np.exp(strength[j] - strength[i])) else (j, i)
        base[winner, loser] += 1
    wins = np.stack([rng.poisson(base) for _ in range(60)]).astype(float)
    together = bradley_terry_batch(wins).values
    alone = np.stack([bradley_terry_batch(w[None]).values[0] for w in wins])  # one matrix: no warm start
    assert np.nanmax(np.abs(together - alone)) < 1e-9
    assert not np.isnan(together).any()


def test_the_t_quantile_of_cv_star_is_scipy_stats_value_without_importing_scipy_stats():
    from scipy.stats import t

    from qra_widgets.measures.precision import _t_quantile

    assert all(_t_quantile(df) == float(t.ppf(0.975, df)) for df in range(1, 2001))
