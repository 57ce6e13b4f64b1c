"""measures/gwet.py: percent and adjacent agreement, Gwet's AC1/AC2, Brennan-Prediger."""

from __future__ import annotations

import numpy as np
import pytest

from qra_widgets import QRAInputError
from qra_widgets import measures as m


def test_label_lengths_must_match():
    with pytest.raises(QRAInputError, match="lengths differ \\(3 vs 2\\)"):
        m.gwet_ac([1, 2, 3], [1, 2])


def test_bp_counts_unused_categories_when_declared():
    """Y&C footnote 8: BP depends on the size of the scale, not only the labels used."""
    a, b = [1, 2, 1, 2], [1, 2, 2, 2]
    assert m.brennan_prediger(a, b) == pytest.approx((0.75 - 0.5) / 0.5)
    assert m.brennan_prediger(a, b, categories=[1, 2, 3, 4]) == pytest.approx((0.75 - 0.25) / 0.75)


def test_adjacent_agreement_counts_pairs_within_the_tolerance():
    a, b = [1, 2, 3, 5], [3, 2, 1, 4]
    assert m.adjacent_agreement(a, b, tolerance=0) == 0.25
    assert m.adjacent_agreement(a, b, tolerance=1) == 0.5
    assert m.adjacent_agreement(a, b, tolerance=2) == 1.0
    with pytest.raises(QRAInputError, match="tolerance"):
        m.adjacent_agreement(a, b, tolerance=-1)


def test_missing_labels_are_left_out_pairwise():
    assert m.percent_agreement([1, None, 3, 4], [1, 2, 3, np.nan]) == 1.0
