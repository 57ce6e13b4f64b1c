"""The count-matrix core of the agreement coefficients (Type III results): labels encoded as
integer codes, the units x categories counts (any number of raters) and the q x q table of two
raters, Gwet's agreement weights, Krippendorff's coincidences and distance metrics.

The design and the missing-label rule are described in :mod:`qra_widgets.measures.agreement`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..errors import NAN, QRAInputError
from ._validation import rescaled

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
        raise QRAInputError(
            f"{name}: expected a 2-D array (rows = experiments, columns = items), got shape {array.shape}"
        )
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


def encode(
    labels: npt.ArrayLike, *, categories: npt.ArrayLike | None = None, name: str = "labels"
) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes (-1 = missing) and the ordered category list for a label matrix.

    >>> codes, cats = encode([[1, 2, None], [2, 2, 3]])
    >>> codes.tolist(), cats.tolist()
    ([[0, 1, -1], [1, 1, 2]], [1.0, 2.0, 3.0])
    """
    array = _as_label_matrix(labels, name)
    codes, found = encode_values(array.ravel(), categories=categories, name=name)
    return codes.reshape(array.shape), found


def encode_values(
    values: npt.ArrayLike, *, categories: npt.ArrayLike | None = None, name: str = "labels"
) -> tuple[np.ndarray, np.ndarray]:
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


def category_counts(
    labels: npt.ArrayLike | CategoryCounts, *, categories: npt.ArrayLike | None = None
) -> CategoryCounts:
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
    full = np.bincount(offsets.ravel(), minlength=array.shape[1] * (span + 1)).reshape(array.shape[1], span + 1)[
        :, :span
    ]
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


# ----------------------------------------------------------------------------- two-experiment API


def _two_raters(a, b) -> np.ndarray:
    left, right = np.asarray(a), np.asarray(b)
    if left.dtype.kind not in "biuf" or right.dtype.kind not in "biuf":
        left, right = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    if left.ndim != 1 or right.ndim != 1:
        raise QRAInputError("a and b: each must be a 1-D sequence of labels")
    if left.size != right.size:
        raise QRAInputError(
            f"a and b: lengths differ ({left.size} vs {right.size}); label i of each must be for the same item"
        )
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
    return PairCounts(
        table,
        np.bincount(codes[0, has_a & ~has_b], minlength=q),
        np.bincount(codes[1, has_b & ~has_a], minlength=q),
        found,
    )


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
            "Pass layout='items x categories' for a count table"
        )
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
        between = (
            cumulative[..., None, :]
            - cumulative[..., :, None]
            + (marginals[..., :, None] - marginals[..., None, :]) / 2
        )
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
