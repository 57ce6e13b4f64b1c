"""measures/batch_agreement.py: the batch forms of the agreement coefficients (unit weights, the
bootstrap's way): each equals the scalar coefficient, value and undefined reason alike."""

from __future__ import annotations

import batch_cases as cases
import numpy as np
import pytest

from qra_widgets import measures as m

# ---------------------------------------------------------------------- the batch form, as the bootstrap calls it


@pytest.mark.parametrize("case", range(len(cases.LABELS)))
def test_agreement_measures_give_one_value_and_one_reason_through_both_paths(case):
    labels = cases.LABELS[case]
    counts = m.category_counts(labels)
    ones = np.ones((1, counts.counts.shape[0]))
    found = m.agreement_batch(counts, ones, measures=("fleiss_kappa", "ac1", "bp", "alpha"), level="nominal")
    cases.same(found["fleiss_kappa"].values[0], found["fleiss_kappa"].reasons[0], *cases.scalar(m.fleiss_kappa, labels))
    cases.same(found["ac1"].values[0], found["ac1"].reasons[0], *cases.scalar(m.gwet_ac, labels))
    cases.same(found["bp"].values[0], found["bp"].reasons[0], *cases.scalar(m.brennan_prediger, labels))
    cases.same(found["alpha"].values[0], found["alpha"].reasons[0], *cases.scalar(m.krippendorff_alpha, labels))
    for level in ("ordinal", "interval", "ratio"):
        alpha = m.agreement_batch(counts, ones, measures=("alpha",), level=level)["alpha"]
        cases.same(alpha.values[0], alpha.reasons[0], *cases.scalar(m.krippendorff_alpha, labels, level=level))
    codes, found_categories = m.encode(labels[:2])
    kappa = m.cohen_kappa_batch(codes[0], codes[1], found_categories.size)
    cases.same(kappa.values[0], kappa.reasons[0], *cases.scalar(m.cohen_kappa, labels[0], labels[1]))


def test_near_total_agreement_is_defined_in_both_paths():
    """The audit's case: Cohen's kappa 0.4999990 (scikit-learn agrees) was nan in the bootstrap's copy."""
    from sklearn.metrics import cohen_kappa_score

    a = np.zeros(1_000_000)
    b = np.zeros(1_000_000)
    a[0] = 1
    b[:2] = 1
    codes, categories = m.encode(np.vstack([a, b]))
    found = m.cohen_kappa_batch(codes[0], codes[1], categories.size)
    assert (
        found.values[0]
        == pytest.approx(cohen_kappa_score(a, b), rel=1e-9)
        == pytest.approx(m.cohen_kappa(a, b), rel=1e-12)
    )
    assert found.values[0] == pytest.approx(2 / 3, abs=1e-6)  # one shared 1 of three: kappa = 2/3 to 1e-6


def test_unit_weights_equal_the_measure_on_the_items_repeated():
    """Weight 2 on a unit is that unit twice, weight 0 is the unit left out: the bootstrap's meaning."""
    rng = np.random.default_rng(4)
    labels = rng.integers(1, 5, size=(4, 30)).astype(float)
    labels[rng.random(labels.shape) < 0.15] = np.nan
    weights = rng.multinomial(30, np.full(30, 1 / 30), size=3).astype(float)
    counts = m.category_counts(labels, categories=[1, 2, 3, 4])
    found = m.agreement_batch(counts, weights, measures=("fleiss_kappa", "alpha", "ac1", "bp"), level="ordinal")
    codes, _ = m.encode(labels[:2], categories=[1.0, 2.0, 3.0, 4.0])
    kappa = m.cohen_kappa_batch(codes[0], codes[1], 4, weights)
    for b, row in enumerate(weights.astype(int)):
        repeated = labels[:, np.repeat(np.arange(30), row)]
        assert found["fleiss_kappa"].values[b] == pytest.approx(
            m.fleiss_kappa(repeated, categories=[1, 2, 3, 4]), rel=1e-12
        )
        assert found["alpha"].values[b] == pytest.approx(
            m.krippendorff_alpha(repeated, level="ordinal", categories=[1, 2, 3, 4]), rel=1e-12
        )
        assert found["ac1"].values[b] == pytest.approx(m.gwet_ac(repeated, categories=[1, 2, 3, 4]), rel=1e-12)
        assert kappa.values[b] == pytest.approx(
            m.cohen_kappa(repeated[0], repeated[1], categories=[1, 2, 3, 4]), rel=1e-12
        )
