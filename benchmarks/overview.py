"""Benchmarks of the organisers' view.

    python benchmarks/overview.py            # 10, 100, 1,000 studies; 1,000 to 20,000 systems
    python benchmarks/overview.py --quick    # small sizes: proves it still runs (CI)

Targets:
* ``qra_widgets.overview(library)`` of 1,000 studies in under 1/10 of the time it takes to assess
  them all (it reads the results stored with each save; nothing is assessed);
* re-sorting and filtering work on the frames in memory (the database is not opened: the
  benchmark makes any connection fail while it sorts and filters);
* ``assess()`` linear in systems: 20,000 systems cost at most 40x 1,000 systems.

Studies are simulated like a shared task's: 2 quality criteria (one human, one metric), 6 systems,
4 experiments each answering 4 catalogue properties.  Times are medians of several runs of the
process's CPU time (``time.process_time``), not wall-clock time: the benchmark machine is shared
(load averages of 20-40 on 2 cores were seen), and wall-clock times there measure the neighbours.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1]))

import qra_widgets as qw
from qra_widgets import Experiment, QualityCriterion, Study
from qra_widgets.store import StudyLibrary


def simulated(index: int, rng: np.random.Generator, systems: int = 6, experiments: int = 4) -> Study:
    names = [f"system-{j}" for j in range(systems)]
    criteria = [
        QualityCriterion("Fluency", scale_min=1, scale_max=5, evaluation_type="human", qcet_id="QOG-w-3"),
        QualityCriterion("BLEU", scale_min=0, scale_max=100, evaluation_type="metric", qcet_id="QTG-f-1"),
    ]
    exps, scores = [], {}
    base = {"Fluency": rng.uniform(2.5, 4.5, systems), "BLEU": rng.uniform(15, 40, systems)}
    for i in range(experiments):
        props = {
            "G.test_dataset": str(rng.choice(["A", "B"])),
            "H3.2.1": int(rng.choice([3, 5])),
            "H3.2.2.1": str(rng.choice(["Yes", "No"])),
            "G.runtime_environment": str(rng.choice(["gpu", "cpu"])),
        }
        exps.append(
            Experiment(f"e{i}", team=f"team-{rng.integers(40)}", date=f"{2019 + index % 6}-05-01", properties=props)
        )
        for qc in criteria:
            noise = rng.normal(0, 0.04 * (qc.scale_max - qc.scale_min), systems)
            for j, name in enumerate(names):
                scores[(qc.name, name, f"e{i}")] = float(
                    np.clip(base[qc.name][j] + noise[j], qc.scale_min, qc.scale_max)
                )
    return Study(
        f"task-{index:05d}",
        name=f"Shared-task study {index}",
        quality_criteria=criteria,
        systems=names,
        experiments=exps,
        scores=scores,
        metadata={"track": f"track-{index % 3}", "tags": [f"round-{index % 2}"]},
    )


def median(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return statistics.median(times)


def overview_rows(sizes: list[int], repeats: int) -> list[str]:
    rows = [
        (
            "| studies | save all (stored results written) | assess all | overview() from stored results | ratio | "
            "filter + sort (in memory) | target |"
        ),
        "|---:|---:|---:|---:|---:|---:|---|",
    ]
    rng = np.random.default_rng(0)
    for size in sizes:
        studies = [simulated(i, rng) for i in range(size)]
        with tempfile.TemporaryDirectory() as folder:
            library = StudyLibrary(Path(folder) / "library.sqlite3")
            start = time.process_time()
            for study in studies:
                library.save(study)
            save = time.process_time() - start
            assess_all = median(lambda studies=studies: [qw.assess(s) for s in studies], max(1, repeats // 2))
            view_time = median(lambda library=library: qw.overview(library), repeats)
            view = qw.overview(library)

            def no_database(*_args, **_kwargs):
                raise AssertionError("sorting or filtering opened the database")

            original, StudyLibrary._connection = StudyLibrary._connection, no_database
            try:
                refine = median(
                    lambda view=view: (
                        view.filter(evaluation_type="human", year=["2020", "2021"]).sorted("criteria", "P"),
                        view.sorted("systems"),
                    ),
                    repeats,
                )
            finally:
                StudyLibrary._connection = original
        ratio = view_time / assess_all
        target = (
            f"< 0.1 at 1,000 studies: {'met' if ratio < 0.1 else 'NOT met'}"
            if size >= 1000
            else "(the target is set at 1,000)"
        )
        rows.append(
            f"| {size:,} | {save:.2f} s | {assess_all:.3f} s | {view_time:.3f} s | {ratio:.3f} | {refine * 1000:.1f} ms | "
            f"{target} |"
        )
    return rows


def assess_rows(systems: list[int], repeats: int) -> list[str]:
    rows = ["| systems | assess() | × the first size | target |", "|---:|---:|---:|---|"]
    rng = np.random.default_rng(1)
    qw.assess(simulated(0, rng))  # warm-up: scipy and friends
    first = None
    for size in systems:
        names = [f"s{j}" for j in range(size)]
        base = rng.uniform(20, 80, size)
        exps = [Experiment(f"e{i}") for i in range(3)]
        scores = {("BLEU", s, e.id): float(base[j] + rng.normal(0, 2)) for j, s in enumerate(names) for e in exps}
        study = Study(
            "scale",
            quality_criteria=[QualityCriterion("BLEU", scale_min=0, scale_max=100)],
            systems=names,
            experiments=exps,
            scores=scores,
        )
        seconds = median(lambda study=study: qw.assess(study), repeats)
        first = first or seconds
        factor = seconds / first
        allowed = 40 * size / systems[0] / 20
        target = f"≤ {allowed:g}× ({'met' if factor <= allowed else 'NOT met'})" if size != systems[0] else ""
        rows.append(f"| {size:,} | {seconds * 1000:.0f} ms | {factor:.1f}× | {target} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one run each (CI)")
    parser.add_argument("--out", help="also write the Markdown to this file")
    parser.add_argument("--only", choices=("overview", "assess"), help="run one of the two parts")
    args = parser.parse_args()
    sizes, systems, repeats = (
        ([10, 30], [1000, 2000], 1) if args.quick else ([10, 100, 1000], [1000, 2000, 5000, 10000, 20000], 5)
    )
    lines = []
    if args.only in (None, "overview"):
        lines += [
            "## Overview from stored results vs assessing every study (CPU seconds)",
            "",
            *overview_rows(sizes, repeats),
            "",
        ]
    if args.only in (None, "assess"):
        lines += [
            "## assess() against the number of systems (3 experiments, 1 criterion; CPU time)",
            "",
            *assess_rows(systems, repeats),
            "",
        ]
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
