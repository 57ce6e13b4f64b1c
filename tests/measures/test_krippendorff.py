"""measures/krippendorff.py: Krippendorff's alpha."""

from __future__ import annotations

import numpy as np
import pytest

from qra_widgets import QRAInputError
from qra_widgets import measures as m


def test_interval_alpha_needs_numbers():
    with pytest.raises(QRAInputError, match="needs numeric labels"):
        m.krippendorff_alpha([["a", "b"], ["a", "a"]], level="interval")


def test_precomputed_counts_give_the_same_alpha():
    labels = [[1, 2, 3, 3, 1], [1, 2, 3, 2, 1], [2, 2, 3, 3, np.nan]]
    counts = m.category_counts(labels)
    for level in ("nominal", "ordinal", "interval", "ratio"):
        assert m.krippendorff_alpha(counts, level=level) == m.krippendorff_alpha(labels, level=level)
    assert m.fleiss_kappa(counts) == m.fleiss_kappa(labels)
