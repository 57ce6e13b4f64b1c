"""What the study library stores beside each revision, for the overview to read without assessing:
the assessment's rows and a study's summary (:func:`stored_results`), the experiment pairs of the
property analysis (:func:`experiment_pairs`), and the key that says what they were computed from
(:func:`results_key`).  :class:`qra_widgets.store.StudyLibrary` writes them; nothing here touches
the database."""

from __future__ import annotations

import hashlib
import json

from .errors import QRAInputError
from .study import Study


def _year(text: str) -> str:
    text = str(text or "").strip()
    return text[:4] if len(text) >= 4 and text[:4].isdigit() else ""


def _answer(value, criterion: str):
    """A property answer as comparable text; per-criterion answers are read for ``criterion``."""
    if isinstance(value, dict):
        value = value.get(criterion)
    if value is None or value == "" or value == []:
        return None
    return "; ".join(sorted(map(str, value))) if isinstance(value, list) else str(value)


def stored_results(study: Study) -> dict:
    """What is stored with a revision: study info, every ``to_frame`` row, and experiment pairs.

    ``info`` holds the name, each criterion's evaluation type and QCET id, teams, years, track,
    tags, the experiments' property answers, the reason when the study cannot be assessed, and
    ``annotator_alpha``: ``{criterion: {experiment: alpha}}`` of each experiment's own raters.
    ``pairs`` has, for every pair of experiments and criterion, the mean pair CV* over the
    systems both scored (on the shifted scale) and which catalogue properties they answer the
    same and differently (for the experiment-pair analysis of :mod:`qra_widgets.overview`).
    """
    import math
    import warnings

    from .assess import assess

    metadata = study.metadata or {}
    tags = metadata.get("tags", [])
    info = {
        "name": study.name,
        "evaluation_types": {q.name: q.evaluation_type for q in study.quality_criteria},
        "qcet": {q.name: q.qcet_id for q in study.quality_criteria},
        "teams": sorted({e.team for e in study.experiments if e.team}),
        "years": sorted(
            {y for y in [_year(e.date) for e in study.experiments] + [_year(metadata.get("year", ""))] if y}
        ),
        "track": str(metadata.get("track", "")),
        "tags": [str(t) for t in tags] if isinstance(tags, list) else [str(tags)],
        "experiments": len(study.experiments),
        "systems": len(study.systems),
        "properties": {e.id: e.properties for e in study.experiments},
        "problem": "",
        "annotator_alpha": {},
    }
    rows: list[tuple] = []
    signature = ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # undefined values are recorded in the note column
            result = assess(study)
        described, signature = result.conventions.describe(), result.conventions.signature()
        number = lambda v: None if v is None or math.isnan(v) else float(v)  # NaN is stored as NULL
        rows = [
            (
                r.result_type,
                r.measure,
                r.level,
                r.quality_criterion,
                r.system,
                number(r.value),
                int(r.n),
                None if r.n_systems is None else int(r.n_systems),
                r.note,
                described,
            )
            for r in result.rows
            if r.experiments is None  # the overview compares studies: one repeat vs the original is not stored
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an undefined alpha is stored as None
            agreement = result.annotator_agreement()  # not Type III: within each experiment
        for e, q, v in agreement[agreement.measure == "alpha"][["experiment", "quality_criterion", "value"]].to_numpy():
            info["annotator_alpha"].setdefault(q, {})[e] = number(v)
    except QRAInputError as error:
        info["problem"] = str(error)
    return {"info": info, "rows": rows, "pairs": experiment_pairs(study), "signature": signature}


def experiment_pairs(study: Study) -> list[tuple]:
    """``(criterion, experiment_a, experiment_b, mean pair CV*, systems, same ids JSON, differs ids JSON)``
    for every pair of experiments with a system scored by both, per quality criterion."""
    from itertools import combinations

    import numpy as np

    from .measures import pair_cv_star
    from .properties import PROPERTIES

    pairs: list[tuple] = []
    index = list(combinations(range(len(study.experiments)), 2))
    if not index:
        return pairs
    first, second = (np.array(k) for k in zip(*index))
    for qc in study.quality_criteria:
        matrix = study.score_matrix(qc.name) - qc.scale_min
        every = pair_cv_star(matrix[first], matrix[second])  # all pairs in one call: (pairs, systems), nan unless both
        answers = [
            {pid: x for pid in PROPERTIES if (x := _answer(e.properties.get(pid), qc.name)) is not None}
            for e in study.experiments
        ]  # each experiment's answers once, in catalogue order
        for k, (i, j) in enumerate(index):
            values = every[k][~np.isnan(every[k])]
            if not values.size:
                continue
            same, differs = [], []
            for pid, x in answers[i].items():
                if pid in answers[j]:
                    (same if x == answers[j][pid] else differs).append(pid)
            a, b = study.experiments[i], study.experiments[j]
            pairs.append(
                (qc.name, a.id, b.id, float(values.mean()), int(values.size), json.dumps(same), json.dumps(differs))
            )
    return pairs


def results_key(body: str, signature: str) -> dict:
    """What stored rows were computed from: the revision text's SHA-256 and the conventions'
    signature, which names the package version (:meth:`Conventions.signature`)."""
    return {"sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(), "signature": signature}
