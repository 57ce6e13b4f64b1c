"""Benchmarks of the dashboard in the kernel (no browser), against their targets.

    python benchmarks/app_state.py [--edits 200] [--big-edits 60] [--out benchmarks/app-state-latest.md]

Prints a Markdown table:

- opening a 200-system x 8-experiment study (every view updated, every chart drawn): < 1 s;
- edit -> CV* chart updated (a grid cell set as the browser sets it, until the chart's
  Output holds the new figure), QRA++ Example 1 and the 200-system study: < 150 ms, median
  and p90 of wall-clock time, with the kernel's own CPU time per edit and the time it waited
  for a core (the run queue, ``/proc/thread-self/schedstat``: on a shared machine this is
  the rest of the wall-clock time) beside it, and the full (generation 2) garbage
  collections that ran during the edits;
- kernel memory over 200 edits (RSS and Python heap growth after a warm-up): flat;
- cold start to first chart (a fresh interpreter: import, ``Dashboard(study)``, the CV*
  chart drawn): < 5 s.

The browser-side numbers (first render, websocket bytes, tabs at once) are in
``benchmarks/app.py``.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np


def big_study(systems: int = 200, experiments: int = 8):
    from qra_widgets.study import Experiment, QualityCriterion, Study

    rng = np.random.default_rng(0)
    names = [f"system {i:03d}" for i in range(systems)]
    exps = [Experiment(f"e{j}", role="original" if j == 0 else "repeat") for j in range(experiments)]
    scores = {("Quality", s, e.id): float(rng.uniform(1, 5)) for s in names for e in exps}
    return Study(
        "big",
        name=f"{systems} systems",
        quality_criteria=[QualityCriterion("Quality", 1, 5)],
        systems=names,
        experiments=exps,
        scores=scores,
    )


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def open_time(dashboard, study, other, runs: int = 3) -> float:
    """Seconds to open ``study`` while another study (``other``, of another shape) is open:
    grids and forms are rebuilt, not just re-bound."""
    times = []
    for _ in range(runs):
        dashboard.state.load(other)
        start = time.perf_counter()
        dashboard.state.load(study)
        times.append(time.perf_counter() - start)
        assert dashboard.charts.cv_chart.outputs, "the CV* chart is drawn"
    return statistics.median(times)


EDIT_NUMBER = itertools.count()


def run_delay() -> float:
    """Seconds this thread has waited on a run queue for a core so far (Linux schedstat), else nan."""
    try:
        return int(Path("/proc/thread-self/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")


def edit_times(
    dashboard, criterion: str, edits: int, cpu: list[float] | None = None, waited: list[float] | None = None
) -> list[float]:
    """Wall-clock seconds of each edit (and, into ``cpu``, this thread's CPU seconds; into
    ``waited``, its seconds waiting for a core)."""
    grid = dashboard.scores.grid(criterion)
    system, experiment = dashboard.state.study.systems[0], dashboard.state.study.experiment_ids[-1]
    cell = grid.cell(system, experiment)
    low = dashboard.state.study.quality_criterion(criterion).scale_min
    times = []
    for _ in range(edits):
        k = next(EDIT_NUMBER)  # counted across calls: an edit never sets the value the cell already has
        before = dashboard.charts.cv_chart.outputs
        delay = run_delay() if waited is not None else 0.0
        start, start_cpu = time.perf_counter(), time.thread_time()
        cell.value = f"{low + 1 + (k % 7) / 10 + 0.01:.2f}"
        assert dashboard.charts.cv_chart.outputs is not before
        times.append(time.perf_counter() - start)
        if cpu is not None:
            cpu.append(time.thread_time() - start_cpu)
        if waited is not None:
            waited.append(run_delay() - delay)
    return times


class FullCollections:
    """Counts the full (generation 2) garbage collections, and their seconds, while active."""

    def __init__(self):
        self.times: list[float] = []

    def __call__(self, phase: str, info: dict) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.times.append(time.perf_counter() - self._start)

    def __enter__(self):
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc):
        gc.callbacks.remove(self)


def cold_start() -> float:
    code = (
        "import time; t = time.perf_counter(); from qra_widgets.widgets import Dashboard; from qra_widgets import examples; "
        "d = Dashboard(examples.load('qrapp_example1'), library_path=__import__('tempfile').mkdtemp() + '/l.sqlite3'); "
        "assert d.charts.cv_chart.outputs; print(time.perf_counter() - t)"
    )
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument(
        "--big-edits", type=int, default=60, help="edits of the 200 x 8 study (enough for a stable p90)"
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    from qra_widgets import examples
    from qra_widgets.widgets import Dashboard

    cold = cold_start()
    folder = Path(tempfile.mkdtemp())
    dashboard = Dashboard(library_path=folder / "library.sqlite3")
    big = big_study()
    opened = open_time(dashboard, big, examples.load("qra2022_pass"))
    start = time.perf_counter()
    Dashboard(big, library_path=folder / "library.sqlite3")
    constructed = time.perf_counter() - start
    big_cpu: list[float] = []
    big_waited: list[float] = []
    with FullCollections() as collections:
        big_edits = edit_times(dashboard, "Quality", args.big_edits, big_cpu, big_waited)

    dashboard.state.load(examples.load("qrapp_example1"))
    edit_times(dashboard, "Fluency", 20)  # warm-up
    small_edits = edit_times(dashboard, "Fluency", args.edits)
    gc.collect()
    rss_before = rss_mb()
    tracemalloc.start()  # (it slows Python down: times are measured without it, above)
    heap_before = tracemalloc.get_traced_memory()[0]
    edit_times(dashboard, "Fluency", args.edits)
    gc.collect()
    rss_after, heap_after = rss_mb(), tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()

    ms = lambda values: f"{statistics.median(values) * 1000:.0f} ms (p90 {np.percentile(values, 90) * 1000:.0f} ms)"
    full = (
        f"{len(collections.times)} ({', '.join(f'{t * 1000:.0f} ms' for t in collections.times)})"
        if collections.times
        else "0"
    )
    rows = [
        (
            "open a 200-system x 8-experiment study after another study (all views, all charts), median of 3",
            f"{opened:.2f} s",
            "< 1 s",
        ),
        ("`Dashboard(study)` of that study, built from nothing", f"{constructed:.2f} s", "–"),
        (f"edit -> CV* chart, QRA++ Example 1 (median of {args.edits})", ms(small_edits), "< 150 ms"),
        (f"edit -> CV* chart, 200 x 8 study (median of {args.big_edits})", ms(big_edits), "< 150 ms"),
        ("  the same edits: kernel CPU time per edit", ms(big_cpu), "–"),
        ("  the same edits: time waiting for a core (other processes' load)", ms(big_waited), "–"),
        ("  the same edits: full garbage collections", full, "–"),
        (f"kernel memory over {args.edits} edits: RSS growth", f"{rss_after - rss_before:+.1f} MB", "flat"),
        (
            f"kernel memory over {args.edits} edits: Python heap growth",
            f"{(heap_after - heap_before) / 2**20:+.2f} MB",
            "flat",
        ),
        ("cold start to first chart (new interpreter, import, `Dashboard(study)`)", f"{cold:.1f} s", "< 5 s"),
    ]
    table = "\n".join(
        ["| measurement | value | target |", "|---|---:|---|", *[f"| {a} | {b} | {c} |" for a, b, c in rows]]
    )
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    table += f"\n\nLoad average (1 / 5 / 15 min) at the end: {load} on {os.cpu_count()} cores."
    print(table)
    if args.out:
        args.out.write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
