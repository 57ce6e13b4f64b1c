"""QRA3 files in and out: the organisers' ``metrics.csv`` + ``config.json``, and its outputs.

The organisers' QRA3 tool (Belz & Thomson 2026) reads a long ``metrics.csv``
(``Key,Study,Experiment,System,Criterion,Result``: one system mean per row) and a
per-study ``config.json``, and writes ``DIR/<study>/table.csv``, ``table.tex``,
``data.json``, ``references.bib`` and ``config.json``.  This module speaks both sides:

* :func:`read_qra3` -- files -> a list of :class:`~qra_widgets.Study` (one per ``Study``
  value), each carrying the conventions its config asks for;
* :func:`results` / :func:`table_csv` / :func:`table_tex` / :func:`references_bib` /
  :func:`output_config` / :func:`write_outputs` -- a study -> QRA3's outputs, in its layout;
* :func:`export` -- studies -> ``(metrics_csv_text, config_dict)`` for handing data to the
  organisers.

How each config key is honoured:

=========================================  ===============================================================
key                                        effect
=========================================  ===============================================================
``scale_starts_at``                        each criterion's ``scale_min`` (a criterion's own key wins)
``criteria.<abbr>.map``                    the criterion's name (the ``Criterion`` column); ``<abbr>``
                                           is kept for the LaTeX table and its caption
``criteria.<abbr>.apply_over_correction``  the ``small_sample_factor`` of the study's conventions (one
                                           value per study: mixed values are refused)
``criteria.<abbr>.normal_data``            ``false``: the SE of s* adds the sample excess kurtosis
                                           (``kappa`` in ``data.json``):
                                           ``measures.precision.sd_standard_error(normal=False)``;
                                           unverified (both published runs use ``true``), so
                                           :func:`results` warns (``UserWarning``)
``type_iii_agreement_method``              ``auto`` (Cohen's kappa for 2 experiments, Krippendorff's
                                           alpha for more), ``krippendorff``/``alpha``,
                                           ``fleiss``/``fleiss_kappa``: the ``agreement_many`` convention
``type_iii_krippendorff_alpha_mode``       each criterion's ``label_level`` (``--krippendorff-alpha-mode``
                                           overrides it)
``type_iii_ordinal_labels``                kept (written back by :func:`export`)
``experiments``                            experiment order; id -> citation (caption, ``references.bib``)
``citation``                               the study's citation
=========================================  ===============================================================

QRA3's ``metrics.csv`` holds system-level results only, so Type III (item labels) is never
read from it and ``data.json``'s ``Type III`` holds only its header, as in QRA3's own output.

Undefined values: a measure that is undefined for the data (e.g. CV* of a system whose
shifted mean is 0, to the precision of the input -- the one rule of
:func:`~qra_widgets.measures.cv_star`) is ``null`` in ``data.json`` and printed ``n/a`` in
``table.csv`` / ``table.tex``, the mark QRA3 uses for a measure that does not apply at a
level; the QC and study means leave it out, as :func:`~qra_widgets.assess` does (its
``note`` says why).  QRA3 itself tests ``mean != 0`` and would print a huge CV* there.

``table.csv`` is read by people, so its text cells are neutralised against spreadsheet
formulas (:func:`qra_widgets.report.csvsafe.safe_cell`); ``metrics.csv`` from :func:`export` is
machine-read input for the organisers' tool and is written exactly (see :func:`export`).
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..conventions import QRA3, Conventions, resolve
from ..io.qra3 import QRA3_KEY, study_conventions
from ..study import Study

# ----------------------------------------------------------------------------- settings of any study


def qra3_settings(study: Study) -> dict:
    """QRA3 settings of ``study``: those it was read with, or made up from the study itself."""
    stored = study.metadata.get(QRA3_KEY) or {}
    criteria = stored.get("criteria", {})
    abbreviations = _abbreviations(
        [q.name for q in study.quality_criteria], {name: c.get("abbreviation") for name, c in criteria.items()}
    )
    return {
        "key": stored.get("key", study.id),
        "citation": stored.get("citation", ""),
        "experiments": {e.id: stored.get("experiments", {}).get(e.id, "") for e in study.experiments},
        "criteria": {
            q.name: {
                "abbreviation": abbreviations[q.name],
                "normal_data": criteria.get(q.name, {}).get("normal_data", True),
            }
            for q in study.quality_criteria
        },
        **{k: v for k, v in stored.items() if k.startswith("type_iii_")},
    }


def _abbreviations(names: list[str], known: dict[str, str | None]) -> dict[str, str]:
    """Keep known abbreviations; make others from initials (``Question Relevancy`` -> ``QR``)."""
    result: dict[str, str] = {}
    taken = {v for v in known.values() if v}
    for name in names:
        if known.get(name):
            result[name] = known[name]
            continue
        base = "".join(word[0] for word in re.findall(r"[A-Za-z0-9]+", name)).upper() or "QC"
        candidate, i = base, 2
        while candidate in taken:
            candidate, i = f"{base}{i}", i + 1
        taken.add(candidate)
        result[name] = candidate
    return result


# ----------------------------------------------------------------------------- results (data.json)


def _number(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def results(study: Study, conventions: str | Conventions | None = None) -> dict:
    """QRA3's ``data.json`` for ``study``: every value at full precision, with its inputs.

    The headline values come from :func:`qra_widgets.assess` with ``conventions`` (default:
    the study's own, else ``qra3``); the rest from the measures: ``coefficient_of_variation``
    from :func:`~qra_widgets.measures.cv_star` without the small-sample factor (``None``
    where CV* is undefined), the SE and CI of s* from
    :func:`~qra_widgets.measures.precision.sd_standard_error` (for normal data the CI is
    ``cv_star``'s ``ci95``), the p-values from
    :func:`~qra_widgets.measures.correlation.kendall_w_pvalue` and
    :func:`~qra_widgets.measures.correlation.correlation_pvalue`.  This function only
    arranges them.  Keys and nesting are QRA3's.
    """
    from .. import measures as m
    from ..assess import assess
    from ..measures.correlation import correlation_pvalue, kendall_w_pvalue
    from ..measures.precision import sd_standard_error

    conventions = resolve(conventions if conventions is not None else (study_conventions(study) or QRA3))
    settings = qra3_settings(study)
    assessment = assess(study, conventions=conventions)
    experiments = [e.id for e in study.experiments]
    n = len(experiments)
    ordered = qra3_order(study)
    criteria = [q.name for q in ordered]
    _warn_unverified(settings, criteria)
    level = lambda name, mode="QRA++": {"level": name, "mode": mode, "n": n}

    systems_block, criterion_cv = {}, {}
    for qc in ordered:
        matrix = study.score_matrix(qc.name)
        per_system = {}
        normal = settings["criteria"][qc.name]["normal_data"]
        for j, system in enumerate(study.systems):
            values = matrix[:, j][~np.isnan(matrix[:, j])]
            if (qc.name, system) not in assessment.cv:
                continue
            cv = assessment.cv[(qc.name, system)]
            scale_min = qc.scale_min if conventions.scale_shift else None
            shifted = values - (scale_min or 0.0)
            plain = _quiet(m.cv_star, values, scale_min=scale_min, small_sample_factor=False).cv_star
            spread = _quiet(sd_standard_error, values, scale_min=scale_min, normal=normal)
            ci95 = cv.ci95 if normal else spread.ci95
            per_system[system] = {
                "coefficient_of_variation": _number(plain),
                "apply_over_correction": conventions.small_sample_factor,
                "unbiased_coefficient_of_variation": _number(cv.cv_star) if conventions.small_sample_factor else None,
                "unbiassed_sample_std_dev_s_c_4": cv.sd,
                "normal_data": normal,
                "kappa": _number(spread.kurtosis),
                "degrees_of_freedom": cv.n - 1,
                "est_SE_of_SD_based_on_SE_of_unbiassed_sample_variance": _number(spread.se),
                "confidence": 0.95,
                "confidence_interval": [_number(ci95[0]), _number(ci95[1])],
                "count_within_1_sd": round(cv.within_1sd * cv.n),
                "count_within_2_sd": round(cv.within_2sd * cv.n),
                "sample_size": cv.n,
                "sample_mean": cv.mean,
                "measurements": values.tolist(),
                "adjusted_measurements": shifted.tolist(),
            }
        systems_block[qc.name] = {"criterion": [qc.name], "results": per_system}
        criterion_cv[qc.name] = {"v": _number(_value(assessment, "CV*", "qc", qc.name)), "method": "mean"}
    type_one = {
        "result_type": "Type I",
        "precision": 2,
        "per_level_results": {
            "Criterion": {**level("Criterion"), "criterion": criterion_cv},
            "Study": {
                **level("Study"),
                "study": {"All": {"v": _number(_value(assessment, "CV*", "study")), "method": "mean"}},
            },
            "System": {**level("System"), "system": systems_block},
        },
    }

    two_criterion, two_pairwise, four_criterion, four_pairwise = {}, {}, {}, {}
    total = m.RankCounts(0, 0)
    for qc in ordered:
        matrix = study.score_matrix(qc.name)
        scored_rows = [i for i in range(n) if not np.isnan(matrix[i]).all()]
        complete = ~np.isnan(matrix[scored_rows]).any(axis=0)
        k = int(complete.sum())
        w = _value(assessment, "W", "qc", qc.name)
        if math.isnan(w) and len(scored_rows) == 2 and k >= 2:  # assess() reports tau, not W, for two experiments
            w = _quiet(m.kendall_w, matrix[scored_rows][:, complete], **conventions.to_kwargs("kendall_w"))
        w_p = (
            _quiet(kendall_w_pvalue, matrix[scored_rows], **conventions.to_kwargs("kendall_w_pvalue"))
            if not math.isnan(w)
            else None
        )
        two_criterion[qc.name] = {
            "criterion": [qc.name],
            "per_measure_results": {
                "kendall": {
                    "v": _number(w),
                    "p": _number(w_p),
                    "measure": "kendall",
                    "measurements": matrix[scored_rows][:, complete].tolist(),
                },
                "pearson": {"v": _number(_value(assessment, "r", "qc", qc.name)), "method": "mean"},
                "spearman": {"v": _number(_value(assessment, "rho", "qc", qc.name)), "method": "mean"},
            },
        }
        pairs: dict[str, dict] = {"pearson": {}, "spearman": {}}
        four_pairs: dict[str, dict] = {}
        counts = m.RankCounts(0, 0)
        for a in range(n):
            for b in range(a + 1, n):
                both = ~np.isnan(matrix[a]) & ~np.isnan(matrix[b])
                if both.sum() < 2:
                    continue
                x, y = matrix[a, both], matrix[b, both]
                name = f"{experiments[a]}|{experiments[b]}"
                measurements = {experiments[a]: x.tolist(), experiments[b]: y.tolist()}
                for measure, function, short in (("pearson", m.pearson_r, "r"), ("spearman", m.spearman_rho, "rho")):
                    pairs[measure][name] = {
                        "v": _number(_quiet(function, x, y)),
                        "p": _number(_quiet(correlation_pvalue, x, y, measure=short)),
                        "measure": measure,
                        "measurements": measurements,
                    }
                pair_counts = m.rank_counts(np.vstack([x, y]), **conventions.to_kwargs("rank_counts"))
                counts += pair_counts
                four_pairs[name] = {"n": pair_counts.same, "d": pair_counts.compared, "x": x.tolist(), "y": y.tolist()}
        total += counts
        two_pairwise[qc.name] = {
            "criterion": [qc.name],
            "per_measure_results": {
                "kendall": {},
                "pearson": {"pairwise_results": pairs["pearson"]},
                "spearman": {"pairwise_results": pairs["spearman"]},
            },
        }
        four_criterion[qc.name] = {"n": counts.same, "d": counts.compared, "x": None, "y": None}
        four_pairwise[qc.name] = {"pairwise_results": four_pairs}
    return {
        "name": study.id,
        "n": n,
        "experiments": experiments,
        "criteria": criteria,
        "systems": list(study.systems),
        "result_types": {
            "Type I": type_one,
            "Type II": {
                "result_type": "Type II",
                "precision": 3,
                "per_level_results": {
                    "Criterion": {**level("Criterion"), "criterion": two_criterion},
                    "Pairwise-Criterion": {**level("Criterion", "Pairwise"), "criterion": two_pairwise},
                },
            },
            "Type III": {"result_type": "Type III", "precision": 3},
            "Type IV": {
                "result_type": "Type IV",
                "precision": 3,
                "per_level_results": {
                    "Criterion": {**level("Criterion"), "criterion": four_criterion},
                    "Pairwise-Criterion": {**level("Criterion", "Pairwise"), "criterion": four_pairwise},
                    "Study": {
                        **level("Study"),
                        "study": {"All": {"n": total.same, "d": total.compared, "x": None, "y": None}},
                    },
                },
            },
        },
    }


def qra3_order(study: Study) -> list:
    """The study's quality criteria in QRA3's order: sorted by name.

    QRA3's published three-criterion run (Yao 2022, ``output-3-studies``) lists Answer
    Relevancy, Question Relevancy, Readability in ``table.csv`` and ``data.json`` (its
    ``criteria`` and every per-criterion block), while its ``config.json`` gives R, QR, AR and
    its ``metrics.csv`` Readability, Answer Relevancy, Question Relevancy: only sorting by
    name gives that order.  The study-level values sit on the first criterion's row.

    >>> from qra_widgets.study import Experiment, QualityCriterion, Study
    >>> s = Study(id="x", quality_criteria=[QualityCriterion("Readability"), QualityCriterion("Answer Relevancy")],
    ...           systems=["a", "b"], experiments=[Experiment("O"), Experiment("R")])
    >>> [q.name for q in qra3_order(s)]
    ['Answer Relevancy', 'Readability']
    """
    return sorted(study.quality_criteria, key=lambda q: q.name)


NORMAL_DATA_FALSE = (
    "normal_data: false for {criteria}: the SE and CI of s* use the sample excess kurtosis "
    "(sd_standard_error(normal=False), the delta method on s^2 with kappa estimated from the values). "
    "This is our reading of QRA3's option, unverified: no published QRA3 run sets it"
)


def _warn_unverified(settings: dict, criteria: list[str]) -> None:
    """A UserWarning when a config asks for ``normal_data: false``, whose effect no published run shows."""
    import warnings

    off = [name for name in criteria if not settings["criteria"][name]["normal_data"]]
    if off:
        warnings.warn(
            NORMAL_DATA_FALSE.format(criteria=", ".join(repr(name) for name in off)), UserWarning, stacklevel=3
        )


def _value(assessment, measure: str, level: str, qc: str | None = None) -> float:
    for row in assessment.rows:
        if (row.measure, row.level) == (measure, level) and (qc is None or row.quality_criterion == qc):
            return float(row.value)
    return float("nan")


def _quiet(function, *args, **kwargs):
    """A measure's result; an undefined one holds ``nan`` (its warning is not repeated here)."""
    import warnings

    from ..errors import UndefinedMeasureWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        return function(*args, **kwargs)
