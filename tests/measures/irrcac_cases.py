"""Peer values for the agreement coefficients: irrCAC's on random label sets (committed in
tests/data/reference/irrcac_random.json), the Hypothesis settings and the label builders that the
peer cross-checks of tests/measures/test_<module>.py share.  Not a test module."""

import json
from itertools import combinations
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

# local settings (not a global profile, which would change every other module's tests)
PEERS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


Q = 4  # categories 1..Q


IRRCAC = json.loads((Path(__file__).parents[1] / "data" / "reference" / "irrcac_random.json").read_text())


WEIGHTS = {"none": None, "linear": "linear", "quadratic": "quadratic"}


CASES = [
    (index, name, np.array(case["labels"], dtype=float), case["irrcac"][name])
    for index, case in enumerate(IRRCAC["cases"])
    for name in WEIGHTS
]


CASE_IDS = [f"case{index}-{name}" for index, name, _, _ in CASES]


@st.composite
def label_matrix(draw, min_raters=2, max_raters=5, missing=True):
    raters = draw(st.integers(min_raters, max_raters))
    items = draw(st.integers(2, 30))
    values = draw(arrays(np.float64, (raters, items), elements=st.integers(1, Q).map(float)))
    if missing:
        mask = draw(arrays(np.bool_, (raters, items), elements=st.booleans()))
        values = np.where(mask & (draw(st.floats(0, 0.4)) > 0.2), np.nan, values)
    return values


@st.composite
def label_pair(draw, missing=False):
    labels = draw(label_matrix(2, 2, missing=missing))
    return labels[0], labels[1]


def _complete_pairs(a, b):
    keep = ~np.isnan(a) & ~np.isnan(b)
    return a[keep].astype(int), b[keep].astype(int)


def naive_p(scores):
    same = total = 0
    for i, j in combinations(range(scores.shape[0]), 2):
        for a, b in combinations(range(scores.shape[1]), 2):
            cells = scores[[i, i, j, j], [a, b, a, b]]
            if np.isnan(cells).any():
                continue
            total += 1
            same += np.sign(cells[0] - cells[1]) == np.sign(cells[2] - cells[3])
    return same, total
