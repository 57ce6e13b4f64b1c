"""Krippendorff's alpha for any number of raters, missing labels and four levels of measurement,
from the coincidence matrix of :mod:`qra_widgets.measures.agreement_counts`.
"""

from __future__ import annotations

import numpy.typing as npt

from ..errors import NAN, QRAInputError
from ._validation import replacement
from .agreement_counts import LEVELS, CategoryCounts, category_counts
from .batch_agreement import agreement_batch


def krippendorff_alpha(
    labels: npt.ArrayLike | CategoryCounts,
    *,
    level: str = "nominal",
    categories: npt.ArrayLike | None = None,
    replace_undefined_by: float = NAN,
) -> float:
    r"""Krippendorff's alpha for n >= 2 raters, with missing labels.

    .. math:: \alpha = 1 - \frac{D_o}{D_e}
        = 1 - (n_{\cdot\cdot} - 1)\frac{\sum_{ck} o_{ck}\,\delta^2_{ck}}{\sum_{ck} n_c n_k\,\delta^2_{ck}}

    with o the coincidence matrix (:func:`coincidences`), n_c its marginals and delta^2 the
    metric of ``level``: ``nominal`` (0/1), ``ordinal`` (Krippendorff's
    :math:`(\sum_{g=c}^{k} n_g - (n_c+n_k)/2)^2`), ``interval`` ((c-k)^2) or ``ratio``
    (((c-k)/(c+k))^2).  Krippendorff (2011), "Computing Krippendorff's alpha-reliability";
    QRA++ section 6.3 (alpha for n > 2).

    Missing labels: alpha is defined on *pairable* values only, so items with fewer than
    two labels are left out of both D_o and D_e (Krippendorff 2011; as the ``krippendorff``
    package and irrCAC's ``krippendorff()``).  This is the one exception to the rule that
    chance terms use every label, and it is alpha's definition, not a choice.

    Parameters
    ----------
    labels : array_like or CategoryCounts
        Rows = raters, columns = items; NaN, None or "" is a missing label.  Or precomputed
        :func:`category_counts`.
    level : {"nominal", "ordinal", "interval", "ratio"}, keyword-only
        Level of measurement, which picks the metric delta^2.
    categories : array_like, optional, keyword-only
        The ordered scale (matters for ``ordinal``: unused categories in between count).
    replace_undefined_by : float, keyword-only
        Returned when alpha is undefined (default ``nan``): no item labelled twice, or every
        pairable label in one category (no expected disagreement).

    Returns
    -------
    float
        alpha, at most 1.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School
    for Communication, University of Pennsylvania. https://repository.upenn.edu/asc_papers/43

    Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard reliability
    measure for coding data. Communication Methods and Measures, 1(1), 77-89.
    https://doi.org/10.1080/19312450709336664

    Examples
    --------
    Krippendorff's own example (2011, section A), four coders, 12 units:

    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    ...         [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]
    >>> round(krippendorff_alpha(data), 3), round(krippendorff_alpha(data, level="interval"), 3)
    (0.743, 0.849)
    """
    replace_undefined_by = replacement(replace_undefined_by)
    if level not in LEVELS:
        raise QRAInputError(f"level: must be one of {LEVELS}, got {level!r}")
    cc = category_counts(labels, categories=categories)
    if level in ("interval", "ratio") and cc.categories.dtype.kind != "f":
        raise QRAInputError(f"level: {level!r} needs numeric labels")
    return agreement_batch(cc, None, measures=("alpha",), level=level)["alpha"].one(replace_undefined_by)
