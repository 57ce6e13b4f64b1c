"""Batch forms of the agreement coefficients: Fleiss' kappa, Gwet's AC, Brennan-Prediger and
Krippendorff's alpha of a count matrix, and Cohen's kappa of two code vectors, for a stack of
unit weights at once (a bootstrap resample, a subset, or a unit's multiplicity).

The single-number functions in :mod:`qra_widgets.measures.agreement` call these with one row of
weights, so one implementation gives both.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..errors import QRAInputError
from ._validation import Batch, undefined_reasons, unit_weights
from .agreement_counts import LEVELS, CategoryCounts, _distance, agreement_weights, category_counts

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


def agreement_batch(
    counts: CategoryCounts,
    unit_weights_: npt.ArrayLike | None = None,
    *,
    measures=("fleiss_kappa",),
    weights: str | None = None,
    level: str = "nominal",
) -> dict[str, Batch]:
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
            pi = np.nan_to_num(sums[:, position + 1 : position + 1 + q] / rated_weight[:, None])
        position += 1 + q
        with np.errstate(invalid="ignore", divide="ignore"):
            if "fleiss_kappa" in measures:
                expected = np.einsum("bk,kl,bl->b", pi, 1.0 - agreement, pi)
                reasons = undefined_reasons("Fleiss' kappa", size, pairs=pair_weight, categories_used=(pi > 0).sum(1))
                out["fleiss_kappa"] = Batch(1.0 - observed / expected, reasons)
            for name, label in (("ac1", "AC"), ("bp", "BP")):
                if name in measures:
                    total = agreement.sum()
                    chance = (
                        (
                            total / (q * (q - 1)) * (pi * (1 - pi)).sum(1)
                            if name == "ac1"
                            else np.full(size, total / q**2)
                        )
                        if q >= 2
                        else np.full(size, np.nan)
                    )
                    reasons = undefined_reasons(label, size, pairs=pair_weight, scale_size=q)
                    out[name] = Batch(((1.0 - observed) - chance) / (1.0 - chance), reasons)
    if with_alpha:
        diagonal = sums[:, position : position + q]
        if products:
            o = sums[:, position + q : position + q + q * q].reshape(-1, q, q).copy()
        elif size == 1:  # the estimate: o = (w scaled)^T n, a q x q product
            o = ((w[0][:, None] * scaled).T @ counts)[None]
        else:  # many categories: one product per category instead of a units x q^2 block
            o = np.stack([w @ (scaled[:, c : c + 1] * counts) for c in range(q)], axis=1)
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
    reasons = undefined_reasons(
        "alpha",
        o.shape[0],
        pairs=pair_weight,
        categories_used=(marginals > 0).sum(1),
        one_category="so there is no expected disagreement",
    )
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
    order = np.argsort(codes, kind="stable")  # each code's units together, in unit order
    present, starts = np.unique(codes[order], return_index=True)
    out = np.zeros((w.shape[0], length))
    if len(order):
        out[:, present] = np.add.reduceat(np.take(w, order, axis=1), starts, axis=1)
    return out


def cohen_kappa_batch(
    codes_a: npt.ArrayLike,
    codes_b: npt.ArrayLike,
    q: int,
    unit_weights_: npt.ArrayLike | None = None,
    *,
    weights: str | None = None,
) -> Batch:
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
