"""measures/kappa.py: Cohen's and Fleiss' kappa."""

from __future__ import annotations

import math

import pytest

from qra_widgets import QRAInputError, UndefinedMeasureWarning
from qra_widgets import measures as m


def test_a_label_outside_the_declared_categories_is_refused():
    with pytest.raises(QRAInputError, match="label 5.0 is not one of the declared categories"):
        m.cohen_kappa([1, 2, 5], [1, 2, 3], categories=[1, 2, 3])


def test_empty_label_lists_are_refused():
    with pytest.raises(QRAInputError, match="are empty"):
        m.cohen_kappa([], [])


def test_unknown_kappa_weights_and_alpha_levels_are_refused():
    with pytest.raises(QRAInputError, match="weights: must be one of"):
        m.cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(QRAInputError, match="level: must be one of"):
        m.krippendorff_alpha([[1, 2], [1, 2]], level="circular")


def test_single_category_is_undefined():
    with pytest.warns(UndefinedMeasureWarning, match="chance agreement is 1"):
        assert math.isnan(m.cohen_kappa(["a", "a"], ["a", "a"]))
    with pytest.warns(UndefinedMeasureWarning, match="only one category is used, so there is no expected disagreement"):
        assert math.isnan(m.krippendorff_alpha([["a", "a"], ["a", "a"]]))
