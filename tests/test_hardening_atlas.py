"""The atlas cache checked on every read (issue 31): `atlas build` and `atlas site` verify sha256
before they parse, links in the cache or the mirror are refused, manifest paths stay under the
cache at every entry (the library call too), and `fetch` has an overall deadline and a per-file cap.

A toy family (two small CSV files, its own manifest) keeps these tests off the network and the
published data; the CLI reads it through ``atlas.MANIFEST``.  One test runs the real CLI in a
subprocess on a real family from the field data (skipped, saying why, without it).
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import warnings

import pytest

from qra_widgets import atlas
from qra_widgets.cli import main
from qra_widgets.errors import QRAInputError

ORIGINAL = "item,system,rater,q\n1,A,r1,4\n1,A,r2,5\n2,B,r1,2\n2,B,r2,3\n3,A,r1,4\n4,B,r2,2\n"
REPEAT = "item,system,rater,q\n1,A,r1,4\n1,A,r2,4\n2,B,r1,2\n2,B,r2,2\n3,A,r1,5\n4,B,r2,3\n"


def toy_manifest(files: dict[str, str], path_of=lambda name: name) -> dict:
    pinned = [
        {"path": path_of(name), "sha256": hashlib.sha256(text.encode()).hexdigest(), "bytes": len(text)}
        for name, text in files.items()
    ]
    columns = {"item": "item", "system": "system", "rater": "rater", "criteria": {"Q": "q"}}
    return {
        "schema": "qra-widgets/atlas",
        "families": [
            {
                "id": "toy",
                "title": "A toy family",
                "original": "O",
                "reproductions": ["R"],
                "sources": [{"repository": "me/toy", "commit": "0" * 40, "licence": "none found", "files": pinned}],
                "spec": {
                    "id": "toy",
                    "quality_criteria": [{"name": "Q", "scale_min": 1, "scale_max": 5}],
                    "experiments": [
                        {"id": "O", "role": "original", "file": "me/toy:o.csv", "columns": columns},
                        {"id": "R", "role": "repeat", "file": "me/toy:r.csv", "columns": columns},
                    ],
                },
                # the mean of system A's three ratings in the original, as the toy file holds them
                "published": [
                    {
                        "measure": "mean",
                        "quality_criterion": "Q",
                        "system": "A",
                        "experiment": "O",
                        "value": 13 / 3,
                        "digits": 2,
                        "where": "the toy file, by hand: (4 + 5 + 4) / 3",
                    }
                ],
            }
        ],
    }


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A mirror, a fetched cache and the manifest file the CLI reads."""
    files = {"o.csv": ORIGINAL, "r.csv": REPEAT}
    mirror = tmp_path / "mirror"
    for name, text in files.items():
        (mirror / "toy" / "me__toy").mkdir(parents=True, exist_ok=True)
        (mirror / "toy" / "me__toy" / name).write_text(text)
    manifest = toy_manifest(files)
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(atlas, "MANIFEST", tmp_path / "manifest.json")
    cache = tmp_path / "cache"
    assert len(atlas.fetch(cache=cache, mirror=mirror, manifest=manifest)) == 2
    return manifest, mirror, cache


def run(capsys, *args):
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_toy_family_builds_from_its_cache(toy, capsys):
    _manifest, _mirror, cache = toy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status, out, err = run(capsys, "atlas", "build", "--cache", cache)
    assert (status, err) == (0, ""), err
    assert "ok  toy: mean Q / A / O: published 4.33, computed 4.33" in out


@pytest.mark.parametrize("command", ["build", "site"])
def test_an_edited_cache_file_refuses_its_family_naming_the_file(toy, capsys, tmp_path, command):
    """After a cached CSV was edited, build and site exited 0 and published numbers from the edited file."""
    _manifest, _mirror, cache = toy
    edited = cache / "files" / "toy" / "me__toy" / "o.csv"
    edited.write_text(ORIGINAL.replace("1,A,r2,5", "1,A,r2,1"))
    extra = ["--out", tmp_path / "site"] if command == "site" else []
    status, out, err = run(capsys, "atlas", command, "--cache", cache, *extra)
    assert status == 2 and err.count("\n") == 1
    assert (
        "atlas cache: toy/me__toy/o.csv: sha256 differs from the manifest's (the file was changed after it was "
        "fetched); refused: fetch it again"
    ) in err
    assert "computed" not in out  # no number from the edited file
    assert not (tmp_path / "site" / "index.html").exists()


def test_a_link_inside_the_cache_is_neither_read_nor_written_through(toy, capsys, tmp_path):
    manifest, mirror, cache = toy
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.csv").write_text("secret,header,with,a,very,long,line\n" * 3)
    shutil.rmtree(cache / "files" / "toy" / "me__toy")
    os.symlink(outside, cache / "files" / "toy" / "me__toy")
    status, out, err = run(capsys, "atlas", "build", "--cache", cache)
    assert status == 2 and err == (
        "qra-widgets: atlas build: toy refused: atlas cache: toy/me__toy/o.csv: toy/me__toy is "
        "a link; links in the cache are refused\n"
    )
    assert "secret" not in out + err
    with pytest.raises(QRAInputError, match="files/toy/me__toy is a link; links in the cache are refused"):
        atlas.fetch(cache=cache, mirror=mirror, manifest=manifest)
    assert sorted(p.name for p in outside.iterdir()) == ["o.csv"]  # nothing written through the link


def test_a_link_in_the_mirror_is_refused_without_its_targets_digest(toy, tmp_path, capsys):
    _manifest, mirror, _cache = toy
    target = tmp_path / "private.csv"
    target.write_text("private\n")
    (mirror / "toy" / "me__toy" / "o.csv").unlink()
    os.symlink(target, mirror / "toy" / "me__toy" / "o.csv")
    status, out, err = run(capsys, "atlas", "fetch", "--mirror", mirror, "--cache", tmp_path / "fresh")
    assert (
        status == 2
        and err == "qra-widgets: atlas mirror: toy/me__toy/o.csv is a link; links in the mirror are refused\n"
    )
    assert hashlib.sha256(b"private\n").hexdigest() not in out + err


@pytest.mark.parametrize("path", ["../../escaped.csv", "/tmp/absolute.csv", "a/../../b.csv", "C:\\x.csv", "~/x.csv"])
def test_a_manifest_path_leaving_the_cache_is_refused_in_the_library_call(tmp_path, path):
    """A manifest path with '..', passed through the library call, replaced a file outside the cache."""
    files = {"o.csv": ORIGINAL, "r.csv": REPEAT}
    manifest = toy_manifest(files, path_of=lambda name: path if name == "o.csv" else name)
    (tmp_path / "cache").mkdir()
    with pytest.raises(QRAInputError, match="must be a relative path without '..'"):
        atlas.fetch(cache=tmp_path / "cache" / "c", mirror=tmp_path, manifest=manifest)
    with pytest.raises(QRAInputError, match="must be a relative path without '..'"):
        atlas.build(cache=tmp_path / "cache" / "c", manifest=manifest)
    manifest["families"][0]["id"] = "../toy"
    with pytest.raises(QRAInputError, match=r"families\[0\].id: '../toy' must be a relative path"):
        atlas.fetch(cache=tmp_path / "cache" / "c", mirror=tmp_path, manifest=manifest)
    assert not (tmp_path / "escaped.csv").exists() and list((tmp_path / "cache").iterdir()) == []


class Dripping(http.server.BaseHTTPRequestHandler):
    """Sends its headers, then one byte every 0.5 s for as long as the client waits (at most 30 s)."""

    def do_GET(self):
        self.send_response(200)
        if "declared" in self.path:
            self.send_header("Content-Length", str(10**9))
        self.end_headers()
        started = time.monotonic()
        try:
            if "flood" in self.path:
                while time.monotonic() - started < 30:
                    self.wfile.write(b"x" * 65536)
            while time.monotonic() - started < 30:
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.5)
        except OSError:
            return

    def log_message(self, *args):
        pass


@pytest.fixture
def dripping():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Dripping)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_fetch_gives_a_dripping_server_up_at_its_deadline(dripping, tmp_path):
    manifest = toy_manifest({"o.csv": ORIGINAL, "r.csv": REPEAT})
    started = time.monotonic()
    with pytest.raises(
        QRAInputError,
        match=r"^atlas fetch: toy/me__toy/o.csv: the fetch's deadline passed \(raise it "
        r"with deadline= or --deadline\)$",
    ):
        atlas.fetch(cache=tmp_path / "cache", base_url=dripping, manifest=manifest, deadline=1.5)
    assert 1.4 < time.monotonic() - started < 6
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]  # no partial file left


@pytest.mark.parametrize(
    "suffix, message",
    [
        ("declared", "is 1,000,000,000 bytes; the limit is 1,000 per file"),
        ("flood", "larger than 1,000 bytes, the limit per file"),
    ],
)
def test_fetch_refuses_a_file_over_its_size_cap(dripping, tmp_path, suffix, message):
    manifest = toy_manifest({"o.csv": ORIGINAL})
    started = time.monotonic()
    with pytest.raises(QRAInputError, match=message):
        atlas.fetch(cache=tmp_path / "cache", base_url=f"{dripping}/{suffix}", manifest=manifest, max_file_bytes=1000)
    assert time.monotonic() - started < 5


def test_the_cli_fetch_deadline_option_in_a_subprocess(dripping, tmp_path):
    """The CLI's --deadline, against the package manifest (the server answers every file by dripping)."""
    started = time.monotonic()
    done = subprocess.run(
        check=False,
        args=[
            sys.executable,
            "-m",
            "qra_widgets.cli",
            "atlas",
            "fetch",
            "--base-url",
            dripping,
            "--cache",
            str(tmp_path / "cache"),
            "--deadline",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "the fetch's deadline passed (raise it with deadline= or --deadline)" in done.stderr
    assert time.monotonic() - started < 30
    bad = subprocess.run(
        check=False,
        args=[
            sys.executable,
            "-m",
            "qra_widgets.cli",
            "atlas",
            "fetch",
            "--base-url",
            dripping,
            "--cache",
            str(tmp_path / "cache"),
            "--deadline",
            "nan",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "deadline must be a positive number of seconds, got nan" in bad.stderr


def test_a_tampered_real_family_refuses_build_in_a_subprocess(atlas_mirror, tmp_path):
    family = "hosking2021_sepae_bws"
    cache = tmp_path / "cache"
    assert (
        subprocess.run(
            check=False,
            args=[
                sys.executable,
                "-m",
                "qra_widgets.cli",
                "atlas",
                "fetch",
                "--mirror",
                str(atlas_mirror),
                "--cache",
                str(cache),
                "--family",
                family,
            ],
            capture_output=True,
            timeout=120,
        ).returncode
        == 0
    )
    tampered = next(p for p in sorted((cache / "files" / family).rglob("*.csv")))
    tampered.write_bytes(tampered.read_bytes().replace(b"1", b"2", 1))
    done = subprocess.run(
        check=False,
        args=[sys.executable, "-m", "qra_widgets.cli", "atlas", "build", "--cache", str(cache), "--family", family],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"{tampered.relative_to(cache / 'files').as_posix()}: sha256 differs from the manifest's" in done.stderr
