"""Boundary checks shared by the measures: each names the argument and the problem."""

from __future__ import annotations

import numpy as np

from ..errors import QRAInputError


def _to_float_array(values, name: str) -> np.ndarray:
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        flat = np.asarray(values, dtype=object).ravel()
        for position, item in enumerate(flat):
            try:
                float(item)
            except (TypeError, ValueError):
                raise QRAInputError(
                    f"{name}: value {item!r} at position {position} is not a number"
                ) from None
        raise QRAInputError(f"{name}: cannot be read as numbers") from None


def as_values(values, name: str = "values", min_len: int = 2) -> np.ndarray:
    """A 1-D array of finite numbers with at least ``min_len`` entries.

    >>> as_values([1, 2.5])
    array([1. , 2.5])
    >>> as_values([1.0])
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: values: needs at least 2 values, got 1
    """
    array = _to_float_array(values, name)
    if array.ndim != 1:
        raise QRAInputError(f"{name}: expected a 1-D sequence, got shape {array.shape}")
    if array.size < min_len:
        raise QRAInputError(f"{name}: needs at least {min_len} values, got {array.size}")
    bad = ~np.isfinite(array)
    if bad.any():
        position = int(np.flatnonzero(bad)[0])
        raise QRAInputError(f"{name}: value at position {position} is {array[position]}, not a finite number")
    return array


def as_pair(x, y, names: tuple[str, str] = ("x", "y"), min_len: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Two 1-D finite arrays of equal length."""
    a, b = as_values(x, names[0], min_len), as_values(y, names[1], min_len)
    if a.size != b.size:
        raise QRAInputError(f"{names[0]} and {names[1]}: lengths differ ({a.size} vs {b.size})")
    return a, b


def as_score_matrix(scores, name: str = "scores", min_rows: int = 2, min_cols: int = 2) -> np.ndarray:
    """A 2-D float array, rows = experiments, columns = systems; NaN marks a missing score."""
    array = _to_float_array(scores, name)
    if array.ndim != 2:
        raise QRAInputError(
            f"{name}: expected a 2-D array (rows = experiments, columns = systems), got shape {array.shape}"
        )
    if array.shape[0] < min_rows:
        raise QRAInputError(f"{name}: needs at least {min_rows} experiments (rows), got {array.shape[0]}")
    if array.shape[1] < min_cols:
        raise QRAInputError(f"{name}: needs at least {min_cols} systems (columns), got {array.shape[1]}")
    if np.isinf(array).any():
        raise QRAInputError(f"{name}: contains an infinite value")
    return array
