"""The Library tab's file actions (QRA3 files, bulk import, the HTML report), driven as a user would without a
browser: upload bytes, click, read the status line, the report table and the files the download buttons save.

The QRA3 numbers asserted are the organisers' tool's own output for Yao et al. 2022's readability
evaluation (a ReproNLP 2026 run, ``qra3/output-4-studies/Yao2022/table.csv`` of the published
field data, ``$QRA_WIDGETS_FIELD_DATA``: Type I, Readability, GT, system-level CV* 12.01; QC-level
15.29).  The tests that upload that run are skipped without the field data."""

from __future__ import annotations

import base64
import io
import json
import re
import zipfile
from datetime import date, datetime, timezone

import pytest
from fielddata import field_bytes, needs_field_data

from qra_widgets import QRAInputError, library_actions
from qra_widgets.io import study_to_json
from qra_widgets.qra3 import read_qra3_bytes
from qra_widgets.widgets.library import qra3_pair, summary_line
from qra_widgets.widgets.state import AppState

METRICS = field_bytes("qra3", "metrics-4-studies.csv")  # b"" without the field data (the tests skip)
CONFIG = field_bytes("qra3", "config-4-studies.json")
PAIR = [("metrics-4-studies.csv", METRICS), ("config-4-studies.json", CONFIG)]


def upload(widget, files):
    widget.value = tuple(
        {
            "name": name,
            "type": "",
            "size": len(data),
            "last_modified": datetime.now(timezone.utc),
            "content": memoryview(data),
        }
        for name, data in files
    )


def status(app) -> str:
    return re.sub(r"<[^>]+>", "", app.status.value).replace("&#x27;", "'")


def cv(state, system):
    frame = state.assessment.to_frame()
    return frame[(frame.measure == "CV*") & (frame.level == "system") & (frame.system == system)].value.item()


# ----------------------------------------------------------------------------- Import QRA3 files


@needs_field_data
def test_qra3_import_adds_yao2022_opens_it_and_reproduces_the_organisers_cv(app):
    upload(app.library.qra3_upload, PAIR)
    app.library.import_qra3.click()
    assert status(app) == (
        "Imported 1 study from metrics-4-studies.csv + config-4-studies.json: 'Yao2022'. Opened 'Yao2022' (revision 1)."
    )
    assert [s.id for s in app.state.library.list()] == ["Yao2022"]
    assert (app.state.study.id, app.state.revision, app.state.dirty) == ("Yao2022", 1, False)
    assert app.state.conventions.describe() == "qra3"  # the study carries its config's conventions
    assert round(cv(app.state, "GT"), 2) == 12.01  # QRA3's table.csv: Type I, Readability, GT
    assert app.library.studies.value == "Yao2022"  # selected in the list too
    assert app.library.qra3_upload.value == ()  # the upload is cleared


@needs_field_data
def test_qra3_import_of_an_existing_id_is_refused_and_the_library_unchanged(app):
    changed = read_qra3_bytes(METRICS, CONFIG)[0]
    changed.set_score("Readability", "GT", "O", 4.0)
    app.state.library.save(changed)
    before = app.state.library.export_json("Yao2022")
    upload(app.library.qra3_upload, PAIR)
    app.library.import_qra3.click()
    assert status(app) == (
        "Imported no study from metrics-4-studies.csv + config-4-studies.json. "
        "Already in the library, not overwritten: 'Yao2022'."
    )
    assert [r.revision for r in app.state.library.history("Yao2022")] == [1]
    assert app.state.library.export_json("Yao2022") == before
    assert app.state.library.open("Yao2022").scores[("Readability", "GT", "O")] == 4.0
    assert app.state.study.id != "Yao2022"  # nothing was opened...
    assert app.library.studies.value == "Yao2022"  # ...the library's version is selected, ready to open


@needs_field_data
def test_a_second_qra3_run_with_the_same_study_id_is_offered_a_new_id_and_asked_its_evaluation_type(app):
    upload(app.library.qra3_upload, PAIR)
    app.library.import_qra3.click()
    # the import asks what kind of evaluation Readability is (QRA3 files do not say)
    assert app.library.criteria_prompt.widget.layout.display == "flex"
    assert [(study, qc) for study, qc, _kind, _qcet in app.library.criteria_prompt.fields] == [
        ("Yao2022", "Readability")
    ]
    upload(app.library.qra3_upload, PAIR)  # the same run again: the id is taken
    app.library.import_qra3.click()
    assert app.library.clash.layout.display == "flex" and app.library.new_id.value == "yao2022-2"
    app.library.new_id.value = "Yao2022-run2"
    app.library.import_as_new.click()
    assert "Imported 1 study" in status(app) and "'Yao2022-run2'" in status(app)
    assert sorted(s.id for s in app.state.library.list()) == ["Yao2022", "Yao2022-run2"]
    assert round(cv(AppState(app.state.library.open("Yao2022-run2"), conventions="qra3"), "GT"), 2) == 12.01
    assert app.library.clash.layout.display == "none"


@needs_field_data
def test_qra3_import_keeps_unsaved_work_until_the_user_agrees(app, qrapp_example1):
    app.examples.choice.value = "qrapp_example1"
    app.examples.load.click()
    app.state.set_scores({("Fluency", "SVM", app.state.study.experiments[0].id): 3.0})
    upload(app.library.qra3_upload, PAIR)
    app.library.import_qra3.click()
    assert [s.id for s in app.state.library.list()] == ["Yao2022"]  # imported into the library at once...
    assert app.state.study.id == qrapp_example1.id and app.state.dirty  # ...but not opened yet
    assert app.library.confirm.widget.layout.display == "flex"
    assert "open the imported study &#x27;Yao2022&#x27;?" in app.library.confirm.question.value
    app.library.confirm.yes.click()
    assert app.state.study.id == "Yao2022" and status(app).endswith("Opened 'Yao2022' (revision 1).")


@needs_field_data
@pytest.mark.parametrize(
    "files, message",
    [
        (
            [("metrics.csv", METRICS.replace(b"4.946280991735537", b"four")), ("config.json", CONFIG)],
            "metrics.csv: row 2, column Result: 'four' is not a finite number",
        ),
        ([("metrics.csv", METRICS), ("config.json", CONFIG[:40])], "config.json: not valid JSON"),
        ([("metrics.csv", METRICS)], "choose two files, QRA3's metrics .csv and its config .json (got 'metrics.csv')"),
        ([("metrics.csv", METRICS), ("other.csv", METRICS)], "choose two files"),
    ],
)
def test_bad_qra3_files_give_one_line_and_import_nothing(app, files, message):
    upload(app.library.qra3_upload, files)
    app.library.import_qra3.click()
    text = status(app)
    assert message in text, text
    assert text.startswith("⚠") and "\n" not in text and "Traceback" not in text
    assert app.state.library.list() == []


def test_qra3_pair_is_found_by_suffix_in_either_order():
    assert qra3_pair({"config.json": b"", "metrics.csv": b""}) == ("metrics.csv", "config.json")
    with pytest.raises(QRAInputError, match="choose two files"):
        qra3_pair({"a.json": b"", "b.json": b""})


@needs_field_data
def test_import_qra3_reads_nothing_from_bad_bytes(tmp_path):
    state = AppState(library_path=tmp_path / "library.sqlite3")
    with pytest.raises(QRAInputError, match="config.json: has no entry for study 'Yao2022'"):
        library_actions.import_qra3(state.library, METRICS, b"{}")
    assert state.library.list() == []


# ----------------------------------------------------------------------------- Import many


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@needs_field_data
def test_import_many_reports_added_refused_and_existing(app, qrapp_example1, example_study):
    example1 = study_to_json(qrapp_example1).encode()
    app.state.library.save(example_study("qra2022_pass"))
    long_csv = (
        b"study,experiment,quality_criterion,system,score,scale_min\n"
        b"s1,A,Q,x,3,1\ns1,B,Q,x,3.5,1\ns2,A,Q,x,2,1\ns2,B,Q,x,2.5,1\n"
    )
    archive = zipped(
        {
            "studies/example1.json": example1,
            "studies/pass.json": study_to_json(example_study("qra2022_pass")).encode(),
            "studies/broken.json": b'{"schema": ',
        }
    )
    upload(app.library.bulk_upload, [("batch.zip", archive), ("long.csv", long_csv), *PAIR, ("notes.pdf", b"%PDF")])
    app.library.import_many.click()
    assert status(app) == (
        "Imported 4 studies from 5 files: 'Yao2022', 'qrapp-example1', 's1', 's2'. "
        "Already in the library, not overwritten: 'qra2022-pass'. Refused 2 (see below)."
    )
    assert sorted(s.id for s in app.state.library.list()) == ["Yao2022", "qra2022-pass", "qrapp-example1", "s1", "s2"]
    assert [r.revision for r in app.state.library.history("qra2022-pass")] == [1]
    table = app.library.import_report.value
    assert table.count("<td>added</td>") == 4 and table.count("<td>refused</td>") == 2
    assert table.count("<td>already existed</td>") == 1
    assert (
        "unknown file type '.pdf'; use .json, .csv, .tsv, .xlsx or .zip" in table
        and "broken.json: not valid JSON" in table
    )
    assert [value for _label, value in app.library.studies.options] == [
        "Yao2022",
        "qra2022-pass",
        "qrapp-example1",
        "s1",
        "s2",
    ]
    assert app.library.bulk_upload.value == ()


def test_import_many_with_nothing_chosen_says_so(app):
    app.library.import_many.click()
    assert status(app) == "⚠ upload: choose a file first"


def test_the_import_summary_line_counts_and_names_what_was_added_and_refused():
    from qra_widgets.bulk import ImportReport

    report = ImportReport(added=[("a.json", "a")], refused=[("b.csv", "b.csv: row 3, column 'score' is empty")])
    assert summary_line(report) == "Imported 1 study: 'a'. Refused 1 (b.csv: b.csv: row 3, column 'score' is empty)."


# ----------------------------------------------------------------------------- downloads of the open study


def saved(download) -> tuple[str, bytes]:
    """One click on a download button: the file name and bytes handed to the browser, which saves them
    (the script that does it is the button's one output, holding exactly these bytes)."""
    assert download.output.outputs == ()  # built when clicked, never before
    name, data = download.click()
    [shown] = download.output.outputs
    script = shown["data"]["application/javascript"]
    assert f'link.download = "{name}"' in script and base64.b64encode(data).decode() in script
    return name, data


@needs_field_data
def test_qra3_downloads_take_one_click_each_and_reimport_to_the_same_study(app, tmp_path):
    upload(app.library.qra3_upload, PAIR)
    app.library.import_qra3.click()
    day = date.today().isoformat()
    metrics_name, metrics = saved(app.library.download_qra3["metrics.csv"])
    assert metrics_name == f"Yao2022-qra3-metrics-{day}.csv"
    assert status(app).startswith(f"Downloaded QRA3's metrics.csv of 'Yao2022' as {metrics_name}")
    config_name, config = saved(app.library.download_qra3["config.json"])
    assert config_name == f"Yao2022-qra3-config-{day}.json"
    assert metrics.decode().splitlines()[:2] == [
        "Key,Study,Experiment,System,Criterion,Result",
        "Yao2022,Yao2022,O,GT,Readability,4.946280991735537",
    ]
    assert json.loads(config)["Yao2022"]["criteria"]["R"] == {
        "map": "Readability",
        "apply_over_correction": False,
        "normal_data": True,
    }
    other = AppState(library_path=tmp_path / "other.sqlite3")
    report = library_actions.import_qra3(other.library, metrics, config)
    assert report.added == [("metrics.csv + config.json", "Yao2022")]
    other.open_from_library("Yao2022")
    assert other.study.scores == app.state.study.scores and round(cv(other, "GT"), 2) == 12.01
    app.state.set_scores({("Readability", "GT", "O"): 4.5})  # the next click builds the file from the edited study
    _name, edited = app.library.download_qra3["metrics.csv"].click()
    assert "Yao2022,Yao2022,O,GT,Readability,4.5\n" in edited.decode()


@needs_field_data
def test_report_download_is_one_offline_html_with_the_template_table(app):
    upload(app.library.qra3_upload, PAIR)
    app.library.import_qra3.click()
    name, data = saved(app.library.download_report)
    assert name == f"Yao2022-report-{date.today().isoformat()}.html"
    assert status(app) == f"Downloaded the report of 'Yao2022' as {name} (qra3 conventions)."
    page = data.decode()
    assert "<h2>QRA++ template</h2>" in page
    template = page[page.index("<h2>QRA++ template</h2>") :]
    template = template[: template.index("</table>")]
    assert "12.01" in template and "15.29" in template  # QRA3's GT and QC-level CV* (table.csv)
    assert "qra3" in page
    assert '<script src="http' not in page and "<script src='http" not in page


def test_downloads_of_an_empty_study_say_why_and_save_nothing(app):
    for download, message in (
        (app.library.download_qra3["metrics.csv"], "⚠ QRA3 files: the study has no scores yet"),
        (app.library.download_report, "⚠ report: nothing to report yet ("),
        (app.library.download_library_qra3["config.json"], "⚠ QRA3 files: the library has no study with scores yet"),
    ):
        assert download.click() is None
        assert status(app).startswith(message) and download.output.outputs == ()


@needs_field_data
def test_library_qra3_download_holds_every_study(app, qrapp_example1):
    app.state.library.save(qrapp_example1)
    upload(app.library.qra3_upload, PAIR)
    app.library.import_qra3.click()
    day = date.today().isoformat()
    metrics_name, metrics = saved(app.library.download_library_qra3["metrics.csv"])
    config_name, config = saved(app.library.download_library_qra3["config.json"])
    assert (metrics_name, config_name) == (f"library-qra3-metrics-{day}.csv", f"library-qra3-config-{day}.json")
    assert sorted(json.loads(config)) == ["Yao2022", "qrapp-example1"]
    studies = read_qra3_bytes(metrics, config)
    assert sorted(s.id for s in studies) == ["Yao2022", "qrapp-example1"]
    assert status(app) == f"Downloaded QRA3's config.json of the library as {config_name}: 2 studies with scores."


@pytest.mark.parametrize(
    "files, message",
    [
        ([("big.zip", b"0" * (21 * 2**20))], "⚠ big.zip: is 21.0 MiB; the limit is 20 MiB"),
        (
            [(f"part{i}.csv", b"0" * (15 * 2**20)) for i in range(3)],
            "⚠ upload: 3 files of 45.0 MiB together; the limit is 40 MiB at once",
        ),
    ],
)
def test_oversized_uploads_are_refused_before_parsing(app, files, message):
    upload(app.library.bulk_upload, files)
    app.library.import_many.click()
    assert status(app) == message
    assert app.state.library.list() == [] and app.library.import_report.value == ""


def test_the_cli_export_and_the_library_download_write_the_same_qra3_files(app, tmp_path, capsys):
    from qra_widgets.cli import main

    app.state.load(example="qrapp_example1")
    app.state.save()
    _name, metrics = app.library.download_qra3["metrics.csv"].click()
    _name, config = app.library.download_qra3["config.json"].click()
    assert (
        main(
            [
                "export-qra3",
                "qrapp-example1",
                "--db",
                str(tmp_path / "library.sqlite3"),
                "--out-dir",
                str(tmp_path / "out"),
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.count("wrote ") == 2
    assert (tmp_path / "out" / "metrics.csv").read_bytes() == metrics
    assert (tmp_path / "out" / "config.json").read_bytes() == config
    assert metrics.decode().splitlines()[1].startswith("qrapp-example1,")
