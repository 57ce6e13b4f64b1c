"""Replication success by several criteria (qra_widgets.replication) and its verdict matrix."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from test_meta import three_lab_study

import qra_widgets as qw
from qra_widgets import charts
from qra_widgets.errors import QRAInputError
from qra_widgets.meta import item_standard_errors, random_effects, replication_interval, tost
from qra_widgets.replication import CRITERIA, d33, sceptical_p, success_matrix, z_sceptical

REFERENCE = json.loads(
    (Path(__file__).parents[1] / "data" / "reference" / "replicationsuccess_psceptical.json").read_text()
)


def p2z(p):  # ReplicationSuccess' p2z, two-sided
    return stats.norm.isf(p / 2)


@pytest.mark.parametrize("example", REFERENCE["examples"], ids=lambda e: e["call"])
def test_sceptical_p_equals_replicationsuccess_documented_examples_to_1e6(example):
    ours = sceptical_p(
        p2z(example["po"]), p2z(example["pr"]), example["c"], alternative=example["alternative"], type=example["type"]
    )
    assert ours == pytest.approx(example["printed"], abs=1e-6)


def test_z_sceptical_equals_the_documented_examples():
    for example in REFERENCE["zsceptical_examples"]:
        assert z_sceptical(example["zo"], example["zr"], example["c"]) == pytest.approx(example["printed"], abs=1e-6)


def test_sceptical_p_equals_replicationsuccess_regression_grid_to_1e9():
    grid = REFERENCE["grid"]
    values = iter(grid["values"])
    for kind in grid["type"]:
        for alternative in grid["alternative"]:
            for c in grid["c"]:
                for zr in grid["zr"]:
                    expected = next(values)
                    ours = [sceptical_p(zo, zr, c, alternative=alternative, type=kind) for zo in grid["zo"]]
                    assert ours == pytest.approx(expected, abs=1e-9), (kind, alternative, c, zr)


def test_d33_is_the_effect_the_original_detects_with_a_third_of_its_power():
    se = 0.2
    d = d33(se)
    power = stats.norm.sf(1.959963984540054 - d / se)  # Simonsohn (2015): the near tail
    assert power == pytest.approx(1 / 3, abs=1e-12)


def test_every_criterion_of_each_repeat_comes_from_its_numbers():
    study = three_lab_study()
    frame = qw.replication_success(qw.assess(study), quality_criterion="Fluency", margin=0.5)
    assert frame.attrs["effect_of"] == "difference from 3" and frame.attrs["null"] == 3.0
    assert list(frame.experiment) == ["R1", "R2", "pooled repeats", "R1", "R2", "pooled repeats"]
    ses = {key: value[0] for key, value in item_standard_errors(study, "Fluency").items()}
    for row in frame[frame.experiment != "pooled repeats"].itertuples():
        theta_o = study.scores[("Fluency", row.system, "O")] - 3.0
        theta_r = study.scores[("Fluency", row.system, row.experiment)] - 3.0
        se_o, se_r = ses[(row.system, "O")], ses[(row.system, row.experiment)]
        assert (row.theta_o, row.theta_r, row.se_o, row.se_r) == pytest.approx((theta_o, theta_r, se_o, se_r))
        p_r = 2 * stats.norm.sf(abs(theta_r) / se_r)
        assert row.same_direction_significant == (np.sign(theta_r) == np.sign(theta_o) and p_r < 0.05)
        assert row.original_in_repeat_ci == (abs(theta_o - theta_r) <= 1.959963984540054 * se_r)
        low, high = replication_interval(theta_o, se_o, se_r)
        assert row.repeat_in_prediction_interval == (low <= theta_r <= high)
        assert row.tost_p == pytest.approx(tost(theta_r - theta_o, math.hypot(se_o, se_r), margin=0.5).p)
        w = np.array([se_o, se_r]) ** -2.0
        pooled = (w[0] * theta_o + w[1] * theta_r) / w.sum()
        assert row.pooled_p == pytest.approx(2 * stats.norm.sf(abs(pooled) * math.sqrt(w.sum())))
        assert row.sceptical_p == pytest.approx(sceptical_p(theta_o / se_o, theta_r / se_r, se_o**2 / se_r**2))
        assert row.sceptical_success == (row.sceptical_p < 0.025)
        assert row.relative_effect_size == pytest.approx(theta_r / theta_o)
        telescopes = stats.norm.cdf((np.sign(theta_o) * theta_r - d33(se_o)) / se_r)
        assert row.small_telescopes_p == pytest.approx(telescopes) and row.small_telescopes == (telescopes < 0.05)
    pooled_row = frame[(frame.system == "A") & (frame.experiment == "pooled repeats")].iloc[0]
    repeats = frame[(frame.system == "A") & (frame.experiment != "pooled repeats")]
    with pytest.warns(qw.UndefinedMeasureWarning, match="prediction interval"):  # two repeats: no prediction interval
        expected = random_effects(repeats.theta_r, repeats.se_r)
    assert (pooled_row.theta_r, pooled_row.se_r, pooled_row.k_repeats) == (expected.estimate, expected.se, 2)


def test_a_baseline_system_makes_the_effect_a_difference_between_systems():
    study = three_lab_study()
    frame = qw.replication_success(qw.assess(study), quality_criterion="Fluency", margin=0.5, baseline="A")
    assert set(frame.system) == {"B"} and frame.attrs["effect_of"] == "difference from A"
    ses = {key: value[0] for key, value in item_standard_errors(study, "Fluency").items()}
    r1 = frame[frame.experiment == "R1"].iloc[0]
    assert r1.theta_r == pytest.approx(study.scores[("Fluency", "B", "R1")] - study.scores[("Fluency", "A", "R1")])
    assert r1.se_r == pytest.approx(math.hypot(ses[("B", "R1")], ses[("A", "R1")]))
    # B is rated about one point above A by every team: every criterion of direction and significance holds
    assert r1.same_direction_significant and r1.pooled_significant


def test_replication_success_refuses_what_it_cannot_judge():
    result = qw.assess(three_lab_study())
    with pytest.raises(QRAInputError, match="margin"):
        qw.replication_success(result, quality_criterion="Fluency", margin=0)
    with pytest.raises(QRAInputError, match="baseline"):
        qw.replication_success(result, quality_criterion="Fluency", margin=0.5, baseline="Z")
    with pytest.raises(QRAInputError, match="not both"):
        qw.replication_success(result, quality_criterion="Fluency", margin=0.5, baseline="A", null=3)
    with pytest.raises(QRAInputError, match="alternative"):
        sceptical_p(1, 2, 1, alternative="greater")


def test_the_verdict_figure_is_a_criterion_by_comparison_matrix_of_the_verdicts():
    frame = qw.replication_success(qw.assess(three_lab_study()), quality_criterion="Fluency", margin=0.5)
    matrix = success_matrix(frame)
    assert list(matrix.index) == CRITERIA and matrix.shape == (7, 6)
    # small telescopes: success is *not* being significantly smaller than d33%
    assert matrix.loc["small_telescopes"].tolist() == (~frame.small_telescopes).tolist()
    spec = charts.verdict_figure_json(frame, template=False)
    heat = spec["data"][0]
    assert heat["type"] == "heatmap" and len(heat["z"]) == 7 and len(heat["z"][0]) == 6
    assert heat["z"][3] == [int(v) for v in frame.tost_equivalent]
    assert "TOST p" in heat["customdata"][3][0] and "template" not in spec["layout"]
    assert charts.verdict_figure(frame).data[0].type == "heatmap"
