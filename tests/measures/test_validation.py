"""measures/_validation.py: the boundary checks every measure shares and the one undefined rule,
on the published numbers the measures read (Belz 2021 Table 1's torc weighings; QRA++ Table 3's
Fluency means)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qra_widgets import QRAInputError, UndefinedMeasureWarning
from qra_widgets.measures._validation import (
    CANCELLATION_RTOL,
    Batch,
    as_pair,
    as_score_matrix,
    as_values,
    replacement,
    rescaled,
    undefined_reason,
    undefined_reasons,
    unit_weights,
)

# Belz (2021), Table 1: the seven weighings of British Museum torc 1991,0501.129, in grams.
TORC = [92.0, 92.0, 87.2, 87.47, 87.37, 88.1, 88.1]
# QRA++ Table 3 (Example 1): mean Fluency of SVM, GeDi and DExperts, original and two repeats.
QRAPP_FLUENCY = [[3.71, 3.2, 2.33], [3.12, 2.57, 2.28], [3.02, 2.4, 1.81]]


def test_values_are_read_as_they_are_given():
    assert as_values(TORC).tolist() == TORC
    assert as_values(np.array(TORC, dtype=np.float32)).dtype == np.float64
    assert as_pair(QRAPP_FLUENCY[0], QRAPP_FLUENCY[1])[1].tolist() == [3.12, 2.57, 2.28]
    matrix = as_score_matrix(QRAPP_FLUENCY)
    assert matrix.shape == (3, 3) and matrix[2, 2] == 1.81
    assert np.isnan(as_score_matrix([[3.71, None], [3.12, 2.57]])[0, 1])  # None marks a missing score


@pytest.mark.parametrize(
    "action, message",
    [
        (lambda: as_values(["92,0", 92.0]), "values: value '92,0' at position 0 is not a number (it is text"),
        (lambda: as_values([92.0, "1.5"]), "values: value '1.5' at position 1 is not a number (it is text"),
        (lambda: as_values([92.0, object()]), "at position 1 is not a number"),
        (lambda: as_values(TORC[:1]), "values: needs at least 2 values, got 1"),
        (lambda: as_values([92.0, math.nan]), "values: value at position 1 is nan, not a finite number"),
        (lambda: as_values([[92.0, 87.2]]), "values: expected a 1-D sequence, got shape (1, 2)"),
        (lambda: as_pair(TORC, TORC[:3]), "x and y: lengths differ (7 vs 3)"),
        (lambda: as_score_matrix(QRAPP_FLUENCY[:1]), "scores: needs at least 2 experiments (rows), got 1"),
        (lambda: as_score_matrix([[3.71], [3.12]]), "scores: needs at least 2 systems (columns), got 1"),
        (lambda: as_score_matrix(QRAPP_FLUENCY[0]), "scores: expected a 2-D array (rows = experiments"),
        (lambda: as_score_matrix([[3.71, math.inf], [3.12, 2.57]]), "scores: contains an infinite value"),
        (lambda: replacement("0"), "replace_undefined_by: must be a number or nan, got '0'"),
        (lambda: replacement(True), "replace_undefined_by: must be a number or nan, got True"),
        (lambda: unit_weights(np.ones((2, 3)), 7), "weights: expected shape (B, 7), got (2, 3)"),
    ],
)
def test_malformed_input_is_refused_naming_the_argument(action, message):
    with pytest.raises(QRAInputError) as caught:
        action()
    assert message in str(caught.value)


def test_the_undefined_rule_tests_structure_in_its_order():
    assert undefined_reason("kappa", pairs=0, categories_used=1) == (
        "kappa is undefined: no item has labels from two raters"
    )  # the first condition that holds wins
    assert undefined_reason("W", count=(1, 2, "system scored in every experiment")) == (
        "W is undefined: only 1 system scored in every experiment"
    )
    assert undefined_reason("AC1", scale_size=1) == (
        "AC1 is undefined: only one category; pass `categories` to give the scale"
    )
    assert undefined_reason("r", constant="the original's scores") == (
        "r is undefined: all values of the original's scores are equal"
    )
    assert undefined_reason("kappa", pairs=10, categories_used=2) == ""


def test_a_mean_that_cancels_is_zero_to_the_precision_of_the_input():
    """The torc weighings less their mean average to a few ulps, not 0: that is the structural
    zero rounding hides (CANCELLATION_RTOL, 16 eps of the largest input); a mean of 1e-10 of the
    inputs is a real, if tiny, mean."""
    centred = np.array(TORC) - np.mean(TORC)
    assert np.mean(centred) != 0.0
    assert "the mean of the (shifted) values is 0" in undefined_reason("CV*", mean=np.mean(centred), magnitude=92.0)
    assert undefined_reason("CV*", mean=92.0 * 1e-10, magnitude=92.0) == ""
    assert CANCELLATION_RTOL == 16 * np.finfo(float).eps


def test_the_batch_reasons_are_the_scalar_reasons_replicate_by_replicate():
    pairs = np.array([0, 7, 7, 7])
    used = np.array([2, 1, 2, 2])
    constant = (np.array([False, False, True, False]), "the repeat's scores")
    batch = undefined_reasons("kappa", 4, pairs=pairs, categories_used=used, constant=constant)
    scalar = [
        undefined_reason("kappa", pairs=int(p), categories_used=int(u), constant=constant[1] if c else None)
        for p, u, c in zip(pairs, used, constant[0])
    ]
    assert batch.tolist() == scalar
    assert scalar[-1] == "" and all(scalar[:3])


def test_a_batch_gives_nan_where_it_has_a_reason_and_one_value_through_the_rule():
    batch = Batch(np.array([0.43, 0.5]), np.array(["", "kappa is undefined: no item"], dtype=object))
    assert batch.values[0] == 0.43 and math.isnan(batch.values[1])
    assert Batch(np.array([0.43]), np.array([""], dtype=object)).one(math.nan) == 0.43
    with pytest.warns(UndefinedMeasureWarning, match="no item"):
        assert Batch(np.array([0.43]), np.array(["kappa is undefined: no item"], dtype=object)).one(0.0) == 0.0


def test_rescaling_by_a_power_of_two_is_exact():
    """The torc weighings at 2**1000 grams or 2**-1000 grams: the same scaled values, exactly."""
    plain, unit = rescaled(np.array(TORC))
    assert unit == 128.0 and (plain * unit).tolist() == TORC
    for power in (1000, -1000):
        scaled, scaled_unit = rescaled(np.ldexp(TORC, power))
        assert scaled.tolist() == plain.tolist() and scaled_unit == math.ldexp(unit, power)
    zeros, one = rescaled(np.zeros(3))
    assert one == 1.0 and zeros.tolist() == [0.0, 0.0, 0.0]


def test_unit_weights_default_to_one_row_of_ones():
    assert unit_weights(None, 7).tolist() == [[1.0] * 7]
    assert unit_weights([1, 0, 2], 3).tolist() == [[1.0, 0.0, 2.0]]
