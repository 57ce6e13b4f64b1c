"""AppState: the one owner of edits.  Each command validates, changes the study, re-assesses and
emits one typed event; an invalid command changes nothing."""

import pytest

import qra_widgets as qw
from qra_widgets import QRAInputError
from qra_widgets.study import Experiment, QualityCriterion
from qra_widgets.widgets.results import assessment_with
from qra_widgets.widgets.state import (
    AppState,
    ConventionsChanged,
    PendingScores,
    SavedState,
    ScoresChanged,
    StructureChanged,
    StudyLoaded,
)


@pytest.fixture
def state(tmp_path):
    state = AppState(library_path=tmp_path / "library.sqlite3")
    state.events = []
    for channel in ("study", "scores", "saved"):
        state.on(channel, lambda event, channel=channel: state.events.append((channel, type(event).__name__)))
    return state


def example(state, name="qrapp_example1"):
    state.load(example=name)
    state.events.clear()
    return state


def test_appstate_has_at_most_25_public_methods_each_a_command():
    """Issue 32: queries and helpers live in the library, the views or private methods, so the
    public surface stays a list of commands (``library`` is its one public property)."""
    import inspect

    methods = [n for n, v in inspect.getmembers(AppState) if not n.startswith("_") and inspect.isfunction(v)]
    properties = [n for n, v in inspect.getmembers(AppState) if not n.startswith("_") and isinstance(v, property)]
    assert len(methods) <= 25, methods
    assert properties == ["library"]
    assert not {
        "set_score",
        "complete_pending",
        "new_study",
        "load_example",
        "suggest_id",
        "reassess",
        "experiment_label",
        "assessment_with",
        "compute_intervals",
        "is_stale",
        "plan",
    } & set(methods)


def test_load_without_a_study_starts_a_new_one_whose_id_follows_its_name(state):
    example(state)
    assert isinstance(state.load(), StudyLoaded) and state.study.scores == {} and state.revision is None
    state.set_details(name="Fluency study")
    assert state.study.id == "fluency-study"


def test_a_new_study_is_really_empty(state):
    study = state.study
    assert (study.name, study.quality_criteria, study.systems, study.experiments, study.scores) == ("", [], [], [], {})
    assert study.id.startswith("study-") and state.assessment is None
    assert "at least two experiments" in state.assessment_problem
    assert AppState().study.id != AppState().study.id  # two people starting at once never share an id


def test_each_command_emits_one_typed_event_on_its_channels(state):
    example(state)
    event = state.set_scores({("Fluency", "SVM", "Li2024"): "3.5"})
    assert isinstance(event, ScoresChanged) and event.cells == (("Fluency", "SVM", "Li2024"),)
    assert state.events == [("scores", "ScoresChanged"), ("saved", "ScoresChanged")]
    state.events.clear()
    assert isinstance(state.rename_system("SVM", "SVM-2"), StructureChanged)
    assert state.events == [
        ("study", "StructureChanged"),
        ("scores", "StructureChanged"),
        ("saved", "StructureChanged"),
    ]
    state.events.clear()
    assert isinstance(state.set_conventions("qra3"), ConventionsChanged) and state.events == [
        ("scores", "ConventionsChanged")
    ]
    state.events.clear()
    assert isinstance(state.load(example="qra2022_pass"), StudyLoaded)
    assert [c for c, _ in state.events] == ["study", "scores", "saved"]


def test_a_callback_on_two_channels_runs_once_per_event(state):
    calls = []
    callback = calls.append
    state.on("study", callback)
    state.on("scores", callback)
    state.add_system("Only once")
    assert len(calls) == 1


def test_invalid_commands_change_nothing_and_name_the_label_users_see(state):
    example(state)
    before = dict(state.study.scores)
    with pytest.raises(QRAInputError, match="0.5 is below the scale minimum 1.0"):
        state.set_scores({("Fluency", "SVM", "Li2024"): 0.5})
    with pytest.raises(QRAInputError) as error:
        state.set_scores({("Fluency", "SVM", "Li2024"): 9})
    label = state.study.experiment("Li2024").display_name
    assert label != "Li2024" and repr(label) in str(error.value)  # the label shown in the grid, not the id
    with pytest.raises(QRAInputError, match="'x' is not a number"):
        state.set_scores({("Fluency", "SVM", "Li2024"): "3.3", ("Fluency", "GeDi", "Li2024"): "x"})
    assert state.study.scores == before and state.events == [] and not state.dirty


def test_every_edit_reassesses_the_study(state):
    example(state)
    assert round(state.assessment.value("CV*", "system", "Fluency", "SVM"), 2) == 19.96  # QRA++ Table 3
    state.set_scores({("Fluency", "SVM", "Li2024"): 3.5})
    assert round(state.assessment.value("CV*", "system", "Fluency", "SVM"), 2) != 19.96
    state.remove_system("SVM")
    assert ("Fluency", "SVM") not in state.assessment.cv


def test_changing_an_experiment_id_keeps_its_scores_and_the_other_edits(state):
    example(state)
    scores = {k: v for k, v in state.study.scores.items() if k[2] == "Li2024"}
    event = state.update_experiment("Li2024", id="li-2024", label="Li et al. 2024", team="Li", date="2024")
    assert event.message == "Updated experiment 'Li et al. 2024'."
    experiment = state.study.experiment("li-2024")
    assert (experiment.label, experiment.team, experiment.date) == ("Li et al. 2024", "Li", "2024")
    assert {(q, s, "li-2024"): v for (q, s, _), v in scores.items()} == {
        k: v for k, v in state.study.scores.items() if k[2] == "li-2024"
    }
    assert "Li2024" not in state.study.experiment_ids
    with pytest.raises(QRAInputError, match="'August2022' is already used"):
        state.update_experiment("li-2024", id="August2022", label="changed")
    assert state.study.experiment("li-2024").label == "Li et al. 2024"


def test_caller_study_is_copied_not_edited(qrapp_example1):
    study = qrapp_example1
    before = qw.assess(study).value("CV*", "study")
    state = AppState(study)
    state.set_scores({("Fluency", "SVM", "Li2024"): 3.9})
    assert study.scores[("Fluency", "SVM", "Li2024")] == 3.02 and qw.assess(study).value("CV*", "study") == before


CSV = b"experiment,quality_criterion,system,score\nA,Fluency,s1,3\nA,Fluency,s2,2\nB,Fluency,s1,3.5\nB,Fluency,s2,2.2\n"


def test_upload_without_scale_columns_keeps_the_criteria_scales(state):
    example(state)  # Fluency is rated 1..4 (QRA++ Example 1)
    event = state.import_scores(CSV, "scores.csv")
    assert isinstance(event, StructureChanged)
    qc = state.study.quality_criterion("Fluency")
    assert (qc.scale_min, qc.scale_max, qc.label_level) == (1.0, 4.0, "ordinal")
    assert state.study.systems == ["s1", "s2"] and state.study.experiment_ids == ["A", "B"]
    assert state.assessment.cv[("Fluency", "s1")].cv_star == qw.measures.cv_star([3, 3.5], scale_min=1).cv_star


def test_upload_refuses_a_score_below_the_kept_minimum(state):
    example(state)
    before = dict(state.study.scores)
    with pytest.raises(
        QRAInputError, match="scores.csv: score of 's2' in 'B' on 'Fluency': 0.5 is below the scale minimum 1.0"
    ):
        state.import_scores(CSV.replace(b"2.2", b"0.5"), "scores.csv")
    assert state.study.scores == before


def test_upload_asks_for_the_scale_of_a_new_criterion_and_never_assumes_zero(state):
    pending = state.import_scores(CSV, "scores.csv")
    assert isinstance(pending, PendingScores) and pending.new_criteria == ["Fluency"]
    assert state.study.scores == {} and state.events == []
    with pytest.raises(QRAInputError, match="give the scale minimum of 'Fluency'"):
        state.import_scores(scales={})
    state.import_scores(scales={"Fluency": (1, 5)})
    qc = state.study.quality_criterion("Fluency")
    assert (qc.scale_min, qc.scale_max) == (1.0, 5.0) and state.pending is None
    # CV* subtracts the minimum 1 (QRA 2022 §3.1); assuming 0 would give a lower value
    assert state.assessment.cv[("Fluency", "s1")].cv_star == qw.measures.cv_star([3, 3.5], scale_min=1).cv_star
    assert qw.measures.cv_star([3, 3.5], scale_min=0).cv_star < state.assessment.cv[("Fluency", "s1")].cv_star


def test_upload_with_scale_columns_uses_them(state):
    csv = b"experiment,quality_criterion,system,score,scale_min,scale_max\nA,Q,s1,3,1,7\nA,Q,s2,2,1,7\nB,Q,s1,3.5,1,7\nB,Q,s2,2.2,1,7\n"
    state.import_scores(csv, "scores.csv")
    qc = state.study.quality_criterion("Q")
    assert (qc.scale_min, qc.scale_max) == (1.0, 7.0)


def test_ids_follow_the_name_until_chosen_and_a_taken_id_is_refused_with_a_suggestion(tmp_path):
    library = tmp_path / "library.sqlite3"
    first, second = AppState(library_path=library), AppState(library_path=library)
    first.set_details(name="Fluency study")
    assert first.study.id == "fluency-study"
    first.set_details(name="Fluency study 2024")
    assert first.study.id == "fluency-study-2024"
    assert isinstance(first.save(), SavedState) and first.revision == 1 and not first.dirty
    second.set_details(name="Fluency study 2024")  # the id is derived against the library: no clash
    assert second.study.id == "fluency-study-2024-2"
    second.set_details(study_id="fluency-study-2024")  # a chosen id is kept, but saving it is refused
    assert second.study.id == "fluency-study-2024"
    with pytest.raises(QRAInputError) as refused:
        second.save()
    assert "already has a study with the id 'fluency-study-2024'" in str(refused.value)
    assert "'fluency-study-2024-2'" in str(refused.value)
    assert [r.revision for r in first.library.history("fluency-study-2024")] == [1]  # nothing filed as a conflict
    second.set_details(study_id="fluency-study-2024-2")
    assert second.save().revision == 1


def test_an_edit_marks_the_study_unsaved_and_each_save_is_a_new_revision(state):
    example(state)
    assert state.revision is None and not state.dirty
    state.set_scores({("Fluency", "SVM", "Li2024"): 3.5})
    assert state.dirty
    state.save()
    assert (state.revision, state.dirty) == (1, False)
    state.set_scores({("Fluency", "SVM", "Li2024"): 3.6})
    state.save()
    assert state.revision == 2
    state.open_from_library(state.study.id, 1)
    assert state.study.scores[("Fluency", "SVM", "Li2024")] == 3.5 and state.revision == 2


def test_changing_the_conventions_reassesses_and_refuses_an_unknown_preset(state):
    """QRA3 leaves out the (1 + 1/(4n)) small-sample factor of CV* (Belz & Thomson 2026)."""
    example(state)
    qrapp = state.assessment.value("CV*", "system", "Fluency", "SVM")
    state.set_conventions("qra3")
    n = state.assessment.cv[("Fluency", "SVM")].n
    assert state.assessment.conventions.name == "qra3"
    assert state.assessment.value("CV*", "system", "Fluency", "SVM") == pytest.approx(qrapp / (1 + 1 / (4 * n)))
    with pytest.raises(QRAInputError, match="unknown preset 'qra4'"):
        state.set_conventions("qra4")
    assert assessment_with(state.study, "qrapp").value("CV*", "system", "Fluency", "SVM") == pytest.approx(qrapp)


def test_structure_commands_add_rename_and_remove_parts_and_keep_the_scores_consistent(state):
    state.add_criterion(QualityCriterion("Quality", 1, 5))
    state.add_system("A")
    state.add_system("B")
    state.add_experiment(Experiment("o", role="original"))
    state.add_experiment(Experiment("r"))
    state.set_scores(
        {
            ("Quality", "A", "o"): "3",
            ("Quality", "B", "o"): "4",
            ("Quality", "A", "r"): "3.5",
            ("Quality", "B", "r"): "4.5",
        }
    )
    assert state.assessment.value("P", "qc", "Quality") == 1.0
    state.update_criterion("Quality", QualityCriterion("Overall", 1, 5))
    assert ("Overall", "A", "o") in state.study.scores
    with pytest.raises(QRAInputError, match="above the scale maximum"):
        state.update_criterion("Overall", QualityCriterion("Overall", 1, 4))
    state.remove_experiment("r")
    assert state.assessment is None and "at least two experiments" in state.assessment_problem
    state.remove_criterion("Overall")
    assert state.study.scores == {}


def test_a_refused_score_names_the_experiment_as_users_see_it_and_carries_the_bare_reason():
    from qra_widgets.errors import ScoreError

    study = qw.Study(
        "s",
        quality_criteria=[QualityCriterion("Fluency", 1, 5)],
        systems=["A"],
        experiments=[Experiment("E1", label="Original 2022", role="original"), Experiment("E2")],
    )
    state = AppState(study)
    with pytest.raises(
        ScoreError, match=r"^score for 'A' in experiment 'Original 2022' on 'Fluency': 9.0 is above"
    ) as caught:
        state.set_scores({("Fluency", "A", "E1"): "9"})
    assert (caught.value.key, caught.value.reason) == (
        ("Fluency", "A", "E1"),
        "9.0 is above the scale maximum 5.0 of 'Fluency'",
    )
    with pytest.raises(ScoreError, match=r"^A / Original 2022 on 'Fluency': 0.0 is below"):
        state.set_scores({("Fluency", "A", "E2"): "3", ("Fluency", "A", "E1"): "0"})
    assert state.study.scores == {} and not state.dirty  # nothing of the paste was kept


# ----------------------------------------------------------------------------- annotations: what the message counts

DIRECT = "item,rater,system,score\ni1,r1,x,50\ni1,r2,x,-50\ni2,r1,y,0\ni2,r2,y,100\n"
PAIRS = (
    "item,rater,left,right,answer\ni1,r1,x,y,A\ni1,r2,x,y,A\ni2,r1,y,z,B\ni2,r2,y,z,same\ni3,r1,x,z,A\ni3,r2,x,z,B\n"
)
PAIRWISE = {
    "id": "R1",
    "layout": "pairwise",
    "file": "pairs.csv",
    "choices": {"A": "a", "B": "b", "same": "tie"},
    "columns": {"item": "item", "rater": "rater", "system_a": "left", "system_b": "right", "choice": "answer"},
}


def test_loading_annotations_counts_a_pairwise_judgement_once_beside_the_direct_ratings(state):
    spec = {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "mixed",
        "quality_criteria": [{"name": "Preference", "scale_min": -100, "scale_max": 100}],
        "experiments": [
            {
                "id": "O",
                "role": "original",
                "file": "direct.csv",
                "columns": {"system": "system", "item": "item", "rater": "rater", "criteria": {"Preference": "score"}},
            },
            PAIRWISE,
        ],
    }
    event = state.load_annotations(spec, {"direct.csv": DIRECT.encode(), "pairs.csv": PAIRS.encode()})
    assert len(state.study.ratings) == 4 + 2 * 6  # each judgement is stored as a rating of both systems shown
    assert event.message == (
        "Loaded 4 ratings and 6 comparative judgements from 2 experiments (O, R1). Save it in the Library to keep it."
    )


def test_an_entry_of_reported_scores_needs_no_upload(state):
    spec = {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "pairs-only",
        "quality_criteria": [{"name": "Preference", "scale_min": -100, "scale_max": 100}],
        "experiments": [
            {"id": "O", "role": "original", "scores": {"Preference": {"x": 40, "y": -20, "z": -20}}},
            PAIRWISE,
        ],
    }
    event = state.load_annotations(spec, {"pairs.csv": PAIRS.encode()})
    assert event.message.startswith("Loaded 6 comparative judgements from 2 experiments (O, R1).")
    with pytest.raises(QRAInputError, match="'pairs.csv': not among the uploaded files"):
        state.load_annotations(spec, {"other.csv": PAIRS.encode()})


def test_the_hosking_pairwise_reproduction_loads_as_3600_judgements(state, field_data):
    """Arvan & Parde (2025)'s reproduction of Hosking & Lapata (2021): each of the four systems
    was in 1,800 comparisons (``published/lab1_results.csv``: win_percentage = wins / 1,800),
    so 4 x 1,800 / 2 = 3,600 judgements, stored as 7,200 ratings (one per system shown)."""
    import json
    from pathlib import Path

    spec = json.loads((Path(__file__).parents[1] / "field" / "hosking2021_meaning_arvan2025_pairwise.json").read_text())
    name = spec["experiments"][1]["file"]
    event = state.load_annotations(spec, {name: (field_data / name).read_bytes()})
    assert len(state.study.ratings) == 7200
    assert event.message == (
        "Loaded 3600 comparative judgements from 2 experiments (O, R1). Save it in the Library to keep it."
    )
