"""Boundary checks shared by the measures: each names the argument and the problem."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..errors import QRAInputError, check_replacement


def _to_float_array(values, name: str) -> np.ndarray:
    """``values`` as floats; text is refused, even text that reads as a number (``"1.5"``):
    a number given as text is a reading error upstream, not a value to convert silently."""
    try:
        array = values if isinstance(values, np.ndarray) else np.asarray(values)
    except (TypeError, ValueError):  # ragged nesting
        array = np.asarray(values, dtype=object) if not isinstance(values, (str, bytes)) else np.asarray([values])
    if array.dtype.kind in "biuf":
        return array.astype(float, copy=False)
    source = values if array.dtype.kind in "US" and not isinstance(values, np.ndarray) else array
    try:
        flat = np.asarray(source, dtype=object).ravel()
    except (TypeError, ValueError):
        flat = np.asarray(array, dtype=object).ravel()
    for position, item in enumerate(flat):
        if item is None:  # None marks a missing value, as NaN does
            continue
        if isinstance(item, (str, bytes, np.str_, np.bytes_)):
            raise QRAInputError(
                f"{name}: value {str(item)[:40]!r} at position {position} is not a number (it is text; give numbers as numbers)"
            )
        try:
            float(item)
        except (TypeError, ValueError):
            raise QRAInputError(f"{name}: value {str(item)[:40]!r} at position {position} is not a number") from None
    try:
        return np.asarray(array, dtype=float)
    except (TypeError, ValueError):
        raise QRAInputError(f"{name}: cannot be read as numbers") from None


def as_values(values: npt.ArrayLike, name: str = "values", min_len: int = 2) -> np.ndarray:
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


def as_pair(
    x: npt.ArrayLike, y: npt.ArrayLike, names: tuple[str, str] = ("x", "y"), min_len: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """Two 1-D finite arrays of equal length."""
    a, b = as_values(x, names[0], min_len), as_values(y, names[1], min_len)
    if a.size != b.size:
        raise QRAInputError(f"{names[0]} and {names[1]}: lengths differ ({a.size} vs {b.size})")
    return a, b


def as_score_matrix(scores: npt.ArrayLike, name: str = "scores", min_rows: int = 2, min_cols: int = 2) -> np.ndarray:
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


# ----------------------------------------------------------------------------- the one undefined rule

#: Relative tolerance for the one test that needs it: a mean that is 0 up to the rounding of
#: the inputs (CV*).  Each input carries a relative rounding error of eps/2, shifting by
#: ``scale_min`` adds another, and summing n of them adds n eps/2 at most; 16 eps covers
#: the sums of the sizes CV* is used on while staying far below any real mean.
CANCELLATION_RTOL = 16 * float(np.finfo(float).eps)


def replacement(replace_undefined_by) -> float:
    """Check ``replace_undefined_by`` at a measure's entry, before anything is computed
    (:func:`qra_widgets.errors.check_replacement`: a real number or nan, else QRAInputError).

    >>> replacement(0), replacement(float("nan"))
    (0.0, nan)
    >>> replacement(None)
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: replace_undefined_by: must be a number or nan, got None
    """
    return check_replacement(replace_undefined_by)


def undefined_reason(
    measure: str,
    *,
    pairs: int | None = None,
    pairs_of: str = "item has labels from two raters",
    count: tuple[int, int, str] | None = None,
    categories_used: int | None = None,
    one_category: str = "so chance agreement is 1",
    scale_size: int | None = None,
    constant: str | None = None,
    mean: float | None = None,
    magnitude: float | None = None,
) -> str:
    """The one rule that decides whether a measure is undefined; returns the reason, or "".

    Every measure calls this helper, and it tests *structure*, never a computed value
    against a fixed tolerance:

    * ``pairs == 0``: nothing to compare (no item labelled by two raters, no system pair
      scored in two experiments) -- a 0/0 by construction;
    * ``count = (found, needed, what)`` with ``found < needed``: too few of something to
      rank or correlate (e.g. Kendall's W on fewer than 2 systems);
    * ``scale_size < 2``: a chance-corrected coefficient whose chance term comes from the
      scale (Gwet's AC, Brennan-Prediger) has a one-category scale;
    * ``categories_used < 2``: every label is in one category, so chance agreement (kappa)
      or expected disagreement (alpha) is exactly 1 / 0;
    * ``constant``: a score set whose values are all equal (zero spread, so a correlation's
      denominator is 0);
    * ``mean`` / ``magnitude``: the one place where rounding can hide a structural zero.
      A mean of values that cancel (CV* after shifting) is 0 to the precision of the
      inputs when ``|mean| <= CANCELLATION_RTOL * magnitude``, ``magnitude`` being the
      largest absolute input (or scale minimum) that went into it.

    >>> undefined_reason("kappa", pairs=10, categories_used=1)
    'kappa is undefined: only one category is used, so chance agreement is 1'
    >>> undefined_reason("CV*", mean=5.5e-17, magnitude=1.1)
    'CV* is undefined: the mean of the (shifted) values is 0 (to the precision of the input)'
    >>> undefined_reason("CV*", mean=1e-300, magnitude=3e-300)
    ''
    """
    if pairs is not None and pairs == 0:
        return f"{measure} is undefined: no {pairs_of}"
    if count is not None and count[0] < count[1]:
        return f"{measure} is undefined: only {count[0]} {count[2]}"
    if scale_size is not None and scale_size < 2:
        return f"{measure} is undefined: only one category; pass `categories` to give the scale"
    if categories_used is not None and categories_used < 2:
        return f"{measure} is undefined: only one category is used, {one_category}"
    if constant is not None:
        return f"{measure} is undefined: all values of {constant} are equal"
    if mean is not None and (mean == 0 or abs(mean) <= CANCELLATION_RTOL * float(magnitude or 0.0)):
        return f"{measure} is undefined: the mean of the (shifted) values is 0 (to the precision of the input)"
    return ""


def rescaled(values: np.ndarray) -> tuple[np.ndarray, float]:
    """``values / 2**k`` with ``2**k`` near the largest absolute value, and ``2**k``.

    Dividing by a power of two is exact, so statistics that do not depend on scale
    (CV*, correlations) neither overflow near 1e300 nor underflow near 1e-300, and give
    bit-for-bit the value of the unscaled data when nothing over- or underflows.

    >>> scaled, unit = rescaled(np.array([3e200, -1e200]))
    >>> scaled.round(3).tolist(), unit == 2.0**666
    ([0.98, -0.327], True)
    """
    largest = float(np.max(np.abs(values))) if values.size else 0.0
    if largest == 0 or not np.isfinite(largest):
        return values, 1.0
    exponent = min(math.frexp(largest)[1], 1023)  # 2**1024 is beyond the float range
    return np.ldexp(values, -exponent), math.ldexp(1.0, exponent)


# ----------------------------------------------------------------------------- batch forms


class Batch:
    """A measure over a stack of replicates: ``values`` (B,) and ``reasons`` (B,), the reason
    text of :func:`undefined_reason` where the measure is undefined (value ``nan``), else "".

    Every measure's batch form returns one; its scalar form is the batch form on one row
    (all weights 1), so ``assess()`` and the bootstrap share one implementation.
    """

    __slots__ = ("reasons", "values")

    def __init__(self, values: np.ndarray, reasons: np.ndarray):
        self.values = np.where(reasons != "", np.nan, values) if reasons.size else values
        self.reasons = reasons

    def one(self, replace_undefined_by: float):
        """The single value of a one-row batch, through the one undefined rule (warns, replaces)."""
        from ..errors import undefined

        reason = str(self.reasons[0])
        return undefined(reason, replace_undefined_by) if reason else float(self.values[0])

    def __repr__(self) -> str:
        return f"Batch(values={self.values!r}, reasons={self.reasons!r})"


def undefined_reasons(
    measure: str,
    size: int,
    *,
    pairs=None,
    pairs_of: str = "item has labels from two raters",
    count=None,
    categories_used=None,
    one_category: str = "so chance agreement is 1",
    scale_size: int | None = None,
    constant=None,
    mean=None,
    magnitude=None,
) -> np.ndarray:
    """:func:`undefined_reason` for ``size`` replicates at once: an object array of reasons.

    Each argument is an array over the replicates (or a scalar for all); the texts come from
    :func:`undefined_reason` itself, and the first condition that holds wins, in its order.
    ``count`` is ``(found array, needed, what)``; ``constant`` is ``(mask, what)``.

    >>> undefined_reasons("kappa", 3, pairs=np.array([0, 4, 4]), categories_used=np.array([2, 1, 2])).tolist()
    ['kappa is undefined: no item has labels from two raters', 'kappa is undefined: only one category is used, so chance agreement is 1', '']
    """
    reasons = np.full(size, "", dtype=object)
    open_ = np.ones(size, dtype=bool)

    def fill(mask, text):
        nonlocal open_
        mask = np.broadcast_to(np.asarray(mask, dtype=bool), (size,)) & open_
        reasons[mask] = text
        open_ = open_ & ~mask

    if pairs is not None:
        fill(np.asarray(pairs) == 0, undefined_reason(measure, pairs=0, pairs_of=pairs_of))
    if count is not None:
        found = np.broadcast_to(np.asarray(count[0]), (size,))
        for value in np.unique(found[found < count[1]]):
            fill(found == value, undefined_reason(measure, count=(int(value), count[1], count[2])))
    if scale_size is not None and scale_size < 2:
        fill(True, undefined_reason(measure, scale_size=scale_size))
    if categories_used is not None:
        fill(np.asarray(categories_used) < 2, undefined_reason(measure, categories_used=1, one_category=one_category))
    if constant is not None:
        fill(constant[0], undefined_reason(measure, constant=constant[1]))
    if mean is not None:
        mean = np.asarray(mean, dtype=float)
        zero = (mean == 0) | (np.abs(mean) <= CANCELLATION_RTOL * np.asarray(magnitude, dtype=float))
        fill(zero, undefined_reason(measure, mean=0.0))
    return reasons


def unit_weights(weights, units: int) -> np.ndarray:
    """``weights`` as a (B, units) float array; ``None`` is one row of ones (the estimate)."""
    if weights is None:
        return np.ones((1, units))
    array = np.asarray(weights, dtype=float)
    if array.ndim == 1:
        array = array[None]
    if array.ndim != 2 or array.shape[1] != units:
        raise QRAInputError(f"weights: expected shape (B, {units}), got {array.shape}")
    return array
