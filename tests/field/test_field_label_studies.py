"""Three more published datasets read from their raw files by the specs beside this file (issue 29),
and the teams' published numbers recomputed at the digits they printed.

- QAMPARI nugget evaluation (ReproNLP 2026, team MoJa-Ardestani): CV* of Kendall tau values,
  published in ``outputs/qra_results/qra_type_i_by_qc.csv`` and ``qra_type_i_summary.csv``,
  from the team's two tau files read as they are (JSON ``records`` reaching an object of
  records, ``{"key": true}``).
- Malayalam sentiment re-annotation (ReproNLP 2024, 2024.humeval-1.11): Krippendorff's alpha
  between the original and the re-annotated labels (notebook ``Inter-Study Agreement.ipynb``:
  nominal 0.434, interval 0.462) and among the six re-annotators (notebook
  ``krippendorfsAlphaForWholeDataset.ipynb``: nominal 0.383, interval 0.369).  A label-only
  study (no systems: ``columns.system`` omitted) and raters in columns, named per sheet; and,
  as four label sets, Cohen's kappa and alpha between the original and each repeat.
- DialSummEval (Gao & Wan 2022) and its reproduction (tricodex 2023): interval alpha of the
  raw ratings, eight values (notebook ``IAA_CORR_calc.ipynb``).  The original is JSON Lines with
  three nested annotations per record (``explode``, ``{"index": ...}``); the reproduction is one
  semicolon CSV per annotator whose system is the row position of the original's record
  (``{"row": true}``, ``{"from_experiment": "O", "by": "item"}``).

The data is never committed: it is read from ``$QRA_WIDGETS_FIELD_DATA`` (the ``field_data``
fixture), and the tests skip without it.  Each family's PROVENANCE.md gives the numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from exactcsv import read_csv_exact

import qra_widgets as qw
from qra_widgets.io.annotations import load_annotations
from qra_widgets.ratings import annotator_agreement

HERE = Path(__file__).parent
QAMPARI = "turn5/qampari2026_nugget_kendall/MoJa-Ardestani__ReproNLP-2026/diagrams_analysis/RQA++"
MALAYALAM = "turn5/chakravarthi2020_malayalam_reannotation/heysachins__multilingual-sentiment-analysis"
INTERVAL = {"name": "qrapp", "alpha_level": "interval"}


def spec(name: str) -> dict:
    return json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))


def value(frame, **where) -> float:
    for key, wanted in where.items():
        frame = frame[frame[key] == wanted]
    assert len(frame) == 1, where
    return float(frame.value.iloc[0])


# ----------------------------------------------------------------------------- QAMPARI (ReproNLP 2026)


def test_qampari_spec_reads_the_teams_tau_files_as_they_are(field_data):
    """The spec reads the team's two JSON files directly ("records" reaches the object
    ``original_kendall``; each comparison unit is a record, its key the system): every value of
    each file is the study's score, exactly, and nothing else is."""
    study = load_annotations(spec("qampari2026_nugget_kendall"), base=field_data)
    for experiment, name in (("O", "original_qra_spec.json"), ("R", "reproduced_qra.json")):
        taus = json.loads((field_data / QAMPARI / name).read_text())["original_kendall"]
        assert {(qc, s): v for (qc, s, e), v in study.scores.items() if e == experiment} == {
            (f"{metric}_{level}", c): v
            for c, metrics in taus.items()
            for metric, levels in metrics.items()
            for level, v in levels.items()
        }
    assert "scores" not in json.dumps(spec("qampari2026_nugget_kendall"))  # no value is copied into the spec


def test_qampari_cv_star_equals_the_teams_24_values_and_6_means(field_data):
    study = load_annotations(spec("qampari2026_nugget_kendall"), base=field_data)
    assessment = qw.assess(study)
    frame = assessment.to_frame()  # the spec's conventions: qrapp without the scale shift (the team's)
    # every writer runs on it: tau values are not points of the -1..1 scale, and the annotator agreement
    # counts them by value instead of refusing them (it raised "label 0.887 is not one of the declared categories")
    assert "| 9.05 |" in assessment.to_markdown() and "9.05" in assessment.to_latex()
    assert "9.047661451661" in assessment.to_csv() and "9.05" in assessment._repr_html_()
    from qra_widgets.uncertainty import bootstrap

    replicates = bootstrap(study, B=20, seed=0)  # the bootstrap counts them by value too (it raised the same error)
    assert replicates.estimates[("mean", "O", "Vstrict_run", "C1")] == pytest.approx(
        study.scores[("Vstrict_run", "C1", "O")]
    )
    published = read_csv_exact(field_data / QAMPARI / "outputs/qra_results/qra_type_i_by_qc.csv")
    assert len(published) == 24
    for row in published.itertuples():
        ours = value(frame, measure="CV*", level="system", quality_criterion=row.qc, system=row.comparison_unit)
        assert ours == pytest.approx(row.cv_star, rel=1e-12, abs=0)  # printed with 16-17 digits; last-ulp sums differ
    means = read_csv_exact(field_data / QAMPARI / "outputs/qra_results/qra_type_i_summary.csv")
    for row in means.itertuples():
        assert value(frame, measure="CV*", level="qc", quality_criterion=row.qc) == pytest.approx(
            row.mean_cv_star, rel=1e-12
        )


# ----------------------------------------------------------------------------- Malayalam re-annotation (ReproNLP 2024)


@pytest.fixture(scope="module")
def malayalam(field_data):
    return load_annotations(spec("chakravarthi2020_malayalam_reannotation"), base=field_data)


def test_malayalam_label_only_study_reads_the_released_labels(malayalam):
    # PROVENANCE.md, known traps: the released re-annotation counts 575/154/208/297/114
    # (Positive, Negative, Mixed, Neutral, Not-Malayalam), not the paper's Table 4
    assert malayalam.systems == ["all"]
    _system, _item, experiment, label = malayalam.labels.for_criterion("Sentiment")
    counts = {e: {code: int(((experiment == e) & (label == code)).sum()) for code in range(5)} for e in ("O", "R")}
    assert counts["R"] == {0: 575, 1: 154, 2: 297, 3: 208, 4: 114}
    assert counts["O"] == {0: 565, 1: 138, 2: 398, 3: 70, 4: 177}  # Table 4's original counts
    assert malayalam.scores == {}  # nominal: no means of category codes
    assert "labels_only" in malayalam.metadata["annotations"]


def test_malayalam_type_iii_alpha_between_original_and_reannotation(malayalam):
    nominal = qw.assess(malayalam).to_frame()
    assert round(value(nominal, measure="alpha", level="qc", quality_criterion="Sentiment"), 3) == 0.434
    interval = qw.assess(malayalam, conventions=INTERVAL).to_frame()
    assert round(value(interval, measure="alpha", level="qc", quality_criterion="Sentiment"), 3) == 0.462
    # Cohen's kappa beside it, as before; and no CV*, r or rho on the nominal labels
    assert 0.40 < value(nominal, measure="kappa", level="qc", quality_criterion="Sentiment") < 0.47
    assert not {"CV*", "r", "rho"} & set(nominal.measure)


def test_malayalam_alpha_among_the_six_reannotators(field_data):
    study = load_annotations(spec("chakravarthi2020_malayalam_participants"), base=field_data)
    assert sorted(set(study.ratings.frame().rater)) == ["P1", "P2", "P3", "P4", "P5", "P6"]
    assert len(set(study.ratings.frame().item)) == 1348  # 400 + 400 + 400 + 148 comments
    nominal = annotator_agreement(study)
    assert round(value(nominal, experiment="R", measure="alpha"), 3) == 0.383
    interval = annotator_agreement(study, conventions=INTERVAL)
    assert round(value(interval, experiment="R", measure="alpha"), 3) == 0.369


def test_malayalam_four_label_sets_compare_each_repeat_with_the_original(field_data):
    """Issue 29, item 7, on four real label sets: the original, the released re-annotation (R) and
    the first-stage labels of two re-annotators (P1, P2 on 400 comments).  O vs R reproduces the
    team's published alpha (0.434 nominal, 0.462 interval); every pair is checked against
    scikit-learn's ``cohen_kappa_score`` and the ``krippendorff`` package on the same labels."""
    import numpy as np
    import pandas as pd

    krippendorff = pytest.importorskip("krippendorff")
    metrics = pytest.importorskip("sklearn.metrics")
    study = load_annotations(spec("chakravarthi2020_malayalam_four_label_sets"), base=field_data)
    nominal, interval = qw.assess(study).to_frame(), qw.assess(study, conventions=INTERVAL).to_frame()
    assert set(nominal.experiments) == {"", "O vs R", "O vs P1", "O vs P2"}
    pair = lambda frame, versus, measure: value(frame, measure=measure, level="qc", experiments=versus)
    assert round(pair(nominal, "O vs R", "alpha"), 3) == 0.434  # Inter-Study Agreement.ipynb
    assert round(pair(interval, "O vs R", "alpha"), 3) == 0.462
    # the same pair in the two-experiment study gives the same values, as its kappa and alpha rows
    two = qw.assess(load_annotations(spec("chakravarthi2020_malayalam_reannotation"), base=field_data)).to_frame()
    assert pair(nominal, "O vs R", "kappa") == value(two, measure="kappa", level="qc")
    assert pair(nominal, "O vs R", "alpha") == value(two, measure="alpha", level="qc")
    # each pair against the two packages, on the raw sheets read with pandas
    folder = field_data / MALAYALAM
    labels = pd.read_excel(folder / "InterStudy_Dataset Original vs Reannotated.xlsx", sheet_name="Malayalam_Sentences")
    labels = labels.merge(
        pd.read_excel(
            folder / "Other Files/Data for Krippendorfs Alpha/Participants_1_2.xlsx", sheet_name="Malayalam_Sentences"
        ).drop(columns="text"),
        on="id",
        how="left",
    )
    codes = spec("chakravarthi2020_malayalam_four_label_sets")["values"]
    coded = {
        name: labels[column].map(codes)
        for name, column in (("O", "Original"), ("R", "Reannotated"), ("P1", "Participant 1"), ("P2", "Participant 2"))
    }
    for repeat in ("R", "P1", "P2"):
        both = coded["O"].notna() & coded[repeat].notna()
        on_both = metrics.cohen_kappa_score(coded["O"][both], coded[repeat][both])
        # the missing-label rule (docs/measures.md; Gwet 2014 2.5, irrCAC's conger()): agreement on the
        # comments both labelled, each label set's distribution over all the comments it labelled; with
        # every comment in both (R) that is scikit-learn's value
        observed = float((coded["O"][both] == coded[repeat][both]).mean())
        chance = float(
            coded["O"].value_counts(normalize=True).mul(coded[repeat].value_counts(normalize=True), fill_value=0).sum()
        )
        kappa = pair(nominal, f"O vs {repeat}", "kappa")
        assert kappa == pytest.approx((observed - chance) / (1 - chance), abs=1e-12)
        if repeat == "R":
            assert kappa == pytest.approx(on_both, abs=1e-12)
        else:  # P1, P2 labelled 400 of the 1,348: scikit-learn on the 400 gives 0.589 / 0.446
            assert abs(kappa - on_both) < 5e-3
        data = np.array([coded["O"].to_numpy(float), coded[repeat].to_numpy(float)])
        for frame, level in ((nominal, "nominal"), (interval, "interval")):
            expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=range(5))
            assert pair(frame, f"O vs {repeat}", "alpha") == pytest.approx(expected, abs=1e-12), (repeat, level)
    assert round(pair(nominal, "O vs P1", "kappa"), 3) == 0.589 and round(pair(nominal, "O vs P2", "kappa"), 3) == 0.444


# ----------------------------------------------------------------------------- DialSummEval (Gao & Wan 2022, tricodex 2023)


PUBLISHED_ALPHA = {  # IAA_CORR_calc.ipynb, stored outputs; README table
    ("O", "Coherence"): 0.3785576910327453,
    ("O", "Consistency"): 0.492762621233651,
    ("O", "Fluency"): 0.13361325787541334,
    ("O", "Relevance"): 0.38671951755027045,
    ("R", "Coherence"): 0.6074598852525589,
    ("R", "Consistency"): 0.7938139086383895,
    ("R", "Fluency"): 0.5233497800176004,
    ("R", "Relevance"): 0.5159398644189812,
}


@pytest.fixture(scope="module")
def dialsummeval(field_data):
    return load_annotations(spec("gao2022_dialsummeval_tricodex2023"), base=field_data)


def test_dialsummeval_reproduction_takes_its_systems_from_the_originals_rows(dialsummeval):
    frame = dialsummeval.ratings.frame()
    assert dialsummeval.systems == list("ABCDEFGHIJKLMN")
    original, repeat = frame[frame.experiment == "O"], frame[frame.experiment == "R"]
    assert sorted(set(original.rater)) == ["0", "1", "2"] and sorted(set(repeat.rater)) == ["ann1", "ann2", "ann3"]
    assert len(original) == 1400 * 3 * 4
    assert len(repeat) == 1400 * 3 * 4 - 4 * 4  # four rows where the tool stored 0 for every criterion
    systems = dict(zip(original["item"], original.system))
    assert (repeat.system == repeat["item"].map(systems)).all()
    assert systems["1"] == "A" and systems["14"] == "N" and systems["15"] == "A"  # 14 summaries per dialogue


def test_dialsummeval_original_alpha_equals_the_published_four(dialsummeval):
    agreement = annotator_agreement(dialsummeval)
    for qc in ("Coherence", "Consistency", "Fluency", "Relevance"):
        ours = value(agreement, experiment="O", quality_criterion=qc, measure="alpha")
        assert ours == pytest.approx(PUBLISHED_ALPHA[("O", qc)], rel=1e-12, abs=0)


def test_dialsummeval_reproduction_alpha_counts_the_tools_zeros_as_ratings(field_data, dialsummeval):
    """The team's four reproduction alphas count the 0 the annotation tool stored for unanswered
    cells (8 rows) as a rating; the spec reads 0 as missing (docs/decisions.md), which gives
    higher alphas.  Read with 0 as a rating (scale 0-5), the team's values come back."""
    data = spec("gao2022_dialsummeval_tricodex2023")
    data["missing"] = [""]
    for qc in data["quality_criteria"]:
        qc["scale_min"] = 0
    teams = annotator_agreement(load_annotations(data, base=field_data))
    ours = annotator_agreement(dialsummeval)
    for qc in ("Coherence", "Consistency", "Fluency", "Relevance"):
        as_team = value(teams, experiment="R", quality_criterion=qc, measure="alpha")
        assert as_team == pytest.approx(PUBLISHED_ALPHA[("R", qc)], rel=1e-12, abs=0)
        assert value(ours, experiment="R", quality_criterion=qc, measure="alpha") > as_team
