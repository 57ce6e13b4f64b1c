"""The atlas: manifest, fetch (mirror and HTTP), build from the cache, privacy, the CLI."""

from __future__ import annotations

import functools
import http.server
import json
import re
import shutil
import threading
import warnings
from pathlib import Path

import pytest

from qra_widgets import atlas
from qra_widgets.cli import main
from qra_widgets.errors import QRAInputError

SMALL = "hosking2021_sepae_bws"  # three small files: quick to fetch


def test_manifest_pins_every_file_by_commit_and_sha256_and_names_a_licence_for_every_source():
    manifest = atlas.load_manifest()
    assert len(manifest["families"]) >= 6
    for family in manifest["families"]:
        assert family["reproductions"] and family["published"]
        for source in family["sources"]:
            assert re.fullmatch(r"[0-9a-f]{40}", source["commit"]), source
            assert source["licence"]  # the text of the licence, or "none found"
            for entry in source["files"]:
                assert re.fullmatch(r"[0-9a-f]{64}", entry["sha256"]) and entry["bytes"] > 0
        for number in family["published"]:
            assert number["where"] and isinstance(number["value"], (int, float)) and number["digits"] >= 0
        for experiment in family["spec"]["experiments"]:
            if "file" in experiment:  # every file a spec reads is a pinned file of a source
                atlas.cached_path(Path("/cache"), family, experiment["file"])
    licences = {s["licence"] for f in manifest["families"] for s in f["sources"]}
    assert "none found" in licences and any(text.startswith("MIT License") for text in licences)


def test_manifest_holds_no_fetched_file():
    folder = Path(atlas.__file__).parent
    assert sorted(p.name for p in folder.iterdir() if p.is_file() and p.suffix not in (".py", ".pyc")) == [
        "manifest.json"
    ]
    assert (folder / "manifest.json").stat().st_size < 100_000


def test_cli_list_names_every_family_with_its_licences(capsys):
    assert main(["atlas", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":", 1)[0] for line in lines] == [f["id"] for f in atlas.load_manifest()["families"]]
    assert any("NapierNLP/repronlp_2024: none found" in line for line in lines)
    assert any("yao2022_storyqg" in line and "3 reproduction(s)" in line for line in lines)


def test_build_reads_only_the_cache_and_says_to_fetch_first(tmp_path):
    with pytest.raises(QRAInputError, match="not in the cache .* run `qra-widgets atlas fetch` first"):
        atlas.build(cache=tmp_path, families=[SMALL])


def test_fetch_refuses_an_http_base_url_that_is_not_http():
    with pytest.raises(QRAInputError, match="http or https"):
        atlas.fetch(cache="/nonexistent", base_url="file:///etc", families=[SMALL])


# ----------------------------------------------------------------------------- with the published data


@pytest.fixture(scope="module")
def mirror(atlas_mirror) -> Path:
    return atlas_mirror


@pytest.fixture(scope="module")
def built(mirror, tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    atlas.fetch(cache=cache, mirror=mirror)
    library = cache / "library.sqlite3"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = atlas.build(cache=cache, db=library, bootstrap=50)
    return cache, library, results


def _one_small_family_mirror(mirror: Path, target: Path) -> Path:
    shutil.copytree(mirror / SMALL, target / SMALL)
    return target


def test_fetch_from_the_mirror_verifies_every_file(built):
    cache, _, _ = built
    manifest = atlas.load_manifest()
    files = [
        cache / "files" / f["id"] / s["repository"].replace("/", "__") / e["path"]
        for f in manifest["families"]
        for s in f["sources"]
        for e in s["files"]
    ]
    assert all(path.is_file() for path in files) and len(files) >= 20


def test_fetch_refuses_a_tampered_file_with_one_line_naming_it_and_caches_nothing_bad(mirror, tmp_path, capsys):
    copy = _one_small_family_mirror(mirror, tmp_path / "mirror")
    tampered = copy / SMALL / "mo-arvan__reprohum-0744-02" / "results" / "lab1" / "tables" / "results.csv"
    tampered.write_bytes(tampered.read_bytes().replace(b"1413", b"1414"))
    cache = tmp_path / "cache"
    status = main(["atlas", "fetch", "--mirror", str(copy), "--cache", str(cache), "--family", SMALL])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and "sha256 mismatch" in err
    assert "mo-arvan__reprohum-0744-02/results/lab1/tables/results.csv" in err
    cached = cache / "files" / SMALL / "mo-arvan__reprohum-0744-02" / "results" / "lab1" / "tables"
    assert not (cached / "results.csv").exists()
    assert not [p for p in (cache / "files").rglob("*") if p.name.startswith(".part-")]


def test_fetch_downloads_over_http_from_a_base_url_laid_out_as_the_mirror(mirror, tmp_path):
    copy = _one_small_family_mirror(mirror, tmp_path / "served")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(copy))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        fetched = atlas.fetch(cache=tmp_path / "cache", base_url=url, families=[SMALL])
        assert len(fetched) == 3
        tampered = copy / SMALL / "mo-arvan__reprohum-0744-02" / "CITATION.cff"
        tampered.write_text("tampered\n")
        with pytest.raises(atlas.ChecksumError, match="CITATION.cff"):
            atlas.fetch(cache=tmp_path / "cache2", base_url=url, families=[SMALL])
        assert not (tmp_path / "cache2" / "files" / SMALL / "mo-arvan__reprohum-0744-02" / "CITATION.cff").exists()
    finally:
        server.shutdown()
        server.server_close()


def test_build_reproduces_the_published_numbers_of_every_family(built):
    _, _, results = built
    assert len(results) >= 6
    for result in results:
        assert result.checks, result.family["id"]
        for check in result.checks:
            assert check.ok, check.line()


def test_build_reproduces_yao_2022_readability_cv_star_of_qra3s_published_table(built):
    # SamsungLabs/ReproNLP2026 qra/output-4-studies/Yao2022/table.csv: GT 12.01, PAQ 19.09, QAG 14.78
    _, _, results = built
    yao = next(r for r in results if r.family["id"] == "yao2022_storyqg")
    assert [round(yao.assessment.value("CV*", "system", "Readability", s), 2) for s in ("GT", "PAQ", "QAG")] == [
        12.01,
        19.09,
        14.78,
    ]
    assert yao.assessment.bootstrap_info["B"] == 50  # item-level everywhere: intervals are computed


def test_build_reproduces_both_puduppully_labs_best_worst_scale(built):
    # mo-arvan/data2text-human-evaluation-reproduction results/lab_2/csv/coherence.csv: Gold 12.50, Templ -20.00
    _, _, results = built
    family = next(r for r in results if r.family["id"] == "puduppully2021_rotowire_bws")
    assert round(family.study.scores[("Coherence", "Gold", "Lab2")], 2) == 12.50
    assert round(family.study.scores[("Coherence", "Templ", "Lab2")], 2) == -20.00
    # results/lab_1/csv/grammar.csv: Gold 9.24, ED+CC -19.67 (rows answered '5' excluded)
    assert round(family.study.scores[("Grammaticality", "Gold", "Lab1")], 2) == 9.24
    assert round(family.study.scores[("Grammaticality", "ED+CC", "Lab1")], 2) == -19.67


def test_cli_build_prints_each_check_and_saves_every_family_into_the_library(built, tmp_path, capsys):
    cache, _, _ = built
    library = tmp_path / "atlas.sqlite3"
    status = main(
        [
            "atlas",
            "build",
            "--cache",
            str(cache),
            "--db",
            str(library),
            "--family",
            SMALL,
            "--family",
            "hosking2022_hrqvae_meaning",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert "ok  hosking2021_sepae_bws: CV* Meaning / sep_ae: published 7.595, computed 7.595" in out
    assert out.strip().endswith("2 of 2 families reproduce every published number")
    from qra_widgets.store import StudyLibrary

    assert sorted(s.id for s in StudyLibrary(library).list()) == [SMALL, "hosking2022_hrqvae_meaning"]


# ----------------------------------------------------------------------------- privacy


def _typed_identifier(mirror: Path) -> str:
    """The worker id a participant typed into Lab 2's free-text feedback field (found, not written here)."""
    import pandas as pd

    path = (
        mirror
        / "puduppully2021_rotowire_bws"
        / "mo-arvan__data2text-human-evaluation-reproduction"
        / "responses"
        / "lab2"
        / "coherence.csv"
    )
    feedback = pd.read_csv(path, usecols=["Answer.feedback"], dtype=str, keep_default_na=False)["Answer.feedback"]
    found = {m for text in feedback for m in re.findall(r"\bA[0-9A-Z]{11,14}\b", text)}
    assert len(found) == 1, found
    return found.pop()


@pytest.mark.slow  # builds every published family's site and library again, through the CLI
def test_free_text_and_raw_rater_ids_appear_nowhere_in_the_library_the_site_or_the_output(
    built, mirror, tmp_path, capsys
):
    cache, library, _ = built
    identifier = _typed_identifier(mirror)
    site = tmp_path / "site"
    assert main(["atlas", "site", "--cache", str(cache), "--out", str(site)]) == 0
    assert main(["atlas", "build", "--cache", str(cache)]) == 0
    printed = capsys.readouterr()
    raw_worker_ids = ["anon_worker_0", "worker_104", "cc3ade0b-d2a5-4b73-b079-84b7cff229a9"]  # Lab 2, Lab 1, NapierNLP
    places = [library.read_bytes(), printed.out.encode(), printed.err.encode()]
    places += [p.read_bytes() for p in site.rglob("*.html")]
    from qra_widgets.store import StudyLibrary

    places += [StudyLibrary(library).export_json(s.id).encode() for s in StudyLibrary(library).list()]
    for blob in places:
        assert identifier.encode() not in blob
        for raw in raw_worker_ids:
            assert raw.encode() not in blob
    exported = json.loads(StudyLibrary(library).export_json("puduppully2021_rotowire_bws"))
    assert "rater-" in json.dumps(exported)  # raters are there, pseudonymised


def test_only_mapped_columns_are_read(mirror, monkeypatch, tmp_path):
    import pandas as pd

    atlas.fetch(cache=tmp_path, mirror=mirror, families=["puduppully2021_rotowire_bws"])
    asked = []
    real = pd.read_csv

    def spy(*args, **kwargs):
        asked.append(kwargs.get("usecols"))
        return real(*args, **kwargs)

    monkeypatch.setattr(pd, "read_csv", spy)
    family = next(f for f in atlas.load_manifest()["families"] if f["id"] == "puduppully2021_rotowire_bws")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        atlas.build_family(family, tmp_path, bootstrap=0)
    full_reads = [u for u in asked if u is None]
    column_reads = [u for u in asked if u is not None]
    assert column_reads and all("Answer.feedback" not in u for u in column_reads)
    assert len(full_reads) == len(column_reads)  # the other reads are header-only (nrows=0)


def test_a_family_page_shows_the_replication_success_matrix_and_rings_influential_experiments(built):
    from qra_widgets.atlas.site import family_page, margins
    from qra_widgets.meta import leave_one_out
    from qra_widgets.replication import replication_success

    _cache, _library, results = built
    result = next(r for r in results if r.family["id"] == "yao2022_storyqg")  # an original and three reproductions
    page, charts = family_page(result, version="test")
    assert "Replication success by criterion" in page
    verdicts = {c["id"]: json.loads(c["json"]) for c in charts if c["id"].startswith("verdicts-")}
    assert set(verdicts) == {"verdicts-Readability", "verdicts-Question-Relevancy", "verdicts-Answer-Relevancy"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = replication_success(
            result.assessment,
            quality_criterion="Readability",
            margin=margins(result.study)["Readability"],
            standard_errors=result.standard_errors,
        )
        influence = leave_one_out(
            result.assessment, quality_criterion="Readability", standard_errors=result.standard_errors
        )
    heat = verdicts["verdicts-Readability"]["data"][0]
    assert len(heat["x"]) == len(expected) == 3 * 4  # 3 systems x (3 reproductions + the pooled ones)
    assert heat["z"][2] == [
        None if v is None or str(v) == "<NA>" else int(v) for v in expected.repeat_in_prediction_interval
    ]
    forest = json.loads(next(c["json"] for c in charts if c["id"] == "forest-Readability"))
    rings = [t for t in forest["data"] if t["name"] == "Influential (leave one out)"]
    assert (len(rings[0]["y"]) if rings else 0) == int(influence.influential.fillna(False).sum())
