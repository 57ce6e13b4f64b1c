"""The keys issue 29 adds to the annotation-spec grammar, one by one, and the errors that name
their cause: constant / row / index key columns, ``columns.system`` omitted or taken from another
experiment, raters in columns and per file, ``format`` / ``delimiter`` / ``records`` / ``explode``."""

from __future__ import annotations

import io
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import qra_widgets as qw
from qra_widgets.io.annotations import load_annotations

CSV = b"sys,item,rater,q\nA,i1,x,3\nA,i1,y,4\nB,i2,x,2\nB,i2,y,2\n"


def spec(*entries, criteria=None, **top):
    return {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "grammar",
        "quality_criteria": criteria or [{"name": "Q", "scale_min": 1, "scale_max": 5}],
        "experiments": list(entries),
        **top,
    }


def entry(eid="O", file="a.csv", **changes):
    e = {
        "id": eid,
        "role": "original" if eid == "O" else "repeat",
        "file": file,
        "columns": {"system": "sys", "item": "item", "rater": "rater", "criteria": {"Q": "q"}},
    }
    e.update(changes)
    return e


def same_ratings(a, b) -> bool:
    keys = ["quality_criterion", "system", "item", "experiment", "rater", "rating"]
    return (
        a.ratings.frame()[keys]
        .sort_values(keys)
        .reset_index(drop=True)
        .equals(b.ratings.frame()[keys].sort_values(keys).reset_index(drop=True))
    )


def load(*entries, files, **top):
    return load_annotations(spec(*entries, **top), files=files)


def refused(message, *entries, files, **top):
    with pytest.raises(qw.QRAInputError, match=message):
        load(*entries, files=files, **top)


def test_semicolon_and_tab_files_are_sniffed():
    reference = load(entry(), entry("R"), files={"a.csv": CSV})
    for delimiter in (b";", b"\t"):
        study = load(entry(), entry("R"), files={"a.csv": CSV.replace(b",", delimiter)})
        assert study.scores == reference.scores
    tsv = load(entry(file="a.tsv"), entry("R", file="a.tsv"), files={"a.tsv": CSV.replace(b",", b"\t")})
    assert tsv.scores == reference.scores


def test_a_wrong_delimiter_and_json_fed_as_csv_say_so_and_name_the_keys():
    refused(
        r"a.csv: the header is one column, 'sys;item;rater;q', which holds ';': read as CSV with the delimiter "
        r"',' \(from \"delimiter\"\); set \"delimiter\": \";\"",
        entry(delimiter=","),
        entry("R", delimiter=","),
        files={"a.csv": CSV.replace(b",", b";")},
    )
    refused(
        r"a.csv: looks like JSON, not CSV .*set \"format\": \"jsonl\"",
        entry(),
        entry("R"),
        files={"a.csv": b'{"sys": "A", "item": "i1", "q": 3}\n'},
    )
    refused(
        r"a.csv: row 3: cannot be read as CSV .*read as CSV with the delimiter ';', sniffed; .*\"format\".*\"delimiter\"",
        entry(),
        entry("R"),
        files={"a.csv": b'sys;item;rater;q\nA;i1;x;"3\nB;i2;x;2\n'},
    )
    refused(
        r"format: must be one of csv, xlsx, json, jsonl, got 'jsonlines'; did you mean 'jsonl'\?",
        entry(format="jsonlines"),
        entry("R"),
        files={"a.csv": CSV},
    )
    refused(r"delimiter: must be one of", entry(delimiter="|"), entry("R"), files={"a.csv": CSV})


def test_system_omitted_or_constant_is_one_system():
    columns = {"item": "item", "rater": "rater", "criteria": {"Q": "q"}}
    study = load(entry(columns=columns), entry("R", columns=columns), files={"a.csv": CSV})
    assert study.systems == ["all"]
    assert study.scores[("Q", "all", "O")] == pytest.approx(11 / 4)
    constant = {**columns, "system": {"constant": "corpus"}}
    assert load(entry(columns=constant), entry("R", columns=constant), files={"a.csv": CSV}).systems == ["corpus"]
    refused(
        r"columns.system.constant: expected a text or a number",
        entry(columns={**columns, "system": {"constant": ""}}),
        files={"a.csv": CSV},
    )
    refused(
        r"columns.system: give exactly one of constant, row, index",
        entry(columns={**columns, "system": {"constant": "a", "row": True}}),
        files={"a.csv": CSV},
    )


def test_row_key_is_the_1_based_data_row_for_csv_and_sheets():
    columns = {"system": "sys", "item": {"row": True}, "criteria": {"Q": "q"}}
    study = load(entry(columns=columns), entry("R", columns=columns), files={"a.csv": CSV})
    frame = study.ratings.frame()
    assert frame[frame.experiment == "O"]["item"].tolist() == ["1", "2", "3", "4"]
    sheet = io.BytesIO()
    pd.read_csv(io.BytesIO(CSV)).to_excel(sheet, index=False, sheet_name="ratings")
    files = {"a.xlsx": sheet.getvalue()}
    study = load(
        entry(file="a.xlsx", sheet="ratings", columns=columns), entry("R", file="a.xlsx", columns=columns), files=files
    )
    frame = study.ratings.frame()
    assert frame[frame.experiment == "O"]["item"].tolist() == ["1", "2", "3", "4"]


def test_json_lines_record_numbers_count_before_explode_and_index_names_the_element():
    lines = b'{"m": "A", "anns": [{"q": 3}, {"q": 4}]}\n{"m": "B", "anns": [{"q": 2}]}\n'
    columns = {"system": "m", "item": {"row": True}, "rater": {"index": "anns"}, "criteria": {"Q": "anns.q"}}
    study = load(
        entry(file="o.jsonl", explode="anns", columns=columns),
        entry("R", file="o.jsonl", explode="anns", columns=columns),
        files={"o.jsonl": lines},
    )
    frame = study.ratings.frame()
    mine = frame[frame.experiment == "O"]
    assert list(zip(mine["item"], mine.rater, mine.rating)) == [("1", "0", 3.0), ("1", "1", 4.0), ("2", "0", 2.0)]
    refused(
        r"rater is \{\"index\": 'annotations'\}, but the entry explodes 'anns'",
        entry(file="o.jsonl", explode="anns", columns={**columns, "rater": {"index": "annotations"}}),
        files={"o.jsonl": lines},
    )
    refused(
        r"o.jsonl: record 2: 'anns' is not a list",
        entry(file="o.jsonl", explode="anns", columns=columns),
        files={"o.jsonl": lines.replace(b'[{"q": 2}]', b'{"q": 2}')},
    )


def test_json_records_are_found_by_a_dotted_path():
    document = b'{"meta": {}, "data": {"rows": [{"s": "A", "id": "i1", "v": {"q": 3}}, {"s": "B", "id": "i2", "v": {"q": 5}}]}}'
    columns = {"system": "s", "item": "id", "criteria": {"Q": "v.q"}}
    study = load(
        entry(file="o.json", records="data.rows", columns=columns),
        entry("R", file="o.json", records="data.rows", columns=columns),
        files={"o.json": document},
    )
    assert study.scores[("Q", "B", "R")] == 5.0
    refused(
        r"o.json: records: no field 'table' on the path 'data.table'",
        entry(file="o.json", records="data.table", columns=columns),
        files={"o.json": document},
    )


def test_system_from_another_experiment_by_item():
    repeat = b"item,q\ni2,5\ni1,1\n"
    columns = {"system": {"from_experiment": "O", "by": "item"}, "item": "item", "criteria": {"Q": "q"}}
    study = load(entry(), entry("R", file="r.csv", columns=columns), files={"a.csv": CSV, "r.csv": repeat})
    assert study.scores[("Q", "A", "R")] == 1.0 and study.scores[("Q", "B", "R")] == 5.0
    refused(
        r"r.csv: row 3, column 'item': item 'i9' is not rated in experiment 'O', so it has no system",
        entry(),
        entry("R", file="r.csv", columns=columns),
        files={"a.csv": CSV, "r.csv": b"item,q\ni2,5\ni9,1\n"},
    )
    refused(
        r"experiment 'R' takes its systems from experiment 'O', whose item-level entry must come earlier",
        entry("R", file="r.csv", columns=columns),
        entry(),
        files={"a.csv": CSV, "r.csv": repeat},
    )
    refused(
        r"columns.system.by: only \"item\" is supported",
        entry(),
        entry("R", file="r.csv", columns={**columns, "system": {"from_experiment": "O", "by": "row"}}),
        files={"a.csv": CSV, "r.csv": repeat},
    )


def test_raters_in_columns_and_per_file_raters():
    wide = b"sys,item,Ann 1,Ann 2\nA,i1,3,4\nB,i2,2,2\n"
    columns = {"system": "sys", "item": "item", "criteria": {"Q": {"raters": {"x": "Ann 1", "y": "Ann 2"}}}}
    reference = load(entry(), entry("R"), files={"a.csv": CSV})
    study = load(entry(file="w.csv", columns=columns), entry("R", file="w.csv", columns=columns), files={"w.csv": wide})
    assert same_ratings(study, reference) and study.scores == reference.scores
    refused(
        r"columns.rater: raters are in columns",
        entry(file="w.csv", columns={**columns, "rater": "sys"}),
        files={"w.csv": wide},
    )
    sheets = {"s1.csv": b"sys,item,P1\nA,i1,3\nB,i2,2\n", "s2.csv": b"sys,item,P2\nA,i1,4\nB,i2,2\n"}
    files = [{"file": "s1.csv", "raters": {"x": "P1"}}, {"file": "s2.csv", "raters": {"y": "P2"}}]
    per_file = {"system": "sys", "item": "item"}
    study = load(
        {"id": "O", "role": "original", "files": files, "columns": per_file},
        {"id": "R", "files": files, "columns": per_file},
        files=sheets,
    )
    assert same_ratings(study, reference)
    rater_files = {"x.csv": b"sys,item,q\nA,i1,3\nB,i2,2\n", "y.csv": b"sys,item,q\nA,i1,4\nB,i2,2\n"}
    by_file = [{"file": "x.csv", "rater": "x"}, {"file": "y.csv", "rater": "y"}]
    columns = {"system": "sys", "item": "item", "criteria": {"Q": "q"}}
    study = load(
        {"id": "O", "role": "original", "files": by_file, "columns": columns},
        {"id": "R", "files": by_file, "columns": columns},
        files=rater_files,
    )
    assert same_ratings(study, reference)
    twice = [{"file": "x.csv", "rater": "x"}, {"file": "y.csv", "rater": "x"}]
    refused(
        r"x.csv row 2 and y.csv row 2, raters: rater 'x' rates item 'i1' on 'Q' twice",
        {"id": "O", "files": twice, "columns": columns},
        files=rater_files,
    )
    refused(
        r"files\[0\]: unknown key 'rator'; did you mean 'rater'\?",
        {"id": "O", "files": [{"file": "x.csv", "rator": "x"}], "columns": columns},
        files=rater_files,
    )


def test_a_nominal_criterion_gets_labels_and_assess_refuses_cv_r_rho_w_on_its_code_means():
    labels = b"item,a,b\ni1,pos,pos\ni2,neg,pos\ni3,neu,neu\ni4,neg,neg\n"
    values = {"pos": 0, "neg": 1, "neu": 2}
    criteria = [{"name": "Q", "scale_min": 0, "scale_max": 2, "label_level": "nominal"}]
    e = lambda eid, column: {
        "id": eid,
        "role": "original" if eid == "O" else "repeat",
        "file": "l.csv",
        "columns": {"item": "item", "criteria": {"Q": column}},
    }
    study = load(e("O", "a"), e("R", "b"), files={"l.csv": labels}, criteria=criteria, values=values)
    assert study.scores == {}
    frame = qw.assess(study).to_frame()
    qc = frame[frame.level == "qc"].set_index("measure").value
    assert qc["kappa"] == pytest.approx(qw.measures.cohen_kappa(np.array([0, 1, 2, 1.0]), np.array([0, 0, 2, 1.0])))
    assert "alpha" in qc.index and "CV*" not in qc.index
    # a study whose nominal criterion does have means of its codes (saved before the reader stopped
    # computing them): refused with the reason
    ordinal = [{**criteria[0], "label_level": "ordinal"}]
    with_means = load(e("O", "a"), e("R", "b"), files={"l.csv": labels}, criteria=ordinal, values=values)
    assert qw.assess(with_means).to_frame().measure.eq("CV*").any()  # an ordinal criterion's means are assessed
    with_means.quality_criteria = [replace(q, label_level="nominal") for q in with_means.quality_criteria]
    with_means.ratings.spec["quality_criteria"][0]["label_level"] = "nominal"
    frame = qw.assess(with_means).to_frame()
    refusals = frame[frame.note.str.startswith("refused")]
    assert sorted(refusals.measure) == ["CV*", "r", "rho", "tau"]  # two experiments: tau, not W
    assert refusals.value.isna().all()
    assert (
        "use the label agreement between experiments (Type III), or give category counts as scores"
        in refusals.note.iloc[0]
    )


def test_the_report_of_a_label_only_spec_gives_kappa_and_alpha_between_the_experiments(tmp_path, capsys):
    from qra_widgets.cli import main

    (tmp_path / "l.csv").write_bytes(b"item,a,b\ni1,pos,pos\ni2,neg,pos\ni3,neu,neu\ni4,neg,neg\n")
    entries = [
        {"id": eid, "role": role, "file": "l.csv", "columns": {"item": "item", "criteria": {"Q": column}}}
        for eid, role, column in (("O", "original", "a"), ("R", "repeat", "b"))
    ]
    data = spec(
        *entries,
        criteria=[{"name": "Q", "scale_min": 0, "scale_max": 2, "label_level": "nominal"}],
        values={"pos": 0, "neg": 1, "neu": 2},
    )
    (tmp_path / "spec.json").write_text(__import__("json").dumps(data))
    assert main(["report", str(tmp_path / "spec.json"), "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out.split("\n\n")[0]), comment="#")
    qc = frame[frame.level == "qc"].set_index("measure").value
    study = load_annotations(data, base=tmp_path)
    expected = qw.assess(study).to_frame()
    expected = expected[expected.level == "qc"].set_index("measure").value
    assert set(qc.index) == {"kappa", "alpha"}
    assert qc["alpha"] == pytest.approx(expected["alpha"], rel=1e-12) and qc["kappa"] == pytest.approx(
        expected["kappa"], rel=1e-12
    )
    a, b = np.array([0, 1, 2, 1.0]), np.array([0, 0, 2, 1.0])
    counts = np.stack([np.bincount(np.array([x, y], dtype=int), minlength=3) for x, y in zip(a, b)])
    assert qc["alpha"] == pytest.approx(
        qw.measures.krippendorff_alpha(qw.measures.CategoryCounts(counts, np.arange(3.0)), level="nominal"), rel=1e-12
    )


def test_alpha_between_two_experiments_gets_a_bootstrap_interval_like_kappa():
    rows = "item,a,b\n" + "".join(f"i{k},{'pos' if k % 3 else 'neg'},{'pos' if k % 4 else 'neu'}\n" for k in range(40))
    entries = [
        {"id": eid, "role": role, "file": "l.csv", "columns": {"item": "item", "criteria": {"Q": column}}}
        for eid, role, column in (("O", "original", "a"), ("R", "repeat", "b"))
    ]
    study = load(
        *entries,
        files={"l.csv": rows.encode()},
        values={"pos": 0, "neg": 1, "neu": 2},
        criteria=[{"name": "Q", "scale_min": 0, "scale_max": 2, "label_level": "nominal"}],
    )
    frame = qw.assess(study, bootstrap=200, seed=3).to_frame()
    for measure in ("kappa", "alpha"):
        row = frame[(frame.measure == measure) & (frame.level == "qc")].iloc[0]
        assert np.isfinite(row.ci_low) and np.isfinite(row.ci_high), measure
        assert row.ci_low <= row.value <= row.ci_high, measure


def test_key_rules_work_in_the_pairwise_layout_too():
    judgements = b"left,right,pick\nA,B,left\nB,C,right\nA,C,left\n"
    columns = {"item": {"row": True}, "system_a": "left", "system_b": "right", "choice": "pick"}
    files = [{"file": "u1.csv", "rater": "u1"}, {"file": "u2.csv", "rater": "u2"}]
    entries = [
        {"id": eid, "role": role, "layout": "pairwise", "files": files, "columns": columns}
        for eid, role in (("O", "original"), ("R", "repeat"))
    ]
    study = load(
        *entries,
        files={"u1.csv": judgements, "u2.csv": judgements.replace(b"A,C,left", b"A,C,right")},
        choices={"left": "a", "right": "b"},
        criteria=[{"name": "Q", "scale_min": -100, "scale_max": 100, "label_level": "nominal"}],
    )
    choices = study.ratings.choices.to_dict()
    assert set(choices["rater"]) == {"u1", "u2"}  # the files' constants
    assert choices["unit"][:3] == ["1 [A vs B]", "2 [B vs C]", "3 [A vs C]"]  # the row keys
    # preference = 100 x (wins - losses) / comparisons: A and C win 3 of 4, B loses all 4
    assert {s: study.scores[("Q", s, "O")] for s in "ABC"} == {"A": 50.0, "B": -100.0, "C": 50.0}
    # the raters chose A, C, A and A, C, C: observed 2/3, chance 2/3 x 1/3 + 1/3 x 2/3 = 4/9
    agreement = qw.ratings.annotator_agreement(study)
    kappa = agreement[(agreement.experiment == "O") & (agreement.measure == "kappa")].value.iloc[0]
    assert kappa == pytest.approx((2 / 3 - 4 / 9) / (1 - 4 / 9))


def test_ratings_without_a_spec_keep_their_cv_star_whatever_the_default_label_level():
    """``QualityCriterion``'s default ``label_level`` is ``nominal``; ratings given in code (no
    annotation spec declared the criterion nominal) are assessed as before."""
    from qra_widgets.ratings import Ratings
    from qra_widgets.study import Experiment, QualityCriterion, Study

    cells = [
        ("Q", s, f"{s}{i}", e, r, float(v))
        for e, shift in (("O", 0), ("R", 1))
        for s, base in (("A", 2), ("B", 3))
        for i in range(3)
        for r, v in (("x", base + shift), ("y", base + shift + (i % 2)))
    ]
    ratings = Ratings.from_columns(*(np.array(c, dtype=object if k < 5 else float) for k, c in enumerate(zip(*cells))))
    study = Study(
        "code",
        quality_criteria=[QualityCriterion("Q", scale_min=1, scale_max=5)],
        systems=["A", "B"],
        experiments=[Experiment("O", role="original"), Experiment("R")],
        ratings=ratings,
        scores={("Q", s, e): v for (s, e), v in ratings.system_means("Q").items()},
    )
    assert study.quality_criteria[0].label_level == "nominal"
    frame = qw.assess(study).to_frame()
    cv = frame[(frame.measure == "CV*") & (frame.level == "system")].set_index("system").value
    for s in ("A", "B"):
        values = [study.scores[("Q", s, "O")], study.scores[("Q", s, "R")]]
        assert cv[s] == pytest.approx(qw.measures.cv_star(values, scale_min=1).cv_star)
