"""Input validation and the store (issue 31): `--published`, oversized integers (HEDS, scale_min,
a revision), the import report of files read through `files`, a FIFO or a link to /dev/zero in a
bulk import, and saves without `expected_revision` over an existing study.

Each goes through the door of the attack: the CLI in a subprocess (exit 2, one line on stderr),
an upload (``import_bytes``) or a library call.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from qra_widgets import QRAInputError, QualityCriterion, examples
from qra_widgets.bulk import import_bytes
from qra_widgets.io.heds import heds_from_bytes
from qra_widgets.store import ConflictError, StudyLibrary

DATA = Path(__file__).parent / "data"


def cli(*args, timeout=120):
    return subprocess.run(
        check=False,
        args=[sys.executable, "-m", "qra_widgets.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def one_line(done) -> str:
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    return done.stderr


@pytest.fixture(scope="module")
def means(tmp_path_factory) -> Path:
    rows = ["experiment,quality_criterion,system,score,scale_min,scale_max"]
    rows += [f"{e},Readability,GT,{v},1,5" for e, v in zip(("O", "R1", "R2", "R3"), (4.95, 4.71, 4.38, 4.18182))]
    path = tmp_path_factory.mktemp("means") / "means.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize(
    "published, message",
    [
        ("1" * 100_000, "published: must be a number as printed, of at most 30 characters; got 100,000 characters"),
        ("nan", "published: must be a finite number as printed, got 'nan'"),
        ("inf", "published: must be a finite number as printed, got 'inf'"),
        ("1e999", "published: must be a finite number as printed, got '1e999'"),
        ("12,01", "published: must be a number as printed, got '12,01'"),
    ],
)
def test_sensitivity_published_must_be_a_finite_number_of_at_most_30_characters(means, published, message):
    """`--published` accepted 100,000 digits (300 KB printed), and nan, inf and 1e999 with exit 0."""
    done = cli("sensitivity", means, "--published", published, "--quality-criterion", "Readability", "--system", "GT")
    assert one_line(done) == f"qra-widgets: {message}\n" and done.stdout == ""


def test_a_scale_min_past_the_float_range_is_one_line():
    with pytest.raises(
        QRAInputError,
        match=r"^quality criterion 'Q': scale_min: must be a finite number, got a whole "
        r"number of about 401 digits$",
    ):
        QualityCriterion("Q", scale_min=10**400)


def test_a_heds_number_of_evaluators_with_5000_digits_is_refused():
    data = json.loads((DATA / "heds3" / "heds3_two_criteria.json").read_text())
    data["heds-sample_evaluators_design-evaluators-number_of_evaluators"]["data"][""] = "7" * 5000
    with pytest.raises(QRAInputError) as refused:
        heds_from_bytes(json.dumps(data).encode(), "sheet.json")
    message = str(refused.value)
    assert "a whole number of 5,000 digits; the limit is 15 digits" in message and len(message) < 300
    assert "\n" not in message


def test_a_revision_past_sqlite_integers_is_one_line(tmp_path):
    library = StudyLibrary(tmp_path / "lib.sqlite3")
    library.save(examples.load("qrapp_example1"))
    with pytest.raises(
        QRAInputError,
        match=r"^library: revision must be a whole number from 1 to 2147483647 or null, "
        r"got '1180591620717411303424 \(22 digits\)'$",
    ):
        library.open("qrapp-example1", revision=2**70)
    with pytest.raises(QRAInputError, match="expected_revision must be a whole number"):
        library.save(examples.load("qrapp_example1"), expected_revision=2**70)


def test_the_import_report_lists_the_files_a_spec_reads_through_files_as_read(tmp_path):
    """Files named through `files: [...]` were listed as "skipped ... does not name it" though they were read."""
    header = "system,item,rater,Q\n"
    parts = {
        "o1.csv": header + "A,1,r,3\nB,2,r,4\n",
        "o2.csv": header + "A,3,r,2\nB,4,r,5\n",
        "r.csv": header + "A,1,r,3\nB,2,r,3\n",
        "notes.csv": "unrelated\n",
    }
    columns = {"system": "system", "item": "item", "rater": "rater", "criteria": {"Q": "Q"}}
    spec = {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "two-files",
        "quality_criteria": [{"name": "Q", "scale_min": 1, "scale_max": 5}],
        "experiments": [
            {"id": "O", "role": "original", "files": ["o1.csv", "o2.csv"], "columns": columns},
            {"id": "R", "file": "r.csv", "columns": columns},
        ],
    }
    report = import_bytes(
        tmp_path / "lib.sqlite3", {"spec.json": json.dumps(spec).encode(), **{k: v.encode() for k, v in parts.items()}}
    )
    assert report.added == [("spec.json", "two-files")] and report.refused == []
    assert report.skipped == [("notes.csv", "part of the bundle of spec.json, which does not name it")]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_bulk_import_refuses_a_fifo_and_a_link_to_dev_zero_at_once(tmp_path):
    """A folder holding a FIFO named x.json (or a link to /dev/zero named y.csv) hung for more than 30 s."""
    folder = tmp_path / "incoming"
    folder.mkdir()
    os.mkfifo(folder / "x.json")
    os.symlink("/dev/zero", folder / "y.csv")
    example = examples.load("qrapp_example1")
    from qra_widgets.io import save_study

    save_study(example, folder / "good.json")
    started = time.monotonic()
    done = cli("import", folder, "--db", tmp_path / "lib.sqlite3", timeout=60)
    assert (
        time.monotonic() - started < 30
    )  # a fresh interpreter's imports included; the refusals themselves are instant
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert (
        "refused: incoming/x.json: x.json: not a regular file (a FIFO, a device or a socket); not read" in done.stdout
    )
    assert "refused: incoming/y.csv: a link; links are not followed" in done.stdout
    assert "added: qrapp-example1 (from incoming/good.json)" in done.stdout
    given = cli("import", folder / "x.json", "--db", tmp_path / "lib.sqlite3", timeout=60)  # the FIFO named directly
    assert given.returncode == 2 and "not a regular file" in given.stdout


def test_a_save_without_expected_revision_over_an_existing_study_is_refused_and_kept_unless_forced(tmp_path):
    """The decision (docs/serving.md): never replaced silently. Without expected_revision the save is
    kept as a conflict revision and refused; force=True makes it the latest (last-writer-wins, chosen)."""
    library = StudyLibrary(tmp_path / "lib.sqlite3")
    study = examples.load("qrapp_example1")
    assert library.save(study) == 1
    study.name = "renamed by a second writer"
    with pytest.raises(ConflictError, match="your version was kept as revision 2"):
        library.save(study)
    assert library.open(study.id).name != study.name and library.latest_revision(study.id) == 1
    assert library.open(study.id, revision=2).name == study.name  # nothing saved is lost
    study.name = "forced"
    assert library.save(study, force=True) == 3
    assert library.open(study.id).name == "forced" and library.latest_revision(study.id) == 3
    assert library.open(study.id, revision=1).name != "forced"  # the replaced revision stays in the history


@pytest.mark.parametrize("fmt", ["text", "html", "latex"])
def test_the_sensitivity_command_keeps_a_name_with_a_newline_on_its_line(tmp_path, fmt):
    """The sensitivity report: a system name with a newline started a new line in the text, HTML and LaTeX outputs."""
    from qra_widgets import Experiment, Study
    from qra_widgets.io import save_study

    system = "A\n\\input{/etc/passwd}\n<img src=x onerror=alert(1)>"
    study = Study(
        "s",
        quality_criteria=[QualityCriterion("Q", 0, 5)],
        systems=[system],
        experiments=[Experiment("O"), Experiment("R")],
        scores={("Q", system, "O"): 3.0, ("Q", system, "R"): 3.3},
    )
    save_study(study, tmp_path / "s.json")
    done = cli(
        "sensitivity",
        tmp_path / "s.json",
        "--published",
        "6.7",
        "--quality-criterion",
        "Q",
        "--system",
        system,
        "--format",
        fmt,
    )
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert not any(line.startswith(("\\input", "<img", "REPRODUCES")) for line in lines)
    if fmt == "html":
        assert "<img" not in done.stdout and "&lt;img" in done.stdout
    if fmt == "latex":
        assert "\\input{" not in done.stdout and "\\textbackslash{}input\\{/etc/passwd\\}" in done.stdout
    title = next(line for line in lines if "CV* of Q" in line)
    assert "A " in title and ("passwd" in title)  # the whole name on the title's line
