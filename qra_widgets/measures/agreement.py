"""Type III results: agreement between the label sets of comparable experiments.

One count-matrix core serves every coefficient here, in the manner of the ``krippendorff``
package:

1. :func:`category_counts` turns reliability data (rows = experiments, which act as raters,
   QRA++ section 6.3; columns = items; NaN/None = missing label) into a units x categories
   matrix ``n[u, c]`` = how many experiments gave category c to item u.  One ``bincount``,
   no per-unit Python loop.
2. Every coefficient is a short formula over that matrix: Fleiss' kappa via the weighted
   observed agreement :func:`_weighted_agreement`, Krippendorff's alpha via the coincidence
   matrix :func:`coincidences` and a pluggable distance metric.
3. For exactly two experiments the same counts collapse to a q x q table
   (:func:`pair_counts`, one ``bincount``, O(q^2) memory instead of O(items x q)), which
   serves Cohen's kappa, percent and adjacent agreement, Gwet's AC1/AC2 and
   Brennan-Prediger: observed agreement is ``sum(w * table)``, Gwet's pi the mean label
   shares.

Weights.  ``weights=None`` is exact agreement; ``"linear"`` and ``"quadratic"`` are the
agreement weights ``1 - |k-l|/(q-1)`` and ``1 - (k-l)^2/(q-1)^2`` of Gwet (2014), where k, l
are *positions* in the ordered category list and q its length (as scikit-learn does for
kappa).  Pass ``categories`` to fix the scale: categories nobody used still count in q,
which matters for BP and AC (Yannakoudakis & Cummins 2015, footnote 8).

Undefined rule: when a chance-corrected coefficient has chance agreement 1 (every label
the same, one category), it returns ``replace_undefined_by`` with an
:class:`~qra_widgets.UndefinedMeasureWarning`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import QRAInputError, undefined

NAN = float("nan")
WEIGHTS = (None, "linear", "quadratic")
LEVELS = ("nominal", "ordinal", "interval", "ratio")
_FAST_RANGE = 100_000  # integer labels spanning fewer values are encoded without sorting


@dataclass(frozen=True)
class CategoryCounts:
    """The count-matrix core: ``counts[u, c]`` experiments gave category ``categories[c]`` to unit u."""

    counts: np.ndarray
    categories: np.ndarray

    @property
    def raters_per_unit(self) -> np.ndarray:
        return self.counts.sum(axis=1)


# ----------------------------------------------------------------------------- encoding


def _as_label_matrix(labels, name: str) -> np.ndarray:
    array = np.asarray(labels, dtype=object) if not isinstance(labels, np.ndarray) else labels
    if array.ndim != 2:
        raise QRAInputError(f"{name}: expected a 2-D array (rows = experiments, columns = items), got shape {array.shape}")
    if array.shape[0] < 2:
        raise QRAInputError(f"{name}: needs at least 2 experiments (rows), got {array.shape[0]}")
    if array.shape[1] < 1:
        raise QRAInputError(f"{name}: has no items (columns)")
    return _numbers_if_possible(array)


def _numbers_if_possible(array: np.ndarray) -> np.ndarray:
    """Labels as floats (None -> NaN) when they are all numbers, else as objects."""
    if array.dtype.kind in "biuf":
        return array.astype(float, copy=False)
    try:
        return array.astype(float)
    except (TypeError, ValueError):
        return array.astype(object)


def _missing_mask(array: np.ndarray) -> np.ndarray:
    if array.dtype.kind == "f":
        if np.isinf(array).any():
            raise QRAInputError("labels: contains an infinite value")
        return np.isnan(array)
    is_missing = lambda v: v is None or v == "" or (isinstance(v, float) and math.isnan(v))
    return np.frompyfunc(is_missing, 1, 1)(array).astype(bool)


def _codes_for(observed: np.ndarray, categories: np.ndarray, name: str) -> np.ndarray:
    order = np.argsort(categories, kind="stable")
    ranked = categories[order]
    position = np.clip(np.searchsorted(ranked, observed), 0, ranked.size - 1)
    unknown = ranked[position] != observed
    if np.any(unknown):
        bad = observed[np.flatnonzero(unknown)[0]]
        bad = bad.item() if isinstance(bad, np.generic) else bad
        raise QRAInputError(f"{name}: label {bad!r} is not one of the declared categories {categories.tolist()}")
    return order[position]


def _discover(observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if observed.dtype.kind == "f" and observed.size:
        low, high = observed.min(), observed.max()
        if high - low < _FAST_RANGE and np.array_equal(observed, np.floor(observed)):
            offsets = (observed - low).astype(np.int64)
            present = np.bincount(offsets) > 0
            lookup = np.cumsum(present) - 1
            return low + np.flatnonzero(present).astype(float), lookup[offsets]
    categories, codes = np.unique(observed, return_inverse=True)
    return categories, codes


def encode(labels, categories=None, name: str = "labels") -> tuple[np.ndarray, np.ndarray]:
    """Integer codes (-1 = missing) and the ordered category list for a label matrix.

    >>> codes, cats = encode([[1, 2, None], [2, 2, 3]])
    >>> codes.tolist(), cats.tolist()
    ([[0, 1, -1], [1, 1, 2]], [1.0, 2.0, 3.0])
    """
    array = _as_label_matrix(labels, name)
    codes, found = encode_values(array.ravel(), categories, name)
    return codes.reshape(array.shape), found


def encode_values(values, categories=None, name: str = "labels") -> tuple[np.ndarray, np.ndarray]:
    """:func:`encode` for a flat sequence of labels (e.g. a long table's label column)."""
    array = _numbers_if_possible(np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values)
    missing = _missing_mask(array)
    observed = array[~missing]
    if array.dtype == object:
        observed = np.asarray([str(v) for v in observed], dtype=object)
    if categories is None:
        found, observed_codes = _discover(observed)
    else:
        found = np.asarray(categories, dtype=float if array.dtype.kind == "f" else object)
        if array.dtype == object:
            found = np.asarray([str(c) for c in found], dtype=object)
        if len(set(found.tolist())) != found.size:
            raise QRAInputError("categories: contains duplicates")
        observed_codes = _codes_for(observed, found, name) if observed.size else observed.astype(np.int64)
    codes = np.full(array.shape, -1, dtype=np.int64)
    codes[~missing] = observed_codes
    return codes, found


def category_counts(labels, categories=None) -> CategoryCounts:
    """The units x categories count matrix of reliability data (the shared core).

    ``labels`` has rows = experiments (each experiment acts as one rater) and columns =
    items; ``NaN``/``None``/``""`` is a missing label.  Passing a :class:`CategoryCounts`
    returns it unchanged, so every coefficient also accepts precomputed counts.

    >>> cc = category_counts([[1, 2, 2], [1, 2, 1], [1, None, 1]])
    >>> cc.counts.tolist(), cc.categories.tolist()
    ([[3, 0], [0, 2], [2, 1]], [1.0, 2.0])
    """
    if isinstance(labels, CategoryCounts):
        return labels
    if categories is None and isinstance(labels, np.ndarray) and labels.dtype.kind in "biuf" and labels.ndim == 2:
        fast = _integer_counts(labels)
        if fast is not None:
            return fast
    codes, found = encode(labels, categories)
    n_units, n_categories = codes.shape[1], max(found.size, 1)
    valid = codes >= 0
    unit = np.broadcast_to(np.arange(n_units), codes.shape)[valid]
    flat = np.bincount(unit * n_categories + codes[valid], minlength=n_units * n_categories)
    return CategoryCounts(flat.reshape(n_units, n_categories), found)


def _integer_counts(labels: np.ndarray) -> CategoryCounts | None:
    """The common case (integer ratings in a float/int array, NaN = missing) in a few passes:
    missing labels go to an extra column that is dropped, so nothing is masked or copied.
    Returns None (use the general path) for anything else."""
    array = labels.astype(float, copy=False)
    if array.shape[0] < 2 or array.shape[1] < 1:
        return None
    low, high = np.fmin.reduce(array, axis=None), np.fmax.reduce(array, axis=None)  # NaN-ignoring, no warning
    if not (np.isfinite(low) and np.isfinite(high)) or high - low >= _FAST_RANGE:
        return None
    span = int(high - low) + 1
    shifted = array - low
    shifted[np.isnan(shifted)] = span
    offsets = shifted.astype(np.int64)
    if not np.array_equal(offsets, shifted):
        return None
    offsets += (span + 1) * np.arange(array.shape[1], dtype=np.int64)
    full = np.bincount(offsets.ravel(), minlength=array.shape[1] * (span + 1)).reshape(array.shape[1], span + 1)[:, :span]
    present = full.any(axis=0)
    return CategoryCounts(full[:, present], low + np.flatnonzero(present).astype(float))


# ----------------------------------------------------------------------------- weights


def agreement_weights(q: int, weights: str | None = None) -> np.ndarray:
    """Gwet's agreement weights over q ordered categories (1 on the diagonal).

    >>> agreement_weights(3, "linear").tolist()
    [[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]]
    """
    if weights not in WEIGHTS:
        raise QRAInputError(f"weights: must be one of {WEIGHTS}, got {weights!r}")
    if weights is None or q < 2:
        return np.eye(q)
    distance = np.abs(np.subtract.outer(np.arange(q), np.arange(q))) / (q - 1)
    return 1 - (distance if weights == "linear" else distance**2)


def _weighted_agreement(counts: np.ndarray, weights: np.ndarray) -> tuple[float, int]:
    """Mean over units rated at least twice of the share of rater pairs that agree (weighted).

    Per unit: sum_k n_uk (n*_uk - 1) / (m_u (m_u - 1)) with n*_uk = sum_l w_kl n_ul (Gwet 2014,
    eq. for p_a).  Returns the mean and the number of units it is taken over.
    """
    raters = counts.sum(axis=1)
    pairable = raters >= 2
    if not pairable.any():
        return NAN, 0
    n = counts[pairable].astype(float)
    m = raters[pairable].astype(float)
    per_unit = (n * (n @ weights.T - 1)).sum(axis=1) / (m * (m - 1))
    return float(per_unit.mean()), int(pairable.sum())


def _chance_corrected(observed: float, chance: float, name: str, replace_undefined_by: float) -> float:
    if np.isnan(observed):
        return undefined(f"{name} is undefined: no item has labels from two experiments", replace_undefined_by)
    if np.isclose(chance, 1.0):
        return undefined(f"{name} is undefined: chance agreement is 1 (a single category is used)", replace_undefined_by)
    return (observed - chance) / (1 - chance)


# ----------------------------------------------------------------------------- two-experiment API


def _two_raters(a, b) -> np.ndarray:
    left, right = np.asarray(a), np.asarray(b)
    if left.dtype.kind not in "biuf" or right.dtype.kind not in "biuf":
        left, right = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    if left.ndim != 1 or right.ndim != 1:
        raise QRAInputError("a and b: each must be a 1-D sequence of labels")
    if left.size != right.size:
        raise QRAInputError(f"a and b: lengths differ ({left.size} vs {right.size}); label i of each must be for the same item")
    if left.size == 0:
        raise QRAInputError("a and b: are empty")
    return np.vstack([left, right]) if left.dtype != object else np.vstack([left, right]).astype(object)


@dataclass(frozen=True)
class PairCounts:
    """The core for two experiments: ``table[k, l]`` items labelled k by ``a`` and l by ``b``;
    ``only_a`` / ``only_b`` count items only one of them labelled.  (For units with at most
    two labels this is what the units x categories counts reduce to, in O(q^2) space.)"""

    table: np.ndarray
    only_a: np.ndarray
    only_b: np.ndarray
    categories: np.ndarray

    @property
    def paired(self) -> int:
        return int(self.table.sum())

    def agreement(self, weights: np.ndarray) -> float:
        """Weighted share of agreeing pairs: sum_kl w_kl p_kl over items with both labels."""
        return float((weights * self.table).sum() / self.paired) if self.paired else NAN

    def shares(self) -> np.ndarray:
        """pi_k: each item's share of labels in category k, averaged over items with any label (Gwet 2014)."""
        per_item = (self.table.sum(axis=1) + self.table.sum(axis=0)) / 2 + self.only_a + self.only_b
        return per_item / per_item.sum()


def pair_counts(a, b, categories=None) -> PairCounts:
    """Count two experiments' labels (``a[i]`` and ``b[i]`` label item i; NaN/None = missing).

    >>> pc = pair_counts([1, 2, 2, None], [1, 2, 1, 2])
    >>> pc.table.tolist(), pc.only_b.tolist()
    ([[1, 0], [1, 1]], [0, 1])
    """
    codes, found = encode(_two_raters(a, b), categories)
    q = max(found.size, 1)
    has_a, has_b = codes[0] >= 0, codes[1] >= 0
    both = has_a & has_b
    table = np.bincount(codes[0, both] * q + codes[1, both], minlength=q * q).reshape(q, q)
    return PairCounts(table, np.bincount(codes[0, has_a & ~has_b], minlength=q), np.bincount(codes[1, has_b & ~has_a], minlength=q), found)


def percent_agreement(a, b) -> float:
    """Share of items given the same label by both experiments (Yannakoudakis & Cummins 2015, section 3.2).

    Items missing a label in either experiment are left out.

    >>> percent_agreement([1, 2, 3, 4], [1, 2, 3, 3])
    0.75
    """
    counts = pair_counts(a, b)
    value = counts.agreement(np.eye(counts.categories.size))
    return value if not np.isnan(value) else undefined("percent agreement is undefined: no item has both labels")


def adjacent_agreement(a, b, tolerance: float = 1) -> float:
    """Share of items whose two numeric labels are at most ``tolerance`` points apart.

    Yannakoudakis & Cummins (2015) section 3.2 ("no more than n points apart"); the
    distance is in label units, so labels must be numbers.

    >>> adjacent_agreement([1, 2, 3, 5], [2, 2, 1, 4])
    0.75
    """
    if not np.isfinite(tolerance) or tolerance < 0:
        raise QRAInputError(f"tolerance: must be a finite number >= 0, got {tolerance!r}")
    counts = pair_counts(a, b)
    if counts.categories.dtype.kind != "f":
        raise QRAInputError("a and b: adjacent agreement needs numeric labels")
    close = np.abs(np.subtract.outer(counts.categories, counts.categories)) <= tolerance
    value = counts.agreement(close.astype(float))
    return value if not np.isnan(value) else undefined("adjacent agreement is undefined: no item has both labels")


def cohen_kappa(a, b, weights: str | None = None, categories=None, *, replace_undefined_by: float = NAN) -> float:
    r"""Cohen's kappa (weights ``None``) or weighted kappa (``"linear"``, ``"quadratic"``).

    .. math:: \kappa = \frac{P_a - P_e}{1 - P_e},\quad
        P_a = \sum_{kl} w_{kl} p_{kl},\quad P_e = \sum_{kl} w_{kl} p_{k\cdot} p_{\cdot l}

    with p the joint proportions of the two experiments' labels (Cohen 1960, 1968;
    Yannakoudakis & Cummins 2015 eq. 1; QRA++ section 6.3 uses kappa for n = 2).  Items
    missing either label are left out.  Equals scikit-learn's ``cohen_kappa_score``.

    Yannakoudakis & Cummins Table 1 (left), 40/10/10/40 pass-fail counts:

    >>> gold = ["P"] * 50 + ["F"] * 50
    >>> ats = ["P"] * 40 + ["F"] * 10 + ["P"] * 10 + ["F"] * 40
    >>> round(cohen_kappa(ats, gold), 2)
    0.6
    """
    counts = pair_counts(a, b, categories)
    if not counts.paired:
        return undefined("kappa is undefined: no item has both labels", replace_undefined_by)
    q = counts.table.shape[0]
    table = counts.table / counts.paired
    w = agreement_weights(q, weights)
    observed = float((w * table).sum())
    chance = float((w * np.outer(table.sum(axis=1), table.sum(axis=0))).sum())
    return _chance_corrected(observed, chance, "kappa", replace_undefined_by)


def _chance_free_coefficient(a, b, weights, categories, chance_of, name, replace_undefined_by) -> float:
    counts = pair_counts(a, b, categories)
    q = counts.categories.size
    if q < 2:
        return undefined(f"{name} is undefined: only one category; pass `categories` to give the scale", replace_undefined_by)
    w = agreement_weights(q, weights)
    return _chance_corrected(counts.agreement(w), chance_of(counts, w), name, replace_undefined_by)


def _category_shares(counts: np.ndarray) -> np.ndarray:
    """pi_k: each item's share of labels in category k, averaged over items with any label."""
    raters = counts.sum(axis=1)
    rated = raters >= 1
    return (counts[rated] / raters[rated, None]).mean(axis=0)


def _gwet_chance(counts: PairCounts, w: np.ndarray) -> float:
    q, pi = w.shape[0], counts.shares()
    return float(w.sum() / (q * (q - 1)) * (pi * (1 - pi)).sum())


def gwet_ac(a, b, weights: str | None = None, categories=None, *, replace_undefined_by: float = NAN) -> float:
    r"""Gwet's agreement coefficient: AC1 (``weights=None``) or AC2 (with weights).

    .. math:: AC = \frac{P_a - P_e}{1 - P_e},\quad
        P_e = \frac{T_w}{q(q-1)} \sum_{k=1}^{q} \pi_k (1 - \pi_k),\quad
        \pi_k = \frac{p_{a,k} + p_{b,k}}{2}

    with T_w the sum of the agreement weights (T_w = q unweighted, giving
    Yannakoudakis & Cummins 2015 eqs. 2-3) and q the number of categories; Gwet (2002, 2014).
    With missing labels, pi_k averages each item's label shares over items with any label,
    and P_a is over items with both labels (Gwet 2014's multi-rater form).

    Yannakoudakis & Cummins Table 1: AC = 0.60 (left) and 0.67 (right):

    >>> gold = ["P"] * 80 + ["F"] * 20
    >>> ats = ["P"] * 64 + ["F"] * 16 + ["P"] * 4 + ["F"] * 16
    >>> round(gwet_ac(ats, gold), 2)
    0.67
    """
    return _chance_free_coefficient(a, b, weights, categories, _gwet_chance, "AC", replace_undefined_by)


def brennan_prediger(a, b, weights: str | None = None, categories=None, *, replace_undefined_by: float = NAN) -> float:
    r"""Brennan-Prediger coefficient: chance agreement from the scale alone.

    .. math:: BP = \frac{P_a - P_e}{1 - P_e},\quad P_e = \frac{T_w}{q^2}

    (P_e = 1/q unweighted; Brennan & Prediger 1981; Yannakoudakis & Cummins 2015
    section 3.2.3; Gwet 2014 for the weighted form).  Give ``categories`` so that q counts
    the whole scale, not only the labels used.

    >>> gold = ["P"] * 80 + ["F"] * 20
    >>> ats = ["P"] * 64 + ["F"] * 16 + ["P"] * 4 + ["F"] * 16
    >>> round(brennan_prediger(ats, gold), 2)
    0.6
    """
    return _chance_free_coefficient(
        a, b, weights, categories, lambda counts, w: float(w.sum() / w.shape[0] ** 2), "BP", replace_undefined_by
    )


# ----------------------------------------------------------------------------- many experiments


def fleiss_kappa(labels, categories=None, *, replace_undefined_by: float = NAN) -> float:
    r"""Fleiss' kappa for n >= 2 experiments, allowing items rated by different numbers.

    .. math:: \kappa = \frac{\bar P - P_e}{1 - P_e},\quad
        \bar P = \frac{1}{U'}\sum_u \frac{\sum_c n_{uc}(n_{uc}-1)}{m_u(m_u-1)},\quad
        P_e = \sum_c \pi_c^2,\quad \pi_c = \frac{1}{U}\sum_u \frac{n_{uc}}{m_u}

    with P-bar over the U' items labelled by at least two experiments and pi over the U
    items with any label (m_u labels each): Gwet (2014)'s generalisation to missing
    labels, as irrCAC computes it.  With no missing labels this is Fleiss (1971) exactly,
    as statsmodels computes it.  QRA++ Table 2 (its caption's kappa) and section 6.3.
    Accepts labels or :class:`CategoryCounts`.

    >>> round(fleiss_kappa([[1, 1, 2, 2], [1, 1, 2, 1], [1, 2, 2, 1]]), 4)
    0.3143
    """
    counts = category_counts(labels, categories).counts
    observed, used = _weighted_agreement(counts, np.eye(counts.shape[1]))
    if used == 0:
        return undefined("Fleiss' kappa is undefined: no item has labels from two experiments", replace_undefined_by)
    shares = _category_shares(counts)
    return _chance_corrected(observed, float((shares**2).sum()), "Fleiss' kappa", replace_undefined_by)


def coincidences(counts: np.ndarray) -> np.ndarray:
    """Krippendorff's coincidence matrix o[c, k] = sum_u (n_uc n_uk - [c=k] n_uc) / (m_u - 1).

    >>> coincidences(np.array([[2, 0], [1, 1]])).tolist()
    [[2.0, 1.0], [1.0, 0.0]]
    """
    raters = counts.sum(axis=1)
    pairable = raters >= 2
    n = counts[pairable].astype(float)
    scaled = n / (raters[pairable, None] - 1.0)
    return scaled.T @ n - np.diag(scaled.sum(axis=0))


def _distance(level: str, categories: np.ndarray, marginals: np.ndarray) -> np.ndarray:
    if level == "nominal":
        return 1.0 - np.eye(categories.size)
    if level == "ordinal":
        cumulative = np.cumsum(marginals)
        between = cumulative[None, :] - cumulative[:, None] + (marginals[:, None] - marginals[None, :]) / 2
        upper = np.triu(between**2)
        return upper + np.triu(upper, 1).T
    if categories.dtype.kind != "f":
        raise QRAInputError(f"level: {level!r} needs numeric labels")
    difference = np.subtract.outer(categories, categories)
    if level == "interval":
        return difference**2
    total = np.add.outer(categories, categories)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total == 0, 0.0, (difference / total) ** 2)


def krippendorff_alpha(labels, level: str = "nominal", categories=None, *, replace_undefined_by: float = NAN) -> float:
    r"""Krippendorff's alpha for n >= 2 experiments, with missing labels.

    .. math:: \alpha = 1 - \frac{D_o}{D_e}
        = 1 - (n_{\cdot\cdot} - 1)\frac{\sum_{ck} o_{ck}\,\delta^2_{ck}}{\sum_{ck} n_c n_k\,\delta^2_{ck}}

    with o the coincidence matrix (:func:`coincidences`), n_c its marginals and delta^2 the
    metric of ``level``: ``nominal`` (0/1), ``ordinal`` (Krippendorff's
    :math:`(\sum_{g=c}^{k} n_g - (n_c+n_k)/2)^2`), ``interval`` ((c-k)^2) or ``ratio``
    (((c-k)/(c+k))^2).  Krippendorff (2011), "Computing Krippendorff's alpha-reliability";
    QRA++ section 6.3 (alpha for n > 2).  Items with fewer than two labels are ignored.
    Accepts labels or :class:`CategoryCounts`.

    Krippendorff's own example (2011, section A), four coders, 12 units:

    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    ...         [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]
    >>> round(krippendorff_alpha(data, "nominal"), 3), round(krippendorff_alpha(data, "interval"), 3)
    (0.743, 0.849)
    """
    if level not in LEVELS:
        raise QRAInputError(f"level: must be one of {LEVELS}, got {level!r}")
    cc = category_counts(labels, categories)
    o = coincidences(cc.counts)
    marginals = o.sum(axis=1)
    total = marginals.sum()
    if total < 2:
        return undefined("alpha is undefined: no item has labels from two experiments", replace_undefined_by)
    delta = _distance(level, cc.categories, marginals)
    expected = float((np.outer(marginals, marginals) * delta).sum())
    if expected == 0:
        return undefined("alpha is undefined: all labels are the same, so there is no expected disagreement", replace_undefined_by)
    return float(1 - (total - 1) * float((o * delta).sum()) / expected)
