"""Benchmarks: qra-widgets against the libraries a user would otherwise pick.

    python benchmarks/run.py            # the sizes of the performance targets (a few minutes)
    python benchmarks/run.py --quick    # small sizes: proves every comparison still runs (CI)

Prints one row per comparison: our median time, the peer's, the ratio (ours / peer) and
the target.  Times are medians of several runs on the same data in one process.  Peers
come from the ``bench`` extra (``pip install -e '.[bench]'``); a missing peer is reported,
not skipped silently.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np


@dataclass
class Case:
    name: str
    ours: Callable[[], object]
    peer_name: str
    peer: Callable[[], object] | None
    target: str
    limit: float | None = None  # ratio target (ours / peer at most this)
    absolute: float | None = None  # seconds target for ours
    peer_scale: float = 1.0  # the peer runs a fraction of the work; its time is multiplied by this (extrapolated)
    repeats: int | None = None  # overrides the run's repeats (the long bootstrap rows run once after a warm-up)


def median_seconds(function: Callable[[], object], repeats: int) -> float:
    function()  # warm-up: imports, caches
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def reliability_data(raters: int, units: int, categories: int = 5, missing: float = 0.1, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, categories + 1, units)
    data = np.where(rng.random((raters, units)) < 0.7, truth, rng.integers(1, categories + 1, (raters, units))).astype(
        float
    )
    data[rng.random((raters, units)) < missing] = np.nan
    return data


def peer(module: str):
    try:
        return __import__(module)
    except ImportError:
        return None


def agreement_cases(units: int, pairs: int) -> list[Case]:
    from qra_widgets import measures as m

    cases = []
    data = reliability_data(8, units)
    krippendorff = peer("krippendorff")
    for level in ("nominal", "ordinal", "interval", "ratio"):
        cases.append(
            Case(
                f"Krippendorff's alpha, {level}, 8 x {units:,}, 10% missing",
                lambda level=level: m.krippendorff_alpha(data, level=level),
                "krippendorff.alpha",
                (lambda level=level: krippendorff.alpha(reliability_data=data, level_of_measurement=level))
                if krippendorff
                else None,
                "<= 0.5x",
                0.5,
            )
        )
    complete = reliability_data(8, units, missing=0.0)
    statsmodels = peer("statsmodels.stats.inter_rater")

    def statsmodels_fleiss():
        from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

        return fleiss_kappa(aggregate_raters(complete.T.astype(int))[0])

    cases.append(
        Case(
            f"Fleiss' kappa, {units:,} items x 8 (table build included)",
            lambda: m.fleiss_kappa(complete),
            "statsmodels fleiss_kappa + aggregate_raters",
            statsmodels_fleiss if statsmodels else None,
            "<= 0.5x",
            0.5,
        )
    )
    two = reliability_data(2, pairs, missing=0.0).astype(int)
    a, b = two[0], two[1]
    sklearn = peer("sklearn.metrics")

    def sklearn_kappa():
        from sklearn.metrics import cohen_kappa_score

        return cohen_kappa_score(a, b)

    for label, ours in (
        ("cohen_kappa", lambda: m.cohen_kappa(a, b)),
        ("gwet_ac", lambda: m.gwet_ac(a, b)),
        ("brennan_prediger", lambda: m.brennan_prediger(a, b)),
        ("percent_agreement", lambda: m.percent_agreement(a, b)),
        ("adjacent_agreement", lambda: m.adjacent_agreement(a, b)),
    ):
        cases.append(
            Case(
                f"{label}, {pairs:,} pairs",
                ours,
                "sklearn cohen_kappa_score",
                sklearn_kappa if sklearn else None,
                "<= 0.5x",
                0.5,
            )
        )
    return cases


def rank_cases(experiments: int, systems: int) -> list[Case]:
    from scipy.stats import kendalltau

    from qra_widgets import measures as m

    scores = np.random.default_rng(1).normal(size=(experiments, systems)).round(2)  # rounding makes ties

    def concordance_count():  # the O(S log S) reference: one sort-based Kendall count per experiment pair
        return [kendalltau(scores[i], scores[j]).statistic for i, j in combinations(range(experiments), 2)]

    cases = [
        Case(
            f"P (rank agreement), {experiments} x {systems:,}",
            lambda: m.rank_agreement(scores),
            "O(S log S) concordance count (scipy kendalltau per pair)",
            concordance_count,
            "<= 2x",
            2.0,
        )
    ]
    w_scores = np.random.default_rng(2).normal(size=(8, 80_000 if systems >= 1000 else 2_000)).round(3)
    pingouin = peer("pingouin")
    cases.append(
        Case(
            f"Kendall's W, 8 x {w_scores.shape[1]:,}",
            lambda: m.kendall_w(w_scores),
            "pingouin.friedman (its W)",
            (lambda: pingouin.friedman(data=_long(w_scores), dv="score", within="system", subject="experiment"))
            if pingouin
            else None,
            "reported",
        )
    )
    return cases


def _long(scores: np.ndarray):
    import pandas as pd

    e, s = np.indices(scores.shape)
    return pd.DataFrame({"experiment": e.ravel(), "system": s.ravel(), "score": scores.ravel()})


def big_study(qcs: int, systems: int, experiments: int, labels_per_qc: int):
    import qra_widgets as qw

    rng = np.random.default_rng(3)
    criteria = [qw.QualityCriterion(f"Q{i}", 1, 5, label_level="ordinal") for i in range(qcs)]
    names = [f"s{j}" for j in range(systems)]
    runs = [qw.Experiment(f"e{k}") for k in range(experiments)]
    scores = {(q.name, s, e.id): float(rng.uniform(1, 5)) for q in criteria for s in names for e in runs}
    per_system = max(1, labels_per_qc // (systems * experiments))
    from qra_widgets.labels import Labels

    grid = np.array(
        np.meshgrid(
            [q.name for q in criteria], names, [f"i{t}" for t in range(per_system)], [e.id for e in runs], indexing="ij"
        ),
        dtype=object,
    ).reshape(4, -1)
    labels = Labels.from_columns(*grid, rng.integers(1, 6, grid.shape[1]).astype(object))  # as read from a labels CSV
    return qw.Study(id="big", quality_criteria=criteria, systems=names, experiments=runs, scores=scores, labels=labels)


def assess_case(qcs: int, systems: int, experiments: int, labels: int) -> Case:
    import qra_widgets as qw

    study = big_study(qcs, systems, experiments, labels)
    return Case(
        f"assess(), {qcs} QCs x {systems} systems x {experiments} experiments + {labels:,} labels per QC",
        lambda: qw.assess(study),
        "-",
        None,
        "< 1 s",
        absolute=1.0,
    )


def annotation_study(experiments: int, items: int, criteria: int, raters: int = 2, systems: int = 3, seed: int = 4):
    """Item-level ratings: ``experiments`` x ``items`` (split over ``systems``) x ``criteria``, ``raters`` per item (1..5)."""
    import qra_widgets as qw
    from qra_widgets.ratings import Ratings

    rng = np.random.default_rng(seed)
    per_system = items // systems
    shape = (criteria, systems, per_system, experiments, raters)
    item_effect = rng.normal(0, 0.8, shape[:3])[..., None, None]
    values = np.clip(
        np.round(3 + 0.3 * np.arange(systems)[None, :, None, None, None] + item_effect + rng.normal(0, 0.8, shape)),
        1,
        5,
    )
    q, s, i, e, r = np.indices(shape)
    text = lambda prefix, codes: np.char.add(prefix, codes.ravel().astype(str)).astype(object)
    ratings = Ratings.from_columns(
        text("Q", q),
        text("s", s),
        np.char.add(text("s", s).astype(str), text("-i", i).astype(str)).astype(object),
        text("e", e),
        np.char.add(text("e", e).astype(str), text("-r", r).astype(str)).astype(object),
        values.ravel(),
    )
    criteria_list = [qw.QualityCriterion(f"Q{k}", 1, 5, label_level="ordinal") for k in range(criteria)]
    scores = {(c.name, a, b): v for c in criteria_list for (a, b), v in ratings.system_means(c.name).items()}
    return qw.Study(
        id="bench",
        quality_criteria=criteria_list,
        systems=[f"s{k}" for k in range(systems)],
        experiments=[qw.Experiment(f"e{k}") for k in range(experiments)],
        scores=scores,
        ratings=ratings,
    )


def bootstrap_cases(B: int, experiments: int, items: int, criteria: int, peer_runs: int) -> list[Case]:
    """The whole bootstrap against a plain loop of assess() calls and against
    the krippendorff package's alpha in a loop over replicates (both extrapolated from ``peer_runs``)."""
    import pandas as pd

    import qra_widgets as qw
    from qra_widgets.uncertainty import bootstrap

    study = annotation_study(experiments, items, criteria)
    frame = study.ratings.frame()
    units = frame[["system", "item"]].drop_duplicates()
    per_system = {s: group.item.to_numpy() for s, group in units.groupby("system")}
    rng = np.random.default_rng(0)
    size = f"{experiments} experiments x {items} items x {criteria} criteria, 2 ratings per item"

    def resampled_items():
        return np.concatenate([rng.choice(ids, size=len(ids)) for ids in per_system.values()])

    def plain_loop():  # what a user writes without the engine: resample, aggregate, assess, once per replicate
        for _ in range(peer_runs):
            picked = pd.DataFrame({"item": resampled_items()})
            sample = picked.merge(frame, on="item")
            means = sample.groupby(["quality_criterion", "system", "experiment"]).rating.mean()
            replicate = qw.Study(
                id="r",
                quality_criteria=study.quality_criteria,
                systems=study.systems,
                experiments=study.experiments,
                scores={k: float(v) for k, v in means.items()},
            )
            qw.assess(replicate)

    krippendorff = peer("krippendorff")
    reliability = {
        key: group.pivot_table(index="rater", columns="item", values="rating")
        for key, group in frame.groupby(["quality_criterion", "experiment"])
    }

    def krippendorff_loop():  # the annotator alphas of every experiment and criterion, per replicate
        for _ in range(peer_runs):
            picked = resampled_items()
            for data in reliability.values():
                krippendorff.alpha(
                    reliability_data=data[picked].to_numpy(),
                    level_of_measurement="ordinal",
                    value_domain=[1, 2, 3, 4, 5],
                )

    scale = B / peer_runs
    ours = lambda: bootstrap(study, B=B, seed=1)
    return [
        Case(f"bootstrap B = {B:,}, {size}", ours, "-", None, "< 5 s", absolute=5.0),
        Case(
            f"bootstrap B = {B:,} vs plain loop of assess()",
            ours,
            f"{B:,} assess() calls on resampled items (extrapolated from {peer_runs})",
            plain_loop,
            "<= 0.02x" if B >= 2000 else "reported (target at B = 2,000)",
            0.02 if B >= 2000 else None,
            peer_scale=scale,
        ),
        Case(
            f"bootstrap B = {B:,} vs krippendorff alpha loop",
            ours,
            f"krippendorff.alpha per replicate, {experiments * criteria} per replicate (extrapolated from {peer_runs})",
            krippendorff_loop if krippendorff else None,
            "reported",
            peer_scale=scale,
        ),
    ]


def engine_cases(full: bool) -> list[Case]:
    """The bootstrap engine at the sizes of its targets: a large study at B = 2,000; 300 systems
    against 30 (time per rating, B = 500); BCa against percentile at 6,000 items."""
    from qra_widgets.uncertainty import bootstrap

    if full:
        big, B_big = (6, 1000, 3, 5, 10), 2000
        few, many, B_sys = 30, 300, 500
        bca_items, B_bca = 6000, 2000
    else:
        big, B_big = (3, 120, 1, 3, 4), 100
        few, many, B_sys = 6, 60, 50
        bca_items, B_bca = 600, 100
    experiments, items, criteria, raters, systems = big
    study = annotation_study(experiments, items, criteria, raters=raters, systems=systems)
    small = annotation_study(4, few * 20, 1, raters=2, systems=few)
    large = annotation_study(4, many * 20, 1, raters=2, systems=many)
    per_rating = len(large.ratings) / len(small.ratings)
    items_study = annotation_study(4, bca_items, 1, raters=2, systems=3)
    return [
        Case(
            f"bootstrap B = {B_big:,}, {experiments} experiments x {items:,} items x {raters} raters x {systems} systems "
            f"x {criteria} criteria",
            lambda: bootstrap(study, B=B_big, seed=1),
            "-",
            None,
            "reported",
            repeats=1,
        ),
        Case(
            f"bootstrap B = {B_sys}, {many} systems vs {few} systems (time per rating)",
            lambda: bootstrap(large, B=B_sys, seed=1),
            f"{few} systems, scaled by the ratings ({per_rating:.0f}x)",
            lambda: bootstrap(small, B=B_sys, seed=1),
            "<= 1.5x" if full else "reported (target at 300 systems)",
            1.5 if full else None,
            peer_scale=per_rating,
            repeats=1,
        ),
        Case(
            f"BCa vs percentile, B = {B_bca:,}, {bca_items:,} items",
            lambda: bootstrap(items_study, B=B_bca, seed=1, ci_method="bca"),
            "percentile",
            lambda: bootstrap(items_study, B=B_bca, seed=1),
            "<= 1.5x" if full else "reported (target at 6,000 items, B = 2,000)",
            1.5 if full else None,
            repeats=1,
        ),
    ]


def peak_memory_mb(systems: int, B: int) -> float:
    """Peak resident memory (MB) of a fresh process that builds the study and runs the bootstrap."""
    code = (
        "import resource, sys; sys.path.insert(0, {path!r}); from run import annotation_study; "
        "from qra_widgets.uncertainty import bootstrap; "
        "bootstrap(annotation_study(4, {items}, 1, raters=2, systems={systems}), B={B}, seed=1); "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    ).format(path=str(__import__("pathlib").Path(__file__).parent), items=systems * 20, systems=systems, B=B)
    found = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return int(found.stdout.split()[-1]) / 1024


def import_case() -> Case:
    def fresh(statement: str) -> Callable[[], None]:
        return lambda: subprocess.run([sys.executable, "-c", statement], check=True)

    return Case(
        "import qra_widgets (fresh interpreter)",
        fresh("import qra_widgets"),
        "import numpy, pandas",
        fresh("import numpy, pandas"),
        "<= 1.2x",
        1.2,
    )


def run(cases: list[Case], repeats: int) -> list[dict]:
    rows = []
    for case in cases:
        times = case.repeats or repeats
        ours = median_seconds(case.ours, times)
        theirs = median_seconds(case.peer, times) * case.peer_scale if case.peer else None
        ratio = ours / theirs if theirs else None
        met = (
            (ratio <= case.limit)
            if (case.limit and ratio is not None)
            else (ours <= case.absolute)
            if case.absolute
            else None
        )
        shown = case.peer_name if (case.peer or case.peer_name == "-") else f"{case.peer_name} (not installed)"
        rows.append(
            {
                "comparison": case.name,
                "ours (s)": ours,
                "peer": shown,
                "peer (s)": theirs,
                "ratio": ratio,
                "target": case.target,
                "met": met,
            }
        )
    return rows


def print_table(rows: list[dict]) -> None:
    def cell(value, kind):
        if value is None:
            return "–"
        return {"s": f"{value:.4f}", "x": f"{value:.2f}x", "b": "yes" if value else "NO"}.get(kind, str(value))

    print("| comparison | ours (s) | peer | peer (s) | ours / peer | target | met |")
    print("|---|---:|---|---:|---:|---|---|")
    for r in rows:
        print(
            f"| {r['comparison']} | {cell(r['ours (s)'], 's')} | {r['peer']} | {cell(r['peer (s)'], 's')} | "
            f"{cell(r['ratio'], 'x')} | {r['target']} | {cell(r['met'], 'b')} |"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat: only proves the benchmarks run")
    parser.add_argument(
        "--only",
        choices=("all", "engine"),
        default="all",
        help="engine: only the bootstrap-engine rows (B = 2,000 study, 300 vs 30 systems, BCa vs percentile)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        sizes = {
            "units": 2_000,
            "pairs": 2_000,
            "experiments": 4,
            "systems": 200,
            "study": (2, 5, 3, 300),
            "repeats": 1,
            "bootstrap": (200, 4, 60, 3, 5),
        }
    else:
        sizes = {
            "units": 1_000_000,
            "pairs": 1_000_000,
            "experiments": 8,
            "systems": 3_000,
            "study": (20, 50, 8, 100_000),
            "repeats": 5,
            "bootstrap": (2_000, 4, 360, 3, 50),
        }
    if args.only == "engine":
        cases = engine_cases(not args.quick)
    else:
        cases = [
            *agreement_cases(sizes["units"], sizes["pairs"]),
            *rank_cases(sizes["experiments"], sizes["systems"]),
            assess_case(*sizes["study"]),
            *bootstrap_cases(*sizes["bootstrap"]),
            *engine_cases(not args.quick),
            import_case(),
        ]
    rows = run(cases, sizes["repeats"])
    print_table(rows)
    if args.only == "all":
        B = sizes["bootstrap"][0]
        whole = next(r["ours (s)"] for r in rows if r["comparison"].startswith("bootstrap B"))
        print(f"\nbootstrap: {whole / B * 1000:.3f} s per 1,000 replicates")
    systems, B_sys = (300, 500) if not args.quick else (60, 50)
    memory = peak_memory_mb(systems, B_sys)
    print(
        f"peak memory, bootstrap of {systems} systems at B = {B_sys} (fresh process): {memory:,.0f} MB "
        f"(target < 2,048 MB: {'yes' if memory < 2048 else 'NO'})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
