"""Sizes are checked before anything is allocated: bootstrap replicates, the planner's designs,
systems and ratings, and seeds; through the library API, the CLI and the app's Intervals tab.

The study with item-level ratings is the benchmarks' synthetic one (``benchmarks/run.py``'s
``annotation_study``: 2 experiments x 60 items x 1 criterion, 2 ratings per item).
"""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

import qra_widgets as qw
from qra_widgets import examples
from qra_widgets import limits as reading
from qra_widgets.planning import plan_reproduction
from qra_widgets.uncertainty import bootstrap

REPOSITORY = Path(__file__).parents[2]


def annotation_study(*sizes):
    sys.path.insert(0, str(REPOSITORY))
    from benchmarks.run import annotation_study

    return annotation_study(*sizes)


@pytest.fixture(scope="module")
def small():
    return annotation_study(2, 60, 1)


def peak_bytes(call) -> int:
    tracemalloc.start()
    try:
        with pytest.raises(qw.QRAInputError) as caught:
            call()
        return tracemalloc.get_traced_memory()[1], str(caught.value)
    finally:
        tracemalloc.stop()


def test_a_plan_of_ten_million_items_is_refused_before_any_array(small):
    peak, message = peak_bytes(lambda: plan_reproduction(small, items=[10**7], raters_per_item=[2]))
    assert "items must be whole numbers from 2 to 100,000, got 10000000" in message
    assert peak < 2**20  # refused with less than 1 MiB allocated (the plan would take 6.8 GiB)


def test_a_billion_bootstrap_replicates_are_refused_through_assess_and_bootstrap(small):
    for call in (lambda: qw.assess(small, bootstrap=10**9, seed=1), lambda: bootstrap(small, B=10**9, seed=1)):
        peak, message = peak_bytes(call)
        assert "B must be an integer of at least 10 and at most 100,000" in message and "got 1000000000" in message
        assert peak < 2**20


def test_max_work_raises_the_count_limits_but_the_work_estimate_still_holds(small):
    ratings = len(small.ratings) + len(small.labels) + len(small.scores) + len(small.systems)
    with pytest.raises(
        qw.QRAInputError, match=f"1,000,000,000 replicates x {ratings:,} ratings, labels and scores is "
    ):
        qw.assess(small, bootstrap=10**9, seed=1, max_work=10**10)
    with pytest.raises(qw.QRAInputError, match="the limit is 100 \\(raise it with max_work= or --max-work\\)"):
        qw.assess(small, bootstrap=50, seed=1, max_work=100)
    raised = plan_reproduction(small, items=[4], raters_per_item=[60], B=10, runs=1, seed=0, max_work=10**9)
    assert set(raised.raters_per_item) == {60}  # 60 raters is over MAX_PLAN_RATERS, allowed by max_work


@pytest.mark.parametrize(
    "seed, shown", [(-1, "got -1"), (1.5, "got 1.5"), ("x", "got 'x'"), (2**64, "got 18446744073709551616")]
)
def test_a_bad_seed_is_refused_naming_the_seed(small, seed, shown):
    for call in (
        lambda: qw.assess(small, bootstrap=100, seed=seed),
        lambda: bootstrap(small, B=100, seed=seed),
        lambda: plan_reproduction(small, items=[10], raters_per_item=[2], seed=seed),
    ):
        with pytest.raises(
            qw.QRAInputError, match="seed: must be a whole number from 0 to 9223372036854775807"
        ) as caught:
            call()
        assert str(caught.value).endswith(shown)


@pytest.mark.parametrize("seed", ["-1", "1.5", "x"])
def test_the_cli_refuses_a_bad_seed_in_one_line_naming_it(seed):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "qra_widgets.cli",
            "report",
            "--example",
            "qrapp_example1",
            "--bootstrap",
            "100",
            f"--seed={seed}",
        ],
        check=False,
        capture_output=True,
        text=True,
        cwd=REPOSITORY,
        env={"PYTHONPATH": str(REPOSITORY), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        (
            f"qra-widgets: --seed: must be a whole number from 0 to 9223372036854775807, "
            f"got {seed if seed == '-1' else repr(seed)}"
        )
    ]


def test_the_cli_refuses_a_huge_bootstrap_and_max_work_raises_the_limit():
    from qra_widgets.cli import main

    run = lambda *args: subprocess.run(
        [sys.executable, "-m", "qra_widgets.cli", "report", "--example", "qrapp_example1", *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=REPOSITORY,
        env={"PYTHONPATH": str(REPOSITORY), "PATH": "/usr/bin:/bin"},
    )
    done = run("--bootstrap", "1000000000", "--seed", "1")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "at most 100,000" in done.stderr
    done = run("--bootstrap", "50", "--seed", "1", "--max-work", "100")
    assert done.returncode == 2 and "the limit is 100 (raise it" in done.stderr
    with pytest.raises(SystemExit) as stopped:  # argparse: usage and "--max-work: must be at least 1, got 0"
        main(["report", "--example", "qrapp_example1", "--bootstrap", "200", "--seed", "1", "--max-work", "0"])
    assert stopped.value.code == 2


def test_the_default_limits_allow_the_benchmarks_bootstrap_and_the_bundled_examples(small):
    # benchmarks/run.py at full size: the bootstrap case, the engine's large study, 300 systems, BCa at 6,000 items
    reading.check_bootstrap(annotation_study(4, 360, 3), 2_000, 1)
    reading.check_bootstrap(annotation_study(6, 1000, 3, 5, 10), 2_000, 1)
    reading.check_bootstrap(annotation_study(4, 300 * 20, 1, 2, 300), 500, 1)
    reading.check_bootstrap(annotation_study(4, 6000, 1, 2, 3), 2_000, 1)
    for name in examples.titles():
        reading.check_bootstrap(examples.load(name), 10_000, 1)
    # the planner's defaults on a real annotation study
    reading.check_plan(small, (100, 200, 400), (2, 3), 500, 5, 0)


def test_the_app_plan_box_cannot_start_a_plan_beyond_the_limits(small):
    from qra_widgets.widgets.common import Status
    from qra_widgets.widgets.state import AppState
    from qra_widgets.widgets.uncertainty import UncertaintyView

    status = Status()
    view = UncertaintyView(AppState(small), status)
    view.plan_items.value, view.plan_raters.value = "10000000", "2"
    view.on_plan()
    assert not view.plan_job.running
    assert "items must be whole numbers from 2 to 100,000, got 10000000" in status.value
