"""Median aggregation carries through the forest and the rank intervals (issue 30)."""

from __future__ import annotations

import numpy as np
import pytest

import qra_widgets as qw
from qra_widgets.meta import item_standard_errors, rank_intervals, resampled_medians
from qra_widgets.ratings import Ratings
from qra_widgets.study import Experiment, QualityCriterion, Study


def as_median_study(study: Study) -> Study:
    study.metadata = {**(study.metadata or {}), "annotations": {"aggregation": "median"}}
    for (s, e), value in study.ratings.system_means("Fluency", how="median").items():
        study.set_score("Fluency", s, e, value)
    return study


def test_resampled_medians_are_the_medians_of_the_ratings_drawn():
    rng = np.random.default_rng(5)
    ratings = [rng.integers(1, 6, size=int(rng.integers(1, 4))).astype(float) for _ in range(9)]
    values = np.unique(np.concatenate(ratings))
    counts = np.array([[np.sum(r == v) for v in values] for r in ratings], dtype=float)
    weights = rng.multinomial(9, np.full(9, 1 / 9), size=200).astype(float)
    expected = [np.median(np.concatenate([np.repeat(r, int(w)) for r, w in zip(ratings, row)])) for row in weights]
    assert resampled_medians(counts, values, weights).tolist() == expected


def continuous_study(items: int = 40) -> Study:
    """Two experiments rating 40 items of one system on 0..100 (two raters; generated, seeded)."""
    rng = np.random.default_rng(8)
    columns = {k: [] for k in ("qc", "system", "item", "experiment", "rater", "rating")}
    for experiment in ("O", "R1"):
        for i in range(items):
            for rater in ("r1", "r2"):
                value = round(float(np.clip(rng.normal(60, 15), 0, 100)), 1)
                for key, v in zip(columns, ("Fluency", "A", f"i{i}", experiment, f"{experiment}{rater}", value)):
                    columns[key].append(v)
    study = Study(
        "continuous",
        quality_criteria=[QualityCriterion("Fluency", scale_min=0, scale_max=100)],
        systems=["A"],
        experiments=[Experiment("O", role="original"), Experiment("R1")],
        ratings=Ratings.from_columns(*columns.values()),
    )
    for (s, e), mean in study.ratings.system_means("Fluency").items():
        study.set_score("Fluency", s, e, mean)
    return study


def test_the_forest_standard_error_of_a_median_is_its_bootstrap_standard_error():
    study = as_median_study(continuous_study())
    with pytest.warns(qw.UndefinedMeasureWarning, match="prediction interval"):  # two experiments
        frame = qw.forest(qw.assess(study), quality_criterion="Fluency", system="A")
    experiments = frame[frame.row == "experiment"].set_index("experiment")
    assert experiments.note.str.startswith("bootstrap standard error of the median over 40 items").all()
    ratings = study.ratings.frame()
    rng = np.random.default_rng(123)  # an independent plain bootstrap, 4,000 replicates
    means = item_standard_errors(continuous_study(), "Fluency")
    for experiment, row in experiments.iterrows():
        mine = ratings[ratings.experiment == experiment]
        items = [g.rating.to_numpy() for _, g in mine.groupby("item")]
        medians = [
            np.median(np.concatenate([items[i] for i in rng.integers(0, len(items), len(items))])) for _ in range(4000)
        ]
        assert row.value == np.median(mine.rating)
        # the standard error of a bootstrap sd from 2,000 and 4,000 replicates: about 2% each
        assert row.se == pytest.approx(np.std(medians, ddof=1), rel=0.08)
        assert row.se != means[("A", experiment)][0]  # not the item means' standard error


def test_rank_intervals_of_medians_resample_medians():
    # A and B share the median 4 (one low item in A, one high item in B): their means differ, their medians never do
    columns = {k: [] for k in ("qc", "system", "item", "experiment", "rater", "rating")}
    for system, odd in (("A", 1.0), ("B", 5.0)):
        for i in range(10):
            for rater in ("r1", "r2"):
                for key, value in zip(
                    columns, ("Fluency", system, f"{system}{i}", "E1", rater, odd if i == 0 else 4.0)
                ):
                    columns[key].append(value)
    study = Study(
        "ties",
        quality_criteria=[QualityCriterion("Fluency", scale_min=1, scale_max=5)],
        systems=["A", "B"],
        experiments=[Experiment("E1")],
        ratings=Ratings.from_columns(*columns.values()),
    )
    study.metadata = {"annotations": {"aggregation": "median"}}
    for (s, e), value in study.ratings.system_means("Fluency", how="median").items():
        study.set_score("Fluency", s, e, value)
    frame = rank_intervals(study, quality_criterion="Fluency", B=400, seed=1).set_index("system")
    assert (frame["rank"] == 1.5).all() and (frame.rank_low == 1.5).all() and (frame.rank_high == 1.5).all()
    study.metadata = {}
    for (s, e), value in study.ratings.system_means("Fluency").items():
        study.set_score("Fluency", s, e, value)
    means = rank_intervals(study, quality_criterion="Fluency", B=400, seed=1).set_index("system")
    assert (means.loc["B", "rank"], means.loc["A", "rank"]) == (1.0, 2.0)
