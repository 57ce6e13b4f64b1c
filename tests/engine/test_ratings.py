"""Item-level ratings: Type I means, item labels and annotator agreement on real data.

Data: van Miltenburg et al. (2024), raw fluency ratings (1..4) from the team's public repository
(published field data: the ``vanmiltenburg2024`` fixture puts them beside our spec
``tests/data/vanmiltenburg2024/spec.json``; skipped without ``$QRA_WIDGETS_FIELD_DATA``).  Raters 001 and 002 are the direct
reproduction of August et al. (2022) whose means QRA++ (Belz 2025) Example 1 uses.
"""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import qra_widgets as qw
from qra_widgets.io import save_study, study_from_json, study_to_json
from qra_widgets.ratings import Ratings, annotator_agreement, rater_counts

# irrCAC's values on these ratings, computed once in irrCAC's own environment (it pins old scipy
# and pandas): tests/data/reference/make_irrcac_reference.py says how.
IRRCAC = json.loads((Path(__file__).parents[1] / "data" / "reference" / "irrcac_vanmiltenburg2024.json").read_text())


@pytest.fixture(scope="module")
def study(vanmiltenburg2024_study):
    return vanmiltenburg2024_study  # shared by the session: nothing here edits it


@pytest.fixture(scope="module")
def long_ratings(vanmiltenburg2024):
    return pd.read_csv(vanmiltenburg2024 / "vanmiltenburg2024_fluency_ratings_long.csv", dtype={"participant": str})


@pytest.fixture(scope="module")
def published_means(vanmiltenburg2024) -> dict[str, float]:
    """The team's exact means, as the QRA++ Example 1 data file quotes them from their results.xlsx."""
    sources = pd.read_csv(vanmiltenburg2024 / "qrapp_example1_fluency_scores.csv").source
    text = next(s for s in sources if "exact means from results.xlsx" in s)
    return {name: float(value) for name, value in re.findall(r"(SVM|GeDi|DExperts) (\d\.\d+)", text)}


def test_system_means_equal_the_published_means_to_every_digit(study, published_means, qrapp_example1):
    published = published_means
    assert published == {"SVM": 3.125, "GeDi": 2.570, "DExperts": 2.275}
    for system, value in published.items():
        mean = study.scores[("Fluency", system, "direct")]
        assert abs(mean - value) < 1e-12
        assert f"{mean:.3f}" == f"{value:.3f}"
    # the rounded values QRA++ Example 1 (Table 3) prints: 3.12 (3.125 rounded half-even in the paper), 2.57, 2.28

    example1 = qrapp_example1
    assert (
        round(study.scores[("Fluency", "GeDi", "direct")], 2)
        == example1.scores[("Fluency", "GeDi", "vanMiltenburg2024")]
    )


def test_other_aggregations_are_options(study):
    ratings = study.ratings
    mean = ratings.system_means("Fluency")
    item_mean = ratings.system_means("Fluency", "item_mean")
    median = ratings.system_means("Fluency", "median")
    # raters 001+002 rated every item of the direct reproduction once each: the two means agree
    assert item_mean[("SVM", "direct")] == pytest.approx(mean[("SVM", "direct")], abs=1e-12)
    # raters 003-008 all rated the same 120 items (6 ratings each): balanced, so equal again
    assert item_mean[("GeDi", "augmented")] == pytest.approx(mean[("GeDi", "augmented")], abs=1e-12)
    unbalanced = Ratings.from_columns(
        ["Q"] * 3, ["A"] * 3, ["i1", "i1", "i2"], ["E"] * 3, ["r1", "r2", "r1"], [1, 2, 4]
    )
    assert unbalanced.system_means("Q") == {("A", "E"): 7 / 3}
    assert unbalanced.system_means("Q", "item_mean") == {("A", "E"): 2.75}
    assert median[("SVM", "direct")] == 3.0
    with pytest.raises(qw.QRAInputError, match="aggregation"):
        ratings.system_means("Fluency", "mode")


def test_krippendorff_alpha_equals_the_krippendorff_package(study, long_ratings):
    import krippendorff

    frame = annotator_agreement(study)
    groups = {"direct": ["001", "002"], "extra": ["009", "010"], "augmented": [f"00{i}" for i in range(3, 9)]}
    for experiment, raters in groups.items():
        subset = long_ratings[long_ratings.participant.isin(raters)]
        reliability = subset.pivot_table(index="participant", columns="item", values="score").to_numpy()
        expected = krippendorff.alpha(
            reliability_data=reliability, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4]
        )
        ours = frame[(frame.experiment == experiment) & (frame.measure == "alpha")].value.item()
        assert abs(ours - expected) < 1e-9, experiment
    for level in ("nominal", "interval"):
        counted = rater_counts(study.ratings, "Fluency", "augmented")
        subset = long_ratings[long_ratings.participant.isin(groups["augmented"])]
        reliability = subset.pivot_table(index="participant", columns="item", values="score").to_numpy()
        assert (
            abs(
                qw.measures.krippendorff_alpha(
                    qw.measures.CategoryCounts(counted.counts, counted.categories), level=level
                )
                - krippendorff.alpha(reliability_data=reliability, level_of_measurement=level)
            )
            < 1e-9
        )


def test_kappa_ac1_and_bp_equal_the_reference_packages(study, long_ratings):
    from sklearn.metrics import cohen_kappa_score

    frame = annotator_agreement(study).set_index(["experiment", "measure"]).value
    direct = long_ratings[long_ratings.participant.isin(["001", "002"])].pivot_table(
        index="item", columns="participant", values="score"
    )
    assert abs(frame[("direct", "kappa")] - cohen_kappa_score(direct["001"], direct["002"])) < 1e-12
    irrcac = IRRCAC["raters_003_008_from_long"]  # irrCAC's CAC(wide, categories=[1, 2, 3, 4]) on raters 003-008
    assert abs(frame[("augmented", "ac1")] - irrcac["gwet"]) < 1e-9
    assert abs(frame[("augmented", "bp")] - irrcac["bp"]) < 1e-9
    assert abs(frame[("augmented", "fleiss_kappa")] - irrcac["fleiss"]) < 1e-9
    assert ("augmented", "kappa") not in frame.index  # six raters: no Cohen's kappa


def test_agreement_frame_columns_and_counts(study):
    frame = annotator_agreement(study)
    assert list(frame.columns[:6]) == ["experiment", "quality_criterion", "measure", "value", "n_items", "n_raters"]
    counts = frame.groupby("experiment")[["n_items", "n_raters"]].first()
    assert counts.loc["direct"].tolist() == [300, 2]
    assert counts.loc["augmented"].tolist() == [120, 6]


def test_an_items_label_is_the_median_mode_or_mean_by_the_criterions_level():
    ratings = Ratings.from_columns(
        ["Q"] * 6,
        ["A"] * 6,
        ["i1", "i1", "i2", "i2", "i2", "i2"],
        ["E"] * 6,
        ["r1", "r2", "r1", "r2", "r3", "r4"],
        [2, 3, 1, 1, 4, 4],
    )
    labels = lambda level: dict(zip(ratings.item_labels("Q", level)[1], ratings.item_labels("Q", level)[3]))
    assert labels("ordinal") == {"i1": 2.0, "i2": 2.0}  # median 2.5 in both: the even scale point
    assert labels("nominal") == {"i1": 2.0, "i2": 1.0}  # mode; ties -> the smallest category
    assert labels("interval") == {"i1": 2.5, "i2": 2.5}


def test_ordinal_labels_are_not_lowered_by_an_even_number_of_raters():
    """Ratings symmetric around 3 on 1..5: the mean label must stay near 3 with 2, 3 and 4 raters.
    The lower median (the earlier rule) gives the minimum of two ratings: about 0.3 lower."""
    rng = np.random.default_rng(0)
    items = 4000
    means = {}
    for raters in (2, 3, 4):
        values = np.clip(3 + rng.integers(-1, 2, size=(items, raters)), 1, 5).astype(float)
        ratings = Ratings.from_columns(
            ["Q"] * values.size,
            ["A"] * values.size,
            np.repeat([f"i{k}" for k in range(items)], raters),
            ["E"] * values.size,
            np.tile([f"r{k}" for k in range(raters)], items),
            values.ravel(),
        )
        means[raters] = float(ratings.item_labels("Q", "ordinal")[3].mean())
        lower_median = np.sort(values, axis=1)[:, (raters - 1) // 2].mean()
        if raters == 2:
            assert lower_median < 2.75  # the bias the rule removes
    assert all(abs(mean - 3) < 0.05 for mean in means.values()), means


def test_ratings_survive_a_study_file_and_edits(study, tmp_path):
    again = study_from_json(study_to_json(study))
    assert again.ratings == study.ratings and again.ratings.spec["id"] == "vanmiltenburg2024-fluency"
    path = tmp_path / "s.json"
    save_study(study, path)
    assert qw.load_study(path).scores == study.scores and qw.load_study(path).ratings == study.ratings
    copy = study_from_json(study_to_json(study))
    copy.rename_system("GeDi", "GeDi-2")
    assert "GeDi-2" in set(copy.ratings.columns()[1]) and "GeDi" not in set(copy.ratings.columns()[1])
    copy.remove_experiment("augmented")
    assert copy.ratings.experiments() == {"direct", "extra"}
    assert study.subset(["direct", "extra"]).ratings.experiments() == {"direct", "extra"}


def test_a_rating_outside_the_scale_is_refused_by_the_study(study):
    columns = list(study.ratings.columns())
    columns[5] = columns[5].copy()
    columns[5][7] = 9
    with pytest.raises(qw.QRAInputError, match="9 is outside the scale 1..4"):
        qw.Study(
            id="x",
            quality_criteria=study.quality_criteria,
            systems=study.systems,
            experiments=study.experiments,
            ratings=Ratings(tuple(columns)),
        )


def test_ratings_and_spec_survive_the_study_library(study, tmp_path):
    from qra_widgets.store import StudyLibrary

    library = StudyLibrary(tmp_path / "library.sqlite")
    library.save(study)
    again = library.open(study.id)
    assert again.ratings == study.ratings and again.ratings.spec == study.ratings.spec
    assert qw.assess(again).annotator_agreement().equals(qw.assess(study).annotator_agreement())


def test_ratings_off_an_integer_scales_points_are_counted_by_their_values():
    """Kendall tau values (scale -1..1, as in the QAMPARI field spec) are not points of the integer
    scale: the agreement counts their observed values instead of refusing them, and α at the interval
    level equals the krippendorff package on the same two raters."""
    import krippendorff

    from qra_widgets.study import Experiment, QualityCriterion, Study

    a = [0.887, 0.49, 0.328, -0.2, 0.5, 1.0]
    b = [0.81, 0.49, 0.616, -0.1, 0.4, 1.0]
    n = len(a)
    ratings = Ratings.from_columns(
        ["tau"] * 2 * n, ["S"] * 2 * n, [f"i{k}" for k in range(n)] * 2, ["O"] * 2 * n, ["r1"] * n + ["r2"] * n, a + b
    )
    study = Study(
        "taus",
        quality_criteria=[QualityCriterion("tau", scale_min=-1, scale_max=1, label_level="interval")],
        systems=["S"],
        experiments=[Experiment("O", role="original")],
        ratings=ratings,
    )
    frame = annotator_agreement(study).set_index("measure").value
    expected = krippendorff.alpha(reliability_data=[a, b], level_of_measurement="interval")
    assert frame["alpha"] == pytest.approx(expected, abs=1e-12)
    assert rater_counts(ratings, "tau", "O", np.array([-1.0, 0.0, 1.0])).categories.tolist() == sorted(set(a + b))
