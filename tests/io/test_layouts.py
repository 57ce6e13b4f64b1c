"""The annotation-spec layouts and keys: pairwise, best-worst, items in columns, reported
scores, several files, gzip, exclude, value and choice maps, multi-column keys, and the
errors each one gives (the published files are read in tests/field)."""

from __future__ import annotations

import gzip
import io
import json

import numpy as np
import pandas as pd
import pytest

import qra_widgets as qw
from qra_widgets.cli import main
from qra_widgets.io import save_study
from qra_widgets.io.annotations import load_annotations
from qra_widgets.ratings import Ratings, annotator_agreement


def spec(*experiments, criteria=None, **top) -> dict:
    return {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "t",
        "quality_criteria": criteria or [{"name": "Q", "scale_min": -100, "scale_max": 100, "label_level": "nominal"}],
        "experiments": list(experiments),
        **top,
    }


PAIRS = (
    "item,rater,left,right,answer\ni1,r1,x,y,A\ni1,r2,x,y,A\ni2,r1,y,z,B\ni2,r2,y,z,same\ni3,r1,x,z,A\ni3,r2,x,z,B\n"
)
PAIR_COLUMNS = {"item": "item", "rater": "rater", "system_a": "left", "system_b": "right", "choice": "answer"}
CHOICES = {"A": "a", "B": "b", "same": "tie"}


def pairwise(**extra) -> dict:
    return {
        "id": "R",
        "file": "pairs.csv",
        "layout": "pairwise",
        "columns": dict(PAIR_COLUMNS),
        "choices": dict(CHOICES),
        **extra,
    }


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "pairs.csv").write_text(PAIRS)
    return tmp_path


def test_pairwise_preference_is_100_times_the_mean_of_plus_one_minus_one_and_zero(folder):
    study = load_annotations(spec(pairwise()), base=folder)
    # x: won 2 of 2 vs y, 1 of 2 vs z -> (+1 +1 +1 -1) / 4; y: -1 -1 -1 0 -> -3/4; z: +1 0 -1 +1 -> 1/4
    assert study.scores == {("Q", "x", "R"): 50.0, ("Q", "y", "R"): -75.0, ("Q", "z", "R"): 25.0}
    assert study.sources[("Q", "x", "R")] == "pairs.csv: preference score from 6 judgements"
    # the stored ratings give the same means (a judgement gives its two systems +100 / -100 / 0)
    assert study.ratings.system_means("Q") == {(s, "R"): v for (_q, s, _e), v in study.scores.items()}


def test_win_rate_counts_ties_as_half_or_leaves_them_out(folder):
    data = spec(pairwise(score="win_rate"), criteria=[{"name": "Q", "scale_min": 0, "scale_max": 100}])
    half = load_annotations(data, base=folder)
    assert half.scores[("Q", "z", "R")] == 100 * (1 + 0.5 + 0 + 1) / 4
    data["experiments"][0]["ties"] = "exclude"
    assert load_annotations(data, base=folder).scores[("Q", "z", "R")] == pytest.approx(100 * 2 / 3, rel=1e-15)


def test_bradley_terry_values_come_from_the_fitted_model(folder):
    data = spec(pairwise(score="bradley_terry"), criteria=[{"name": "Q", "scale_min": 0, "scale_max": 100}])
    study = load_annotations(data, base=folder)
    values = [study.scores[("Q", s, "R")] for s in "xyz"]
    assert values[0] > values[2] > values[1] and study.sources[("Q", "x", "R")].endswith(
        "Bradley-Terry value from 6 judgements"
    )


def test_a_score_outside_the_criterions_scale_says_which_scale_to_set(folder):
    data = spec(pairwise(), criteria=[{"name": "Q", "scale_min": 0, "scale_max": 100}])
    with pytest.raises(
        qw.QRAInputError,
        match=r"pairs.csv: the pairwise score 'preference' gives values -100..100, but "
        r"quality criterion 'Q' has the scale 0..100",
    ):
        load_annotations(data, base=folder)


def test_an_unmapped_answer_is_an_error_listing_the_answers_found(folder):
    data = spec(pairwise(choices={"A": "a", "B": "b"}))
    with pytest.raises(
        qw.QRAInputError,
        match=r"pairs.csv: row 5, column 'answer': answer 'same' is not in the choices "
        r"map; the answers found are 'A' \(3\), 'B' \(2\), 'same' \(1\)",
    ):
        load_annotations(data, base=folder)


def test_unmapped_pairwise_answers_must_already_be_a_b_or_tie(folder):
    data = spec(pairwise())
    del data["experiments"][0]["choices"]
    with pytest.raises(qw.QRAInputError, match=r"answer 'A' is not a, b or tie; map the answers with \"choices\""):
        load_annotations(data, base=folder)


def test_raw_choice_agreement_codes_by_system_or_by_position(folder):
    # i3: r1 chose x (a), r2 chose z (b); by position the codes are a/b, by system x/z
    by_system = load_annotations(spec(pairwise()), base=folder)
    by_position = load_annotations(spec(pairwise(agreement_coding="position")), base=folder)
    frame = annotator_agreement(by_system)
    assert set(frame.measure) == {"alpha", "fleiss_kappa", "kappa", "ac1", "bp"} and (frame.n_items == 3).all()
    # units i1 (x, x), i2 (z, tie), i3 (x, z): 1 of 3 units agree; nominal alpha on the codes
    import krippendorff

    expected = krippendorff.alpha(reliability_data=[[0, 1, 0], [0, 2, 1]], level_of_measurement="nominal")
    assert frame[frame.measure == "alpha"].value.iloc[0] == pytest.approx(expected, abs=1e-12)
    # by position: r1 (a, b, a), r2 (a, tie, b): the same pattern here (the field tests show where they differ)
    assert annotator_agreement(by_position).query("measure == 'alpha'").value.iloc[0] == pytest.approx(
        expected, abs=1e-12
    )
    assert by_position.ratings.choices.codes("Q", "R")[2].tolist() == ["a", "a", "b", "tie", "a", "b"]


def test_choices_survive_a_study_file_round_trip(folder, tmp_path):
    study = load_annotations(spec(pairwise(agreement_coding="position")), base=folder)
    path = tmp_path / "study.json"
    save_study(study, path)
    again = qw.load_study(path)
    assert again.ratings == study.ratings and again.ratings.choices.coding == {"R": "position"}
    assert annotator_agreement(again).equals(annotator_agreement(study))


def test_reported_scores_mix_with_item_level_experiments_everywhere(folder):
    original = {
        "id": "O",
        "role": "original",
        "scores": {"Q": {"x": 40, "y": {"value": -10, "se": 4.5, "n": 90}, "z": -30}},
    }
    study = load_annotations(spec(original, pairwise()), base=folder)
    assert study.scores[("Q", "y", "O")] == -10.0 and study.sources[("Q", "y", "O")] == "reported system value (spec)"
    assert study.metadata["annotations"]["reported_uncertainty"] == [
        {"experiment": "O", "quality_criterion": "Q", "system": "y", "se": 4.5, "n": 90}
    ]
    result = qw.assess(study)
    assert not result.to_frame().empty
    agreement = result.annotator_agreement()
    assert set(agreement.experiment) == {"R"}  # the experiment without ratings is skipped, not a TypeError


def test_rater_counts_of_an_experiment_without_ratings_is_empty():
    from qra_widgets.ratings import rater_counts

    ratings = Ratings.from_columns(["Q"] * 2, ["x", "y"], ["i", "j"], ["R"] * 2, ["r1", "r1"], [1, 2])
    counted = rater_counts(ratings, "Q", "O")
    assert counted.units == [] and counted.counts.shape == (0, 1)


def test_best_worst_by_name_and_by_position(tmp_path):
    (tmp_path / "bws.csv").write_text(
        "hit,worker,s1,s2,s3,best,worst,b,w\nh1,r1,x,y,z,x,z,1,3\nh1,r2,x,y,z,y,z,2,3\nh2,r1,y,z,w,w,y,3,1\n"
    )
    columns = {"item": "hit", "rater": "worker", "shown": ["s1", "s2", "s3"], "best": "best", "worst": "worst"}
    by_name = load_annotations(
        spec({"id": "R", "file": "bws.csv", "layout": "best_worst", "columns": columns}), base=tmp_path
    )
    # x: shown 2, best 1 -> 50; y: shown 3, best 1, worst 1 -> 0; z: shown 3, worst 2 -> -66.7; w: 1 best -> 100
    assert by_name.scores == pytest.approx(
        {("Q", "x", "R"): 50.0, ("Q", "y", "R"): 0.0, ("Q", "z", "R"): -200 / 3, ("Q", "w", "R"): 100.0}
    )
    positions = {**columns, "best": "b", "worst": "w"}
    by_position = load_annotations(
        spec({"id": "R", "file": "bws.csv", "layout": "best_worst", "columns": positions, "best_worst_by": "position"}),
        base=tmp_path,
    )
    assert by_position.scores == by_name.scores
    bad = {
        **columns,
        "best": "worst",
        "worst": "best",
    }  # best x but worst "x" again in row 2? no: the same system twice
    (tmp_path / "bws.csv").write_text("hit,worker,s1,s2,s3,best,worst\nh1,r1,x,y,z,x,x\n")
    with pytest.raises(qw.QRAInputError, match=r"bws.csv: row 2: the same system is chosen best and worst"):
        load_annotations(spec({"id": "R", "file": "bws.csv", "layout": "best_worst", "columns": bad}), base=tmp_path)
    (tmp_path / "bws.csv").write_text("hit,worker,s1,s2,s3,best,worst\nh1,r1,x,y,z,q,x\n")
    with pytest.raises(qw.QRAInputError, match=r"row 2, column 'best': 'q' is not among the systems shown \(x, y, z\)"):
        load_annotations(
            spec({"id": "R", "file": "bws.csv", "layout": "best_worst", "columns": columns}), base=tmp_path
        )


def test_items_in_columns_reads_a_form_with_repeated_headers_by_position(tmp_path):
    (tmp_path / "form.csv").write_text(
        "Zeitstempel,Consent,Which is better?,Which is better?,Rate it\n"
        ",,,,\n"
        "t1,Ja,Audio 1,Beide gleich,Sehr gut\n"
        "t2,Ja,Audio 2,Audio 1,Gut\n"
    )
    data = spec(
        {
            "id": "R",
            "file": "form.csv",
            "layout": "items_in_columns",
            "columns": {"rater": "Zeitstempel"},
            "items": [
                {"column": 3, "item": "q1", "system_a": "FS2", "system_b": "Taco2", "criterion": "Q"},
                {"column": 4, "item": "q2", "system_a": "Taco2", "system_b": "FS2", "criterion": "Q"},
                {"column": "Rate it", "item": "q3", "system": "FS2", "criterion": "Quality"},
            ],
            "choices": {"Audio 1": "a", "Audio 2": "b", "Beide gleich": "tie"},
            "values": {"Sehr gut": 5, "Gut": 4},
        },
        criteria=[
            {"name": "Q", "scale_min": -100, "scale_max": 100},
            {"name": "Quality", "scale_min": 1, "scale_max": 5},
        ],
    )
    study = load_annotations(data, base=tmp_path)
    # FS2: q1 +1 (t1), -1 (t2); q2 0 (t1), -1 (t2: Audio 1 = Taco2) -> -25
    assert study.scores[("Q", "FS2", "R")] == -25.0 and study.scores[("Q", "Taco2", "R")] == 25.0
    assert study.scores[("Quality", "FS2", "R")] == 4.5
    data["experiments"][0]["items"][0]["column"] = "Which is better?"
    with pytest.raises(
        qw.QRAInputError,
        match=r"form.csv: 2 columns are named 'Which is better\?' \(columns 3, 4\); "
        r"name the items\[0\] column by its 1-based position",
    ):
        load_annotations(data, base=tmp_path)


def test_several_files_gzip_exclude_and_a_multi_column_item(tmp_path):
    with gzip.open(tmp_path / "b1.csv.gz", "wt") as handle:
        handle.write("set,ix,w,a,b,chose_b,extra\ns,1,r1,x,y,True,1\ns,1,r2,x,y,False,2\ncheck,0,r1,x,y,True,3\n")
    (tmp_path / "b2.csv").write_text("set,ix,w,a,b,chose_b\ns,2,r1,x,y,True\ns,2,r3,x,y,True\n")
    entry = {
        "id": "R",
        "files": ["b1.csv.gz", "b2.csv"],
        "layout": "pairwise",
        "choices": {"True": "b", "False": "a"},
        "columns": {"item": ["set", "ix"], "rater": "w", "system_a": "a", "system_b": "b", "choice": "chose_b"},
        "exclude": {"set": ["check"]},
        "optional_exclude": {"w": ["r3"]},
    }
    study = load_annotations(spec(entry), base=tmp_path)
    assert study.scores[("Q", "y", "R")] == 100 * (1 - 1 + 1 + 1) / 4
    assert sorted(set(study.ratings.columns()[2])) == [
        "s/1 [x vs y]|x",
        "s/1 [x vs y]|y",
        "s/2 [x vs y]|x",
        "s/2 [x vs y]|y",
    ]
    assert study.metadata["annotations"]["optional_exclude"] == {"R": {"w": ["r3"]}}
    assert load_annotations(spec(entry), base=tmp_path, optional_exclude=True).scores[("Q", "y", "R")] == pytest.approx(
        100 / 3, rel=1e-15
    )
    entry["exclude"] = {"sett": ["check"]}
    with pytest.raises(
        qw.QRAInputError, match=r"b1.csv: column 'sett' \(in exclude\) is missing; did you mean 'set'\?"
    ):
        load_annotations(spec(entry), base=tmp_path)


def test_values_map_answer_texts_to_ratings(tmp_path):
    (tmp_path / "r.csv").write_text("sys,item,rater,answer\nx,1,a,Sehr gut\nx,1,b,Gut\ny,2,a,Schlecht\n")
    entry = {
        "id": "R",
        "file": "r.csv",
        "columns": {"system": "sys", "item": "item", "rater": "rater", "criteria": {"Q": "answer"}},
    }
    criteria = [{"name": "Q", "scale_min": 1, "scale_max": 5}]
    study = load_annotations(
        spec(entry, criteria=criteria, values={"Sehr gut": 5, "Gut": 4, "Schlecht": 1}), base=tmp_path
    )
    assert study.scores == {("Q", "x", "R"): 4.5, ("Q", "y", "R"): 1.0}
    with pytest.raises(
        qw.QRAInputError,
        match=r"row 4, column 'answer': answer 'Schlecht' is not in the values map; the "
        r"answers found are 'Sehr gut' \(1\), 'Gut' \(1\), 'Schlecht' \(1\)",
    ):
        load_annotations(spec(entry, criteria=criteria, values={"Sehr gut": 5, "Gut": 4}), base=tmp_path)


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda s: s.update(experimnets=[]),
            r"annotation spec: unknown key 'experimnets'; did you mean 'experiments'\?",
        ),
        (
            lambda s: s["experiments"][0].update(layuot="pairwise"),
            r"experiments\[0\]: unknown key 'layuot'; did you mean 'layout'\?",
        ),
        (
            lambda s: s["experiments"][0]["columns"].update(system_c="x"),
            r"experiments\[0\].columns: unknown key 'system_c'; did you mean 'system_b'\?",
        ),
        (
            lambda s: s["quality_criteria"][0].update(scale_mx=5),
            r"quality_criteria\[0\]: unknown key 'scale_mx'; did you mean 'scale_max'\?",
        ),
        (
            lambda s: s.update(conventions={"name": "qrapp", "scale_shfit": False}),
            r"annotation spec: conventions: unknown field 'scale_shfit'; did you mean 'scale_shift'\?",
        ),
        (
            lambda s: s["experiments"][0].update(layout="pairwize"),
            r"layout: 'pairwize' is not one of .*did you mean 'pairwise'\?",
        ),
        (
            lambda s: s["experiments"][0].update(score="winrate"),
            r"score: must be one of preference, win_rate, bradley_terry",
        ),
        (
            lambda s: s["experiments"].append({"id": "O", "scores": {"Qu": {"x": 1}}}),
            r"experiments\[1\].scores: 'Qu' is not a quality criterion of the spec; did you mean 'Q'\?",
        ),
        (
            lambda s: s["experiments"].append({"id": "O", "file": "x.csv", "scores": {"Q": {"x": 1}}}),
            r"experiments\[1\] \(an experiment given by its system values\): unknown key 'file'",
        ),
    ],
)
def test_a_misspelt_key_anywhere_is_named_with_the_nearest_known_one(folder, change, message):
    data = spec(pairwise())
    change(data)
    with pytest.raises(qw.QRAInputError, match=message):
        load_annotations(data, base=folder)


def test_spec_conventions_are_kept_and_used_by_assess(folder):
    original = {"id": "O", "role": "original", "scores": {"Q": {"x": 40, "y": -10, "z": -30}}}
    study = load_annotations(
        spec(original, pairwise(), conventions={"name": "qrapp", "scale_shift": False}), base=folder
    )
    result = qw.assess(study)
    assert result.conventions.stamp() == "qrapp+scale_shift=false"
    values = [[40, 50], [-10, -25], [-30, -25]]
    expected = qw.measures.cv_star(values[0], scale_min=None).cv_star  # no shift: CV* of the raw values
    frame = result.to_frame()
    assert frame[(frame.system == "x") & (frame.measure == "CV*")].value.iloc[0] == pytest.approx(expected, rel=1e-12)


def test_cli_reports_a_one_experiment_spec_with_a_note_and_the_sign_tests(folder, capsys):
    (folder / "spec.json").write_text(json.dumps(spec(pairwise())))
    assert main(["report", str(folder / "spec.json"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "QRA compares experiments: this study has results from one (R)" in data["note"]
    assert {(r["system"], r["value"]) for r in data["system_values"]} == {("x", 50.0), ("y", -75.0), ("z", 25.0)}
    assert {r["measure"] for r in data["annotator_agreement"]} == {"alpha", "fleiss_kappa", "kappa", "ac1", "bp"}
    assert len(data["sign_tests"]) == 3 and all(0 <= t["p"] <= t["p_holm"] <= 1 for t in data["sign_tests"])
    assert data["signature"].startswith("conventions:qrapp|") and data["version"] == qw.__version__ and data["cite"]
    assert main(["report", str(folder / "spec.json")]) == 0
    markdown = capsys.readouterr().out
    assert "## Pairwise sign tests" in markdown and markdown.rstrip().splitlines()[-1].startswith("_conventions:qrapp")


def test_cli_one_experiment_csv_has_the_signature_and_every_table_quoted_alike(folder, capsys):
    """The one-experiment CSV reads as the assessment's: two '#' lines, then tables whose text
    cells are quoted (so a '#' in a system name is no comment) and neutralised."""
    (folder / "spec.json").write_text(json.dumps(spec(pairwise(), systems={"x": "#x", "y": "=HYPERLINK(1)", "z": "z"})))
    assert main(["report", str(folder / "spec.json"), "--format", "csv"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0].startswith("# signature: conventions:qrapp|version:") and lines[1].startswith("# ")
    values = pd.read_csv(io.StringIO(text), comment="#", nrows=3)
    assert set(values.system) == {"#x", "'=HYPERLINK(1)", "z"}
    blocks = text.split("\n\n")
    assert len(blocks) == 3 and blocks[2].startswith(
        '"experiment","quality_criterion","system_x"'
    )  # the sign tests, quoted too
    assert '"#x"' in blocks[2] and "'=HYPERLINK(1)" in blocks[2]


def test_cli_conventions_take_a_preset_json_or_a_file(folder, tmp_path, capsys):
    original = {"id": "O", "role": "original", "scores": {"Q": {"x": 40, "y": -10, "z": -30}}}
    (folder / "spec.json").write_text(json.dumps(spec(original, pairwise())))
    (tmp_path / "conv.json").write_text('{"name": "qra3", "scale_shift": false}')
    outputs = []
    for value in ("qra3", '{"name": "qra3", "scale_shift": false}', str(tmp_path / "conv.json")):
        assert main(["report", str(folder / "spec.json"), "--conventions", value, "--format", "json"]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[1]["results"] == outputs[2]["results"] != outputs[0]["results"]
    with pytest.raises(SystemExit):
        main(["report", str(folder / "spec.json"), "--conventions", "qra4"])
    assert "did you mean 'qra3'?" in capsys.readouterr().err


def test_gzip_that_unpacks_beyond_the_cap_is_refused(tmp_path, monkeypatch):
    from qra_widgets.io import reading

    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 1000)
    with gzip.open(tmp_path / "big.csv.gz", "wt") as handle:
        handle.write("item,rater,left,right,answer\n" + "i,r,x,y,A\n" * 500)
    entry = pairwise(file="big.csv.gz")
    with pytest.raises(qw.QRAInputError, match=r"'big.csv.gz': unpacks to more than"):
        load_annotations(spec(entry), base=tmp_path)


def test_sign_test_holm_matches_statsmodels_on_a_study(folder):
    from statsmodels.stats.multitest import multipletests

    tests = load_annotations(spec(pairwise()), base=folder).metadata["annotations"]["sign_tests"]
    p = np.array([t["p"] for t in tests])
    assert np.allclose([t["p_holm"] for t in tests], multipletests(p, method="holm")[1])


def test_a_bootstrap_gives_no_agreement_interval_for_raw_choices_rather_than_one_from_derived_ratings(folder):
    original = {"id": "O", "role": "original", "scores": {"Q": {"x": 40, "y": -10, "z": -30}}}
    study = load_annotations(spec(original, pairwise(agreement_coding="position")), base=folder)
    agreement = qw.assess(study, bootstrap=50, seed=3).annotator_agreement()
    alpha = agreement[agreement.measure == "alpha"].iloc[0]
    assert np.isfinite(alpha.value) and np.isnan(alpha.ci_low) and np.isnan(alpha.ci_high)


def test_a_rater_judging_the_same_comparison_in_two_files_of_one_experiment_is_refused(tmp_path):
    (tmp_path / "b1.csv").write_text("item,rater,left,right,answer\ni1,r1,x,y,A\n")
    (tmp_path / "b2.csv").write_text("item,rater,left,right,answer\ni2,r1,x,y,A\ni1,r1,x,y,B\n")
    entry = pairwise(files=["b1.csv", "b2.csv"])
    del entry["file"]
    with pytest.raises(
        qw.QRAInputError,
        match=r"b1.csv, b2.csv: b1.csv row 2 and b2.csv row 3, column 'rater': rater 'r1' rates item "
        r"'i1 \[x vs y\]\|x' on 'Q' twice",
    ):
        load_annotations(spec(entry), base=tmp_path)


def test_layout_errors_quote_a_long_name_cut_to_forty_characters_with_its_length(folder):
    long_name = "answer column " + "x" * 286  # 300 characters, as a pasted header can be
    data = spec(pairwise(columns={**PAIR_COLUMNS, "choice": long_name}))
    with pytest.raises(qw.QRAInputError) as caught:
        load_annotations(data, base=folder)
    message = str(caught.value)
    assert f"column {long_name[:40]!r}"[:-1] + "…' (300 characters) is missing" in message
    assert long_name not in message
    assert message.endswith("found ['item', 'rater', 'left', 'right', 'answer']")
    (folder / "twice.csv").write_text("item,rater,system,score\n" + f"{'i' * 60},r1,x,5\n" * 2)
    data = spec(
        {
            "id": "O",
            "file": "twice.csv",
            "columns": {"system": "system", "item": "item", "rater": "rater", "criteria": {"Q": "score"}},
        }
    )
    with pytest.raises(qw.QRAInputError, match=r"rater 'r1' rates item 'i{40}…' \(60 characters\) on 'Q' twice"):
        load_annotations(data, base=folder)
