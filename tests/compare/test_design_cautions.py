"""The caution on a system's percentile CV* interval with five or more unpaired experiments (issue 30)."""

from __future__ import annotations

import numpy as np

import qra_widgets as qw
from qra_widgets.ratings import Ratings
from qra_widgets.study import Experiment, QualityCriterion, Study

CAUTION = "percentile interval of a system's CV* with five or more unpaired experiments: too short"


def five_teams(paired: bool, experiments: int = 5) -> Study:
    rng = np.random.default_rng(2)
    columns = {k: [] for k in ("qc", "system", "item", "experiment", "rater", "rating")}
    ids = [f"E{j}" for j in range(experiments)]
    for j, e in enumerate(ids):
        shift = 0.5 * (j - 2)  # the teams differ: CV* is well away from 0, so its interval is two-sided
        for s, base in (("A", 3.0 + shift), ("B", 3.6 - shift)):
            for i in range(12):
                for r in ("r1", "r2"):
                    item = f"{s}{i}" if paired else f"{e}{s}{i}"
                    for key, value in zip(
                        columns, ("Q", s, item, e, f"{e}{r}", float(np.clip(round(base + rng.normal(0, 0.9)), 1, 5)))
                    ):
                        columns[key].append(value)
    ratings = Ratings.from_columns(*columns.values())
    study = Study(
        "teams",
        quality_criteria=[QualityCriterion("Q", scale_min=1, scale_max=5)],
        systems=["A", "B"],
        experiments=[Experiment(e) for e in ids],
        ratings=ratings,
    )
    for (s, e), mean in ratings.system_means("Q").items():
        study.set_score("Q", s, e, mean)
    return study


def system_notes(study, method):
    frame = qw.assess(study, bootstrap=60, seed=1, ci_method=method).to_frame()
    return frame[(frame.measure == "CV*") & (frame.level == "system")].ci_note.tolist()


def test_five_unpaired_experiments_caution_the_percentile_interval_of_a_systems_cv_and_point_to_bca():
    notes = system_notes(five_teams(paired=False), "percentile")
    assert notes and all(n.startswith(CAUTION) and "BCa 91-93%" in n for n in notes)
    assert not any(n.startswith(CAUTION) for n in system_notes(five_teams(paired=False), "bca"))


def test_paired_or_fewer_experiments_get_no_such_caution():
    assert not any(n.startswith(CAUTION) for n in system_notes(five_teams(paired=True), "percentile"))
    assert not any(n.startswith(CAUTION) for n in system_notes(five_teams(paired=False, experiments=4), "percentile"))
