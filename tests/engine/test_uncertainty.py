"""The bootstrap engine: exact at weights 1, seeded, vectorised measures equal to the measures module,
coverage on simulated data with a known truth, scores-only intervals and the reproduction planner."""

import numpy as np
import pandas as pd
import pytest

import qra_widgets as qw
from qra_widgets import measures as m
from qra_widgets.conventions import QRA3, QRAPP
from qra_widgets.intervals import cv_interval, interval
from qra_widgets.ratings import Ratings
from qra_widgets.uncertainty import bootstrap


def test_the_engine_at_weights_one_reproduces_every_assess_value(vm):
    for conventions in (QRAPP, QRA3):
        result = qw.assess(vm, conventions)
        engine = bootstrap(vm, conventions, B=20, seed=0)
        for row in result.rows:
            key = (row.measure, row.level, row.quality_criterion, row.system)
            assert engine.estimates[key] == pytest.approx(row.value, abs=1e-12), key
    agreement = qw.assess(vm).annotator_agreement()
    for row in agreement.itertuples():
        key = ("annotators", row.experiment, row.quality_criterion, row.measure)
        assert engine.estimates[key] == pytest.approx(row.value, abs=1e-12), key


def test_same_seed_same_intervals_and_the_seed_is_recorded(vm):
    first = qw.assess(vm, bootstrap=400, seed=11).to_frame()
    second = qw.assess(vm, bootstrap=400, seed=11)
    assert second.bootstrap_info == {"B": 400, "seed": 11, "ci": 0.95, "ci_method": "percentile", "resample": "items",
                                     "paired": True, "ci_over": "items", "aggregation": "mean"}
    assert first[["ci_low", "ci_high"]].equals(second.to_frame()[["ci_low", "ci_high"]])
    other = qw.assess(vm, bootstrap=400, seed=12).to_frame()
    assert not np.allclose(first.ci_low, other.ci_low)
    cv = first[(first.measure == "CV*") & (first.level == "system")]
    assert (cv.ci_low < cv.value).all() and (cv.value < cv.ci_high).all() and (cv.ci_low >= 0).all()


def simulated_study(seed: int, systems: int = 2, experiments: int = 3, items: int = 80, raters: int = 2):
    """Ratings = experiment-system mean + item effect (shared by the experiments: paired) + noise.
    The truth of a system's CV* is CV* of the true experiment means (what item resampling targets)."""
    rng = np.random.default_rng(seed)
    means = TRUE_MEANS[:experiments, :systems]
    item_effect = rng.normal(0, 0.5, (systems, items))
    values = means[:, :, None, None] + item_effect[None, :, :, None] + rng.normal(0, 0.7, (experiments, systems, items, raters))
    e, s, i, r = np.indices(values.shape)
    text = lambda prefix, codes: np.array([f"{prefix}{c}" for c in codes.ravel()], dtype=object)
    ratings = Ratings.from_columns(np.full(values.size, "Q", dtype=object), text("s", s),
                                   np.array([f"s{a}-i{b}" for a, b in zip(s.ravel(), i.ravel())], dtype=object),
                                   text("e", e), text("r", r), values.ravel())
    return qw.Study(id="sim", quality_criteria=[qw.QualityCriterion("Q", 0, None, label_level="interval")],
                    systems=[f"s{k}" for k in range(systems)], experiments=[qw.Experiment(f"e{k}") for k in range(experiments)],
                    scores={("Q", a, b): v for (a, b), v in ratings.system_means("Q").items()}, ratings=ratings)


TRUE_MEANS = np.array([[4.0, 4.5], [4.3, 4.9], [4.6, 4.4]])


@pytest.mark.slow
def test_95_percent_intervals_cover_the_truth_in_93_to_97_percent_of_400_runs():
    truth = m.cv_star_batch(TRUE_MEANS.T).values
    hits = np.zeros(2)
    for run in range(400):
        result = bootstrap(simulated_study(run), B=400, seed=run)
        for j in range(2):
            low, high, _ = interval(result.replicates[("CV*", "system", "Q", f"s{j}")])
            hits[j] += low <= truth[j] <= high
    coverage = hits / 400
    assert ((coverage >= 0.93) & (coverage <= 0.97)).all(), coverage


def test_bca_differs_from_percentile_and_resampling_raters_widens_the_interval(vm):
    percentile = bootstrap(vm, B=600, seed=3)
    bca = qw.assess(vm, bootstrap=600, seed=3, ci_method="bca").to_frame().set_index(["measure", "level", "system"])
    key = ("CV*", "system", "Fluency", "SVM")
    low, high, _ = interval(percentile.replicates[key])
    bca_low, bca_high = bca.loc[("CV*", "system", "SVM"), ["ci_low", "ci_high"]]
    svm = bca.loc[("CV*", "system", "SVM")]
    assert (svm.ci_method, svm.ci_over, svm.ci_B, svm.ci_seed, svm.ci_pairing) == ("bca", "items", 600, 3, "paired")
    assert (bca_low, bca_high) != (low, high) and bca_low < bca.loc[("CV*", "system", "SVM"), "value"] < bca_high
    raters = bootstrap(vm, B=600, seed=3, resample="items+raters")
    width = lambda result: np.subtract(*interval(result.replicates[key])[1::-1])
    assert width(raters) > width(percentile)  # rater variation adds to item variation


def test_unpaired_experiments_are_resampled_on_their_own():
    study = simulated_study(1, experiments=2)
    columns = list(study.ratings.columns())
    second = columns[3] == "e1"
    columns[2] = np.where(second, columns[2] + "-other", columns[2])
    study.ratings = Ratings(tuple(columns))
    result = bootstrap(study, B=50, seed=0)
    assert result.info["paired"] is False
    assert result.estimates[("CV*", "system", "Q", "s0")] == pytest.approx(qw.assess(study).value("CV*", "system", "Q", "s0"))


def test_scores_only_resample_systems_and_give_vangel_intervals(qrapp_example1):
    study = qrapp_example1
    result = qw.assess(study, bootstrap=300, seed=1)
    frame = result.to_frame().set_index(["measure", "level", "system"])
    svm = frame.loc[("CV*", "system", "SVM")]
    values = [study.scores[("Fluency", "SVM", e)] for e in study.experiment_ids]
    assert (svm.ci_low, svm.ci_high) == cv_interval(values, 1)
    assert (svm.ci_method, svm.ci_over, svm.ci_pairing) == ("vangel", "experiments", "") and svm.ci_B is pd.NA
    assert svm.ci_low > 0 > result.cv[("Fluency", "SVM")].ci95[0] - 1  # never below zero; the t-based s* interval stays
    assert "no interval: CV* at QC and study level needs items to resample" in frame.loc[("CV*", "qc", None)].note
    p = frame.loc[("P", "qc", None)]
    assert (p.ci_method in ("percentile", "lower-one-sided"), p.ci_over, p.ci_B) == (True, "systems", 300)
    assert "[" in result.table().iloc[1, 2]  # "19.96 [8.44, 125.7]"


def test_vangel_interval_covers_a_normal_cv():
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(2000):
        values = rng.normal(10, 1.5, size=4)
        low, high = cv_interval(values)
        hits += low <= 15 <= high
    assert 0.935 <= hits / 2000 <= 0.965  # Vangel (1996) Table 1: near-exact for CV <= 0.3
    assert cv_interval([5.36, 6.14], scale_min=1)[0] > 0


def test_plan_reproduction_widths_shrink_with_items_and_raters(vm):
    plan = qw.plan_reproduction(vm, items=[60, 300], raters_per_item=[2, 4], B=200, runs=3, seed=0)
    width = plan.set_index(["items", "raters_per_item", "measure"]).expected_ci_width
    assert width[(300, 2, "CV*")] < width[(60, 2, "CV*")]
    assert width[(300, 4, "alpha")] < width[(300, 2, "alpha")]
    assert list(plan.columns) == ["design", "items", "raters_per_item", "quality_criterion", "measure", "expected_ci_width",
                                  "expected_half_width", "ci_width_sd", "ci_width_p10", "ci_width_p90", "runs"]


def test_bad_bootstrap_options_are_refused_saying_which(vm, qrapp_example1):
    for kwargs, message in (({"bootstrap": 5}, "B must be an integer of at least 10"),
                            ({"bootstrap": 100, "ci_method": "basic"}, "ci_method"),
                            ({"bootstrap": 100, "resample": "raters"}, "resample")):
        with pytest.raises(qw.QRAInputError, match=message):
            qw.assess(vm, **kwargs)
    with pytest.raises(qw.QRAInputError, match="items\\+raters' needs item-level ratings"):
        qw.assess(qrapp_example1, bootstrap=100, resample="items+raters")


def test_charts_get_error_bars_and_a_plan_chart(vm):
    from qra_widgets import charts

    result = qw.assess(vm, bootstrap=200, seed=4)
    bars = charts.cv_by_system(result).data[0]
    frame = result.to_frame()
    svm = frame[(frame.measure == "CV*") & (frame.system == "SVM")].iloc[0]
    assert bars.error_y.array[0] == pytest.approx(svm.ci_high - svm.value)
    assert bars.error_y.arrayminus[0] == pytest.approx(svm.value - svm.ci_low)
    assert charts.cv_by_system(qw.assess(vm)).data[0].error_y.array is None
    plan = qw.plan_reproduction(vm, items=[60, 120], raters_per_item=[2], B=100, runs=2)
    figure = charts.plan_chart(plan)
    assert [trace.name for trace in figure.data] == ["CV* (Fluency), 2 raters per item", "alpha (Fluency), 2 raters per item"]
    assert list(figure.data[0].x) == [60, 120]
