"""Importing files a team did not write: spec bundles, bad zip members, every refusal listed,
no server path in a message, and imports that never add a revision nobody made.

Each test goes through the door an attacker (or an unlucky organiser) uses: ``qra-widgets
import`` (exit status and stderr), ``import_bytes`` (the app's Import many), ``qra-widgets
site`` (its refused.txt) and the library API.  The annotation study is a small one of our own
(two experiments, three systems, four items each, two raters), written by the tests.
"""

from __future__ import annotations

import io
import json
import multiprocessing
import struct
import warnings
import zipfile
from pathlib import Path

import pytest

from qra_widgets import examples
from qra_widgets.bulk import import_bytes, import_paths
from qra_widgets.cli import main
from qra_widgets.io import save_study, study_to_json
from qra_widgets.store import StudyLibrary

RATINGS = "ratings.csv"
STUDY_ID = "bundle-study"
SPEC = json.dumps(
    {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": STUDY_ID,
        "quality_criteria": [{"name": "Fluency", "scale_min": 1, "scale_max": 5}],
        "experiments": [
            {
                "id": e,
                "role": role,
                "file": RATINGS,
                "columns": {
                    "system": "system",
                    "item": "item",
                    "rater": "rater",
                    "criterion": "criterion",
                    "rating": f"rating_{e}",
                },
            }
            for e, role in (("O", "original"), ("R", "repeat"))
        ],
    }
).encode()
#: 3 systems x 4 items x 2 raters, a rating per experiment (long: one criterion column)
RATINGS_CSV = (
    "system,item,rater,criterion,rating_O,rating_R\n"
    + "".join(
        f"{s},{s}{i},{r},Fluency,{(i + j + k) % 5 + 1},{(i + j + k + 1) % 5 + 1}\n"
        for k, s in enumerate("ABC")
        for i in range(4)
        for j, r in enumerate(("r1", "r2"))
    )
).encode()
EXAMPLE1 = study_to_json(examples.load("qrapp_example1")).encode()


def zipped(members: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about a duplicate name, which is the point
        with zipfile.ZipFile(buffer, "w", method) as archive:
            for name, data in members:
                archive.writestr(name, data)
    return buffer.getvalue()


def patched(data: bytes, member: str, *, flag: int = 0, method: int | None = None, corrupt: bool = False) -> bytes:
    """``data`` (a zip) with one member's local and central headers changed: a general-purpose
    ``flag`` bit set (1: encrypted), its compression ``method`` replaced, or its compressed bytes
    damaged (``corrupt``), the sizes and CRC left as they were."""
    data = bytearray(data)
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo(member)
    local = info.header_offset
    name_length, extra_length = struct.unpack("<HH", data[local + 26 : local + 30])
    start = local + 30 + name_length + extra_length
    central = position = 0
    while True:  # the member's central directory entry
        position = data.index(b"PK\x01\x02", position)
        length = struct.unpack("<H", data[position + 28 : position + 30])[0]
        if bytes(data[position + 46 : position + 46 + length]) == member.encode():
            central = position
            break
        position += 4
    for offset in (local + 6, central + 8) if flag else ():
        data[offset : offset + 2] = struct.pack("<H", struct.unpack("<H", data[offset : offset + 2])[0] | flag)
    if method is not None:
        data[local + 8 : local + 10] = data[central + 10 : central + 12] = struct.pack("<H", method)
    if corrupt:
        for k in range(start + 2, start + min(info.compress_size, 40)):
            data[k] ^= 0x5A
    return bytes(data)


def bad_members_zip() -> bytes:
    good = [("good/example1.json", EXAMPLE1)]
    bad = [
        (f"bad/{n}.json", study_to_json(examples.load("qra2022_nts")).encode())
        for n in ("encrypted", "method", "corrupt")
    ]
    data = zipped(good + bad)
    data = patched(data, "bad/encrypted.json", flag=0x1)
    data = patched(data, "bad/method.json", method=99)
    return patched(data, "bad/corrupt.json", corrupt=True)


# ----------------------------------------------------------------------------- bad zip members


def test_bad_zip_members_are_refused_one_by_one_while_the_good_file_imports(tmp_path):
    report = import_bytes(tmp_path / "lib.sqlite3", {"batch.zip": bad_members_zip()})
    assert report.added == [("batch.zip/good/example1.json", "qrapp-example1")]
    reasons = dict(report.refused)
    assert (
        reasons["batch.zip/bad/encrypted.json"] == "encrypted (password-protected) member; unpack it and give the files"
    )
    assert reasons["batch.zip/bad/method.json"].startswith("unknown compression method 99;")
    assert reasons["batch.zip/bad/corrupt.json"].startswith("cannot be unpacked: the zip is damaged (")
    assert len(report.refused) == 3


def test_the_cli_imports_the_good_files_of_a_damaged_zip_and_exits_2_listing_the_bad_members(tmp_path, capsys):
    (tmp_path / "batch.zip").write_bytes(bad_members_zip())
    assert main(["import", str(tmp_path / "batch.zip"), "--db", str(tmp_path / "lib.sqlite3")]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        (
            "qra-widgets: import: added 1 studies, 0 already existed (not overwritten), 3 refused "
            "(the refused files are listed above with the reasons)"
        )
    ]
    refused = [line for line in captured.out.splitlines() if line.startswith("refused: ")]
    assert [line.split(": ")[1] for line in refused] == [
        f"{tmp_path / 'batch.zip'}/bad/{n}.json" for n in ("encrypted", "method", "corrupt")
    ]
    assert [s.id for s in StudyLibrary(tmp_path / "lib.sqlite3").list()] == ["qrapp-example1"]


def test_duplicate_member_names_nested_zips_and_pdfs_are_listed_not_dropped(tmp_path, qra2022_nts):
    archive = zipped(
        [
            ("a/example1.json", EXAMPLE1),
            ("a/example1.json", b"{}"),
            ("inner.zip", zipped([("x.json", EXAMPLE1)])),
            ("paper.pdf", b"%PDF-1.4"),
            ("__MACOSX/._paper.pdf", b"\0"),
            ("s/nts.json", study_to_json(qra2022_nts).encode()),
        ]
    )
    report = import_bytes(tmp_path / "lib.sqlite3", {"batch.zip": archive})
    assert report.added == [("batch.zip/s/nts.json", "qra2022-nts")]
    assert report.refused == [
        ("batch.zip/a/example1.json", "2 members of the zip have this name; which one is meant? none is read"),
        ("batch.zip/inner.zip", "a zip inside a zip is not opened; unpack it and give its files"),
    ]
    assert report.skipped == [
        ("batch.zip/__MACOSX/._paper.pdf", "hidden or system file; not read"),
        ("batch.zip/paper.pdf", "not a study file (unknown file type '.pdf'; use .json, .csv, .tsv, .xlsx or .zip)"),
    ]


# ----------------------------------------------------------------------------- spec bundles


def bundle_folder(root: Path, name: str = "team1") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "spec.json").write_bytes(SPEC)
    (folder / RATINGS).write_bytes(RATINGS_CSV)
    (folder / "README.md").write_text("our submission")
    return folder


def test_a_folder_with_one_spec_imports_as_one_study_read_through_its_spec(tmp_path, qrapp_example1):
    folder = bundle_folder(tmp_path / "submissions")
    save_study(qrapp_example1, tmp_path / "submissions" / "example1.json")
    report = import_paths(StudyLibrary(tmp_path / "lib.sqlite3"), [tmp_path / "submissions"])
    assert sorted(report.added) == [
        ("submissions/example1.json", "qrapp-example1"),
        ("submissions/team1/spec.json", STUDY_ID),
    ]
    assert report.refused == []  # the ratings CSV was read through the spec, not as a study of its own
    assert report.skipped == [
        ("submissions/team1/README.md", "part of the bundle of spec.json, which does not name it")
    ]
    study = StudyLibrary(tmp_path / "lib.sqlite3").open(STUDY_ID)
    assert len(study.ratings) == 48 and study.experiment_ids == ["O", "R"]  # 24 rows, a rating per experiment
    assert str(folder) not in str(report.summary())


def test_a_zip_bundle_and_an_upload_bundle_import_through_their_spec(tmp_path):
    members = [("team1/spec.json", SPEC), (f"team1/{RATINGS}", RATINGS_CSV)]
    report = import_bytes(tmp_path / "lib.sqlite3", {"team1.zip": zipped(members)})
    assert report.added == [("team1.zip/team1/spec.json", STUDY_ID)] and report.refused == []
    uploads = import_bytes(tmp_path / "other.sqlite3", {"spec.json": SPEC, RATINGS: RATINGS_CSV})
    assert uploads.added == [("spec.json", STUDY_ID)] and uploads.refused == []


def test_two_specs_at_one_top_level_are_refused_naming_both(tmp_path, capsys):
    folder = bundle_folder(tmp_path)
    (folder / "spec-copy.json").write_bytes(SPEC)
    assert main(["import", str(folder), "--db", str(tmp_path / "lib.sqlite3")]) == 2
    out = capsys.readouterr().out
    assert (
        "refused: team1: holds 2 annotation specs at its top level (spec-copy.json, spec.json); a bundle has exactly one: "
        "which one is the study? nothing in it was read"
    ) in out.splitlines()
    assert f"skipped: team1/{RATINGS}: in team1, which holds 2 annotation specs" in out.splitlines()
    upload = import_bytes(tmp_path / "lib2.sqlite3", {"a.json": SPEC, "b.json": SPEC})
    assert upload.refused[0][0] == "the uploaded files" and "(a.json, b.json)" in upload.refused[0][1]


def test_a_bundle_spec_naming_a_missing_file_is_refused_without_any_server_path(tmp_path):
    spec = json.loads(SPEC)
    spec["experiments"][0]["file"] = "/etc/passwd"
    members = [("t/spec.json", json.dumps(spec).encode()), (f"t/{RATINGS}", RATINGS_CSV)]
    report = import_bytes(tmp_path / "lib.sqlite3", {"t.zip": zipped(members)})
    [(source, reason)] = report.refused
    assert source == "t.zip/t/spec.json" and reason.startswith("'/etc/passwd': not among the uploaded files")
    assert "root:" not in reason and str(tmp_path) not in reason and "/tmp" not in reason


def test_site_of_a_submissions_folder_builds_the_bundle_and_publishes_no_server_path(tmp_path):
    submissions = tmp_path / "submissions"
    bundle_folder(submissions)
    (submissions / "broken.csv").write_text("experiment,system\nA,B\n")
    out = tmp_path / "site"
    assert main(["site", str(submissions), "--out", str(out)]) == 0
    refused = (out / "refused.txt").read_text()
    assert refused.startswith("submissions/broken.csv: broken.csv: missing column(s)")
    assert str(tmp_path) not in refused
    assert any(STUDY_ID in p.name for p in out.rglob("*.html"))


def test_a_spec_given_to_the_cli_reads_its_files_under_the_data_root_only(tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    (data / RATINGS).write_bytes(RATINGS_CSV)
    spec = tmp_path / "specs" / "spec.json"
    spec.parent.mkdir()
    spec.write_bytes(SPEC)
    assert main(["import", str(spec), "--db", str(tmp_path / "a.sqlite3")]) == 2  # the CSV is not beside the spec
    assert "'ratings.csv': no such file beside the spec" in capsys.readouterr().out
    assert main(["import", str(spec), "--db", str(tmp_path / "b.sqlite3"), "--data-root", str(data)]) == 0
    assert main(["report", str(spec), "--data-root", str(data)]) == 0
    assert "Fluency" in capsys.readouterr().out


# ----------------------------------------------------------------------------- idempotent imports


def _import_folder(db: str, folder: str, barrier) -> None:
    barrier.wait()
    import_paths(StudyLibrary(db), [folder])


@pytest.mark.slow
def test_four_processes_importing_the_same_forty_studies_store_each_once(tmp_path, example_study):
    folder = tmp_path / "studies"
    folder.mkdir()
    for k in range(40):
        study = example_study("qrapp_example1")
        study.id = f"study-{k:02d}"
        save_study(study, folder / f"{study.id}.json")
    db = tmp_path / "lib.sqlite3"
    StudyLibrary(db)
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(4)
    workers = [context.Process(target=_import_folder, args=(str(db), str(folder), barrier)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=600)
    assert [w.exitcode for w in workers] == [0] * 4
    library = StudyLibrary(db)
    assert len(library.list()) == 40
    assert {len(library.history(s.id)) for s in library.list()} == {1}  # no conflict revision nobody made
    again = import_paths(library, [folder])
    assert again.added == [] and len(again.existed) == 40


def test_a_library_busy_with_another_writer_makes_the_import_exit_2_listing_each_file(
    tmp_path, monkeypatch, capsys, qrapp_example1, qra2022_nts
):
    import sqlite3

    from qra_widgets import store

    folder = tmp_path / "studies"
    folder.mkdir()
    save_study(qrapp_example1, folder / "example1.json")
    save_study(qra2022_nts, folder / "nts.json")
    db = tmp_path / "lib.sqlite3"
    StudyLibrary(db)
    monkeypatch.setattr(store, "BUSY_TIMEOUT_S", 0.2)  # another writer holds the lock longer than a save waits
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        status = main(["import", str(folder), "--db", str(db)])
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    captured = capsys.readouterr()
    assert status == 2
    refused = [line for line in captured.out.splitlines() if line.startswith("refused: ")]
    assert len(refused) == 2 and all("the library is busy" in line for line in refused)
    assert captured.err.startswith(
        "qra-widgets: import: added 0 studies, 0 already existed (not overwritten), 2 refused"
    )
    assert StudyLibrary(db).list() == []
