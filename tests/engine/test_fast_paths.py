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


def test_mean_pairwise_of_complete_data_is_every_pairs_batch_form_bit_for_bit():
    """The complete-data path (each experiment's ranks and deviations once) against pearson_batch /
    spearman_batch of every experiment pair, on ties, constant rows and values near 1e-300 and 1e300."""
    from itertools import combinations

    rng = np.random.default_rng(0)
    for trial in range(120):
        B, E, S = int(rng.integers(1, 30)), int(rng.integers(2, 7)), int(rng.integers(2, 12))
        stack = rng.integers(0, 4, (B, E, S)).astype(float) * rng.choice([1.0, 0.1, 1e-300, 1e300])
        if trial % 3 == 0:
            stack = rng.normal(size=(B, E, S))
        for measure, batch in (("r", m.pearson_batch), ("rho", m.spearman_batch)):
            found, pairs = m.mean_pairwise_batch(stack, measure)
            expected = [batch(stack[:, i], stack[:, j]) for i, j in combinations(range(E), 2)]
            for (systems, got), want in zip(pairs, expected, strict=True):
                assert systems == S
                assert np.array_equal(got.values, want.values, equal_nan=True)
                assert got.reasons.tolist() == want.reasons.tolist()
            values = np.stack([w.values for w in expected])
            defined = (~np.isnan(values)).sum(0)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = np.where(defined > 0, np.nansum(values, 0) / defined, np.nan)
            assert np.array_equal(found.values, mean, equal_nan=True)


@pytest.mark.parametrize("raters", [2, 3])
def test_annotator_agreement_replicates_pool_units_without_changing_them(raters):
    """The bootstrap sums a replicate's weights per distinct count row (per pair of codes with two
    raters) before the agreement products: against agreement_batch and cohen_kappa_batch on every
    unit's weights (rater_counts, the assessment's own tables) under the same draw."""
    import qra_widgets as qw
    from qra_widgets.ratings import Ratings, rater_counts, scale_categories
    from qra_widgets.uncertainty import bootstrap, design_of, draw_weights

    rng = np.random.default_rng(raters)
    shape = (2, 40, 2, raters)  # systems, items, experiments, raters
    values = np.clip(np.round(3 + rng.normal(0, 0.8, shape[:2])[..., None, None] + rng.normal(0, 0.7, shape)), 1, 5)
    s, i, e, r = (x.ravel() for x in np.indices(shape))
    ratings = Ratings.from_columns(
        ["Q"] * s.size,
        [f"s{k}" for k in s],
        [f"s{a}-i{b}" for a, b in zip(s, i)],
        [f"e{k}" for k in e],
        [f"e{a}-r{b}" for a, b in zip(e, r)],
        values.ravel(),
    )
    qc = qw.QualityCriterion("Q", 1, 5, label_level="ordinal")
    study = qw.Study(
        id="pool",
        quality_criteria=[qc],
        systems=["s0", "s1"],
        experiments=[qw.Experiment("e0"), qw.Experiment("e1")],
        scores={("Q", a, b): v for (a, b), v in ratings.system_means("Q").items()},
        ratings=ratings,
    )
    result = bootstrap(study, B=200, seed=9)
    design = design_of(study)
    weights = draw_weights(design, 200, np.random.default_rng(9))
    for experiment in ("e0", "e1"):
        counted = rater_counts(ratings, "Q", experiment, scale_categories(qc))
        w = weights[design.group_of[experiment]][:, [design.index[u] for u in counted.units]]
        found = m.agreement_batch(
            m.CategoryCounts(counted.counts, counted.categories),
            w,
            measures=("alpha", "fleiss_kappa", "ac1", "bp"),
            level="ordinal",
        )
        for name, batch in found.items():
            got = result.replicates[("annotators", experiment, "Q", name)]
            assert np.allclose(got, batch.values, rtol=0, atol=1e-12, equal_nan=True)
            assert np.isfinite(got).mean() > 0.9
        if raters == 2:
            kappa = m.cohen_kappa_batch(counted.pair[0], counted.pair[1], len(counted.categories), w).values
            assert np.array_equal(result.replicates[("annotators", experiment, "Q", "kappa")], kappa, equal_nan=True)
        else:
            assert ("annotators", experiment, "Q", "kappa") not in result.replicates
