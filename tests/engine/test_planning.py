"""The reproduction planner: its model of the original's raters, both designs, and its expected
widths against a brute-force simulation from a known truth."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import qra_widgets as qw
from qra_widgets import measures as m
from qra_widgets.intervals import interval
from qra_widgets.planning import PLAN_COLUMNS, _model_for, plan_reproduction, simulate_team
from qra_widgets.ratings import Ratings
from qra_widgets.study import Experiment, QualityCriterion, Study
from qra_widgets.uncertainty import bootstrap

QC = QualityCriterion("Quality", scale_min=1, scale_max=5, label_level="ordinal")
MU = np.array([2.6, 3.0, 3.4, 3.8])  # four systems
SD_ITEM, SD_RATER, SD_NOISE = 0.8, 0.4, 0.7


def latent_team(experiment: str, items: int, raters: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``(system, item, experiment, rater, rating)`` of one team from the known truth: new items and raters."""
    a = rng.normal(0, SD_ITEM, (len(MU), items))
    b = rng.normal(0, SD_RATER, raters)
    y = np.clip(
        np.round(MU[:, None, None] + a[:, :, None] + b + rng.normal(0, SD_NOISE, (len(MU), items, raters))), 1, 5
    )
    s, i, r = np.meshgrid(np.arange(len(MU)), np.arange(items), np.arange(raters), indexing="ij")
    return [
        np.array([f"s{k}" for k in s.ravel()], dtype=object),
        np.array([f"{experiment}-s{x}-i{k}" for x, k in zip(s.ravel(), i.ravel())], dtype=object),
        np.full(y.size, experiment, dtype=object),
        np.array([f"{experiment}-r{k}" for k in r.ravel()], dtype=object),
        y.ravel(),
    ]


def study_of(*teams) -> Study:
    columns = [np.concatenate(c) for c in zip(*teams)]
    ratings = Ratings.from_columns(np.full(len(columns[0]), QC.name, dtype=object), *columns)
    names = list(dict.fromkeys(columns[2]))
    return Study(
        id="sim",
        quality_criteria=[QC],
        systems=[f"s{k}" for k in range(len(MU))],
        experiments=[Experiment(e, role="original" if k == 0 else "repeat") for k, e in enumerate(names)],
        scores={(QC.name, s, e): v for (s, e), v in ratings.system_means(QC.name).items()},
        ratings=ratings,
    )


def brute_force_widths(original, items: int, raters: int, runs: int, B: int, rng) -> dict[str, np.ndarray]:
    """Widths of the intervals of ``runs`` reproductions drawn from the truth itself (not from a fitted model)."""
    widths: dict[str, list] = {"CV*": [], "alpha": []}
    for _ in range(runs):
        study = study_of(original, latent_team("planned", items // len(MU), raters, rng))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = bootstrap(study, B=B, seed=int(rng.integers(2**31)))
        for key, measure in (
            (("CV*", "qc", QC.name, None), "CV*"),
            (("annotators", "planned", QC.name, "alpha"), "alpha"),
        ):
            low, high, _ = interval(result.replicates[key])
            widths[measure].append(high - low)
    return {k: np.array(v) for k, v in widths.items()}


@pytest.mark.slow
def test_expected_widths_agree_with_brute_force_within_ten_percent_at_50_and_200_items():
    """An original of 4 systems x 60 items x 8 raters from a known truth (item sd 0.8, rater sd 0.4,
    residual sd 0.7, 1-5 scale); reproductions by 3 raters on new items.  The planner sees only the
    original's ratings; the brute force draws each reproduction from the truth.  80 runs each
    (measured: CV* 19.0 vs 18.9 at 50 items, 12.3 vs 11.8 at 200; alpha 0.29 vs 0.31 and 0.145 vs
    0.156).  The original has 8 raters so that the raters' spread can be estimated at all: from 2-3
    raters it rests on 1-2 degrees of freedom and CV*'s width inherits that uncertainty."""
    rng = np.random.default_rng(2026)
    original = latent_team("original", 60, 8, rng)
    alone = study_of(original, latent_team("other", 2, 2, rng))  # a second experiment makes a valid study
    for items in (50, 200):
        plan = plan_reproduction(
            alone, items=[items], raters_per_item=[3], B=200, runs=80, seed=items, experiment="original"
        ).set_index("measure")
        truth = brute_force_widths(original, items, 3, 80, 200, rng)
        for measure in ("CV*", "alpha"):
            expected = plan.loc[measure, "expected_ci_width"]
            brute = truth[measure].mean()
            assert abs(expected / brute - 1) <= 0.10, (items, measure, expected, brute)
            # the spread over runs is shown and matches the brute force's in size
            assert 0.5 <= plan.loc[measure, "ci_width_sd"] / truth[measure].std(ddof=1) <= 2.0


def test_the_simulated_team_agrees_with_itself_as_the_original_team_did(vm):
    """van Miltenburg et al. (2024), experiment 'direct' (2 raters, 300 items): its own ordinal alpha is
    0.519; a simulated team of 2 raters on the same items has alpha 0.52 +/- 0.05 on average (the
    earlier planner's teams had 0.71)."""
    qc = vm.quality_criteria[0]
    own = qw.assess(vm).annotator_agreement().set_index(["experiment", "measure"]).loc[("direct", "alpha"), "value"]
    assert own == pytest.approx(0.5187, abs=1e-4)
    model = _model_for(vm, qc, "direct")
    rng = np.random.default_rng(7)
    alphas = []
    for _ in range(60):
        _system, item, rater, rating = simulate_team(model, 10_000, 2, "same items", rng)
        table = pd.DataFrame({"i": item, "r": rater, "v": rating}).pivot(index="r", columns="i", values="v").to_numpy()
        alphas.append(m.krippendorff_alpha(table, level=qc.label_level))
    assert abs(np.mean(alphas) - own) <= 0.05
    assert model.rater_variance > 0 and model.residual_variance > 0 and model.item_variance > 0


def test_same_items_reuses_the_originals_item_ids_and_caps_the_number(vm):
    qc = vm.quality_criteria[0]
    model = _model_for(vm, qc, "direct")
    _system, item, _rater, rating = simulate_team(model, 10_000, 3, "same items", np.random.default_rng(0))
    original = set(vm.ratings.select(3, ["direct"]).for_criterion(qc.name)[1])
    assert set(item) == original and len(item) == 3 * len(original)
    assert set(np.unique(rating)) <= {1.0, 2.0, 3.0, 4.0}
    plan = plan_reproduction(vm, items=[10_000], raters_per_item=[2], B=50, runs=2, design="same items")
    assert set(plan["items"]) == {len(original)} and set(plan["design"]) == {"same items"}
    _s, new_items, _r, _v = simulate_team(model, 7, 2, "new items", np.random.default_rng(0))
    assert not set(new_items) & original and len(set(new_items)) == 7 * len(model.systems)


def test_the_plan_frame_shows_the_spread_over_runs(vm):
    plan = plan_reproduction(vm, items=[60, 300], raters_per_item=[2, 4], B=100, runs=4, seed=0)
    assert list(plan.columns) == PLAN_COLUMNS
    assert (plan.ci_width_p10 <= plan.expected_ci_width).all() and (plan.expected_ci_width <= plan.ci_width_p90).all()
    assert (plan.ci_width_sd > 0).all() and (plan.runs == 4).all()
    assert plan.expected_half_width.tolist() == pytest.approx((plan.expected_ci_width / 2).tolist())


def test_the_planner_is_the_packages_and_refuses_bad_options(vm):
    assert plan_reproduction is qw.plan_reproduction
    with pytest.raises(qw.QRAInputError, match="design must be one of"):
        plan_reproduction(vm, items=[60], raters_per_item=[2], design="old items")
    with pytest.raises(qw.QRAInputError, match="runs: must be a whole number from 1"):
        plan_reproduction(vm, items=[60], raters_per_item=[2], runs=0)


def test_one_rating_per_item_cannot_separate_raters_from_items():
    rng = np.random.default_rng(0)
    team = latent_team("original", 20, 1, rng)
    study = study_of(team, latent_team("other", 2, 2, rng))
    with pytest.raises(
        qw.QRAInputError, match="'original' on 'Quality': the planner needs items rated by at least two raters"
    ):
        plan_reproduction(study, items=[40], raters_per_item=[2], experiment="original")
