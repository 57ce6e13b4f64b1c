"""assess(): which measures apply, missing cells, the undefined rule, and the report views."""

import math

import numpy as np
import pytest

import qra_widgets as qw
from qra_widgets import Experiment, QualityCriterion, Study
from qra_widgets.assess import COLUMNS


def two_experiment_study(**extra):
    return Study(
        id="two",
        quality_criteria=[QualityCriterion("Q", scale_min=1, scale_max=5)],
        systems=["A", "B", "C"],
        experiments=[Experiment("o", role="original"), Experiment("r")],
        scores={
            ("Q", "A", "o"): 4.0,
            ("Q", "B", "o"): 3.0,
            ("Q", "C", "o"): 2.0,
            ("Q", "A", "r"): 3.5,
            ("Q", "B", "r"): 3.6,
            ("Q", "C", "r"): 2.5,
        },
        **extra,
    )


def test_frame_columns_and_measures_for_n_2():
    frame = qw.assess(two_experiment_study()).to_frame()
    assert list(frame.columns) == COLUMNS
    assert list(frame.columns[:7]) == ["result_type", "measure", "level", "quality_criterion", "system", "value", "n"]
    qc_rows = frame[frame.level == "qc"]
    assert set(qc_rows.measure) == {"CV*", "r", "rho", "tau", "P"}
    tau = qc_rows[qc_rows.measure == "tau"].iloc[0]
    assert (tau.result_type, tau.n, tau.n_systems) == ("II", 2, 3)
    assert tau.value == pytest.approx(1 / 3)
    assert set(frame[frame.level == "study"].measure) == {"CV*", "P"}


def test_more_than_two_experiments_give_cv_star_r_rho_w_and_p_per_criterion(qrapp_example1):
    frame = qw.assess(qrapp_example1).to_frame()
    assert set(frame[frame.level == "qc"].measure) == {"CV*", "r", "rho", "W", "P"}


def test_missing_cells_are_counted(qra2022_nts):
    """QRA 2022 Table 4 has 4-7 values per system: system CV* reports its own n."""
    result = qw.assess(qra2022_nts)
    frame = result.to_frame()
    sari = frame[(frame.measure == "CV*") & (frame.level == "system") & (frame.quality_criterion == "SARI")]
    assert dict(zip(sari.system, sari.n)) == {"NTS_def": 5, "NTS-w2v_def": 4}
    w = frame[(frame.measure == "W") & (frame.quality_criterion == "SARI")].iloc[0]
    # 5 experiments scored SARI, but Cooper & Shardlow's outputs-1 run scored only NTS_def
    assert (w.n, w.n_systems) == (5, 1)
    assert math.isnan(w.value) and w.note == "Kendall's W is undefined: only 1 system(s) scored by every experiment"
    bleu_w = frame[(frame.measure == "W") & (frame.quality_criterion == "BLEU")].iloc[0]
    assert (bleu_w.n, bleu_w.n_systems) == (7, 1)


def test_undefined_values_carry_their_reason():
    study = two_experiment_study()
    for system in ("A", "B", "C"):
        study.set_score("Q", system, "r", 3.0)
    frame = qw.assess(study).to_frame()
    r = frame[frame.measure == "r"].iloc[0]
    assert math.isnan(r.value) and "all values of y are equal" in r.note
    assert any("Pearson's r is undefined" in note for note in qw.assess(study).notes)


def test_mean_zero_cv_star_is_nan_with_reason():
    study = two_experiment_study()
    study.set_score("Q", "A", "o", 1.0)
    study.set_score("Q", "A", "r", 1.0)
    frame = qw.assess(study).to_frame()
    cell = frame[(frame.measure == "CV*") & (frame.system == "A")].iloc[0]
    assert math.isnan(cell.value) and "mean of the (shifted) values is 0" in cell.note
    qc = frame[(frame.measure == "CV*") & (frame.level == "qc")].iloc[0]
    assert qc.n_systems == 2 and not math.isnan(qc.value)


def test_single_value_systems_get_a_note():
    study = two_experiment_study()
    study.clear_score("Q", "C", "r")
    frame = qw.assess(study).to_frame()
    cell = frame[(frame.measure == "CV*") & (frame.system == "C")].iloc[0]
    assert (cell.n, cell.note) == (1, "CV* needs at least 2 values")
    assert frame[frame.measure == "tau"].iloc[0].n_systems == 2


def test_type_three_two_experiments_gives_cohen_kappa():
    labels = {
        ("Q", s, f"i{k}", e): (k + (s == "B" and e == "r")) % 3
        for s in ("A", "B")
        for k in range(6)
        for e in ("o", "r")
    }
    result = qw.assess(two_experiment_study(labels=labels))
    frame = result.to_frame()
    kappa = frame[frame.measure == "kappa"]
    assert set(kappa.level) == {"system", "qc", "study"}
    assert result.value("kappa", "system", "Q", "A") == 1.0
    from qra_widgets.measures import cohen_kappa

    matrix, _ = result.study.label_matrix("Q")
    assert result.value("kappa", "qc", "Q") == pytest.approx(cohen_kappa(matrix[0], matrix[1]))
    assert result.value("kappa", "study") == result.value("kappa", "qc", "Q")


def test_type_three_many_experiments_gives_fleiss_and_alpha(qrapp_example1):
    study = qrapp_example1
    rng = np.random.default_rng(1)
    for e in study.experiment_ids:
        for item in range(10):
            study.labels[("Fluency", "SVM", f"d{item}", e)] = int(rng.integers(1, 5))
    result = qw.assess(study)
    assert {"fleiss_kappa", "alpha"} <= set(result.to_frame().measure)
    from qra_widgets.measures import krippendorff_alpha

    matrix, _ = study.label_matrix("Fluency", "SVM")
    assert result.value("alpha", "system", "Fluency", "SVM") == pytest.approx(
        krippendorff_alpha(matrix, level="ordinal")
    )


def test_explicit_findings_override_scores_for_p():
    findings = {("Q", "o", "A", "B"): 1, ("Q", "r", "A", "B"): -1, ("Q", "o", "B", "C"): 1, ("Q", "r", "C", "B"): -1}
    result = qw.assess(two_experiment_study(findings=findings))
    assert result.value("P", "qc", "Q") == 0.5


def test_study_level_pools_p_and_averages_cv(qra2022_nts):
    result = qw.assess(qra2022_nts)
    frame = result.to_frame()
    system_cv = frame[(frame.measure == "CV*") & (frame.level == "system")].value
    assert result.value("CV*", "study") == pytest.approx(system_cv.mean())
    from qra_widgets.measures import rank_counts

    pooled = sum(
        (
            rank_counts(result.study.score_matrix(q)[~np.isnan(result.study.score_matrix(q)).all(axis=1)])
            for q in ("BLEU", "SARI")
        ),
        start=rank_counts([[1, 2], [1, 2]]),
    )
    assert result.value("P", "study") == pytest.approx((pooled.same - 1) / (pooled.compared - 1))


def test_table_layout_matches_qrapp_table3(qrapp_example1):
    table = qw.assess(qrapp_example1).table()
    assert list(table.columns) == ["Type of result", "Measure applied", "System level", "QC level", "Study level"]
    rows = [list(r) for r in table.itertuples(index=False)]
    assert rows[0] == ["Type I", "(mean) CV*", "", "26.87", "26.87"]
    assert rows[1:4] == [
        ["  SVM", "CV*", "19.96", "", ""],
        ["  GeDi", "CV*", "29.9", "", ""],
        ["  DExperts", "CV*", "30.76", "", ""],
    ]
    assert rows[4][:4] == ["Type II", "mean r", "n/a", "0.974"]
    assert rows[-1] == ["Type IV", "P", "n/a", "1", "1"]
    assert table.attrs["n"] == 3


def test_table_with_several_qcs_names_them(qra2022_pass):
    table = qw.assess(qra2022_pass).table()
    assert "Type I: Clarity" in set(table["Type of result"])
    assert "Type I: Stance identifiability" in set(table["Type of result"])


def test_markdown_latex_csv_json_and_html(qrapp_example1):
    study = qrapp_example1
    study.name = "<script>alert(1)</script> & 50% | more"
    result = qw.assess(study)
    markdown = result.to_markdown()
    assert (
        "| Type I | (mean) CV\\* |  | 26.87 | 26.87 |" in markdown and "\\| more" in markdown
    )  # '*' escaped: never emphasis
    latex = result.to_latex()
    assert "\\& 50\\%" in latex and "\\begin{tabular}{llrrr}" in latex and "19.96" in latex
    assert result.to_csv().splitlines()[2] == ",".join(f'"{c}"' for c in COLUMNS)  # after the signature and citation
    assert '"measure":"CV*"' in result.to_json().replace(" ", "")
    html = result._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html and "19.96" in html


def test_narrative_follows_belz_2021(qra2022_pass):
    result = qw.assess(qra2022_pass)
    text = result.narrative("Fluency", "PASS")
    assert text.startswith(
        "Fluency measurement reproducibility for PASS was assessed on the basis of 2 measurements "
        "(van der Lee et al. (2017), Mille et al. (2021)), rescaled to 0..6: CV* = 16.372, mean = 4.75, "
        "unbiased sample standard deviation = 0.6913 with 95% CI [0.2461, 17.6] (chi-square), "
        "sample size = 2."
    )
    # the paper's own interval (Belz 2021, section 5.3: [-3.26, 4.645]) on request
    assert "standard deviation = 0.6913 with 95% CI [-3.263, 4.645], sample size = 2." in result.narrative(
        "Fluency", "PASS", sd_ci="t"
    )
    assert text.endswith("Measured values fall within one standard deviation. Computed with the qrapp conventions.")
    with pytest.raises(qw.QRAInputError, match="no CV\\* for 'X'"):
        result.narrative("Fluency", "X")
