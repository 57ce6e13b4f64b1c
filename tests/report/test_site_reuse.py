"""The static site takes each study's assessment from the results stored with its revision, and
writes exactly what assessing every study again writes; an edited study's pages show its new numbers."""

from __future__ import annotations

import re
import sqlite3
import sys
from pathlib import Path

from qra_widgets import assess, examples
from qra_widgets.io import study_to_json
from qra_widgets.report.site import build_site, page_name
from qra_widgets.store import StudyLibrary


def files(folder: Path) -> dict[str, str]:
    """Every file of a site; a chart's <div> id (a counter, unique in a process) is left out."""
    return {
        str(p.relative_to(folder)): re.sub(r"qra-chart-\d+", "qra-chart", p.read_text(encoding="utf-8"))
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_the_site_from_stored_results_is_the_site_from_assessing_every_study_again(tmp_path, monkeypatch):
    library = StudyLibrary(tmp_path / "library.sqlite3")
    for name in examples.names():
        library.save(examples.load(name))
    with monkeypatch.context() as patch:  # nothing is assessed: every page comes from stored results
        refuse = lambda *_a, **_k: (_ for _ in ()).throw(AssertionError("assessed although results are stored"))
        patch.setattr(sys.modules["qra_widgets.assess"], "assess", refuse)
        build_site(library.path, tmp_path / "stored")
    original = StudyLibrary.assessed_studies
    monkeypatch.setattr(StudyLibrary, "assessed_studies", lambda self: ((s, None) for s, _ in original(self)))
    build_site(library.path, tmp_path / "assessed")
    stored, assessed = files(tmp_path / "stored"), files(tmp_path / "assessed")
    assert len(stored) == len(assessed) > 6 * len(examples.names())
    assert stored == assessed


def test_an_edited_study_shows_its_new_numbers_and_a_tampered_one_is_assessed_again(tmp_path):
    library = StudyLibrary(tmp_path / "library.sqlite3")
    study = examples.load("qrapp_example1")
    library.save(study)
    page = tmp_path / "site" / "studies" / f"{page_name(study.id)}.csv"
    build_site(library.path, tmp_path / "site")
    assert page.read_text(encoding="utf-8") == assess(study).to_csv()
    assert ',"SVM",19.9' in page.read_text(encoding="utf-8")  # QRA++ Example 1: SVM's CV* 19.96

    study.set_score("Fluency", "SVM", "Li2024", 3.9)
    library.save(study, expected_revision=1)
    build_site(library.path, tmp_path / "site")
    assert page.read_text(encoding="utf-8") == assess(study).to_csv()
    assert ',"SVM",19.9' not in page.read_text(encoding="utf-8")

    study.set_score(
        "Fluency", "SVM", "Li2024", 2.1
    )  # the revision's text changed without a save: its results are stale
    with sqlite3.connect(library.path) as db:
        db.execute(
            "UPDATE revisions SET body = ? WHERE study_id = ? AND revision = 2", (study_to_json(study), study.id)
        )
    build_site(library.path, tmp_path / "site")
    assert page.read_text(encoding="utf-8") == assess(study).to_csv()


def test_the_results_csv_of_item_level_ratings_is_the_assessments_csv(vanmiltenburg2024):
    """van Miltenburg et al. (2024)'s ratings (published field data): the tidy frame, a blank line,
    then the annotator-agreement table, with bootstrap intervals."""
    from qra_widgets import load_annotations
    from qra_widgets.report.site import _results_csv

    result = assess(load_annotations(vanmiltenburg2024 / "spec.json"), bootstrap=30, seed=5)
    text = _results_csv(result)
    assert text == result.to_csv() and '\n\n"experiment","quality_criterion","measure"' in text
