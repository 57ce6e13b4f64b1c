"""Coverage of every interval qra-widgets reports, by simulation: anyone can rerun it.

    python benchmarks/coverage.py --quick                 # every cell, a few replications (CI, < 3 min)
    python benchmarks/coverage.py --reps 500 --seed 20261125 --state /tmp/coverage-state.json
                                                          # the full study (hours on one core)

**The latent model.**  Ratings on a 1..5 scale of ``S = 5`` systems, ``I = 30`` items per
system, by ``R`` raters per experiment (every rater rates every item of its experiment):

    y[e, s, i, r] = clip(round(mu[s] + c[e, s] + a[e?, s, i] + b[e, r] + eps), 1, 5)

``mu`` = 2.6, 2.8, 3.0, 3.2, 3.4 (the systems' true quality), ``c[e, s] ~ N(0, tau^2)`` the
true between-experiment spread (what a reproduction study wants to measure), ``a ~ N(0,
0.8^2)`` the item effect (*paired*: the same items, hence the same ``a``, in every experiment;
*unpaired*: each experiment its own items), ``b ~ N(0, 0.4^2)`` each experiment's own raters'
severity, ``eps ~ N(0, 0.7^2)`` the residual.

**The targets** (the value an interval should contain), each computed exactly (normal
integrals, no simulation noise) and measured by the library's own ``assess()``:

* ``raters`` -- conditional on the experiments *and their raters*: every measure evaluated at
  the expected system means of these raters over an infinite set of items,
  ``mean_r f(mu_s + c_es + b_er)`` with ``f`` the expected clipped, rounded rating.  This is
  what resampling items estimates.
* ``over raters`` -- conditional on the experiments, over the population of raters:
  ``f(mu_s + c_es)`` with the rater variance added.  This is what resampling items and raters
  estimates.
* ``experiments`` -- over reproductions (new experiment effect, raters and items): a system's
  population CV ``sd / mean`` of its score (scale minimum subtracted), by a large simulation
  once per cell.  Vangel's (1996) interval claims this target.

For Krippendorff's alpha of each experiment's raters (ordinal), ``raters`` is alpha at infinite
items for these raters and ``over raters`` for raters drawn afresh, both by quadrature over the
item effect.

**The intervals**: ``assess(study, bootstrap=B, ci_method=..., resample=...)`` for
``resample`` in ``items``, ``items+raters``, ``systems`` and ``ci_method`` in ``percentile``,
``bca``; a system's CV* under ``systems`` is Vangel's interval.  One bootstrap per mode gives
both methods (the same replicates; BCa adds the jackknife).

**The output** (``--out``, default ``benchmarks/coverage-latest.md``): per measure, method and
mode, the share of replications whose interval contains each target, with its Monte-Carlo
standard error ``sqrt(c (1 - c) / n)`` (for system-level values, the replication's share of
systems covered, and the SE from the spread of those shares), and the number of replications
that gave an interval.  The replications run in rounds over all cells and the state is saved
after each round (``--state``), so a stopped run reports every cell with the replications that
really ran, and ``--resume`` continues it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from itertools import product
from pathlib import Path

import numpy as np
from scipy.special import ndtr

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from qra_widgets.assess import assess
from qra_widgets.intervals import assessment_intervals
from qra_widgets.ratings import Ratings
from qra_widgets.study import Experiment, QualityCriterion, Study
from qra_widgets.uncertainty import Bootstrap
from qra_widgets.uncertainty import bootstrap as run_bootstrap

SYSTEMS = 5
ITEMS = 30
MU = np.linspace(2.6, 3.4, SYSTEMS)
SD_ITEM, SD_RATER, SD_NOISE = 0.8, 0.4, 0.7
SCALE = np.arange(1, 6, dtype=float)
QC = QualityCriterion("quality", scale_min=1, scale_max=5, label_level="ordinal")
TAUS = (0.0, 0.1, 0.3)
EXPERIMENTS = (2, 3, 5)
PAIRING = ("paired", "unpaired")
RATERS = (2, 5)
MODES = ("items", "items+raters", "systems")
METHODS = ("percentile", "bca")
TARGETS = ("raters", "over raters", "experiments")
# which target each interval claims (what docs/coverage.md calls its stated target)
STATED = {"items": "raters", "items+raters": "over raters", "systems": "over raters", "vangel": "experiments"}
MEASURES = {
    ("CV*", "system"): "CV* (system)",
    ("CV*", "qc"): "CV* (criterion)",
    ("r", "qc"): "r",
    ("P", "qc"): "P",
    ("W", "qc"): "W",
    ("alpha", "annotators"): "alpha (each team)",
    ("mean", "system"): "system mean",
}
GAUSS = np.polynomial.hermite_e.hermegauss(48)  # nodes, weights for E[g(Z)], Z ~ N(0, 1) (weights sum to sqrt(2 pi))


# ----------------------------------------------------------------------------- the model's exact values


def category_probabilities(m, sd: float) -> np.ndarray:
    """P(y = k), k = 1..5, of clip(round(m + N(0, sd^2)), 1, 5); shape m.shape + (5,)."""
    m = np.asarray(m, dtype=float)[..., None]
    upper = np.concatenate([SCALE[:-1] + 0.5, [np.inf]])
    lower = np.concatenate([[-np.inf], SCALE[1:] - 0.5])
    return ndtr((upper - m) / sd) - ndtr((lower - m) / sd)


def expected_rating(m, sd: float) -> np.ndarray:
    return category_probabilities(m, sd) @ SCALE


def ordinal_distance(shares: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal metric from the category shares (the scale of n cancels in alpha)."""
    cumulative = np.concatenate([[0.0], np.cumsum(shares)])
    k = len(shares)
    d = np.zeros((k, k))
    for c in range(k):
        for g in range(k):
            lo, hi = min(c, g), max(c, g)
            d[c, g] = (cumulative[hi + 1] - cumulative[lo] - (shares[c] + shares[g]) / 2) ** 2
    return d


def alpha_truth(centre: np.ndarray, rater_effects: np.ndarray | None) -> float:
    """Ordinal alpha at infinitely many items: ``centre`` (S,) = mu + c of one experiment; raters
    ``rater_effects`` (R,) fixed, or ``None`` for two raters drawn afresh from N(0, SD_RATER^2)."""
    nodes, weights = GAUSS
    weights = weights / weights.sum()
    a = SD_ITEM * nodes  # item effect at each node
    if rater_effects is None:
        p = category_probabilities(centre[:, None] + a[None, :], math.hypot(SD_NOISE, SD_RATER))  # (S, N, K)
        pooled = np.einsum("snk,n->k", p, weights) / len(centre)
        d = ordinal_distance(pooled)
        observed = np.einsum("snk,kl,snl,n->", p, d, p, weights) / len(centre)
    else:
        p = category_probabilities(
            centre[:, None, None] + a[None, :, None] + rater_effects[None, None, :], SD_NOISE
        )  # (S, N, R, K)
        R = len(rater_effects)
        pooled = np.einsum("snrk,n->k", p, weights) / (len(centre) * R)
        d = ordinal_distance(pooled)
        total = p.sum(axis=2)
        all_pairs = np.einsum("snk,kl,snl,n->", total, d, total, weights)
        same = np.einsum("snrk,kl,snrl,n->", p, d, p, weights)
        observed = (all_pairs - same) / (R * (R - 1)) / len(centre)
    expected = pooled @ d @ pooled
    return float(1 - observed / expected)


def population_cv(tau: float, raters: int, rng: np.random.Generator, draws: int = 4000) -> np.ndarray:
    """(S,) a system's CV (percent) of its score over reproductions: new c, raters and items."""
    out = np.empty(SYSTEMS)
    for s in range(SYSTEMS):
        m = (
            MU[s]
            + rng.normal(0, tau, (draws, 1, 1))
            + rng.normal(0, SD_ITEM, (draws, ITEMS, 1))
            + rng.normal(0, SD_RATER, (draws, 1, raters))
            + rng.normal(0, SD_NOISE, (draws, ITEMS, raters))
        )
        score = np.clip(np.round(m), 1, 5).mean(axis=(1, 2)) - QC.scale_min
        out[s] = 100 * score.std(ddof=1) / score.mean()
    return out


# ----------------------------------------------------------------------------- one cell's fixed labels


class Cell:
    """A design: tau, n experiments, paired or not, raters per experiment; the label columns are built once."""

    def __init__(self, tau: float, n: int, pairing: str, raters: int):
        self.tau, self.n, self.pairing, self.raters = tau, n, pairing, raters
        s, e, i, r = np.meshgrid(np.arange(SYSTEMS), np.arange(n), np.arange(ITEMS), np.arange(raters), indexing="ij")
        s, e, i, r = (x.transpose(1, 0, 2, 3).ravel() for x in (s, e, i, r))  # order (e, s, i, r)
        self.columns = (
            np.full(s.size, QC.name, dtype=object),
            np.array([f"s{k}" for k in s], dtype=object),
            np.array(
                [f"s{a}-i{b}" if pairing == "paired" else f"e{c}-s{a}-i{b}" for a, b, c in zip(s, i, e)], dtype=object
            ),
            np.array([f"e{k}" for k in e], dtype=object),
            np.array([f"e{a}-r{b}" for a, b in zip(e, r)], dtype=object),
        )
        self.systems = [f"s{k}" for k in range(SYSTEMS)]
        self.experiments = [Experiment(f"e{k}", role="original" if k == 0 else "repeat") for k in range(n)]

    @property
    def name(self) -> str:
        return f"tau={self.tau:g} n={self.n} {self.pairing} R={self.raters}"

    def simulate(self, rng: np.random.Generator):
        """(study, c (n, S), b (n, R)) of one replication."""
        n, R = self.n, self.raters
        c = rng.normal(0, self.tau, (n, SYSTEMS))
        b = rng.normal(0, SD_RATER, (n, R))
        a = rng.normal(0, SD_ITEM, (1 if self.pairing == "paired" else n, SYSTEMS, ITEMS))
        latent = (
            MU[None, :, None, None]
            + c[:, :, None, None]
            + a[:, :, :, None]
            + b[:, None, None, :]
            + rng.normal(0, SD_NOISE, (n, SYSTEMS, ITEMS, R))
        )
        values = np.clip(np.round(latent), 1, 5).ravel()
        ratings = Ratings.from_columns(*self.columns, values)
        scores = values.reshape(latent.shape).mean(axis=(2, 3))  # (n, S) system means
        study = Study(
            id="coverage",
            quality_criteria=[QC],
            systems=self.systems,
            experiments=self.experiments,
            scores={(QC.name, f"s{s}", f"e{e}"): float(scores[e, s]) for e in range(n) for s in range(SYSTEMS)},
            ratings=ratings,
        )
        return study, c, b

    def truths(self, c: np.ndarray, b: np.ndarray, cv_population: np.ndarray) -> dict:
        """``{target: {(measure, level, system or experiment): value}}``."""
        sd = math.hypot(SD_ITEM, SD_NOISE)
        centre = MU[None, :] + c  # (n, S)
        conditional = expected_rating(centre[:, :, None] + b[:, None, :], sd).mean(axis=2)
        over = expected_rating(centre, math.hypot(sd, SD_RATER))
        out = {}
        for target, matrix in (("raters", conditional), ("over raters", over)):
            values = _measured(matrix, self)
            for e in range(self.n):
                values[("alpha", "annotators", f"e{e}")] = alpha_truth(centre[e], b[e] if target == "raters" else None)
                for s in range(SYSTEMS):
                    values[("mean", "system", (f"s{s}", f"e{e}"))] = float(matrix[e, s])
            out[target] = values
        out["experiments"] = {("CV*", "system", f"s{s}"): float(cv_population[s]) for s in range(SYSTEMS)}
        return out


def _measured(matrix: np.ndarray, cell: Cell) -> dict:
    """The library's own values of a matrix of expected system means (rows = experiments)."""
    study = Study(
        id="truth",
        quality_criteria=[QC],
        systems=cell.systems,
        experiments=cell.experiments,
        scores={(QC.name, f"s{s}", f"e{e}"): float(matrix[e, s]) for e in range(cell.n) for s in range(SYSTEMS)},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = assess(study, "qrapp").rows
    return {(row.measure, row.level, row.system): row.value for row in rows if (row.measure, row.level) in MEASURES}


# ----------------------------------------------------------------------------- one replication


def intervals(study: Study, mode: str, B: int, seed: int, assessment=None) -> dict:
    """``{(method, key): (low, high)}`` from one bootstrap per mode: percentile and BCa share the replicates.
    ``method`` is ``percentile``, ``bca`` or ``vangel``; ``key`` is (measure, level, system or experiment)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assessment = assessment if assessment is not None else assess(study, "qrapp")
        result = run_bootstrap(study, assessment.conventions, B=B, seed=seed, ci_method="bca", resample=mode)
        out = {}
        for method in METHODS:
            info = {**result.info, "ci_method": method}
            found = assessment_intervals(
                assessment,
                Bootstrap(result.replicates, result.estimates, result.jackknife if method == "bca" else {}, info),
            )
            for key, (low, high, label, *_rest) in found.items():
                if key[0] == "annotators":
                    measure, level, system = key[3], "annotators", key[1]
                elif key[0] == "mean":  # ("mean", experiment, criterion, system): a system's mean in one experiment
                    measure, level, system = "mean", "system", (key[3], key[1])
                else:
                    measure, level, _qc, system = key
                if (measure, level) not in MEASURES or not (np.isfinite(low) and np.isfinite(high)):
                    continue
                name = "vangel" if "vangel" in label.lower() else method
                out[(name, (measure, level, system))] = (low, high)
    return out


def replicate(cell: Cell, rng: np.random.Generator, B: int, cv_population: np.ndarray) -> dict:
    """``{(measure label, mode, method, target): (share covered, defined)}`` of one replication."""
    study, c, b = cell.simulate(rng)
    truths = cell.truths(c, b, cv_population)
    hits: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assessment = assess(study, "qrapp")  # once: the modes differ only in the bootstrap
    for mode in MODES:
        found = intervals(study, mode, B, int(rng.integers(2**31)), assessment)
        for (method, key), (low, high) in found.items():
            for target, values in truths.items():
                truth = values.get(key)
                if truth is None or not np.isfinite(truth):
                    continue
                label = (MEASURES[key[:2]], mode if method != "vangel" else "scores", method, target)
                hits.setdefault(label, []).append(low <= truth <= high)
    return {k: float(np.mean(v)) for k, v in hits.items()}


# ----------------------------------------------------------------------------- the study


def cells() -> list[Cell]:
    return [Cell(t, n, p, r) for t, n, p, r in product(TAUS, EXPERIMENTS, PAIRING, RATERS)]


def run(
    reps: int,
    B: int,
    seed: int,
    state_path: Path | None,
    out: Path,
    round_size: int,
    command: str,
    resume: bool = False,
    limit_seconds: float | None = None,
    draws: int = 4000,
    shard: tuple[int, int] = (0, 1),
) -> dict:
    all_cells = cells()  # a cell's seed is its index in the full list, so shards and whole runs draw the same numbers
    mine = [c for k, c in enumerate(all_cells) if k % shard[1] == shard[0]]
    state = {"seed": seed, "B": B, "command": command, "cells": {}}
    if resume and state_path is not None and state_path.exists():
        state = json.loads(state_path.read_text())
        if state["seed"] != seed or state["B"] != B:
            raise SystemExit(f"{state_path}: made with seed {state['seed']} and B {state['B']}, not {seed} and {B}")
    started = time.perf_counter()
    for c in mine:
        entry = state["cells"].setdefault(c.name, {"reps": 0, "seconds": 0.0, "sums": {}, "cv_population": None})
        if entry["cv_population"] is None:
            entry["cv_population"] = population_cv(
                c.tau, c.raters, np.random.default_rng([seed, 7, all_cells.index(c)]), draws
            ).tolist()
    while True:
        pending = [c for c in mine if state["cells"][c.name]["reps"] < reps]
        if not pending:
            break
        for c in pending:
            entry = state["cells"][c.name]
            todo = min(round_size, reps - entry["reps"])
            t0 = time.perf_counter()
            for k in range(entry["reps"], entry["reps"] + todo):
                rng = np.random.default_rng([seed, all_cells.index(c), k])
                for label, share in replicate(c, rng, B, np.array(entry["cv_population"])).items():
                    name = " | ".join(label)
                    s = entry["sums"].setdefault(name, [0, 0.0, 0.0])
                    s[0] += 1
                    s[1] += share
                    s[2] += share * share
            entry["reps"] += todo
            entry["seconds"] += time.perf_counter() - t0
            if state_path is not None:  # after every cell: a stopped run loses at most one cell's round
                state_path.write_text(json.dumps(state))
            out.write_text(report(state))
            if limit_seconds is not None and time.perf_counter() - started > limit_seconds:
                return state
    out.write_text(report(state))
    return state


def merge_states(paths: list[Path]) -> dict:
    """One state from the shards' files (their cells are disjoint; seed and B must agree)."""
    states = [json.loads(p.read_text()) for p in paths]
    merged = {**states[0], "cells": {}}
    if len(states) > 1:  # one process per shard: say every command that made the numbers
        merged["command"] = "` and `".join(dict.fromkeys(state["command"] for state in states))
    for path, state in zip(paths, states):
        if (state["seed"], state["B"]) != (merged["seed"], merged["B"]):
            raise SystemExit(f"{path}: seed {state['seed']} and B {state['B']} differ from {paths[0]}")
        for name, entry in state["cells"].items():
            if name in merged["cells"] and merged["cells"][name]["reps"] >= entry["reps"]:
                continue
            merged["cells"][name] = entry
    order = [c.name for c in cells()]
    merged["cells"] = dict(
        sorted(merged["cells"].items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
    )
    return merged


def coverage(s: list) -> tuple[float, float, int]:
    """(coverage, Monte-Carlo SE, replications with an interval) from [count, sum, sum of squares]."""
    n, total, squares = s
    mean = total / n
    variance = max(squares / n - mean * mean, 0.0) * n / max(n - 1, 1)
    return mean, math.sqrt(variance / n), n


def summary(state: dict) -> list[str]:
    """Coverage of each interval for its stated target, pooled over the cells of each tau (and the
    worst cell), as the table of docs/coverage.md."""
    pooled: dict = {}
    worst: dict = {}
    for cell, entry in state["cells"].items():
        tau = cell.split()[0]
        for name, s in entry["sums"].items():
            measure, mode, method, target = name.split(" | ")
            if target != STATED["vangel" if method == "vangel" else mode]:
                continue
            a = pooled.setdefault((measure, mode, method, tau), [0, 0.0, 0.0])
            for k in range(3):
                a[k] += s[k]
            mean, _se, n = coverage(s)
            if n >= 5 and mean < worst.get((measure, mode, method), (2.0, ""))[0]:
                worst[(measure, mode, method)] = (mean, cell)
    if not pooled:
        return []
    taus = sorted({k[3] for k in pooled}, key=lambda x: float(x.split("=")[1]))
    lines = [
        "## Summary: each interval against the target it claims",
        "",
        (
            "Pooled over the cells of each tau (n experiments, pairing, raters); `coverage (MC SE)`, the SE from the "
            "spread of the replications' shares (cells differ, so it is a rough guide); the worst cell with at least 5 "
            "replications."
        ),
        "",
        "| measure | resampling | method | target | " + " | ".join(taus) + " | worst cell |",
        "|---|---|---|---|" + "---:|" * len(taus) + "---|",
    ]
    order = list(MEASURES.values())
    for measure, mode, method in sorted({k[:3] for k in pooled}, key=lambda k: (order.index(k[0]), k[1], k[2])):
        cells = []
        for tau in taus:
            s = pooled.get((measure, mode, method, tau))
            if s is None:
                cells.append("-")
            else:
                mean, se, n = coverage(s)
                cells.append(f"{100 * mean:.1f} ({100 * se:.1f})")
        low, where = worst.get((measure, mode, method), (float("nan"), ""))
        target = STATED["vangel" if method == "vangel" else mode]
        worst_text = f"{100 * low:.0f}% ({where})" if where else "-"
        lines.append(f"| {measure} | {mode} | {method} | {target} | " + " | ".join(cells) + f" | {worst_text} |")
    return lines + [""]


def report(state: dict) -> str:
    reps = [e["reps"] for e in state["cells"].values()]
    seconds = sum(e["seconds"] for e in state["cells"].values())
    lines = [
        "# Interval coverage (benchmarks/coverage.py)",
        "",
        f"Command: `{state['command']}`  ",
        *([f"{state['note']}  "] if state.get("note") else []),
        f"Seed {state['seed']}, B = {state['B']} bootstrap replicates, nominal 95%.  ",
        f"Replications per cell: {min(reps)} to {max(reps)} ({sum(reps)} in all, {seconds / 60:.0f} minutes of computing, summed over the shards).",
        "",
        "Model and targets: see the docstring of `benchmarks/coverage.py` and docs/coverage.md.",
        "Cells: `coverage (MC SE)`; a cell reads `-` when no replication gave that interval.",
        "The stated target of each interval: items -> raters, items+raters -> over raters, Vangel -> experiments.",
        "",
    ]
    lines += summary(state)
    names = sorted({k for e in state["cells"].values() for k in e["sums"]})
    rows = sorted(
        {tuple(k.split(" | ")[:3]) for k in names}, key=lambda r: (list(MEASURES.values()).index(r[0]), r[1], r[2])
    )
    cell_names = list(state["cells"])
    for measure in MEASURES.values():
        mine = [r for r in rows if r[0] == measure]
        if not mine:
            continue
        lines += [f"## {measure}", ""]
        for target in TARGETS:
            present = [
                r for r in mine if any(" | ".join((*r, target)) in state["cells"][c]["sums"] for c in cell_names)
            ]
            if not present:
                continue
            lines += [
                f"Target: **{target}**",
                "",
                "| design | reps | " + " | ".join(f"{r[1]} {r[2]}" for r in present) + " |",
                "|---|---:|" + "---:|" * len(present),
            ]
            for c in cell_names:
                entry = state["cells"][c]
                cells_text = []
                for r in present:
                    s = entry["sums"].get(" | ".join((*r, target)))
                    if s is None:
                        cells_text.append("-")
                    else:
                        mean, se, n = coverage(s)
                        cells_text.append(
                            f"{100 * mean:.1f} ({100 * se:.1f})" + ("" if n == entry["reps"] else f" [{n}]")
                        )
                lines.append(f"| {c} | {entry['reps']} | " + " | ".join(cells_text) + " |")
            lines.append("")
    lines += ["`[k]`: only k of the cell's replications gave an interval (the others: undefined measure).", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="every cell, 2 replications, B = 100 (CI)")
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--B", type=int, default=500)
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--round", type=int, default=10, help="replications per cell per round")
    parser.add_argument(
        "--state",
        type=Path,
        default=None,
        action="append",
        help="JSON file saved after every round; with --report-only, several shards' files are merged",
    )
    parser.add_argument(
        "--shard",
        default="0/1",
        help="K/N: run only the cells whose index is K modulo N "
        "(one process per core; merge with --report-only --state A --state B)",
    )
    parser.add_argument("--resume", action="store_true", help="continue the run saved in --state")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--minutes", type=float, default=None, help="stop after the cell's round that passes this")
    parser.add_argument("--report-only", action="store_true", help="write --out from --state without running anything")
    args = parser.parse_args(argv)
    if args.report_only:
        if not args.state or not all(p.exists() for p in args.state):
            parser.error("--report-only needs --state FILE (one per shard)")
        (args.out or ROOT / "benchmarks" / "coverage-latest.md").write_text(report(merge_states(args.state)))
        return 0
    if args.state and len(args.state) > 1:
        parser.error("a run writes one --state file (merge shards with --report-only)")
    state_path = args.state[0] if args.state else None
    try:
        shard = tuple(int(x) for x in args.shard.split("/"))
        if len(shard) != 2 or not 0 <= shard[0] < shard[1]:
            raise ValueError
    except ValueError:
        parser.error(f"--shard: expected K/N with 0 <= K < N, got {args.shard!r}")
    command = "python benchmarks/coverage.py " + " ".join(a for a in (argv if argv is not None else sys.argv[1:]))
    if args.quick:
        args.reps, args.B, args.round = 2, 100, 2
    out = args.out or (Path("/dev/stdout") if args.quick else ROOT / "benchmarks" / "coverage-latest.md")
    started = time.perf_counter()
    state = run(
        args.reps,
        args.B,
        args.seed,
        state_path,
        out if not args.quick else Path("/dev/null"),
        args.round,
        command,
        resume=args.resume,
        limit_seconds=None if args.minutes is None else 60 * args.minutes,
        draws=500 if args.quick else 4000,
        shard=shard,
    )
    text = report(state)
    if args.quick:
        print(text)
    print(f"done in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
