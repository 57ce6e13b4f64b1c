"""The two ways qra-widgets tells a caller that something is off.

* :class:`QRAInputError` -- the input is malformed (wrong shape, not a number, a duplicate
  name, a score below the scale minimum...).  It is raised at the boundary, once, and its
  message names the field and the problem.
* :class:`UndefinedMeasureWarning` -- the input is well formed but a measure is undefined
  for it (a 0/0: no variation, a mean of 0 after shifting).  This is **the one rule for
  degenerate input**: the measure returns ``replace_undefined_by`` (``nan`` by default)
  and emits this warning, whose message is the reason.  ``assess()`` records the reason
  next to the ``nan`` in its result frame.
"""

from __future__ import annotations

import warnings


class QRAInputError(ValueError):
    """Malformed input; the message names the field and the problem."""


class UndefinedMeasureWarning(RuntimeWarning):
    """A measure is undefined for well-formed input; the message gives the reason."""


def undefined(reason: str, replace_undefined_by: float = float("nan")) -> float:
    """Warn that a measure is undefined and return its replacement value.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = undefined("no variation")
    >>> value, str(caught[0].message)
    (nan, 'no variation')
    """
    warnings.warn(reason, UndefinedMeasureWarning, stacklevel=3)
    return float(replace_undefined_by)
