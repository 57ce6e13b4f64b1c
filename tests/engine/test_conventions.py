"""Conventions: the presets, their documented table, and every output naming them."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import fields

import pytest

import qra_widgets as qw
from qra_widgets import conventions as conv
from qra_widgets.cli import main
from qra_widgets.conventions import QRA3, QRAPP, Conventions, resolve
from qra_widgets.examples import path as example_path
from qra_widgets.io import study_from_dict, study_to_dict


def docstring_table() -> dict[str, tuple[str, str]]:
    """The module docstring's table (the one docs/conventions.md shows): field -> (qrapp, qra3) text."""
    lines = conv.__doc__.splitlines()
    rules = [i for i, line in enumerate(lines) if line.startswith("=====")]
    first, last = rules[0], rules[2]
    starts = [m.start() for m in re.finditer(r"=+", lines[first])]
    column = lambda line, k: line[starts[k] : starts[k + 1] if k + 1 < len(starts) else None].strip()
    table: dict[str, list[str]] = {}
    current = None
    for line in lines[rules[1] + 1 : last]:
        if column(line, 0):
            current = column(line, 0)
            table[current] = ["", ""]
        for k in (1, 2):
            table[current][k - 1] += column(line, k)
    return {name: (a, b) for name, (a, b) in table.items()}


def shown(value) -> str:
    if isinstance(value, tuple):
        return "(" + ",".join(f'"{v}"' for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, str):
        return f'"{value}"'
    return "None (the criterion's)" if value is None else str(value)


def test_docstring_table_is_true():
    table = docstring_table()
    assert set(table) == {f.name for f in fields(Conventions)} - {"name"}
    for name, (qrapp, qra3) in table.items():
        assert (qrapp, qra3) == (shown(getattr(QRAPP, name)), shown(getattr(QRA3, name))), name


def test_presets_resolve_by_name_and_give_each_measure_its_options():
    assert resolve(None) is QRAPP and resolve("qra3") is QRA3 and resolve(QRA3) is QRA3
    assert QRA3.changed_fields() == {} and QRA3.describe() == "qra3"
    assert QRA3.to_kwargs("cv_star") == {"small_sample_factor": False}
    assert QRA3.to_kwargs("kendall_w") == {"tie_correction": False}
    assert QRAPP.to_kwargs("rank_counts") == {"ties": "sign"}
    changed = QRAPP.replace(w_tie_correction=False)
    assert changed.describe() == "qrapp, with w_tie_correction=False" and changed.to_stored() == changed.to_dict()
    assert Conventions.from_dict(changed.to_stored()) == changed and Conventions.from_dict("qra3") is QRA3


@pytest.mark.parametrize(
    "value, message",
    [
        ("qra4", "unknown preset 'qra4'"),
        ({"small_sample_factor": "yes"}, "conventions.small_sample_factor: must be true or false"),
        ({"p_ties": "coin"}, "conventions.p_ties: must be one of"),
        ({"agreement_many": []}, "conventions.agreement_many: must be a non-empty selection"),
        ({"colour": 1}, "unknown field 'colour'; known fields: name"),
        (3, "expected a preset name or Conventions"),
    ],
)
def test_bad_conventions_are_refused_saying_why(value, message):
    with pytest.raises(qw.QRAInputError) as error:
        resolve(value)
    assert message in str(error.value)


def tied_study() -> qw.Study:
    """A published QRA3 run with ties: 3 systems, 3 experiments, one tie in one experiment."""
    table = {"O": (1.0, 2.0, 3.0), "R1": (2.0, 1.0, 3.0), "R2": (1.0, 1.0, 3.0)}
    return qw.Study(
        "ties",
        quality_criteria=[qw.QualityCriterion("Q")],
        systems=["a", "b", "c"],
        experiments=[qw.Experiment("O", role="original"), qw.Experiment("R1"), qw.Experiment("R2")],
        scores={("Q", s, e): v[i] for e, v in table.items() for i, s in enumerate(["a", "b", "c"])},
    )


def test_w_without_tie_correction_is_qra3s():
    """QRA3 prints W = 0.750 where the tie-corrected W is 0.818 (another published QRA3 run)."""
    study = tied_study()
    assert round(qw.assess(study, conventions="qra3").value("W", "qc", "Q"), 3) == 0.750
    assert round(qw.assess(study, conventions="qrapp").value("W", "qc", "Q"), 3) == 0.818


def test_p_counts_a_pair_tied_in_one_experiment_as_different():
    """Pairs: O|R1 agree on (a,c), (b,c); O|R2 on (a,c), (b,c) and not on the tied (a,b); R1|R2 the same: P = 6/9."""
    for preset in ("qra3", "qrapp"):
        assert qw.assess(tied_study(), conventions=preset).value("P", "qc", "Q") == pytest.approx(6 / 9)
    untied = QRA3.replace(p_ties="untied")
    assert qw.assess(tied_study(), conventions=untied).value("P", "qc", "Q") == pytest.approx(
        6 / 7
    )  # the tied pair left out


def test_report_example_with_qra3_prints_cv_without_the_factor(capsys):
    """QRA++ Table 3 (qrapp_example1): SVM CV* 19.96 with the (1 + 1/(4n)) factor, n = 3;
    19.96 / (1 + 1/12) = 18.43 without it (likewise GeDi 29.90 -> 27.60, DExperts 30.76 -> 28.40)."""
    assert main(["report", "--example", "qrapp_example1", "--conventions", "qra3"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith("(n = 3; conventions: qra3)**")
    assert (
        "|   SVM | CV\\* | 18.43 |  |  |" in out
        and "|   GeDi | CV\\* | 27.6 |  |  |" in out
        and "|   DExperts | CV\\* | 28.4 |  |  |" in out
    )
    assert main(["report", "--example", "qrapp_example1"]) == 0
    out = capsys.readouterr().out
    assert "conventions: qrapp" in out and "|   SVM | CV\\* | 19.96 |  |  |" in out


def test_report_with_qra3_conventions_names_them_in_every_format(capsys, tmp_path, qrapp_example1):
    assert main(["report", str(example_path("qrapp_example1")), "--conventions", "qra3", "--format", "csv"]) == 0
    rows = list(
        csv.DictReader(line for line in io.StringIO(capsys.readouterr().out) if not line.startswith("#"))
    )  # by name
    expected = qw.assess(qrapp_example1, conventions="qra3").to_frame()
    assert len(rows) == len(expected) > 0 and [row["conventions"] for row in rows] == ["qra3"] * len(expected)
    assert main(["report", str(example_path("qrapp_example1")), "--conventions", "qra3", "--format", "json"]) == 0
    assert {row["conventions"] for row in json.loads(capsys.readouterr().out)["results"]} == {"qra3"}
    assert main(["report", str(example_path("qrapp_example1")), "--conventions", "qra3", "--format", "latex"]) == 0
    assert r"\caption{" in (latex := capsys.readouterr().out) and "conventions: qra3" in latex
    assert main(["report", str(example_path("qrapp_example1")), "--conventions", "qra3", "--format", "narrative"]) == 0
    narrative = capsys.readouterr().out
    assert narrative.count("Computed with the qra3 conventions.") == 3 and "CV* = 18.427," in narrative


def test_study_file_carries_its_conventions(tmp_path, qrapp_example1):
    data = study_to_dict(qrapp_example1)
    assert "conventions" not in data
    data["conventions"] = {"name": "qrapp", "w_tie_correction": False}
    study = study_from_dict(data)
    result = qw.assess(study)
    assert result.conventions == QRAPP.replace(w_tie_correction=False)
    assert result.caption().endswith("conventions: qrapp, with w_tie_correction=False)")
    assert set(result.to_frame()["conventions"]) == {"qrapp, with w_tie_correction=False"}
    assert study_to_dict(study)["conventions"] == QRAPP.replace(w_tie_correction=False).to_dict()
    data["conventions"] = "qra3"
    assert round(qw.assess(study_from_dict(data)).value("CV*", "system", "Fluency", "SVM"), 2) == 18.43
    assert (
        round(qw.assess(study_from_dict(data), conventions="qrapp").value("CV*", "system", "Fluency", "SVM"), 2)
        == 19.96
    )
    data["conventions"] = {"small_sample_factor": 1}
    with pytest.raises(qw.QRAInputError, match="small_sample_factor: must be true or false"):
        study_from_dict(data)


def test_markdown_names_changed_fields(qrapp_example1):
    result = qw.assess(qrapp_example1, conventions=QRA3.replace(small_sample_factor=True))
    assert "conventions: qra3, with small\\_sample\\_factor=True" in result.to_markdown().splitlines()[0]
    assert "|   SVM | CV\\* | 19.96 |  |  |" in result.to_markdown()


def test_side_by_side_shows_what_a_choice_changes(qrapp_example1):
    """QRA++ Table 3 (qrapp_example1) under both presets: CV* loses its (1 + 1/12) factor, r, rho, W and P do not change (no ties)."""
    from qra_widgets.assess import side_by_side

    table = side_by_side(qrapp_example1)
    assert list(table.columns[-2:]) == ["qrapp", "qra3"]
    cv = table[(table.measure == "CV*") & (table.level == "system")]
    assert (cv["qrapp"] / cv["qra3"]).round(12).tolist() == [round(1 + 1 / 12, 12)] * 3
    others = table[table.measure.isin(["r", "rho", "W", "P"])]
    assert others["qrapp"].tolist() == others["qra3"].tolist()
    ties = side_by_side(tied_study(), ["qrapp", "qra3", QRA3.replace(w_tie_correction=True)])
    w = ties[ties.measure == "W"].iloc[0]
    assert (round(w["qrapp"], 3), round(w["qra3"], 3), round(w["qra3, with w_tie_correction=True"], 3)) == (
        0.818,
        0.75,
        0.818,
    )
