"""One engine: every measure's scalar form (what ``assess()`` runs) and its batch form (what the
bootstrap runs) give the same value and the same reason on ordinary, degenerate and extreme data;
the bootstrap recomputes exactly the statistics it reports (the three wiring bugs found by an
independent statistical audit, each on real data); intervals say what they cover."""

import warnings

import numpy as np
import pandas as pd
import pytest

import qra_widgets as qw
from qra_widgets import QRAInputError, UndefinedMeasureWarning
from qra_widgets import measures as m
from qra_widgets.intervals import interval_at
from qra_widgets.ratings import Ratings
from qra_widgets.uncertainty import bootstrap


def scalar(function, *args, **kwargs):
    """(value, reason) of a scalar measure: its UndefinedMeasureWarning text is the reason."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMeasureWarning)
        value = function(*args, **kwargs)
    reasons = [str(w.message) for w in caught if issubclass(w.category, UndefinedMeasureWarning)]
    return value, "; ".join(reasons)


def same(batch_value, batch_reason, value, reason, rel=1e-12):
    assert batch_reason == reason
    if reason:
        assert np.isnan(batch_value) and np.isnan(value)
    else:
        assert batch_value == pytest.approx(value, rel=rel, abs=1e-14)


# ordinary, degenerate (no variation / one category / mean 0) and extreme (1e-300, 1e300, ulps) rows
SCORES = [
    np.array([[3.71, 3.2, 2.33, 2.9], [3.12, 2.57, 2.28, 3.0], [3.02, 2.4, 1.81, 2.2]]),  # ordinary
    np.array([[1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0]]),  # every experiment constant
    np.array([[1.0, 2.0, 2.0, 3.0], [1.0, 1.0, 2.0, 2.0], [3.0, 2.0, 1.0, 1.0]]),  # ties
    np.array([[1e-300, 3e-300, 2e-300, 5e-300], [2e-300, 3e-300, 1e-300, 4e-300], [1e-300, 2e-300, 3e-300, 4e-300]]),
    np.array([[1e300, 3e300, 2e300, 5e300], [2e300, 3e300, 1e300, 4e300], [1e300, 2e300, 3e300, 4e300]]),
    1 + np.array([[0, 1, 2, 3], [1, 0, 3, 2], [3, 2, 1, 0]]) * np.finfo(float).eps,  # ulps apart
]


@pytest.mark.parametrize("case", range(len(SCORES)))
def test_type_i_and_ii_measures_give_one_value_and_one_reason_through_both_paths(case):
    scores = SCORES[case]
    stack = scores[None]
    for j in range(scores.shape[1]):
        found = m.cv_star_batch(scores[:, j][None])
        value, reason = scalar(lambda v: m.cv_star(v).cv_star, scores[:, j])
        same(found.values[0], found.reasons[0], value, reason)
    for batch, function in ((m.pearson_batch, m.pearson_r), (m.spearman_batch, m.spearman_rho), (m.tau_b_batch, m.kendall_tau)):
        found = batch(scores[0][None], scores[1][None])
        same(found.values[0], found.reasons[0], *scalar(function, scores[0], scores[1]))
    for name, function in (("r", m.mean_pairwise_r), ("rho", m.mean_pairwise_rho), ("tau", m.mean_pairwise_tau)):
        found, _pairs = m.mean_pairwise_batch(stack, name)
        same(found.values[0], found.reasons[0], *scalar(function, scores))
    for tie_correction in (True, False):
        found = m.kendall_w_batch(stack, tie_correction=tie_correction)
        same(found.values[0], found.reasons[0], *scalar(m.kendall_w, scores, tie_correction=tie_correction))
    for ties in ("sign", "untied"):
        same_pairs, compared = m.rank_counts_batch(stack, ties=ties)
        assert (same_pairs[0], compared[0]) == tuple(vars(m.rank_counts(scores, ties=ties)).values())


def test_a_stack_gives_each_row_its_own_value_and_reason():
    """The bootstrap's form: one call on a stack equals one scalar call per row."""
    stacked = np.stack([s[:, :4] / np.abs(s).max() for s in SCORES])  # rows of one shape
    found = m.kendall_w_batch(stacked)
    for b, scores in enumerate(stacked):
        same(found.values[b], found.reasons[b], *scalar(m.kendall_w, scores))
    cv = m.cv_star_batch(np.swapaxes(stacked, 1, 2))
    for b, scores in enumerate(stacked):
        for j in range(4):
            same(cv.values[b, j], cv.reasons[b, j], *scalar(lambda v: m.cv_star(v).cv_star, scores[:, j]))
    r = m.pearson_batch(stacked[:, 0], stacked[:, 2])
    for b, scores in enumerate(stacked):
        same(r.values[b], r.reasons[b], *scalar(m.pearson_r, scores[0], scores[2]))


def test_a_mean_that_cancels_is_undefined_with_the_same_reason_in_both_paths():
    """The audit's case: the CV* of a mean that cancels to ~0 was 3.6e17 in the bootstrap's copy."""
    values = np.array([0.1 + 0.2, -0.3, 0.1 - 0.1])
    found = m.cv_star_batch(values[None])
    value, reason = scalar(lambda v: m.cv_star(v).cv_star, values)
    assert "mean of the (shifted) values is 0" in reason
    same(found.values[0], found.reasons[0], value, reason)


LABELS = [
    np.array([[1, 1, 2, 2, 3], [1, 1, 2, 1, 3], [1, 2, 2, 1, 3]], dtype=float),  # ordinary
    np.array([[2, 2, 2, 2], [2, 2, 2, 2], [2, 2, 2, 2]], dtype=float),  # one category
    np.array([[1, np.nan, 2, np.nan], [np.nan, 1, np.nan, 2], [np.nan, np.nan, np.nan, np.nan]]),  # nothing pairable
    np.array([[0] * 99_999 + [1], [0] * 100_000, [0] * 100_000], dtype=float),  # one label of another category in 10^5
]


@pytest.mark.parametrize("case", range(len(LABELS)))
def test_agreement_measures_give_one_value_and_one_reason_through_both_paths(case):
    labels = LABELS[case]
    counts = m.category_counts(labels)
    ones = np.ones((1, counts.counts.shape[0]))
    found = m.agreement_batch(counts, ones, measures=("fleiss_kappa", "ac1", "bp", "alpha"), level="nominal")
    same(found["fleiss_kappa"].values[0], found["fleiss_kappa"].reasons[0], *scalar(m.fleiss_kappa, labels))
    same(found["ac1"].values[0], found["ac1"].reasons[0], *scalar(m.gwet_ac, labels))
    same(found["bp"].values[0], found["bp"].reasons[0], *scalar(m.brennan_prediger, labels))
    same(found["alpha"].values[0], found["alpha"].reasons[0], *scalar(m.krippendorff_alpha, labels))
    for level in ("ordinal", "interval", "ratio"):
        alpha = m.agreement_batch(counts, ones, measures=("alpha",), level=level)["alpha"]
        same(alpha.values[0], alpha.reasons[0], *scalar(m.krippendorff_alpha, labels, level=level))
    codes, found_categories = m.encode(labels[:2])
    kappa = m.cohen_kappa_batch(codes[0], codes[1], found_categories.size)
    same(kappa.values[0], kappa.reasons[0], *scalar(m.cohen_kappa, labels[0], labels[1]))


def test_near_total_agreement_is_defined_in_both_paths():
    """The audit's case: Cohen's kappa 0.4999990 (scikit-learn agrees) was nan in the bootstrap's copy."""
    from sklearn.metrics import cohen_kappa_score

    a = np.zeros(1_000_000)
    b = np.zeros(1_000_000)
    a[0] = 1
    b[:2] = 1
    codes, categories = m.encode(np.vstack([a, b]))
    found = m.cohen_kappa_batch(codes[0], codes[1], categories.size)
    assert found.values[0] == pytest.approx(cohen_kappa_score(a, b), rel=1e-9) == pytest.approx(m.cohen_kappa(a, b), rel=1e-12)
    assert found.values[0] == pytest.approx(2 / 3, abs=1e-6)  # one shared 1 of three: kappa = 2/3 to 1e-6


def test_unit_weights_equal_the_measure_on_the_items_repeated():
    """Weight 2 on a unit is that unit twice, weight 0 is the unit left out: the bootstrap's meaning."""
    rng = np.random.default_rng(4)
    labels = rng.integers(1, 5, size=(4, 30)).astype(float)
    labels[rng.random(labels.shape) < 0.15] = np.nan
    weights = rng.multinomial(30, np.full(30, 1 / 30), size=3).astype(float)
    counts = m.category_counts(labels, categories=[1, 2, 3, 4])
    found = m.agreement_batch(counts, weights, measures=("fleiss_kappa", "alpha", "ac1", "bp"), level="ordinal")
    codes, _ = m.encode(labels[:2], categories=[1.0, 2.0, 3.0, 4.0])
    kappa = m.cohen_kappa_batch(codes[0], codes[1], 4, weights)
    for b, row in enumerate(weights.astype(int)):
        repeated = labels[:, np.repeat(np.arange(30), row)]
        assert found["fleiss_kappa"].values[b] == pytest.approx(m.fleiss_kappa(repeated, categories=[1, 2, 3, 4]), rel=1e-12)
        assert found["alpha"].values[b] == pytest.approx(
            m.krippendorff_alpha(repeated, level="ordinal", categories=[1, 2, 3, 4]), rel=1e-12)
        assert found["ac1"].values[b] == pytest.approx(m.gwet_ac(repeated, categories=[1, 2, 3, 4]), rel=1e-12)
        assert kappa.values[b] == pytest.approx(m.cohen_kappa(repeated[0], repeated[1], categories=[1, 2, 3, 4]), rel=1e-12)


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


# ----------------------------------------------------------------------------- the three wiring bugs


def synthetic_study(rows, experiments, aggregation=None):
    """A study from rating rows (system, item, rater, experiment, score) on a 1..5 ordinal scale, read
    through load_annotations as a team's file would be."""
    text = "system,item,rater,experiment,score\n" + "".join(",".join(map(str, row)) + "\n" for row in rows)
    spec = {"schema": "qra-widgets/annotations", "version": 1, "id": "synthetic",
            "quality_criteria": [{"name": "Q", "scale_min": 1, "scale_max": 5, "label_level": "ordinal"}],
            "experiments": [{"id": e, "file": "ratings.csv", "rows": {"experiment": [e]},
                             "columns": {"system": "system", "item": "item", "rater": "rater", "criteria": {"Q": "score"}}}
                            for e in experiments]}
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
                    rows.append((s, f"{s}{i}", f"{e}r{r}", e, int(np.clip(rng.integers(2, 5) + (shift if s == "A" else 0), 1, 5))))
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


def test_median_aggregation_resamples_medians_on_a_synthetic_study():
    study = median_study()
    replicates_of_medians_are_medians(study)
    frame = qw.assess(study, bootstrap=400, seed=1).to_frame().set_index(["measure", "level", "system"])
    for system in ("A", "B"):
        row = frame.loc[("CV*", "system", system)]
        assert row.ci_low <= row.value <= row.ci_high  # the earlier engine gave A 30.25 with (27.3, 39.9) from means


def test_median_aggregation_resamples_medians_on_van_miltenburg_2024(vanmiltenburg2024):
    """van Miltenburg et al. (2024) fluency ratings (published field data) with aggregation="median":
    SVM's CV* is 26.47 (medians 3, 3, 2 after shifting); the earlier engine printed a "95% CI" of
    (9.7, 16.9) from resampled means, which excludes its own value."""
    study = qw.load_annotations(vanmiltenburg2024 / "spec.json", aggregation="median")
    replicates_of_medians_are_medians(study)
    frame = qw.assess(study, bootstrap=500, seed=1).to_frame().set_index(["measure", "level", "system"])
    svm = frame.loc[("CV*", "system", "SVM")]
    assert round(svm.value, 2) == 26.47
    assert svm.ci_low <= svm.value <= svm.ci_high


def unpaired_study():
    """Three experiments on partly overlapping items; the first and last share none (unpaired)."""
    rng = np.random.default_rng(3)
    truth = rng.integers(1, 6, size=(2, 100))
    spans = {"e0": range(40), "e1": range(20, 80), "e2": range(60, 100)}
    rows = [(f"s{s}", f"s{s}-i{i}", f"{e}r{r}", e, int(np.clip(truth[s, i] + rng.choice([-1, 0, 0, 0, 1]), 1, 5)))
            for e, span in spans.items() for s in range(2) for i in span for r in range(2)]
    return synthetic_study(rows, list(spans))


def test_unpaired_designs_resample_agreement_over_every_item():
    """The earlier engine weighted the units with the first experiment's weights: units it did not rate
    dropped out, and (with the earlier lower-median labels) its own estimate of alpha was 0.829 where
    assess() said 0.867."""
    study = unpaired_study()
    result = bootstrap(study, B=200, seed=1)
    assert result.info["paired"] is False
    assessed = qw.assess(study)
    for measure in ("alpha", "fleiss_kappa"):
        assert result.estimates[(measure, "qc", "Q", None)] == pytest.approx(assessed.value(measure, "qc", "Q"), abs=1e-12)
    alpha = assessed.value("alpha", "qc", "Q")
    low, high, _note, _method = interval_at("alpha", result.replicates[("alpha", "qc", "Q", None)], estimate=alpha)
    assert low < alpha < high


def test_a_system_drawn_twice_is_not_a_pair_ranked_the_same(qra2022_essay_scoring):
    """QRA 2022 essay scoring, resample="systems": P's interval was (0.59, 0.89) when copies of one
    system counted as a pair ranked the same way; without them (0.54, 0.88) at B = 2,000."""
    study = qra2022_essay_scoring
    result = bootstrap(study, B=2000, seed=1, resample="systems")
    p = result.replicates[("P", "qc", "wF1", None)]
    low, high = np.quantile(p, [0.025, 0.975])
    assert (round(low, 2), round(high, 2)) == (0.54, 0.88)
    picks = np.array([[0, 0, 1, 2]])
    scores = np.array([[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 5.0]])[:, picks[0]][None]
    same_pairs, compared = m.rank_counts_batch(scores, copies=picks)
    assert (same_pairs[0], compared[0]) == (5, 5)  # 6 pairs less the copy pair (0, 0)
    assert tuple(x[0] for x in m.rank_counts_batch(scores)) == (6, 6)  # the earlier count: the copy pair "ranked the same"
    w = m.kendall_w_batch(np.repeat(scores, 1, axis=0), tie_correction=False, copies=picks).values[0]
    assert w == pytest.approx(1.0)  # two experiments ranking the drawn systems alike: W = 1 with or without ties


# ----------------------------------------------------------------------------- what an interval says


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
    ratings = Ratings.from_columns(["Q"] * len(frame), frame.system, frame.item, frame.experiment, frame.rater, frame.score)
    return qw.Study(id="perfect", quality_criteria=[qw.QualityCriterion("Q", 0, None, label_level="interval")],
                    systems=["s0", "s1", "s2"], experiments=[qw.Experiment(f"e{e}") for e in range(experiments)],
                    scores={("Q", a, b): v for (a, b), v in ratings.system_means("Q").items()}, ratings=ratings)


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
    frame = qw.assess(study, bootstrap=300, seed=1, ci_method="bca").to_frame().set_index(["measure", "level", "system"])
    row = frame.loc[("CV*", "system", "s0")]
    assert row.ci_method in ("bca", "upper-one-sided") and row.ci_low <= row.value <= row.ci_high


# ----------------------------------------------------------------------------- W's p-value


def test_w_permutation_p_value_equals_brute_force_enumeration():
    from itertools import permutations, product

    scores = np.array([[1.0, 2.0, 3.0, 4.0], [2.0, 1.0, 3.0, 4.0], [1.0, 3.0, 2.0, 4.0]])
    ranks = m.average_ranks(scores)[0]
    observed = (ranks.sum(axis=0) ** 2).sum()
    orders = list(permutations(range(4)))
    hits = sum(((ranks[0] + ranks[1][list(a)] + ranks[2][list(b)]) ** 2).sum() >= observed - 1e-9
               for a, b in product(orders, orders))
    assert m.kendall_w_pvalue(scores) == pytest.approx(hits / len(orders) ** 2, rel=1e-12)
    assert m.kendall_w_pvalue(scores, method="chi2") > m.kendall_w_pvalue(scores)  # chi-square is conservative here


def test_qra3_keeps_the_chi_square_p_value_of_w():
    """QRA3's published Yao 2022 run (tests/data/qra3) reports p = exp(-4) for W = 1, m = 4, n = 3."""
    from qra_widgets.conventions import QRA3, QRAPP

    scores = [[3, 2, 1], [3.1, 2, 1], [3, 2.5, 1], [4, 2, 1]]
    assert m.kendall_w_pvalue(scores, **QRA3.to_kwargs("kendall_w_pvalue")) == pytest.approx(np.exp(-4), rel=1e-12)
    assert m.kendall_w_pvalue(scores, **QRAPP.to_kwargs("kendall_w_pvalue")) == pytest.approx(1 / 216, rel=1e-12)


# ----------------------------------------------------------------------------- hostile inputs at the measures


@pytest.mark.parametrize("values", [["1.5", "2.5"], [1.0, "2"], np.array(["3", "4"])])
def test_numbers_given_as_text_are_refused_by_cv_star(values):
    with pytest.raises(QRAInputError, match="is not a number \\(it is text"):
        m.cv_star(values)


@pytest.mark.parametrize("values, scale_min", [([1.7e308, 1.79e308 - 1e292, 1.6e308], None),
                                               ([-1.79e308, 1.79e308, 1.79e308], None), ([1.7e308, 1.0], -1.7e308)])
def test_huge_finite_values_do_not_overflow_inside_cv_star(values, scale_min):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning, no OverflowError
        try:
            result = m.cv_star(values, scale_min=scale_min)
        except QRAInputError as error:
            assert "float range" in str(error)
        else:
            assert np.isfinite(result.cv_star) and np.isfinite(result.sd)
            assert result.cv_star == pytest.approx(m.cv_star(np.asarray(values) / 1e300).cv_star, rel=1e-12)


def test_fleiss_kappa_reads_a_count_table_as_statsmodels_does_or_refuses_it():
    """statsmodels' example table (items x categories, 10 raters per item): silently read as raters x
    items, the earlier fleiss_kappa gave a wrong number instead of statsmodels' kappa."""
    from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

    rng = np.random.default_rng(0)
    table = np.array([rng.multinomial(10, p) for p in rng.dirichlet([0.4, 0.4, 0.4, 0.4], size=30)])
    expected = statsmodels_fleiss(table)
    assert m.fleiss_kappa(table, layout="items x categories") == pytest.approx(expected, rel=1e-12)
    with pytest.raises(QRAInputError, match="items x categories"):
        m.fleiss_kappa(table)
    labels = np.repeat(np.arange(4.0), table[0])[None]  # the same data as raters x items still works
    assert np.isfinite(m.fleiss_kappa(np.vstack([np.array([1.0, 2, 3]), [1.0, 2, 2]])))
    assert labels.shape == (1, 10)
