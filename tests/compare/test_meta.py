"""Forest data, random-effects pooling and consistency verdicts (qra_widgets.meta)."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize, stats

import qra_widgets as qw
from qra_widgets.errors import QRAInputError, UndefinedMeasureWarning
from qra_widgets.meta import random_effects, replication_interval, tost
from qra_widgets.ratings import Ratings
from qra_widgets.study import Experiment, QualityCriterion, Study

combine_effects = pytest.importorskip("statsmodels.stats.meta_analysis").combine_effects

DATA = Path(__file__).parents[1] / "data"

# The BCG vaccine trials (Colditz et al. 1994), metafor's dat.bcg: tpos, tneg, cpos, cneg.
BCG = [
    (4, 119, 11, 128),
    (6, 300, 29, 274),
    (3, 228, 11, 209),
    (62, 13536, 248, 12619),
    (33, 5036, 47, 5761),
    (180, 1361, 372, 1079),
    (8, 2537, 10, 619),
    (505, 87886, 499, 87892),
    (29, 7470, 45, 7232),
    (17, 1699, 65, 1600),
    (186, 50448, 141, 27197),
    (5, 2493, 3, 2338),
    (27, 16886, 29, 17825),
]


def bcg_log_risk_ratios():
    a, b, c, d = (np.array(column, dtype=float) for column in zip(*BCG))
    y = np.log((a / (a + b)) / (c / (c + d)))
    v = 1 / a - 1 / (a + b) + 1 / c - 1 / (c + d)
    return y, np.sqrt(v)


HETEROGENEOUS = ([0.1, 0.3, 0.35, 0.6, -0.2], [0.1, 0.1, 0.15, 0.2, 0.12])


def test_dersimonian_laird_pooling_equals_statsmodels_combine_effects_to_1e9():
    for y, se in (HETEROGENEOUS, bcg_log_risk_ratios()):
        y, se = np.asarray(y), np.asarray(se)
        ours = random_effects(y, se, method="dl", ci_method="z")
        theirs = combine_effects(y, se**2, method_re="chi2")
        assert theirs.tau2 > 0  # positive here, so statsmodels' unfloored tau2 is comparable
        frame = theirs.summary_frame(alpha=0.05)
        assert ours.estimate == pytest.approx(theirs.mean_effect_re, abs=1e-9)
        assert ours.se == pytest.approx(theirs.sd_eff_w_re, abs=1e-9)
        assert ours.tau2 == pytest.approx(theirs.tau2, abs=1e-9)
        assert ours.i2 == pytest.approx(theirs.i2, abs=1e-9)
        assert ours.q == pytest.approx(theirs.q, abs=1e-9)
        assert ours.ci_low == pytest.approx(frame.loc["random effect", "ci_low"], abs=1e-9)
        assert ours.ci_high == pytest.approx(frame.loc["random effect", "ci_upp"], abs=1e-9)
        assert ours.estimator.startswith("DerSimonian")


def test_tau2_and_i2_are_floored_at_zero_where_statsmodels_gives_a_negative_tau2():
    y, se = np.array([1.0, 1.01, 0.99, 1.0]), np.array([0.2, 0.2, 0.2, 0.2])
    theirs = combine_effects(y, se**2, method_re="chi2")
    assert theirs.tau2 < 0 and theirs.i2 < 0  # statsmodels' chi2 estimate is not floored
    for method in ("dl", "reml"):
        ours = random_effects(y, se, method=method, ci_method="z")
        assert ours.tau2 == 0.0 and ours.i2 == 0.0
        # tau2 = 0: the random-effects estimate is the fixed-effect one
        assert ours.estimate == pytest.approx(theirs.mean_effect_fe, abs=1e-9)
        assert ours.se == pytest.approx(theirs.sd_eff_w_fe, abs=1e-9)
    assert ours.q == pytest.approx(theirs.q, abs=1e-9)
    assert ours.q_p == pytest.approx(stats.chi2.sf(theirs.q, 3), abs=1e-12)


def _restricted_likelihood_tau2(y, se):
    v = se**2

    def minus_loglik(tau2):
        w = 1 / (v + tau2)
        mu = np.sum(w * y) / np.sum(w)
        return 0.5 * (np.sum(np.log(v + tau2)) + np.log(np.sum(w)) + np.sum(w * (y - mu) ** 2))

    return optimize.minimize_scalar(minus_loglik, bounds=(0, 10), method="bounded", options={"xatol": 1e-13}).x


def test_reml_tau2_maximises_the_restricted_likelihood_and_the_pooled_estimate_equals_statsmodels_given_it():
    for y, se in (HETEROGENEOUS, bcg_log_risk_ratios()):
        y, se = np.asarray(y), np.asarray(se)
        ours = random_effects(y, se, method="reml")
        assert ours.tau2 == pytest.approx(_restricted_likelihood_tau2(y, se), abs=1e-8)
        # the same weights statsmodels uses once tau2 is fixed: 1 / (v + tau2)
        w = 1 / (se**2 + ours.tau2)
        assert ours.estimate == pytest.approx(np.sum(w * y) / np.sum(w), abs=1e-12)
        assert ours.estimator.startswith("REML")


def test_reml_on_the_bcg_trials_gives_metafors_published_fit():
    # metafor's rma(yi, vi, data=dat.bcg) (Viechtbauer 2010, J. Stat. Softw. 36(3), section 3 output):
    # estimate -0.7145, se 0.1798, tau^2 0.3132, I^2 92.22%, Q(df = 12) = 152.2330
    y, se = bcg_log_risk_ratios()
    ours = random_effects(y, se, method="reml", ci_method="z")
    assert round(ours.estimate, 4) == -0.7145
    assert round(ours.se, 4) == 0.1798 and ours.se == ours.se_model
    assert round(ours.tau2, 4) == 0.3132
    # our I^2 is Higgins & Thompson's (Q - df) / Q; metafor prints tau^2 / (tau^2 + s^2) with the
    # "typical" within-study variance s^2 = (k - 1) sum(w) / ((sum w)^2 - sum(w^2)), which gives its 92.22%
    assert ours.i2 == pytest.approx((ours.q - 12) / ours.q, abs=1e-15) and round(100 * ours.i2, 2) == 92.12
    w = 1 / se**2
    typical = 12 * w.sum() / (w.sum() ** 2 - (w**2).sum())
    assert round(100 * ours.tau2 / (ours.tau2 + typical), 2) == 92.22
    assert round(ours.q, 4) == 152.2330 and ours.q_df == 12


def test_prediction_interval_uses_t_with_k_minus_2_degrees_of_freedom():
    # Higgins, Thompson & Spiegelhalter (2009), eq. 12: mu +- t_{k-2} sqrt(tau^2 + SE(mu)^2)
    y, se = bcg_log_risk_ratios()
    ours = random_effects(y, se, method="reml")
    half = stats.t.ppf(0.975, 11) * math.sqrt(ours.tau2 + ours.se_model**2)
    assert (ours.pi_low, ours.pi_high) == pytest.approx((ours.estimate - half, ours.estimate + half), abs=1e-12)
    # from metafor's printed (rounded) fit: -0.7145 +- t_11 * sqrt(0.3132 + 0.1798^2)
    printed = stats.t.ppf(0.975, 11) * math.sqrt(0.3132 + 0.1798**2)
    assert (ours.pi_low, ours.pi_high) == pytest.approx((-0.7145 - printed, -0.7145 + printed), abs=5e-4)


def test_prediction_interval_is_nan_with_its_reason_below_three_experiments():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        two = random_effects([1.0, 2.0], [0.1, 0.3])
    assert math.isnan(two.pi_low) and math.isnan(two.pi_high)
    assert math.isfinite(two.estimate)
    assert "prediction interval is undefined: only 2 experiments" in two.note
    assert any(issubclass(w.category, UndefinedMeasureWarning) and "k − 2" in str(w.message) for w in caught)


def test_pooling_refuses_a_zero_standard_error_and_unequal_lengths():
    with pytest.raises(QRAInputError, match="standard_errors: must be > 0"):
        random_effects([1, 2, 3], [0.1, 0.0, 0.2])
    with pytest.raises(QRAInputError, match="same length"):
        random_effects([1, 2, 3], [0.1, 0.2])
    with pytest.raises(QRAInputError, match="method"):
        random_effects([1, 2, 3], [0.1, 0.2, 0.3], method="pm")


def test_tost_reproduces_the_toster_meta_analytic_example():
    # Lakens (2017) TOST from a meta-analytic estimate and SE; TOSTER's TOSTmeta documented example:
    # ES = 0.12, se = 0.09, bounds +-0.2 -> Z 3.56 (p 0.0002), Z -0.889 (p 0.187), 90% CI -0.028..0.268
    e = tost(0.12, 0.09, margin=0.2)
    assert (round(e.z_lower, 2), round(e.p_lower, 4)) == (3.56, 0.0002)
    assert (round(e.z_upper, 3), round(e.p_upper, 3)) == (-0.889, 0.187)
    assert (round(e.ci_low, 3), round(e.ci_high, 3)) == (-0.028, 0.268)
    assert e.equivalent is False and e.margin == 0.2
    assert tost(0.02, 0.05, margin=0.2).equivalent is True


def test_tost_refuses_a_margin_that_is_not_a_positive_number():
    for bad in (0, -1, float("nan"), "0.2", True):
        with pytest.raises(QRAInputError, match="margin"):
            tost(0.1, 0.05, margin=bad)


def test_replication_interval_is_the_original_plus_minus_z_times_the_combined_standard_error():
    # Patil, Peng & Leek (2016): original +- 1.96 sqrt(se_o^2 + se_r^2)
    low, high = replication_interval(3.0, 0.3, 0.4)
    assert (low, high) == pytest.approx((3.0 - 1.959963985 * 0.5, 3.0 + 1.959963985 * 0.5), abs=1e-8)


# ----------------------------------------------------------------------------- on a study


def three_lab_study(shift=(0.0, 0.3, -0.2)) -> Study:
    """Three experiments, two systems, six items each rated by two raters (generated, seeded)."""
    rng = np.random.default_rng(7)
    columns = {k: [] for k in ("qc", "system", "item", "experiment", "rater", "rating")}
    for e, delta in zip(("O", "R1", "R2"), shift):
        for s, base in (("A", 3.0), ("B", 4.0)):
            for i in range(6):
                for r in ("r1", "r2"):
                    columns["qc"].append("Fluency")
                    columns["system"].append(s)
                    columns["item"].append(f"{s}{i}")
                    columns["experiment"].append(e)
                    columns["rater"].append(f"{e}{r}")
                    columns["rating"].append(float(np.clip(round(base + delta + rng.normal(0, 0.8)), 1, 5)))
    ratings = Ratings.from_columns(*columns.values())
    study = Study(
        "toy",
        quality_criteria=[QualityCriterion("Fluency", scale_min=1, scale_max=5)],
        systems=["A", "B"],
        experiments=[Experiment("O", role="original"), Experiment("R1"), Experiment("R2")],
        ratings=ratings,
    )
    for (s, e), mean in ratings.system_means("Fluency").items():
        study.set_score("Fluency", s, e, mean)
    return study


def test_forest_frame_takes_standard_errors_from_item_means_and_pools_them():
    study = three_lab_study()
    frame = qw.forest(qw.assess(study), quality_criterion="Fluency", system="A")
    experiments = frame[frame.row == "experiment"]
    assert list(experiments.experiment) == ["O", "R1", "R2"]
    assert list(experiments.original) == [True, False, False]
    ratings = study.ratings.frame()
    for _, row in experiments.iterrows():
        mine = ratings[(ratings.system == "A") & (ratings.experiment == row.experiment)]
        item_means = mine.groupby("item").rating.mean()
        assert row.se == pytest.approx(item_means.std(ddof=1) / math.sqrt(6), abs=1e-12)
        assert row.n == 6
        assert row.value == pytest.approx(mine.rating.mean(), abs=1e-12)
    pooled = frame[frame.row == "pooled"].iloc[0]
    expected = random_effects(experiments.value, experiments.se, method="reml")
    assert pooled.value == pytest.approx(expected.estimate, abs=1e-12)
    assert pooled.estimator == expected.estimator and "REML" in pooled.label
    assert pooled.tau2 >= 0 and 0 <= pooled.i2 <= 100
    assert experiments.weight.sum() == pytest.approx(100.0)
    prediction = frame[frame.row == "prediction"].iloc[0]
    assert (prediction.ci_low, prediction.ci_high) == pytest.approx((expected.pi_low, expected.pi_high), abs=1e-12)


def test_forest_frame_of_every_system_has_a_pooled_row_per_system():
    frame = qw.forest(qw.assess(three_lab_study()), quality_criterion="Fluency", method="dl")
    assert list(frame[frame.row == "pooled"].system) == ["A", "B"]
    assert set(frame.estimator[frame.row == "pooled"]) == {"DerSimonian–Laird (1986)"}


def test_forest_uses_a_published_standard_error_where_there_are_no_ratings_and_says_when_there_is_none(qrapp_example1):
    study = qrapp_example1
    qc = study.qc_names[0]
    system = study.systems[0]
    experiments = [e.id for e in study.experiments if (qc, system, e.id) in study.scores]
    given = {(qc, system, experiments[0]): 0.05}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        frame = qw.forest(qw.assess(study), quality_criterion=qc, system=system, standard_errors=given)
    rows = frame[frame.row == "experiment"].set_index("experiment")
    assert rows.loc[experiments[0], "se"] == 0.05 and rows.loc[experiments[0], "note"] == "published standard error"
    assert math.isnan(rows.loc[experiments[1], "se"]) and "not pooled" in rows.loc[experiments[1], "note"]
    assert "only 1 experiment" in frame[frame.row == "pooled"].iloc[0].note


def test_consistency_gives_prediction_interval_and_tost_verdicts_with_the_margin_recorded():
    study = three_lab_study()
    verdicts = qw.consistency(qw.assess(study), margin=0.5)
    assert set(verdicts.experiment) == {"R1", "R2"} and (verdicts.margin == 0.5).all()
    assert verdicts.attrs["margin"] == {"Fluency": 0.5}
    ses = {(s, e): v[0] for (s, e), v in qw.meta.item_standard_errors(study, "Fluency").items()}
    for _, row in verdicts.iterrows():
        se = math.hypot(ses[(row.system, "O")], ses[(row.system, row.experiment)])
        low, high = replication_interval(row.original_value, ses[(row.system, "O")], ses[(row.system, row.experiment)])
        assert (row.pi_low, row.pi_high) == pytest.approx((low, high))
        assert bool(row.inside_pi) == (low <= row.value <= high)
        assert row.tost_p == pytest.approx(tost(row.value - row.original_value, se, margin=0.5).p)
        assert bool(row.equivalent) == (row.tost_p < 0.05)


def test_consistency_records_whether_the_pairwise_system_order_is_kept():
    study = three_lab_study()
    study.set_score("Fluency", "A", "R2", 4.9)  # above B in R2: the original's order A < B is reversed
    verdicts = qw.consistency(qw.assess(study), margin=0.5).set_index(["experiment", "system"])
    assert verdicts.loc[("R1", "A"), "order_kept"] == 1.0
    assert verdicts.loc[("R2", "A"), "order_kept"] == 0.0
    assert verdicts.loc[("R2", "A"), "pairs_compared"] == 1


def test_consistency_requires_a_margin_and_an_original():
    result = qw.assess(three_lab_study())
    with pytest.raises(TypeError):
        qw.consistency(result)
    with pytest.raises(QRAInputError, match="margin"):
        qw.consistency(result, margin=-1)
    study = three_lab_study()
    study.experiments[0] = Experiment("O", role="repeat")
    with pytest.raises(QRAInputError, match="original"):
        qw.consistency(qw.assess(study), margin=0.5)


def test_forest_figure_draws_the_original_reproductions_pooled_estimate_and_prediction_interval():
    from qra_widgets import charts

    frame = qw.forest(qw.assess(three_lab_study()), quality_criterion="Fluency", system="B")
    figure = charts.forest_figure(frame)
    names = [trace.name for trace in figure.data]
    assert names == ["Original", "Reproduction", "Pooled (random effects)", "Prediction interval"]
    original = figure.data[0]
    row = frame[frame.original].iloc[0]
    assert original.x[0] == pytest.approx(row.value)
    assert original.error_x.array[0] == pytest.approx(row.ci_high - row.value)
    prediction = frame[frame.row == "prediction"].iloc[0]
    assert figure.data[3].error_x.arrayminus[0] == pytest.approx(prediction.value - prediction.ci_low)
    assert "REML" in figure.layout.title.text and "I² 59%" in figure.layout.title.text


def test_forest_json_for_the_static_sites_is_plain_json_built_without_plotly():
    import json
    import subprocess
    import sys

    code = (
        "import sys, json; sys.path.insert(0, 'tests/compare'); from test_meta import three_lab_study; import qra_widgets as qw;"
        "from qra_widgets import charts;"
        "spec = charts.forest_figure_json(qw.forest(qw.assess(three_lab_study()), quality_criterion='Fluency'),"
        " template=False); print(json.dumps(spec)); print('plotly' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2]
    ).stdout.splitlines()
    spec = json.loads(out[0])
    assert out[1] == "False"
    assert len(spec["data"]) == 4 and "template" not in spec["layout"]


# ----------------------------------------------------------------------------- rank intervals


def test_rank_intervals_come_from_resampling_each_systems_items_and_are_reproducible_with_a_seed():
    from qra_widgets.meta import rank_intervals

    study = three_lab_study()
    first = rank_intervals(study, quality_criterion="Fluency", B=400, seed=3)
    again = rank_intervals(study, quality_criterion="Fluency", B=400, seed=3)
    assert first.equals(again)
    r1 = first[first.experiment == "R1"].set_index("system")
    assert (r1.loc["B", "rank"], r1.loc["A", "rank"]) == (1.0, 2.0)  # B's mean 4.08 > A's 2.83
    assert (r1.rank_low <= r1["rank"]).all() and (r1["rank"] <= r1.rank_high).all()
    assert r1.loc["A", "group"] != r1.loc["B", "group"]  # intervals [1, 1] and [2, 2]: the order is resolved


def test_systems_with_overlapping_rank_intervals_share_a_group():
    from qra_widgets.meta import rank_intervals

    study = three_lab_study()
    study.set_score("Fluency", "A", "O", 3.5)  # tie A with B in O; the resampled ranks then overlap
    frame = rank_intervals(study, quality_criterion="Fluency", B=400, seed=3)
    o = frame[frame.experiment == "O"].set_index("system")
    assert o.loc["A", "rank"] == o.loc["B", "rank"] == 1.5
    assert o.loc["A", "group"] == o.loc["B", "group"] == 1


def test_rank_intervals_without_ratings_give_observed_ranks_and_say_why_there_is_no_interval(qrapp_example1):
    from qra_widgets.meta import rank_intervals

    study = qrapp_example1
    frame = rank_intervals(study, quality_criterion=study.qc_names[0], B=100, seed=1)
    assert frame.rank_low.isna().all() and (frame.note == "no interval: no item-level ratings for every system").all()
    first = frame[frame.experiment == frame.experiment.iloc[0]].sort_values("rank")
    assert list(first.value) == sorted(first.value, reverse=True)


def test_rank_interval_chart_draws_one_marker_per_system_and_experiment():
    from qra_widgets import charts
    from qra_widgets.meta import rank_intervals

    frame = rank_intervals(three_lab_study(), quality_criterion="Fluency", B=200, seed=1)
    figure = charts.rank_intervals_figure(frame)
    assert sum(len(trace.x) for trace in figure.data) == len(frame) == 6
    assert "B = 200" in figure.layout.title.text


def test_the_template_gets_a_consistency_column_on_each_system_row():
    from qra_widgets.meta import template_with_consistency

    result = qw.assess(three_lab_study())
    table = template_with_consistency(result, margin=0.5)
    verdicts = qw.consistency(result, margin=0.5)
    rows = table.set_index(table["Type of result"].str.strip())
    for system in ("A", "B"):
        mine = verdicts[verdicts.system == system]
        expected = f"{int(mine.inside_pi.sum())}/2 in PI, {int(mine.equivalent.sum())}/2 equivalent (±0.5)"
        assert rows.loc[system, "Consistency"] == expected
    assert (table.loc[table["Measure applied"] != "CV*", "Consistency"] == "").all()
    assert table.attrs["margin"] == {"Fluency": 0.5}


def test_the_narrative_says_for_each_reproduction_where_it_lies_and_whether_it_is_equivalent():
    from qra_widgets.meta import consistency_narrative

    verdicts = qw.consistency(qw.assess(three_lab_study()), margin=0.5)
    text = consistency_narrative(verdicts, quality_criterion="Fluency", system="A")
    r2 = verdicts[(verdicts.system == "A") & (verdicts.experiment == "R2")].iloc[0]
    assert text.count("Patil, Peng & Leek 2016") == 2
    assert f"R2 ({r2.value:.3g}) lies inside the 95% prediction interval [{r2.pi_low:.3g}, {r2.pi_high:.3g}]" in text
    assert ("is equivalent to it within ±0.5" in text) == bool(r2.equivalent)
    with pytest.raises(QRAInputError, match="no verdict"):
        consistency_narrative(verdicts, quality_criterion="Fluency", system="Z")


def test_the_html_report_of_a_study_with_an_original_has_a_forest_plot_per_criterion():
    from qra_widgets.report.site import study_page_html

    page = study_page_html(three_lab_study())
    assert page.count("Forest plot: Fluency") == 1
    assert "Pooled (random effects)" in page and "Prediction interval" in page


def test_a_standard_error_printed_with_a_spec_score_is_used_for_the_original(tmp_path):
    import json

    rows = ["system,item,rater,fluency"] + [
        f"A,i{i},r{r},{v}" for i, (r, v) in enumerate([(1, 4), (2, 3), (1, 4), (2, 5)])
    ]
    rows += [f"B,j{i},r{r},{v}" for i, (r, v) in enumerate([(1, 2), (2, 3), (1, 2), (2, 2)])]
    (tmp_path / "r1.csv").write_text("\n".join(rows) + "\n")
    spec = {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "printed-se",
        "quality_criteria": [{"name": "Fluency", "scale_min": 1, "scale_max": 5}],
        "experiments": [
            {"id": "O", "role": "original", "scores": {"Fluency": {"A": {"value": 4.1, "se": 0.2, "n": 30}, "B": 2.5}}},
            {
                "id": "R1",
                "file": "r1.csv",
                "columns": {"system": "system", "item": "item", "rater": "rater", "criteria": {"Fluency": "fluency"}},
            },
        ],
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    study = qw.load_annotations(tmp_path / "spec.json")
    result = qw.assess(study)
    with pytest.warns(UndefinedMeasureWarning, match="prediction interval is undefined: only 2 experiments"):
        rows = qw.forest(result, quality_criterion="Fluency", system="A").set_index("experiment")
    assert rows.loc["O", "se"] == 0.2 and rows.loc["O", "note"] == "published standard error"
    verdicts = qw.consistency(result, margin=0.5).set_index("system")
    assert verdicts.loc["A", "se_difference"] == pytest.approx(math.hypot(0.2, rows.loc["R1", "se"]))
    assert "no standard error for the original" in verdicts.loc["B", "note"]  # B's value was printed without one
