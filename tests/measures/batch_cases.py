"""What the batch-form tests share (tests/measures/test_correlation_batch.py, test_batch_agreement.py,
test_precision.py): the scalar measure with its undefined reason, the comparison of the two paths, and
the score and label cases.  Not a test module."""

import warnings

import numpy as np
import pytest

from qra_widgets import UndefinedMeasureWarning


def scalar(function, *args, **kwargs):
    """(value, reason) of a scalar measure: its UndefinedMeasureWarning text is the reason."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMeasureWarning)
        value = function(*args, **kwargs)
    reasons = [str(w.message) for w in caught if issubclass(w.category, UndefinedMeasureWarning)]
    return value, "; ".join(reasons)


def same(batch_value, batch_reason, value, reason, rel=1e-12):
    assert batch_reason == reason
    if reason:
        assert np.isnan(batch_value) and np.isnan(value)
    else:
        assert batch_value == pytest.approx(value, rel=rel, abs=1e-14)


# ordinary, degenerate (no variation / one category / mean 0) and extreme (1e-300, 1e300, ulps) rows
SCORES = [
    np.array([[3.71, 3.2, 2.33, 2.9], [3.12, 2.57, 2.28, 3.0], [3.02, 2.4, 1.81, 2.2]]),  # ordinary
    np.array([[1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0]]),  # every experiment constant
    np.array([[1.0, 2.0, 2.0, 3.0], [1.0, 1.0, 2.0, 2.0], [3.0, 2.0, 1.0, 1.0]]),  # ties
    np.array([[1e-300, 3e-300, 2e-300, 5e-300], [2e-300, 3e-300, 1e-300, 4e-300], [1e-300, 2e-300, 3e-300, 4e-300]]),
    np.array([[1e300, 3e300, 2e300, 5e300], [2e300, 3e300, 1e300, 4e300], [1e300, 2e300, 3e300, 4e300]]),
    1 + np.array([[0, 1, 2, 3], [1, 0, 3, 2], [3, 2, 1, 0]]) * np.finfo(float).eps,  # ulps apart
]


LABELS = [
    np.array([[1, 1, 2, 2, 3], [1, 1, 2, 1, 3], [1, 2, 2, 1, 3]], dtype=float),  # ordinary
    np.array([[2, 2, 2, 2], [2, 2, 2, 2], [2, 2, 2, 2]], dtype=float),  # one category
    np.array([[1, np.nan, 2, np.nan], [np.nan, 1, np.nan, 2], [np.nan, np.nan, np.nan, np.nan]]),  # nothing pairable
    np.array([[0] * 99_999 + [1], [0] * 100_000, [0] * 100_000], dtype=float),  # one label of another category in 10^5
]
