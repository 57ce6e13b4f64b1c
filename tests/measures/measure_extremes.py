"""What the extremes tests of the measures share (tests/measures/test_<module>.py): Hypothesis settings
and strategies, peer values in exact arithmetic (:mod:`fractions`), and the 4-point data of the
listed bugs.  Not a test module."""

import math
import warnings
from fractions import Fraction
from itertools import combinations

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from qra_widgets import UndefinedMeasureWarning
from qra_widgets import measures as m

# local settings (not a global profile, which would change every other module's tests)
EXTREMES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# the 4-point data whose Pearson r is 0.727 and 0.351
R_0727 = (np.array([2.0, 6.0, 6.0, 4.0]), np.array([3.0, 6.0, 7.0, 1.0]))


R_0351 = (np.array([4.0, 3.0, 2.0, 6.0]), np.array([7.0, 7.0, 2.0, 5.0]))


def quiet(function, *args, **kwargs):
    """Call a measure, collecting its UndefinedMeasureWarning reasons."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMeasureWarning)
        value = function(*args, **kwargs)
    return value, [str(w.message) for w in caught if issubclass(w.category, UndefinedMeasureWarning)]


def kappa_pair(agree_0: int, agree_1: int, a1_b0: int, a0_b1: int):
    a = np.repeat([0, 1, 1, 0], [agree_0, agree_1, a1_b0, a0_b1])
    b = np.repeat([0, 1, 0, 1], [agree_0, agree_1, a1_b0, a0_b1])
    return a, b


def exact_agreement(patterns: np.ndarray, multiplicity: np.ndarray, q: int):
    """Fleiss' kappa, AC1, BP and nominal alpha in rational arithmetic (Gwet 2014;
    Krippendorff 2011), from distinct unit patterns (counts per category) and how often each occurs."""
    units = [(tuple(int(c) for c in row), int(k)) for row, k in zip(patterns, multiplicity) if k > 0 and row.sum() > 0]
    rated = sum(k for _, k in units)
    pairable = [(row, k) for row, k in units if sum(row) >= 2]
    paired = sum(k for _, k in pairable)
    p_a = sum(k * Fraction(sum(n * (n - 1) for n in row), sum(row) * (sum(row) - 1)) for row, k in pairable) / paired
    pi = [sum(k * Fraction(row[c], sum(row)) for row, k in units) / rated for c in range(q)]
    fleiss_pe = sum(p * p for p in pi)
    ac_pe = sum(p * (1 - p) for p in pi) / (q - 1)
    bp_pe = Fraction(1, q)
    o = [
        [sum(k * Fraction(row[c] * row[d] - (c == d) * row[c], sum(row) - 1) for row, k in pairable) for d in range(q)]
        for c in range(q)
    ]
    n_c = [sum(o[c]) for c in range(q)]
    n = sum(n_c)
    d_o = sum(o[c][d] for c in range(q) for d in range(q) if c != d) / n
    d_e = sum(n_c[c] * n_c[d] for c in range(q) for d in range(q) if c != d) / (n * (n - 1))
    return {
        "fleiss": (p_a - fleiss_pe) / (1 - fleiss_pe) if fleiss_pe != 1 else None,
        "ac": (p_a - ac_pe) / (1 - ac_pe),
        "bp": (p_a - bp_pe) / (1 - bp_pe),
        "alpha": 1 - d_o / d_e if d_e != 0 else None,
    }


@st.composite
def near_unanimous_counts(draw):
    """Units x 3 categories: one pattern repeated up to 10^5 times, a few rare patterns."""
    raters = draw(st.integers(2, 5))
    q = 3
    common = np.zeros(q, dtype=np.int64)
    common[draw(st.integers(0, q - 1))] = raters
    rare = []
    for _ in range(draw(st.integers(0, 3))):
        labels = draw(st.lists(st.integers(0, q - 1), min_size=1, max_size=raters))
        rare.append(np.bincount(labels, minlength=q))
    patterns = np.vstack([common] + rare)
    multiplicity = np.array([draw(st.integers(1, 10**5))] + [draw(st.integers(1, 3)) for _ in rare])
    return patterns, multiplicity, q


positive = st.floats(0.5, 2.0)


def cv_star_bound(n: int) -> float:
    """Largest CV* of n values >= 0: s <= n mean / sqrt(n - 1) (all but one value 0)."""
    return (1 + 1 / (4 * n)) * n / math.sqrt(n - 1) / m.c4(n) * 100


scores = st.lists(st.floats(-100, 100), min_size=3, max_size=10)


magnitudes = st.lists(st.one_of(st.floats(1e-3, 100), st.floats(-100, -1e-3)), min_size=3, max_size=10)


def well_separated(values: np.ndarray) -> bool:
    """No two values so close that multiplying by 10^p could merge or reorder them."""
    gaps = np.diff(np.unique(values))
    return values.size == np.unique(values).size and (gaps > 1e-9 * np.max(np.abs(values))).all()


def exact_pearson(x, y) -> float:
    """r from the exact binary values of x and y, in rational arithmetic."""
    fx, fy = [Fraction(float(v)) for v in x], [Fraction(float(v)) for v in y]
    mx, my = sum(fx) / len(fx), sum(fy) / len(fy)
    sxy = sum((a - mx) * (b - my) for a, b in zip(fx, fy))
    sxx, syy = sum((a - mx) ** 2 for a in fx), sum((b - my) ** 2 for b in fy)
    return math.copysign(math.sqrt(sxy * sxy / (sxx * syy)), sxy)


def ulps_above(level: float, ulps) -> np.ndarray:
    values = np.full(len(ulps), level)
    for i, k in enumerate(ulps):
        for _ in range(k):
            values[i] = np.nextafter(values[i], np.inf)
    return values


def exact_kendall_w(matrix: np.ndarray) -> Fraction:
    from scipy.stats import rankdata

    ranks = [[Fraction(r).limit_denominator(2) for r in rankdata(row)] for row in matrix]
    mm, n = len(ranks), len(ranks[0])
    sums = [sum(row[j] for row in ranks) for j in range(n)]
    mean = sum(sums) / n
    ties = 0
    for row in ranks:
        for value in set(row):
            t = row.count(value)
            ties += t**3 - t
    return 12 * sum((s - mean) ** 2 for s in sums) / (mm * mm * (n**3 - n) - mm * ties)


def naive_p(matrix):
    same = total = 0
    for i, j in combinations(range(matrix.shape[0]), 2):
        for a, b in combinations(range(matrix.shape[1]), 2):
            total += 1
            same += np.sign(matrix[i, a] - matrix[i, b]) == np.sign(matrix[j, a] - matrix[j, b])
    return same, total
