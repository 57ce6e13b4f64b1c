"""Benchmark of the static site: ``qra-widgets site`` of a library of 10, 100 and 1,000 studies.

    python benchmarks/site.py                          # 100 and 1,000 studies
    python benchmarks/site.py --quick                  # 10 studies: proves it still runs (CI)
    python benchmarks/site.py --sizes 300 --against afdbf1f --pairs 2
                                                       # before/after pairs, run back to back

Target: 1,000 studies in at most half the time the site took when every chart was a validated
Plotly figure turned into HTML (commit ``afdbf1f``, the one before the light site; 36 s measured
on the development machine; see site-latest.md).  ``--against COMMIT`` runs that commit's
package (extracted with ``git archive`` into a temporary folder, so no checkout is touched) on the
same simulated library right before this tree's, ``--pairs`` times, and prints the ratio of each pair.
Studies are the organisers' benchmark's (benchmarks/overview.py): 2 criteria, 6 systems, 4
experiments.  Times are the process's CPU time (``time.process_time``; the machine is shared), with
the wall-clock time beside it; the library is filled (each study saved, as a user's library is)
before the clock starts.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASELINE = "afdbf1f"  # the site before chart JSON: validated plotly figures, to_html


def run(studies: int) -> tuple[float, float, int]:
    import numpy as np
    from overview import simulated

    import qra_widgets

    # By file, not by trying the import: with this tree installed in editable mode, setuptools'
    # finder would answer "qra_widgets.report" from this tree for an older package that has none.
    if (Path(qra_widgets.__file__).parent / "report" / "site.py").exists():
        from qra_widgets.report.site import build_site
    else:  # the package before the site moved into report/
        from qra_widgets.site import build_site
    from qra_widgets.store import StudyLibrary

    with tempfile.TemporaryDirectory() as folder:
        library = StudyLibrary(Path(folder) / "library.sqlite3")
        rng = np.random.default_rng(0)
        for index in range(studies):
            library.save(simulated(index, rng))
        cpu, wall = time.process_time(), time.perf_counter()
        written = build_site(Path(folder) / "library.sqlite3", Path(folder) / "site")
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        plotly_loaded = "plotly" in sys.modules
        print(
            f"{studies} studies: {cpu:.1f} s CPU, {wall:.1f} s wall, {len(written)} files, plotly imported: {plotly_loaded}",
            flush=True,
        )
        return cpu, wall, len(written)


def _timed(root: Path, studies: int) -> float:
    """One run in a fresh process with the package at ``root``; its CPU seconds."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, __file__, "--sizes", str(studies), "--package", str(root)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    print(f"  {root.name}: {done.stdout.strip()}", flush=True)
    return float(re.search(r"([0-9.]+) s CPU", done.stdout).group(1))


def against(commit: str, studies: int, pairs: int) -> None:
    """``pairs`` pairs (before = ``commit``, after = this tree), back to back, and their ratios."""
    with tempfile.TemporaryDirectory(prefix="qra-site-baseline-") as folder:
        baseline = Path(folder) / f"at-{commit}"
        baseline.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(HERE.parent), "archive", commit, "qra_widgets"], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(baseline)], input=archive, check=True)
        for pair in range(1, pairs + 1):
            print(f"{studies} studies, pair {pair}:", flush=True)
            before, after = _timed(baseline, studies), _timed(HERE.parent, studies)
            print(f"  after / before = {after:.1f} / {before:.1f} = {after / before:.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="*")
    parser.add_argument(
        "--against", metavar="COMMIT", help=f"time COMMIT's package too, before this tree's (e.g. {BASELINE})"
    )
    parser.add_argument("--pairs", type=int, default=1)
    parser.add_argument("--package", type=Path, help=argparse.SUPPRESS)  # set by --against for its runs
    args = parser.parse_args()
    sys.path[:0] = [str(args.package or HERE.parent), str(HERE)]
    import qra_widgets  # now: benchmarks/overview.py puts this tree's folder first on sys.path

    root = Path(qra_widgets.__file__).resolve().parents[1]
    if root != (args.package or HERE.parent).resolve():
        sys.exit(f"site.py: imported qra_widgets from {root}, not {args.package or HERE.parent}")
    sizes = args.sizes or ([10] if args.quick else [100, 1000])
    for size in sizes:
        if args.against:
            against(args.against, size, args.pairs)
        else:
            run(size)


if __name__ == "__main__":
    main()
