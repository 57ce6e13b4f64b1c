"""Merging an uploaded long scores table into the study being edited (what the app's "Scores
file" upload does): scales are never assumed, the study's own descriptions are kept."""

from __future__ import annotations

import pandas as pd
import pytest

from qra_widgets import Experiment, QRAInputError, QualityCriterion, Study
from qra_widgets.errors import ScalesNeeded
from qra_widgets.io import merge_scores_table


def table(rows, columns=("experiment", "quality_criterion", "system", "score")) -> pd.DataFrame:
    return pd.DataFrame([[str(c) for c in row] for row in rows], columns=list(columns))


ROWS = [
    ("orig", "Fluency", "A", 4.5),
    ("orig", "Fluency", "B", 3.0),
    ("rep", "Fluency", "A", 4.0),
    ("rep", "Fluency", "B", 3.5),
]


def edited_study() -> Study:
    return Study(
        "s",
        name="Edited",
        quality_criteria=[QualityCriterion("Fluency", 1, 5, evaluation_type="human")],
        systems=["X"],
        experiments=[Experiment("orig", label="Original 2022", role="original")],
        scores={("Fluency", "X", "orig"): 2.0},
        metadata={"published_values": {"x": 1}, "note": "kept"},
    )


def test_the_table_replaces_scores_and_systems_and_the_study_keeps_its_scales_labels_and_metadata():
    study = edited_study()
    merged = merge_scores_table(study, table(ROWS), "up.csv")
    assert merged.systems == ["A", "B"] and merged.experiment_ids == ["orig", "rep"]
    assert merged.scores == {
        ("Fluency", "A", "orig"): 4.5,
        ("Fluency", "B", "orig"): 3.0,
        ("Fluency", "A", "rep"): 4.0,
        ("Fluency", "B", "rep"): 3.5,
    }
    assert merged.quality_criterion("Fluency") == study.quality_criterion("Fluency")
    assert merged.experiment("orig").label == "Original 2022" and merged.experiment("rep").role == "repeat"
    assert merged.metadata == {"note": "kept"}  # published values belong to the old scores
    assert (merged.id, merged.name) == ("s", "Edited") and study.scores == {("Fluency", "X", "orig"): 2.0}


def test_a_new_criterion_without_a_scale_raises_scales_needed_naming_it():
    rows = [*ROWS, ("orig", "Adequacy", "A", 2), ("rep", "Adequacy", "A", 3)]
    with pytest.raises(ScalesNeeded, match="give the scale minimum of 'Adequacy'") as caught:
        merge_scores_table(edited_study(), table(rows), "up.csv")
    assert caught.value.criteria == ["Adequacy"]
    merged = merge_scores_table(edited_study(), table(rows), "up.csv", {"Adequacy": ("1", 7.0)})
    assert (merged.quality_criterion("Adequacy").scale_min, merged.quality_criterion("Adequacy").scale_max) == (
        1.0,
        7.0,
    )


def test_the_tables_scale_columns_replace_the_scale_and_keep_the_criterions_other_fields():
    rows = [(*row, 0, 10) for row in ROWS]
    merged = merge_scores_table(
        edited_study(),
        table(rows, ("experiment", "quality_criterion", "system", "score", "scale_min", "scale_max")),
        "up.csv",
    )
    fluency = merged.quality_criterion("Fluency")
    assert (fluency.scale_min, fluency.scale_max, fluency.evaluation_type) == (0.0, 10.0, "human")


def test_a_score_outside_the_kept_scale_names_the_file_and_the_cell():
    rows = [*ROWS[:3], ("rep", "Fluency", "B", 6)]
    with pytest.raises(
        QRAInputError, match=r"up.csv: score of 'B' in 'rep' on 'Fluency': 6.0 is above the scale maximum 5.0"
    ):
        merge_scores_table(edited_study(), table(rows), "up.csv")
