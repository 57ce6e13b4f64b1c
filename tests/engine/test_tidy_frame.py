"""``Assessment.to_frame()`` is built column by column; it must equal, dtypes included, the frame
built the documented way, one dict per row (``{**vars(row), conventions, interval cells}``)."""

import pandas as pd
import pytest

import qra_widgets as qw
from qra_widgets.assess import COLUMNS, Assessment, pair_text
from qra_widgets.examples import load as load_example

DTYPES = {
    "n": int,
    "n_systems": "Int64",
    "ci_low": float,
    "ci_high": float,
    "ci_level": float,
    "ci_B": "Int64",
    "ci_seed": "Int64",
    "ci_method": object,
    "ci_over": object,
    "ci_pairing": object,
    "ci_note": object,
}


def row_by_row(result: Assessment) -> pd.DataFrame:
    """The reference: one dict per row, then the documented dtypes; the ``experiments`` column
    (after ``system``) only when a row compares one pair of experiments."""
    pairs = any(row.experiments for row in result.rows)
    frame = pd.DataFrame(
        [
            {
                **vars(row),
                "experiments": pair_text(row.experiments),
                "conventions": result.conventions.describe(),
                **result._interval_cells(row),
            }
            for row in result.rows
        ],
        columns=COLUMNS[:5] + ["experiments"] + COLUMNS[5:] if pairs else COLUMNS,
    )
    return frame.astype(DTYPES)


@pytest.mark.parametrize(
    "name",
    [
        "qrapp_example1",
        "belz2021_torc",
        "qra2022_essay_scoring",
        "qra2022_nts",
        "qra2022_pass",
        "qrapp_table4_illustrative",
    ],
)
@pytest.mark.parametrize("conventions", ["qrapp", "qra3"])
def test_the_tidy_frame_equals_the_row_by_row_frame_for_every_example(name, conventions):
    result = qw.assess(load_example(name), conventions)
    built = result.to_frame()
    pd.testing.assert_frame_equal(built, row_by_row(result), check_exact=True)
    assert len(built) == len(result.rows) > 0


def test_the_tidy_frame_with_intervals_equals_the_row_by_row_frame():
    """Scores-only intervals: Vangel for system CV*, a bootstrap over systems for P, and a note
    saying why CV* at QC level has none (the note column joins the row's note and the reason)."""
    study = load_example("qrapp_example1")
    result = qw.assess(study, bootstrap=60, seed=4)
    built = result.to_frame()
    pd.testing.assert_frame_equal(built, row_by_row(result), check_exact=True)
    assert built["ci_method"].eq("vangel").sum() == len(study.systems) == 3 and built["ci_B"].eq(60).any()
    assert built.loc[built.measure.eq("CV*") & built.level.eq("qc"), "note"].str.contains("no interval").all()


def test_an_assessment_without_rows_gives_an_empty_frame_with_the_same_columns_and_dtypes():
    result = Assessment(load_example("qrapp_example1"), [])
    pd.testing.assert_frame_equal(result.to_frame(), row_by_row(result), check_exact=True)
    assert list(result.to_frame().columns) == COLUMNS


def test_the_tidy_frame_of_item_level_ratings_with_bootstrap_intervals_equals_the_row_by_row_frame(vanmiltenburg2024):
    """van Miltenburg et al. (2024)'s ratings (published field data): Type III rows and intervals over items."""
    result = qw.assess(qw.load_annotations(vanmiltenburg2024 / "spec.json"), bootstrap=40, seed=2)
    built = result.to_frame()
    pd.testing.assert_frame_equal(built, row_by_row(result), check_exact=True)
    assert built["ci_over"].eq("items").any() and built["result_type"].eq("III").any()
    assert built["experiments"].ne("").any()  # three experiments: each repeat's labels vs the original's
