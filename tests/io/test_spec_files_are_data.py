"""An annotation spec names files, and a file name is data, never a path.

The attack: a spec uploaded through Library -> Import many (or read by ``qra-widgets import`` /
``site``) names ``/etc/passwd``, ``../secret.csv`` or a link out of its folder, and the
refusal messages quote what was read.  Every such name is refused before anything is read.
"""

from __future__ import annotations

import json
import os

import pytest

from qra_widgets.errors import QRAInputError
from qra_widgets.io.annotations import load_annotations, spec_file_bytes


def _spec(file_name: str) -> dict:
    return {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "attack",
        "quality_criteria": [{"name": "Fluency", "scale_min": 1, "scale_max": 5}],
        "experiments": [
            {
                "id": "O",
                "role": "original",
                "file": file_name,
                "columns": {"system": "system", "item": "item", "criteria": {"Fluency": "x"}},
            },
            {"id": "R", "file": "r.csv", "columns": {"system": "system", "item": "item", "criteria": {"Fluency": "x"}}},
        ],
    }


@pytest.fixture
def secret(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "secret.csv"
    target.write_text("system,item,x\nTOPSECRET,1,1\n")
    inside = tmp_path / "spec"
    inside.mkdir()
    (inside / "r.csv").write_text("system,item,x\nA,1,1\n")
    return inside, target


@pytest.mark.parametrize("kind", ["absolute", "dotdot", "link"])
def test_a_spec_on_disk_cannot_name_a_file_outside_its_folder(secret, kind):
    inside, target = secret
    if kind == "absolute":
        name = str(target)
    elif kind == "dotdot":
        name = "../outside/secret.csv"
    else:
        (inside / "o.csv").symlink_to(target)
        name = "o.csv"
    (inside / "spec.json").write_text(json.dumps(_spec(name)))
    with pytest.raises(QRAInputError) as caught:
        load_annotations(inside / "spec.json")
    message = str(caught.value)
    assert "TOPSECRET" not in message
    assert str(inside) not in message and str(target.parent) not in message


def test_an_uploaded_spec_reads_only_the_uploaded_files(secret, monkeypatch):
    _inside, target = secret
    monkeypatch.chdir(target.parent)  # even a bare name that exists in the working directory is not read
    with pytest.raises(QRAInputError, match="not among the uploaded files") as caught:
        load_annotations(_spec("secret.csv"), files={"r.csv": b"system,item,x\nA,1,1\n"})
    assert "TOPSECRET" not in str(caught.value)


def test_a_spec_imported_in_bulk_never_reads_the_servers_disk(secret, tmp_path):
    from qra_widgets.bulk import import_bytes

    _inside, target = secret
    report = import_bytes(tmp_path / "library.sqlite3", {"spec.json": json.dumps(_spec(str(target))).encode()})
    assert report.added == []
    assert [source for source, _ in report.refused] == ["spec.json"]
    assert "TOPSECRET" not in report.summary() and str(target.parent) not in report.summary()


def test_a_relative_file_under_the_root_is_read(secret):
    inside, _ = secret
    assert spec_file_bytes("r.csv", root=inside).startswith(b"system")
    assert spec_file_bytes("x.csv", files={"x.csv": b"abc"}) == b"abc"
    with pytest.raises(QRAInputError, match="no such file"):
        spec_file_bytes("missing.csv", root=inside)
    assert os.path.isdir(inside)
