"""Hostile inputs that used to slip through or fail with an internal error, each through the door
it comes in by (the CLI's exit status and stderr, or the library API), and the file mode of a
saved study.  QRA++ Example 1 (``examples.load("qrapp_example1")``: Fluency, systems SVM, GeDi,
DExperts, experiments August2022, vanMiltenburg2024, Li2024) is the study."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import qra_widgets as qw
from qra_widgets import examples
from qra_widgets.io import save_study, study_to_dict
from qra_widgets.store import StudyLibrary

REPOSITORY = Path(__file__).parents[2]


def cli(*args: str, cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "qra_widgets.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PYTHONPATH": str(REPOSITORY), "PATH": "/usr/bin:/bin", "HOME": str(cwd)},
    )
    return done.returncode, done.stdout, done.stderr


def test_a_nan_label_is_refused_naming_its_row_not_as_an_internal_label(tmp_path, qrapp_example1):
    save_study(qrapp_example1, tmp_path / "ex1.json")
    (tmp_path / "labels.csv").write_text(
        "experiment,quality_criterion,system,item,label\nAugust2022,Fluency,SVM,i1,nan\nLi2024,Fluency,SVM,i1,2\n"
    )
    status, _, err = cli("report", "ex1.json", "--labels", "labels.csv", cwd=tmp_path)
    assert status == 2
    assert err == (
        "qra-widgets: labels.csv: row 2, column 'label': 'nan' is not a label but a missing or infinite value; "
        "leave out the row of an item without a label\n"
    )


def test_one_experiment_with_two_roles_is_refused_by_the_cli(tmp_path):
    (tmp_path / "scores.csv").write_text(
        "experiment,quality_criterion,system,score,role\n"
        "A,Q,x,3,original\nA,Q,y,4,repeat\nB,Q,x,3.5,repeat\nB,Q,y,4.2,repeat\n"
    )
    status, _, err = cli("report", "scores.csv", cwd=tmp_path)
    assert status == 2
    assert err == (
        "qra-widgets: scores.csv: row 3, column 'role': experiment 'A' is 'repeat' here but 'original' above; "
        "give each experiment one role\n"
    )


def test_contradicting_findings_in_one_experiment_are_refused(qrapp_example1):
    data = study_to_dict(qrapp_example1)
    data["findings"] = [
        {"quality_criterion": "Fluency", "experiment": "Li2024", "system_a": "SVM", "system_b": "GeDi", "sign": 1},
        {"quality_criterion": "Fluency", "experiment": "Li2024", "system_a": "GeDi", "system_b": "SVM", "sign": 1},
    ]
    with pytest.raises(
        qw.QRAInputError, match="states 'SVM' vs 'GeDi' as 1 and 'GeDi' vs 'SVM' as 1; they contradict each other"
    ):
        qw.io.study_from_dict(data)
    data["findings"][1]["sign"] = -1  # the same finding stated both ways is fine
    assert len(qw.io.study_from_dict(data).findings) == 2


def test_a_dict_where_a_study_is_expected_is_refused_by_name():
    with pytest.raises(qw.QRAInputError, match="assess: expected a Study .*, got dict"):
        qw.assess({"id": "x"})
    with pytest.raises(qw.QRAInputError, match="study: expected a Study, got dict"):
        qw.plan_reproduction({"id": "x"}, items=[10], raters_per_item=[2])


def test_deleted_given_as_text_in_a_backup_is_refused_not_read_as_deleted(tmp_path, qrapp_example1):
    library = StudyLibrary(tmp_path / "lib.sqlite3")
    library.save(qrapp_example1)
    [backup] = library.export_all(tmp_path / "backup")
    data = json.loads(backup.read_text())
    data["deleted"] = "false"
    backup.write_text(json.dumps(data))
    status, _out, err = cli("import-all", str(tmp_path / "backup"), "--db", str(tmp_path / "new.sqlite3"), cwd=tmp_path)
    assert status == 2 and "qrapp-example1.json: deleted must be true or false, got 'false'" in err
    assert StudyLibrary(tmp_path / "new.sqlite3").list(include_deleted=True) == []


def test_an_excel_formula_without_a_saved_value_is_refused_naming_the_cell(tmp_path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["experiment", "quality_criterion", "system", "score"])
    for row in (["A", "Q", "x", 3], ["A", "Q", "y", "=B2*2"], ["B", "Q", "x", 3.5], ["B", "Q", "y", 4]):
        sheet.append(row)
    book.save(tmp_path / "scores.xlsx")  # openpyxl writes the formula without a calculated value, as a script would
    status, _, err = cli("report", "scores.xlsx", cwd=tmp_path)
    assert status == 2
    assert err.startswith(
        "qra-widgets: scores.xlsx: row 3, column 'score': holds the formula '=B2*2' with no saved value"
    )


def test_a_missing_column_message_quotes_at_most_ten_cut_header_names(tmp_path):
    header = [f"{'secret-' * 10}{k}" for k in range(30)]
    (tmp_path / "wide.csv").write_text(",".join(header) + "\n" + ",".join("1" for _ in header) + "\n")
    status, _, err = cli("report", "wide.csv", cwd=tmp_path)
    assert status == 2 and "missing column(s)" in err and "… 20 more]" in err
    quoted = [q for q in err.split("found [")[1].split("]")[0].split(", ") if q.startswith("'")]
    assert len(quoted) == 10 and all(len(q) <= 42 + len("… (72 characters)") for q in quoted)
    assert "secret-" * 6 not in err  # a value is cut to 40 characters


def test_a_duplicate_column_header_is_named(tmp_path):
    (tmp_path / "form.csv").write_text("experiment,quality_criterion,system,score,score\nA,Q,x,1,2\n")
    status, _, err = cli("report", "form.csv", cwd=tmp_path)
    assert status == 2 and err == (
        "qra-widgets: form.csv: column 'score' appears twice in the header (columns 4 and 5); keep one\n"
    )


def test_a_saved_study_file_has_the_mode_of_any_other_tools_output(tmp_path, example_study):
    previous = os.umask(0o022)
    try:
        save_study(example_study("qrapp_example1"), tmp_path / "study.json")
        assert (tmp_path / "study.json").stat().st_mode & 0o777 == 0o644  # not 0600
        os.chmod(tmp_path / "study.json", 0o640)
        save_study(example_study("qrapp_example1"), tmp_path / "study.json")
        assert (tmp_path / "study.json").stat().st_mode & 0o777 == 0o640  # an existing file keeps its mode
    finally:
        os.umask(previous)


def qra3_pair() -> tuple[bytes, bytes]:
    """QRA++ Example 1 as QRA3 input (``qra3.export``): metrics.csv and config.json."""
    from qra_widgets.qra3 import export

    metrics, config = export([examples.load("qrapp_example1")])
    return metrics.encode(), json.dumps(config, indent=1).encode()


def qra3_cli(tmp_path: Path, metrics: bytes, config: bytes) -> tuple[int, str, str]:
    (tmp_path / "metrics.csv").write_bytes(metrics)
    (tmp_path / "config.json").write_bytes(config)
    return cli("qra3", "--input", "metrics.csv", "--config", "config.json", "--out-dir", "out", cwd=tmp_path)


def test_qra3_a_key_given_twice_in_config_json_is_refused(tmp_path):
    metrics, config = qra3_pair()
    doubled = config.replace(b'"qrapp-example1": {', b'"qrapp-example1": {"citation": "a", "citation": "b", ', 1)
    assert doubled != config
    status, _, err = qra3_cli(tmp_path, metrics, doubled)
    assert status == 2 and err == "qra-widgets: config.json: the key 'citation' appears twice in one object; keep one\n"


def test_qra3_a_nul_byte_in_a_name_is_refused_not_dropped(tmp_path):
    metrics, config = qra3_pair()
    status, _, err = qra3_cli(tmp_path, metrics.replace(b",SVM,", b",S\x00VM,", 1), config)
    assert status == 2 and err.startswith("qra-widgets: metrics.csv: line 2 has a NUL byte")
    assert not (tmp_path / "out").exists()


def test_qra3_a_19_mib_one_line_metrics_file_is_refused_in_one_clean_line(tmp_path):
    metrics = (
        b"Key,Study,Experiment,System,Criterion,Result\n"
        + b"A,qrapp-example1,Li2024,SVM,Fluency,"
        + b"9" * (19 * 2**20)
        + b"\n"
    )
    status, _, err = qra3_cli(tmp_path, metrics, qra3_pair()[1])
    assert status == 2
    assert err == "qra-widgets: metrics.csv: line 2 is 19.0 MiB long; the limit is 1 MiB per line (is it a CSV file?)\n"
