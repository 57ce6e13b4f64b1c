"""An edit re-assesses and redraws only what it changed, with the values and figures of doing
everything from scratch (the target: edit -> chart under 150 ms on a 200-system study).

``assess(study, reuse=earlier)`` takes over an unchanged criterion's rows and an unchanged
system's CV*; the app's charts are built as plain Plotly JSON rather than ``go.Figure``s.
"""

import copy
import gc
import sys

import numpy as np
import pytest
from pandas.testing import assert_frame_equal

import qra_widgets as qw
from qra_widgets import QualityCriterion, charts, measures
from qra_widgets.widgets import Dashboard

PLOTLY = "application/vnd.plotly.v1+json"


def set_score(study, key, value):
    study.set_score(*key, value)


def clear_score(study, key, _):
    study.clear_score(*key)


def rescale(study, _key, _):
    study.replace_quality_criterion("SARI", QualityCriterion("SARI", scale_min=10.0, scale_max=100.0))


def rename(study, _key, _):
    study.rename_system("NTS_def", "NTS default")


def add_finding(study, _key, _):
    study.findings[("BLEU", "Nisioi2017", "NTS_def", "NTS-w2v_def")] = -1
    study.findings[("BLEU", "QRA2022-o1-b3", "NTS_def", "NTS-w2v_def")] = 1


def add_labels(study, _key, _):
    for e, experiment in enumerate(study.experiment_ids[:3]):
        for item in range(6):
            study.labels[("SARI", "NTS_def", f"i{item}", experiment)] = (item + e * (item == 2)) % 3


EDITS = {
    "score": set_score,
    "clear a score": clear_score,
    "scale": rescale,
    "rename a system": rename,
    "findings": add_finding,
    "labels": add_labels,
}


@pytest.mark.parametrize("edit", EDITS)
def test_reuse_gives_the_values_of_assessing_from_scratch(edit, qra2022_nts):
    study = qra2022_nts  # QRA 2022 Table 4: two criteria, BLEU and SARI, with 4-7 values per system
    earlier = qw.assess(study)
    EDITS[edit](study, ("BLEU", "NTS_def", "QRA2022-o1-b3"), 80.25)
    reused, fresh = qw.assess(study, reuse=earlier), qw.assess(study)
    assert_frame_equal(reused.to_frame(), fresh.to_frame())
    assert reused.cv == fresh.cv
    again = qw.assess(study, reuse=reused)  # and from an assessment that itself reused
    assert_frame_equal(again.to_frame(), fresh.to_frame())


def test_other_conventions_reuse_nothing(qra2022_nts):
    study = qra2022_nts
    earlier = qw.assess(study)  # QRA++: (1 + 1/4n) factor
    qra3 = qw.assess(study, conventions="qra3", reuse=earlier)
    assert_frame_equal(qra3.to_frame(), qw.assess(study, conventions="qra3").to_frame())
    assert qra3.cv[("BLEU", "NTS_def")].cv_star != earlier.cv[("BLEU", "NTS_def")].cv_star


def test_an_edit_reassesses_only_the_criterion_and_system_it_changed(qra2022_nts):
    study = qra2022_nts
    earlier = qw.assess(study)
    key = ("BLEU", "NTS_def", "QRA2022-o1-b3")
    published = study.scores[key]
    study.set_score(*key, published + 1.0)
    edited = qw.assess(study, reuse=earlier)
    sari = lambda result: [row for row in result.rows if row.quality_criterion == "SARI"]
    assert len(sari(edited)) == 7  # CV* (the QC and 2 systems), r, rho, W and P
    assert all(new is old for new, old in zip(sari(edited), sari(earlier), strict=True))  # SARI not re-assessed
    assert edited.cv[("BLEU", "NTS-w2v_def")] is earlier.cv[("BLEU", "NTS-w2v_def")]  # the other system's CV* kept
    assert edited.cv[("BLEU", "NTS_def")].cv_star != earlier.cv[("BLEU", "NTS_def")].cv_star
    study.set_score(*key, published)
    restored = qw.assess(study, reuse=edited)
    assert round(restored.cv[("BLEU", "NTS_def")].cv_star, 3) == 1.562  # QRA 2022 Table 4, NTS_def BLEU
    assert restored.cv[("SARI", "NTS_def")] is earlier.cv[("SARI", "NTS_def")]


def big_study(systems=40, experiments=4):
    """Above charts.LINES_UP_TO systems the scores chart is a heatmap; above
    measures.ranking.PAIR_SIGNS_UP_TO P is counted pair of experiments by pair."""
    rng = np.random.default_rng(3)
    names = [f"s{i}" for i in range(systems)]
    exps = [qw.Experiment(f"e{j}") for j in range(experiments)]
    scores = {("Q", s, e.id): float(rng.uniform(1, 5)) for s in names for e in exps}
    return qw.Study(
        "big", quality_criteria=[QualityCriterion("Q", 1, 5)], systems=names, experiments=exps, scores=scores
    )


def test_an_edit_of_a_200_system_study_recomputes_one_cv_and_the_pairs_of_its_experiment(monkeypatch):
    study = big_study(systems=200, experiments=8)
    engine = sys.modules["qra_widgets.assess"]  # the module: qra_widgets.assess names the function

    calls = {"cv_star": 0, "rank_counts": 0}
    # assess computes a system's CV* through cv_star_checked (the single-row path of cv_star)
    for name, module, attribute in (("cv_star", engine, "cv_star_checked"), ("rank_counts", measures, "rank_counts")):
        function = getattr(module, attribute)

        def counted(*args, name=name, function=function, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)

        monkeypatch.setattr(module, attribute, counted)
    first = qw.assess(study)
    study.set_score("Q", "s0", "e0", 1.5)
    earlier = qw.assess(study, reuse=first)  # an edit's assessment keeps P's counts pair by pair
    calls.update(cv_star=0, rank_counts=0)
    study.set_score("Q", "s7", "e2", 4.5)
    edited = qw.assess(study, reuse=earlier)
    assert calls == {"cv_star": 1, "rank_counts": 7}  # s7's CV*; P of the 7 pairs with e2, not all 28
    assert_frame_equal(edited.to_frame(), qw.assess(study).to_frame())
    calls.update(cv_star=0, rank_counts=0)
    assert_frame_equal(qw.assess(study, reuse=edited).to_frame(), edited.to_frame())
    assert calls == {"cv_star": 0, "rank_counts": 0}  # nothing changed: nothing recomputed


@pytest.mark.parametrize(
    "study", ["qra2022_nts", "qrapp_example1", big_study()], ids=["nts", "qrapp_example1", "40 systems"]
)
def test_the_charts_json_is_the_figures_json(study, example_study):
    study = example_study(study) if isinstance(study, str) else study
    result = qw.assess(study)
    for guides in (False, True):
        assert charts.cv_by_system_json(result, guides) == charts.cv_by_system(result, guides).to_plotly_json()
    assert charts.p_and_w_by_qc_json(result) == charts.p_and_w_by_qc(result).to_plotly_json()
    for qc in study.qc_names:
        assert charts.scores_by_experiment_json(study, qc) == charts.scores_by_experiment(study, qc).to_plotly_json()


def test_after_an_edit_the_dashboard_shows_what_assessing_from_scratch_draws(tmp_path, qra2022_nts):
    app = Dashboard(qra2022_nts, library_path=tmp_path / "library.sqlite3")
    app.state.set_scores({("BLEU", "NTS_def", "QRA2022-o1-b3"): 80.25})
    scratch = qw.assess(copy.deepcopy(app.state.study))
    shown = lambda output: output.outputs[0]["data"][PLOTLY]
    assert shown(app.charts.cv_chart) == charts.cv_by_system(scratch).to_plotly_json()
    assert shown(app.charts.p_and_w) == charts.p_and_w_by_qc(scratch).to_plotly_json()
    assert app.charts.cv_figure.to_plotly_json() == shown(app.charts.cv_chart)
    assert_frame_equal(app.state.assessment.to_frame(), scratch.to_frame())


def test_a_score_edit_leaves_no_reference_cycles_for_the_collector(tmp_path):
    """Cyclic garbage (each edit's go.Figure objects did leave ~800 objects) is what made the
    full collections of a big study's kernel part of an edit's time."""
    app = Dashboard(big_study(), library_path=tmp_path / "library.sqlite3")
    cell = app.scores.grid("Q").cell("s0", "e3")
    cell.value = "2.50"  # the first edit may create caches
    gc.collect()
    gc.disable()
    try:
        for value in ("2.75", "3.00", "3.25"):
            cell.value = value
        assert app.state.study.scores[("Q", "s0", "e3")] == 3.25
        assert gc.collect() == 0
    finally:
        gc.enable()
