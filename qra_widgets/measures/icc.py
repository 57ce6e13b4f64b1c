"""Intraclass correlation coefficients of items rated by raters (Shrout & Fleiss 1979; McGraw & Wong 1996).

For interval- and ratio-level ratings the agreement among raters is an intraclass correlation:
the share of the ratings' variance that lies between the items.  Six forms, as pingouin's
``intraclass_corr``, R psych's ``ICC`` and SPSS report them (McGraw & Wong's names in brackets):

=======  ====================================================  =============================
ICC1     one-way random, single rater                          ICC(1)
ICC2     two-way random, absolute agreement, single rater      ICC(A,1)
ICC3     two-way mixed, consistency, single rater              ICC(C,1)
ICC1k    one-way random, mean of k raters                      ICC(k)
ICC2k    two-way random, absolute agreement, mean of k raters  ICC(A,k)
ICC3k    two-way mixed, consistency, mean of k raters          ICC(C,k)
=======  ====================================================  =============================

From the two-way ANOVA of an ``n`` items × ``k`` raters matrix (mean squares of items ``MSR``,
raters ``MSC``, residual ``MSE``, within items ``MSW = (SSC + SSE) / (n (k − 1))``)::

    ICC1  = (MSR − MSW) / (MSR + (k − 1) MSW)            ICC1k = (MSR − MSW) / MSR
    ICC2  = (MSR − MSE) / (MSR + (k − 1) MSE + k (MSC − MSE) / n)
    ICC2k = (MSR − MSE) / (MSR + (MSC − MSE) / n)
    ICC3  = (MSR − MSE) / (MSR + (k − 1) MSE)            ICC3k = (MSR − MSE) / MSR

The F test of each against 0 is ``MSR / MSW`` (ICC1, ICC1k; ``n − 1`` and ``n (k − 1)``
degrees of freedom) or ``MSR / MSE`` (the others; ``n − 1`` and ``(n − 1)(k − 1)``).  The
confidence intervals are Shrout & Fleiss's (1979, Table 4 and eqs. for ICC(2,1)) and McGraw &
Wong's (1996, Table 7): exact F intervals for ICC1/ICC3 and their k forms, Satterthwaite's
approximate degrees of freedom for ICC2.  Only items rated by every rater are used (the design
is crossed), as pingouin's ``nan_policy="omit"``.
"""

from __future__ import annotations

import numpy as np

from ..errors import QRAInputError, undefined
from ._validation import undefined_reason

ICC_TYPES = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")
ICC_COLUMNS = ["type", "description", "icc", "F", "df1", "df2", "pval", "ci_low", "ci_high"]
DESCRIPTIONS = {
    "ICC1": "Single raters absolute",
    "ICC2": "Single random raters",
    "ICC3": "Single fixed raters",
    "ICC1k": "Average raters absolute",
    "ICC2k": "Average random raters",
    "ICC3k": "Average fixed raters",
}


def icc_matrix(ratings, *, ci: float = 0.95) -> dict[str, tuple[float, ...]]:
    """The six ICCs of a complete ``n`` items × ``k`` raters array (rows items, columns raters):
    ``{type: (icc, F, df1, df2, pval, ci_low, ci_high)}`` (formulas in the module docstring).

    Shrout & Fleiss (1979), Table 2 (6 targets rated by 4 judges): ICC(1,1) .17, ICC(2,1) .29,
    ICC(3,1) .71, ICC(1,4) .44, ICC(2,4) .62, ICC(3,4) .91.

    >>> table2 = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> found = icc_matrix(table2)
    >>> [round(found[t][0], 2) for t in ICC_TYPES]
    [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]
    """
    from scipy import special

    x = np.asarray(ratings, dtype=float)
    if x.ndim != 2:
        raise QRAInputError(f"ratings: need an items × raters array, got {x.ndim} dimensions")
    if not np.isfinite(x).all():
        raise QRAInputError("ratings: every item must be rated by every rater (drop incomplete items first)")
    n, k = x.shape
    nan = float("nan")
    reason = undefined_reason(
        "the intraclass correlation", count=(n, 2, "items rated by every rater")
    ) or undefined_reason("the intraclass correlation", count=(k, 2, "raters"))
    if not reason and np.ptp(x) == 0:
        reason = undefined_reason("the intraclass correlation", constant="every rating is the same")
    if reason:
        value = undefined(reason)
        return {t: (value, nan, n - 1, nan, nan, nan, nan) for t in ICC_TYPES}
    grand = x.mean()
    ss_rows = k * float(((x.mean(axis=1) - grand) ** 2).sum())
    ss_cols = n * float(((x.mean(axis=0) - grand) ** 2).sum())
    ss_error = float(((x - grand) ** 2).sum()) - ss_rows - ss_cols
    msr, msc = ss_rows / (n - 1), ss_cols / (k - 1)
    mse = ss_error / ((n - 1) * (k - 1))
    msw = (ss_cols + ss_error) / (n * (k - 1))
    df_w, df_e = n * (k - 1), (n - 1) * (k - 1)
    icc1 = (msr - msw) / (msr + (k - 1) * msw)
    icc2 = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
    icc3 = (msr - mse) / (msr + (k - 1) * mse)
    f1, f3 = msr / msw, msr / mse
    p1, p3 = float(special.fdtrc(n - 1, df_w, f1)), float(special.fdtrc(n - 1, df_e, f3))

    def upper(d1, d2):  # the F(d1, d2) quantile with upper tail (1 − ci) / 2
        return float(special.fdtri(d1, d2, 0.5 + ci / 2))

    f1l, f1u = f1 / upper(n - 1, df_w), f1 * upper(df_w, n - 1)
    f3l, f3u = f3 / upper(n - 1, df_e), f3 * upper(df_e, n - 1)
    fj = msc / mse
    vn = df_e * (k * icc2 * fj + n * (1 + (k - 1) * icc2) - k * icc2) ** 2
    vd = (n - 1) * k**2 * icc2**2 * fj**2 + (n * (1 + (k - 1) * icc2) - k * icc2) ** 2
    v = vn / vd
    f_upper, f_lower = upper(n - 1, v), upper(v, n - 1)
    l2 = n * (msr - f_upper * mse) / (f_upper * (k * msc + (k * n - k - n) * mse) + n * msr)
    u2 = n * (f_lower * msr - mse) / (k * msc + (k * n - k - n) * mse + n * f_lower * msr)
    with np.errstate(divide="ignore"):
        return {
            "ICC1": (icc1, f1, n - 1, df_w, p1, (f1l - 1) / (f1l + k - 1), (f1u - 1) / (f1u + k - 1)),
            "ICC2": (icc2, f3, n - 1, df_e, p3, l2, u2),
            "ICC3": (icc3, f3, n - 1, df_e, p3, (f3l - 1) / (f3l + k - 1), (f3u - 1) / (f3u + k - 1)),
            "ICC1k": ((msr - msw) / msr, f1, n - 1, df_w, p1, 1 - 1 / f1l, 1 - 1 / f1u),
            "ICC2k": (
                (msr - mse) / (msr + (msc - mse) / n),
                f3,
                n - 1,
                df_e,
                p3,
                l2 * k / (1 + l2 * (k - 1)),
                u2 * k / (1 + u2 * (k - 1)),
            ),
            "ICC3k": ((msr - mse) / msr, f3, n - 1, df_e, p3, 1 - 1 / f3l, 1 - 1 / f3u),
        }
