"""The bootstrap of comparative judgements (pairwise, best-worst): a judgement is what was sampled,
so the ratings it gives every system shown are resampled together, never apart."""

from __future__ import annotations

import numpy as np
import pytest

from qra_widgets.io.annotations import load_annotations
from qra_widgets.uncertainty import bootstrap, design_of, draw_weights, jackknife_weights


def _pairs_csv(rng: np.random.Generator, judgements: int, systems=("x", "y", "z")) -> str:
    rows = ["item,rater,left,right,answer"]
    pairs = [(a, b) for k, a in enumerate(systems) for b in systems[k + 1 :]]
    for j in range(judgements):
        a, b = pairs[j % len(pairs)]
        answer = rng.choice(["A", "B", "same"], p=[0.5, 0.35, 0.15])
        rows.append(f"i{j},r{j % 4},{a},{b},{answer}")
    return "\n".join(rows) + "\n"


def _spec(experiments, score="preference", scale=(-100, 100)):
    return {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "pairs",
        "quality_criteria": [{"name": "Q", "scale_min": scale[0], "scale_max": scale[1], "label_level": "nominal"}],
        "experiments": [
            {
                "id": e,
                "file": f"{e}.csv",
                "layout": "pairwise",
                "score": score,
                "columns": {
                    "item": "item",
                    "rater": "rater",
                    "system_a": "left",
                    "system_b": "right",
                    "choice": "answer",
                },
                "choices": {"A": "a", "B": "b", "same": "tie"},
            }
            for e in experiments
        ],
    }


@pytest.fixture
def two_system_study(tmp_path):
    rng = np.random.default_rng(11)
    for e in ("O", "R"):
        (tmp_path / f"{e}.csv").write_text(_pairs_csv(rng, 40, systems=("x", "y")))
    return load_annotations(_spec(["O", "R"]), base=tmp_path)


def test_the_two_ratings_of_a_pairwise_judgement_carry_one_weight_in_every_replicate(two_system_study):
    design = design_of(two_system_study)
    assert design.cluster is not None
    weights = draw_weights(design, 200, np.random.default_rng(3))
    for c in np.unique(design.cluster):
        members = np.flatnonzero(design.cluster == c)
        assert len(members) == 2  # the judgement's unit for x and for y
        for g in range(weights.shape[0]):
            assert np.array_equal(weights[g][:, members[0]], weights[g][:, members[1]])
    # each replicate keeps the experiment's number of judgements (units of x: the judgements, once each)
    x_units = design.unit_system == 0
    assert set(weights[0][:, x_units].sum(axis=1)) == {40.0}


def test_with_two_systems_the_preference_scores_stay_opposite_in_every_replicate(two_system_study):
    # a judgement gives x +100 and y -100 (or 0 and 0 for a tie), so x's score is minus y's in the
    # data and must stay so in every resample; resampling the two halves apart broke this
    result = bootstrap(two_system_study, B=300, seed=5)
    for e in ("O", "R"):
        x = result.replicates[("mean", e, "Q", "x")]
        y = result.replicates[("mean", e, "Q", "y")]
        assert np.allclose(x + y, 0.0)
        assert two_system_study.scores[("Q", "x", e)] == pytest.approx(-two_system_study.scores[("Q", "y", e)])
    assert np.std(result.replicates[("mean", "O", "Q", "x")]) > 1.0  # and the replicates do vary


def test_judgements_are_drawn_within_their_system_pair(tmp_path):
    rng = np.random.default_rng(2)
    for e in ("O", "R"):
        (tmp_path / f"{e}.csv").write_text(_pairs_csv(rng, 60))
    study = load_annotations(_spec(["O", "R"]), base=tmp_path)
    design = design_of(study)
    weights = draw_weights(design, 100, np.random.default_rng(0))[0]
    first_unit = {}
    for k, c in enumerate(design.cluster):
        first_unit.setdefault(int(c), k)
    by_pair: dict = {}
    for c, k in first_unit.items():
        by_pair.setdefault(int(design.stratum[c]), []).append(k)
    assert len(by_pair) == 3  # x-y, x-z, y-z: 20 judgements each
    for units in by_pair.values():
        assert set(weights[:, units].sum(axis=1)) == {20.0}


def test_a_judgement_leaves_the_jackknife_with_all_its_ratings(two_system_study):
    design = design_of(two_system_study)
    jack = jackknife_weights(design)[0]
    for c in np.unique(design.cluster):
        members = np.flatnonzero(design.cluster == c)
        assert np.array_equal(jack[:, members[0]], jack[:, members[1]])


def test_best_worst_tuples_are_resampled_whole(tmp_path):
    rows = ["hit,worker,s1,s2,s3,best,worst"]
    rng = np.random.default_rng(4)
    systems = ["w", "x", "y", "z"]
    for h in range(30):
        shown = list(rng.choice(systems, 3, replace=False))
        best, worst = rng.choice(shown, 2, replace=False)
        rows.append(f"h{h},r{h % 3},{shown[0]},{shown[1]},{shown[2]},{best},{worst}")
    for e in ("O", "R"):
        (tmp_path / f"{e}.csv").write_text("\n".join(rows) + "\n")
    spec = {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "bws",
        "quality_criteria": [{"name": "Q", "scale_min": -100, "scale_max": 100, "label_level": "nominal"}],
        "experiments": [
            {
                "id": e,
                "file": f"{e}.csv",
                "layout": "best_worst",
                "columns": {
                    "item": "hit",
                    "rater": "worker",
                    "shown": ["s1", "s2", "s3"],
                    "best": "best",
                    "worst": "worst",
                },
            }
            for e in ("O", "R")
        ],
    }
    study = load_annotations(spec, base=tmp_path)
    design = design_of(study)
    weights = draw_weights(design, 50, np.random.default_rng(1))[0]
    for c in np.unique(design.cluster):
        members = np.flatnonzero(design.cluster == c)
        assert len(members) == 3
        assert (weights[:, members] == weights[:, members[:1]]).all()
    # the best-worst score of each system in each replicate is the one of the resampled tuples
    result = bootstrap(study, B=100, seed=2)
    x = result.replicates[("mean", "O", "Q", "x")]
    assert np.isfinite(x).all() and x.min() >= -100 and x.max() <= 100 and np.std(x) > 1.0


def test_plain_ratings_have_no_judgement_clusters_and_keep_their_per_system_resampling():
    from tests.engine.test_uncertainty import simulated_study

    study = simulated_study(1)
    design = design_of(study)
    assert design.cluster is None and design.stratum is None
    weights = draw_weights(design, 50, np.random.default_rng(0))[0]
    for s in np.unique(design.unit_system):  # every system keeps its own number of items
        assert set(weights[:, design.unit_system == s].sum(axis=1)) == {float((design.unit_system == s).sum())}


def test_bradley_terry_replicates_refit_the_model_and_match_the_assessed_value(tmp_path):
    # the values are model fits, not means of the won/tied/lost ratings: each replicate refits them
    from qra_widgets.assess import assess
    from qra_widgets.measures.pairwise import bradley_terry, win_rates

    rng = np.random.default_rng(8)
    for e in ("O", "R"):
        (tmp_path / f"{e}.csv").write_text(_pairs_csv(rng, 90))
    study = load_annotations(_spec(["O", "R"], score="bradley_terry", scale=(0, 100)), base=tmp_path)
    assert study.metadata["annotations"]["comparative_scores"] == {"Q": {"O": "bradley_terry", "R": "bradley_terry"}}
    result = bootstrap(study, B=200, seed=1)
    frame = np.genfromtxt(tmp_path / "O.csv", delimiter=",", dtype=str, skip_header=1)
    outcome = np.array([{"A": "a", "B": "b", "same": "tie"}[x] for x in frame[:, 4]], dtype=object)
    fitted = bradley_terry(frame[:, 2], frame[:, 3], outcome)
    rates = win_rates(frame[:, 2], frame[:, 3], outcome)
    for system in ("x", "y", "z"):
        assert study.scores[("Q", system, "O")] == pytest.approx(fitted[system])
        assert result.estimates[("mean", "O", "Q", system)] == pytest.approx(fitted[system], abs=1e-6)
        replicates = result.replicates[("mean", "O", "Q", system)]
        # centred on the Bradley-Terry value, not on the win rate it used to resample
        assert (
            abs(np.median(replicates) - fitted[system]) < abs(np.median(replicates) - rates[system])
            or abs(fitted[system] - rates[system]) < 1.0
        )
        assert np.isfinite(replicates).all()
    cv = assess(study, bootstrap=200, seed=1).to_frame()
    row = cv[(cv.measure == "CV*") & (cv.level == "system") & (cv.system == "x")].iloc[0]
    assert row.ci_low <= row.value <= row.ci_high or row.ci_method == "upper-one-sided"


def test_bradley_terry_batch_is_the_scalar_fit_row_by_row():
    from qra_widgets.measures.pairwise import bradley_terry, bradley_terry_batch

    a = ["x"] * 10 + ["y"] * 10 + ["x"] * 10
    b = ["y"] * 10 + ["z"] * 10 + ["z"] * 10
    o = ["a"] * 7 + ["b"] * 3 + ["a"] * 6 + ["tie"] * 4 + ["a"] * 8 + ["b"] * 2
    scalar = bradley_terry(a, b, o)
    wins = np.array([[0, 7, 8], [3, 0, 10], [2, 4, 0]], dtype=float)  # ties count once each way
    never_lost = wins.copy()
    never_lost[1:, 0] = 0.0
    found = bradley_terry_batch(np.stack([wins, never_lost]))
    assert found.values[0] == pytest.approx([scalar["x"], scalar["y"], scalar["z"]], abs=1e-8)
    assert np.isnan(found.values[1]).all()
    assert (
        found.reasons[1]
        == "Bradley-Terry is undefined: only 2 of 3 systems both won and lost (set alpha > 0 to regularise)"
    )
