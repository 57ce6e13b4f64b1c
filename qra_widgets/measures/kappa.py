"""The kappa family: Cohen's (weighted) kappa for two experiments and Fleiss' kappa for any
number of raters, over the shared count-matrix core (:mod:`qra_widgets.measures.agreement_counts`).
"""

from __future__ import annotations

import numpy.typing as npt

from ._validation import replacement
from .agreement_counts import (
    NAN,
    CategoryCounts,
    _check_weights,
    _counts_of,
    _two_raters,
    encode,
)
from .batch_agreement import agreement_batch, cohen_kappa_batch


def cohen_kappa(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    weights: str | None = None,
    categories: npt.ArrayLike | None = None,
    replace_undefined_by: float = NAN,
) -> float:
    r"""Cohen's kappa (``weights=None``) or weighted kappa (``"linear"``, ``"quadratic"``).

    .. math:: \kappa = \frac{P_a - P_e}{1 - P_e} = 1 - \frac{\sum_{kl} (1-w_{kl})\, p_{kl}}
        {\sum_{kl} (1-w_{kl})\, p_{k\cdot}\, p_{\cdot l}}

    with p_kl the joint proportions of the two experiments' labels and ``p_k.``, ``p_.l`` each
    experiment's label distribution (Cohen 1960, 1968; Yannakoudakis & Cummins 2015 eq. 1;
    QRA++ section 6.3 uses kappa for n = 2).  It is computed in the right-hand form, a
    ratio of two sums of non-negative terms, so chance agreement near 1 (10^6 items, one
    disagreement) loses nothing to cancellation.

    Missing labels (the rule shared by every agreement coefficient here, as irrCAC):
    P_a is over the items both experiments labelled; each experiment's distribution
    ``p_k.``, ``p_.l`` is over *all* the items it labelled (Gwet 2014 section 2.5; irrCAC's
    ``conger()``, which for two raters is Cohen's kappa).  With no missing label this is
    scikit-learn's ``cohen_kappa_score`` exactly.

    Undefined (``replace_undefined_by``) when no item has both labels, or when all labels
    are in one category (chance agreement is then 1 by construction).

    Parameters
    ----------
    a, b : array_like
        Label i of each is for item i; NaN, None or "" is a missing label.
    weights : {None, "linear", "quadratic"}, keyword-only
        Agreement weights over positions on the scale (:func:`agreement_weights`).
    categories : array_like, optional, keyword-only
        The ordered scale; fixes positions for the weights.  Default: the labels used.
    replace_undefined_by : float, keyword-only
        Returned when kappa is undefined (default ``nan``).

    Returns
    -------
    float
        kappa in [-1, 1].

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
    Psychological Measurement, 20(1), 37-46. https://doi.org/10.1177/001316446002000104

    Cohen, J. (1968). Weighted kappa. Psychological Bulletin, 70(4), 213-220.
    https://doi.org/10.1037/h0026256

    Conger, A. J. (1980). Integration and generalization of kappas for multiple raters.
    Psychological Bulletin, 88(2), 322-328. https://doi.org/10.1037/0033-2909.88.2.322

    Yannakoudakis, H., & Cummins, R. (2015). Evaluating the performance of Automated Text
    Scoring systems. BEA 2015, 213-223. https://doi.org/10.3115/v1/W15-0625

    Examples
    --------
    Yannakoudakis & Cummins Table 1 (left), 40/10/10/40 pass-fail counts:

    >>> gold = ["P"] * 50 + ["F"] * 50
    >>> ats = ["P"] * 40 + ["F"] * 10 + ["P"] * 10 + ["F"] * 40
    >>> round(cohen_kappa(ats, gold), 2)
    0.6
    """
    replace_undefined_by = replacement(replace_undefined_by)
    _check_weights(weights)
    codes, found = encode(_two_raters(a, b), categories=categories)
    return cohen_kappa_batch(codes[0], codes[1], found.size, None, weights=weights).one(replace_undefined_by)


# ----------------------------------------------------------------------------- many experiments


def fleiss_kappa(
    labels: npt.ArrayLike | CategoryCounts,
    *,
    weights: str | None = None,
    categories: npt.ArrayLike | None = None,
    layout: str = "raters x items",
    replace_undefined_by: float = NAN,
) -> float:
    r"""Fleiss' kappa for n >= 2 raters, allowing items rated by different numbers.

    .. math:: \kappa = \frac{P_a - P_e}{1 - P_e} = 1 - \frac{1 - P_a}{\sum_{kl} (1-w_{kl})\, \pi_k \pi_l},\quad
        P_e = \sum_{kl} w_{kl}\, \pi_k \pi_l,\quad \pi_k = \frac{1}{U}\sum_u \frac{n_{uk}}{m_u}

    with P_a as in :func:`gwet_ac` (over the items labelled at least twice) and pi over the
    U items with any label (m_u labels each): Gwet (2014)'s generalisation to missing
    labels and weights, as irrCAC's ``CAC(...).fleiss()`` computes it.  With no missing
    labels and no weights this is Fleiss (1971) exactly, as statsmodels computes it.
    Both 1 - P_a and 1 - P_e are sums of non-negative terms, so nothing cancels.
    QRA++ Table 2 (its caption's kappa) and section 6.3.

    Parameters
    ----------
    labels : array_like or CategoryCounts
        Rows = raters (experiments, or one experiment's annotators), columns = items;
        NaN, None or "" is a missing label.  Or precomputed :func:`category_counts`.
    weights : {None, "linear", "quadratic"}, keyword-only
        Agreement weights (:func:`agreement_weights`); ``None`` is Fleiss' kappa.
    categories : array_like, optional, keyword-only
        The ordered scale (positions for the weights).  Default: the labels used.
    layout : {"raters x items", "items x categories"}, keyword-only
        How ``labels`` is laid out.  ``"items x categories"`` reads a count table, cell
        (u, k) = raters who gave item u category k, as :func:`statsmodels.stats.inter_rater.fleiss_kappa`
        and R's ``irr`` take it (``categories`` then names its columns).  With the default, a
        matrix with a count table's signature (more rows than columns, whole numbers >= 0 with
        zeros, every row the same sum) is refused with a :class:`~qra_widgets.QRAInputError`
        rather than read as raters x items.
    replace_undefined_by : float, keyword-only
        Returned when kappa is undefined (default ``nan``): no item labelled twice, or
        every label in one category.

    Returns
    -------
    float
        kappa, at most 1.

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
    Psychological Bulletin, 76(5), 378-382. https://doi.org/10.1037/h0031619

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.
    ISBN 978-0970806284.

    Belz, A. (2025). QRA++: Quantified reproducibility assessment for common types of
    results in natural language processing. https://doi.org/10.48550/arXiv.2412.07940

    Examples
    --------
    >>> round(fleiss_kappa([[1, 1, 2, 2], [1, 1, 2, 1], [1, 2, 2, 1]]), 4)
    0.3143

    The same four items as an items x categories count table (statsmodels' input):

    >>> round(fleiss_kappa([[3, 0], [2, 1], [0, 3], [2, 1]], layout="items x categories"), 4)
    0.3143
    """
    replace_undefined_by = replacement(replace_undefined_by)
    _check_weights(weights)
    cc = _counts_of(labels, categories, layout, "labels")
    return agreement_batch(cc, None, measures=("fleiss_kappa",), weights=weights)["fleiss_kappa"].one(
        replace_undefined_by
    )
