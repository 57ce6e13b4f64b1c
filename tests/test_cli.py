"""The qra-widgets command line: report formats and one-line errors."""

import json
import subprocess
import sys

import pytest

from qra_widgets.cli import main
from qra_widgets.examples import path as example_path


def run(capsys, *args):
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_report_prints_the_markdown_template_by_default(capsys):
    status, out, _ = run(capsys, "report", str(example_path("qrapp_example1")))
    assert status == 0
    assert "|   SVM | CV\\* | 19.96 |  |  |" in out and "| Type IV | P | n/a | 1 | 1 |" in out


@pytest.mark.parametrize(
    "fmt, check",
    [
        (
            "csv",
            lambda out: (
                out.splitlines()[2]
                == '"result_type","measure","level","quality_criterion","system","value","n","n_systems","note",'
                '"conventions","ci_low","ci_high","ci_method","ci_over","ci_level","ci_B","ci_seed","ci_pairing",'
                '"ci_note"'
            ),
        ),
        ("latex", lambda out: "\\begin{tabular}" in out and "30.76" in out),
        ("json", lambda out: {row["measure"] for row in json.loads(out)["results"]} == {"CV*", "r", "rho", "W", "P"}),
        ("narrative", lambda out: out.count("measurement reproducibility") == 3),
    ],
)
def test_report_prints_each_format_it_offers(capsys, fmt, check):
    status, out, _ = run(capsys, "report", "--example", "qrapp_example1", "--format", fmt)
    assert status == 0 and check(out)


def test_examples_lists_each_example_with_its_title(capsys):
    status, out, _ = run(capsys, "examples")
    assert status == 0 and "qrapp_example1\tQRA++ Example 1" in out


def test_bad_file_is_one_line_on_stderr(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("experiment,quality_criterion,system,score\nA,F,S,N/A\nB,F,S,2\n")
    status, out, err = run(capsys, "report", str(bad))
    assert status == 2 and out == ""
    assert err == "qra-widgets: bad.csv: row 2, column 'score': 'N/A' is not a number\n"


def test_report_without_a_study_or_with_a_missing_one_says_what_to_give(capsys, tmp_path):
    assert run(capsys, "report", str(tmp_path / "nope.json"))[2].endswith("nope.json: no such file\n")
    assert "give either a study FILE or --example NAME" in run(capsys, "report")[2]
    assert "unknown example 'nope'" in run(capsys, "report", "--example", "nope")[2]


def test_console_script_is_installed():
    result = subprocess.run(
        [sys.executable, "-m", "qra_widgets.cli", "report", "--example", "belz2021_torc", "--format", "csv"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert '"I","CV*","system","mass","torc 1991,0501.129",2.61' in result.stdout


def test_export_all_backs_up_every_revision(capsys, tmp_path, qrapp_example1):
    from qra_widgets.store import StudyLibrary

    library = StudyLibrary(tmp_path / "lib.sqlite3")
    study = qrapp_example1
    library.save(study)
    study.name = "second revision"
    library.save(study, expected_revision=1)
    status, out, _ = run(capsys, "export-all", str(tmp_path / "backup"), "--db", str(tmp_path / "lib.sqlite3"))
    assert status == 0 and out.startswith("exported 1 studies")
    backup = json.loads((tmp_path / "backup" / "qrapp-example1.json").read_text())
    assert [r["revision"] for r in backup["revisions"]] == [1, 2] and backup["latest"] == 2


def test_import_all_restores_an_export_all_backup(capsys, tmp_path, qrapp_example1):
    from qra_widgets import examples
    from qra_widgets.store import StudyLibrary

    source = StudyLibrary(tmp_path / "lib.sqlite3")
    for name in ("qrapp_example1", "qra2022_nts"):
        source.save(examples.load(name))
    run(capsys, "export-all", str(tmp_path / "backup"), "--db", str(tmp_path / "lib.sqlite3"))
    status, out, _ = run(capsys, "import-all", str(tmp_path / "backup"), "--db", str(tmp_path / "new.sqlite3"))
    assert status == 0 and out.startswith("restored 2 of 2 studies")
    restored = StudyLibrary(tmp_path / "new.sqlite3")
    assert [s.id for s in restored.list()] == ["qra2022-nts", "qrapp-example1"]
    assert restored.open("qrapp-example1") == qrapp_example1
    status, _, err = run(capsys, "import-all", str(tmp_path / "backup"), "--db", str(tmp_path / "new.sqlite3"))
    assert status == 2 and "already in the library" in err  # a second restore changes nothing
    status, _, err = run(capsys, "import-all", str(tmp_path / "missing"), "--db", str(tmp_path / "new.sqlite3"))
    assert status == 2 and err.endswith("missing: no such backup folder\n")
    (tmp_path / "empty").mkdir()
    status, _, err = run(capsys, "import-all", str(tmp_path / "empty"), "--db", str(tmp_path / "new.sqlite3"))
    assert status == 2 and err.endswith("empty: no backup files (*.json) to restore\n")


def test_report_refuses_a_scores_csv_without_scale_min_and_reads_it_with_the_option(capsys, tmp_path):
    # issue 29: the minimum was silently 0; docs/install.md promises it is never assumed
    path = tmp_path / "scores.csv"
    path.write_text(
        "experiment,quality_criterion,system,score\noriginal,Fluency,SVM,3.71\nrepeat,Fluency,SVM,3.12\n"
        "original,Fluency,GeDi,3.2\nrepeat,Fluency,GeDi,2.57\n"
    )
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert "no scale minimum for 'Fluency'" in err and "--scale-min" in err and "'scale_min' column" in err
    assert main(["report", str(path), "--scale-min", "Fluency=1", "--format", "csv"]) == 0
    shifted = capsys.readouterr().out
    assert main(["report", str(path), "--scale-min", "0", "--format", "csv"]) == 0
    unshifted = capsys.readouterr().out
    import io

    import pandas as pd

    from qra_widgets import measures as m

    def svm_cv(text):
        frame = pd.read_csv(io.StringIO(text), comment="#")
        return float(frame[(frame.measure == "CV*") & (frame.system == "SVM")].value.iloc[0])

    assert svm_cv(shifted) == pytest.approx(m.cv_star([3.71, 3.12], scale_min=1).cv_star, rel=1e-12)
    assert svm_cv(unshifted) == pytest.approx(m.cv_star([3.71, 3.12], scale_min=0).cv_star, rel=1e-12)
    assert svm_cv(shifted) > svm_cv(unshifted)
    with pytest.raises(SystemExit) as exit_:
        main(["report", str(path), "--scale-min", "Fluency=x"])
    assert exit_.value.code == 2
    assert "--scale-min: Fluency='x' is not a number" in capsys.readouterr().err
