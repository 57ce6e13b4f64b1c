"""The sensitivity report: which documented choices reproduce a published CV*."""

from __future__ import annotations

from pathlib import Path

import pytest

import qra_widgets as qw
from qra_widgets.cli import main
from qra_widgets.errors import QRAInputError
from qra_widgets.sensitivity import sensitivity
from qra_widgets.study import Experiment, QualityCriterion, Study

DATA = Path(__file__).parents[1] / "data"


def _reproducing(frame):
    return frame[frame.reproduces][
        ["optional_exclude", "scale_shift", "small_sample_factor", "sd", "aggregation", "rounding"]
    ].to_dict("records")


def test_qra3_means_reproduce_yao_2022_gt_12_01_only_with_the_shift_and_without_the_small_sample_factor(field_data):
    # SamsungLabs/ReproNLP2026 qra/output-4-studies/Yao2022/table.csv prints GT CV* 12.01 from
    # qra/metrics-4-studies.csv (the published field data)
    study = qw.read_qra3(field_data / "qra3" / "metrics-4-studies.csv", field_data / "qra3" / "config-4-studies.json")[
        0
    ]
    frame = sensitivity(study, published="12.01", quality_criterion="Readability", system="GT")
    assert _reproducing(frame) == [
        {
            "optional_exclude": "n/a",
            "scale_shift": True,
            "small_sample_factor": False,
            "sd": "s/c4",
            "aggregation": "n/a",
            "rounding": "none",
        }
    ]
    assert frame.attrs["not_applicable"] == [
        "optional_exclude",
        "aggregation",
    ]  # system means only: no ratings to aggregate
    assert len(frame) == 36 and frame.group.nunique() == 36  # 2 shifts x 2 factors x 3 sds x 3 roundings


def test_hurlimann_means_reproduce_8_646_only_unshifted_with_the_small_sample_factor(tmp_path, capsys):
    # Huerlimann et al. (2026), manhue/ReproNLP2026_0031-01 tables/coeff_variation_means_based.html: GT 8.646
    # from the means they typed into their analysis: 4.95, 4.71, 4.38, 4.18182
    rows = ["experiment,quality_criterion,system,score,scale_min,scale_max"]
    rows += [f"{e},Readability,GT,{v},1,5" for e, v in zip(("O", "R1", "R2", "R3"), (4.95, 4.71, 4.38, 4.18182))]
    path = tmp_path / "means.csv"
    path.write_text("\n".join(rows) + "\n")
    status = main(
        ["sensitivity", str(path), "--published", "8.646", "--quality-criterion", "Readability", "--system", "GT"]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert "8.64614  REPRODUCES\n    scale_shift=False, small_sample_factor=True, sd=s/c4, rounding=none\n" in out
    assert out.count("REPRODUCES") == 1
    assert out.strip().endswith("1 of 36 distinct values reproduce the published value (1 of 36 combinations)")


def _study(values, scale_min=1.0):
    study = Study(
        "s",
        quality_criteria=[QualityCriterion("Q", scale_min=scale_min, scale_max=5)],
        systems=["A"],
        experiments=[Experiment(f"E{i}") for i in range(len(values))],
    )
    for i, v in enumerate(values):
        study.set_score("Q", "A", f"E{i}", v)
    return study


def test_choices_that_cannot_change_the_value_are_not_applicable_and_equal_values_are_grouped():
    frame = sensitivity(_study([3.1, 2.5, 2.9], scale_min=0.0), published="9.9", quality_criterion="Q", system="A")
    assert frame.attrs["not_applicable"] == [
        "optional_exclude",
        "scale_shift",
        "aggregation",
        "rounding",
    ]  # 0-based; 1 decimal
    assert len(frame) == 6 and list(frame.small_sample_factor) == [False, True] * 3
    assert list(frame.sd) == ["STDEV.P", "STDEV.P", "STDEV.S", "STDEV.S", "s/c4", "s/c4"]  # smallest sd first


def test_published_digits_come_from_the_printed_text_so_trailing_zeros_count():
    study = _study([4.0, 4.2, 3.9])
    exact = sensitivity(study, published="6", quality_criterion="Q", system="A")
    assert exact.attrs["digits"] == 0
    assert sensitivity(study, published="6.00", quality_criterion="Q", system="A").attrs["digits"] == 2
    with pytest.raises(QRAInputError, match="published"):
        sensitivity(study, published="six", quality_criterion="Q", system="A")


def test_item_level_ratings_add_the_aggregation_choice():
    from tests.compare.test_meta import three_lab_study

    frame = sensitivity(three_lab_study(), published="5", quality_criterion="Fluency", system="A")
    assert "aggregation" not in frame.attrs["not_applicable"]
    assert {"mean", "median"} <= set(frame.aggregation)
    # every rater rates every item once: the mean of all ratings is the mean of item means (one group)
    both = (
        frame[frame.aggregation.isin(["mean", "item_mean"])]
        .groupby(["scale_shift", "small_sample_factor", "sd", "rounding"])
        .group.nunique()
    )
    assert (both == 1).all()


def test_each_optional_exclude_of_a_spec_is_tried_and_the_one_that_reproduces_is_named(tmp_path, capsys):
    import json

    # two experiments rate items 1..5 of system A; in R1, rater "late" rated low, and a team may have dropped them
    rows = ["experiment,item,rater,system,fluency"]
    for e, scores in (("O", {"r1": [4, 4, 5, 4, 4]}), ("R1", {"r1": [4, 5, 4, 4, 4], "late": [1, 2, 1, 1, 2]})):
        for rater, values in scores.items():
            rows += [f"{e},i{i},{rater},A,{v}" for i, v in enumerate(values)]
    (tmp_path / "ratings.csv").write_text("\n".join(rows) + "\n")
    entry = {
        "file": "ratings.csv",
        "columns": {"system": "system", "item": "item", "rater": "rater", "criteria": {"Fluency": "fluency"}},
    }
    spec = {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "toy",
        "quality_criteria": [{"name": "Fluency", "scale_min": 1, "scale_max": 5}],
        "experiments": [
            {"id": "O", "role": "original", **entry, "rows": {"experiment": ["O"]}},
            {"id": "R1", **entry, "rows": {"experiment": ["R1"]}, "optional_exclude": {"rater": ["late"]}},
        ],
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    # O mean 4.2, R1 without "late" 4.2: CV* 0 -> the published 0.00 needs the exclusion
    status = main(["sensitivity", str(path), "--published", "0.00", "--quality-criterion", "Fluency", "--system", "A"])
    out = capsys.readouterr().out
    assert status == 0
    groups = out.split("\n")
    start = next(i for i, line in enumerate(groups) if line.endswith("REPRODUCES"))
    block = []
    for line in groups[start + 1 :]:
        if not line.startswith("    "):
            break
        block.append(line)
    assert block and all("optional_exclude=R1" in line for line in block)
    assert "optional_exclude=none" in out  # the other variant is listed too
    assert out.count("REPRODUCES") == 1


def test_arvan_and_pardes_sep_ae_cv_star_needs_their_undocumented_exclusion(field_data):
    # mo-arvan/reprohum-0744-02 results/lab1/tables/cv_summary.csv: sep_ae CV* 7.595 (BWS 1.444); without dropping the
    # three submissions that chose the distractor the BWS is 0.92. The exclusion is made optional here.
    import json

    from qra_widgets.io.annotations import load_annotations
    from qra_widgets.sensitivity import optional_exclude_variants

    spec = json.loads((Path(__file__).parents[1] / "field" / "hosking2021_meaning_arvan2025_pairwise.json").read_text())
    r1 = spec["experiments"][1]
    r1["optional_exclude"] = {"worker": r1["exclude"].pop("worker")}
    variants = optional_exclude_variants(spec, lambda copied: load_annotations(copied, base=field_data))
    assert round(variants["none"].scores[("Meaning", "sep_ae", "R1")], 2) == 0.92
    assert round(variants["R1"].scores[("Meaning", "sep_ae", "R1")], 3) == 1.444
    frame = sensitivity(
        variants["none"], published="7.595", quality_criterion="Meaning", system="sep_ae", variants=variants
    )
    assert {
        (r["optional_exclude"], r["scale_shift"], r["small_sample_factor"], r["sd"], r["rounding"])
        for r in _reproducing(frame)
    } == {("R1", True, True, "s/c4", "none")}


def test_a_team_that_used_excel_stdev_p_gets_a_hint(tmp_path, capsys):
    """Issue 30: the population sd (Excel STDEV.P) and the sd without c4 are tried; a value only they
    reproduce says so. Values 4.95, 4.71, 4.38, 4.18182 (Huerlimann et al. 2026's means, above) on a
    1..5 scale: mean 3.555455 after the shift, STDEV.P 0.295778, CV 8.319% (computed here by hand, with
    statistics.pstdev), and with the (1 + 1/16) factor 8.839."""
    import statistics

    values = [4.95, 4.71, 4.38, 4.18182]
    shifted = [v - 1 for v in values]
    by_hand = 100 * statistics.pstdev(shifted) / statistics.mean(shifted) * (1 + 1 / 16)
    rows = ["experiment,quality_criterion,system,score,scale_min,scale_max"]
    rows += [f"{e},Readability,GT,{v},1,5" for e, v in zip(("O", "R1", "R2", "R3"), values)]
    path = tmp_path / "means.csv"
    path.write_text("\n".join(rows) + "\n")
    status = main(
        [
            "sensitivity",
            str(path),
            "--published",
            f"{by_hand:.3f}",
            "--quality-criterion",
            "Readability",
            "--system",
            "GT",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0 and f"{by_hand:.3f}" == "8.839"
    assert "REPRODUCES\n    scale_shift=True, small_sample_factor=True, sd=STDEV.P, rounding=none\n" in out
    assert out.strip().endswith(
        "hint: the published value is reproduced only with the population standard deviation "
        "(Excel STDEV.P, numpy's default ddof=0), not with QRA's unbiased s* = s/c4(n)"
    )
