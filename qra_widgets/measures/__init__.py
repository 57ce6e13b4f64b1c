"""Reproducibility measures for the four QRA++ result types: pure numpy/scipy functions.

Orientation everywhere: a 2-D ``scores`` or ``labels`` array has rows = comparable
experiments and columns = systems (scores) or items (labels); NaN marks a missing value.
Each experiment counts as one "rater" (QRA++ section 6.3).

==========  ==============================================================  ===========
result      measure                                                         n
==========  ==============================================================  ===========
Type I      :func:`cv_star`                                                 any
Type II     :func:`pearson_r`, :func:`spearman_rho`, :func:`kendall_tau`    2
            :func:`mean_pairwise_r`, :func:`mean_pairwise_rho`,             > 2
            :func:`mean_pairwise_tau`, :func:`kendall_w`
Type III    :func:`cohen_kappa`, :func:`percent_agreement`,                 2
            :func:`adjacent_agreement`
            :func:`fleiss_kappa`, :func:`krippendorff_alpha`,               any
            :func:`gwet_ac` (AC1/AC2), :func:`brennan_prediger`
Type IV     :func:`rank_agreement` (P)                                      any
==========  ==============================================================  ===========

Interval- and ratio-level ratings within one experiment: the intraclass correlations
`qra_widgets.icc` (Shrout & Fleiss 1979; McGraw & Wong 1996).

The agreement coefficients also measure annotator agreement *within* one experiment:
pass its raters as the rows of ``labels`` (or a :class:`CategoryCounts`).  Options are
keyword-only everywhere.

Missing labels, one rule for every agreement coefficient (as irrCAC): observed agreement
is over the items labelled at least twice; chance agreement uses every label given,
including items only one rater labelled.  Krippendorff's alpha, by its definition, uses
pairable values only.

Malformed input raises :class:`~qra_widgets.QRAInputError`; a measure that is undefined
for well-formed input returns ``replace_undefined_by`` (``nan``) and warns
:class:`~qra_widgets.UndefinedMeasureWarning` with the reason.
"""

from ._validation import Batch
from .agreement import (
    CategoryCounts,
    adjacent_agreement,
    agreement_batch,
    agreement_weights,
    brennan_prediger,
    category_counts,
    cohen_kappa,
    cohen_kappa_batch,
    coincidences,
    encode,
    encode_values,
    fleiss_kappa,
    gwet_ac,
    krippendorff_alpha,
    percent_agreement,
)
from .correlation import (
    PairwiseMean,
    average_ranks,
    correlation_pvalue,
    kendall_tau,
    kendall_w,
    kendall_w_batch,
    kendall_w_pvalue,
    kendall_w_test,
    mean_pairwise,
    mean_pairwise_batch,
    mean_pairwise_r,
    mean_pairwise_rho,
    mean_pairwise_tau,
    pearson_batch,
    pearson_r,
    spearman_batch,
    spearman_rho,
    tau_b_batch,
)
from .icc import icc_matrix
from .precision import CVStar, c4, cv_star, cv_star_batch, pair_cv_star, sd_standard_error
from .ranking import RankCounts, rank_agreement, rank_counts, rank_counts_batch, sign_counts

__all__ = [
    "Batch",
    "CVStar",
    "CategoryCounts",
    "PairwiseMean",
    "RankCounts",
    "adjacent_agreement",
    "agreement_batch",
    "agreement_weights",
    "average_ranks",
    "brennan_prediger",
    "c4",
    "category_counts",
    "cohen_kappa",
    "cohen_kappa_batch",
    "coincidences",
    "correlation_pvalue",
    "cv_star",
    "cv_star_batch",
    "encode",
    "encode_values",
    "fleiss_kappa",
    "gwet_ac",
    "icc_matrix",
    "kendall_tau",
    "kendall_w",
    "kendall_w_batch",
    "kendall_w_pvalue",
    "kendall_w_test",
    "krippendorff_alpha",
    "mean_pairwise",
    "mean_pairwise_batch",
    "mean_pairwise_r",
    "mean_pairwise_rho",
    "mean_pairwise_tau",
    "pair_cv_star",
    "pearson_batch",
    "pearson_r",
    "percent_agreement",
    "rank_agreement",
    "rank_counts",
    "rank_counts_batch",
    "sd_standard_error",
    "sign_counts",
    "spearman_batch",
    "spearman_rho",
    "tau_b_batch",
]
