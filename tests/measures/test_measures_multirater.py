"""Annotator agreement within one experiment: multi-rater AC1/AC2, Brennan-Prediger, Fleiss'
kappa and Krippendorff's alpha on real item-level ratings, against irrCAC to 1e-9.

Data: van Miltenburg et al. (2024) fluency ratings, 300 items x 10 raters on a 1..4 scale,
raters 003-008 rated 120 items each (missing labels): published field data, read from
``$QRA_WIDGETS_FIELD_DATA`` (the ``field_data`` fixture; skipped without it).  irrCAC's values
on them were computed once in irrCAC's own environment (it pins old scipy and pandas) and are
committed in ``tests/data/reference/irrcac_vanmiltenburg2024.json`` with the irrCAC version and
the command (``tests/data/reference/make_irrcac_reference.py``).
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from qra_widgets import QRAInputError
from qra_widgets import measures as m

pytestmark = [
    pytest.mark.filterwarnings("ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning"),
]

SCALE = [1.0, 2.0, 3.0, 4.0]
IRRCAC = json.loads((Path(__file__).parents[1] / "data" / "reference" / "irrcac_vanmiltenburg2024.json").read_text())
ALL = IRRCAC["all_raters_item_by_rater"]
KEY = {None: "none", "linear": "linear", "quadratic": "quadratic"}


@pytest.fixture(scope="module")
def ratings(field_data) -> pd.DataFrame:
    """Items x raters, NaN where a rater did not rate an item."""
    return pd.read_csv(field_data / "vanmiltenburg2024" / "vanmiltenburg2024_fluency_ratings_item_by_rater.csv",
                       index_col="item", dtype={"item": str})


def test_the_data_has_missing_labels(ratings):
    assert ratings.shape == (300, 10)
    assert ratings.notna().sum().tolist() == [300, 300, 120, 120, 120, 120, 120, 120, 300, 300]


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_gwet_bp_fleiss_match_irrcac_on_van_miltenburg(ratings, weights):
    labels = ratings.to_numpy(float).T  # rows = raters
    counts = m.category_counts(labels, categories=SCALE)
    assert m.gwet_ac(counts, weights=weights) == pytest.approx(ALL[KEY[weights]]["gwet"], abs=1e-9)
    assert m.brennan_prediger(counts, weights=weights) == pytest.approx(ALL[KEY[weights]]["bp"], abs=1e-9)
    assert m.fleiss_kappa(counts, weights=weights) == pytest.approx(ALL[KEY[weights]]["fleiss"], abs=1e-9)
    # the label matrix gives the same as the counts
    assert m.gwet_ac(labels, weights=weights, categories=SCALE) == m.gwet_ac(counts, weights=weights)


def test_alpha_matches_irrcac_and_the_krippendorff_package_on_van_miltenburg(ratings):
    """Nominal alpha = irrCAC's unweighted alpha; interval alpha = irrCAC's alpha with
    quadratic weights (Gwet 2014: the same coefficient) = the ``krippendorff`` package."""
    import krippendorff

    labels = ratings.to_numpy(float).T
    assert m.krippendorff_alpha(labels) == pytest.approx(ALL["none"]["krippendorff"], abs=1e-9)
    interval = m.krippendorff_alpha(labels, level="interval")
    assert interval == pytest.approx(ALL["quadratic"]["krippendorff"], abs=1e-9)
    assert interval == pytest.approx(krippendorff.alpha(reliability_data=labels, level_of_measurement="interval"), abs=1e-9)
    ordinal = m.krippendorff_alpha(labels, level="ordinal")
    assert ordinal == pytest.approx(krippendorff.alpha(reliability_data=labels, level_of_measurement="ordinal"), abs=1e-9)


def test_cohen_kappa_with_missing_labels_matches_irrcac_on_van_miltenburg(ratings):
    """Raters 001 (all 300 items) and 003 (120 items): 180 items have one label only.
    P_a is over the 120 paired items; each rater's distribution over all its labels
    (irrCAC's Conger kappa, which is Cohen's kappa for two raters)."""
    pair = ratings[["001", "003"]]
    ours = m.cohen_kappa(pair["001"].to_numpy(), pair["003"].to_numpy(), categories=SCALE)
    assert ours == pytest.approx(IRRCAC["pair_001_003_conger"], abs=1e-9)
    paired = pair.dropna()
    assert len(paired) == 120
    from sklearn.metrics import cohen_kappa_score

    # dropping the 180 unpaired items (scikit-learn's only option) gives another number
    dropped = cohen_kappa_score(paired["001"].astype(int), paired["003"].astype(int), labels=[1, 2, 3, 4])
    assert abs(ours - dropped) > 1e-3
    assert m.cohen_kappa(paired["001"].to_numpy(), paired["003"].to_numpy(), categories=SCALE) == pytest.approx(dropped, abs=1e-12)


@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_two_rater_forms_with_missing_labels_match_irrcac(ratings, weights):
    pair = ratings[["002", "005"]]
    a, b = pair["002"].to_numpy(), pair["005"].to_numpy()
    expected = IRRCAC["pair_002_005"][KEY[weights]]
    assert m.gwet_ac(a, b, weights=weights, categories=SCALE) == pytest.approx(expected["gwet"], abs=1e-9)
    assert m.brennan_prediger(a, b, weights=weights, categories=SCALE) == pytest.approx(expected["bp"], abs=1e-9)
    assert m.fleiss_kappa([a, b], weights=weights, categories=SCALE) == pytest.approx(expected["fleiss"], abs=1e-9)


def test_precomputed_counts_are_put_on_the_declared_scale():
    """Counts built from the labels used (2 and 3) and then given the whole 1..4 scale: AC
    and BP count q = 4, exactly as when the scale is given from the start."""
    labels = [[2, 3, 3, 2, np.nan], [2, 3, 2, 2, 3], [3, 3, 2, np.nan, 3]]
    used_only = m.category_counts(labels)
    assert used_only.categories.tolist() == [2.0, 3.0]
    for function in (m.gwet_ac, m.brennan_prediger):
        assert function(used_only, categories=SCALE) == pytest.approx(function(labels, categories=SCALE), abs=1e-15)
        assert function(used_only, categories=SCALE) != pytest.approx(function(used_only), abs=1e-3)
    assert m.category_counts(used_only, categories=SCALE).counts.tolist() == m.category_counts(labels, categories=SCALE).counts.tolist()


def test_precomputed_counts_outside_the_declared_scale_are_refused():
    counts = m.category_counts([[1, 5], [1, 2]])
    with pytest.raises(QRAInputError, match="label 5.0 is not one of the declared categories"):
        m.gwet_ac(counts, categories=SCALE)


def test_annotators_of_one_experiment_with_string_labels():
    """Three annotators, string labels, one missing: the same AC1 from labels and counts."""
    labels = [["good", "bad", "good", None], ["good", "bad", "bad", "good"], ["good", "good", "bad", "good"]]
    counts = m.category_counts(labels)
    assert counts.counts.tolist() == [[0, 3], [2, 1], [2, 1], [0, 2]]
    # P_a: units 1 and 4 agree fully (1, 1); units 2 and 3 have 1 agreeing pair of 3 -> mean 2/3
    # pi_good = (1 + 1/3 + 1/3 + 1) / 4 = 2/3, pi_bad = 1/3;
    # P_e = T_w / (q (q - 1)) * sum pi (1 - pi) = 2 / 2 * (2/9 + 2/9) = 4/9  (Gwet 2014, AC1)
    expected = (2 / 3 - 4 / 9) / (1 - 4 / 9)
    assert m.gwet_ac(labels) == pytest.approx(expected, abs=1e-15)
    assert m.gwet_ac(counts) == pytest.approx(expected, abs=1e-15)
