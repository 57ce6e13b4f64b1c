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


# ---------------------------------------------------------------------- at the extremes


@pytest.mark.parametrize("factor", [1e-200, 1e200])
def test_interval_alpha_does_not_depend_on_scale(factor):
    """Krippendorff (2011) section A data: interval alpha 0.849 at any unit."""
    data = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
                     [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
                     [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
                     [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan]])
    plain = m.krippendorff_alpha(data, level="interval")
    assert round(plain, 3) == 0.849
    assert m.krippendorff_alpha(data * factor, level="interval") == pytest.approx(plain, rel=1e-12)
    assert m.krippendorff_alpha(data * factor, level="ratio") == pytest.approx(m.krippendorff_alpha(data, level="ratio"), rel=1e-12)
