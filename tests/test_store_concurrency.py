"""The study library under many processes: concurrent writers, conflicting editors, a writer
killed mid-save, and PRAGMA integrity_check after every test."""

import multiprocessing
import os
import signal
import sqlite3
import time

import pytest

from qra_widgets import examples
from qra_widgets.store import ConflictError, StudyLibrary

pytestmark = pytest.mark.slow

CONTEXT = multiprocessing.get_context("spawn")


@pytest.fixture
def library_path(tmp_path):
    path = tmp_path / "shared.sqlite3"
    StudyLibrary(path)
    yield path
    assert StudyLibrary(path).integrity_check() == "ok"


def _writer(path, worker, studies, saves_each):
    library = StudyLibrary(path)
    for s in range(studies):
        study = examples.load("qrapp_example1")
        study.id = f"w{worker}-s{s}"
        revision = None
        for k in range(saves_each):
            study.set_score("Fluency", "SVM", "Li2024", 1 + k / 100)
            revision = library.save(study, expected_revision=revision)


def test_eight_processes_times_fifty_saves(library_path):
    """8 writers x 50 saves (5 studies x 10 revisions each): every study and revision intact."""
    workers = [CONTEXT.Process(target=_writer, args=(library_path, w, 5, 10)) for w in range(8)]
    started = time.perf_counter()
    for p in workers:
        p.start()
    for p in workers:
        p.join(timeout=300)
    elapsed = time.perf_counter() - started
    assert [p.exitcode for p in workers] == [0] * 8
    library = StudyLibrary(library_path)
    assert len(library.list()) == 40
    for w in range(8):
        for s in range(5):
            history = library.history(f"w{w}-s{s}")
            assert [r.revision for r in history] == list(range(1, 11)) and not any(r.conflict for r in history)
            assert library.open(f"w{w}-s{s}").scores[("Fluency", "SVM", "Li2024")] == 1.09
            assert library.open(f"w{w}-s{s}", revision=3).scores[("Fluency", "SVM", "Li2024")] == 1.02
    print(f"\n400 saves by 8 processes in {elapsed:.2f} s ({400 / elapsed:.0f} saves/s including process start-up)")


def _editor(path, value, barrier, results):
    library = StudyLibrary(path)
    study = library.open("qrapp-example1")
    study.set_score("Fluency", "SVM", "Li2024", value)
    barrier.wait()
    try:
        results.put(("saved", library.save(study, expected_revision=1)))
    except ConflictError as conflict:
        results.put(("conflict", conflict.stored_revision))


def test_two_processes_editing_the_same_study(library_path, qrapp_example1):
    StudyLibrary(library_path).save(qrapp_example1)
    barrier, results = CONTEXT.Barrier(2), CONTEXT.Queue()
    editors = [CONTEXT.Process(target=_editor, args=(library_path, v, barrier, results)) for v in (3.3, 3.9)]
    for p in editors:
        p.start()
    for p in editors:
        p.join(timeout=120)
    outcomes = sorted(results.get(timeout=10) for _ in editors)
    assert [o[0] for o in outcomes] == ["conflict", "saved"]
    library = StudyLibrary(library_path)
    history = library.history("qrapp-example1")
    assert [(r.revision, r.conflict) for r in history] == [(1, False), (2, False), (3, True)]
    kept = {library.open("qrapp-example1", r).scores[("Fluency", "SVM", "Li2024")] for r in (2, 3)}
    assert kept == {3.3, 3.9}  # both edits are retrievable


def _endless_writer(path, ready):
    library = StudyLibrary(path)
    study = examples.load("qra2022_essay_scoring")
    revision = library.save(study)
    ready.set()
    value = 0.5
    while True:
        value = 0.5 + (value + 0.001) % 0.4
        study.set_score("wF1", "mult-base", "VajjalaRama2018", value)
        revision = library.save(study, expected_revision=revision)


def test_a_writer_killed_mid_save_leaves_the_library_readable(library_path):
    ready = CONTEXT.Event()
    writer = CONTEXT.Process(target=_endless_writer, args=(library_path, ready))
    writer.start()
    assert ready.wait(60)
    time.sleep(1.5)  # hundreds of saves in flight
    os.kill(writer.pid, signal.SIGKILL)
    writer.join(timeout=30)
    library = StudyLibrary(library_path)
    assert library.integrity_check() == "ok"
    latest = library.latest_revision("qra2022-essay-scoring")
    assert latest > 1
    study = library.open("qra2022-essay-scoring")  # the last committed revision is whole
    assert len(study.scores) == 88
    with sqlite3.connect(library_path) as db:
        assert db.execute("SELECT MAX(revision) FROM revisions").fetchone()[0] == latest
