"""Benchmark of the static site: ``qra-widgets site`` of a library of 10, 100 and 1,000 studies.

    python benchmarks/site.py              # 100 and 1,000 studies
    python benchmarks/site.py --quick      # 10 studies: proves it still runs (CI)

Target: 1,000 studies in at most half the time the site took when every chart was a validated
Plotly figure turned into HTML (36 s measured on the development machine; see site-latest.md).
Studies are the organisers' benchmark's (benchmarks/overview.py): 2 criteria, 6 systems, 4
experiments.  Times are the process's CPU time (``time.process_time``; the machine is shared), with
the wall-clock time beside it; the library is filled before the clock starts.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parent))

from overview import simulated

from qra_widgets.report.site import build_site
from qra_widgets.store import StudyLibrary


def run(studies: int) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as folder:
        library = StudyLibrary(Path(folder) / "library.sqlite3")
        rng = np.random.default_rng(0)
        for index in range(studies):
            library.save(simulated(index, rng))
        cpu, wall = time.process_time(), time.perf_counter()
        written = build_site(Path(folder) / "library.sqlite3", Path(folder) / "site")
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        plotly_loaded = "plotly" in sys.modules
        print(f"{studies} studies: {cpu:.1f} s CPU, {wall:.1f} s wall, {len(written)} files, plotly imported: {plotly_loaded}",
              flush=True)
        return cpu, wall, len(written)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="*")
    args = parser.parse_args()
    sizes = args.sizes or ([10] if args.quick else [100, 1000])
    for size in sizes:
        run(size)


if __name__ == "__main__":
    main()
