"""The per-experiment standard errors behind the forest plot (:func:`qra_widgets.meta.forest`):
a system's item standard error (of the mean, or the bootstrap's of the median), the standard errors
a study reports, and the bootstrap of medians that rank intervals also use."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .errors import QRAInputError

if TYPE_CHECKING:
    from .study import Study


MEDIAN_B, MEDIAN_SEED = 2000, 0  # the bootstrap of a system's median: replicates and seed


def _item_value_counts(frame) -> tuple[np.ndarray, np.ndarray]:
    """``(counts, values)``: each item's number of ratings of each distinct value (items × values)."""
    values, codes = np.unique(frame["rating"].to_numpy(dtype=float), return_inverse=True)
    items = frame["item"].astype("category").cat.codes.to_numpy()
    counts = np.zeros((items.max() + 1, len(values)))
    np.add.at(counts, (items, codes), 1.0)
    return counts, values


def resampled_medians(counts: np.ndarray, values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The median of all ratings in each bootstrap replicate: ``weights`` (replicates × items)
    says how often each item was drawn, ``counts`` (items × values) how often it has each
    distinct rating ``values`` (sorted); the middle value of the multiset, or the mean of the
    two middle ones, as ``Series.median`` of the ratings drawn.

    >>> resampled_medians(np.array([[1, 1, 0], [0, 0, 2]]), np.array([1.0, 2.0, 5.0]), np.array([[1, 1], [2, 0], [0, 1]]))
    array([3.5, 1.5, 5. ])
    """
    cumulative = np.cumsum(weights @ counts, axis=1)
    total = cumulative[:, -1:]
    low = np.argmax(cumulative >= np.floor((total + 1) / 2), axis=1)
    high = np.argmax(cumulative >= np.floor(total / 2) + 1, axis=1)
    return (values[low] + values[high]) / 2


def item_standard_errors(study: Study, quality_criterion: str) -> dict[tuple[str, str], tuple[float, int]]:
    """``(system, experiment) -> (standard error, items)`` from item-level ratings: each item's
    mean over its raters, then ``sd(item means, ddof=1) / sqrt(items)``.  When the study's
    system values are medians of the ratings (aggregation ``median``), the standard error is the
    bootstrap standard error of that median instead: items drawn with replacement (each with all
    its ratings), :data:`MEDIAN_B` replicates, seed :data:`MEDIAN_SEED`.  Empty without ratings."""
    import pandas as pd

    from .uncertainty import aggregation_of

    if not study.ratings or quality_criterion not in study.ratings.criteria():
        return {}
    system, item, experiment, _rater, rating = study.ratings.for_criterion(quality_criterion)
    frame = pd.DataFrame({"system": system, "item": item, "experiment": experiment, "rating": rating})
    if aggregation_of(study) == "median":
        rng = np.random.default_rng(MEDIAN_SEED)
        found = {}
        for key, rows in frame.groupby(["system", "experiment"], sort=False):
            counts, values = _item_value_counts(rows)
            n = len(counts)
            if n < 2:
                found[key] = (float("nan"), n)
                continue
            weights = rng.multinomial(n, np.full(n, 1.0 / n), size=MEDIAN_B).astype(float)
            found[key] = (float(np.std(resampled_medians(counts, values, weights), ddof=1)), n)
        return found
    item_means = frame.groupby(["system", "experiment", "item"], sort=False)["rating"].mean()
    grouped = item_means.groupby(level=["system", "experiment"], sort=False)
    sd, n = grouped.std(ddof=1), grouped.size()
    return {
        key: (float(sd[key]) / math.sqrt(int(n[key])) if int(n[key]) > 1 else float("nan"), int(n[key]))
        for key in n.index
    }


def reported_standard_errors(study: Study) -> dict[tuple[str, str, str], float]:
    """``(quality_criterion, system, experiment) -> se`` of the system values an annotation spec
    gave as ``{"value": v, "se": s}`` (kept in ``study.metadata["annotations"]["reported_uncertainty"]``)."""
    reported = ((study.metadata or {}).get("annotations") or {}).get("reported_uncertainty") or []
    return {
        (r["quality_criterion"], r["system"], r["experiment"]): float(r["se"])
        for r in reported
        if isinstance(r, dict) and r.get("se") is not None and float(r["se"]) > 0
    }


def _standard_errors(study: Study, qc: str, given: dict | None) -> dict[tuple[str, str], tuple[float, int | None, str]]:
    found = {key: (se, n, "items") for key, (se, n) in item_standard_errors(study, qc).items()}
    given = {**reported_standard_errors(study), **(given or {})}
    for key, se in given.items():
        if not (isinstance(key, tuple) and len(key) == 3):
            raise QRAInputError(f"standard_errors: keys are (quality_criterion, system, experiment), got {key!r}")
        if key[0] == qc:
            if not (isinstance(se, (int, float)) and math.isfinite(se) and se > 0):
                raise QRAInputError(f"standard_errors[{key!r}]: must be a positive number, got {se!r}")
            found.setdefault((key[1], key[2]), (float(se), None, "given"))
    return found
