"""The Overview's two α columns on studies imported with their item-level ratings (issue 28).

``α`` is the stored between-experiment (Type III) Krippendorff's α; ``annotator α`` is the mean
over a criterion's experiments of the α among each experiment's own raters, stored with the
revision.  Both are checked against the values computed directly from the ratings, on published
field data: the QRA3 run's raw annotations (Yao et al. 2022 and three ReproNLP reproductions,
SamsungLabs/ReproNLP2026) and van Miltenburg et al. (2024)'s fluency ratings."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import qra_widgets as qw
from qra_widgets import examples
from qra_widgets.store import StudyLibrary

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def rated(field_data, vanmiltenburg2024_study, tmp_path_factory):
    """A library of the two rated studies, and the studies themselves."""
    spec = json.loads((DATA / "repronlp2026" / "spec.json").read_text())
    yao = qw.load_annotations(spec, base=field_data / "qra3" / "annotations")
    library = StudyLibrary(tmp_path_factory.mktemp("rated") / "library.sqlite3")
    for study in (yao, vanmiltenburg2024_study):
        library.save(study)
    return library, {"Yao2022": yao, vanmiltenburg2024_study.id: vanmiltenburg2024_study}


def _direct(study):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assessment = qw.assess(study)
        agreement = assessment.annotator_agreement()
    return assessment, agreement[agreement.measure == "alpha"]


def test_annotator_alpha_is_the_mean_of_each_experiments_own_alpha(rated):
    """Yao2022 (four experiments of five raters, ordinal 1-5): the experiments' own α are 0.449 (O),
    0.060 (R1), 0.471 (R2) and 0.089 (R3), mean 0.267; van Miltenburg et al. (2024): 0.519, 0.721,
    0.592, mean 0.611.  The Type III α column keeps its own value (0.260 and 0.642)."""
    library, studies = rated
    view = qw.overview(library)
    criteria = view.criteria.set_index("study")
    study_rows = view.studies.set_index("study")
    for study_id, study in studies.items():
        assessment, alphas = _direct(study)
        (criterion,) = [q.name for q in study.quality_criteria]
        assert len(alphas) == len(study.experiments)
        expected = alphas["value"].mean()
        assert criteria.at[study_id, "annotator α"] == pytest.approx(expected, abs=1e-12)
        assert study_rows.at[study_id, "annotator α"] == pytest.approx(expected, abs=1e-12)
        type_iii = assessment.value("alpha", "qc", criterion)
        assert criteria.at[study_id, "α"] == pytest.approx(type_iii, abs=1e-12)
        assert study_rows.at[study_id, "α"] == pytest.approx(assessment.value("alpha", "study"), abs=1e-12)
    assert criteria.at["Yao2022", "annotator α"] == pytest.approx(0.267241, abs=5e-7)
    assert criteria.at["Yao2022", "α"] == pytest.approx(0.260136, abs=5e-7)
    assert criteria.at["vanmiltenburg2024-fluency", "annotator α"] == pytest.approx(0.610678, abs=5e-7)


def test_the_stored_alpha_of_each_experiment_is_krippendorffs_alpha_of_its_raters(rated):
    """Each experiment's stored α equals :meth:`Assessment.annotator_agreement`'s, experiment by experiment."""
    library, studies = rated
    infos = {study_id: info for study_id, _rev, _at, info in library.stored_results(pairs=False)["studies"]}
    for study_id, study in studies.items():
        _assessment, alphas = _direct(study)
        stored = infos[study_id]["annotator_alpha"]
        for experiment, criterion, value in zip(alphas.experiment, alphas.quality_criterion, alphas.value):
            assert stored[criterion][experiment] == pytest.approx(value, abs=1e-12)


def test_each_experiments_alpha_agrees_with_krippendorff_computed_from_the_raw_ratings(rated):
    """Independently of the app's agreement table: each experiment's raters x (system, item) matrix,
    α at the ordinal level on the 1-5 scale by :func:`qra_widgets.measures.krippendorff_alpha` and by
    the ``krippendorff`` package (Castro 2017; in the [dev] extra); the Overview's annotator α is
    their mean over the experiments."""
    import krippendorff

    from qra_widgets.measures import krippendorff_alpha

    library, studies = rated
    shown = qw.overview(library).criteria.set_index("study")["annotator α"]
    for study_id, study in studies.items():
        (qc,) = study.quality_criteria
        frame = study.ratings.frame()
        per_experiment = []
        for experiment in study.experiment_ids:
            rows = frame[(frame.experiment == experiment) & (frame.quality_criterion == qc.name)]
            matrix = rows.pivot_table(index="rater", columns=["system", "item"], values="rating", aggfunc="first")
            ours = krippendorff_alpha(matrix.to_numpy(dtype=float), level="ordinal", categories=np.arange(1.0, 6.0))
            theirs = krippendorff.alpha(
                reliability_data=matrix.to_numpy(dtype=float),
                level_of_measurement="ordinal",
                value_domain=list(range(1, 6)),
            )
            assert ours == pytest.approx(theirs, abs=1e-9)
            per_experiment.append(ours)
        assert shown[study_id] == pytest.approx(np.mean(per_experiment), abs=1e-9)


def test_ratings_in_one_experiment_give_an_annotator_alpha_and_no_type_iii_alpha(vanmiltenburg2024_study, tmp_path):
    """The issue-28 case: van Miltenburg et al. (2024) with item-level ratings (and item labels) kept for
    the "direct" raters only, the other two experiments keeping their system means.  Type III α needs
    labels in two experiments, so the α column stays undefined ("–"); the annotator α is that one
    experiment's own α, 0.519, as computed directly."""
    import dataclasses

    from qra_widgets.widgets.overview import _text

    study = vanmiltenburg2024_study
    q, system, item, experiment, label = study.labels.columns()
    one = dataclasses.replace(
        study,
        ratings=study.ratings.select(3, ["direct"]),
        labels={(a, b, c, e): v for a, b, c, e, v in zip(q, system, item, experiment, label) if e == "direct"},
    )
    assessment, alphas = _direct(one)
    assert not [r for r in assessment.rows if r.measure == "alpha"]  # no Type III α: labels in one experiment
    assert list(alphas.experiment) == ["direct"]
    library = StudyLibrary(tmp_path / "library.sqlite3")
    library.save(one)
    row = qw.overview(library).criteria.iloc[0]
    assert np.isnan(row["α"]) and _text(row["α"], "α") == "–"
    assert row["annotator α"] == pytest.approx(alphas["value"].iloc[0], abs=1e-12)
    assert row["annotator α"] == pytest.approx(0.518674, abs=5e-7)
    assert np.isfinite(row["mean CV*"])  # the means of all three experiments are still assessed


def test_the_overview_tab_shows_both_alphas_under_their_own_headers(rated):
    from qra_widgets.widgets.overview import COLUMNS, _text

    library, _studies = rated
    view = qw.overview(library)
    for level in ("studies", "criteria"):
        headers = {key: (title, hint) for key, title, _kind, _optional, hint in COLUMNS[level]}
        assert headers["α"][0] == "α" and "between experiments" in headers["α"][1]
        assert headers["annotator α"][0] == "Annotator α" and "not the Type III α" in headers["annotator α"][1]
    row = view.criteria.set_index("study").loc["Yao2022"]
    assert (_text(row["α"], "α"), _text(row["annotator α"], "annotator α")) == ("0.260", "0.267")


def test_studies_without_ratings_have_no_annotator_alpha(tmp_path):
    """The shipped paper examples carry system means only: no annotator α anywhere (and "–" in the tab)."""
    from qra_widgets.widgets.overview import OverviewView, _text

    library = StudyLibrary(tmp_path / "library.sqlite3")
    for name in examples.titles():
        library.save(examples.load(name))
    view = qw.overview(library)
    assert len(view.criteria) and view.criteria["annotator α"].isna().all() and view.studies["annotator α"].isna().all()
    record = view.criteria.iloc[0].to_dict()
    assert _text(record["annotator α"], "annotator α") == "–"
    assert "no item-level ratings" in OverviewView._hover(record, "annotator α", "annotator α")
    assert np.isfinite(view.criteria["mean CV*"]).any()


def test_the_static_site_lists_annotator_alpha_and_draws_its_distribution(rated, tmp_path):
    """The site's studies and criteria tables carry the Overview's "Annotator α" column (Yao2022: 0.267,
    van Miltenburg et al. 2024: 0.611), its CSV downloads too, and a distribution chart is drawn for it."""
    import pandas as pd

    from qra_widgets.report.site import build_site

    library, _studies = rated
    build_site(library.path, tmp_path)
    index = (tmp_path / "index.html").read_text()
    studies_table, criteria_table = index.split("<table")[1:3]
    for table in (studies_table, criteria_table):
        assert ">Annotator α<" in table and "0.267" in table and "0.611" in table
    criteria = pd.read_csv(tmp_path / "overview-criteria.csv").set_index("study")
    assert criteria.at["Yao2022", "annotator α"] == pytest.approx(0.267241, abs=5e-7)
    assert "Criterion-level annotator \\u03b1 by evaluation type" in index  # the distribution chart's title
