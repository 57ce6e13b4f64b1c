"""measures/agreement_counts.py: the category counts every agreement coefficient reads."""

from __future__ import annotations

from qra_widgets import measures as m


def test_string_labels_count_per_category_leaving_missing_values_out():
    labels = [["good", "bad", None], ["good", "good", "bad"], ["good", "bad", ""]]
    counts = m.category_counts(labels)
    assert counts.categories.tolist() == ["bad", "good"]
    assert counts.counts.tolist() == [[0, 3], [2, 1], [1, 0]]


def test_non_integer_labels_use_the_sorting_path():
    labels = [[0.5, 1.5, 2.25], [0.5, 1.5, 1.5]]
    counts = m.category_counts(labels)
    assert counts.categories.tolist() == [0.5, 1.5, 2.25]
    assert counts.counts.tolist() == [[2, 0, 0], [0, 2, 0], [0, 1, 1]]
