"""Limits at read time (issue 31): systems per criterion, bytes a spec parses (re-reads counted),
experiments per spec, judgements x systems of a Bradley-Terry fit, systems in a study.

Each attack goes through the door it came by (an upload through ``import_bytes``, the CLI in a
subprocess, a library call), and each refusal must name its limit and the option that raises
it, within 1 s and 50 MiB (measured here, generously: the numbers are a ceiling, not a benchmark).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import tracemalloc

import pytest

from qra_widgets import QRAInputError, QualityCriterion, Study, limits
from qra_widgets.bulk import import_bytes
from qra_widgets.io.annotations import load_annotations


def pairwise_csv(systems: int) -> bytes:
    """A cycle of judgements (each system wins once and loses once, so Bradley-Terry is defined):
    ``systems`` systems in ~21 bytes a row (20,000 -> 0.43 MB)."""
    rows = ["item,a,b,choice"] + [f"i{k},s{k},s{(k + 1) % systems},a" for k in range(systems)]
    return ("\n".join(rows) + "\n").encode()


def pairwise_spec(score: str = "bradley_terry", file: str = "p.csv") -> dict:
    return {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "pw",
        "quality_criteria": [{"name": "Q", "scale_min": -100, "scale_max": 100}],
        "experiments": [
            {
                "id": e,
                "role": "original" if e == "O" else "repeat",
                "file": file,
                "layout": "pairwise",
                "score": score,
                "columns": {"item": "item", "system_a": "a", "system_b": "b", "choice": "choice"},
            }
            for e in ("O", "R")
        ],
    }


def bounded(call):
    """Run ``call`` (which must refuse) twice: its message and CPU seconds (the machine may be shared),
    then its peak MiB under tracemalloc (which slows Python down, so it is not timed)."""
    started = time.process_time()
    with pytest.raises(QRAInputError) as refused:
        call()
    seconds = time.process_time() - started
    tracemalloc.start()
    try:
        with pytest.raises(QRAInputError) as again:
            call()
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    assert str(again.value) == str(refused.value)
    return str(refused.value), seconds, peak


@pytest.fixture(scope="module", autouse=True)
def warm():
    """Import what a read imports lazily (pandas, openpyxl...) once, so the bounds measure the refusal."""
    load_annotations(pairwise_spec("preference"), files={"p.csv": pairwise_csv(4)})


SYSTEMS_REFUSAL = (
    "p.csv: 20,000 systems on 'Q'; the limit is 10,000 systems (max_systems; raise it with "
    "max_systems= (limits.raised), --max-systems or QRA_WIDGETS_MAX_SYSTEMS)"
)
PAIRWISE_REFUSAL = (
    "p.csv: a Bradley-Terry fit of 20,000 judgements over 20,000 systems is 400,000,000 judgements x "
    "systems; the limit is 25,000,000 (max_pairwise; raise it with max_pairwise= (limits.raised), "
    "--max-pairwise or QRA_WIDGETS_MAX_PAIRWISE)"
)


@pytest.mark.parametrize(
    "score, expected",
    [("bradley_terry", PAIRWISE_REFUSAL), ("preference", SYSTEMS_REFUSAL), ("win_rate", SYSTEMS_REFUSAL)],
    ids=["bradley_terry", "preference", "win_rate"],
)
def test_an_upload_with_20000_systems_is_refused_fast(tmp_path, score, expected):
    """The 0.5 MB pairwise file with 20,000 systems asked for 2.98 GiB (MemoryError) and ran > 90 s with
    preference scoring: Bradley-Terry meets max_pairwise as its judgements are read, the others max_systems."""
    data = pairwise_csv(20_000)
    assert len(data) < 500_000
    started = time.perf_counter()
    report = import_bytes(
        tmp_path / "lib.sqlite3", {"spec.json": json.dumps(pairwise_spec(score)).encode(), "p.csv": data}
    )
    assert time.perf_counter() - started < 5  # the whole upload, storage included (the refusal alone is bounded below)
    assert report.added == [] and len(report.refused) == 1
    source, reason = report.refused[0]
    assert source == "spec.json"
    assert reason == expected
    message, seconds, peak = bounded(lambda: load_annotations(pairwise_spec(score), files={"p.csv": data}))
    assert message == reason and seconds < 1 and peak < 50, (seconds, peak)


def test_bradley_terry_is_checked_before_its_win_matrix_is_allocated():
    """Raised past max_systems, the file still meets max_pairwise before the 20,000 x 20,000 matrix (and the sign tests)."""
    data = pairwise_csv(20_000)
    with limits.raised(max_systems=30_000):
        message, seconds, peak = bounded(lambda: load_annotations(pairwise_spec(), files={"p.csv": data}))
    assert message == PAIRWISE_REFUSAL
    assert seconds < 1 and peak < 50, (seconds, peak)


def test_raising_max_pairwise_lets_a_small_bradley_terry_fit_through():
    data = pairwise_csv(60)
    with (
        limits.raised(max_pairwise=60 * 60 - 1),
        pytest.raises(QRAInputError, match="max_pairwise"),
    ):  # one below this fit
        load_annotations(pairwise_spec(), files={"p.csv": data})
    with limits.raised(max_pairwise=60 * 60):
        study = load_annotations(pairwise_spec(), files={"p.csv": data})
    assert len(study.systems) == 60


def one_mib_csv() -> bytes:
    header = "system,item,rater,Q\n"
    row = "A,1,r,3\n"
    return (header + row * ((2**20 - len(header)) // len(row))).encode()


def rereading_spec(copies: int) -> dict:
    return {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "big",
        "quality_criteria": [{"name": "Q", "scale_min": 1, "scale_max": 5}],
        "experiments": [
            {
                "id": "O",
                "role": "original",
                "files": ["big.csv"] * copies,
                "columns": {"system": "system", "item": "item", "rater": "rater", "criteria": {"Q": "Q"}},
            },
            {
                "id": "R",
                "file": "big.csv",
                "columns": {"system": "system", "item": "item", "rater": "rater", "criteria": {"Q": "Q"}},
            },
        ],
    }


def test_one_file_named_5000_times_is_refused_before_any_parse_in_the_cli(tmp_path):
    """`files: ["big.csv"] * 5000` ran > 60 s: refused from the sizes, naming max_spec_bytes, exit 2, one line."""
    (tmp_path / "big.csv").write_bytes(one_mib_csv())
    (tmp_path / "spec.json").write_text(json.dumps(rereading_spec(5000)))
    started = time.perf_counter()
    done = subprocess.run(
        check=False,
        args=[sys.executable, "-m", "qra_widgets.cli", "report", str(tmp_path / "spec.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert time.perf_counter() - started < 30  # a fresh interpreter's imports included
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "qra-widgets: annotation spec: its files add up to 5,001.0 MiB to parse (5001 reads of 1 file); "
        "the limit is 200.0 MiB (max_spec_bytes; raise it with max_spec_bytes= (limits.raised), "
        "--max-spec-bytes or QRA_WIDGETS_MAX_SPEC_BYTES)\n"
    )
    message, seconds, peak = bounded(lambda: load_annotations(tmp_path / "spec.json"))
    assert message in done.stderr and seconds < 1 and peak < 50, (seconds, peak)


def test_the_cli_option_raises_the_spec_bytes_limit(tmp_path):
    (tmp_path / "big.csv").write_bytes(one_mib_csv())
    (tmp_path / "spec.json").write_text(json.dumps(rereading_spec(3)))
    refused = subprocess.run(
        check=False,
        args=[
            sys.executable,
            "-m",
            "qra_widgets.cli",
            "--max-spec-bytes",
            str(3 * 2**20),
            "report",
            str(tmp_path / "spec.json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 2 and "(4 reads of 1 file); the limit is 3.0 MiB (max_spec_bytes" in refused.stderr
    with (
        limits.raised(max_spec_bytes=4 * 2**20),
        pytest.raises(QRAInputError, match="rated twice|twice"),
    ):  # read, then refused
        load_annotations(tmp_path / "spec.json")


def test_5000_experiments_in_a_spec_are_refused_by_max_experiments_on_upload(tmp_path):
    spec = rereading_spec(1)
    spec["experiments"] = [dict(spec["experiments"][1], id=f"E{k}") for k in range(5000)]
    report = import_bytes(
        tmp_path / "lib.sqlite3", {"spec.json": json.dumps(spec).encode(), "big.csv": b"system,item,rater,Q\nA,1,r,3\n"}
    )
    assert report.refused == [
        (
            "spec.json",
            (
                "annotation spec: 5,000 experiments; the limit is 1,000 (max_experiments; raise it "
                "with max_experiments= (limits.raised), --max-experiments or "
                "QRA_WIDGETS_MAX_EXPERIMENTS)"
            ),
        )
    ]


def test_a_study_of_a_million_systems_is_refused_fast():
    """Building and assessing a study of 10**6 systems did not finish in 150 s."""
    systems = [f"s{k}" for k in range(10**6)]
    message, seconds, peak = bounded(
        lambda: Study("huge", quality_criteria=[QualityCriterion("Q", 0, 1)], systems=systems)
    )
    assert message.startswith("study: 1,000,000 systems in the study; the limit is 10,000 systems (max_systems;")
    assert seconds < 1 and peak < 50, (seconds, peak)


def test_the_environment_raises_a_limit_for_a_server_and_a_bad_value_is_refused(monkeypatch):
    systems = [f"s{k}" for k in range(10_001)]
    monkeypatch.setenv("QRA_WIDGETS_MAX_SYSTEMS", "20000")
    assert len(Study("s", systems=systems).systems) == 10_001
    monkeypatch.setenv("QRA_WIDGETS_MAX_SYSTEMS", "lots")
    with pytest.raises(QRAInputError, match="^QRA_WIDGETS_MAX_SYSTEMS: must be a whole number, got 'lots'$"):
        Study("s", systems=["a"])
    monkeypatch.setenv("QRA_WIDGETS_MAX_SYSTEMS", "0")
    with pytest.raises(QRAInputError, match="^QRA_WIDGETS_MAX_SYSTEMS: must be a whole number from 1 to"):
        Study("s", systems=["a"])
