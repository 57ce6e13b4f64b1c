"""The organisers' overview: stored results, levels, filters, worst-first
order, and the experiment-pair property analysis on simulated libraries."""

from __future__ import annotations

import numpy as np
import pytest

import qra_widgets as qw
from qra_widgets import Experiment, QualityCriterion, Study, examples
from qra_widgets import store as store_module
from qra_widgets.overview import pairs_frame, property_effects
from qra_widgets.store import StudyLibrary

# ----------------------------------------------------------------------------- simulated studies


def simulated_study(
    index: int,
    rng: np.random.Generator,
    effect: float = 0.0,
    systems: int = 5,
    experiments: int = 6,
    evaluation_type: str = "human",
    team: str = "",
    year: str = "2024",
) -> Study:
    """Human ratings on a 1-5 scale.  Each experiment answers four catalogue properties at random;
    an experiment on test set "B" shifts every system by its own offset (sd ``effect``), so pairs
    that differ on G.test_dataset disagree more when ``effect`` > 0.  Nothing else matters."""
    names = [f"sys-{j}" for j in range(systems)]
    base = rng.uniform(2.5, 4.0, systems)
    offset = rng.normal(0, effect, systems) if effect else np.zeros(systems)
    exps, scores = [], {}
    for i in range(experiments):
        dataset = rng.choice(["A", "B"])
        props = {
            "G.test_dataset": str(dataset),
            "H3.2.1": int(rng.choice([3, 5])),
            "H3.2.2.1": str(rng.choice(["Yes", "No"])),
            "H4.2.1": {"Quality": str(rng.choice(["Objective", "Subjective"]))},
        }
        exp = Experiment(f"e{i}", team=team or f"team-{i}", date=f"{year}-01-01", properties=props)
        exps.append(exp)
        noise = rng.normal(0, 0.05, systems)
        for j, name in enumerate(names):
            value = base[j] + noise[j] + (offset[j] if dataset == "B" else 0.0)
            scores[("Quality", name, exp.id)] = float(np.clip(value, 1, 5))
    qc = QualityCriterion(
        "Quality",
        scale_min=1,
        scale_max=5,
        evaluation_type=evaluation_type,
        qcet_id="QOG-w-3" if evaluation_type == "human" else None,
    )
    return Study(
        f"sim-{index:04d}",
        name=f"Simulated {index}",
        quality_criteria=[qc],
        systems=names,
        experiments=exps,
        scores=scores,
    )


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    lib = StudyLibrary(tmp_path_factory.mktemp("overview") / "library.sqlite3")
    for name in examples.titles():
        lib.save(examples.load(name))
    return lib


# ----------------------------------------------------------------------------- stored results


def test_headline_numbers_come_from_stored_results_without_assessing(library, monkeypatch):
    """QRA++ Table 3 (Example 1): mean CV* 26.87, W 1, P 1; QRA++ Table 4: study mean CV* 27.65."""

    def refuse(*_args, **_kwargs):
        raise AssertionError("overview() must read stored results, not assess")

    import sys

    monkeypatch.setattr(sys.modules["qra_widgets.assess"], "assess", refuse)
    monkeypatch.setattr(store_module, "stored_results", refuse)
    view = qw.overview(library)
    example1 = view.criteria.set_index("study").loc["qrapp-example1"]
    assert round(example1["mean CV*"], 2) == 26.87
    assert example1["W"] == 1 and example1["P"] == 1 and np.isnan(example1["τ"])
    table4 = view.studies.set_index("study").loc["qrapp-table4-illustrative"]
    assert round(table4["mean CV*"], 2) == 27.65
    svm = view.systems[(view.systems.study == "qrapp-example1") & (view.systems.system == "SVM")]
    assert round(svm["CV*"].item(), 2) == 19.96


def test_results_are_written_with_the_revision_and_recomputed_when_the_version_changes(
    tmp_path, monkeypatch, example_study
):
    lib = StudyLibrary(tmp_path / "lib.sqlite3")
    revision = lib.save(example_study("qrapp_example1"))
    import sqlite3

    with sqlite3.connect(lib.path) as db:
        stored = db.execute(
            "SELECT version FROM results WHERE study_id = 'qrapp-example1' AND revision = ?", (revision,)
        ).fetchone()
        rows = db.execute("SELECT COUNT(*) FROM result_rows WHERE study_id = 'qrapp-example1'").fetchone()[0]
    assert stored == (store_module.RESULTS_VERSION,)
    assert rows == len(qw.assess(example_study("qrapp_example1")).to_frame())
    assert lib.refresh_results() == 0  # nothing stale
    monkeypatch.setattr(store_module, "RESULTS_VERSION", "next")
    assert lib.refresh_results() == 1  # a new measure version: recomputed once, lazily
    assert lib.refresh_results() == 0
    with sqlite3.connect(lib.path) as db:
        assert db.execute("SELECT COUNT(*) FROM result_rows WHERE study_id = 'qrapp-example1'").fetchone()[0] == rows


def test_a_study_that_cannot_be_assessed_is_listed_with_its_problem(tmp_path):
    lib = StudyLibrary(tmp_path / "lib.sqlite3")
    lonely = Study(
        "lonely",
        quality_criteria=[QualityCriterion("Q")],
        systems=["a"],
        experiments=[Experiment("e1")],
        scores={("Q", "a", "e1"): 1.0},
    )
    lib.save(lonely)
    view = qw.overview(lib)
    assert "at least two experiments" in view.studies.set_index("study").loc["lonely", "problem"]
    assert list(view.criteria.quality_criterion) == ["Q"]


def mixed_study() -> Study:
    """A human criterion scored in three experiments (W) and a metric one in two (τ)."""
    fluency = [[4.1, 3.2, 2.5], [4.0, 3.5, 2.2], [3.8, 3.3, 2.6]]
    bleu = [[30.1, 25.2, 20.3], [19.0, 24.0, 29.5]]
    scores = {
        **{("Fluency", s, e): v for e, row in zip(["e1", "e2", "e3"], fluency) for s, v in zip("ABC", row)},
        **{("BLEU", s, e): v for e, row in zip(["e1", "e2"], bleu) for s, v in zip("ABC", row)},
    }
    return Study(
        "mixed",
        name="Human fluency and metric BLEU",
        systems=["A", "B", "C"],
        quality_criteria=[
            QualityCriterion("Fluency", scale_min=1, scale_max=5, evaluation_type="human"),
            QualityCriterion("BLEU", scale_min=0, scale_max=100, evaluation_type="metric"),
        ],
        experiments=[Experiment("e1"), Experiment("e2"), Experiment("e3")],
        scores=scores,
    )


def test_w_and_tau_are_separate_columns_and_never_averaged(tmp_path, qrapp_table4_illustrative):
    lib = StudyLibrary(tmp_path / "lib.sqlite3")
    table4 = qrapp_table4_illustrative  # two criteria, two experiments: a τ each
    for study in (table4, mixed_study()):
        lib.save(study)
    view = qw.overview(lib)
    result = qw.assess(table4)
    taus = {qc: result.value("tau", "qc", qc) for qc in table4.qc_names}
    criteria = view.criteria.set_index(["study", "quality_criterion"])
    for qc, tau in taus.items():
        assert criteria.loc[("qrapp-table4-illustrative", qc), "τ"] == pytest.approx(tau)
        assert np.isnan(criteria.loc[("qrapp-table4-illustrative", qc), "W"])
    assert len(set(np.round(list(taus.values()), 3))) == 2  # two different τs, so a mean would be a third number
    study = view.studies.set_index("study").loc["qrapp-table4-illustrative"]
    assert np.isnan(study["τ"]) and np.isnan(study["W"])  # τ is a criterion-level value: two criteria, no study τ
    mixed = qw.assess(mixed_study())
    assert criteria.loc[("mixed", "Fluency"), "W"] == pytest.approx(mixed.value("W", "qc", "Fluency"))
    assert criteria.loc[("mixed", "BLEU"), "τ"] == pytest.approx(mixed.value("tau", "qc", "BLEU"))
    assert np.isnan(criteria.loc[("mixed", "Fluency"), "τ"]) and np.isnan(criteria.loc[("mixed", "BLEU"), "W"])


def test_a_study_of_two_evaluation_types_has_a_row_per_type_with_that_types_values(tmp_path):
    lib = StudyLibrary(tmp_path / "lib.sqlite3")
    lib.save(mixed_study())
    result = qw.assess(mixed_study())
    rows = qw.overview(lib).studies.set_index("evaluation_type")
    assert list(rows.index) == ["human", "metric"] and set(rows.study) == {"mixed"}
    for kind, qc in (("human", "Fluency"), ("metric", "BLEU")):
        system_cv = [c.cv_star for (q, _s), c in result.cv.items() if q == qc]
        assert rows.loc[kind, "mean CV*"] == pytest.approx(np.mean(system_cv))  # that type's systems only
    assert rows.loc["human", "W"] == pytest.approx(result.value("W", "qc", "Fluency"))
    assert rows.loc["metric", "τ"] == pytest.approx(result.value("tau", "qc", "BLEU"))
    assert rows["P"].isna().all() and "every evaluation type" in rows.loc["human", "problem"]  # pooled P mixes both


def test_every_level_is_ranked_within_its_evaluation_type(library):
    view = qw.overview(library)
    for level in ("studies", "criteria", "systems"):
        frame = view.sorted(level)
        types = list(dict.fromkeys(frame.evaluation_type))
        assert types == [t for t in ("human", "metric", "llm-as-judge", "unknown") if t in types]  # grouped, in order
        value = "CV*" if level == "systems" else "mean CV*"
        for _kind, group in frame.groupby("evaluation_type"):
            ranked = group[group["rank"].notna()]
            assert list(ranked["rank"]) == list(range(1, len(ranked) + 1))
            assert (np.diff(ranked[value].to_numpy(dtype=float)) <= 0).all()  # worst first within the type
    best = view.sorted("criteria", "P", worst_first=False)
    human = best[best.evaluation_type == "human"].dropna(subset=["P"])
    assert (np.diff(human["P"].to_numpy(dtype=float)) <= 0).all()  # best P (highest) first


def test_pair_cv_star_equals_cv_star_of_the_two_values():
    """Belz (2021) Table 1 style CV* of two values, shifted: the vectorised form is the measure."""
    a, b = np.array([3.0, 10.0]), np.array([4.0, 10.5])
    expected = [qw.measures.cv_star([x, y]).cv_star for x, y in zip(a, b)]
    assert np.allclose(qw.measures.pair_cv_star(a, b), expected)


# ----------------------------------------------------------------------------- levels, filters, order


def test_worst_first_and_filters_work_in_memory(tmp_path, monkeypatch):
    rng = np.random.default_rng(5)
    lib = StudyLibrary(tmp_path / "lib.sqlite3")
    for i in range(6):
        kind = "human" if i % 2 else "metric"
        lib.save(
            simulated_study(
                i,
                rng,
                effect=0.3 * i,
                evaluation_type=kind,
                team="Ateam" if i < 3 else "Bteam",
                year="2023" if i < 3 else "2024",
            )
        )
    view = qw.overview(lib)
    for kind in ("human", "metric"):
        criteria = view.criteria[view.criteria.evaluation_type == kind]
        assert (np.diff(criteria["mean CV*"].to_numpy(dtype=float)) <= 0).all()  # worst (highest CV*) first
        by_p = view.sorted("criteria", "P")
        assert (
            np.diff(by_p[by_p.evaluation_type == kind]["P"].dropna().to_numpy(dtype=float)) >= 0
        ).all()  # lowest P first

    def no_database(*_args, **_kwargs):
        raise AssertionError("filtering must not touch the database")

    monkeypatch.setattr(StudyLibrary, "_connection", no_database)
    human = view.filter(evaluation_type="human")
    assert set(human.criteria.evaluation_type) == {"human"} and len(human.criteria) == 3
    assert set(human.systems.evaluation_type) == {"human"}
    assert set(view.filter(team="Bteam").studies.study) == {"sim-0003", "sim-0004", "sim-0005"}
    assert set(view.filter(year="2023", evaluation_type="metric").studies.study) == {"sim-0000", "sim-0002"}
    assert set(view.filter(qcet="Fluency").criteria.qcet) == {"QOG-w-3"}
    assert len(view.filter(result_type="III").criteria) == 0
    with pytest.raises(qw.QRAInputError, match="unknown filter"):
        view.filter(colour="red")


def test_values_for_distribution_charts_carry_study_and_system(library):
    values = qw.overview(library).values("CV*")
    assert {"study", "system", "evaluation_type", "qcet_name", "year", "value"} <= set(values.columns)
    gedi = values[(values.study == "qrapp-example1") & (values.system == "GeDi")]
    assert gedi.value.item() == pytest.approx(29.9, abs=0.01)  # QRA++ Table 3


# ----------------------------------------------------------------------------- experiment-pair analysis


def test_the_property_that_matters_is_found_with_an_interval_excluding_zero():
    rng = np.random.default_rng(13)
    studies = [simulated_study(i, rng, effect=0.4) for i in range(30)]
    effects = property_effects(pairs_frame(studies), seed=1).set_index("property")
    dataset = effects.loc["G.test_dataset"]
    assert dataset["ci_low"] > 0 and dataset["status"] == "differing goes with higher CV*"
    assert effects.index[0] == "G.test_dataset"  # ranked first
    assert dataset["pairs differ"] + dataset["pairs same"] == 30 * 15  # every pair of 6 experiments answers it


def test_the_p_values_by_order_tables_are_those_of_the_pass_over_every_pair(monkeypatch):
    """Studies of 2 to 8 experiments, one property mattering: the p-values (and their Holm
    adjustment) are the same with the order tables (qra_widgets/shuffles.py) as with every study
    summed pair by pair (the tables switched off)."""
    from qra_widgets import shuffles

    rng = np.random.default_rng(21)
    studies = [simulated_study(i, rng, effect=0.3, experiments=int(rng.integers(2, 9))) for i in range(40)]
    pairs = pairs_frame(studies)
    tabled = property_effects(pairs, permutations=999, seed=2)
    monkeypatch.setattr(shuffles, "MAX_TABULATED", 1)
    summed = property_effects(pairs, permutations=999, seed=2)
    assert tabled["p"].notna().sum() >= 3 and tabled["p"].min() < 0.05
    for column in ("p", "p_adjusted", "status"):
        np.testing.assert_array_equal(tabled[column].to_numpy(), summed[column].to_numpy())


def random_answer(prop, rng: np.random.Generator):
    """One of two answers to a catalogue property (kinds text, integer, single, multiple)."""
    pick = int(rng.integers(2))
    if prop.kind == "text":
        return ["A", "B"][pick]
    if prop.kind == "integer":
        return [3, 5][pick]
    return prop.options[pick] if prop.kind == "single" else [prop.options[pick]]


def null_study(index: int, rng: np.random.Generator, experiments: int, systems: int = 5) -> Study:
    """A study in which every experiment answers all 22 catalogue properties at random (two answers
    each) and no property changes any score: the system's true value plus noise (sd 0.1)."""
    from qra_widgets.properties import PROPERTIES

    names = [f"sys-{j}" for j in range(systems)]
    base = rng.uniform(2.5, 4.0, systems)
    exps, scores = [], {}
    for i in range(experiments):
        props = {
            pid: ({"Quality": random_answer(prop, rng)} if prop.per_criterion else random_answer(prop, rng))
            for pid, prop in PROPERTIES.items()
        }
        exps.append(Experiment(f"e{i}", properties=props))
        for j, name in enumerate(names):
            scores[("Quality", name, f"e{i}")] = float(np.clip(base[j] + rng.normal(0, 0.1), 1, 5))
    qc = QualityCriterion("Quality", scale_min=1, scale_max=5, evaluation_type="human")
    return Study(f"null-{index:05d}", quality_criteria=[qc], systems=names, experiments=exps, scores=scores)


def null_libraries(size: int, libraries: int, seed: int) -> tuple[int, int, int]:
    """(libraries with any flag, libraries, properties tested in all) for null libraries of ``size``
    studies of 2-4 experiments each."""
    rng = np.random.default_rng(seed)
    flagged = tested = 0
    for library in range(libraries):
        studies = [null_study(library * size + i, rng, int(rng.integers(2, 5))) for i in range(size)]
        effects = property_effects(pairs_frame(studies), bootstrap=100, permutations=499, seed=library)
        ranked = effects[effects.status != "too few pairs"]
        tested += len(ranked)
        flagged += bool((ranked.status != "no clear effect").any())
    return flagged, libraries, tested


@pytest.mark.slow
@pytest.mark.parametrize("size", [25, 60])
def test_with_no_property_mattering_at_most_one_library_in_ten_flags_any_property(size):
    """Null libraries of 25 and 60 studies with 2-4 experiments each, 22 properties answered at
    random: with Holm's adjustment at most 10% of libraries flag at least one property (the
    family-wise rate Holm controls at 5%).  100 libraries each (seeded): a true 5% would show as
    more than 10% with probability 0.01; without adjustment most libraries flag one."""
    flagged, libraries, tested = null_libraries(size, 100, seed=size)
    assert tested >= 15 * libraries  # most of the 22 properties have enough informative studies
    assert flagged / libraries <= 0.10


@pytest.mark.slow  # a simulation: 100 null libraries, each with a 199-permutation test
def test_the_permutation_p_value_is_uniform_enough_for_one_property():
    """One property tested in 100 small null libraries: the unadjusted p is below 0.05 in about 5%
    of them (at most 12 of 100, a binomial(100, 0.05) tail below 0.001)."""
    rng = np.random.default_rng(5)
    below = 0
    for library in range(100):
        studies = [null_study(100 * library + i, rng, int(rng.integers(3, 5)), systems=3) for i in range(12)]
        effects = property_effects(pairs_frame(studies), bootstrap=50, permutations=199, seed=library).set_index(
            "property"
        )
        below += bool(effects.loc["G.test_dataset", "p"] < 0.05)
    assert below <= 12


def test_holm_adjustment_matches_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    from qra_widgets.overview import holm

    p = np.array([0.001, 0.02, 0.03, 0.04, 0.2, 0.5, 0.012])
    assert holm(p) == pytest.approx(multitest.multipletests(p, method="holm")[1], abs=1e-15)


def test_adjusted_values_are_reported_and_a_property_needs_informative_studies():
    rng = np.random.default_rng(13)
    studies = [simulated_study(i, rng, effect=0.4) for i in range(30)]
    effects = property_effects(pairs_frame(studies), seed=1).set_index("property")
    tested = effects[effects.status != "too few pairs"]
    assert (tested["p_adjusted"] >= tested["p"]).all() and (tested["p_adjusted"] <= 1).all()
    # Holm: the smallest p is multiplied by the number of properties tested
    assert tested["p_adjusted"].min() == pytest.approx(min(1.0, tested["p"].min() * len(tested)))
    assert effects.loc["G.test_dataset", "studies informative"] <= effects.loc["G.test_dataset", "studies same"]
    strict = property_effects(pairs_frame(studies), seed=1, min_studies=31).set_index("property")
    assert set(strict.status) == {"too few pairs"} and strict["p"].isna().all()
    bh = property_effects(pairs_frame(studies), seed=1, adjust="bh").set_index("property")
    assert (bh.loc[tested.index, "p_adjusted"] <= tested["p_adjusted"] + 1e-12).all()  # BH never stricter than Holm


def test_the_permutation_test_rebuilds_the_observed_groups_from_the_pairs():
    """Unshuffled, the answer classes rebuilt from the pairs give back every pair's same/differ."""
    from qra_widgets.overview import _answer_classes

    rng = np.random.default_rng(2)
    pairs = pairs_frame([null_study(i, rng, 4) for i in range(3)])
    index = {
        (s, e): k
        for k, (s, e) in enumerate(
            sorted({(s, e) for s, a, b in zip(pairs.study, pairs.experiment_a, pairs.experiment_b) for e in (a, b)})
        )
    }
    slot_a = np.array([index[(s, a)] for s, a in zip(pairs.study, pairs.experiment_a)])
    slot_b = np.array([index[(s, b)] for s, b in zip(pairs.study, pairs.experiment_b)])
    for pid in ("G.test_dataset", "H4.2.1", "H2.1"):
        same = pairs.same.map(lambda ids, p=pid: p in ids).to_numpy()
        differ = pairs.differs.map(lambda ids, p=pid: p in ids).to_numpy()
        labels = _answer_classes(slot_a, slot_b, len(index), same, differ)
        assert ((labels[slot_a] == labels[slot_b]) == same).all() and (labels[slot_a] >= 0).all()


def test_properties_with_too_few_pairs_are_marked_not_ranked():
    rng = np.random.default_rng(3)
    studies = [simulated_study(i, rng) for i in range(2)]  # two studies: below min_studies
    effects = property_effects(pairs_frame(studies))
    assert set(effects.status) == {"too few pairs"}
    assert effects.effect.isna().all() and effects.ci_low.isna().all()


# ----------------------------------------------------------------------------- the Overview tab


def test_overview_tab_loads_when_built_filters_sorts_by_header_pages_and_opens_a_study_on_click(tmp_path):
    from qra_widgets.widgets.common import Status
    from qra_widgets.widgets.overview import OverviewView
    from qra_widgets.widgets.state import AppState

    rng = np.random.default_rng(8)
    lib = StudyLibrary(tmp_path / "lib.sqlite3")
    for i in range(30):
        lib.save(simulated_study(i, rng, effect=0.02 * i, evaluation_type="human" if i % 3 else "metric"))
    state = AppState(library_path=lib.path)
    view = OverviewView(state, Status())  # no click: the library is read when the view is built
    shown = []
    view.navigate = shown.append
    assert len(view.shown_studies) == 25 and "page 1 of 2 · 30 quality criteria" in view.where.value
    human = view.data.criteria[view.data.criteria.evaluation_type == "human"]
    assert view.shown_studies[0] == human.sort_values("mean CV*").study.iloc[-1]  # highest human CV* first
    groups = [r["group"] for r in view.table.rows if "group" in r]
    assert groups[0].startswith("Human evaluation · 20 quality criteria")
    assert [c["title"] for c in view.table.columns][:5] == ["#", "Study", "Criterion", "Type", "QCET criterion"]
    first = next(r for r in view.table.rows if "group" not in r)
    assert first["cells"][0] == "1" and first["cells"][3] == "human"
    assert first["titles"][1] == f"Simulated {int(first['key'][4:])} ({first['key']})"  # the full name on hover
    assert first["title"].startswith(
        f"Simulated {int(first['key'][4:])} ({first['key']}) · criterion: Quality · QCET: Fluency"
    )
    view.next.click()
    assert len(view.shown_studies) == 5
    view.filters["evaluation_type"].value = "metric"
    assert set(view.shown_studies) == {f"sim-{i:04d}" for i in range(0, 30, 3)}
    view.table.click_header("mean CV*")  # the sorted column again: best first
    assert view.shown_studies[0] == view.view.criteria.sort_values("mean CV*").study.iloc[0]
    assert view.table.sort == {"key": "mean CV*", "ascending": True}
    view.table.click_header("P")  # another column: worst (lowest P) first
    p_values = [float(r["cells"][6]) for r in view.table.rows if "group" not in r]
    assert p_values == sorted(p_values)
    view.table.click_header("rank")  # not sortable: nothing changes
    assert view.sort_key == "P"
    view.level.value = "systems"
    assert view.sort_key == "CV*" and [c["title"] for c in view.table.columns][3] == "System"
    target = view.shown_studies[3]
    view.table.click_row(target)
    assert state.study.id == target and state.revision == 1 and shown == ["Assessment"]
    view.table.click_row("not-shown")  # a key the page does not show is ignored
    assert state.study.id == target
    assert next(o["data"].keys() for o in view.by_type.outputs) >= {"application/vnd.plotly.v1+json"}


@pytest.mark.slow  # runs benchmarks/overview.py in its own interpreter, as tests/test_benchmarks_run.py does the others
def test_the_overview_benchmark_runs_quick():
    """CI proves benchmarks/overview.py still runs (small sizes); timings are not asserted here."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parents[2] / "benchmarks" / "overview.py"
    result = subprocess.run(
        [sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=600, check=True
    )
    assert "| 30 |" in result.stdout and "| 2,000 |" in result.stdout


def test_evaluation_type_is_a_validated_criterion_field_that_round_trips(tmp_path, qra2022_pass, example_study):
    from qra_widgets.io import load_study, save_study

    study = qra2022_pass  # QRA 2022 Table 2: a human evaluation
    assert {q.evaluation_type for q in study.quality_criteria} == {"human"}
    assert study.quality_criterion("Fluency").qcet_id == "QOG-w-3"
    assert {q.evaluation_type for q in example_study("qra2022_nts").quality_criteria} == {"metric"}
    save_study(study, tmp_path / "pass.json")
    assert load_study(tmp_path / "pass.json").quality_criterion("Clarity").evaluation_type == "human"
    assert QualityCriterion("Q").evaluation_type == "unknown"  # files without the field still load
    with pytest.raises(qw.QRAInputError, match="evaluation_type must be one of"):
        QualityCriterion("Q", evaluation_type="crowd")


def test_distribution_boxes_never_pool_human_and_metric_values(library):
    from qra_widgets import charts

    values = qw.overview(library).values("CV*")
    figure = charts.measure_distribution(values, "year")
    names = [trace.name for trace in figure.data]
    assert "2022 · human (n = 9)" in names  # QRA++ Example 1 and Table 4 systems (2022 originals)
    assert all(" · human" in n or " · metric" in n for n in names)
    by_type = charts.measure_distribution(values, "evaluation_type")
    assert sorted(t.name for t in by_type.data) == ["human (n = 12)", "metric (n = 16)"]


def test_a_failure_computing_results_never_loses_the_save(tmp_path, monkeypatch, qrapp_example1):
    lib = StudyLibrary(tmp_path / "lib.sqlite3")

    def broken(_study):
        raise RuntimeError("boom")

    monkeypatch.setattr(store_module, "stored_results", broken)
    assert lib.save(qrapp_example1) == 1
    monkeypatch.undo()
    view = qw.overview(lib)  # missing results are computed lazily when read
    assert round(view.studies.set_index("study").loc["qrapp-example1", "mean CV*"], 2) == 26.87  # QRA++ Table 3


def test_opening_from_the_overview_asks_first_when_the_study_being_edited_is_unsaved(
    tmp_path, qrapp_example1, qra2022_pass
):
    """Opening a study never discards unsaved work without asking."""
    from qra_widgets.widgets import Dashboard

    lib = StudyLibrary(tmp_path / "lib.sqlite3")
    lib.save(qrapp_example1)
    app = Dashboard(qra2022_pass, library_path=tmp_path / "lib.sqlite3")
    app.state.set_scores({("Fluency", "PASS", "Mille2021"): 5.0})
    assert app.state.dirty
    app.overview.table.click_row(app.overview.shown_studies[0])
    assert app.state.study.id == "qra2022-pass" and app.overview.confirm.widget.layout.display == "flex"
    app.overview.confirm.yes.click()
    assert app.state.study.id == "qrapp-example1" and not app.state.dirty
    assert app.tabs.selected_index == app.tabs.titles.index("Assessment")  # the study opens on its Assessment tab


def test_the_overview_is_read_when_first_shown_and_again_only_after_a_save(tmp_path, qrapp_example1, qra2022_nts):
    from qra_widgets.widgets import Dashboard

    app = Dashboard(library_path=tmp_path / "lib.sqlite3")
    app.state.library.save(qrapp_example1)
    app.show_tab("Overview")
    assert app.overview.shown_studies == ["qrapp-example1"]  # no click needed
    first = app.overview.data
    app.show_tab("Study")
    app.show_tab("Overview")
    assert app.overview.data is first  # nothing saved since: not read again
    app.state.library.save(qra2022_nts)
    app.show_tab("Study")
    app.show_tab("Overview")
    assert list(dict.fromkeys(app.overview.shown_studies)) == [
        "qrapp-example1",
        "qra2022-nts",
    ]  # read again: human first
