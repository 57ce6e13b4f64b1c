"""Golden outputs: what ``qra-widgets report --format ...`` and ``qra-widgets site`` write on the paper
examples (QRA++ Table 3 and Table 4, Belz 2021's torc, the QRA 2022 studies), on annotation specs
(with a bootstrap, with pairwise sign tests, with one experiment), byte for byte as the files in
``tests/data/golden/`` (after ``tests/golden.py`` normalises the version, timestamps and Plotly's
theme).  A refactoring must leave them unchanged; a meant change is rewritten by ``python3
scripts/golden`` and reviewed in the diff.  This test never writes them."""

from __future__ import annotations

import difflib

import pytest
from golden import GOLDEN, INPUTS, render_all

EXPECTED = sorted(
    p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file() and INPUTS not in p.parents
)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    return render_all(tmp_path_factory.mktemp("golden"))


def test_every_output_has_an_expected_file_and_every_expected_file_an_output(outputs):
    assert len(EXPECTED) >= 60
    assert sorted(outputs) == EXPECTED


@pytest.mark.parametrize("name", EXPECTED)
def test_the_output_is_byte_identical_to_the_golden_file(outputs, name):
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    got = outputs.get(name)
    assert got is not None, f"{name}: no longer written"
    if got != expected:
        diff = "".join(
            difflib.unified_diff(expected.splitlines(True), got.splitlines(True), "golden/" + name, "now", n=1)
        )
        pytest.fail(f"{name} changed (python3 scripts/golden rewrites it if meant):\n{diff[:4000]}")
