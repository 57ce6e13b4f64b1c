"""The ``ci_note`` column: a caution on each interval the coverage study (benchmarks/coverage.py,
docs/coverage.md) found to cover well under its stated level, and on no other."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import qra_widgets as qw
from qra_widgets import examples
from qra_widgets.assess import COLUMNS, SYSTEM_MEAN_COLUMNS
from qra_widgets.intervals import CAUTIONS, interval_caution

CRITERION_CV = "criterion-level CV* interval: too short"
CV_OVER_RATERS = "CV* interval over items+raters: too short"
AGREEMENT = "agreement is resampled over items only, not raters"


def rows(frame, measure, level):
    return frame[(frame.measure == measure) & (frame.level == level)].set_index("system", drop=False)


def test_the_note_is_a_column_of_every_interval_table():
    assert COLUMNS[-1] == "ci_note" and SYSTEM_MEAN_COLUMNS[-1] == "ci_note"
    frame = qw.assess(examples.load("qrapp_example1")).to_frame()
    assert (frame.ci_note == "").all()  # no interval, nothing to say


def test_on_van_miltenburg_the_criterion_cv_interval_over_items_is_flagged_and_the_system_ones_are_not(vm):
    result = qw.assess(vm, bootstrap=300, seed=1)
    frame = result.to_frame()
    criterion = frame[(frame.measure == "CV*") & frame.level.isin(["qc", "study"])]
    assert list(criterion.ci_method) == ["percentile", "percentile"]
    assert criterion.value.iloc[0] == pytest.approx(13.7628, abs=1e-4)
    assert all(
        note.startswith(CRITERION_CV) and note.endswith("read the system-level intervals") for note in criterion.ci_note
    )
    system = rows(frame, "CV*", "system")
    # SVM and GeDi: two-sided, well away from 0; DExperts (CV* 3.81): the boundary rule's [0, upper bound]
    assert list(system.ci_method) == ["percentile", "percentile", "upper-one-sided"]
    assert (system.loc[["SVM", "GeDi"], "ci_low"] > 9).all() and system.loc["DExperts", "ci_low"] == 0
    assert (system.ci_note == "").all()
    # r, rho, W, P reach 1 (lower-one-sided): the interval contains the boundary, so no caution
    assert (rows(frame, "r", "qc").ci_method == "lower-one-sided").all() and (
        frame[frame.measure.isin(["r", "rho", "W", "P"])].ci_note == ""
    ).all()
    assert (result.annotator_agreement().ci_note == "").all() and (result.system_means().ci_note == "").all()


def test_on_van_miltenburg_items_and_raters_flags_two_sided_cv_and_every_agreement_interval(vm):
    result = qw.assess(vm, bootstrap=300, seed=1, resample="items+raters")
    frame = result.to_frame()
    system = rows(frame, "CV*", "system")
    assert system.loc["SVM", "ci_note"].startswith(CV_OVER_RATERS) and system.loc["GeDi", "ci_note"].startswith(
        CV_OVER_RATERS
    )
    assert system.loc["DExperts", "ci_method"] == "upper-one-sided" and system.loc["DExperts", "ci_note"] == ""
    criterion = rows(frame, "CV*", "qc")
    assert criterion.ci_method.iloc[0] == "upper-one-sided" and criterion.ci_note.iloc[0] == ""
    overall = frame.experiments == ""  # the rows over all experiments; each repeat vs the original has no interval
    agreement_rows = frame[frame.measure.isin(["alpha", "fleiss_kappa"]) & overall]
    assert len(agreement_rows) == 10 and all(n.startswith(AGREEMENT) for n in agreement_rows.ci_note)
    assert frame[~overall].ci_low.isna().all() and (frame[~overall].ci_note == "").all()
    annotators = result.annotator_agreement()
    assert len(annotators) == 14 and all(n.startswith(AGREEMENT) for n in annotators.ci_note)
    # the same interval as over items: raters are not resampled for agreement, which is what the caution says
    items = qw.assess(vm, bootstrap=300, seed=1).annotator_agreement()
    assert np.allclose(items.ci_low, annotators.ci_low) and (items.ci_note == "").all()
    means = result.system_means()  # a system's mean over raters: 88-89% in the coverage study
    assert len(means) > 0 and all(n.startswith("system mean over items+raters: too short") for n in means.ci_note)


def test_vangel_intervals_and_intervals_over_systems_carry_no_caution():
    """QRA 2022's essay-scoring scores (bundled): a system's CV* gets Vangel's interval; P (0.716)
    over systems, BCa or percentile, covers 96-100% in the 500-replication coverage study: no caution."""
    percentile = qw.assess(examples.load("qra2022_essay_scoring"), bootstrap=500, seed=3, resample="systems").to_frame()
    bca = qw.assess(
        examples.load("qra2022_essay_scoring"), bootstrap=500, seed=3, resample="systems", ci_method="bca"
    ).to_frame()
    cv = rows(bca, "CV*", "system")
    assert len(cv) > 0 and (cv.ci_method == "vangel").all() and (cv.ci_note == "").all()
    p = rows(bca, "P", "qc").iloc[0]
    assert p.value == pytest.approx(0.7162, abs=1e-4) and p.ci_method == "bca" and p.ci_high < 1
    assert p.ci_note == "" and (percentile.ci_note == "").all() and (bca.ci_note == "").all()
    assert (bca[bca.measure.isin(["r", "rho", "W"])].ci_method == "lower-one-sided").all()


def test_a_system_mean_over_items_and_raters_is_cautioned_and_over_items_it_is_not():
    assert interval_caution("mean", "system", "percentile", "items+raters", 3.1, 2.9, 3.3).startswith(
        "system mean over items+raters: too short"
    )
    assert interval_caution("mean", "system", "percentile", "items", 3.1, 2.9, 3.3) == ""


def test_p_from_items_within_an_interval_width_of_one_is_flagged_in_the_coverage_model(coverage_study):
    """A study drawn from the coverage study's model (tau = 0.1, two experiments on the same items,
    two raters each): P's item interval stops just above 0.9 (0.9025: with the item weights drawn
    in one call per weight group, see CHANGELOG, the 97.5th percentile of the 400 replicates falls
    between 0.9 and 1) while the true P for these raters is 0.9 and the data cannot tell it from 1."""
    model = coverage_study
    cell = model.Cell(0.1, 2, "paired", 2)
    study, c, b = cell.simulate(np.random.default_rng(6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qw.UndefinedMeasureWarning)
        frame = qw.assess(study, bootstrap=400, seed=1).to_frame()
    p = rows(frame, "P", "qc").iloc[0]
    assert (p.value, p.ci_low, p.ci_high, p.ci_method) == (
        pytest.approx(0.6),
        pytest.approx(0.4),
        pytest.approx(0.9025),
        "percentile",
    )
    assert p.ci_note.startswith("P within one interval width of 1, which the interval leaves out")
    assert cell.truths(c, b, np.zeros(5))["raters"][("P", "qc", None)] == pytest.approx(0.9)
    r = rows(frame, "r", "qc").iloc[0]
    assert r.ci_note == "" and (r.ci_method == "lower-one-sided" or 1 - r.value > r.ci_high - r.ci_low)


@pytest.mark.parametrize(
    "measure, level, method, over, estimate, low, high, expected",
    [
        ("r", "qc", "percentile", "items", 0.93, 0.81, 0.97, "r within one interval width of 1"),
        ("W", "study", "bca", "items+raters", 0.80, 0.70, 0.95, "W within one interval width of 1"),
        ("r", "qc", "percentile", "items", 0.40, 0.21, 0.55, ""),  # 0.60 from 1, the interval 0.34 wide
        ("P", "qc", "bca", "items", 0.40, 0.21, 0.55, "BCa interval of P from items: too short"),
        ("P", "qc", "percentile", "items", 0.40, 0.21, 0.55, ""),
        ("r", "qc", "percentile", "items", 0.95, 0.85, 1.00, ""),  # the interval reaches 1
        ("P", "qc", "lower-one-sided", "items", 0.95, 0.80, 1.00, ""),  # the boundary rule's interval
        ("rho", "qc", "percentile", "items", 0.93, 0.81, 0.97, ""),  # not in the coverage study
        ("CV*", "system", "percentile", "items", 13.07, 9.73, 16.88, ""),
        ("CV*", "system", "vangel", "experiments", 19.96, 8.44, 125.7, ""),
        ("CV*", "qc", "bca", "items", 13.76, 10.94, 16.68, "criterion-level CV* interval"),
        ("CV*", "qc", "upper-one-sided", "items", 3.1, 0.0, 9.2, ""),
        ("alpha", "annotators", "percentile", "items+raters", 0.52, 0.43, 0.59, "agreement is resampled"),
        ("alpha", "annotators", "percentile", "items", 0.52, 0.43, 0.59, ""),
        ("CV*", "qc", "percentile", "items", 13.76, float("nan"), float("nan"), ""),  # no interval, no caution
    ],
)
def test_the_rule_table_decides_on_measure_level_method_over_and_distance_to_the_boundary(
    measure, level, method, over, estimate, low, high, expected
):
    note = interval_caution(measure, level, method, over, estimate, low, high)
    assert note.startswith(expected) and bool(note) == bool(expected)


def test_every_rule_names_what_to_read_instead_and_the_coverage_it_rests_on():
    for rule in CAUTIONS:
        assert "coverage study:" in rule.text and "read" in rule.text
