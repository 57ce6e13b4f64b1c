"""Type III results: agreement between label sets -- of comparable experiments, or of the
annotators within one experiment.

One count-matrix core serves every coefficient here, in the manner of the ``krippendorff``
package:

1. :func:`category_counts` turns reliability data (rows = raters: experiments, which act
   as raters in QRA++ section 6.3, or one experiment's annotators; columns = items;
   NaN/None/"" = missing label) into a units x categories matrix ``n[u, c]`` = how many
   raters gave category c to item u.  One ``bincount``, no per-unit Python loop.
2. Every coefficient is a short formula over that matrix: observed disagreement
   :func:`_weighted_disagreement` (Gwet 2014's p_a, as 1 - p_a), the category shares pi
   :func:`_category_shares`, and for Krippendorff's alpha the coincidence matrix
   :func:`coincidences` with a pluggable distance metric.  Fleiss' kappa, Gwet's AC1/AC2
   and Brennan-Prediger take any number of raters.
3. For exactly two raters given as ``f(a, b)`` the same counts collapse to a q x q table
   (:func:`pair_counts`, one ``bincount``, O(q^2) memory instead of O(items x q)), which
   serves Cohen's kappa, percent and adjacent agreement, and the two-rater form of AC and
   BP (the same values as the count matrix).

Weights.  ``weights=None`` is exact agreement; ``"linear"`` and ``"quadratic"`` are the
agreement weights ``1 - |k-l|/(q-1)`` and ``1 - (k-l)^2/(q-1)^2`` of Gwet (2014), where k, l
are *positions* in the ordered category list and q its length (as scikit-learn does for
kappa).  Pass ``categories`` to fix the scale: categories nobody used still count in q,
which matters for BP and AC (Yannakoudakis & Cummins 2015, footnote 8).

Missing labels, one rule for every coefficient (irrCAC's): observed agreement is over the
items labelled at least twice; chance agreement uses every label given, including items
only one rater labelled (each rater's distribution for Cohen's kappa, the shares pi for
Fleiss, AC and BP).  Krippendorff's alpha is defined on pairable values only.

Undefined rule (:func:`~qra_widgets.measures._validation.undefined_reason`): no item
labelled twice, or every label in one category (kappa, alpha), or a one-category scale
(AC, BP) gives ``replace_undefined_by`` with an :class:`~qra_widgets.UndefinedMeasureWarning`.
These are structural tests; kappa and alpha are computed as 1 - D_o/D_e from sums of
non-negative terms, so chance agreement near 1 loses no digits to cancellation.

Where the code lives: the count-matrix core, weights and distances in
:mod:`~qra_widgets.measures.agreement_counts`; the batch forms in
:mod:`~qra_widgets.measures.batch_agreement`; Cohen's and Fleiss' kappa in
:mod:`~qra_widgets.measures.kappa`; percent and adjacent agreement, Gwet's AC and
Brennan-Prediger in :mod:`~qra_widgets.measures.gwet`; Krippendorff's alpha in
:mod:`~qra_widgets.measures.krippendorff`.  This module is their public face.
"""

from .agreement_counts import (
    LAYOUTS,
    LEVELS,
    NAN,
    WEIGHTS,
    CategoryCounts,
    PairCounts,
    agreement_weights,
    category_counts,
    coincidences,
    encode,
    encode_values,
    pair_counts,
)
from .batch_agreement import agreement_batch, cohen_kappa_batch
from .gwet import adjacent_agreement, brennan_prediger, gwet_ac, percent_agreement
from .kappa import cohen_kappa, fleiss_kappa
from .krippendorff import krippendorff_alpha

__all__ = [
    "LAYOUTS",
    "LEVELS",
    "NAN",
    "WEIGHTS",
    "CategoryCounts",
    "PairCounts",
    "adjacent_agreement",
    "agreement_batch",
    "agreement_weights",
    "brennan_prediger",
    "category_counts",
    "cohen_kappa",
    "cohen_kappa_batch",
    "coincidences",
    "encode",
    "encode_values",
    "fleiss_kappa",
    "gwet_ac",
    "krippendorff_alpha",
    "pair_counts",
    "percent_agreement",
]
