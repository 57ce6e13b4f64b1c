"""The two ways qra-widgets tells a caller that something is off.

* :class:`QRAInputError` -- the input is malformed (wrong shape, not a number, a duplicate
  name, a score below the scale minimum...).  It is raised at the boundary, once, and its
  message names the field and the problem.
* :class:`UndefinedMeasureWarning` -- the input is well formed but a measure is undefined
  for it (a 0/0: no variation, a mean of 0 after shifting).  This is **the one rule for
  degenerate input**: the measure returns ``replace_undefined_by`` (``nan`` by default)
  and emits this warning, whose message is the reason.  ``assess()`` records the reason
  next to the ``nan`` in its result frame.  *Whether* a measure is undefined is decided
  by one helper, :func:`qra_widgets.measures._validation.undefined_reason`, by a
  structural test (nothing paired, one category used, a constant score set, too few
  systems), with a relative tolerance only for a mean that cancels to 0 (CV*).
"""

from __future__ import annotations

import contextlib
import math
import numbers
import warnings
from collections import Counter

#: The one ``nan`` of the package: the value of an undefined measure.
NAN = float("nan")


class QRAInputError(ValueError):
    """Malformed input; the message names the field and the problem."""


class ScoreError(QRAInputError):
    """A score that cannot be set: ``key`` is its (criterion, system, experiment), ``reason``
    the problem without the place (an unknown name, below the scale minimum...), so a view can
    show the reason next to the cell and the message can name the experiment as users see it."""

    def __init__(self, message: str, *, key: tuple[str, str, str], reason: str):
        super().__init__(message)
        self.key, self.reason = key, reason


class ScalesNeeded(QRAInputError):
    """A scores table names criteria whose scale nobody gave (a scale is never assumed):
    ``criteria`` are their names, in table order."""

    def __init__(self, message: str, *, criteria: list[str]):
        super().__init__(message)
        self.criteria = list(criteria)


class IdTakenError(QRAInputError):
    """A first save (``StudyLibrary.save(new=True)``) under an id the library already holds;
    nothing was stored.  ``suggestion`` is a free id (``StudyLibrary.free_id``)."""

    def __init__(self, study_id: str, suggestion: str):
        super().__init__(
            f"save: the library already has a study with the id {study_id!r}; save it under another id "
            f"(for example {suggestion!r}) or open the existing study"
        )
        self.study_id, self.suggestion = study_id, suggestion


class UndefinedMeasureWarning(RuntimeWarning):
    """A measure is undefined for well-formed input; the message gives the reason."""


def check_replacement(replace_undefined_by: object) -> float:
    """``replace_undefined_by`` as a float: a real number (``nan`` included), never a bool or text.

    >>> check_replacement(0), check_replacement(float("nan"))
    (0.0, nan)
    >>> check_replacement("0")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: replace_undefined_by: must be a number or nan, got '0'
    """
    if (
        isinstance(replace_undefined_by, bool)
        or not isinstance(replace_undefined_by, numbers.Real)
        or type(replace_undefined_by).__name__ == "bool_"
    ):
        raise QRAInputError(f"replace_undefined_by: must be a number or nan, got {replace_undefined_by!r}")
    return float(replace_undefined_by)


def finite_number(text: str, not_a_number: str, not_finite: str) -> float:
    """``float(text)`` for a number a person typed, or :class:`QRAInputError` with the caller's
    message: ``not_a_number`` when the text is no number, ``not_finite`` for nan or infinity.

    >>> finite_number(" 2.50 ", "no number", "not finite")
    2.5
    >>> finite_number("inf", "--x: 'inf' is not a number", "--x: 'inf' is not a finite number")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: --x: 'inf' is not a finite number
    """
    try:
        value = float(text)
    except ValueError:
        raise QRAInputError(not_a_number) from None
    if not math.isfinite(value):
        raise QRAInputError(not_finite)
    return value


def undefined(reason: str, replace_undefined_by: float = float("nan")) -> float:
    """Warn that a measure is undefined and return its replacement value (checked by
    :func:`check_replacement`).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = undefined("no variation")
    >>> value, str(caught[0].message)
    (nan, 'no variation')
    """
    value = check_replacement(replace_undefined_by)
    warnings.warn(reason, UndefinedMeasureWarning, stacklevel=3)
    return value


def measured(function, *args, **kwargs) -> tuple[float, str]:
    """Run a measure; return its value and, if it was undefined, the reason (the
    :class:`UndefinedMeasureWarning` is recorded, not shown: the reason goes next to the value).

    >>> measured(undefined, "no variation")
    (nan, 'no variation')
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMeasureWarning)
        value = function(*args, **kwargs)
    _show_others(caught)
    return value, "; ".join(str(w.message) for w in caught if issubclass(w.category, UndefinedMeasureWarning))


def _show_others(caught) -> None:
    """Warnings other than :class:`UndefinedMeasureWarning` that a recording caught, shown as they came."""
    for w in caught:
        if not issubclass(w.category, UndefinedMeasureWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


class undefined_summary(contextlib.ContextDecorator):  # lower case: used as a decorator, like contextlib's
    """One :class:`UndefinedMeasureWarning` per library call, however many values it finds undefined:
    inside, each warning is collected (the values keep their reasons in the result's ``note``), and on
    the way out one warning says how many, with each distinct reason and its count.  A loop over
    1,000 score-only studies calling :func:`qra_widgets.forest` warns once per call, not once per system.

    >>> import warnings
    >>> @undefined_summary("forest")
    ... def three():
    ...     return [undefined("pooling is undefined: only 0 experiments") for _ in range(3)]
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = three()
    >>> [str(w.message) for w in caught]
    ['forest: 3 values are undefined: pooling is undefined: only 0 experiments (3 times)']
    """

    def __init__(self, what: str):
        self.what = what

    def __enter__(self):
        self._recording = warnings.catch_warnings(record=True)
        self._caught = self._recording.__enter__()
        warnings.simplefilter("always", UndefinedMeasureWarning)
        return self

    def __exit__(self, *exc) -> bool:
        self._recording.__exit__(*exc)
        _show_others(self._caught)
        reasons = Counter(str(w.message) for w in self._caught if issubclass(w.category, UndefinedMeasureWarning))
        total = sum(reasons.values())
        if total and exc[0] is None:
            listed = "; ".join(reason + (f" ({count} times)" if count > 1 else "") for reason, count in reasons.items())
            noun = "value is" if total == 1 else "values are"
            warnings.warn(f"{self.what}: {total} {noun} undefined: {listed}", UndefinedMeasureWarning, stacklevel=3)
        return False
