"""The engine's constant factor against a baseline commit, paired: ``assess()``, ``StudyLibrary.save``,
the bootstrap against its multiply-add floor, 300 against 30 systems, and the pairwise bootstrap.

    python benchmarks/engine.py                       # every case, 3 pairs, against the default baselines
    python benchmarks/engine.py --quick               # small sizes, one pair: proves it still runs (CI)
    python benchmarks/engine.py --cases assess save --against e950350 --pairs 3

Each case runs in a fresh process with the package at a given root: the baseline's
``qra_widgets`` (extracted with ``git archive`` into a temporary folder, so no checkout is
touched) and this tree's, back to back, ``--pairs`` times, interleaved (baseline, this tree,
baseline, ...).  The ratio of a case is the median over the pairs of (this tree / baseline),
in CPU time (``time.process_time`` around the measured work only: the machine is shared, and
wall-clock time measures the neighbours).  The load average is printed with every run.

Baselines: ``assess`` and ``save`` against ``e950350`` (the tree before the "one engine" merge
12691eb, the target: at least as fast); the bootstrap cases against ``37a36a3`` (the tree before
this round's work on the engine's constant factor).  The targets that are ratios within one tree
(bootstrap / floor, 300 / 30 systems, pairwise bootstrap / one assess) are computed in each run
and reported for both trees.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASELINES = {
    "assess": "e950350",
    "assess-90k": "e950350",
    "save": "e950350",
    "bootstrap-90k": "37a36a3",
    "bootstrap-8.6k": "37a36a3",
    "systems": "37a36a3",
    "pairwise": "37a36a3",
}


def _cpu(function) -> float:
    start = time.process_time()
    function()
    return time.process_time() - start


def _floor(B: int, ratings: int) -> float:
    """CPU seconds of B x ratings multiply-adds at BLAS speed: (100, ratings) @ (ratings,) products, B / 100 of them."""
    import numpy as np

    rng = np.random.default_rng(0)
    weights, values = rng.random((100, ratings)), rng.random(ratings)
    weights @ values  # warm-up
    return _cpu(lambda: [weights @ values for _ in range(B // 100)])


def _pairwise_study(folder: Path, judgements: int, systems: int):
    import numpy as np

    from qra_widgets.io.annotations import load_annotations

    rng = np.random.default_rng(7)
    strength = rng.normal(0, 1, systems)
    for e in ("O", "R"):
        a, b = rng.integers(0, systems, judgements), rng.integers(0, systems - 1, judgements)
        b = np.where(b >= a, b + 1, b)
        p = 1 / (1 + np.exp(strength[b] - strength[a]))
        answer = np.where(rng.random(judgements) < p, "A", "B")
        rows = ["item,rater,left,right,answer"] + [
            f"i{j},r{j % 20},s{x},s{y},{c}" for j, (x, y, c) in enumerate(zip(a, b, answer))
        ]
        (folder / f"{e}.csv").write_text("\n".join(rows) + "\n")
    spec = {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "pairs",
        "quality_criteria": [{"name": "Q", "scale_min": 0, "scale_max": 100, "label_level": "nominal"}],
        "experiments": [
            {
                "id": e,
                "file": f"{e}.csv",
                "layout": "pairwise",
                "score": "bradley_terry",
                "columns": {
                    "item": "item",
                    "rater": "rater",
                    "system_a": "left",
                    "system_b": "right",
                    "choice": "answer",
                },
                "choices": {"A": "a", "B": "b"},
            }
            for e in ("O", "R")
        ],
    }
    return load_annotations(spec, base=folder)


def case(name: str, quick: bool) -> dict:
    """Run one case with the imported package; its CPU seconds (and the within-tree ratio, if any)."""
    import numpy as np
    from overview import simulated
    from run import annotation_study

    import qra_widgets as qw

    if name == "assess":  # organisers' studies: 2 criteria, 6 systems, 4 experiments
        rng = np.random.default_rng(0)
        studies = [simulated(i, rng) for i in range(30 if quick else 300)]
        return {"cpu": _cpu(lambda: [qw.assess(s) for s in studies])}
    if name == "assess-90k":  # 6 experiments x 1,000 items x 5 raters x 3 criteria, 10 systems: 90,000 ratings
        studies = [
            annotation_study(*((3, 120, 1) if quick else (6, 1000, 3)), raters=5, systems=10, seed=seed)
            for seed in range(3)
        ]
        return {
            "cpu": _cpu(lambda: [qw.assess(study) for study in studies])
        }  # each study's first assess (it validates the ratings)
    if name == "save":
        from qra_widgets.store import StudyLibrary

        rng = np.random.default_rng(0)
        studies = [simulated(i, rng) for i in range(20 if quick else 200)]
        with tempfile.TemporaryDirectory() as folder:
            library = StudyLibrary(Path(folder) / "library.sqlite3")
            return {"cpu": _cpu(lambda: [library.save(s) for s in studies])}
    from qra_widgets.uncertainty import bootstrap

    if name in ("bootstrap-90k", "bootstrap-8.6k"):
        size = {"bootstrap-90k": ((6, 1000, 3), 5), "bootstrap-8.6k": ((4, 360, 3), 2)}[name]
        study = annotation_study(
            *((3, 120, 1) if quick else size[0]), raters=size[1], systems=10 if name == "bootstrap-90k" else 3
        )
        B = 200 if quick else 2000
        bootstrap(study, B=10, seed=1)  # warm-up: imports
        cpu = _cpu(lambda: bootstrap(study, B=B, seed=1))
        floor = _floor(B, len(study.ratings))
        return {"cpu": cpu, "floor": floor, "within": cpu / floor, "ratings": len(study.ratings)}
    if name == "systems":  # time per rating, 300 against 30 systems, B = 500
        few, many, B = (6, 60, 50) if quick else (30, 300, 500)
        small = annotation_study(4, few * 20, 1, raters=2, systems=few)
        large = annotation_study(4, many * 20, 1, raters=2, systems=many)
        bootstrap(small, B=10, seed=1)
        a = _cpu(lambda: bootstrap(small, B=B, seed=1))
        b = _cpu(lambda: bootstrap(large, B=B, seed=1))
        per = len(large.ratings) / len(small.ratings)
        return {"cpu": a + b, "within": (b / per) / a}
    if name == "pairwise":  # B = 1,000 over 2 x 10,000 judgements of 50 systems, against one assess()
        judgements, systems, B = (1000, 10, 100) if quick else (10_000, 50, 1000)
        with tempfile.TemporaryDirectory() as folder:
            study = _pairwise_study(Path(folder), judgements, systems)
        qw.assess(study)
        one = statistics.median(_cpu(lambda: qw.assess(study)) for _ in range(5))
        cpu = _cpu(lambda: bootstrap(study, B=B, seed=1))
        return {"cpu": cpu, "assess": one, "within": cpu / one}
    raise SystemExit(f"engine.py: no case {name!r}")


def _extract(commit: str, folder: Path) -> Path:
    root = folder / f"at-{commit}"
    root.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(HERE.parent), "archive", commit, "qra_widgets"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    return root


def _timed(root: Path, name: str, quick: bool) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        check=False,
        args=[sys.executable, __file__, "--run", name, "--package", str(root), *(["--quick"] if quick else [])],
        capture_output=True,
        text=True,
        env=env,
    )
    if done.returncode:
        raise SystemExit(f"engine.py: {name} at {root} failed:\n{done.stderr[-2000:]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    found["load"] = os.getloadavg()[0]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--cases", nargs="*", choices=list(BASELINES), default=list(BASELINES))
    parser.add_argument("--against", metavar="COMMIT", help="one baseline for every case (default: each case's own)")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--run", help=argparse.SUPPRESS)  # one case in this process (set by the driver)
    parser.add_argument("--package", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path[:0] = [str(args.package or HERE.parent), str(HERE)]
    if args.run:
        import qra_widgets  # by file: the editable install's finder would answer from the main checkout

        root = Path(qra_widgets.__file__).resolve().parents[1]
        if root != (args.package or HERE.parent).resolve():
            sys.exit(f"engine.py: imported qra_widgets from {root}, not {args.package or HERE.parent}")
        print(json.dumps(case(args.run, args.quick)))
        return
    pairs = 1 if args.quick else args.pairs
    with tempfile.TemporaryDirectory(prefix="qra-engine-baseline-") as folder:
        roots: dict[str, Path] = {}
        for name in args.cases:
            commit = args.against or BASELINES[name]
            if commit not in roots:
                roots[commit] = _extract(commit, Path(folder))
            ratios, befores, afters = [], [], []
            for pair in range(1, pairs + 1):
                before, after = _timed(roots[commit], name, args.quick), _timed(HERE.parent, name, args.quick)
                befores.append(before)
                afters.append(after)
                ratios.append(after["cpu"] / before["cpu"])
                extra = "".join(
                    f", {k} {before[k]:.3g} -> {after[k]:.3g}"
                    for k in ("within", "floor", "assess")
                    if k in after and k in before
                )
                print(
                    f"{name}, pair {pair}: {commit} {before['cpu']:.2f} s (load {before['load']:.1f}), this tree {after['cpu']:.2f} s "
                    f"(load {after['load']:.1f}): {ratios[-1]:.2f}{extra}",
                    flush=True,
                )
            line = (
                f"{name}: median after / before over {pairs} pairs = {statistics.median(ratios):.2f} (against {commit})"
            )
            if "within" in afters[0]:
                line += (
                    f"; within-tree ratio median {statistics.median(b.get('within', float('nan')) for b in befores):.2f}"
                    f" -> {statistics.median(a['within'] for a in afters):.2f}"
                )
            print(line, flush=True)


if __name__ == "__main__":
    main()
