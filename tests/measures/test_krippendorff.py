"""measures/krippendorff.py: Krippendorff's alpha."""

from __future__ import annotations

import irrcac_cases as peers
import numpy as np
import pytest
import vanmiltenburg_irrcac as vm_irrcac
from hypothesis import assume, given
from hypothesis import strategies as st

from qra_widgets import QRAInputError
from qra_widgets import measures as m

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning"),
]


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
    data = np.array(
        [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
            [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
        ]
    )
    plain = m.krippendorff_alpha(data, level="interval")
    assert round(plain, 3) == 0.849
    assert m.krippendorff_alpha(data * factor, level="interval") == pytest.approx(plain, rel=1e-12)
    assert m.krippendorff_alpha(data * factor, level="ratio") == pytest.approx(
        m.krippendorff_alpha(data, level="ratio"), rel=1e-12
    )


# ---------------------------------------------------------------------- against peers


@peers.PEERS
@given(peers.label_matrix(missing=True), st.sampled_from(["nominal", "ordinal", "interval", "ratio"]))
def test_krippendorff_alpha_matches_krippendorff_package(labels, level):
    import krippendorff

    pairable = (~np.isnan(labels)).sum(axis=0) >= 2
    assume(pairable.any() and len(np.unique(labels[:, pairable][~np.isnan(labels[:, pairable])])) >= 2)
    expected = krippendorff.alpha(reliability_data=labels, level_of_measurement=level)
    assert m.krippendorff_alpha(labels, level=level) == pytest.approx(expected, abs=1e-9)


# ---------------------------------------------------------------------- against peers


def test_alpha_matches_irrcac_and_the_krippendorff_package_on_van_miltenburg(vm_ratings):
    """Nominal alpha = irrCAC's unweighted alpha; interval alpha = irrCAC's alpha with
    quadratic weights (Gwet 2014: the same coefficient) = the ``krippendorff`` package."""
    import krippendorff

    labels = vm_ratings.to_numpy(float).T
    assert m.krippendorff_alpha(labels) == pytest.approx(vm_irrcac.ALL["none"]["krippendorff"], abs=1e-9)
    interval = m.krippendorff_alpha(labels, level="interval")
    assert interval == pytest.approx(vm_irrcac.ALL["quadratic"]["krippendorff"], abs=1e-9)
    assert interval == pytest.approx(
        krippendorff.alpha(reliability_data=labels, level_of_measurement="interval"), abs=1e-9
    )
    ordinal = m.krippendorff_alpha(labels, level="ordinal")
    assert ordinal == pytest.approx(
        krippendorff.alpha(reliability_data=labels, level_of_measurement="ordinal"), abs=1e-9
    )
