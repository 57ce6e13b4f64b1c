"""Bulk import: folders, zips, long CSVs with a study column; the report says what was added,
what already existed (never overwritten) and what was refused or skipped and why."""

from __future__ import annotations

import json
import zipfile
from pathlib import PurePosixPath

import pytest
from fielddata import field_path, needs_field_data

import qra_widgets as qw
from qra_widgets.bulk import import_paths
from qra_widgets.cli import main
from qra_widgets.io import save_study
from qra_widgets.io.reading import MAX_PACKING_RATIO
from qra_widgets.store import StudyLibrary

LONG_CSV = """study,experiment,quality_criterion,system,score,scale_min
alpha,orig,Fluency,A,3.1,1
alpha,orig,Fluency,B,2.0,1
alpha,rep,Fluency,A,3.3,1
alpha,rep,Fluency,B,2.4,1
beta,orig,BLEU,A,20.5,0
beta,rep,BLEU,A,21.0,0
"""


@pytest.fixture
def folder(tmp_path, qrapp_example1, qra2022_nts):
    studies = tmp_path / "studies"
    (studies / "nested").mkdir(parents=True)
    save_study(qrapp_example1, studies / "example1.json")
    save_study(qra2022_nts, studies / "nested" / "nts.json")
    (studies / "shared-task.csv").write_text(LONG_CSV)
    (studies / "broken.json").write_text('{"schema": "qra-widgets/study", "version": 1, "id": ""}')
    (studies / "notes.md").write_text("not a study")  # listed as skipped inside a folder
    return studies


def test_a_folder_imports_every_study_and_refuses_the_bad_one_with_its_reason(tmp_path, folder):
    library = StudyLibrary(tmp_path / "lib.sqlite3")
    report = import_paths(library, [folder])
    assert sorted(i for _s, i in report.added) == ["alpha", "beta", "qra2022-nts", "qrapp-example1"]
    assert [(s.endswith("broken.json"), "study id" in r) for s, r in report.refused] == [(True, True)]
    assert report.skipped == [
        ("studies/notes.md", "not a study file (unknown file type '.md'; use .json, .csv, .tsv, .xlsx or .zip)")
    ]
    assert report.existed == []
    alpha = library.open("alpha")
    assert alpha.systems == ["A", "B"] and alpha.scores[("Fluency", "B", "rep")] == 2.4
    assert library.open("beta").experiment_ids == ["orig", "rep"]


def test_existing_studies_are_refused_and_never_overwritten(tmp_path, folder, qrapp_example1):
    library = StudyLibrary(tmp_path / "lib.sqlite3")
    mine = qrapp_example1
    mine.name = "my edited version"
    library.save(mine)
    report = import_paths(library, [folder])
    assert [i for _s, i in report.existed] == ["qrapp-example1"]
    assert library.open("qrapp-example1").name == "my edited version"
    assert library.latest_revision("qrapp-example1") == 1 and len(library.history("qrapp-example1")) == 1
    again = import_paths(library, [folder])
    assert again.added == [] and len(again.existed) == 4
    frame = again.to_frame()
    assert set(frame.outcome) == {"already existed", "refused", "skipped"}


def test_a_zip_of_study_files_is_imported(tmp_path, folder):
    archive = tmp_path / "studies.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(folder / "example1.json", "example1.json")
        z.write(folder / "shared-task.csv", "inner/shared-task.csv")
    library = StudyLibrary(tmp_path / "lib.sqlite3")
    report = import_paths(library, archive)
    assert sorted(i for _s, i in report.added) == ["alpha", "beta", "qrapp-example1"]


def test_a_zip_bomb_is_refused_from_its_directory(tmp_path):
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("scores.csv", "study,experiment,quality_criterion,system,score\n" + "x" * (5 * 2**20))
    library = StudyLibrary(tmp_path / "lib.sqlite3")
    report = import_paths(library, archive)
    assert report.added == []
    assert report.refused[0][1].endswith(
        f"bomb.zip: scores.csv unpacks to 5.0 MiB from 5 KiB (ratio 1017 > {MAX_PACKING_RATIO}); refused as a zip bomb"
    )


QRA3_DIR = field_path("qra3")  # the published Yao 2022 QRA3 run (ReproNLP 2026), field data


@needs_field_data
def test_a_published_qra3_pair_imports_as_its_studies_with_qra3_conventions(tmp_path):
    folder = tmp_path / "qra3"
    folder.mkdir()
    for name in ("metrics-4-studies.csv", "config-4-studies.json"):
        (folder / name).write_bytes((QRA3_DIR / name).read_bytes())
    library = StudyLibrary(tmp_path / "lib.sqlite3")
    report = import_paths(library, [folder])
    assert report.refused == []
    assert report.added == [("qra3/metrics-4-studies.csv + config-4-studies.json", "Yao2022")]  # no server path
    study = library.open("Yao2022")
    assert study.experiment_ids == ["O", "R1", "R2", "R3"]
    assert round(qw.assess(study).value("CV*", "system", "Readability", "GT"), 2) == 12.01  # QRA3 table.csv
    again = import_paths(library, [folder])
    assert again.added == [] and again.existed == [("qra3/metrics-4-studies.csv + config-4-studies.json", "Yao2022")]


@needs_field_data
def test_a_qra3_pair_inside_a_zip_and_a_broken_pair_is_refused_naming_the_file(tmp_path):
    archive = tmp_path / "qra3.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("run/metrics.csv", (QRA3_DIR / "metrics-4-studies.csv").read_text())
        z.writestr("run/config.json", (QRA3_DIR / "config-4-studies.json").read_text())
        z.writestr("bad/metrics.csv", "Key,Study,Experiment,System,Criterion,Result\nA,A,O,s1,Fluency,abc\n")
        z.writestr("bad/config.json", '{"A": {"criteria": {}, "experiments": {"O": "x"}}}')
    report = import_paths(StudyLibrary(tmp_path / "lib.sqlite3"), archive)
    assert [study for _s, study in report.added] == ["Yao2022"]
    [(source, reason)] = report.refused
    assert source.endswith("bad/metrics.csv + config.json") and reason.startswith("metrics.csv: row 2")


def test_cli_import_exits_2_when_anything_was_refused_listing_each_refusal(tmp_path, folder, capsys):
    db = tmp_path / "lib.sqlite3"
    assert main(["import", str(folder), "--db", str(db)]) == 2  # four studies added, broken.json refused
    captured = capsys.readouterr()
    assert captured.out.startswith("added 4 studies, 0 already existed (not overwritten), 1 refused, 1 files skipped\n")
    assert "refused: studies/broken.json: study id: must be a non-empty text, got ''" in captured.out.splitlines()
    assert captured.err.splitlines() == [
        (
            "qra-widgets: import: added 4 studies, 0 already existed (not overwritten), 1 refused, "
            "1 files skipped (the refused files are listed above with the reasons)"
        )
    ]
    (folder / "broken.json").unlink()
    assert main(["import", str(folder), "--db", str(db)]) == 0  # nothing refused: status 0
    assert capsys.readouterr().out.startswith("added 0 studies, 4 already existed (not overwritten), 0 refused")


def test_a_scores_table_without_scale_min_is_refused_naming_the_column_and_the_option(tmp_path):
    # issue 29: a 1-5 scale read with an assumed minimum of 0 gave CV* 10.58 instead of 14.97
    (tmp_path / "scores.csv").write_text(LONG_CSV.replace(",scale_min", "").replace(",1\n", "\n").replace(",0\n", "\n"))
    report = import_paths(StudyLibrary(tmp_path / "lib.sqlite3"), [tmp_path / "scores.csv"])
    assert not report.added
    assert "no scale minimum for 'Fluency'" in report.refused[0][1]
    assert "'scale_min' column" in report.refused[0][1] and "--scale-min" in report.refused[0][1]
    library = StudyLibrary(tmp_path / "lib2.sqlite3")
    report = import_paths(library, [tmp_path / "scores.csv"], scale_min={"Fluency": 1, "BLEU": 0})
    assert sorted(study_id for _source, study_id in report.added) == ["alpha", "beta"]
    assert library.open("alpha").quality_criterion("Fluency").scale_min == 1.0
    assert library.open("beta").quality_criterion("BLEU").scale_min == 0.0


def test_a_bundle_whose_spec_lists_files_as_objects_reads_them_and_skips_only_the_rest(tmp_path):
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "x.csv").write_text("sys,item,q\nA,i1,3\nB,i2,2\n")
    (bundle / "y.csv").write_text("sys,item,q\nA,i1,4\nB,i2,2\n")
    (bundle / "notes.txt").write_text("not named by the spec")
    columns = {"system": "sys", "item": "item", "criteria": {"Q": "q"}}
    spec = {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "per-rater",
        "quality_criteria": [{"name": "Q", "scale_min": 1, "scale_max": 5}],
        "experiments": [
            {"id": "O", "role": "original", "files": [{"file": "x.csv", "rater": "x"}, "y.csv"], "columns": columns},
            {"id": "R", "file": "y.csv", "columns": columns},
        ],
    }
    (bundle / "spec.json").write_text(json.dumps(spec))
    library = StudyLibrary(tmp_path / "lib.sqlite3")
    report = import_paths(library, [bundle])
    assert [study_id for _source, study_id in report.added] == ["per-rater"]
    assert [PurePosixPath(name).name for name, _reason in report.skipped] == ["notes.txt"]
    assert library.open("per-rater").scores[("Q", "A", "O")] == 3.5
