"""The bootstrap's Bradley-Terry refits: every replicate fitted at once by Newton's method
(``measures.pairwise.newton_fit``) must give the values of the single fit (choix's
``ilsr_pairwise_dense``, what ``assess()`` uses) replicate by replicate, on real replicates of
real and simulated judgements, with ties, with a system that never wins, and where the
comparisons give no unique maximum (then the single fit decides, as before)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_comparative_bootstrap import _pairs_csv, _spec

import qra_widgets as qw
from qra_widgets.conventions import resolve
from qra_widgets.judgements import bradley_terry_terms, replicate_wins
from qra_widgets.measures.pairwise import bradley_terry_batch, newton_fit, strongly_connected
from qra_widgets.uncertainty import _criterion_data, aggregation_of, design_of, draw_weights

FIELD_SPECS = Path(__file__).parents[1] / "field"


def _replicate_wins(study, B: int, seed: int) -> list[np.ndarray]:
    """Each experiment's (B, S, S) win counts under the bootstrap's own weights (its design and draw)."""
    design = design_of(study)
    weights = draw_weights(design, B, np.random.default_rng(seed))
    qc = study.quality_criteria[0]
    criterion = _criterion_data(study, qc, design, resolve(None), aggregation_of(study))
    n = len(study.systems)
    found = []
    for row, rated in criterion.rated.items():
        beat, opponents = bradley_terry_terms(design, rated.matrix + criterion.shift, rated.mask, n)
        w = weights[design.group_of[study.experiment_ids[row]]]
        wins = replicate_wins(opponents, beat[opponents[0]].sum(1)[None, :], w, n)
        assert wins.sum() == pytest.approx((w * beat.sum(1)[None, :]).sum())  # every win of every replicate, once
        found.append(wins)
    return found


def _one_by_one(wins: np.ndarray) -> np.ndarray:
    """The single fit (choix, from equal strengths) of each matrix on its own."""
    return np.concatenate([bradley_terry_batch(w[None]).values for w in wins])


def _assert_same_fits(wins: np.ndarray) -> None:
    batch = bradley_terry_batch(wins)
    single = _one_by_one(wins)
    assert np.array_equal(np.isnan(batch.values), np.isnan(single))
    assert np.nanmax(np.abs(batch.values - single)) < 1e-6  # on the 0..100 scale reported


def test_the_batch_fit_is_the_single_fit_on_bootstrap_replicates_with_ties(tmp_path):
    rng = np.random.default_rng(8)
    for e in ("O", "R"):
        (tmp_path / f"{e}.csv").write_text(_pairs_csv(rng, 90, systems=("x", "y", "z", "w")))
    study = qw.load_annotations(_spec(["O", "R"], score="bradley_terry", scale=(0, 100)), base=tmp_path)
    for wins in _replicate_wins(study, 300, seed=1):
        tied = np.minimum(wins, np.swapaxes(wins, 1, 2))  # a tie counts once each way: both directions > 0
        assert (tied > 0).any()
        _, converged = newton_fit(wins, np.zeros(4))
        assert converged.mean() > 0.9  # Newton answers (nearly) all of them, not choix
        _assert_same_fits(wins)


def test_the_batch_fit_is_the_single_fit_on_replicates_of_hosking_and_lapatas_judgements(field_data):
    """Arvan & Parde (2025)'s pairwise judgements of Hosking & Lapata (2021)'s four paraphrasers."""
    data = json.loads((FIELD_SPECS / "hosking2021_meaning_arvan2025_pairwise.json").read_text(encoding="utf-8"))
    study = qw.load_annotations(data, base=field_data)
    found = _replicate_wins(study, 200, seed=3)
    assert found
    for wins in found:
        assert wins.shape[1] == 4 and wins[0].sum() > 1000
        _assert_same_fits(wins)


def test_a_replicate_where_a_system_never_wins_is_undefined_as_in_the_single_fit():
    wins = np.array([[0, 7, 8], [3, 0, 10], [2, 4, 0]], dtype=float)
    never_won = wins.copy()
    never_won[2, :] = 0.0  # z beat nobody
    stack = np.stack([wins, never_won, wins * 2, wins + 1])
    batch = bradley_terry_batch(stack)
    assert np.isnan(batch.values[1]).all()
    assert batch.reasons[1] == (
        "Bradley-Terry is undefined: only 2 of 3 systems both won and lost (set alpha > 0 to regularise)"
    )
    _assert_same_fits(stack)
    # the published example of bradley_terry's docstring (x 75, z 30), through the batch path
    assert batch.values[0] == pytest.approx(_one_by_one(wins[None])[0], abs=1e-9)


def test_comparisons_without_a_unique_maximum_go_to_the_single_fit():
    ok = np.array([[0, 3, 2, 1], [2, 0, 1, 5], [1, 2, 0, 4], [1, 1, 1, 0]], dtype=float)
    apart = np.array([[0, 3, 0, 0], [2, 0, 0, 0], [0, 0, 0, 4], [0, 0, 1, 0]], dtype=float)  # two groups
    above = np.array([[0, 3, 2, 0], [2, 0, 0, 5], [0, 0, 0, 4], [0, 0, 1, 0]], dtype=float)  # x, y never lose to z, w
    assert strongly_connected(np.stack([ok, apart, above]) > 0).tolist() == [True, False, False]
    _strength, converged = newton_fit(np.stack([ok, apart, above]), np.zeros(4))
    assert converged.tolist() == [True, False, False]
    # no maximum-likelihood fit there (choix raised "stationary distribution could not be computed"):
    # nan with the reason, by the undefined rule, and the other replicates fitted as before
    for odd in (apart, above):
        batch = bradley_terry_batch(np.stack([ok, odd, ok * 2]))
        assert np.isnan(batch.values[1]).all() and not np.isnan(batch.values[[0, 2]]).any()
        assert batch.reasons.tolist()[1].startswith("Bradley-Terry is undefined: some group of systems never lost")
        assert batch.values[0] == pytest.approx(_one_by_one(ok[None])[0], abs=1e-9)
    regularised = bradley_terry_batch(apart[None], alpha=0.1)  # alpha > 0: a fit, as the reason says
    assert not np.isnan(regularised.values).any()


def test_assess_of_judgements_split_into_two_groups_gives_nan_with_its_reason():
    """x and y beat each other, z and w beat each other, x and y always beat z and w: every system won
    and lost, yet no maximum-likelihood fit exists (the single fit raised choix's ValueError)."""
    from qra_widgets.errors import UndefinedMeasureWarning
    from qra_widgets.measures.pairwise import bradley_terry

    with pytest.warns(UndefinedMeasureWarning, match="some group of systems never lost to the others"):
        values = bradley_terry(["x", "y", "z", "w", "x", "y"], ["y", "x", "w", "z", "z", "w"], ["a"] * 6)
    assert all(np.isnan(v) for v in values.values())
