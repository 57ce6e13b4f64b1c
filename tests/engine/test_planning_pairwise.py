"""The planner for pairwise and best-worst reproductions: judgements per system pair, checked
against brute-force simulations from a known truth and from real judgements, its power under a
null, and its refusals."""

from __future__ import annotations

import itertools
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom, binomtest

import qra_widgets as qw
import qra_widgets.planning_pairwise as pp
from qra_widgets.io.annotations import load_annotations

FIELD_SPECS = Path(__file__).parents[1] / "field"
TRUTH = np.array([0.0, 0.3, 0.6, 1.0])  # four systems' Bradley-Terry strengths
PAIRWISE_RULE = {"layout": "pairwise", "score": "preference", "ties": "half"}


def pairwise_rows(strength, per_pair: int, rng, tag: str) -> pd.DataFrame:
    """Judgements drawn from the truth, written as a team's CSV: per system pair, ``per_pair``
    judgements, each shown in a random order and won with the Bradley-Terry probability."""
    rows = []
    for x, y in itertools.combinations(range(len(strength)), 2):
        won = rng.random(per_pair) < 1 / (1 + np.exp(strength[y] - strength[x]))
        for n, w in enumerate(won):
            a, b = (x, y) if rng.random() < 0.5 else (y, x)
            rows.append(
                {
                    "item": f"{tag}-{x}{y}-{n}",
                    "rater": f"{tag}-r",
                    "system_a": f"s{a}",
                    "system_b": f"s{b}",
                    "choice": "a" if w == (a == x) else "b",
                }
            )
    return pd.DataFrame(rows)


def best_worst_rows(strength, per_tuple: int, rng, tag: str) -> pd.DataFrame:
    """Best-worst judgements of every 3 of the systems, ``per_tuple`` times each in a random order,
    drawn from the sequential best-worst model: the best by Gumbel-max on the strengths, the worst
    of the rest by Gumbel-max on their negatives."""
    rows = []
    for tuple_ in itertools.combinations(range(len(strength)), 3):
        for n in range(per_tuple):
            shown = rng.permutation(np.array(tuple_))
            best = int(np.argmax(strength[shown] + rng.gumbel(size=3)))
            rest = -strength[shown] + rng.gumbel(size=3)
            rest[best] = -np.inf
            rows.append(
                {
                    "item": f"{tag}-{''.join(map(str, tuple_))}-{n}",
                    "rater": f"{tag}-r",
                    "s1": f"s{shown[0]}",
                    "s2": f"s{shown[1]}",
                    "s3": f"s{shown[2]}",
                    "best": f"s{shown[best]}",
                    "worst": f"s{shown[int(np.argmax(rest))]}",
                }
            )
    return pd.DataFrame(rows)


def spec(files, layout: str = "pairwise") -> dict:
    columns = {"item": "item", "rater": "rater", "system_a": "system_a", "system_b": "system_b", "choice": "choice"}
    if layout == "best_worst":
        columns = {"item": "item", "rater": "rater", "shown": ["s1", "s2", "s3"], "best": "best", "worst": "worst"}
    return {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "known",
        "conventions": "qrapp",
        "quality_criteria": [{"name": "Q", "scale_min": -100, "scale_max": 100, "label_level": "nominal"}],
        "experiments": [
            {
                "id": e,
                "role": "original" if k == 0 else "repeat",
                "layout": layout,
                "file": f,
                "columns": columns,
                **({"score": "preference"} if layout == "pairwise" else {}),
            }
            for k, (e, f) in enumerate(files)
        ],
    }


def assessed_widths(study, reproduction: str) -> dict[str, float]:
    """The widths of the intervals a report prints (B = 200) for the planner's width measures."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = qw.assess(study, bootstrap=200, seed=1)
    frame = result.to_frame()
    found = {
        name: float(np.ptp(frame[(frame.measure == name) & (frame.level == "qc")][["ci_low", "ci_high"]].to_numpy()))
        for name in ("CV*", "r", "P")
    }
    means = result.system_means()
    means = means[means.experiment == reproduction]
    found["value"] = float((means.ci_high - means.ci_low).mean())
    return found


@pytest.fixture(scope="module")
def known(tmp_path_factory):
    """An original of 600 judgements per pair of four systems from :data:`TRUTH` (and a tiny second
    experiment, so the study is valid), read by the pairwise reader."""
    folder = tmp_path_factory.mktemp("known")
    rng = np.random.default_rng(5)
    pairwise_rows(TRUTH, 600, rng, "O").to_csv(folder / "O.csv", index=False)
    pairwise_rows(TRUTH, 2, rng, "X").to_csv(folder / "X.csv", index=False)
    return folder, load_annotations(spec([("O", "O.csv"), ("X", "X.csv")]), base=folder)


@pytest.mark.slow
def test_expected_widths_agree_with_brute_force_from_the_truth_within_ten_percent_at_20_and_80_judgements(known):
    """The planner sees only the original's 600 judgements per pair; the brute force draws each
    reproduction from the truth, writes it as a CSV and assesses it as a report does (40 runs each;
    measured: CV* 23.8 vs 24.8 at J = 20 and 12.4 vs 12.2 at J = 80, a system's value 46.1 vs 45.4
    and 23.6 vs 23.6; not asserted: r 0.51 vs 0.44 and 0.142 vs 0.152, P 0.38 vs 0.31 and 0.167
    vs 0.175)."""
    folder, alone = known
    rng = np.random.default_rng(2026)
    for per_pair in (20, 80):
        plan = qw.plan_reproduction(
            alone, experiment="O", judgements_per_pair=[per_pair], B=200, runs=40, power_runs=1, seed=per_pair
        ).set_index("measure")
        brute = []
        for _ in range(40):
            pairwise_rows(TRUTH, per_pair, rng, "R").to_csv(folder / "R.csv", index=False)
            brute.append(assessed_widths(load_annotations(spec([("O", "O.csv"), ("R", "R.csv")]), base=folder), "R"))
        brute = pd.DataFrame(brute)
        for measure in ("CV*", "value"):
            expected = plan.loc[measure, "expected_ci_width"]
            assert abs(expected / brute[measure].mean() - 1) <= 0.10, (
                per_pair,
                measure,
                expected,
                brute[measure].mean(),
            )
            assert 0.5 <= plan.loc[measure, "ci_width_sd"] / brute[measure].std(ddof=1) <= 2.0


@pytest.mark.slow
def test_best_worst_widths_agree_with_brute_force_from_the_truth_within_ten_percent(tmp_path):
    """Best-worst judgements of each triple of four systems (an original of 300 per triple, so 600
    per pair) from :data:`TRUTH`; reproductions of J = 20 and 80 per pair drawn from the truth by
    the sequential best-worst model (30 runs each; measured: CV* 26.3 vs 28.1 and 15.1 vs 14.7, a
    system's value 51.4 vs 51.3 and 26.8 vs 26.7; not asserted: r 0.61 vs 0.54 and 0.22 vs 0.17)."""
    rng = np.random.default_rng(6)
    rows = best_worst_rows(TRUTH, 300, rng, "O")
    rows.to_csv(tmp_path / "O.csv", index=False)
    rows[:8].to_csv(tmp_path / "X.csv", index=False)
    alone = load_annotations(spec([("O", "O.csv"), ("X", "X.csv")], "best_worst"), base=tmp_path)
    rng = np.random.default_rng(2027)
    for per_pair in (20, 80):
        plan = qw.plan_reproduction(
            alone, experiment="O", judgements_per_pair=[per_pair], B=200, runs=30, power_runs=1, seed=per_pair
        ).set_index("measure")
        brute = []
        for _ in range(30):
            best_worst_rows(TRUTH, per_pair // 2, rng, "R").to_csv(tmp_path / "R.csv", index=False)  # a pair: 2 triples
            brute.append(
                assessed_widths(
                    load_annotations(spec([("O", "O.csv"), ("R", "R.csv")], "best_worst"), base=tmp_path), "R"
                )
            )
        brute = pd.DataFrame(brute)
        for measure in ("CV*", "value"):
            expected = plan.loc[measure, "expected_ci_width"]
            assert abs(expected / brute[measure].mean() - 1) <= 0.10, (
                per_pair,
                measure,
                expected,
                brute[measure].mean(),
            )
            assert 0.5 <= plan.loc[measure, "ci_width_sd"] / brute[measure].std(ddof=1) <= 2.0


@pytest.fixture(scope="module")
def hosking(field_data):
    """Arvan & Parde (2025)'s pairwise judgements of Hosking & Lapata (2021)'s four paraphrasers
    (published field data): 1,200 items x 3 judgements, 600 per system pair."""
    data = json.loads((FIELD_SPECS / "hosking2021_meaning_arvan2025_pairwise.json").read_text(encoding="utf-8"))
    return data, qw.load_annotations(data, base=field_data)


def test_the_model_of_real_pairwise_judgements_has_the_teams_order_and_their_overdispersion(hosking):
    """Arvan & Parde (2025): vae > sep_ae > lbow > dips (their preference scores 58.0 > ... in the
    report); three judgements of one item agree in 77% of pairs, more than Bradley-Terry alone
    allows, so the units get their own preferences and the strengths' covariance is wider than the
    model-based one."""
    _data, study = hosking
    qc = study.quality_criteria[0]
    model = pp.choice_model(study, qc, "R1", pp.comparative_rule(study, qc.name, "R1"))
    assert model.systems == ["vae", "sep_ae", "lbow", "dips"]
    assert np.all(np.diff(model.strength) < 0)
    assert model.agreement == pytest.approx(0.7706, abs=1e-4) and model.per_unit == 3 and model.tie_rate == 0
    assert model.unit_sd > 0.5
    judged = pp.original_judgements(study, qc.name, "R1", model.systems)
    _t, naive = pp.fit_strengths(judged["shown"], judged["best"], judged["worst"], 4, "pairwise")
    assert np.all(np.diag(model.covariance) > 1.3 * np.diag(naive))


def test_simulated_units_keep_the_original_win_rates_despite_their_own_preferences(hosking):
    """The units' noise would pull every choice towards chance; scaled by ``latent_scale`` the
    simulated reproductions win each pair as often as Arvan & Parde's judgements did (measured:
    within 0.02; unscaled, 0.29-0.45 against 0.15-0.40)."""
    _data, study = hosking
    qc = study.quality_criteria[0]
    model = pp.choice_model(study, qc, "R1", pp.comparative_rule(study, qc.name, "R1"))
    assert model.unit_sd > 0.5 and model.latent_scale > 1.3
    judged = pp.original_judgements(study, qc.name, "R1", model.systems)
    rng = np.random.default_rng(0)
    simulated = [pp.simulate_judgements(model, model.strength, 600, rng) for _ in range(10)]
    for a, b in itertools.combinations(range(len(model.systems)), 2):
        shown = (judged["shown"] == a).any(axis=1) & (judged["shown"] == b).any(axis=1)
        won = judged["shown"][shown, judged["best"][shown]] == a
        x, y = model.systems[a], model.systems[b]
        wins = []
        for j in simulated:
            pair = (j["system_a"] == x) & (j["system_b"] == y) | (j["system_a"] == y) & (j["system_b"] == x)
            x_won = (j["system_a"] == x) & (j["outcome"] == "a") | (j["system_b"] == x) & (j["outcome"] == "b")
            wins.append((pair & x_won).sum() / pair.sum())
        assert np.mean(wins) == pytest.approx(won.mean(), abs=0.03), (x, y)


@pytest.mark.slow
def test_expected_widths_agree_with_brute_force_from_real_judgements_within_ten_percent(hosking, field_data, tmp_path):
    """Arvan & Parde's items are split in two: the planner sees one half (300 judgements per pair, in
    items of 3); the brute force draws reproductions of J judgements per pair (items of 3) from the
    other half's real judgements and assesses each against the first half as a report does (30 runs
    each; measured: CV* 27.8 vs 28.3 at J = 30 and 17.9 vs 18.1 at J = 90, a system's value 45.8 vs
    45.6 and 27.6 vs 26.7; not asserted: r 0.235 vs 0.256 and 0.101 vs 0.089, P 0.26 vs 0.27 and
    0.18 vs 0.17).  Before the planner scaled the units' mean utilities (``latent_scale``), its
    simulated win rates were pulled towards 0.5 and a system's value was 13% too wide at J = 30
    (51.6 vs 45.6), r 2.5-3.6 times too wide."""
    data, study = hosking
    raw = pd.read_csv(field_data / data["experiments"][1]["file"], dtype=str)
    rng = np.random.default_rng(3)
    keys = raw[["dataset", "ix"]].drop_duplicates()
    chosen = keys.sample(frac=0.5, random_state=3)
    first = raw.merge(chosen, on=["dataset", "ix"])
    second = (
        raw.merge(chosen, on=["dataset", "ix"], how="left", indicator=True)
        .query("_merge == 'left_only'")
        .drop(columns="_merge")
    )
    first.to_csv(tmp_path / "first.csv", index=False)
    second = second.assign(pair=[" vs ".join(sorted(p)) for p in zip(second.system_a, second.system_b)])
    shown = second.system_a.isin(study.systems) & second.system_b.isin(study.systems)  # not the attention checks
    units = second[shown][["dataset", "ix", "pair"]].drop_duplicates()  # a unit: an item and the pair shown
    entry = dict(data["experiments"][1], id="O", role="original", file="first.csv")
    half = qw.load_annotations(dict(data, experiments=[entry, dict(entry, id="X", role="repeat")]), base=tmp_path)
    for per_pair in (30, 90):
        plan = qw.plan_reproduction(
            half, experiment="O", judgements_per_pair=[per_pair], B=200, runs=30, power_runs=1, seed=per_pair
        ).set_index("measure")
        brute = []
        for _ in range(30):
            picked = pd.concat(
                [g.sample(per_pair // 3, random_state=int(rng.integers(2**31))) for _key, g in units.groupby("pair")]
            )
            second.merge(picked, on=["dataset", "ix", "pair"]).drop(columns="pair").to_csv(
                tmp_path / "R.csv", index=False
            )
            brute.append(
                assessed_widths(
                    qw.load_annotations(
                        dict(data, experiments=[entry, dict(entry, id="R", role="repeat", file="R.csv")]), base=tmp_path
                    ),
                    "R",
                )
            )
        brute = pd.DataFrame(brute)
        for measure in ("CV*", "value"):
            expected = plan.loc[measure, "expected_ci_width"]
            assert abs(expected / brute[measure].mean() - 1) <= 0.10, (
                per_pair,
                measure,
                expected,
                brute[measure].mean(),
            )


def test_power_grows_with_the_judgements_per_pair_on_real_and_known_studies(hosking, known):
    for study, source in ((hosking[1], "R1"), (known[1], "O")):
        plan = qw.plan_reproduction(
            study, experiment=source, judgements_per_pair=[10, 40, 160], B=20, runs=2, power_runs=80, seed=0
        )
        for measure in ("significant decisions reproduced", "ranking recovered", "decisions agree"):
            chance = plan[plan.measure == measure].sort_values("judgements_per_pair").chance.to_numpy()
            assert chance[0] < chance[1] < chance[2], (source, measure, chance)
        width = plan[plan.measure == "value"].sort_values("judgements_per_pair").expected_ci_width.to_numpy()
        assert width[0] > width[1] > width[2]


def test_with_equal_strengths_any_decision_is_significant_at_the_tests_exact_level():
    """Under the null (four equal systems, J = 100 judgements per pair, no overdispersion), Holm's
    procedure rejects some pair exactly when the smallest of the 6 binomial p-values is below
    0.05 / 6: 1 - (1 - s)^6 with s the binomial test's exact size, 0.0387 (nominal 0.05)."""
    model = pp.ChoiceModel(
        ["w", "x", "y", "z"],
        "pairwise",
        PAIRWISE_RULE,
        np.zeros(4),
        np.zeros((4, 4)),
        np.array(list(itertools.combinations(range(4), 2))),
        np.full(6, 10),
        per_unit=1,
    )
    original = pp._Original((), None, np.zeros(4), [], True)
    rng = np.random.default_rng(1)
    found, cache = [], {}
    for _ in range(2000):
        j = pp.simulate_judgements(model, model.strength, 100, rng)
        found.append(pp._decisions(model.systems, j, original, 0.05, cache)[1])
    wins = np.arange(101)
    size = binom.pmf(wins, 100, 0.5)[[binomtest(int(k), 100).pvalue <= 0.05 / 6 for k in wins]].sum()
    exact = 1 - (1 - size) ** 6
    assert exact == pytest.approx(0.0387, abs=5e-4)
    assert abs(np.mean(found) - exact) <= 3 * np.sqrt(exact * (1 - exact) / 2000)


def test_the_strengths_covariance_matches_their_spread_over_simulated_originals():
    """60 originals of 600 best-worst judgements of each triple of four systems from the truth: the
    errors of the fitted strength differences, divided by the standard errors from the fitted
    covariance, have standard deviation 0.89, 1.00 and 1.08 (1 if the covariance is right)."""
    z = []
    for seed in range(60):
        rng = np.random.default_rng(seed)
        shown = np.repeat(np.array(list(itertools.combinations(range(4), 3))), 600, axis=0)
        shown = np.take_along_axis(shown, rng.random(shown.shape).argsort(axis=1), axis=1)
        best = np.argmax(TRUTH[shown] + rng.gumbel(size=shown.shape), axis=1)
        rest = -TRUTH[shown] + rng.gumbel(size=shown.shape)
        rest[np.arange(len(best)), best] = -np.inf
        strength, cov = pp.fit_strengths(shown, best, rest.argmax(axis=1), 4, "best_worst")
        se = np.sqrt(np.diag(cov) + cov[0, 0] - 2 * cov[:, 0])[1:]
        z.append(((strength - strength[0])[1:] - TRUTH[1:]) / se)
    spread = np.std(z, axis=0)
    assert spread.round(2).tolist() == [0.89, 1.0, 1.08]


@pytest.mark.parametrize("layout, ties", [("pairwise", 0.2), ("best_worst", 0.0)])
def test_the_planners_decisions_are_the_reports_sign_tests(layout, ties):
    """The planner counts wins per pair and caches the binomial p-values; the report's sign tests
    (:func:`~qra_widgets.io.layout_pairwise.sign_test_records`) give the same Holm-significant pairs."""
    from qra_widgets.io.layout_pairwise import sign_test_records

    rule = PAIRWISE_RULE if layout == "pairwise" else {"layout": "best_worst"}
    model = pp.ChoiceModel(
        ["w", "x", "y", "z"],
        layout,
        rule,
        TRUTH - TRUTH.mean(),
        np.zeros((4, 4)),
        np.array(list(itertools.combinations(range(4), 2))),
        np.full(6, 10),
        tie_rate=ties,
        per_unit=2,
    )
    rng = np.random.default_rng(4)
    for per_pair in (12, 30, 60, 200):
        j = pp.simulate_judgements(model, model.strength, per_pair, rng)
        j["quality_criterion"] = np.full(len(j["unit"]), "Q", dtype=object)
        records = sign_test_records("planned", "Q", [{k: v for k, v in j.items() if not k.startswith("_")}])
        report = {
            (t["system_x"], t["system_y"], t["system_x"] if t["wins_x"] > t["wins_y"] else t["system_y"])
            for t in records
            if t["p_holm"] is not None and t["p_holm"] < 0.05
        }
        every = [(a, b, w) for a, b in itertools.combinations(model.systems, 2) for w in (a, b)]
        original = pp._Original((), None, np.zeros(4), every, True)
        share, any_significant = pp._decisions(model.systems, j, original, 0.05)
        assert share == pytest.approx(len(report) / len(every)) and any_significant == float(bool(report))
        if layout == "pairwise":
            assert np.mean(j["outcome"] == "tie") == pytest.approx(ties, abs=0.08)


def test_best_worst_tuples_of_three_are_simulated_as_shown_and_planned_without_sign_tests(tmp_path):
    """A best-worst study of four systems shown three at a time (its own tuple size) from a known
    truth: the fitted strengths recover the truth, the plan shows the original's tuples, and the
    chances that need sign tests are nan saying why (the report tests pairs only)."""
    rng = np.random.default_rng(8)
    rows = best_worst_rows(TRUTH, 600, rng, "O")
    rows.to_csv(tmp_path / "O.csv", index=False)
    rows[:8].to_csv(tmp_path / "X.csv", index=False)
    study = qw.load_annotations(spec([("O", "O.csv"), ("X", "X.csv")], "best_worst"), base=tmp_path)
    qc = study.quality_criteria[0]
    model = pp.choice_model(study, qc, "O", pp.comparative_rule(study, qc.name, "O"))
    order = [model.systems.index(f"s{k}") for k in range(4)]
    error = model.strength[order] - model.strength[order[0]] - TRUTH
    cov = model.covariance[np.ix_(order, order)]
    se = np.sqrt(np.diag(cov) + cov[0, 0] - 2 * cov[:, 0])[1:]
    assert np.all(np.abs(error[1:]) <= 4 * se) and np.all(se < 0.06)  # measured: errors 2.4-3.0 se, all from s0
    assert model.tuples.shape == (4, 3) and model.tuple_counts.tolist() == [600] * 4
    j = pp.simulate_judgements(model, model.strength, 30, rng)
    assert len(j["unit"]) == 30 * 6 // 3  # 30 per pair x 6 pairs, 3 pairs in each tuple
    assert all(len(t) == 3 and j["best"][k] in t and j["worst"][k] in t for k, t in enumerate(j["shown"]))
    plan = qw.plan_reproduction(
        study, experiment="O", judgements_per_pair=[10, 60], B=20, runs=2, power_runs=40, seed=0
    )
    notes = plan.set_index(["judgements_per_pair", "measure"]).note
    assert (
        notes[(10, "any decision significant")]
        == "no sign tests: best-worst tuples of 3 systems (the report tests pairs only)"
    )
    ranking = plan[plan.measure == "ranking recovered"].sort_values("judgements_per_pair").chance.to_numpy()
    assert ranking[0] < ranking[1]


@pytest.mark.parametrize(
    "grid, shown",
    [
        ([0], "got 0"),
        ([2.5], "got 2.5"),
        (["ten"], "got 'ten'"),
        ([], "got 0"),
        ([True], "got True"),
        ([10**6], "got 1000000"),
    ],
)
def test_a_malformed_grid_is_refused_naming_the_field(known, grid, shown):
    with pytest.raises(qw.QRAInputError, match="judgements_per_pair") as caught:
        qw.plan_reproduction(known[1], experiment="O", judgements_per_pair=grid)
    assert shown in str(caught.value)


def test_a_plan_beyond_the_work_cap_is_refused_before_the_model_is_fitted_or_anything_simulated(known, monkeypatch):
    def fail(*_args, **_kwargs):
        raise AssertionError("allocated before the cap was checked")

    monkeypatch.setattr(pp, "choice_model", fail)
    monkeypatch.setattr(pp, "simulate_judgements", fail)
    with pytest.raises(
        qw.QRAInputError,
        match=r"plan_reproduction: 2 designs x 5 runs x 500 replicates .* units of work; "
        r"the limit is 500,000,000",
    ):
        qw.plan_reproduction(known[1], experiment="O", judgements_per_pair=[10, 50_000])
    with pytest.raises(qw.QRAInputError, match="power_runs: must be a whole number"):
        qw.plan_reproduction(known[1], experiment="O", power_runs=0)
    with pytest.raises(
        qw.QRAInputError, match="design: pairwise and best-worst reproductions are planned with new units"
    ):
        qw.plan_reproduction(known[1], experiment="O", design="same items")


def test_the_one_line_answer_names_the_smallest_number_meeting_the_target(known):
    plan = qw.plan_reproduction(
        known[1], experiment="O", judgements_per_pair=[10, 40, 160], B=20, runs=2, power_runs=100, seed=0
    )
    chance = plan[plan.measure == "ranking recovered"].set_index("judgements_per_pair").chance
    target = float(chance.loc[40]) - 1e-9
    line = pp.smallest_judgements(plan, measure="ranking recovered", target=target)
    assert line.startswith("Q: 40 judgements per system pair give chance of 'ranking recovered' >= ")
    assert "no number planned" in pp.smallest_judgements(plan, measure="ranking recovered", target=1.01)
    with pytest.raises(qw.QRAInputError, match="measure must be one of"):
        pp.smallest_judgements(plan, measure="alpha")


def test_the_plan_command_prints_the_table_and_the_one_line_answer(known, capsys):
    from qra_widgets.cli import main

    folder, _study = known
    (folder / "spec.json").write_text(json.dumps(spec([("O", "O.csv"), ("X", "X.csv")])), encoding="utf-8")
    assert (
        main(
            [
                "plan",
                str(folder / "spec.json"),
                "--judgements-per-pair",
                "10,40",
                "--bootstrap",
                "20",
                "--runs",
                "2",
                "--power-runs",
                "60",
                "--measure",
                "decisions agree",
                "--target",
                "0.5",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "judgements_per_pair" in out and "significant decisions reproduced" in out
    assert out.splitlines()[-1].startswith("Q: 10 judgements per system pair give chance of 'decisions agree' >= 0.5 (")
    assert main(["plan", str(folder / "spec.json"), "--judgements-per-pair", "10,x"]) == 2
    assert "--judgements-per-pair: must be whole numbers separated by commas, got '10,x'" in capsys.readouterr().err


def test_the_apps_plan_box_points_pairwise_studies_to_the_judgements_planner(known):
    from qra_widgets.conventions import resolve
    from qra_widgets.widgets.interval_commands import plan_designs

    with pytest.raises(
        qw.QRAInputError,
        match=r"plan: pairwise and best-worst judgements are planned by judgements per "
        r"system pair, not in this box: run `qra-widgets plan SPEC.json`",
    ):
        plan_designs(known[1], resolve(None), [40], [2], B=20)


def test_real_best_worst_judgements_of_two_systems_are_planned_with_their_sign_tests(field_data):
    """van Miltenburg et al.'s (2023) Lab 1 reproduction of Puduppully & Lapata (2021): best-worst
    judgements of two summaries at a time (so the report has sign tests), five systems, 10 pairs
    shown about 60 times each in HITs of 3 judgements.  On Grammar no pair was significant after
    Holm's adjustment, so the power to reproduce significant decisions is nan, saying why."""
    data = json.loads((FIELD_SPECS / "puduppully2021_rotowire_pairwise_lab1_lab2.json").read_text(encoding="utf-8"))
    study = qw.load_annotations(data, base=field_data)
    grammar = study.quality_criteria[0]
    model = pp.choice_model(study, grammar, "Lab1", pp.comparative_rule(study, grammar.name, "Lab1"))
    assert model.layout == "best_worst" and model.tuples.shape == (10, 2) and model.per_unit == 3
    assert set(model.tuple_counts.tolist()) == {59, 60}
    significant = [
        t
        for t in study.metadata["annotations"]["sign_tests"]
        if t["experiment"] == "Lab1" and t["quality_criterion"] == "Grammar" and t["p_holm"] < 0.05
    ]
    assert significant == []
    plan = qw.plan_reproduction(
        study, experiment="Lab1", judgements_per_pair=[20, 100], B=10, runs=1, power_runs=40, seed=0
    )
    rows = plan.set_index(["quality_criterion", "judgements_per_pair", "measure"])
    assert np.isnan(rows.loc[("Grammar", 20, "significant decisions reproduced"), "chance"])
    assert (
        rows.loc[("Grammar", 20, "significant decisions reproduced"), "note"]
        == "the original has no significant pairwise decision (Holm-adjusted p < 0.05)"
    )
    for qc in ("Grammar", "Repetition"):
        assert (
            rows.loc[(qc, 20, "any decision significant"), "chance"]
            < rows.loc[(qc, 100, "any decision significant"), "chance"]
        )
    assert (
        rows.loc[("Repetition", 20, "significant decisions reproduced"), "chance"]
        < rows.loc[("Repetition", 100, "significant decisions reproduced"), "chance"]
    )
