"""Coverage of the pooled interval of a few experiments (qra_widgets.pooling.random_effects), by simulation.

    python benchmarks/coverage_pooling.py --reps 2000 --seed 5 --out benchmarks/coverage-pooling-latest.md

Families of k experiments (k = 2, 3, 5): each experiment's value is ``mu + u + e`` with
``u ~ N(0, tau^2)`` and ``e ~ N(0, se^2)``, its standard error ``se`` drawn uniformly from a
range; the truth is ``mu = 0``.  Each family is pooled by REML and DerSimonian–Laird, with the
Knapp–Hartung interval (``ci_method="hksj"``, the default) and the normal one (``"z"``), and the
share of families whose 95% interval contains 0 is reported with its Monte-Carlo standard error.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from qra_widgets.pooling import random_effects

DESIGNS = [
    (k, tau2, low, high)
    for k in (2, 3, 5)
    for tau2, low, high in ((0.0, 0.1, 0.2), (0.02, 0.1, 0.2), (0.05, 0.1, 0.2), (0.05, 0.05, 0.3), (0.1, 0.1, 0.1))
]
METHODS = [(m, c) for m in ("reml", "dl") for c in ("hksj", "z")]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "coverage-pooling-latest.md")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    started = time.time()
    lines = [
        "# Coverage of the pooled interval (benchmarks/coverage_pooling.py)",
        "",
        (
            f"Command: `python benchmarks/coverage_pooling.py --reps {args.reps} --seed {args.seed}`; "
            "nominal 95%; `coverage (MC SE)` in percent."
        ),
        "",
        "| k | tau² | se range | " + " | ".join(f"{m.upper()} {c}" for m, c in METHODS) + " |",
        "|---:|---:|---|" + "---:|" * len(METHODS),
    ]
    for k, tau2, low, high in DESIGNS:
        rng = np.random.default_rng([args.seed, k, int(tau2 * 1000), int(low * 100), int(high * 100)])
        hits = dict.fromkeys(METHODS, 0)
        for _ in range(args.reps):
            se = rng.uniform(low, high, k)
            y = rng.normal(0.0, math.sqrt(tau2), k) + rng.normal(0.0, se)
            for method, ci_method in METHODS:
                pooled = random_effects(y, se, method=method, ci_method=ci_method)
                hits[(method, ci_method)] += pooled.ci_low <= 0.0 <= pooled.ci_high
        cells = []
        for key in METHODS:
            c = hits[key] / args.reps
            cells.append(f"{100 * c:.1f} ({100 * math.sqrt(c * (1 - c) / args.reps):.1f})")
        lines.append(f"| {k} | {tau2:g} | {low:g}–{high:g} | " + " | ".join(cells) + " |")
    lines += ["", f"{args.reps} families per design; {time.time() - started:.0f} s of wall-clock time."]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
