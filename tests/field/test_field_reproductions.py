"""Four published reproductions read from their raw files by the specs beside this file, and
the teams' published numbers recomputed at the digits they printed.

The data is never committed: it is read from ``$QRA_WIDGETS_FIELD_DATA`` (the ``field_data``
fixture; ``.ci/run`` points it at ``../shared/data``), and the tests skip without it.  Each
spec names its files relative to that folder.  Where a team's number differs from the one
computed from the raw files, the test says why and asserts both: the team's from the team's
own (rounded) inputs, ours from the raw files.
"""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from exactcsv import read_csv_exact

import qra_widgets as qw
from qra_widgets import measures as m
from qra_widgets.io.annotations import load_annotations
from qra_widgets.ratings import annotator_agreement

HERE = Path(__file__).parent
HOSKING = "reproductions/hosking2021_meaning_arvan2025_pairwise"
PUDUPPULLY = "reproductions/puduppully2021_rotowire_pairwise_lab1_lab2"
YAO = "atlas/yao2022_storyqg/SamsungLabs__ReproNLP2026"


def spec(name: str) -> dict:
    return json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))


def load(name: str, field_data: Path, **changes) -> qw.Study:
    data = spec(name)
    data.update(changes)
    return load_annotations(data, base=field_data)


def cv_of(result, qc: str, system: str) -> float:
    frame = result.to_frame()
    return float(
        frame[(frame.quality_criterion == qc) & (frame.system == system) & (frame.measure == "CV*")].value.iloc[0]
    )


def agreement_of(study, experiment: str, qc: str, measure: str) -> float:
    frame = annotator_agreement(study)
    return float(
        frame[
            (frame.experiment == experiment) & (frame.quality_criterion == qc) & (frame.measure == measure)
        ].value.iloc[0]
    )


def published_csv(path: Path) -> pd.DataFrame:
    """A team's published CSV, its numbers read as printed (pandas' default float parser can be an ulp off)."""
    return read_csv_exact(path)  # the printed digits, exactly, on every pandas


# ----------------------------------------------------------------------------- Hosking & Lapata (2021), Arvan & Parde (2025)


@pytest.fixture(scope="module")
def hosking(field_data):
    return load("hosking2021_meaning_arvan2025_pairwise", field_data)


def test_hosking_reproduction_values_equal_the_teams_results_table(hosking, field_data):
    # results/lab1/tables/results.csv of mo-arvan/reprohum-0744-02 (copied to published/lab1_results.csv)
    published = published_csv(field_data / HOSKING / "published/lab1_results.csv").set_index("system")
    for system, row in published.iterrows():
        assert hosking.scores[("Meaning", system, "R1")] == pytest.approx(row.best_worst_scale, abs=1e-12)
    # win_percentage = 100 wins / 1,800 comparisons: the same judgements under the win_rate score
    data = spec("hosking2021_meaning_arvan2025_pairwise")
    data["experiments"][1]["score"] = "win_rate"
    data["quality_criteria"][0].update(scale_min=-100, scale_max=100)
    rates = load_annotations(data, base=field_data)
    for system, row in published.iterrows():
        assert rates.scores[("Meaning", system, "R1")] == pytest.approx(row.win_percentage, abs=1e-12)
    tests = pd.DataFrame(hosking.metadata["annotations"]["sign_tests"])
    wins = {
        s: int(tests[tests.system_x == s].wins_x.sum() + tests[tests.system_y == s].wins_y.sum())
        for s in published.index
    }
    assert wins == published.wins.to_dict()  # vae 1413, sep_ae 913, lbow 779, dips 495


def test_hosking_cv_star_r_and_rho_equal_the_teams_tables(hosking, field_data):
    result = qw.assess(hosking, "qrapp")
    # results/lab1/tables/cv_summary.csv: CV* with the +100 scale shift, c4 and (1 + 1/4n)
    for row in published_csv(field_data / HOSKING / "published/cv_summary.csv").itertuples():
        assert cv_of(result, "Meaning", row.System) == pytest.approx(row._4, abs=1e-9)
    # results/lab1/tables/pearson.csv and spearman.csv (O vs R1): 0.9917304874831319 and 1.0
    r = published_csv(field_data / HOSKING / "published/pearson.csv").pearson_corr.iloc[0]
    rho = published_csv(field_data / HOSKING / "published/spearman.csv").spearman_corr.iloc[0]
    frame = result.to_frame()
    assert frame[(frame.measure == "r") & (frame.quality_criterion == "Meaning")].value.iloc[0] == pytest.approx(
        r, abs=1e-12
    )
    assert frame[(frame.measure == "rho") & (frame.quality_criterion == "Meaning")].value.iloc[0] == pytest.approx(
        rho, abs=1e-12
    )


def test_hosking_annotator_agreement_on_the_raw_choices_equals_the_teams_alpha_and_kappa(hosking, field_data):
    # results/lab1/krippendorff_alpha.txt "0.539" and fleiss_kappa.txt "0.539": answers coded by position (chose_b)
    alpha_text = (field_data / HOSKING / "published/krippendorff_alpha.txt").read_text()
    kappa_text = (field_data / HOSKING / "published/fleiss_kappa.txt").read_text()
    assert round(agreement_of(hosking, "R1", "Meaning", "alpha"), 3) == float(alpha_text.split(":")[1]) == 0.539
    assert round(agreement_of(hosking, "R1", "Meaning", "fleiss_kappa"), 3) == float(kappa_text.split(":")[1]) == 0.539
    # the team's reliability_data.csv (120 raters x 1,200 comparisons, 1 = B chosen) through the krippendorff package
    import krippendorff

    reliability = pd.read_csv(field_data / HOSKING / "reliability_data.csv").to_numpy(dtype=float)
    assert agreement_of(hosking, "R1", "Meaning", "alpha") == pytest.approx(
        krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal"), abs=1e-12
    )


def test_hosking_system_coding_codes_the_chosen_system_and_differs_from_position_coding(hosking, field_data):
    data = spec("hosking2021_meaning_arvan2025_pairwise")
    data["agreement_coding"] = "system"
    by_system = load_annotations(data, base=field_data)
    alpha = agreement_of(by_system, "R1", "Meaning", "alpha")
    raw = pd.read_csv(
        field_data / "atlas/hosking2021_sepae_bws/DERIVED_responses_long_from_mo-arvan_responses.csv", dtype=str
    )
    raw = raw[
        ~raw.system_a.isin(["distractor", "inputs"])
        & ~raw.worker.isin(["anon_worker_32", "anon_worker_72", "anon_worker_111"])
    ]
    raw["unit"] = (
        raw.dataset + "/" + raw.ix + " " + raw[["system_a", "system_b"]].apply(lambda r: "-".join(sorted(r)), axis=1)
    )
    raw["chosen"] = np.where(raw.chose_b == "True", raw.system_b, raw.system_a)
    table = raw.pivot(index="worker", columns="unit", values="chosen")
    codes = {name: i for i, name in enumerate(sorted(set(raw.chosen)))}
    import krippendorff

    matrix = table.apply(lambda col: col.map(codes)).to_numpy(dtype=float)
    assert alpha == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"), abs=1e-12
    )
    assert round(alpha, 3) != 0.539  # the chosen system's name is another category set than a/b


def test_hosking_the_three_excluded_submissions_are_those_that_chose_the_distractor(field_data):
    raw = pd.read_csv(
        field_data / "atlas/hosking2021_sepae_bws/DERIVED_responses_long_from_mo-arvan_responses.csv", dtype=str
    )
    checks = raw[raw.system_a == "distractor"]
    failed = sorted(checks[checks.chose_b == "False"].worker)  # the distractor is system_a: choosing it fails the check
    excluded = spec("hosking2021_meaning_arvan2025_pairwise")["experiments"][1]["exclude"]["worker"]
    assert failed == sorted(excluded)
    # without that exclusion (all 123 submissions) the values move: 57.07 / 0.92 / -13.39 / -44.61, as PROVENANCE.md notes
    data = spec("hosking2021_meaning_arvan2025_pairwise")
    data["experiments"][1]["exclude"] = {"system_a": ["distractor", "inputs"]}
    data["experiments"][1]["optional_exclude"] = {"worker": excluded}
    every = load_annotations(data, base=field_data)
    assert [round(every.scores[("Meaning", s, "R1")], 2) for s in ("vae", "sep_ae", "lbow", "dips")] == [
        57.07,
        0.92,
        -13.39,
        -44.61,
    ]
    applied = load_annotations(data, base=field_data, optional_exclude=True)
    assert applied.scores[("Meaning", "sep_ae", "R1")] == pytest.approx(13 / 9, abs=1e-12)  # 26 / 1,800 x 100
    assert every.metadata["annotations"]["optional_exclude"] == {"R1": {"worker": excluded}}


# ----------------------------------------------------------------------------- Puduppully & Lapata (2021), two labs


@pytest.fixture(scope="module")
def puduppully(field_data):
    return load("puduppully2021_rotowire_pairwise_lab1_lab2", field_data)


ORDER = ["Gold", "Templ", "ED+CC", "RBF-2020", "Macro"]
CRITERIA = {"coherence": "Coherence", "grammar": "Grammar", "repetition": "Repetition"}


@pytest.mark.parametrize("lab", [1, 2])
@pytest.mark.parametrize("criterion", list(CRITERIA))
def test_puduppully_each_labs_best_worst_values_equal_the_published_tables(puduppully, field_data, lab, criterion):
    # mo-arvan/data2text-human-evaluation-reproduction results/lab_<n>/csv/<criterion>.csv ("Best-Worst Scale", 2 decimals)
    table = published_csv(field_data / PUDUPPULLY / f"published/lab_{lab}_{criterion}.csv")
    for row in table.itertuples():
        value = puduppully.scores[(CRITERIA[criterion], row.System, f"Lab{lab}")]
        assert round(value, 2) == pytest.approx(row._8, abs=1e-9)
        assert f"{100 * row.Wins / (row.Wins + row.Losses):.2f}" == f"{row._9:.2f}"  # their Wins Percentage


def test_puduppully_three_way_cv_star_equals_the_teams_from_their_rounded_values(puduppully, field_data):
    """The team computed CV* from the system values rounded to 2 decimals (their cv_3_way.csv
    lists them: -0.84 where the raw value is -0.8403); from those, CV* equals theirs to 1e-9.
    From the raw values CV* differs by up to 0.0035 (Coherence ED+CC: 5.3164 from the raw
    values, 5.3129 in their table), so rounded to 2 decimals 4 of the 15 differ by 0.01."""
    result = qw.assess(puduppully, "qrapp")
    table = published_csv(field_data / PUDUPPULLY / "published/cv_3_way.csv")
    table["system"] = ORDER * 3  # rows per criterion in the order of the team's systems
    for row in table.itertuples():
        rounded = json.loads(row.values)
        assert m.cv_star(rounded, scale_min=-100).cv_star == pytest.approx(row._6, abs=1e-9)
        system = row.system
        ours = [puduppully.scores[(row.measure, system, e)] for e in ("O", "Lab1", "Lab2")]
        assert np.allclose([round(v, 2) for v in ours], rounded, atol=1e-9)
        assert cv_of(result, row.measure, system) == pytest.approx(row._6, abs=3.5e-3)


def test_puduppully_correlations_with_the_original_equal_the_teams(puduppully, field_data):
    order = ORDER
    pearson = published_csv(field_data / PUDUPPULLY / "published/pearson.csv")
    spearman = published_csv(field_data / PUDUPPULLY / "published/spearman.csv")
    for lab in (1, 2):
        for qc in CRITERIA.values():
            o = [puduppully.scores[(qc, s, "O")] for s in order]
            r = [puduppully.scores[(qc, s, f"Lab{lab}")] for s in order]

            def pick(f, lab=lab, qc=qc):
                return f[(f.survey_origin == f"Lab {lab}") & (f.measure == qc)].iloc[0]

            # Pearson from the raw values: equal to the team's (from 2-decimal values) at 3 decimals
            assert round(m.pearson_r(o, r), 3) == round(pick(pearson).pearson_corr, 3)
            # and exactly from the team's own rounded inputs
            assert m.pearson_r(o, [round(v, 2) for v in r]) == pytest.approx(pick(pearson).pearson_corr, abs=1e-12)
            assert m.spearman_rho(o, [round(v, 2) for v in r]) == pytest.approx(pick(spearman).spearman_corr, abs=1e-12)


def test_puduppully_pooled_labs_read_from_several_files_equal_the_teams_lab_1_and_2(field_data):
    """The team's "Lab 1 and 2" pools both labs' MTurk batches: one experiment of two files
    per criterion (``files``; the batches' other columns differ: Lab 1 has Answer.english.0/1)."""
    data = spec("puduppully2021_rotowire_pairwise_lab1_lab2")
    pooled = []
    for entry in [e for e in data["experiments"] if e["id"] == "Lab1"]:
        both = {**entry, "id": "Lab1+2", "label": "Labs 1 and 2 pooled"}
        both["files"] = [entry["file"], entry["file"].replace("/lab1/", "/lab2/")]
        del both["file"]
        pooled.append(both)
    data["experiments"] = [data["experiments"][0]] + pooled
    study = load_annotations(data, base=field_data)
    cv2 = published_csv(field_data / PUDUPPULLY / "published/cv_2_way.csv")
    cv2 = cv2[cv2.survey_origin == "Lab 1 and 2"].copy()
    cv2["system"] = ORDER * 3
    for row in cv2.itertuples():
        original, pooled_value = json.loads(row.values)
        system = row.system
        assert study.scores[(row.measure, system, "O")] == pytest.approx(original, abs=1e-9)
        assert round(study.scores[(row.measure, system, "Lab1+2")], 2) == pytest.approx(pooled_value, abs=1e-9)
        assert m.cv_star([original, pooled_value], scale_min=-100).cv_star == pytest.approx(row._6, abs=1e-9)


def test_puduppully_position_coded_agreement_equals_the_krippendorff_package_on_the_raw_answers(puduppully, field_data):
    import krippendorff

    with gzip.open(field_data / PUDUPPULLY / "raw_mturk/lab2/coherence.csv.gz", "rt", encoding="utf-8") as handle:
        raw = pd.DataFrame(list(csv.DictReader(handle)))
    raw["unit"] = raw["Input.code"] + raw[["Input.system1", "Input.system2"]].apply(
        lambda r: "-".join(sorted(r)), axis=1
    )
    table = raw.pivot(index="WorkerId", columns="unit", values="Answer.best_coh").replace({"A": 0, "B": 1})
    expected = krippendorff.alpha(reliability_data=table.to_numpy(dtype=float), level_of_measurement="nominal")
    assert agreement_of(puduppully, "Lab2", "Coherence", "alpha") == pytest.approx(expected, abs=1e-12)


# ----------------------------------------------------------------------------- Yao et al. (2022), Florescu et al. (2024)


def test_yao_and_florescu_means_equal_the_qra3_input_of_a_reproduction_team(field_data):
    study = load("yao2022_storyqg_florescu2024_3criteria", field_data)
    # SamsungLabs/ReproNLP2026 qra/metrics-3-studies.csv: experiments O and R1 (Florescu et al. 2024), float for float
    metrics = published_csv(field_data / YAO / "qra/metrics-3-studies.csv")
    mine = metrics[metrics.Experiment.isin(["O", "R1"])]
    assert len(mine) == 18
    for row in mine.itertuples():
        assert study.scores[(row.Criterion, row.System, row.Experiment)] == row.Result


def test_yao_three_studies_qra3_table_is_reproduced_with_a_third_experiment(field_data):
    """With Mroczek et al. (2026) as R3 (its file has other column names), the qra3 conventions
    give the team's QRA3 table (qra/output-3-studies/Yao2022/table.csv) at its printed digits."""
    data = spec("yao2022_storyqg_florescu2024_3criteria")
    names = [
        "readability(grammarly correct and clear language. worst 1 to 5)",
        "relevancy_Q(Q is relevant to section. 1 to 5)",
        "relevancy_A(Answer can correctly answer the Q. 1 to 5)",
    ]
    data["experiments"].append(
        {
            "id": "R3",
            "label": "Mroczek et al. (2026)",
            "file": f"{YAO}/annotations/mroczek2026.csv",
            "columns": {
                "system": "source",
                "item": "qa_id",
                "rater": "labeller_id",
                "criteria": dict(zip(["Readability", "Question Relevancy", "Answer Relevancy"], names)),
            },
        }
    )
    study = load_annotations(data, base=field_data)
    result = qw.assess(study)  # the spec's conventions: qra3
    assert result.conventions.name == "qra3"
    table = pd.read_csv(field_data / YAO / "qra/output-3-studies/Yao2022/table.csv", dtype=str, keep_default_na=False)
    qc = ""
    frame = result.to_frame()
    for row in table.itertuples(index=False):
        qc = row.QC or qc
        if row.System in ("GT", "PAQ", "QAG"):
            assert f"{cv_of(result, qc, row.System):.2f}" == row._4  # "System level" CV*
            if row._5:  # "QC level": the mean of the criterion's system CV*s
                value = frame[
                    (frame.quality_criterion == qc) & frame.system.isna() & (frame.measure == "CV*")
                ].value.iloc[0]
                assert f"{value:.2f}" == row._5
        elif row.System == "all" and row._3 in ("mean r ↑", "mean ρ ↑", "W ↑", "P↑"):
            measure = {"mean r ↑": "r", "mean ρ ↑": "rho", "W ↑": "W", "P↑": "P"}[row._3]
            value = frame[
                (frame.quality_criterion == qc) & (frame.system.isna()) & (frame.measure == measure)
            ].value.iloc[0]
            assert f"{value:.3f}" == row._5
    assert f"{frame[frame.quality_criterion.isna() & (frame.measure == 'CV*')].value.iloc[0]:.2f}" == "12.13"
    # Mroczek et al.'s HEDS datacard (SamsungLabs/ReproNLP2026 datacard.json, inter-annotator agreement
    # score per criterion): Krippendorff's alpha at ordinal level among their five annotators
    card = json.loads((field_data / YAO / "datacard.json").read_text(encoding="utf-8"))
    printed = card["heds-criteria-criterion-response_elicitation-inter_annotator-agreement_score"]["data"]
    names = {
        "Readability": "Readability",
        "Question Relevance": "Question Relevancy",
        "Answer Relevance": "Answer Relevancy",
    }
    assert set(printed) == set(names)
    for name, value in printed.items():
        assert f"{agreement_of(study, 'R3', names[name], 'alpha'):.3f}" == value  # 0.089, 0.397, 0.419


# ----------------------------------------------------------------------------- Lux & Vu (2022): a Google Forms export


def test_luxvu_google_forms_export_reads_with_repeated_headers_named_by_position(field_data):
    study = load("luxvu2022_tts_preference_gform", field_data)
    # The folder's repro_preferences_long.csv (a hand-written converter's output: one row per rater and question,
    # 0/100 columns) gives the same judgements: per architecture, 100 x (proposed preferred - baseline preferred) / n
    long = pd.read_csv(field_data / "reproductions/luxvu2022_tts_preference_gform/repro_preferences_long.csv")
    assert (
        study.metadata["annotations"]["sign_tests"][0]["wins_x"]
        + study.metadata["annotations"]["sign_tests"][0]["wins_y"]
        + study.metadata["annotations"]["sign_tests"][0]["ties"]
        + sum(t["wins_x"] + t["wins_y"] + t["ties"] for t in study.metadata["annotations"]["sign_tests"][1:])
        == len(long)
        == 1878
    )
    for architecture, rows in long.groupby("system"):
        expected = rows.pref_proposed.mean() - rows.pref_baseline.mean()
        assert study.scores[("Preference", f"{architecture}-proposed", "R1")] == pytest.approx(expected, abs=1e-12)
        assert study.scores[("Preference", f"{architecture}-baseline", "R1")] == pytest.approx(-expected, abs=1e-12)


def test_luxvu_position_coded_alpha_is_the_teams_0_118(field_data):
    """The team coded each answer as given (Audio 1 / Audio 2 / equal) and reported alpha 0.118
    (the encoding with two rows per judgement gave 0.093).  The test also checks the value with
    the krippendorff package on the converter's positional_answer column."""
    import krippendorff

    study = load("luxvu2022_tts_preference_gform", field_data)
    alpha = agreement_of(study, "R1", "Preference", "alpha")
    assert round(alpha, 3) == 0.118
    long = pd.read_csv(field_data / "reproductions/luxvu2022_tts_preference_gform/repro_preferences_long.csv")
    table = long.pivot(index="rater", columns="item", values="positional_answer").to_numpy(dtype=float)
    assert alpha == pytest.approx(krippendorff.alpha(reliability_data=table, level_of_measurement="nominal"), abs=1e-12)


def test_luxvu_sign_tests_find_the_fastspeech2_preference_and_not_the_tacotron2_one(field_data):
    from scipy.stats import binomtest

    study = load("luxvu2022_tts_preference_gform", field_data)
    tests = {t["system_y"]: t for t in study.metadata["annotations"]["sign_tests"]}
    fs2, taco = tests["FastSpeech2-proposed"], tests["Tacotron2-proposed"]
    assert fs2["p"] == pytest.approx(binomtest(fs2["wins_x"], fs2["wins_x"] + fs2["wins_y"]).pvalue, rel=1e-12)
    assert fs2["p_holm"] == pytest.approx(min(1.0, 2 * fs2["p"]), rel=1e-12) and fs2["p_holm"] < 1e-40
    assert taco["p_holm"] == pytest.approx(max(taco["p"], fs2["p_holm"]), rel=1e-12) and taco["p"] > 0.5


def test_puduppully_lab_1_from_the_atlas_workbooks_with_the_teams_answer_filter(field_data):
    """The atlas copy of Lab 1 is van Miltenburg et al.'s combined Excel workbooks (600 HITs per
    criterion), which still hold answers the team did not count ('5', '8', '19', lower-case a/b).
    Keeping only rows answered A or B (``rows``) gives the published Lab 1 tables; an answer
    outside the choices map is otherwise an error listing the answers found."""
    data = spec("puduppully2021_rotowire_pairwise_lab1_lab2")
    lab1 = [e for e in data["experiments"] if e["id"] == "Lab1"]
    workbooks = {"Grammar": "Grammaticality", "Coherence": "Coherence", "Repetition": "Repetition"}
    for entry in lab1:
        ((criterion, pair),) = entry["columns"]["criteria"].items()
        entry["file"] = f"evanmiltenburg__ReproHum-D2T/Results/Responses/Combined/{workbooks[criterion]}.xlsx"
    data["experiments"] = [data["experiments"][0], *lab1]
    base = field_data / "atlas/puduppully2021_rotowire_bws"
    with pytest.raises(
        qw.QRAInputError,
        match=r"Grammaticality.xlsx: row \d+, column 'Answer.best_grammar': answer '5' "
        r"is not in the choices map; the answers found are 'A' \(319\), 'B' \(277\), "
        r"'5' \(4\)",
    ):
        load_annotations(data, base=base)
    for entry in lab1:
        (pair,) = entry["columns"]["criteria"].values()
        entry["rows"] = {pair["best"]: ["A", "B"], pair["worst"]: ["A", "B"]}
    study = load_annotations(data, base=base)
    for criterion, name in CRITERIA.items():
        for row in published_csv(field_data / PUDUPPULLY / f"published/lab_1_{criterion}.csv").itertuples():
            assert round(study.scores[(name, row.System, "Lab1")], 2) == pytest.approx(row._8, abs=1e-9)
