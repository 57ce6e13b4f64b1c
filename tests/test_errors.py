"""The one undefined-value rule and its one warning helper (qra_widgets/errors.py): a value that is
undefined is nan with its reason, and a library call that finds many undefined values warns once,
with a count, not once per value."""

from __future__ import annotations

import math
import warnings

import pytest

import qra_widgets as qw
from qra_widgets import errors


def test_one_nan_for_the_package():
    from qra_widgets import intervals, planning, planning_pairwise, uncertainty
    from qra_widgets.measures import agreement_counts, ranking

    assert math.isnan(errors.NAN)
    assert all(
        module.NAN is errors.NAN for module in (intervals, planning, planning_pairwise, ranking, agreement_counts)
    )
    assert not hasattr(uncertainty, "NAN") or uncertainty.NAN is errors.NAN


def test_measured_gives_the_value_and_the_reason_and_shows_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value, reason = errors.measured(errors.undefined, "no variation")
        assert math.isnan(value) and reason == "no variation"
        assert errors.measured(abs, -2) == (2, "")


def test_a_library_loop_over_score_only_studies_warns_once_per_call_with_a_count(qrapp_example1):
    """QRA++ Example 1 has scores only (no standard errors): its forest pools none of its 3 systems.
    Ten studies in a loop gave 30 warnings, one per system; now one per call, saying 3."""
    result = qw.assess(qrapp_example1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frames = [qw.forest(result, quality_criterion="Fluency") for _ in range(10)]
    undefined = [w for w in caught if issubclass(w.category, qw.UndefinedMeasureWarning)]
    assert len(undefined) == 10
    assert str(undefined[0].message) == (
        "forest: 3 values are undefined: random-effects pooling is undefined: "
        "only 0 experiments with a standard error (3 times)"
    )
    pooled = frames[0][frames[0].row == "pooled"]
    assert len(pooled) == 3 and pooled.value.isna().all()
    assert (pooled.note.str.contains("only 0 experiments with a standard error")).all()  # each keeps its reason


def test_the_summary_lets_errors_through_and_warns_nothing_when_all_is_defined():
    with pytest.raises(ValueError), errors.undefined_summary("x"):
        errors.undefined("lost")
        raise ValueError("boom")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with errors.undefined_summary("x"):
            pass
