"""Does the caution rule (``qra_widgets.intervals.CAUTIONS``, the ``ci_note`` column) pick out the
intervals that cover too little?  A check on the coverage study's model (benchmarks/coverage.py).

    python benchmarks/caution_check.py --reps 40 --B 300 --seed 20261126 --out benchmarks/caution-check.md

For each replication of the designs tau in {0, 0.1, 0.3} x n in {2, 3} experiments x paired /
unpaired items x 2 raters (30 items per system, 5 systems), it runs ``assess``'s item bootstrap
(percentile and BCa from the same replicates, the boundary rule included), and records for the
criterion-level CV*, r, P and W (and each system's CV*) whether the interval contains the value
for these raters (the ``raters`` target of the coverage study) and whether the rule put a
caution on it.  The output is the coverage of the intervals with and without a caution, with
its Monte-Carlo standard error ``sqrt(c (1 - c) / n)``.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from qra_widgets.assess import assess
from qra_widgets.intervals import assessment_intervals, interval_caution
from qra_widgets.uncertainty import Bootstrap
from qra_widgets.uncertainty import bootstrap as run_bootstrap

MEASURES = ("CV*", "r", "P", "W")


def coverage_model():
    """benchmarks/coverage.py by path (the name ``coverage`` is taken by coverage.py, the tool)."""
    spec = importlib.util.spec_from_file_location("coverage_study", ROOT / "benchmarks" / "coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def one(cell, rng: np.random.Generator, B: int) -> list[tuple]:
    """``(measure, level, tau, method, cautioned, covered, widths, two_sided)`` for each interval
    of one replication; ``widths`` is a two-sided interval's distance from the estimate to 1 in
    interval widths when the interval leaves 1 out (else inf)."""
    study, c, b = cell.simulate(rng)
    truth = cell.truths(c, b, np.zeros(5))["raters"]  # the experiments target is not used here
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assessment = assess(study, "qrapp")
        estimates = {(r.measure, r.level, r.system): r.value for r in assessment.rows}
        result = run_bootstrap(
            study, assessment.conventions, B=B, seed=int(rng.integers(2**31)), ci_method="bca", resample="items"
        )
        for method in ("percentile", "bca"):
            found = assessment_intervals(
                assessment,
                Bootstrap(
                    result.replicates,
                    result.estimates,
                    result.jackknife if method == "bca" else {},
                    {**result.info, "ci_method": method},
                ),
            )
            for key, (low, high, word, _note, over) in found.items():
                measure, level, _qc, system = key
                if key[0] in ("annotators", "mean") or level == "study" or measure not in MEASURES:
                    continue
                value = truth.get((measure, level, system))
                if value is None or not np.isfinite(value) or not np.isfinite(low):
                    continue
                estimate = estimates[(measure, level, system)]
                cautioned = bool(interval_caution(measure, level, word, over, estimate, low, high))
                # for the threshold table: a two-sided interval that leaves 1 out, its distance to 1 in interval widths
                widths = (
                    (1 - estimate) / (high - low)
                    if word in ("percentile", "bca") and high < 1 and high > low
                    else math.inf
                )
                out.append(
                    (
                        measure,
                        level,
                        cell.tau,
                        method,
                        cautioned,
                        bool(low <= value <= high),
                        widths,
                        word in ("percentile", "bca"),
                    )
                )
    return out


def table(records: list[tuple], by) -> list[str]:
    groups: dict = {}
    for record in records:
        groups.setdefault(by(record), []).append(record[5])
    lines = []
    for key in sorted(groups, key=str):
        hits = groups[key]
        share = float(np.mean(hits))
        lines.append(
            "| "
            + " | ".join(map(str, key))
            + f" | {len(hits)} | {100 * share:.1f} ({100 * math.sqrt(share * (1 - share) / len(hits)):.1f}) |"
        )
    return lines


def threshold_table(records: list[tuple]) -> list[str]:
    lines = []
    rpw = [r for r in records if r[0] in ("r", "P", "W")]
    for k in (0.5, 0.75, 1.0, 1.5):
        for method in ("percentile", "bca"):
            misses = [r for r in rpw if r[3] == method and r[2] <= 0.1 and not r[5] and r[7]]
            flagged = [r for r in rpw if r[3] == method and r[2] == 0.3 and r[6] <= k]
            share = np.mean([r[6] <= k for r in misses]) if misses else math.nan
            covered = np.mean([r[5] for r in flagged]) if flagged else math.nan
            lines.append(
                f"| {k:g} | {method} | {sum(r[6] <= k for r in misses)} of {len(misses)} ({100 * share:.0f}%) "
                f"| {len(flagged)} | {100 * covered:.1f} |"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=40)
    parser.add_argument("--B", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20261126)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "caution-check.md")
    args = parser.parse_args(argv)
    model = coverage_model()
    cells = [model.Cell(t, n, p, 2) for t in (0.0, 0.1, 0.3) for n in (2, 3) for p in ("paired", "unpaired")]
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    records = [r for _ in range(args.reps) for cell in cells for r in one(cell, rng, args.B)]
    minutes = (time.perf_counter() - started) / 60
    level = lambda r: "system" if r[1] == "system" else "criterion"
    lines = [
        "# Does the caution rule pick out the intervals that cover too little?",
        "",
        (
            f"Command: `python benchmarks/caution_check.py --reps {args.reps} --B {args.B} --seed {args.seed}` "
            f"({minutes:.0f} minutes). Model: benchmarks/coverage.py; tau in 0, 0.1, 0.3; n = 2, 3; paired and "
            f"unpaired; 2 raters; {args.reps} replications per design (12 designs). Item bootstrap with the boundary "
            "rule; target: the value for these raters. Coverage in percent (MC SE); nominal 95%."
        ),
        "",
        "## By measure",
        "",
        "| measure | level | method | caution | intervals | coverage |",
        "|---|---|---|---|---:|---:|",
        *table(records, lambda r: (r[0], level(r), r[3], "yes" if r[4] else "no")),
        "",
        "## r, P and W by the true spread tau",
        "",
        "| tau | method | caution | intervals | coverage |",
        "|---|---|---|---:|---:|",
        *table([r for r in records if r[0] in ("r", "P", "W")], lambda r: (r[2], r[3], "yes" if r[4] else "no")),
        "",
        "## Each of r, P and W by tau",
        "",
        "| measure | tau | method | caution | intervals | coverage |",
        "|---|---|---|---|---:|---:|",
        *table([r for r in records if r[0] in ("r", "P", "W")], lambda r: (r[0], r[2], r[3], "yes" if r[4] else "no")),
        "",
        "## The threshold: one interval width",
        "",
        "Two-sided r, P and W intervals that leave 1 out, flagged when 1 is within k interval widths of the",
        "estimate: of the two-sided intervals that miss the truth at tau <= 0.1, the share k flags; and the",
        "coverage of what k flags at tau = 0.3 (where a flag is a false alarm if the interval covers).",
        "",
        "| k | method | misses at tau <= 0.1 flagged | flagged at tau = 0.3: intervals | coverage |",
        "|---|---|---:|---:|---:|",
        *threshold_table(records),
        "",
    ]
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out} ({len(records)} intervals, {minutes:.1f} minutes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
