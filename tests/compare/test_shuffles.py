"""The property analysis' permutation test by order tables (qra_widgets/shuffles.py) against a
pass over every pair per shuffle, on libraries whose studies have 2 to 8 experiments (so both
the tables, up to 5 experiments, and the pair-by-pair path run)."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qra_widgets.shuffles import MAX_TABULATED, Shuffles, order_ranks


def library(rng: np.random.Generator, sizes: list[int], criteria: int, shuffles: int):
    """A library's permutation design as property_effects builds it, with random answer classes."""
    study_index, first_slot, place_a, place_b = [], [], [], []
    slot = 0
    for s, m in enumerate(sizes):
        for _ in range(criteria):
            for a, b in itertools.combinations(range(m), 2):
                study_index.append(s), first_slot.append(slot), place_a.append(a), place_b.append(b)
            slot += m
    size = np.array(sizes)
    study_offset = np.concatenate([[0], np.cumsum(size)[:-1]])
    perm = np.empty((shuffles, int(size.sum())), dtype=np.int64)
    for s, m in enumerate(size):
        perm[:, study_offset[s] : study_offset[s] + m] = rng.permuted(np.tile(np.arange(m), (shuffles, 1)), axis=1)
    labels = rng.integers(-1, 3, size=slot)
    arrays = [np.array(x, dtype=np.int64) for x in (study_index, first_slot, place_a, place_b)]
    return perm, study_offset, size, arrays, labels


def by_pairs(perm, study_offset, arrays, labels, centred) -> np.ndarray:
    """Every shuffle, every pair: the definition."""
    study_index, first_slot, place_a, place_b = arrays
    la = labels[first_slot + perm[:, study_offset[study_index] + place_a]]
    lb = labels[first_slot + perm[:, study_offset[study_index] + place_b]]
    answered = (la >= 0) & (lb >= 0)
    same, differ = answered & (la == lb), answered & (la != lb)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (differ * centred).sum(1) / differ.sum(1) - (same * centred).sum(1) / same.sum(1)


def test_order_ranks_are_the_positions_in_itertools_permutations():
    for m in range(1, 6):
        orders = np.array(list(itertools.permutations(range(m))))
        np.testing.assert_array_equal(order_ranks(orders), np.arange(len(orders)))


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(2, MAX_TABULATED + 3), min_size=1, max_size=12),
    criteria=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_tables_give_every_shuffled_effect_of_the_pass_over_the_pairs(sizes, criteria, seed):
    rng = np.random.default_rng(seed)
    perm, study_offset, size, arrays, labels = library(rng, sizes, criteria, shuffles=300)
    centred = rng.normal(size=len(arrays[0]))
    found = Shuffles(perm, study_offset, size, *arrays).effects(labels, centred)
    expected = by_pairs(perm, study_offset, arrays, labels, centred)
    np.testing.assert_array_equal(np.isfinite(found), np.isfinite(expected))
    np.testing.assert_allclose(found[np.isfinite(found)], expected[np.isfinite(expected)], rtol=1e-12, atol=1e-12)


def test_a_library_of_mixed_sizes_uses_both_paths():
    rng = np.random.default_rng(1)
    perm, study_offset, size, arrays, labels = library(rng, [2, 3, 4, 5, 6, 8, 4], 2, shuffles=600)
    shuffles = Shuffles(perm, study_offset, size, *arrays)
    assert {int(len(t[0]) and size[arrays[0][t[0][0]]]) for t in shuffles.tables} == {2, 3, 4, 5}
    assert shuffles.rest is not None and set(size[arrays[0][shuffles.rest[0]]]) == {6, 8}
    centred = rng.normal(size=len(arrays[0]))
    np.testing.assert_allclose(
        shuffles.effects(labels, centred), by_pairs(perm, study_offset, arrays, labels, centred), rtol=1e-12, atol=1e-12
    )
