"""The bootstrap engine: exact at weights 1, seeded, vectorised measures equal to the measures module,
coverage on simulated data with a known truth, scores-only intervals and the reproduction planner."""

import numpy as np
import pandas as pd
import pytest

import qra_widgets as qw
from qra_widgets import measures as m
from qra_widgets.conventions import QRA3, QRAPP
from qra_widgets.intervals import cv_interval, interval, interval_at
from qra_widgets.ratings import Ratings
from qra_widgets.uncertainty import bootstrap


def _over_all_experiments(frame):
    """The rows over all experiments: without the Type III rows of one repeat against the original
    (``experiments`` set), whose (measure, level, system) repeat, so that ``.loc`` finds one row on
    every pandas (pandas < 3 returns a frame for a key of a non-unique index)."""
    return frame[frame["experiments"] == ""] if "experiments" in frame else frame


def test_the_engine_at_weights_one_reproduces_every_assess_value(vm):
    for conventions in (QRAPP, QRA3):
        result = qw.assess(vm, conventions)
        engine = bootstrap(vm, conventions, B=20, seed=0)
        for row in result.rows:
            key = row.key
            if row.experiments:  # one repeat's labels vs the original's: not resampled (docs/measures.md)
                assert key not in engine.estimates
                continue
            assert engine.estimates[key] == pytest.approx(row.value, abs=1e-12), key
    agreement = qw.assess(vm).annotator_agreement()
    for row in agreement.itertuples():
        key = ("annotators", row.experiment, row.quality_criterion, row.measure)
        assert engine.estimates[key] == pytest.approx(row.value, abs=1e-12), key


def test_same_seed_same_intervals_and_the_seed_is_recorded(vm):
    first = qw.assess(vm, bootstrap=400, seed=11).to_frame()
    second = qw.assess(vm, bootstrap=400, seed=11)
    assert second.bootstrap_info == {
        "B": 400,
        "seed": 11,
        "ci": 0.95,
        "ci_method": "percentile",
        "resample": "items",
        "paired": True,
        "ci_over": "items",
        "aggregation": "mean",
    }
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
    values = (
        means[:, :, None, None]
        + item_effect[None, :, :, None]
        + rng.normal(0, 0.7, (experiments, systems, items, raters))
    )
    e, s, i, r = np.indices(values.shape)
    text = lambda prefix, codes: np.array([f"{prefix}{c}" for c in codes.ravel()], dtype=object)
    ratings = Ratings.from_columns(
        np.full(values.size, "Q", dtype=object),
        text("s", s),
        np.array([f"s{a}-i{b}" for a, b in zip(s.ravel(), i.ravel())], dtype=object),
        text("e", e),
        text("r", r),
        values.ravel(),
    )
    return qw.Study(
        id="sim",
        quality_criteria=[qw.QualityCriterion("Q", 0, None, label_level="interval")],
        systems=[f"s{k}" for k in range(systems)],
        experiments=[qw.Experiment(f"e{k}") for k in range(experiments)],
        scores={("Q", a, b): v for (a, b), v in ratings.system_means("Q").items()},
        ratings=ratings,
    )


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
    bca = (
        qw.assess(vm, bootstrap=600, seed=3, ci_method="bca")
        .to_frame()
        .pipe(_over_all_experiments)
        .set_index(["measure", "level", "system"])
    )
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
    assert result.estimates[("CV*", "system", "Q", "s0")] == pytest.approx(
        qw.assess(study).value("CV*", "system", "Q", "s0")
    )


def test_scores_only_resample_systems_and_give_vangel_intervals(qrapp_example1):
    study = qrapp_example1
    result = qw.assess(study, bootstrap=300, seed=1)
    frame = result.to_frame().pipe(_over_all_experiments).set_index(["measure", "level", "system"])
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
    assert list(plan.columns) == [
        "design",
        "items",
        "raters_per_item",
        "quality_criterion",
        "measure",
        "expected_ci_width",
        "expected_half_width",
        "ci_width_sd",
        "ci_width_p10",
        "ci_width_p90",
        "runs",
    ]


def test_bad_bootstrap_options_are_refused_saying_which(vm, qrapp_example1):
    for kwargs, message in (
        ({"bootstrap": 5}, "B must be an integer of at least 10"),
        ({"bootstrap": 100, "ci_method": "basic"}, "ci_method"),
        ({"bootstrap": 100, "resample": "raters"}, "resample"),
    ):
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
    assert [trace.name for trace in figure.data] == [
        "CV* (Fluency), 2 raters per item",
        "alpha (Fluency), 2 raters per item",
    ]
    assert list(figure.data[0].x) == [60, 120]


# ---------------------------------------------------------------------- the engine on designed studies (moved from tests/measures/test_engine.py)


def synthetic_study(rows, experiments, aggregation=None):
    """A study from rating rows (system, item, rater, experiment, score) on a 1..5 ordinal scale, read
    through load_annotations as a team's file would be."""
    text = "system,item,rater,experiment,score\n" + "".join(",".join(map(str, row)) + "\n" for row in rows)
    spec = {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "synthetic",
        "quality_criteria": [{"name": "Q", "scale_min": 1, "scale_max": 5, "label_level": "ordinal"}],
        "experiments": [
            {
                "id": e,
                "file": "ratings.csv",
                "rows": {"experiment": [e]},
                "columns": {"system": "system", "item": "item", "rater": "rater", "criteria": {"Q": "score"}},
            }
            for e in experiments
        ],
    }
    if aggregation:
        spec["aggregation"] = aggregation
    return qw.load_annotations(spec, files={"ratings.csv": text.encode()})


def median_study():
    rng = np.random.default_rng(7)
    rows = []
    for e, shift in (("e0", 0), ("e1", 1), ("e2", 0)):
        for s in ("A", "B"):
            for i in range(30):
                for r in range(3):
                    rows.append(
                        (
                            s,
                            f"{s}{i}",
                            f"{e}r{r}",
                            e,
                            int(np.clip(rng.integers(2, 5) + (shift if s == "A" else 0), 1, 5)),
                        )
                    )
    return synthetic_study(rows, ["e0", "e1", "e2"], aggregation="median")


def replicates_of_medians_are_medians(study):
    """Each replicate's system means are the medians of the ratings drawn (not their means)."""
    result = bootstrap(study, B=40, seed=3)
    assert result.info["aggregation"] == "median"
    for (measure, experiment, qc, system), values in result.replicates.items():
        if measure == "mean":
            assert result.estimates[(measure, experiment, qc, system)] == study.scores[(qc, system, experiment)]
            assert np.all(np.round(values * 2) == values * 2)  # medians of whole ratings are whole or halves
    return result


def unpaired_study():
    """Three experiments on partly overlapping items; the first and last share none (unpaired)."""
    rng = np.random.default_rng(3)
    truth = rng.integers(1, 6, size=(2, 100))
    spans = {"e0": range(40), "e1": range(20, 80), "e2": range(60, 100)}
    rows = [
        (f"s{s}", f"s{s}-i{i}", f"{e}r{r}", e, int(np.clip(truth[s, i] + rng.choice([-1, 0, 0, 0, 1]), 1, 5)))
        for e, span in spans.items()
        for s in range(2)
        for i in span
        for r in range(2)
    ]
    return synthetic_study(rows, list(spans))


def perfect_study(seed, experiments=3, items=60, true_spread=0.0):
    """Ratings whose experiments differ only by item sampling noise (true_spread 0: a perfect reproduction)."""
    rng = np.random.default_rng(seed)
    item_effect = rng.normal(0, 0.6, size=(3, items))
    system_mean = np.array([6.5, 7.0, 7.6])
    rows = []
    for e in range(experiments):
        offset = rng.normal(0, true_spread, size=3)
        for s in range(3):
            for i in range(items):
                for r in range(2):
                    value = system_mean[s] + offset[s] + item_effect[s, i] + rng.normal(0, 0.5)
                    rows.append((f"s{s}", f"s{s}-i{i}", f"e{e}r{r}", f"e{e}", float(np.round(value, 3))))
    frame = pd.DataFrame(rows, columns=["system", "item", "rater", "experiment", "score"])
    ratings = Ratings.from_columns(
        ["Q"] * len(frame), frame.system, frame.item, frame.experiment, frame.rater, frame.score
    )
    return qw.Study(
        id="perfect",
        quality_criteria=[qw.QualityCriterion("Q", 0, None, label_level="interval")],
        systems=["s0", "s1", "s2"],
        experiments=[qw.Experiment(f"e{e}") for e in range(experiments)],
        scores={("Q", a, b): v for (a, b), v in ratings.system_means("Q").items()},
        ratings=ratings,
    )


def test_median_aggregation_resamples_medians_on_a_synthetic_study():
    study = median_study()
    replicates_of_medians_are_medians(study)
    frame = (
        qw.assess(study, bootstrap=400, seed=1)
        .to_frame()
        .pipe(_over_all_experiments)
        .set_index(["measure", "level", "system"])
    )
    for system in ("A", "B"):
        row = frame.loc[("CV*", "system", system)]
        assert row.ci_low <= row.value <= row.ci_high  # the earlier engine gave A 30.25 with (27.3, 39.9) from means


def test_median_aggregation_resamples_medians_on_van_miltenburg_2024(vanmiltenburg2024):
    """van Miltenburg et al. (2024) fluency ratings (published field data) with aggregation="median":
    SVM's CV* is 26.47 (medians 3, 3, 2 after shifting); the earlier engine printed a "95% CI" of
    (9.7, 16.9) from resampled means, which excludes its own value."""
    study = qw.load_annotations(vanmiltenburg2024 / "spec.json", aggregation="median")
    replicates_of_medians_are_medians(study)
    frame = (
        qw.assess(study, bootstrap=500, seed=1)
        .to_frame()
        .pipe(_over_all_experiments)
        .set_index(["measure", "level", "system"])
    )
    svm = frame.loc[("CV*", "system", "SVM")]
    assert round(svm.value, 2) == 26.47
    assert svm.ci_low <= svm.value <= svm.ci_high


def test_unpaired_designs_resample_agreement_over_every_item():
    """The earlier engine weighted the units with the first experiment's weights: units it did not rate
    dropped out, and (with the earlier lower-median labels) its own estimate of alpha was 0.829 where
    assess() said 0.867."""
    study = unpaired_study()
    result = bootstrap(study, B=200, seed=1)
    assert result.info["paired"] is False
    assessed = qw.assess(study)
    for measure in ("alpha", "fleiss_kappa"):
        assert result.estimates[(measure, "qc", "Q", None)] == pytest.approx(
            assessed.value(measure, "qc", "Q"), abs=1e-12
        )
    alpha = assessed.value("alpha", "qc", "Q")
    low, high, _note, _method = interval_at("alpha", result.replicates[("alpha", "qc", "Q", None)], estimate=alpha)
    assert low < alpha < high


def test_every_interval_names_its_method_and_what_it_covers(qrapp_example1):
    study = qrapp_example1
    frame = qw.assess(study, bootstrap=200, seed=2).to_frame()
    with_interval = frame[frame.ci_low.notna()]
    assert set(with_interval.ci_over) <= {"items", "items+raters", "systems", "experiments"} and len(with_interval)
    assert (frame[frame.ci_low.isna()].ci_over == "").all()
    vangel = with_interval[with_interval.ci_method == "vangel"]
    assert (vangel.ci_over == "experiments").all() and vangel.ci_B.isna().all() and len(vangel)
    boot = with_interval[with_interval.ci_method != "vangel"]
    assert (boot.ci_over == "systems").all() and (boot.ci_B == 200).all() and (boot.ci_seed == 2).all()
    assert set(boot.ci_method) <= {"percentile", "lower-one-sided"}


def test_system_means_get_intervals_over_items():
    study = perfect_study(0, true_spread=0.3)
    result = qw.assess(study, bootstrap=300, seed=5)
    means = result.system_means()
    assert len(means) == 9 and set(means.ci_over) == {"items"} and set(means.ci_method) == {"percentile"}
    assert ((means.ci_low < means.value) & (means.value < means.ci_high)).all()
    widths = (means.ci_high - means.ci_low).to_numpy()
    # 60 items x 2 raters, item sd 0.6 and rating sd 0.5: the standard error of a mean is about 0.09
    assert np.all((widths > 2 * 1.96 * 0.06) & (widths < 2 * 1.96 * 0.12)), widths


@pytest.mark.slow  # a simulation: 40 studies, 200 bootstrap replicates each
def test_a_perfect_reproduction_is_not_declared_imperfect_by_its_interval():
    """Simulation (seeded, 40 studies): experiments that differ only by item sampling. The
    two-sided percentile interval of CV* excludes the true 0 every time (CV* > 0 in every
    replicate); the boundary rule reports [0, upper bound] and covers it in at least 90%. With a
    true spread between experiments the interval stays two-sided and excludes 0."""
    covered_cv, covered_r, two_sided_excludes = 0, 0, 0
    runs = 40
    for seed in range(runs):
        result = bootstrap(perfect_study(seed), B=200, seed=seed)
        key = ("CV*", "system", "Q", "s1")
        low, high, _note, method = interval_at("CV*", result.replicates[key], estimate=result.estimates[key])
        covered_cv += low <= 0 <= high
        two_sided_excludes += np.quantile(result.replicates[key], 0.025) > 0
        key = ("r", "qc", "Q", None)
        low, high, _note, method = interval_at("r", result.replicates[key], estimate=result.estimates[key])
        covered_r += low <= 1 <= high
    assert two_sided_excludes == runs
    assert covered_cv >= 0.9 * runs and covered_r >= 0.9 * runs, (covered_cv, covered_r)
    spread = bootstrap(perfect_study(1, items=200, true_spread=0.5), B=300, seed=1)
    key = ("CV*", "system", "Q", "s0")
    low, high, _note, method = interval_at("CV*", spread.replicates[key], estimate=spread.estimates[key])
    assert method == "percentile" and low > 0


def test_bca_jackknife_is_linear_in_the_items():
    from qra_widgets.uncertainty import design_of, jackknife_weights

    study = perfect_study(2, items=300)
    weights = jackknife_weights(design_of(study))
    assert weights.shape == (1, 200, 900)  # 200 groups, never items x items
    assert (weights.sum(axis=1) == 199).all()  # each unit left out exactly once
    frame = (
        qw.assess(study, bootstrap=300, seed=1, ci_method="bca")
        .to_frame()
        .pipe(_over_all_experiments)
        .set_index(["measure", "level", "system"])
    )
    row = frame.loc[("CV*", "system", "s0")]
    assert row.ci_method in ("bca", "upper-one-sided") and row.ci_low <= row.value <= row.ci_high
