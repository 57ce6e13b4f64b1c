"""The dashboard driven as a user would, without a browser: set values, click, upload bytes."""

import base64
import html
import re
from datetime import date, datetime, timezone

import pytest
from fielddata import field_path, needs_field_data

import qra_widgets as qw
from qra_widgets.widgets import Dashboard

HEDS = field_path("heds2", "heds2_example_vanmiltenburg_datacard-2023-12-06-16-57-46.json")  # ReproHum's, field data


def load_example(app, name="qrapp_example1"):
    app.examples.choice.value = name
    app.examples.load.click()


def build_by_hand(app):
    """What a researcher does from the empty study: a criterion with its scale, systems, experiments."""
    view = app.study_view
    view.name.value = "My fluency study"
    view.apply_details.click()
    view.qc_name.value, view.qc_min.value, view.qc_max.value = "Quality", "1", "5"
    view.add_qc.click()
    for system in ("System A", "System B"):
        view.system_name.value = system
        view.add_system.click()
    for exp_id, role in (("original", "original"), ("repeat-1", "repeat")):
        app.experiments.exp_id.value, app.experiments.exp_label.value, app.experiments.exp_role.value = (
            exp_id,
            exp_id,
            role,
        )
        app.experiments.add.click()


def upload(widget, name, data: bytes):
    widget.value = (
        {
            "name": name,
            "type": "",
            "size": len(data),
            "last_modified": datetime.now(timezone.utc),
            "content": memoryview(data),
        },
    )


def test_example_loads_into_table_and_chart(app):
    load_example(app)
    table = app.assessment.table.value
    assert all(value in table for value in ("19.96", "29.9", "30.76", "26.87"))
    bars = [t for t in app.charts.cv_figure.data if t.type == "bar"]
    assert [round(v, 2) for v in bars[0].y] == [19.96, 29.9, 30.76]
    assert "Fluency measurement reproducibility for SVM" in app.assessment.narrative.value
    button = app.assessment.download_buttons["Markdown"]
    assert button.output.outputs == ()  # built when clicked, never on every edit
    name, data = button.click()  # one click: the file itself goes to the browser
    assert name == f"qrapp-example1-assessment-{date.today().isoformat()}.md" and "| 19.96 |" in data.decode()
    [shown] = button.output.outputs
    script = shown["data"]["application/javascript"]
    assert f'link.download = "{name}"' in script and '"text/markdown"' in script
    assert base64.b64encode(data).decode() in script


def test_editing_a_cell_updates_study_table_and_chart(app):
    load_example(app)
    cell = app.scores.grid("Fluency").cells[("SVM", "Li2024")]
    cell.value = "3.5"
    assert app.state.study.scores[("Fluency", "SVM", "Li2024")] == 3.5
    bars = next(t for t in app.charts.cv_figure.data if t.type == "bar")
    assert round(bars.y[0], 2) != 19.96
    assert "19.96" not in app.assessment.table.value


def test_the_cv_chart_sent_to_the_browser_is_the_current_figure(app):
    """What the page draws is the Plotly JSON in the chart's Output, redrawn whole on each
    change (a FigureWidget's view could miss the update that added its traces and stay blank)."""

    def drawn_bar_heights():
        [output] = app.charts.cv_chart.outputs
        figure = output["data"]["application/vnd.plotly.v1+json"]
        bars = [t for t in figure["data"] if t["type"] == "bar"]
        return [round(v, 2) for v in bars[0]["y"]], figure["layout"]["yaxis"]["title"]["text"]

    assert app.charts.cv_chart.outputs == ()  # nothing assessed yet, nothing drawn
    load_example(app)
    assert drawn_bar_heights() == ([19.96, 29.9, 30.76], "CV* (%)")
    app.scores.grid("Fluency").cells[("SVM", "Li2024")].value = "3.5"
    heights, _ = drawn_bar_heights()
    assert heights[0] != 19.96 and heights[1:] == [29.9, 30.76]


@pytest.mark.parametrize(
    "typed, reason",
    [
        ("3,5", "'3,5' is not a number (use '.' as the decimal point)"),
        ("N/A", "'N/A' is not a number"),
        ("0.5", "0.5 is below the scale minimum 1.0"),
    ],
)
def test_invalid_cells_are_marked_inline_and_nothing_is_lost(app, typed, reason):
    load_example(app)
    cell = app.scores.grid("Fluency").cells[("GeDi", "Li2024")]
    cell.value = typed
    assert cell.value == typed and "qra-invalid" in cell._dom_classes
    assert reason in html.unescape(app.scores.problems.value)
    assert app.state.study.scores[("Fluency", "GeDi", "Li2024")] == 2.4  # last valid value kept
    cell.value = "2.5"
    assert "qra-invalid" not in cell._dom_classes and app.scores.problems.value == ""


def test_empty_cell_removes_the_score(app):
    load_example(app)
    app.scores.grid("Fluency").cells[("GeDi", "Li2024")].value = ""
    assert ("Fluency", "GeDi", "Li2024") not in app.state.study.scores
    assert app.state.assessment.cv[("Fluency", "GeDi")].n == 2
    shown = " ".join(re.sub("<[^>]+>", " ", app.assessment.table.value).split())
    assert f"GeDi CV* {round(app.state.assessment.cv[('Fluency', 'GeDi')].cv_star, 2):g}" in shown


def test_pasting_a_spreadsheet_block_sets_the_scores_it_names(app):
    load_example(app)
    app.scores.paste_target.value = "Fluency"
    app.scores.paste_text.value = "\tAugust et al. (2022)\tvM\tLi\nSVM\t3.7\t3.1\t3.0\nGeDi\t3.2\t2.6\t2.4\n"
    app.scores.paste_button.click()
    assert app.state.study.scores[("Fluency", "SVM", "vanMiltenburg2024")] == 3.1
    assert app.state.study.scores[("Fluency", "GeDi", "Li2024")] == 2.4
    assert "Pasted 6 cells" in app.status.value


def test_uploading_a_long_scores_csv_and_a_labels_csv_fills_the_study(app):
    csv = b"experiment,quality_criterion,system,score,scale_min\nA,Q,s1,3,1\nA,Q,s2,2,1\nB,Q,s1,3.5,1\nB,Q,s2,2.2,1\n"
    upload(app.scores.scores_upload, "scores.csv", csv)
    app.scores.scores_button.click()
    assert app.state.study.systems == ["s1", "s2"] and app.state.study.experiment_ids == ["A", "B"]
    assert app.state.assessment is not None and "Loaded 4 scores" in app.status.value
    labels = b"experiment,quality_criterion,system,item,label\nA,Q,s1,i1,3\nB,Q,s1,i1,3\nA,Q,s1,i2,2\nB,Q,s1,i2,1\n"
    upload(app.scores.labels_upload, "labels.csv", labels)
    app.scores.labels_button.click()
    assert len(app.state.study.labels) == 4
    assert "kappa" in set(app.state.assessment.to_frame().measure)
    assert "κ" in app.assessment.table.value


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("bad.csv", b"experiment;quality_criterion;system;score\nA;Q;s1;3,5\n", "'3,5' is not a number"),
        ("bad.csv", b"\xff\xfe\x00garbage", "is not UTF-8 text"),
        ("bad.csv", b"a,b\n1,2\n", "missing column(s)"),
        ("big.csv", b"x" * (5 * 2**20 + 1), "uploads are limited to 5 MiB"),
    ],
    ids=["decimal-comma", "not-utf8", "wrong-columns", "oversized"],
)
def test_malformed_uploads_show_a_message_and_keep_the_study(app, name, data, message):
    load_example(app)
    before = dict(app.state.study.scores)
    upload(app.scores.scores_upload, name, data)
    app.scores.scores_button.click()
    assert message in html.unescape(app.status.value)
    assert "qra-error" in app.status.value and "Traceback" not in app.status.value
    assert app.state.study.scores == before


def test_unexpected_errors_never_show_a_traceback(app, monkeypatch):
    load_example(app)
    monkeypatch.setattr("qra_widgets.widgets.library.examples.load", lambda name: 1 / 0)
    app.examples.load.click()
    assert "Something went wrong (ZeroDivisionError)" in app.status.value and "Traceback" not in app.status.value


def test_the_study_form_adds_criteria_with_a_qcet_id_refuses_an_unknown_one_and_edits_systems(app):
    build_by_hand(app)
    view = app.study_view
    view.qc_name.value, view.qc_min.value, view.qc_max.value = "Clarity", "1", "7"
    view.qc_qcet.value = "Fluency (QOG-w-3)"
    view.add_qc.click()
    assert app.state.study.quality_criterion("Clarity").qcet_id == "QOG-w-3"
    view.qc_qcet.value = "Fluentness"
    view.qc_name.value = "Other"
    view.add_qc.click()
    assert "is not in QCET v3.4.1" in app.status.value
    view.system_name.value = "System C"
    view.add_system.click()
    assert app.state.study.systems[-1] == "System C"
    view.systems.value = "System C"
    view.system_name.value = "System A"
    view.rename_system.click()
    assert "duplicate name 'System A'" in html.unescape(app.status.value)
    view.remove_system.click()
    assert "System C" not in app.state.study.systems
    assert len(app.scores.grids) == 2  # grids rebuilt for the new criterion


@needs_field_data
def test_the_experiments_tab_records_properties_conditions_and_heds_answers(app):
    build_by_hand(app)
    view = app.experiments
    view.exp_id.value, view.exp_label.value, view.exp_role.value = "repro-2", "second repeat", "repeat"
    view.add.click()
    assert app.state.study.experiment_ids[-1] == "repro-2"
    view.experiments.value = "repro-2"
    view.inputs[("H3.2.1", None)].main.value = "12"
    view.inputs[("H4.2.1", "Quality")].main.value = "Subjective"
    view.inputs[("H2.1", None)].main.value = ("Text: sentence", "Other (please describe)")
    view.inputs[("H2.1", None)].other.value = "tables"
    view.conditions.value = "procedure: Performed by = us\nobject: Code by = them"
    view.save_properties.click()
    experiment = app.state.study.experiment("repro-2")
    assert experiment.properties == {
        "H2.1": ["Text: sentence", "Other: tables"],
        "H3.2.1": 12,
        "H4.2.1": {"Quality": "Subjective"},
    }
    assert experiment.conditions == {"procedure": {"Performed by": "us"}, "object": {"Code by": "them"}}
    view.conditions.value = "hardware = GPU"
    view.save_properties.click()
    assert "conditions, line 1" in app.status.value
    upload(view.heds_upload, HEDS.name, HEDS.read_bytes())
    view.heds_import.click()
    imported = app.state.study.experiment("repro-2").properties
    assert imported["H3.2.1"] == 2 and imported["H4.3.8"] == {"Quality": "Direct quality estimation"}
    assert "answered HEDS fields are not QRA++ properties" in view.heds_report.value
    upload(view.heds_upload, "broken.json", b'{"heds-x": 5')
    view.heds_import.click()
    assert "not valid JSON" in app.status.value


def test_library_save_conflict_history_delete_restore(app, tmp_path):
    load_example(app)
    app.library.save.click()
    assert app.state.revision == 1 and "revision 1" in app.status.value
    other = Dashboard(library_path=tmp_path / "library.sqlite3")  # a second browser session
    other.library.refresh()
    other.library.studies.value = "qrapp-example1"
    other.library.open.click()
    other.scores.grid("Fluency").cells[("SVM", "Li2024")].value = "3.3"
    other.library.save.click()
    assert other.state.revision == 2
    app.scores.grid("Fluency").cells[("SVM", "Li2024")].value = "3.9"
    app.library.save.click()
    assert "your version was kept as revision 3" in app.status.value
    app.library.refresh()
    app.library.studies.value = "qrapp-example1"
    assert [label.split(" · ")[0] for label, _ in app.library.history.options] == ["rev 3 CONFLICT", "rev 2", "rev 1"]
    app.library.history.value = 3
    app.library.open_revision.click()  # the refused edit is still unsaved here: the app asks first
    assert (
        "unsaved changes" in app.library.confirm.question.value
        and app.state.study.scores[("Fluency", "SVM", "Li2024")] == 3.9
    )
    app.library.confirm.yes.click()
    assert app.state.study.scores[("Fluency", "SVM", "Li2024")] == 3.9
    app.library.save.click()  # the user resolves the conflict by saving their version on top
    assert app.state.revision == 4
    app.library.delete.click()
    assert app.library.studies.options == ()
    app.library.show_deleted.value = True
    app.library.studies.value = "qrapp-example1"
    app.library.restore.click()
    assert "Restored" in app.status.value


def test_the_compare_tab_draws_subsets_and_forgets_them_when_another_study_opens(app):
    load_example(app, "qra2022_essay_scoring")
    app.compare.attribute.value = ("object: Seed", "procedure: Test set")
    app.compare.run.click()
    assert "object: Seed = seed 1, procedure: Test set = i1 (n = 4)" in app.compare.table.value
    [drawn] = app.compare.chart.outputs  # the subset chart the page is sent
    assert "application/vnd.plotly.v1+json" in drawn["data"]
    app.library.save.click()
    load_example(app, "qrapp_example1")
    assert app.compare.chart.outputs == ()  # another study: the old comparison is gone
    app.library.save.click()
    app.overview.update.click()
    assert app.overview.shown_studies[:2] == ["qrapp-example1", "qra2022-essay-scoring"]  # human first, then metric
    assert "Overview of 2 studies" in app.status.value


def test_a_chart_downloads_as_one_html_page_named_after_the_study_and_day(app):
    load_example(app)
    name, page = app.charts.save_buttons["CV*"].click()
    assert name == f"qrapp-example1-cv-chart-{date.today().isoformat()}.html"
    assert page.lower().startswith(b"<!doctype html>") and b"plotly" in page


def test_user_names_are_escaped_in_the_app(app):
    load_example(app)
    app.study_view.name.value = "<script>alert(1)</script>"
    app.study_view.apply_details.click()
    app.study_view.systems.value = "SVM"
    app.study_view.system_name.value = "<img src=x onerror=alert(2)>"
    app.study_view.rename_system.click()
    for page in (
        app.title.value,
        app.assessment.table.value,
        app.assessment.narrative.value,
        *[
            c.value
            for c in app.scores.grid_box.children[0].children[1].children
            if hasattr(c, "value") and "img" in str(c.value)
        ],
    ):
        assert "<script>" not in page and "<img src=x" not in page
    assert "&lt;img src=x" in app.assessment.table.value


def test_dashboard_accepts_a_study(tmp_path, belz2021_torc):
    study = belz2021_torc
    app = Dashboard(study, library_path=tmp_path / "x.sqlite3")
    assert "2.61" in app.assessment.table.value


def test_compare_charts_can_be_saved(app):
    load_example(app, "qra2022_essay_scoring")
    assert app.compare.save_comparison.click() is None
    assert "run a comparison first" in app.status.value
    app.compare.attribute.value = ("object: Seed",)
    app.compare.run.click()
    day = date.today().isoformat()
    assert app.compare.save_comparison.click()[0] == f"qra2022-essay-scoring-subsets-{day}.html"
    assert app.compare.save_heatmap.click()[0] == f"qra2022-essay-scoring-heatmap-{day}.html"


def test_forged_values_are_validated_server_side(app):
    """What a forged widget message could set: any text in a cell or a form field."""
    load_example(app)
    cell = app.scores.grid("Fluency").cells[("SVM", "Li2024")]
    cell.value = "9" * 100_000
    assert "must be a finite number, got inf" in app.scores.problems.value
    assert app.state.study.scores[("Fluency", "SVM", "Li2024")] == 3.02
    app.study_view.study_id.value = "../../etc/passwd"
    app.study_view.apply_details.click()
    app.library.save.click()
    assert app.state.study.id == "../../etc/passwd" and "Saved" in app.status.value  # an id is data, never a path
    written = app.state.library.export_all(app.state.library.path.parent / "backup")
    assert len(written) == 1 and written[0].parent.name == "backup" and written[0].name.startswith("etc_passwd-")
    app.experiments.exp_id.value = ""
    app.experiments.add.click()
    assert "experiment id: must be a non-empty text" in app.status.value


def test_dashboard_is_importable_from_the_package_without_loading_widgets_early():
    import subprocess
    import sys

    code = (
        "import sys, qra_widgets; assert 'ipywidgets' not in sys.modules and 'plotly' not in sys.modules; "
        "from qra_widgets import Dashboard; assert Dashboard.__name__ == 'Dashboard'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------- no silent defaults, no traps


def test_a_new_dashboard_is_empty_with_a_first_run_guide(app):
    assert app.state.study.systems == [] and app.state.study.quality_criteria == []
    assert app.study_view.guide.layout.display == "flex" and "Start here" in app.study_view.guide.children[0].value
    assert "Untitled study" in app.title.value and "not saved in the library yet" in app.title.value
    assert app.scores.grids == [] and "The grid appears once the study has" in app.scores.empty.value
    app.study_view.guide_example.value = "qrapp_example1"
    app.study_view.guide_load.click()
    assert app.study_view.guide.layout.display == "none" and app.tabs.selected_index == 3  # the Assessment tab


def test_load_example_asks_before_discarding_unsaved_changes(app):
    load_example(app)
    app.scores.grid("Fluency").cell("SVM", "Li2024").value = "3.5"
    assert app.state.dirty and "not saved in the library yet" in app.title.value
    load_example(app, "qra2022_pass")
    assert app.state.study.id == "qrapp-example1" and app.examples.confirm.widget.layout.display == "flex"
    app.examples.confirm.no.click()
    assert (
        app.state.study.scores[("Fluency", "SVM", "Li2024")] == 3.5
        and app.examples.confirm.widget.layout.display == "none"
    )
    load_example(app, "qra2022_pass")
    app.examples.confirm.yes.click()
    assert app.state.study.id == "qra2022-pass"


def test_header_shows_saved_state_and_revision(app):
    load_example(app)
    app.library.save.click()
    assert "saved · revision 1" in app.title.value
    app.scores.grid("Fluency").cell("SVM", "Li2024").value = "3.5"
    assert "unsaved changes · based on revision 1" in app.title.value
    app.library.save.click()
    assert "saved · revision 2" in app.title.value


def test_saving_a_new_study_under_a_taken_id_is_refused_with_a_suggestion(app, tmp_path):
    load_example(app)
    app.library.save.click()
    other = Dashboard(library_path=tmp_path / "library.sqlite3")  # a second tab loads the same example
    load_example(other)
    other.library.save.click()
    message = html.unescape(other.status.value)
    assert "already has a study with the id 'qrapp-example1'" in message and "'qrapp-example1-2'" in message
    assert [r.revision for r in app.state.library.history("qrapp-example1")] == [1]
    other.study_view.study_id.value = "qrapp-example1-2"
    other.study_view.apply_details.click()
    other.library.save.click()
    assert "Saved" in other.status.value and other.state.revision == 1


def test_status_messages_are_cleared_on_tab_change(app):
    load_example(app)
    assert "Loaded the example" in app.status.value
    app.tabs.selected_index = 4
    assert app.status.value == ""


def test_upload_without_scales_prompts_for_a_new_criterion(app):
    csv = b"experiment,quality_criterion,system,score\nA,Q,s1,3\nA,Q,s2,2\nB,Q,s1,3.5\nB,Q,s2,2.2\n"
    upload(app.scores.scores_upload, "scores.csv", csv)
    app.scores.scores_button.click()
    assert app.scores.scale_prompt.layout.display == "flex" and list(app.scores.scale_inputs) == ["Q"]
    assert app.state.study.scores == {} and "give the scale of 'Q'" in html.unescape(app.status.value)
    app.scores.scale_apply.click()  # nothing given: refused, nothing assumed
    assert "Q: lowest possible score: give a number (it is not assumed to be 0)" in html.unescape(app.status.value)
    low, high = app.scores.scale_inputs["Q"]
    low.value, high.value = "1", "5"
    app.scores.scale_apply.click()
    assert app.scores.scale_prompt.layout.display == "none"
    assert (app.state.study.quality_criterion("Q").scale_min, len(app.state.study.scores)) == (1.0, 4)
    assert app.state.assessment is not None


def test_experiment_id_change_from_the_form_keeps_scores(app):
    load_example(app)
    view = app.experiments
    view.experiments.value = "Li2024"
    view.exp_id.value, view.exp_label.value = "li", "Li et al."
    view.update.click()
    assert (
        app.state.study.experiment("li").label == "Li et al."
        and app.state.study.scores[("Fluency", "SVM", "li")] == 3.02
    )
    assert view.experiments.value == "li"


# ---------------------------------------------------------------------- a page that looks finished


def test_template_table_is_the_reports_template_and_says_why_a_value_is_undefined(app):
    """The Assessment tab shows the QRA++ template through report/html.py: the Markdown report's cells,
    one section per result type, an undefined value as "–" and its reason in the notes under the table."""
    load_example(app)
    grid = app.scores.grid("Fluency")
    for experiment in ("vanMiltenburg2024", "Li2024"):  # SVM keeps one score: its CV* is undefined
        grid.cell("SVM", experiment).value = ""
    table = app.assessment.table.value
    assert "nan" not in table and table.count("QRA++ reproducibility assessment of") == 1
    assert "<tr class='qra-system-row'><td>SVM</td><td>CV*</td><td class='qra-num qra-na'>–</td>" in table
    assert "<li>CV* (system, Fluency / SVM): CV* needs at least 2 values</li>" in table
    assert "<tbody class='qra-type qra-type-I'>" in table and "<tbody class='qra-type qra-type-IV'>" in table
    markdown = app.state.assessment.to_markdown()
    assert (
        "| Type IV | P | n/a | 1 | 1 |" in markdown
        and "<td>Type IV</td><td>P</td><td class='qra-num'>n/a</td>" in table
    )
    cards = app.assessment.cards.value
    assert "CV* (study)" in cards and "P (study)" in cards and "W / τ" not in cards
    assert "<div class='qra-card-title'>W</div>" in cards  # QRA++ Example 1: three experiments, so W


def test_paper_example_shows_published_beside_computed_with_the_reason(app):
    load_example(app, "qra2022_pass")
    published = html.unescape(app.assessment.published.value)
    assert "Published beside computed" in published
    # QRA 2022 Table 2 prints Clarity CV* 13.193; the 2-decimal scores it publishes give 13.24
    assert "<td class='qra-num'>13.193</td><td class='qra-num'>13.240</td>" in published
    assert "computed Clarity from unrounded means" in published
    assert "<td class='qra-num'>16.372</td><td class='qra-num'>16.372</td>" in published and "✓ same" in published


def test_conventions_picker_and_both_presets_side_by_side(app):
    load_example(app)
    qrapp = app.state.assessment.value("CV*", "system", "Fluency", "SVM")
    app.assessment.conventions.value = "qra3"
    assert app.state.assessment.conventions.name == "qra3" and "conventions: qra3" in app.assessment.table.value
    assert app.state.assessment.value("CV*", "system", "Fluency", "SVM") < qrapp  # no (1 + 1/(4n)) factor
    app.assessment.compare_presets.value = True
    side = app.assessment.presets.value
    assert (
        "qra-side-by-side" in side
        and "<th scope='col' class='qra-num'>qrapp</th>" in side
        and "<th scope='col' class='qra-num'>qra3</th>" in side
    )


def test_library_tab_never_shows_the_server_path(app, tmp_path):
    load_example(app)
    app.library.save.click()
    app.library.refresh()
    shown = " ".join(str(getattr(c, "value", "")) for c in _all_widgets(app.widget))
    assert str(tmp_path) not in shown and "library.sqlite3" not in shown


def test_dashboard_of_a_study_draws_every_chart_at_once_and_copies_the_study(tmp_path, qrapp_example1):
    study = qrapp_example1
    app = Dashboard(study, library_path=tmp_path / "x.sqlite3")
    for output in (app.charts.cv_chart, app.charts.p_and_w, app.charts.scores):
        [drawn] = output.outputs
        assert drawn["data"]["application/vnd.plotly.v1+json"]["data"]
    app.scores.grid("Fluency").cell("SVM", "Li2024").value = "3.9"
    assert study.scores[("Fluency", "SVM", "Li2024")] == 3.02


def _all_widgets(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _all_widgets(child)


def big_study(systems=200, experiments=8):
    import numpy as np

    from qra_widgets.study import Experiment, QualityCriterion, Study

    rng = np.random.default_rng(0)
    names = [f"system {i:03d}" for i in range(systems)]
    exps = [Experiment(f"e{j}", role="original" if j == 0 else "repeat") for j in range(experiments)]
    scores = {("Quality", s, e.id): float(rng.uniform(1, 5)) for s in names for e in exps}
    return Study(
        "big",
        name="200 systems",
        quality_criteria=[QualityCriterion("Quality", 1, 5)],
        systems=names,
        experiments=exps,
        scores=scores,
    )


def test_a_200_system_study_builds_a_page_of_cells_not_thousands(app):
    import ipywidgets

    app.state.load(big_study())
    grid = app.scores.grid("Quality")
    assert sum(1 for w in _all_widgets(grid.widget) if isinstance(w, ipywidgets.Text)) == 20 * 8
    assert grid.where.value == "systems 1–20 of 200"
    cell = grid.cell("system 150", "e3")  # turns to the page holding the system
    assert (
        grid.where.value == "systems 141–160 of 200"
        and cell.value == f"{app.state.study.scores[('Quality', 'system 150', 'e3')]:g}"
    )
    cell.value = "2.5"
    assert app.state.study.scores[("Quality", "system 150", "e3")] == 2.5


def test_replaced_widgets_are_closed(app, example_study):
    from ipywidgets.widgets.widget import _instances  # the open widgets (``Widget.widgets`` is deprecated in 8.1)

    load_example(app)
    app.state.load(example_study("qra2022_pass"))
    app.state.load(example_study("qrapp_example1"))
    before = len(_instances)
    for _ in range(5):  # alternate two studies of different shapes: grids and forms are rebuilt each time
        app.state.load(example_study("qra2022_pass"))
        app.state.load(example_study("qrapp_example1"))
    assert len(_instances) == before


def test_grids_follow_a_study_built_by_hand(app):
    build_by_hand(app)
    grid = app.scores.grid("Quality")
    assert sorted(grid.cells) == [
        ("System A", "original"),
        ("System A", "repeat-1"),
        ("System B", "original"),
        ("System B", "repeat-1"),
    ]
    grid.cell("System B", "repeat-1").value = "4"
    assert app.state.study.scores == {("Quality", "System B", "repeat-1"): 4.0}


def test_a_study_carrying_its_conventions_is_assessed_with_them(app, qrapp_example1):
    study = qrapp_example1
    study.metadata["conventions"] = "qra3"
    app.state.load(study)
    assert app.state.assessment.conventions.name == "qra3" and app.assessment.conventions.value == "qra3"
    page = " ".join(str(getattr(c, "value", "")) for c in _all_widgets(app.assessment.widget))
    assert page.count("QRA++ reproducibility assessment") == 1  # the title is printed once


def test_new_empty_study_asks_first_and_is_empty(app):
    load_example(app)
    app.examples.new.click()  # nothing changed since loading: no question
    assert app.state.study.experiments == [] and app.study_view.guide.layout.display == "flex"
    build_by_hand(app)
    app.examples.new.click()
    assert "unsaved changes" in app.examples.confirm.question.value and app.state.study.name == "My fluency study"
    app.examples.confirm.yes.click()
    assert app.state.study.name == "" and app.state.study.systems == [] and "Untitled study" in app.title.value


def test_uploads_and_buttons_use_no_icon_font(app):
    import ipywidgets

    icons = {
        w.icon
        for w in _all_widgets(app.widget)
        if isinstance(w, (ipywidgets.Button, ipywidgets.FileUpload))
        if not any(w is b for b in _all_widgets(app.overview.widget))
    }
    assert icons == {""}


def test_the_agreement_card_names_w_and_tau_apart(app, qrapp_table4_illustrative):
    from qra_widgets.widgets import tables

    cards = tables.headline_cards(qw.assess(qrapp_table4_illustrative))  # QRA++ Table 4: two criteria, n = 2
    assert "<div class='qra-card-title'>τ</div>" in cards
    assert "per criterion: Overall quality τ -1.000, Socio-political acceptability τ 0.816" in cards
