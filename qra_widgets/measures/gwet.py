"""Agreement on the label scale: percent and adjacent agreement of two experiments, and the
coefficients whose chance agreement depends on the scale, Gwet's AC1/AC2 and Brennan-Prediger
(Gwet 2014), for any number of raters.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..errors import QRAInputError, undefined
from ._validation import replacement, undefined_reason
from .agreement_counts import (
    NAN,
    CategoryCounts,
    _check_weights,
    _two_raters,
    category_counts,
    pair_counts,
)
from .batch_agreement import agreement_batch


def percent_agreement(a: npt.ArrayLike, b: npt.ArrayLike, *, replace_undefined_by: float = NAN) -> float:
    """Share of items given the same label by both experiments.

    .. math:: P_a = \\frac{1}{n'} \\sum_i [a_i = b_i]

    over the n' items labelled by both (the missing-label rule: agreement is counted over
    items labelled at least twice).  Yannakoudakis & Cummins (2015) section 3.2.

    Parameters
    ----------
    a, b : array_like
        Label i of each is for item i; NaN, None or "" is a missing label.
    replace_undefined_by : float, keyword-only
        Returned when no item has both labels (default ``nan``).

    Returns
    -------
    float
        P_a in [0, 1].

    References
    ----------
    Yannakoudakis, H., & Cummins, R. (2015). Evaluating the performance of Automated Text
    Scoring systems. BEA 2015, 213-223. https://doi.org/10.3115/v1/W15-0625

    Examples
    --------
    >>> percent_agreement([1, 2, 3, 4], [1, 2, 3, 3])
    0.75
    """
    replace_undefined_by = replacement(replace_undefined_by)
    counts = pair_counts(a, b)
    reason = undefined_reason("percent agreement", pairs=counts.paired)
    if reason:
        return undefined(reason, replace_undefined_by)
    return float(np.trace(counts.table) / counts.paired)


def adjacent_agreement(
    a: npt.ArrayLike, b: npt.ArrayLike, *, tolerance: float = 1, replace_undefined_by: float = NAN
) -> float:
    """Share of items whose two numeric labels are at most ``tolerance`` points apart.

    .. math:: P_{adj} = \\frac{1}{n'} \\sum_i [|a_i - b_i| \\le t]

    over the n' items labelled by both.  Yannakoudakis & Cummins (2015) section 3.2 ("no
    more than n points apart"); the distance is in label units, so labels must be numbers.

    Parameters
    ----------
    a, b : array_like of float
        Label i of each is for item i; NaN or None is a missing label.
    tolerance : float, keyword-only
        Largest distance that still counts as agreement (default 1).
    replace_undefined_by : float, keyword-only
        Returned when no item has both labels (default ``nan``).

    Returns
    -------
    float
        The share in [0, 1].

    References
    ----------
    Yannakoudakis, H., & Cummins, R. (2015). Evaluating the performance of Automated Text
    Scoring systems. BEA 2015, 213-223. https://doi.org/10.3115/v1/W15-0625

    Examples
    --------
    >>> adjacent_agreement([1, 2, 3, 5], [2, 2, 1, 4])
    0.75
    """
    replace_undefined_by = replacement(replace_undefined_by)
    if (
        not isinstance(tolerance, (int, float, np.integer, np.floating))
        or isinstance(tolerance, bool)
        or not np.isfinite(tolerance)
        or tolerance < 0
    ):
        raise QRAInputError(f"tolerance: must be a finite number >= 0, got {tolerance!r}")
    counts = pair_counts(a, b)
    if counts.categories.dtype.kind != "f":
        raise QRAInputError("a and b: adjacent agreement needs numeric labels")
    reason = undefined_reason("adjacent agreement", pairs=counts.paired)
    if reason:
        return undefined(reason, replace_undefined_by)
    close = np.abs(np.subtract.outer(counts.categories, counts.categories)) <= tolerance
    return float((close * counts.table).sum() / counts.paired)


def _scale_coefficient(a, b, weights, categories, measure: str, replace_undefined_by) -> float:
    """AC or BP through :func:`agreement_batch` (two raters' labels become a two-row matrix)."""
    replace_undefined_by = replacement(replace_undefined_by)
    _check_weights(weights)
    cc = category_counts(a if b is None else _two_raters(a, b), categories=categories)
    return agreement_batch(cc, None, measures=(measure,), weights=weights)[measure].one(replace_undefined_by)


def gwet_ac(
    a: npt.ArrayLike | CategoryCounts,
    b: npt.ArrayLike | None = None,
    /,
    *,
    weights: str | None = None,
    categories: npt.ArrayLike | None = None,
    replace_undefined_by: float = NAN,
) -> float:
    r"""Gwet's agreement coefficient for any number of raters: AC1 (``weights=None``) or AC2.

    .. math:: AC = \frac{P_a - P_e}{1 - P_e},\quad
        P_a = \frac{1}{n'} \sum_{u: m_u \ge 2} \sum_k \frac{n_{uk} (n^*_{uk} - 1)}{m_u (m_u - 1)},\quad
        P_e = \frac{T_w}{q(q-1)} \sum_{k=1}^{q} \pi_k (1 - \pi_k)

    with n_uk the raters who gave item u category k, m_u its labels, n*_uk = sum_l w_kl n_ul,
    T_w the sum of the agreement weights (T_w = q unweighted) and q the number of
    categories; Gwet (2008; 2014 chapter 4).  For two raters without missing labels this is
    Yannakoudakis & Cummins (2015) eqs. 2-3.  Equals irrCAC's ``CAC(...).gwet()``.

    Call it as ``f(a, b)`` for two experiments (label i of each is for item i) or as
    ``f(labels)`` for any number: a 2-D array with rows = raters (experiments, or the
    annotators of one experiment) and columns = items, or a :class:`CategoryCounts`
    (units x categories, e.g. from :func:`category_counts`).  NaN, None or "" is a missing
    label.  The two forms give the same value for the same labels.

    Missing labels (the rule shared by every agreement coefficient here, as irrCAC):
    P_a is the mean over items labelled at least twice of the weighted share of agreeing
    rater pairs; pi_k averages each item's share of labels in category k over *all* items
    with a label, including items only one rater labelled (Gwet 2014, section 4.1).

    Parameters
    ----------
    a : array_like or CategoryCounts, positional-only
        The first rater's labels (with ``b``), or the whole reliability data.
    b : array_like, optional, positional-only
        The second rater's labels.
    weights : {None, "linear", "quadratic"}, keyword-only
        Agreement weights over positions on the scale (:func:`agreement_weights`).
    categories : array_like, optional, keyword-only
        The ordered scale; q counts every category on it, used or not (which changes AC
        and BP; Yannakoudakis & Cummins 2015, footnote 8).  Default: the labels used.
    replace_undefined_by : float, keyword-only
        Returned when the coefficient is undefined (default ``nan``): no item is labelled
        twice, or the scale has one category.

    Returns
    -------
    float
        The coefficient, at most 1.

    References
    ----------
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence
    of high agreement. British Journal of Mathematical and Statistical Psychology, 61(1),
    29-48. https://doi.org/10.1348/000711006X126600

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.
    ISBN 978-0970806284.

    Yannakoudakis, H., & Cummins, R. (2015). Evaluating the performance of Automated Text
    Scoring systems. BEA 2015, 213-223. https://doi.org/10.3115/v1/W15-0625

    Examples
    --------
    Yannakoudakis & Cummins Table 1 (right): AC = 0.67.

    >>> gold = ["P"] * 80 + ["F"] * 20
    >>> ats = ["P"] * 64 + ["F"] * 16 + ["P"] * 4 + ["F"] * 16
    >>> round(gwet_ac(ats, gold), 2), round(gwet_ac([ats, gold]), 2)
    (0.67, 0.67)
    """
    return _scale_coefficient(a, b, weights, categories, "ac1", replace_undefined_by)


def brennan_prediger(
    a: npt.ArrayLike | CategoryCounts,
    b: npt.ArrayLike | None = None,
    /,
    *,
    weights: str | None = None,
    categories: npt.ArrayLike | None = None,
    replace_undefined_by: float = NAN,
) -> float:
    r"""Brennan-Prediger coefficient for any number of raters: chance agreement from the scale alone.

    .. math:: BP = \frac{P_a - P_e}{1 - P_e},\quad P_e = \frac{T_w}{q^2}

    with P_a as in :func:`gwet_ac` (P_e = 1/q unweighted; Brennan & Prediger 1981;
    Yannakoudakis & Cummins 2015 section 3.2.3; Gwet 2014 for the weighted, multi-rater
    form).  Give ``categories`` so that q counts the whole scale, not only the labels used.
    Equals irrCAC's ``CAC(...).bp()``.

    Call it as ``f(a, b)`` for two experiments (label i of each is for item i) or as
    ``f(labels)`` for any number: a 2-D array with rows = raters (experiments, or the
    annotators of one experiment) and columns = items, or a :class:`CategoryCounts`
    (units x categories, e.g. from :func:`category_counts`).  NaN, None or "" is a missing
    label.  The two forms give the same value for the same labels.

    Missing labels (the rule shared by every agreement coefficient here, as irrCAC):
    P_a is the mean over items labelled at least twice of the weighted share of agreeing
    rater pairs; pi_k averages each item's share of labels in category k over *all* items
    with a label, including items only one rater labelled (Gwet 2014, section 4.1).

    Parameters
    ----------
    a : array_like or CategoryCounts, positional-only
        The first rater's labels (with ``b``), or the whole reliability data.
    b : array_like, optional, positional-only
        The second rater's labels.
    weights : {None, "linear", "quadratic"}, keyword-only
        Agreement weights over positions on the scale (:func:`agreement_weights`).
    categories : array_like, optional, keyword-only
        The ordered scale; q counts every category on it, used or not (which changes AC
        and BP; Yannakoudakis & Cummins 2015, footnote 8).  Default: the labels used.
    replace_undefined_by : float, keyword-only
        Returned when the coefficient is undefined (default ``nan``): no item is labelled
        twice, or the scale has one category.

    Returns
    -------
    float
        The coefficient, at most 1.

    References
    ----------
    Brennan, R. L., & Prediger, D. J. (1981). Coefficient kappa: Some uses, misuses, and
    alternatives. Educational and Psychological Measurement, 41(3), 687-699.
    https://doi.org/10.1177/001316448104100307

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.
    ISBN 978-0970806284.

    Yannakoudakis, H., & Cummins, R. (2015). Evaluating the performance of Automated Text
    Scoring systems. BEA 2015, 213-223. https://doi.org/10.3115/v1/W15-0625

    Examples
    --------
    >>> gold = ["P"] * 80 + ["F"] * 20
    >>> ats = ["P"] * 64 + ["F"] * 16 + ["P"] * 4 + ["F"] * 16
    >>> round(brennan_prediger(ats, gold), 2)
    0.6
    """
    return _scale_coefficient(a, b, weights, categories, "bp", replace_undefined_by)
