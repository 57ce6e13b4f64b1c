"""Type III agreement between the original's and each repeat's labels in a study of three or more
experiments (issue 29, item 7): Cohen's kappa and Krippendorff's alpha per pair, at QC and system
level, beside Fleiss' kappa / alpha over all experiments.  The values are checked against
scikit-learn's ``cohen_kappa_score`` and the ``krippendorff`` package on each pair's labels."""

from __future__ import annotations

import json

import numpy as np
import pytest

import qra_widgets as qw
from qra_widgets import QualityCriterion, Study
from qra_widgets.assess import COLUMNS, original_experiment
from qra_widgets.study import Experiment

krippendorff = pytest.importorskip("krippendorff")
metrics = pytest.importorskip("sklearn.metrics")

SYSTEMS = ("A", "B")
ITEMS = 12


def labelled_study(roles=("original", "repeat", "repeat"), ids=("O", "R1", "R2"), missing=()):
    """Three (or more) experiments labelling the same 12 items of two systems on a 0-3 scale; the
    repeats disagree with the original on a seeded share of items.  ``missing`` drops (experiment,
    system, item) labels."""
    rng = np.random.default_rng(29)
    truth = {(s, f"i{k}"): int(rng.integers(0, 4)) for s in SYSTEMS for k in range(ITEMS)}
    labels = {}
    for e in ids:
        for (s, i), code in truth.items():
            if (e, s, i) in missing:
                continue
            flip = e != ids[0] and rng.random() < 0.35
            labels[("Q", s, i, e)] = int(rng.integers(0, 4)) if flip else code
    return Study(
        id="pairs",
        quality_criteria=[QualityCriterion("Q", scale_min=0, scale_max=3, label_level="ordinal")],
        systems=list(SYSTEMS),
        experiments=[Experiment(e, role=r) for e, r in zip(ids, roles)],
        labels=labels,
    )


def pair_labels(study, first, second, system=None):
    """The two experiments' labels on the units both labelled, in one order."""
    wanted = {
        (s, i): int(label)
        for (q, s, i, e), label in study.labels.items()
        if q == "Q" and e == first and (system is None or s == system)
    }
    other = {
        (s, i): int(label)
        for (q, s, i, e), label in study.labels.items()
        if q == "Q" and e == second and (system is None or s == system)
    }
    units = sorted(set(wanted) & set(other))
    return [wanted[u] for u in units], [other[u] for u in units]


def pair_alpha(study, first, second, level, system=None):
    """The ``krippendorff`` package's alpha on the two experiments' labels (every unit either labelled)."""
    units = sorted(
        {(s, i) for (q, s, i, e) in study.labels if q == "Q" and e in (first, second) and system in (None, s)}
    )
    data = np.array(
        [[float(study.labels.get(("Q", s, i, e), np.nan)) for s, i in units] for e in (first, second)], dtype=float
    )
    return krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=[0, 1, 2, 3])


def rows_of(result, experiments):
    return [r for r in result.rows if r.experiments == experiments]


def test_each_repeat_is_compared_with_the_original_by_kappa_and_alpha():
    study = labelled_study()
    result = qw.assess(study)
    for repeat in ("R1", "R2"):
        rows = rows_of(result, ("O", repeat))
        assert {(r.measure, r.level, r.system) for r in rows} == {
            (m, level, s) for m in ("kappa", "alpha") for level, s in (("qc", None), ("system", "A"), ("system", "B"))
        }
        for row in rows:
            first, second = pair_labels(study, "O", repeat, row.system)
            expected = (
                metrics.cohen_kappa_score(first, second)
                if row.measure == "kappa"
                else pair_alpha(study, "O", repeat, "ordinal", row.system)
            )
            assert row.value == pytest.approx(expected, abs=1e-12), (repeat, row)
            assert (row.result_type, row.n) == ("III", 2)
    # the rows over all experiments come first and are unchanged: Fleiss' kappa and alpha, n = 3
    assert result.value("alpha", "qc", "Q") == pytest.approx(
        krippendorff.alpha(
            reliability_data=np.array([study.label_matrix("Q")[0][k] for k in range(3)], dtype=float),
            level_of_measurement="ordinal",
            value_domain=[0, 1, 2, 3],
        ),
        abs=1e-12,
    )
    # the study level averages the values over all experiments only
    study_rows = [r for r in result.rows if r.level == "study" and r.result_type == "III"]
    assert {r.measure for r in study_rows} == {"fleiss_kappa", "alpha"}
    assert all(r.experiments is None for r in study_rows)


def test_alpha_level_follows_the_conventions_then_the_criterion():
    study = labelled_study()
    interval = qw.assess(study, conventions={"name": "qrapp", "alpha_level": "interval"})
    (row,) = [r for r in rows_of(interval, ("O", "R2")) if r.measure == "alpha" and r.level == "qc"]
    assert row.value == pytest.approx(pair_alpha(study, "O", "R2", "interval"), abs=1e-12)
    assert row.value != pytest.approx(pair_alpha(study, "O", "R2", "ordinal"), abs=1e-6)


def test_without_an_experiment_marked_original_the_first_is_the_original():
    study = labelled_study(roles=("repeat", "repeat", "repeat"))
    assert original_experiment(study) == "O"
    pairs = {r.experiments for r in qw.assess(study).rows if r.experiments}
    assert pairs == {("O", "R1"), ("O", "R2")}


def test_the_experiment_marked_original_is_the_original_wherever_it_stands():
    study = labelled_study(roles=("repeat", "original", "repeat"))
    assert original_experiment(study) == "R1"
    result = qw.assess(study)
    assert {r.experiments for r in result.rows if r.experiments} == {("R1", "O"), ("R1", "R2")}
    (row,) = [r for r in rows_of(result, ("R1", "O")) if r.measure == "kappa" and r.level == "qc"]
    assert row.value == pytest.approx(metrics.cohen_kappa_score(*pair_labels(study, "R1", "O")), abs=1e-12)


def test_a_repeat_with_missing_labels_is_compared_on_the_items_both_labelled():
    missing = {("R2", "A", f"i{k}") for k in range(5)}
    study = labelled_study(missing=missing)
    result = qw.assess(study)
    (row,) = [
        r for r in rows_of(result, ("O", "R2")) if r.measure == "kappa" and r.level == "system" and r.system == "A"
    ]
    first, second = pair_labels(study, "O", "R2", "A")
    assert len(first) == ITEMS - 5
    # the missing-label rule of every agreement coefficient here (docs/measures.md; Gwet 2014
    # section 2.5, irrCAC's conger()): agreement over the items both labelled, each experiment's
    # label distribution over all the items it labelled -- so not scikit-learn's value on the pairs
    original = [int(v) for (q, s, i, e), v in study.labels.items() if (q, s, e) == ("Q", "A", "O")]
    observed = np.mean(np.array(first) == np.array(second))
    p_original = np.bincount(original, minlength=4) / len(original)
    p_repeat = np.bincount(second, minlength=4) / len(second)
    chance = float(p_original @ p_repeat)
    assert row.value == pytest.approx((observed - chance) / (1 - chance), abs=1e-12)
    assert row.value != pytest.approx(metrics.cohen_kappa_score(first, second), abs=1e-6)
    (alpha,) = [r for r in rows_of(result, ("O", "R2")) if r.measure == "alpha" and r.system == "A"]
    assert alpha.value == pytest.approx(pair_alpha(study, "O", "R2", "ordinal", "A"), abs=1e-12)


def test_two_experiments_keep_their_rows_and_columns():
    study = labelled_study(roles=("original", "repeat"), ids=("O", "R1"))
    result = qw.assess(study)
    assert all(r.experiments is None for r in result.rows)
    assert list(result.to_frame().columns) == COLUMNS
    assert result.value("kappa", "qc", "Q") == pytest.approx(
        metrics.cohen_kappa_score(*pair_labels(study, "O", "R1")), abs=1e-12
    )


def test_every_writer_names_the_pair():
    result = qw.assess(labelled_study())
    frame = result.to_frame()
    assert list(frame.columns) == COLUMNS[:5] + ["experiments"] + COLUMNS[5:]
    assert set(frame.experiments) == {"", "O vs R1", "O vs R2"}
    assert "κ (O vs R1)" in result.to_markdown() and "α (O vs R2)" in result.to_markdown()
    assert "κ (O vs R1)" in result.to_latex()
    assert "κ (O vs R2)" in result._repr_html_()
    assert '"O vs R2"' in result.to_csv()
    records = json.loads(result.to_json())["results"]
    assert {r["experiments"] for r in records} == {"", "O vs R1", "O vs R2"}
    template = result.table()
    assert "κ (O vs R1)" in set(template["Measure applied"])


def test_pair_rows_get_no_interval_and_say_so():
    result = qw.assess(labelled_study(), bootstrap=50, seed=3)
    frame = result.to_frame()
    pairs = frame[frame.experiments != ""]
    assert len(pairs) == 12
    assert pairs.ci_low.isna().all()
    assert (pairs.note == "no interval: the agreement of one repeat with the original is not resampled").all()
    # the value over all experiments keeps its own interval
    overall = frame[(frame.experiments == "") & (frame.measure == "alpha") & (frame.level == "qc")]
    assert np.isfinite(overall.ci_low.iloc[0])


def test_side_by_side_and_the_library_keep_pairs_apart_from_the_values_over_all_experiments():
    from qra_widgets.assess import side_by_side
    from qra_widgets.stored_results import stored_results
    from qra_widgets.widgets.tables import side_by_side as side_by_side_html

    study = labelled_study()
    result = qw.assess(study)
    table = side_by_side(study)
    assert len(table) == len(result.rows)  # one row per cell: the pair is part of the key
    overall = table[(table.measure == "alpha") & (table.level == "qc") & (table.experiments == "")]
    assert overall.qrapp.iloc[0] == result.value("alpha", "qc", "Q")
    html = side_by_side_html(result, qw.assess(study, "qra3"))
    assert "κ (O vs R1)" in html and "α (O vs R2)" in html
    # the library's overview compares studies by their values over all experiments
    stored = stored_results(study)["rows"]
    assert len(stored) == sum(r.experiments is None for r in result.rows)


def test_value_looks_up_a_pair_only_when_asked():
    result = qw.assess(labelled_study())
    with pytest.raises(qw.QRAInputError, match="no 'kappa' at qc level"):
        result.value("kappa", "qc", "Q")  # no Cohen's kappa over all three experiments
    (pair,) = [r for r in rows_of(result, ("O", "R2")) if r.measure == "kappa" and r.level == "qc"]
    assert result.value("kappa", "qc", "Q", experiments=("O", "R2")) == pair.value
    assert result.value("alpha", "qc", "Q") != result.value("alpha", "qc", "Q", experiments=("O", "R2"))
