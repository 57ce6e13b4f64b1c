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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..errors import QRAInputError, undefined
from ._validation import Batch, replacement, rescaled, undefined_reason, undefined_reasons, unit_weights

NAN = float("nan")
WEIGHTS = (None, "linear", "quadratic")
LEVELS = ("nominal", "ordinal", "interval", "ratio")
_FAST_RANGE = 100_000  # integer labels spanning fewer values are encoded without sorting


@dataclass(frozen=True)
class CategoryCounts:
    """The count-matrix core: ``counts[u, c]`` raters (experiments or annotators) gave category ``categories[c]`` to unit u."""

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


def encode(labels: npt.ArrayLike, *, categories: npt.ArrayLike | None = None, name: str = "labels") -> tuple[np.ndarray, np.ndarray]:
    """Integer codes (-1 = missing) and the ordered category list for a label matrix.

    >>> codes, cats = encode([[1, 2, None], [2, 2, 3]])
    >>> codes.tolist(), cats.tolist()
    ([[0, 1, -1], [1, 1, 2]], [1.0, 2.0, 3.0])
    """
    array = _as_label_matrix(labels, name)
    codes, found = encode_values(array.ravel(), categories=categories, name=name)
    return codes.reshape(array.shape), found


def encode_values(values: npt.ArrayLike, *, categories: npt.ArrayLike | None = None, name: str = "labels") -> tuple[np.ndarray, np.ndarray]:
    """:func:`encode` for a flat sequence of labels (e.g. a long table's label column).

    Parameters
    ----------
    values : array_like
        Labels: numbers or strings; NaN, None or "" is missing.
    categories : array_like, optional, keyword-only
        The ordered scale; a label not on it is a :class:`~qra_widgets.QRAInputError`.
        Default: the labels found, sorted.
    name : str, keyword-only
        What to call the labels in error messages.

    Returns
    -------
    codes : numpy.ndarray of int64
        Position of each label on the scale, -1 for a missing label.
    categories : numpy.ndarray
        The scale (floats when every label is a number, else strings).

    Examples
    --------
    >>> codes, cats = encode_values(["good", None, "bad"])
    >>> codes.tolist(), cats.tolist()
    ([1, -1, 0], ['bad', 'good'])
    """
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


def category_counts(labels: npt.ArrayLike | CategoryCounts, *, categories: npt.ArrayLike | None = None) -> CategoryCounts:
    """The units x categories count matrix of reliability data (the shared core).

    ``labels`` has rows = raters (experiments, each acting as one rater, or one
    experiment's annotators) and columns = items; ``NaN``/``None``/``""`` is a missing
    label.  Passing a :class:`CategoryCounts` returns it (put on ``categories`` if given),
    so every coefficient also accepts precomputed counts.

    Parameters
    ----------
    labels : array_like or CategoryCounts
        Reliability data, rows = raters, columns = items.
    categories : array_like, optional, keyword-only
        The ordered scale; unused categories get a column of zeros.  Default: the labels used.

    Returns
    -------
    CategoryCounts
        ``counts`` (units x categories, int) and ``categories``.

    Examples
    --------
    >>> cc = category_counts([[1, 2, 2], [1, 2, 1], [1, None, 1]])
    >>> cc.counts.tolist(), cc.categories.tolist()
    ([[3, 0], [0, 2], [2, 1]], [1.0, 2.0])
    """
    if isinstance(labels, CategoryCounts):
        return _on_scale(labels, categories)
    if categories is None and isinstance(labels, np.ndarray) and labels.dtype.kind in "biuf" and labels.ndim == 2:
        fast = _integer_counts(labels)
        if fast is not None:
            return fast
    codes, found = encode(labels, categories=categories)
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

    Parameters
    ----------
    q : int
        Number of categories on the scale.
    weights : {None, "linear", "quadratic"}
        ``None``: identity (exact agreement); ``"linear"``: ``1 - |k-l|/(q-1)``;
        ``"quadratic"``: ``1 - (k-l)^2/(q-1)^2``, with k, l positions on the scale.

    Returns
    -------
    numpy.ndarray
        The q x q weight matrix.

    References
    ----------
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.), chapter 3.
    Advanced Analytics. ISBN 978-0970806284.

    Examples
    --------
    >>> agreement_weights(3, "linear").tolist()
    [[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]]
    """
    _check_weights(weights)
    if weights is None or q < 2:
        return np.eye(q)
    distance = np.abs(np.subtract.outer(np.arange(q), np.arange(q))) / (q - 1)
    return 1 - (distance if weights == "linear" else distance**2)


def _check_weights(weights) -> None:
    if weights not in WEIGHTS:
        raise QRAInputError(f"weights: must be one of {WEIGHTS}, got {weights!r}")


def _weighted_disagreement(counts: np.ndarray, weights: np.ndarray) -> tuple[float, int]:
    """1 - P_a: mean over units labelled at least twice of the weighted share of rater pairs
    that *disagree*, ``sum_kl (1 - w_kl) n_uk n_ul / (m_u (m_u - 1))`` (Gwet 2014's p_a,
    written as a sum of non-negative terms so that nothing cancels).  Returns it and the
    number of units it is taken over."""
    raters = counts.sum(axis=1)
    pairable = raters >= 2
    if not pairable.any():
        return NAN, 0
    n = counts[pairable].astype(float)
    m = raters[pairable].astype(float)
    per_unit = np.einsum("uk,kl,ul->u", n, 1.0 - weights, n) / (m * (m - 1))
    return float(per_unit.mean()), int(pairable.sum())


def _category_shares(counts: np.ndarray) -> np.ndarray:
    """pi_k: each unit's share of labels in category k, averaged over units with any label
    (Gwet 2014; irrCAC's ``pi_vec``).  Units labelled once count here: the missing-label rule."""
    raters = counts.sum(axis=1)
    rated = raters >= 1
    return (counts[rated] / raters[rated, None]).mean(axis=0)


def _expected_disagreement(first: np.ndarray, second: np.ndarray, weights: np.ndarray) -> float:
    """1 - P_e for chance agreement ``sum_kl w_kl first_k second_l``: ``sum_kl (1-w_kl) first_k second_l``."""
    return float(first @ (1.0 - weights) @ second)


def _on_scale(counts: CategoryCounts, categories) -> CategoryCounts:
    """Precomputed counts re-expressed on a declared scale (unused categories get 0 columns)."""
    if categories is None:
        return counts
    declared = np.asarray(categories, dtype=counts.categories.dtype if counts.categories.dtype.kind == "f" else object)
    if len(set(declared.tolist())) != declared.size:
        raise QRAInputError("categories: contains duplicates")
    position = {value: index for index, value in enumerate(declared.tolist())}
    unknown = [c for c in counts.categories.tolist() if c not in position]
    if unknown:
        raise QRAInputError(f"labels: label {unknown[0]!r} is not one of the declared categories {declared.tolist()}")
    full = np.zeros((counts.counts.shape[0], declared.size), dtype=counts.counts.dtype)
    full[:, [position[c] for c in counts.categories.tolist()]] = counts.counts
    return CategoryCounts(full, declared)



# ----------------------------------------------------------------------------- the batch core (weights per unit)


def _pair_terms(counts: np.ndarray, weights: np.ndarray, *, pair_based: bool = True):
    """Per unit: pairable, rated and, for the pair-based coefficients, the weighted disagreement of
    its rater pairs ``sum_kl (1 - w_kl) n_uk n_ul / (m_u (m_u - 1))`` (Gwet 2014's 1 - p_a, a sum
    of non-negative terms) and its label shares ``n_uk / m_u`` (0 outside pairable / rated units)."""
    n = counts.astype(float)
    raters = n.sum(axis=1)
    pairable, rated = raters >= 2, raters >= 1
    if not pair_based:
        return pairable, rated, None, None
    with np.errstate(invalid="ignore", divide="ignore"):
        disagreement = np.where(pairable, ((n @ (1.0 - weights)) * n).sum(axis=1) / (raters * (raters - 1)), 0.0)
        shares = np.where(rated[:, None], n / np.where(rated, raters, 1.0)[:, None], 0.0)
    return pairable, rated, disagreement, shares


def agreement_batch(counts: CategoryCounts, unit_weights_: npt.ArrayLike | None = None, *, measures=("fleiss_kappa",),
                    weights: str | None = None, level: str = "nominal") -> dict[str, Batch]:
    r"""Fleiss' kappa, Gwet's AC, Brennan-Prediger and Krippendorff's alpha of a count matrix
    under unit weights: the one implementation behind :func:`fleiss_kappa`, :func:`gwet_ac`,
    :func:`brennan_prediger` and :func:`krippendorff_alpha` (one row of ones) and the bootstrap
    (a (B, U) stack of multinomial weights: unit u counted ``w[b, u]`` times).

    .. math:: 1 - P_a = \frac{\sum_u w_u [m_u \ge 2]\, d_u}{\sum_u w_u [m_u \ge 2]},\qquad
        \pi_k = \frac{\sum_u w_u [m_u \ge 1]\, n_{uk}/m_u}{\sum_u w_u [m_u \ge 1]},\qquad
        o_{ck} = \sum_u w_u \frac{n_{uc} n_{uk} - [c=k] n_{uc}}{m_u - 1}

    (d_u the weighted share of disagreeing rater pairs of unit u): the row [2, 0, 1, 1] is the
    kappa of items 1, 1, 3, 4 (0.625, as :func:`fleiss_kappa` of those columns).  The undefined rule of each
    measure applies per replicate, through the weighted counts (a unit of weight 0 is absent).

    >>> cc = category_counts([[1, 1, 2, 2], [1, 1, 2, 1], [1, 2, 2, 1]])
    >>> found = agreement_batch(cc, [[1, 1, 1, 1], [2, 0, 1, 1]], measures=("fleiss_kappa",))
    >>> found["fleiss_kappa"].values.round(4).tolist()
    [0.3143, 0.625]
    """
    cc = counts if isinstance(counts, CategoryCounts) else category_counts(counts)
    q = cc.categories.size
    if unit_weights_ is None:  # the estimate: units with the same counts are interchangeable, so each
        cc, w = _distinct_units(cc)  # distinct row once, weighted by how often it occurs (weights mean repeats)
    else:
        w = unit_weights(unit_weights_, cc.counts.shape[0])
    size = w.shape[0]
    out: dict[str, Batch] = {}
    agreement = agreement_weights(q, weights)
    with_alpha = "alpha" in measures
    if with_alpha and level not in LEVELS:
        raise QRAInputError(f"level: must be one of {LEVELS}, got {level!r}")
    pair_based = bool({"fleiss_kappa", "ac1", "bp"} & set(measures))
    pairable, rated, disagreement, shares = _pair_terms(cc.counts, agreement, pair_based=pair_based)
    # every per-unit term the coefficients need, side by side: one matrix product w @ X gives all
    # their weighted sums (the cost of a product is reading w, not the number of columns)
    columns = [pairable[:, None].astype(float), rated[:, None].astype(float)]
    if pair_based:
        columns += [disagreement[:, None], shares]
    if with_alpha:
        counts = cc.counts.astype(float)
        raters = counts.sum(axis=1)
        scaled = counts * np.where(pairable, 1.0 / np.where(pairable, raters - 1, 1.0), 0.0)[:, None]
        products = size > 1 and q * q * counts.shape[0] <= 20_000_000  # one row of weights: o directly, below
        columns += [scaled] + ([(scaled[:, :, None] * counts[:, None, :]).reshape(-1, q * q)] if products else [])
    sums = w @ np.hstack(columns)
    pair_weight, rated_weight = sums[:, 0], sums[:, 1]
    position = 2
    if pair_based:
        with np.errstate(invalid="ignore", divide="ignore"):
            observed = sums[:, position] / pair_weight  # disagreement and shares are 0 outside pairable / rated units
            pi = np.nan_to_num(sums[:, position + 1:position + 1 + q] / rated_weight[:, None])
        position += 1 + q
        with np.errstate(invalid="ignore", divide="ignore"):
            if "fleiss_kappa" in measures:
                expected = np.einsum("bk,kl,bl->b", pi, 1.0 - agreement, pi)
                reasons = undefined_reasons("Fleiss' kappa", size, pairs=pair_weight, categories_used=(pi > 0).sum(1))
                out["fleiss_kappa"] = Batch(1.0 - observed / expected, reasons)
            for name, label in (("ac1", "AC"), ("bp", "BP")):
                if name in measures:
                    total = agreement.sum()
                    chance = (total / (q * (q - 1)) * (pi * (1 - pi)).sum(1) if name == "ac1" else
                              np.full(size, total / q**2)) if q >= 2 else np.full(size, np.nan)
                    reasons = undefined_reasons(label, size, pairs=pair_weight, scale_size=q)
                    out[name] = Batch(((1.0 - observed) - chance) / (1.0 - chance), reasons)
    if with_alpha:
        diagonal = sums[:, position:position + q]
        if products:
            o = sums[:, position + q:position + q + q * q].reshape(-1, q, q).copy()
        elif size == 1:  # the estimate: o = (w scaled)^T n, a q x q product
            o = ((w[0][:, None] * scaled).T @ counts)[None]
        else:  # many categories: one product per category instead of a units x q^2 block
            o = np.stack([w @ (scaled[:, c:c + 1] * counts) for c in range(q)], axis=1)
        o -= diagonal[:, :, None] * np.eye(q)
        out["alpha"] = _alpha_from_coincidences(o, pair_weight, cc.categories, level)
    return out


def _distinct_units(cc: CategoryCounts) -> tuple[CategoryCounts, np.ndarray]:
    """The distinct rows of a count matrix and their multiplicities as unit weights (1, K): every
    coefficient here is a weighted sum over units, so this is the same number from K rows instead of
    U (K is at most a few hundred for a few raters on a small scale)."""
    counts = np.asarray(cc.counts, dtype=np.int64)
    units, q = counts.shape
    base = int(counts.max(initial=0)) + 1
    if units < 1000 or q * math.log2(base) > 62:
        return cc, np.ones((1, units))
    keys = counts @ (base ** np.arange(q, dtype=np.int64))
    _keys, first, multiplicity = np.unique(keys, return_index=True, return_counts=True)
    return CategoryCounts(counts[first], cc.categories), multiplicity[None].astype(float)


def _alpha_from_coincidences(o: np.ndarray, pair_weight: np.ndarray, categories: np.ndarray, level: str) -> Batch:
    """Krippendorff's alpha = 1 - (n - 1) sum o delta / sum n_c n_k delta of a (B, q, q) stack of coincidences."""
    marginals = o.sum(axis=2)
    total = marginals.sum(axis=1)
    reasons = undefined_reasons("alpha", o.shape[0], pairs=pair_weight, categories_used=(marginals > 0).sum(1),
                                one_category="so there is no expected disagreement")
    delta = _distance(level, categories, marginals if level == "ordinal" else marginals[0])
    delta = delta if delta.ndim == 3 else delta[None]
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.einsum("bc,bk,bck->b", marginals, marginals, np.broadcast_to(delta, o.shape))
        values = 1 - (total - 1) * (o * delta).sum(axis=(1, 2)) / expected
    return Batch(values, reasons)


def _weighted_bincount(codes: np.ndarray, w: np.ndarray, length: int) -> np.ndarray:
    """``np.bincount(codes, weights=w[b], minlength=length)`` for every row b at once (a sparse product)."""
    if w.shape[0] == 1:
        return np.bincount(codes, weights=w[0], minlength=length)[None]
    from scipy.sparse import csr_matrix

    onehot = csr_matrix((np.ones(codes.size), (codes, np.arange(codes.size))), shape=(length, codes.size))
    return np.asarray((onehot @ w.T).T)


def cohen_kappa_batch(codes_a: npt.ArrayLike, codes_b: npt.ArrayLike, q: int, unit_weights_: npt.ArrayLike | None = None, *,
                      weights: str | None = None) -> Batch:
    r"""Cohen's kappa of two label sets given as codes 0..q-1 (-1 = missing) under unit weights
    (B, U): the one implementation behind :func:`cohen_kappa` (one row of ones) and the bootstrap.

    .. math:: \kappa = 1 - \frac{\sum_{kl} (1-w_{kl})\, p_{kl}}{\sum_{kl} (1-w_{kl})\, p_{k\cdot}\, p_{\cdot l}}

    p_kl over the units both labelled, each rater's p over every unit it labelled (the
    missing-label rule), all counted with the unit weights.

    >>> cohen_kappa_batch([0, 0, 1, 1], [0, 1, 1, 1], 2, [[1, 1, 1, 1], [2, 0, 1, 1]]).values.round(4).tolist()
    [0.5, 1.0]
    """
    a, b = np.asarray(codes_a, dtype=np.int64), np.asarray(codes_b, dtype=np.int64)
    w = unit_weights(unit_weights_, a.size)
    size, q = w.shape[0], max(int(q), 1)
    both = (a >= 0) & (b >= 0)
    table = _weighted_bincount(a[both] * q + b[both], w[:, both], q * q).reshape(size, q, q)
    marginal = [_weighted_bincount(codes[codes >= 0], w[:, codes >= 0], q) for codes in (a, b)]
    paired = table.sum(axis=(1, 2))
    used = ((marginal[0] + marginal[1]) > 0).sum(1)
    reasons = undefined_reasons("kappa", size, pairs=paired, pairs_of="item has both labels", categories_used=used)
    agreement = agreement_weights(q, weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        first = marginal[0] / marginal[0].sum(1, keepdims=True)
        second = marginal[1] / marginal[1].sum(1, keepdims=True)
        observed = ((1.0 - agreement) * table).sum(axis=(1, 2)) / paired
        expected = np.einsum("bk,kl,bl->b", first, 1.0 - agreement, second)
        return Batch(1.0 - observed / expected, reasons)


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

    def disagreement(self, weights: np.ndarray) -> float:
        """1 - P_a: weighted share of disagreeing pairs, sum_kl (1 - w_kl) p_kl, over items with both labels."""
        return float(((1.0 - weights) * self.table).sum() / self.paired) if self.paired else NAN

    def shares(self) -> np.ndarray:
        """pi_k: each item's share of labels in category k, averaged over items with any label (Gwet 2014)."""
        per_item = (self.table.sum(axis=1) + self.table.sum(axis=0)) / 2 + self.only_a + self.only_b
        return per_item / per_item.sum()

    def marginals(self) -> tuple[np.ndarray, np.ndarray]:
        """Each rater's label distribution over *all* the items it labelled (Conger 1980; irrCAC)."""
        a = self.table.sum(axis=1) + self.only_a
        b = self.table.sum(axis=0) + self.only_b
        return a / a.sum(), b / b.sum()

    def categories_used(self) -> int:
        return int(((self.table.sum(axis=1) + self.table.sum(axis=0) + self.only_a + self.only_b) > 0).sum())


def pair_counts(a: npt.ArrayLike, b: npt.ArrayLike, *, categories: npt.ArrayLike | None = None) -> PairCounts:
    """Count two experiments' labels (``a[i]`` and ``b[i]`` label item i; NaN/None = missing).

    >>> pc = pair_counts([1, 2, 2, None], [1, 2, 1, 2])
    >>> pc.table.tolist(), pc.only_b.tolist()
    ([[1, 0], [1, 1]], [0, 1])
    """
    codes, found = encode(_two_raters(a, b), categories=categories)
    q = max(found.size, 1)
    has_a, has_b = codes[0] >= 0, codes[1] >= 0
    both = has_a & has_b
    table = np.bincount(codes[0, both] * q + codes[1, both], minlength=q * q).reshape(q, q)
    return PairCounts(table, np.bincount(codes[0, has_a & ~has_b], minlength=q), np.bincount(codes[1, has_b & ~has_a], minlength=q), found)


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


def adjacent_agreement(a: npt.ArrayLike, b: npt.ArrayLike, *, tolerance: float = 1,
                       replace_undefined_by: float = NAN) -> float:
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
    if not isinstance(tolerance, (int, float, np.integer, np.floating)) or isinstance(tolerance, bool) \
            or not np.isfinite(tolerance) or tolerance < 0:
        raise QRAInputError(f"tolerance: must be a finite number >= 0, got {tolerance!r}")
    counts = pair_counts(a, b)
    if counts.categories.dtype.kind != "f":
        raise QRAInputError("a and b: adjacent agreement needs numeric labels")
    reason = undefined_reason("adjacent agreement", pairs=counts.paired)
    if reason:
        return undefined(reason, replace_undefined_by)
    close = np.abs(np.subtract.outer(counts.categories, counts.categories)) <= tolerance
    return float((close * counts.table).sum() / counts.paired)


def cohen_kappa(a: npt.ArrayLike, b: npt.ArrayLike, *, weights: str | None = None,
                categories: npt.ArrayLike | None = None, replace_undefined_by: float = NAN) -> float:
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


def _scale_coefficient(a, b, weights, categories, measure: str, replace_undefined_by) -> float:
    """AC or BP through :func:`agreement_batch` (two raters' labels become a two-row matrix)."""
    replace_undefined_by = replacement(replace_undefined_by)
    _check_weights(weights)
    cc = category_counts(a if b is None else _two_raters(a, b), categories=categories)
    return agreement_batch(cc, None, measures=(measure,), weights=weights)[measure].one(replace_undefined_by)


def gwet_ac(a: npt.ArrayLike | CategoryCounts, b: npt.ArrayLike | None = None, /, *, weights: str | None = None,
            categories: npt.ArrayLike | None = None, replace_undefined_by: float = NAN) -> float:
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


def brennan_prediger(a: npt.ArrayLike | CategoryCounts, b: npt.ArrayLike | None = None, /, *,
                     weights: str | None = None, categories: npt.ArrayLike | None = None,
                     replace_undefined_by: float = NAN) -> float:
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


# ----------------------------------------------------------------------------- many experiments


def fleiss_kappa(labels: npt.ArrayLike | CategoryCounts, *, weights: str | None = None,
                 categories: npt.ArrayLike | None = None, layout: str = "raters x items",
                 replace_undefined_by: float = NAN) -> float:
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
    return agreement_batch(cc, None, measures=("fleiss_kappa",), weights=weights)["fleiss_kappa"].one(replace_undefined_by)


LAYOUTS = ("raters x items", "items x categories")


def _counts_of(labels, categories, layout: str, name: str) -> CategoryCounts:
    """The count matrix of ``labels`` read in ``layout``; a raters x items matrix that has the
    shape of a count table (statsmodels' and irr's input) is refused rather than misread."""
    if layout not in LAYOUTS:
        raise QRAInputError(f"layout: must be one of {LAYOUTS}, got {layout!r}")
    if isinstance(labels, CategoryCounts):
        return category_counts(labels, categories=categories)
    if layout == "items x categories":
        from ._validation import _to_float_array

        table = _to_float_array(labels, name)
        if table.ndim != 2 or table.shape[1] < 1 or table.shape[0] < 1:
            raise QRAInputError(f"{name}: an items x categories table must be 2-D, got shape {table.shape}")
        if not (np.isfinite(table).all() and (table >= 0).all() and (table == np.round(table)).all()):
            raise QRAInputError(f"{name}: an items x categories table holds counts: whole numbers >= 0")
        found = np.arange(table.shape[1], dtype=float) if categories is None else np.asarray(categories)
        if found.size != table.shape[1]:
            raise QRAInputError(f"categories: {found.size} given for a table of {table.shape[1]} columns")
        return CategoryCounts(table.astype(np.int64), found)
    if _looks_like_count_table(labels):
        raise QRAInputError(
            f"{name}: every row has the same sum and there are more rows than columns, as in an items x categories "
            "count table (statsmodels, irr); this function reads rows = raters, columns = items. "
            "Pass layout='items x categories' for a count table")
    return category_counts(labels, categories=categories)


def _looks_like_count_table(labels) -> bool:
    """Whole numbers >= 0, more rows than columns, zeros present and one row sum >= 2 for every
    row: a count table's signature, which reliability data (few raters, many items) does not have."""
    array = labels if isinstance(labels, np.ndarray) else None
    if array is None:
        try:
            array = np.asarray(labels, dtype=float)
        except (TypeError, ValueError):
            return False
    if array.dtype.kind not in "biuf" or array.ndim != 2 or array.shape[0] <= array.shape[1] or array.shape[1] < 2:
        return False
    array = array.astype(float, copy=False)
    if not np.isfinite(array).all() or (array < 0).any() or (array != np.round(array)).any() or not (array == 0).any():
        return False
    sums = array.sum(axis=1)
    return bool(sums[0] >= 2 and (sums == sums[0]).all())


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
    """delta^2 of ``level`` (q x q); for ``ordinal`` it depends on the marginals, and a (B, q)
    stack of marginals gives a (B, q, q) stack."""
    if level == "nominal":
        return 1.0 - np.eye(categories.size)
    if level == "ordinal":
        cumulative = np.cumsum(marginals, axis=-1)
        between = cumulative[..., None, :] - cumulative[..., :, None] + (marginals[..., :, None] - marginals[..., None, :]) / 2
        upper = np.triu(between**2)
        return upper + np.swapaxes(np.triu(upper, 1), -1, -2)
    if categories.dtype.kind != "f":
        raise QRAInputError(f"level: {level!r} needs numeric labels")
    if level == "interval":
        # alpha does not depend on the unit: differences in units of a power of two near the
        # largest one (exact), so labels near 1e-200 or 1e200 neither underflow nor overflow
        difference = rescaled(np.subtract.outer(categories, categories))[0]
        return difference**2
    difference = np.subtract.outer(categories, categories)
    total = np.add.outer(categories, categories)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(total == 0, 0.0, (difference / total) ** 2)


def krippendorff_alpha(labels: npt.ArrayLike | CategoryCounts, *, level: str = "nominal",
                       categories: npt.ArrayLike | None = None, replace_undefined_by: float = NAN) -> float:
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
