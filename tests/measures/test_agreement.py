"""measures/agreement.py: the public face of the Type III coefficients, on the published examples
every coefficient is read against (Fleiss 1971; Krippendorff 2011), and the input refusals they
share (one table here, not one per coefficient)."""

from __future__ import annotations

import numpy as np
import pytest

from qra_widgets import QRAInputError
from qra_widgets import measures as m
from qra_widgets.measures import agreement, agreement_counts, batch_agreement, gwet, kappa, krippendorff

# Fleiss (1971), Table 1: 30 patients, each diagnosed by 6 of 43 psychiatrists into 5 categories
# (1 depression, 2 personality disorder, 3 schizophrenia, 4 neurosis, 5 other); one row per patient
# (the raters' order within a row carries nothing: Fleiss' raters are not the same people).  As R's
# irr package ships it (``diagnoses``) and statsmodels' tests copy it.
FLEISS_1971 = np.array(
    [
        [4, 4, 4, 4, 4, 4],
        [2, 2, 2, 5, 5, 5],
        [2, 3, 3, 3, 3, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 2, 2, 4, 4, 4],
        [1, 1, 3, 3, 3, 3],
        [3, 3, 3, 3, 5, 5],
        [1, 1, 3, 3, 3, 4],
        [1, 1, 4, 4, 4, 4],
        [5, 5, 5, 5, 5, 5],
        [1, 4, 4, 4, 4, 4],
        [1, 2, 4, 4, 4, 4],
        [2, 2, 2, 3, 3, 3],
        [1, 4, 4, 4, 4, 4],
        [2, 2, 4, 4, 4, 5],
        [3, 3, 3, 3, 3, 5],
        [1, 1, 1, 4, 5, 5],
        [1, 1, 1, 1, 1, 2],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 5, 5, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 4, 4, 4, 4, 4],
        [2, 2, 4, 5, 5, 5],
        [1, 1, 4, 4, 4, 4],
        [1, 4, 4, 4, 4, 5],
        [2, 2, 2, 2, 2, 4],
        [1, 1, 1, 1, 5, 5],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 3, 3, 3],
        [5, 5, 5, 5, 5, 5],
    ]
)

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": binary data, two observers,
# ten units, nothing missing (alpha 0.095) ...
KRIPPENDORFF_BINARY = ([0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0])
# ... and four observers, twelve units, with missing values (None), read at every level of measurement.
KRIPPENDORFF_FOUR = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_the_face_is_each_coefficient_of_its_home_module():
    """agreement.py holds no coefficient of its own: each name is the one function of the module
    that computes it, and ``qra_widgets.measures`` hands out the same objects."""
    homes = {
        "cohen_kappa": kappa,
        "fleiss_kappa": kappa,
        "krippendorff_alpha": krippendorff,
        "gwet_ac": gwet,
        "brennan_prediger": gwet,
        "percent_agreement": gwet,
        "adjacent_agreement": gwet,
        "category_counts": agreement_counts,
        "pair_counts": agreement_counts,
        "coincidences": agreement_counts,
        "agreement_weights": agreement_counts,
        "agreement_batch": batch_agreement,
        "cohen_kappa_batch": batch_agreement,
    }
    assert set(homes) <= set(agreement.__all__)
    for name, home in homes.items():
        assert getattr(agreement, name) is getattr(home, name), name
        if hasattr(m, name):
            assert getattr(m, name) is getattr(agreement, name), name


def test_fleiss_1971_table_1_kappa_and_category_totals():
    """Fleiss (1971): kappa = .430 over the five diagnoses (irr's kappam.fleiss: 0.4302445); the
    diagnoses given are 26, 26, 30, 55 and 43 (180 = 30 patients x 6)."""
    value = m.fleiss_kappa(FLEISS_1971.T)  # raters x items
    assert round(value, 3) == 0.430
    assert value == pytest.approx(0.4302445, abs=5e-8)
    counts = m.category_counts(FLEISS_1971.T)
    assert counts.categories.tolist() == [1, 2, 3, 4, 5]
    assert counts.counts.sum(axis=0).tolist() == [26, 26, 30, 55, 43]
    # one count matrix serves the coefficient: the same kappa from the patients x diagnoses table
    assert m.fleiss_kappa(counts.counts, layout="items x categories") == value


@pytest.mark.parametrize(
    "level, published", [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)]
)
def test_krippendorff_2011_four_observers_with_missing_values(level, published):
    assert round(m.krippendorff_alpha(KRIPPENDORFF_FOUR, level=level), 3) == published


def test_krippendorff_2011_binary_example_through_every_two_rater_coefficient():
    """Krippendorff (2011) gives alpha = 0.095 for the binary example.  The other coefficients are
    worked by hand from the same ten units: 6 agree (p_o = 0.6); observer A says 1 twice, B four
    times, so Cohen's p_e = .8 x .6 + .2 x .4 = .56 and kappa = .04/.44; the pooled shares .7/.3
    give Scott's pi (Fleiss' kappa for two raters) .02/.42, Gwet's p_e = 2 x .7 x .3 = .42 gives
    AC1 = .18/.58, and Brennan-Prediger's 1/2 gives .1/.5."""
    a, b = KRIPPENDORFF_BINARY
    assert round(m.krippendorff_alpha([a, b]), 3) == 0.095
    assert m.krippendorff_alpha([a, b]) == pytest.approx(1 - 19 * 4 / (14 * 6), rel=1e-12)
    assert m.percent_agreement(a, b) == pytest.approx(0.6, rel=1e-12)
    assert m.cohen_kappa(a, b) == pytest.approx(0.04 / 0.44, rel=1e-12)
    assert m.fleiss_kappa([a, b]) == pytest.approx(0.02 / 0.42, rel=1e-12)
    assert m.gwet_ac(a, b) == pytest.approx(0.18 / 0.58, rel=1e-12)
    assert m.brennan_prediger(a, b) == pytest.approx(0.1 / 0.5, rel=1e-12)
    # the two-rater table (a, b) and the count matrix ([a, b]) are one computation
    assert m.gwet_ac([a, b]) == pytest.approx(m.gwet_ac(a, b), rel=1e-12)
    assert m.brennan_prediger([a, b]) == pytest.approx(m.brennan_prediger(a, b), rel=1e-12)


# ---------------------------------------------------------------------- the refusals they share

REFUSALS = [
    ("mismatched label lengths", lambda: m.gwet_ac([1, 2, 3], [1, 2]), "a and b: lengths differ (3 vs 2)"),
    ("empty labels", lambda: m.cohen_kappa([], []), "a and b: are empty"),
    (
        "label outside the declared categories",
        lambda: m.cohen_kappa([1, 7], [1, 2], categories=[1, 2, 3]),
        "label 7.0 is not one of the declared categories",
    ),
    (
        "duplicate declared categories",
        lambda: m.brennan_prediger([1, 2], [1, 2], categories=[1, 1, 2]),
        "categories: contains duplicates",
    ),
    ("unknown alpha level", lambda: m.krippendorff_alpha([[1, 2], [1, 2]], level="circular"), "level: must be one of"),
    ("unknown weights", lambda: m.cohen_kappa([1, 2], [1, 2], weights="cubic"), "weights: must be one of"),
    (
        "negative tolerance",
        lambda: m.adjacent_agreement([1, 2], [1, 2], tolerance=-1),
        "tolerance: must be a finite number >= 0",
    ),
    ("labels of one experiment", lambda: m.fleiss_kappa([[1, 2, 3]]), "labels: needs at least 2 experiments"),
    ("infinite label", lambda: m.krippendorff_alpha([[1.0, np.inf], [1.0, 2.0]]), "labels: contains an infinite value"),
]


@pytest.mark.parametrize("case, action, message", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_malformed_labels_and_options_are_refused_naming_the_field(case, action, message):
    with pytest.raises(QRAInputError) as caught:
        action()
    assert message in str(caught.value), f"{case}: {caught.value}"
