"""Item-level files a ReproNLP team published: the four readability annotation files of
``SamsungLabs/ReproNLP2026`` (``annotations/{yao2022,florescu2024,braun2025,mroczek2026}.csv``),
the data behind the organisers' QRA3 run (``qra3/`` of the published field data).

Those files are not in this repository (a developer may not commit fetched data), so this test
runs only when ``QRA_WIDGETS_FIELD_DATA`` holds them (``qra3/annotations/``, with the QRA3 run
beside them) or ``QRA_WIDGETS_REPRONLP2026`` names a folder that holds them, e.g.::

    git clone https://github.com/SamsungLabs/ReproNLP2026 /tmp/ReproNLP2026
    QRA_WIDGETS_REPRONLP2026=/tmp/ReproNLP2026/annotations pytest tests/test_repronlp_public.py

The spec (``tests/data/repronlp2026/spec.json``, our column mapping) is committed.  It checks:
the system means equal the team's published ``metrics-4-studies.csv`` exactly (float-equal,
not rounded); the whole QRA3 assessment from the raw files equals the one from QRA3's own
input; each experiment's annotator alpha equals the ``krippendorff`` package to 1e-9.
"""

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from exactcsv import read_csv_exact
from fielddata import FIELD, field_path

import qra_widgets as qw

DATA = Path(__file__).parent / "data"
QRA3_RUN = field_path("qra3")  # the organisers' QRA3 run on these data (field data)
FILES = ("yao2022.csv", "florescu2024.csv", "braun2025.csv", "mroczek2026.csv")
FOLDER = os.environ.get("QRA_WIDGETS_REPRONLP2026") or (str(QRA3_RUN / "annotations") if FIELD else None)

pytestmark = pytest.mark.skipif(
    not FIELD or not FOLDER or not all((Path(FOLDER) / name).is_file() for name in FILES),
    reason="set QRA_WIDGETS_FIELD_DATA to the published field data (and, optionally, QRA_WIDGETS_REPRONLP2026 to "
    "SamsungLabs/ReproNLP2026's annotations/ folder; see the module docstring)",
)


@pytest.fixture(scope="module")
def study():
    spec = json.loads((DATA / "repronlp2026" / "spec.json").read_text())
    return qw.load_annotations(spec, base=FOLDER)


def test_system_means_equal_the_published_metrics_float_for_float(study):
    published = read_csv_exact(QRA3_RUN / "metrics-4-studies.csv")  # the printed digits, exactly
    published = published[published["Study"] == "Yao2022"]
    assert len(published) == 12
    for row in published.itertuples():
        assert study.scores[(row.Criterion, row.System, row.Experiment)] == row.Result  # exact: the mean of all ratings


def test_the_assessment_from_raw_files_equals_the_one_from_qra3_input(study):
    from_input = next(
        s
        for s in qw.read_qra3(QRA3_RUN / "metrics-4-studies.csv", QRA3_RUN / "config-4-studies.json")
        if s.id == "Yao2022"
    )
    ours = qw.assess(study, conventions="qra3").to_frame()
    theirs = qw.assess(from_input, conventions="qra3").to_frame()
    keys = ["result_type", "measure", "level", "quality_criterion", "system"]
    means_based = ours[ours["result_type"].isin(["I", "II", "IV"])]
    merged = means_based.merge(theirs, on=keys, suffixes=("", "_qra3"), how="left")
    assert len(merged) == 10 and merged["value_qra3"].notna().all()
    np.testing.assert_allclose(merged["value"], merged["value_qra3"], rtol=0, atol=1e-12)
    value = lambda level, system=None: ours[
        (ours["measure"] == "CV*")
        & (ours["level"] == level)
        & (ours["system"].isna() if system is None else ours["system"] == system)
    ]["value"].item()
    assert round(value("system", "GT"), 2) == 12.01  # QRA3's published table.csv
    assert round(value("study"), 2) == 15.29


def test_each_experiments_annotator_alpha_equals_the_krippendorff_package(study):
    krippendorff = pytest.importorskip("krippendorff")
    agreement = qw.assess(study, conventions="qra3").annotator_agreement()
    alpha = agreement[agreement["measure"] == "alpha"].set_index("experiment")["value"]
    assert set(alpha.index) == {"O", "R1", "R2", "R3"}
    spec = json.loads((DATA / "repronlp2026" / "spec.json").read_text())
    for experiment in spec["experiments"]:
        frame = pd.read_csv(Path(FOLDER) / experiment["file"])
        column = experiment["columns"]["criteria"]["Readability"]
        table = frame.pivot_table(index="labeller_id", columns=["source", "qa_id"], values=column, aggfunc="first")
        expected = krippendorff.alpha(
            reliability_data=table.to_numpy(float), level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5]
        )
        assert abs(alpha[experiment["id"]] - expected) < 1e-9, experiment["id"]
    assert round(alpha["O"], 4) == 0.4487
