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

import io as _io
import json
import math
import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from .conventions import QRA3, QRAPP, Conventions, resolve, stored_conventions
from .errors import QRAInputError
from .io.reading import check_size, decode, load_json, read_bytes
from .report.csvsafe import safe_cell
from .study import Experiment, QualityCriterion, Study

METRICS_COLUMNS = ("Key", "Study", "Experiment", "System", "Criterion", "Result")
OUTPUT_FILES = ("table.csv", "table.tex", "data.json", "references.bib", "config.json")
AGREEMENT_METHODS = {"auto": ("alpha",), "krippendorff": ("alpha",), "alpha": ("alpha",),
                     "fleiss": ("fleiss_kappa",), "fleiss_kappa": ("fleiss_kappa",)}
ALPHA_MODES = ("nominal", "ordinal", "interval", "ratio")
_NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}
_CONVENTIONS_KEY = "conventions"
_QRA3_KEY = "qra3"


# ----------------------------------------------------------------------------- reading


def _expect(value: Any, kind, where: str, what: str) -> Any:
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise QRAInputError(f"{where}: must be a finite number, got {value!r}")
        return float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise QRAInputError(f"{where}: must be {what}, got {type(value).__name__} {value!r}"[:300])
    return value


def check_config(config: Any, source: str = "config.json") -> dict[str, dict]:
    """Validate a QRA3 config (study key -> settings); raise :class:`QRAInputError` naming the key."""
    _expect(config, dict, source, "an object mapping study keys to their settings")
    checked = {}
    for key, entry in config.items():
        where = f"{source}: {key}"
        _expect(entry, dict, where, "an object")
        known = {"scale_starts_at", "type_iii_agreement_method", "type_iii_krippendorff_alpha_mode",
                 "type_iii_ordinal_labels", "experiments", "citation", "criteria"}
        unknown = sorted(set(entry) - known)
        if unknown:
            raise QRAInputError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; QRA3 configs use {', '.join(sorted(known))}")
        if "scale_starts_at" in entry:
            _expect(entry["scale_starts_at"], float, f"{where}.scale_starts_at", "a number")
        method = entry.get("type_iii_agreement_method", "auto")
        if method not in AGREEMENT_METHODS:
            raise QRAInputError(f"{where}.type_iii_agreement_method: must be one of {', '.join(AGREEMENT_METHODS)}, got {method!r}")
        mode = entry.get("type_iii_krippendorff_alpha_mode")
        if mode is not None and mode not in ALPHA_MODES:
            raise QRAInputError(f"{where}.type_iii_krippendorff_alpha_mode: must be one of {', '.join(ALPHA_MODES)}, got {mode!r}")
        if "type_iii_ordinal_labels" in entry:
            _expect(entry["type_iii_ordinal_labels"], list, f"{where}.type_iii_ordinal_labels", "a list")
            for i, label in enumerate(entry["type_iii_ordinal_labels"]):
                if isinstance(label, bool) or not isinstance(label, (str, int, float)):
                    raise QRAInputError(f"{where}.type_iii_ordinal_labels[{i}]: must be a text or number, got {label!r}")
        experiments = _expect(entry.get("experiments", {}), dict, f"{where}.experiments", "an object (experiment id -> citation)")
        for experiment, citation in experiments.items():
            _expect(citation, str, f"{where}.experiments.{experiment}", "a citation text")
        _expect(entry.get("citation", ""), str, f"{where}.citation", "a citation text")
        criteria = _expect(entry.get("criteria", {}), dict, f"{where}.criteria", "an object (abbreviation -> settings)")
        names = {}
        for abbreviation, settings in criteria.items():
            here = f"{where}.criteria.{abbreviation}"
            _expect(settings, dict, here, "an object")
            unknown = sorted(set(settings) - {"map", "apply_over_correction", "normal_data", "scale_starts_at"})
            if unknown:
                raise QRAInputError(f"{here}: unknown key(s) {', '.join(map(repr, unknown))}")
            name = _expect(settings.get("map", abbreviation), str, f"{here}.map", "a criterion name")
            if not name.strip():
                raise QRAInputError(f"{here}.map: must be a non-empty criterion name")
            if name in names:
                raise QRAInputError(f"{here}.map: {name!r} is also the map of {names[name]!r}")
            names[name] = abbreviation
            for flag in ("apply_over_correction", "normal_data"):
                if flag in settings:
                    _expect(settings[flag], bool, f"{here}.{flag}", "true or false")
            if "scale_starts_at" in settings:
                _expect(settings["scale_starts_at"], float, f"{here}.scale_starts_at", "a number")
        checked[str(key)] = entry
    return checked


def read_config(path: str | os.PathLike) -> dict[str, dict]:
    """A QRA3 ``config.json``, validated (see :func:`check_config`)."""
    path = Path(path)
    return check_config(load_json(read_bytes(path), path.name), path.name)


def read_metrics(path: str | os.PathLike):
    """A QRA3 ``metrics.csv`` as a frame of text cells plus a float ``Result``; rows are checked."""
    path = Path(path)
    return metrics_from_text(decode(read_bytes(path), path.name), path.name)


def metrics_from_text(text: str, source: str = "metrics.csv"):
    """Parse and check the text of a QRA3 ``metrics.csv`` (see :func:`read_metrics`)."""
    import csv

    import pandas as pd

    from .io.reading import check_line_lengths, shown

    if "\x00" in text:
        raise QRAInputError(f"{source}: line {text.count(chr(10), 0, text.find(chr(0))) + 1} has a NUL byte; a name cannot hold one")
    check_line_lengths(text, source)
    rows = csv.reader(_io.StringIO(text))
    try:
        header = next(rows, [])
        names = [name.strip() for name in header]
        twice = sorted({name for name in names if names.count(name) > 1 and name})
        if twice:
            raise QRAInputError(f"{source}: column {shown(twice[0])} appears twice in the header")
        for line, row in enumerate(rows, start=2):
            if row and len(row) != len(header):
                hint = " (a trailing comma?)" if len(row) == len(header) + 1 and not row[-1].strip() else ""
                raise QRAInputError(f"{source}: row {line}: has {len(row)} fields, the header has {len(header)}{hint}")
    except csv.Error as error:
        raise QRAInputError(f"{source}: row {rows.line_num}: cannot be read as CSV ({error})") from None
    try:
        frame = pd.read_csv(_io.StringIO(text), dtype=str, keep_default_na=False, skipinitialspace=True, index_col=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise QRAInputError(f"{source}: is not a readable CSV table ({str(error).strip()})") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in METRICS_COLUMNS if c not in frame.columns]
    if missing:
        raise QRAInputError(f"{source}: missing column(s) {', '.join(missing)}; QRA3 metrics need {','.join(METRICS_COLUMNS)}")
    if frame.empty:
        raise QRAInputError(f"{source}: has no rows")
    values = []
    for index, row in frame.iterrows():
        line = index + 2
        for column in METRICS_COLUMNS[:-1]:
            if not row[column].strip():
                raise QRAInputError(f"{source}: row {line}, column {column}: is empty")
        cell = row["Result"].strip()
        try:
            value = float(cell) if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", cell) else None
        except OverflowError:
            value = None
        if value is None or not math.isfinite(value):
            raise QRAInputError(f"{source}: row {line}, column Result: {cell[:40]!r} is not a finite number")
        values.append(value)
    frame = frame[list(METRICS_COLUMNS)].apply(lambda col: col.str.strip())
    frame["Result"] = values
    frame["row"] = frame.index + 2
    duplicated = frame.duplicated(["Study", "Experiment", "System", "Criterion"], keep="first")
    if duplicated.any():
        row = frame[duplicated].iloc[0]
        raise QRAInputError(f"{source}: row {row['row']}: a second Result for {row['Study']} / {row['Experiment']} / "
                            f"{row['System']} / {row['Criterion']}")
    return frame


def conventions_for(entry: dict, where: str = "config.json") -> Conventions:
    """The :class:`Conventions` one QRA3 config entry asks for (the ``qra3`` preset, adjusted)."""
    flags = {abbr: settings.get("apply_over_correction", False) for abbr, settings in entry.get("criteria", {}).items()}
    if len(set(flags.values())) > 1:
        raise QRAInputError(f"{where}.criteria: apply_over_correction differs between criteria "
                            f"({', '.join(f'{k}: {str(v).lower()}' for k, v in flags.items())}); "
                            "qra-widgets applies one CV* convention per study")
    changes: dict[str, Any] = {}
    if flags and next(iter(flags.values())) != QRA3.small_sample_factor:
        changes["small_sample_factor"] = next(iter(flags.values()))
    many = AGREEMENT_METHODS[entry.get("type_iii_agreement_method", "auto")]
    if many != QRA3.agreement_many:
        changes["agreement_many"] = many
    return QRA3.replace(**changes) if changes else QRA3


def read_qra3_bytes(metrics: bytes, config: bytes, *, metrics_name: str = "metrics.csv",
                    config_name: str = "config.json", krippendorff_alpha_mode: str | None = None) -> list[Study]:
    """:func:`read_qra3` for uploaded files: their bytes and names (the app's "Import QRA3 files").

    >>> metrics = b"Key,Study,Experiment,System,Criterion,Result\\nDemo,Demo,O,A,Fluency,4.2\\nDemo,Demo,R1,A,Fluency,4.0\\n"
    >>> config = b'{"Demo": {"experiments": {"O": "o", "R1": "r"}, "criteria": {"F": {"map": "Fluency"}}}}'
    >>> [(s.id, s.experiment_ids) for s in read_qra3_bytes(metrics, config)]
    [('Demo', ['O', 'R1'])]
    """
    check_size(len(metrics), metrics_name)
    check_size(len(config), config_name)
    return _studies(metrics_from_text(decode(metrics, metrics_name), metrics_name),
                    check_config(load_json(config, config_name), config_name), metrics_name, config_name,
                    krippendorff_alpha_mode)


def read_qra3(metrics_csv: str | os.PathLike, config_json: str | os.PathLike, *,
              krippendorff_alpha_mode: str | None = None) -> list[Study]:
    """Read QRA3's ``metrics.csv`` + ``config.json``: one :class:`Study` per ``Study`` value.

    Each study carries its conventions (:func:`study_conventions`; ``assess(study)`` uses
    them) and its QRA3 settings in ``study.metadata["qra3"]`` (key, citations, criterion
    abbreviations, ``normal_data``...), so :func:`export` and :func:`write_outputs` give
    the files back.  Malformed input raises :class:`QRAInputError` naming the file, row,
    column or key.

    >>> studies = read_qra3("tests/data/qra3_small/metrics.csv", "tests/data/qra3_small/config.json")  # made-up numbers
    >>> [(s.id, s.experiment_ids, s.systems, s.qc_names) for s in studies]
    [('Demo', ['O', 'R1', 'R2'], ['A', 'B', 'C'], ['Fluency'])]
    >>> study_conventions(studies[0]).describe()
    'qra3'
    """
    metrics_path, config_path = Path(metrics_csv), Path(config_json)
    return _studies(read_metrics(metrics_path), read_config(config_path), metrics_path.name, config_path.name,
                    krippendorff_alpha_mode)


def _studies(frame, config: dict, metrics_name: str, config_name: str, krippendorff_alpha_mode: str | None) -> list[Study]:
    if krippendorff_alpha_mode is not None and krippendorff_alpha_mode not in ALPHA_MODES:
        raise QRAInputError(f"--krippendorff-alpha-mode: must be one of {', '.join(ALPHA_MODES)}, got {krippendorff_alpha_mode!r}")
    studies = []
    for study_id in dict.fromkeys(frame["Study"]):
        rows = frame[frame["Study"] == study_id]
        studies.append(_study(rows, study_id, config, metrics_name, config_name, krippendorff_alpha_mode))
    return studies


def _study(rows, study_id: str, config: dict, source: str, config_source: str, alpha_mode: str | None) -> Study:
    keys = list(dict.fromkeys(rows["Key"]))
    if len(keys) > 1:
        row = rows[rows["Key"] != keys[0]].iloc[0]
        raise QRAInputError(f"{source}: row {row['row']}, column Key: study {study_id!r} has two keys ({keys[0]!r}, {keys[1]!r})")
    key = keys[0]
    config_key = study_id if study_id in config else key
    if config_key not in config:
        raise QRAInputError(f"{config_source}: has no entry for study {study_id!r} ({source} row {rows['row'].iloc[0]}, column Study)")
    entry = config[config_key]
    where = f"{config_source}: {config_key}"
    conventions = conventions_for(entry, where)
    criteria = entry.get("criteria", {})
    by_name = {settings.get("map", abbr): abbr for abbr, settings in criteria.items()}
    by_abbreviation = {abbr: settings.get("map", abbr) for abbr, settings in criteria.items()}
    if not criteria:
        by_name = {name: name for name in dict.fromkeys(rows["Criterion"])}
    cited = entry.get("experiments", {})
    experiment_ids = list(cited) if cited else list(dict.fromkeys(rows["Experiment"]))
    level = alpha_mode or entry.get("type_iii_krippendorff_alpha_mode") or "nominal"
    study_scale = float(entry.get("scale_starts_at", 0))
    qcs, abbreviations, scores = {}, {}, {}
    for _, row in rows.iterrows():
        at = f"{source}: row {row['row']}"
        name = row["Criterion"] if row["Criterion"] in by_name else by_abbreviation.get(row["Criterion"])
        if name is None:
            raise QRAInputError(f"{at}, column Criterion: {row['Criterion']!r} is not mapped by {where}.criteria "
                                f"(maps: {', '.join(map(repr, by_name)) or 'none'})")
        if row["Experiment"] not in experiment_ids:
            raise QRAInputError(f"{at}, column Experiment: {row['Experiment']!r} is not in {where}.experiments "
                                f"({', '.join(experiment_ids)})")
        if name not in qcs:
            abbreviation = by_name[name]
            settings = criteria.get(abbreviation, {})
            scale = float(settings.get("scale_starts_at", study_scale))
            qcs[name] = QualityCriterion(name, scale_min=scale, label_level=level)
            abbreviations[name] = abbreviation
        qc = qcs[name]
        if row["Result"] < qc.scale_min:
            raise QRAInputError(f"{at}, column Result: {row['Result']} is below scale_starts_at {qc.scale_min:g} of {name!r}")
        scores[(name, row["System"], row["Experiment"])] = row["Result"]
    used = {e for (_q, _s, e) in scores}
    present = [e for e in experiment_ids if e in used]  # in config order; the first is the original
    experiments = [Experiment(e, role="original" if i == 0 else "repeat") for i, e in enumerate(present)]
    settings = {
        "key": key,
        "citation": entry.get("citation", ""),
        "experiments": {e.id: cited.get(e.id, "") for e in experiments},
        "criteria": {name: {"abbreviation": abbreviations[name],
                            "normal_data": criteria.get(abbreviations[name], {}).get("normal_data", True)} for name in qcs},
        "type_iii_agreement_method": entry.get("type_iii_agreement_method", "auto"),
    }
    for option in ("type_iii_krippendorff_alpha_mode", "type_iii_ordinal_labels"):
        if option in entry:
            settings[option] = entry[option]
    if alpha_mode is not None:
        settings["type_iii_krippendorff_alpha_mode"] = alpha_mode
    settings["config"] = json.loads(json.dumps(entry))  # the entry as given, for the config QRA3 writes back
    if alpha_mode is not None:
        settings["config"]["type_iii_krippendorff_alpha_mode"] = alpha_mode
    return Study(
        id=study_id, name=study_id, quality_criteria=list(qcs.values()),
        systems=list(dict.fromkeys(rows["System"])), experiments=experiments, scores=scores,
        metadata={_CONVENTIONS_KEY: conventions.to_stored(), _QRA3_KEY: settings},
    )


def study_conventions(study: Study) -> Conventions | None:
    """The conventions a study carries (its study file's ``conventions``), or ``None``."""
    return stored_conventions(study.metadata)


# ----------------------------------------------------------------------------- settings of any study


def _settings(study: Study) -> dict:
    """QRA3 settings of ``study``: those it was read with, or made up from the study itself."""
    stored = study.metadata.get(_QRA3_KEY) or {}
    criteria = stored.get("criteria", {})
    abbreviations = _abbreviations([q.name for q in study.quality_criteria],
                                   {name: c.get("abbreviation") for name, c in criteria.items()})
    return {
        "key": stored.get("key", study.id),
        "citation": stored.get("citation", ""),
        "experiments": {e.id: stored.get("experiments", {}).get(e.id, "") for e in study.experiments},
        "criteria": {q.name: {"abbreviation": abbreviations[q.name],
                              "normal_data": criteria.get(q.name, {}).get("normal_data", True)} for q in study.quality_criteria},
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
    from . import measures as m
    from .assess import assess
    from .measures.correlation import correlation_pvalue, kendall_w_pvalue
    from .measures.precision import sd_standard_error

    conventions = resolve(conventions if conventions is not None else (study_conventions(study) or QRA3))
    settings = _settings(study)
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
    type_one = {"result_type": "Type I", "precision": 2, "per_level_results": {
        "Criterion": {**level("Criterion"), "criterion": criterion_cv},
        "Study": {**level("Study"), "study": {"All": {"v": _number(_value(assessment, "CV*", "study")), "method": "mean"}}},
        "System": {**level("System"), "system": systems_block},
    }}

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
        w_p = (_quiet(kendall_w_pvalue, matrix[scored_rows], **conventions.to_kwargs("kendall_w_pvalue"))
               if not math.isnan(w) else None)
        two_criterion[qc.name] = {"criterion": [qc.name], "per_measure_results": {
            "kendall": {"v": _number(w), "p": _number(w_p), "measure": "kendall",
                        "measurements": matrix[scored_rows][:, complete].tolist()},
            "pearson": {"v": _number(_value(assessment, "r", "qc", qc.name)), "method": "mean"},
            "spearman": {"v": _number(_value(assessment, "rho", "qc", qc.name)), "method": "mean"},
        }}
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
                    pairs[measure][name] = {"v": _number(_quiet(function, x, y)),
                                            "p": _number(_quiet(correlation_pvalue, x, y, measure=short)),
                                            "measure": measure, "measurements": measurements}
                pair_counts = m.rank_counts(np.vstack([x, y]), **conventions.to_kwargs("rank_counts"))
                counts += pair_counts
                four_pairs[name] = {"n": pair_counts.same, "d": pair_counts.compared, "x": x.tolist(), "y": y.tolist()}
        total += counts
        two_pairwise[qc.name] = {"criterion": [qc.name], "per_measure_results": {
            "kendall": {}, "pearson": {"pairwise_results": pairs["pearson"]}, "spearman": {"pairwise_results": pairs["spearman"]}}}
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
            "Type II": {"result_type": "Type II", "precision": 3, "per_level_results": {
                "Criterion": {**level("Criterion"), "criterion": two_criterion},
                "Pairwise-Criterion": {**level("Criterion", "Pairwise"), "criterion": two_pairwise}}},
            "Type III": {"result_type": "Type III", "precision": 3},
            "Type IV": {"result_type": "Type IV", "precision": 3, "per_level_results": {
                "Criterion": {**level("Criterion"), "criterion": four_criterion},
                "Pairwise-Criterion": {**level("Criterion", "Pairwise"), "criterion": four_pairwise},
                "Study": {**level("Study"), "study": {"All": {"n": total.same, "d": total.compared, "x": None, "y": None}}}}},
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
    "This is our reading of QRA3's option, unverified: no published QRA3 run sets it")


def _warn_unverified(settings: dict, criteria: list[str]) -> None:
    """A UserWarning when a config asks for ``normal_data: false``, whose effect no published run shows."""
    import warnings

    off = [name for name in criteria if not settings["criteria"][name]["normal_data"]]
    if off:
        warnings.warn(NORMAL_DATA_FALSE.format(criteria=", ".join(repr(name) for name in off)), UserWarning, stacklevel=3)


def _value(assessment, measure: str, level: str, qc: str | None = None) -> float:
    for row in assessment.rows:
        if (row.measure, row.level) == (measure, level) and (qc is None or row.quality_criterion == qc):
            return float(row.value)
    return float("nan")


def _quiet(function, *args, **kwargs):
    """A measure's result; an undefined one holds ``nan`` (its warning is not repeated here)."""
    import warnings

    from .errors import UndefinedMeasureWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        return function(*args, **kwargs)


# ----------------------------------------------------------------------------- table.csv / table.tex


def _cells(data: dict) -> list[dict]:
    """The table's rows as dicts: type, qc, system, measure, the three levels, and spans."""
    criteria, systems = data["criteria"], data["systems"]
    types = data["result_types"]
    rows: list[dict] = []
    one = types["Type I"]["per_level_results"]
    block = []
    for qc in criteria:
        found = one["System"]["system"][qc]["results"]
        listed = list(systems)
        for i, system in enumerate(listed):
            result = found.get(system)
            if result is None:  # fewer than two values: no CV*
                value = None
            else:
                value = result["unbiased_coefficient_of_variation"] if result["apply_over_correction"] else result["coefficient_of_variation"]
            block.append({"qc": qc, "system": system, "measure": "cv" if i == 0 else "", "system_level": ("cv", value),
                          "qc_level": ("cv", one["Criterion"]["criterion"][qc]["v"]) if i == 0 else None,
                          "qc_span": len(listed), "first_of_qc": i == 0})
    if block:
        block[0]["study_level"] = ("cv", one["Study"]["study"]["All"]["v"])
        rows.append({"type": "Type I", "rows": block, "headline": "system_level"})
    two = types["Type II"]["per_level_results"]["Criterion"]["criterion"]
    block = []
    prefix = "mean " if data["n"] > 2 else ""
    for qc in criteria:
        measures = two[qc]["per_measure_results"]
        labelled = [("r", measures["pearson"]["v"]), ("rho", measures["spearman"]["v"]), ("W", measures["kendall"]["v"])]
        for i, (measure, value) in enumerate(labelled):
            block.append({"qc": qc, "system": "all", "measure": measure, "prefix": prefix, "system_level": ("na", None),
                          "qc_level": ("3", value), "qc_span": len(labelled), "first_of_qc": i == 0})
    if block:
        block[0]["study_level"] = ("na", None)
        rows.append({"type": "Type II", "rows": block, "headline": "qc_level"})
    four = types["Type IV"]["per_level_results"]
    block = []
    for qc in criteria:
        counts = four["Criterion"]["criterion"][qc]
        value = counts["n"] / counts["d"] if counts["d"] else None
        block.append({"qc": qc, "system": "all", "measure": "P", "system_level": ("na", None), "qc_level": ("3", value),
                      "qc_span": 1, "first_of_qc": True})
    if block:
        total = four["Study"]["study"]["All"]
        block[0]["study_level"] = ("3", total["n"] / total["d"] if total["d"] else None)
        rows.append({"type": "Type IV", "rows": block, "headline": "study_level"})
    return rows


def _plain(cell: tuple | None) -> str:
    if cell is None:
        return ""
    kind, value = cell
    if kind == "na" or value is None:
        return "n/a"
    return f"{value:.2f}" if kind == "cv" else f"{value:.3f}"


_CSV_MEASURES = {"cv": "(mean) CV*↓", "r": "r ↑", "rho": "ρ ↑", "W": "W ↑", "P": "P↑"}
_TEX_MEASURES = {"cv": r"(mean) CV$^*$$\downarrow$", "r": r"$r$~$\uparrow$", "rho": r"$\rho$~$\uparrow$",
                 "W": r"$W\!$~$\uparrow$", "P": r"$P\uparrow$"}


def table_csv(data: dict) -> str:
    """QRA3's ``table.csv``: the QRA++ template, fixed decimals (CV* 2, others 3), ``n/a`` cells.

    The header, row order, blank separator rows and labels are those of QRA3's Yao 2022
    output; several criteria are stacked inside each result type (QC named on its first row).
    The table is for people and spreadsheets, so its text cells pass through
    :func:`qra_widgets.report.csvsafe.safe_cell` (a system ``=x`` is written ``'=x``; numbers and
    ordinary names are unchanged).
    """
    import csv

    out = _io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["Type of Result", "QC", "System", "Measure applied", "System level", "QC level", f"Study level (n={data['n']})"])
    for b, block in enumerate(_cells(data)):
        if b:
            writer.writerow([""] * 7)
        for i, row in enumerate(block["rows"]):
            measure = row["measure"]
            label = "" if not measure else (row.get("prefix", "") + _CSV_MEASURES[measure] if measure in ("r", "rho") else _CSV_MEASURES[measure])
            cells = [block["type"] if i == 0 else "", row["qc"] if row["first_of_qc"] else "", row["system"], label,
                     _plain(row["system_level"]), _plain(row.get("qc_level")), _plain(row.get("study_level"))]
            writer.writerow([safe_cell(cell) for cell in cells])  # read by people: names cannot run as formulas
    return out.getvalue()


def _tex_number(cell: tuple | None) -> str:
    if cell is None:
        return ""
    kind, value = cell
    if kind == "na" or value is None:
        return "n/a"
    if kind == "cv":
        digits = len(str(int(abs(value)))) if abs(value) < 1e15 else 3
        pad = "0" * max(0, 3 - digits) + ("-" if value >= 0 else "")
        return (rf"\phantom{{{pad}}}" if pad else "") + f"{value:.2f}" + r"\phantom{00}"
    return (r"\phantom{-}" if value >= 0 else "") + f"{value:.3f}"


def tex_escape(text: str) -> str:
    """Escape LaTeX's special characters in a name (system, criterion, study): :func:`qra_widgets.report.escape.latex`."""
    from .report.escape import latex

    return latex(text)


def _multirow(span: int, text: str) -> str:
    return rf"\multirow{{{span}}}{{*}}{{{text}}}" if span > 1 else text


def _join_citations(citations: list[str]) -> str:
    if len(citations) <= 2:
        return " and ".join(citations)
    return ", ".join(citations[:-1]) + ", and " + citations[-1]


def table_tex(data: dict, settings: dict) -> str:
    """QRA3's ``table.tex``: the same table in LaTeX, ``\\cellcolor`` on the headline level
    (system level for Type I, QC level for Type II, study level for Type IV)."""
    n = data["n"]
    abbreviation = {qc: settings["criteria"][qc]["abbreviation"] for qc in data["criteria"]}
    from .report.escape import latex_citation

    citations = [latex_citation(c) for c in (settings["experiments"].get(e, "") for e in data["experiments"]) if c]
    words = _NUMBER_WORDS.get(n, str(n))
    legend = "; ".join(f"{tex_escape(abbreviation[qc])} $=$ {tex_escape(qc)}" for qc in data["criteria"])
    cited = f", {_join_citations(citations)}" if citations else ""
    lines = [
        "",
        r"\begin{table*}",
        r"    \centering",
        r"    \footnotesize",
        (rf"    \caption{{\textbf{{{tex_escape(data['name'])}}}: QRA reproducibility assessment for {words} comparable experiments "
         rf"(n={n}){cited}. {legend}; n/a $=$ measure does not apply at this level.}}"),
        r"    \begin{tabular}{|p{1.2cm}|p{0.8cm}|p{1.9cm}|p{2.0cm}|C{1.5cm}|C{1.5cm}|C{1.5cm}|}",
        r"        \hline",
        (r"        \multirow{1}{*}{\textbf{Type of}} & \multirow{2}{*}{\textbf{QC}} & \multirow{2}{*}{\textbf{System}} & "
         r"\multirow{1}{*}{\textbf{Measure}} & \multicolumn{3}{c|}{\textbf{Degree of reproducibility ($n="
         + str(n) + r"$)}}\\"),
        r"        \cline{5-7}",
        r"        \textbf{Result} & && \textbf{applied} &  System level& QC level & Study level \\",
        r"        \hline",
        r"        \hline",
    ]
    for block in _cells(data):
        span = len(block["rows"])
        for i, row in enumerate(block["rows"]):
            qc_span = row["qc_span"]
            measure = row["measure"]
            if block["type"] == "Type I":
                label = _multirow(qc_span, _TEX_MEASURES["cv"]) if measure else ""
            else:
                label = (row.get("prefix", "").replace(" ", "~") + _TEX_MEASURES[measure]) if measure in ("r", "rho") else _TEX_MEASURES[measure]
            cells = {}
            for level in ("system_level", "qc_level", "study_level"):
                value = row.get(level)
                text = _tex_number(value)
                if level == block["headline"] and value is not None:
                    text = r"\cellcolor{cornflowerblue!30}" + text
                elif level == "qc_level" and block["type"] == "Type I" and value is not None:
                    text = _multirow(qc_span, text)
                elif level == "study_level" and value is not None:
                    text = _multirow(span, text)
                cells[level] = text
            line = [
                _multirow(span, block["type"]) if i == 0 else "",
                _multirow(qc_span, tex_escape(abbreviation[row["qc"]])) if row["first_of_qc"] else "",
                tex_escape(row["system"]), label, cells["system_level"], cells["qc_level"], cells["study_level"],
            ]
            lines.append("\t\t\t" + " & ".join(line) + r" \\")
        lines.append("\t\t\t\\hline")
    lines += [r"    \end{tabular}", r"    \label{}", r"    \vspace{-.4cm}", r"\end{table*}", " " * 12, ""]
    return "\n".join(lines)


def references_bib(settings: dict) -> str:
    """QRA3's ``references.bib``: a ``@misc`` stub per citation key, in order of appearance; keys
    and fields through :mod:`qra_widgets.report.escape` (the same keys ``table.tex`` cites)."""
    from .report.escape import bibtex_field, cite_keys

    keys: list[str] = []
    for citation in [*settings["experiments"].values(), settings.get("citation", "")]:
        keys += cite_keys(citation or "")
    keys = list(dict.fromkeys(keys))
    return "".join(f'@misc{{{key},\n  note = "{bibtex_field("Missing BibTeX entry for " + key)}"\n}}\n\n'
                   for key in keys).rstrip("\n") + "\n" if keys else ""


def _config_entry(study: Study, conventions: Conventions, resolved_scale: bool) -> dict:
    """One study's QRA3 config entry; ``resolved_scale`` adds each criterion's
    ``scale_starts_at`` as QRA3 does in the ``config.json`` it writes.  Citations are LaTeX the
    organisers' tool writes into ``table.tex`` as they are: only ``\\cite`` commands with safe
    keys pass (:func:`~qra_widgets.report.escape.latex_citation`)."""
    from .report.escape import bibtex_key, latex_citation

    settings = _settings(study)
    given = _given_config(study)
    if given is not None:
        if resolved_scale:
            for item in given.get("criteria", {}).values():
                item.setdefault("scale_starts_at", given.get("scale_starts_at", 0))
        return given
    scales = {q.scale_min for q in study.quality_criteria}
    entry: dict[str, Any] = {}
    first = study.quality_criteria[0].scale_min if study.quality_criteria else 0.0
    entry["scale_starts_at"] = _plain_number(first)
    entry["type_iii_agreement_method"] = settings.get("type_iii_agreement_method", _method_for(conventions))
    alpha = settings.get("type_iii_krippendorff_alpha_mode") or conventions.alpha_level
    if alpha is None:
        levels = {q.label_level for q in study.quality_criteria}
        alpha = levels.pop() if len(levels) == 1 else None
    if alpha is not None:
        entry["type_iii_krippendorff_alpha_mode"] = alpha
    if "type_iii_ordinal_labels" in settings:
        entry["type_iii_ordinal_labels"] = settings["type_iii_ordinal_labels"]
    entry["experiments"] = {e: latex_citation(c or rf"\citet{{{bibtex_key(e)}}}") for e, c in settings["experiments"].items()}
    entry["citation"] = latex_citation(settings.get("citation") or rf"\citet{{{bibtex_key(study.id)}}}")
    criteria = {}
    for qc in study.quality_criteria:
        item = {"map": qc.name, "apply_over_correction": conventions.small_sample_factor,
                "normal_data": settings["criteria"][qc.name]["normal_data"]}
        if resolved_scale or len(scales) > 1:
            item["scale_starts_at"] = _plain_number(qc.scale_min)
        criteria[settings["criteria"][qc.name]["abbreviation"]] = item
    entry["criteria"] = criteria
    return entry


def _given_config(study: Study) -> dict | None:
    """The config entry the study was read with, if it still describes the study (same
    criteria, experiments and scales); a copy, so callers may change it."""
    settings = study.metadata.get(_QRA3_KEY) or {}
    given = settings.get("config")
    if not isinstance(given, dict):
        return None
    criteria = given.get("criteria", {})
    maps = {item.get("map", abbr): item.get("scale_starts_at", given.get("scale_starts_at", 0)) for abbr, item in criteria.items()}
    fits = all(q.name in maps and float(maps[q.name]) == q.scale_min for q in study.quality_criteria) \
        and [e.id for e in study.experiments] == [e for e in given.get("experiments", {}) if e in {x.id for x in study.experiments}] \
        and all(e.id in given.get("experiments", {}) for e in study.experiments)
    return json.loads(json.dumps(given)) if fits else None


def _method_for(conventions: Conventions) -> str:
    return "fleiss" if conventions.agreement_many == ("fleiss_kappa",) else "auto"


def _plain_number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def output_config(study: Study, conventions: Conventions | None = None) -> dict:
    """QRA3's per-study ``config.json`` output: the config with each criterion's scale resolved."""
    conventions = conventions or study_conventions(study) or QRA3
    return {_settings(study)["key"]: _config_entry(study, conventions, resolved_scale=True)}


# ----------------------------------------------------------------------------- writing


def outputs(study: Study, conventions: str | Conventions | None = None, *, source: str | None = None) -> dict[str, str]:
    """The five files QRA3 writes for one study, as ``{file name: text}``.

    A study that cannot be assessed (e.g. one experiment) raises :class:`QRAInputError`
    naming ``source`` (the metrics file it was read from, when given) and the study.
    """
    conventions = resolve(conventions if conventions is not None else (study_conventions(study) or QRA3))
    try:
        data = results(study, conventions)
    except QRAInputError as error:
        where = f"{source}: study {study.id!r}" if source else f"study {study.id!r}"
        raise QRAInputError(f"{where}: {error}") from None
    settings = _settings(study)
    return {
        "table.csv": table_csv(data),
        "table.tex": table_tex(data, settings),
        "data.json": json.dumps(data, indent=2, ensure_ascii=False) + "\n",
        "references.bib": references_bib(settings),
        "config.json": json.dumps(output_config(study, conventions), indent=2, ensure_ascii=False) + "\n",
    }


def _safe_folder(name: str) -> str:
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name:
        raise QRAInputError(f"study {name!r}: cannot be used as an output folder name")
    return name


def write_outputs(studies: list[Study], out_dir: str | os.PathLike, *, force: bool = False,
                  conventions: str | Conventions | None = None, source: str | None = None) -> list[Path]:
    """Write ``out_dir/<study>/`` with QRA3's five files for each study, and ``out_dir/config.json``
    (the config of every study written, as QRA3 leaves it beside the study folders).

    Existing output files are refused (:class:`QRAInputError`) unless ``force``.  Everything
    is computed before anything is written, so an error leaves no half-written folder; an
    error in a study's results names ``source`` (the metrics file name) and the study.
    """
    from .io import atomic_write_text

    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise QRAInputError(f"{out}: --out-dir is a file, not a folder")
    planned = {out / _safe_folder(study.id) / name: text
               for study in studies for name, text in outputs(study, conventions, source=source).items()}
    combined: dict[str, dict] = {}
    for study in studies:
        combined.update(export([study])[1])
    planned[out / "config.json"] = json.dumps(combined, indent=2, ensure_ascii=False) + "\n"
    if not force:
        existing = [path for path in planned if path.exists()]
        if existing:
            raise QRAInputError(f"{existing[0]}: exists; use --force to overwrite QRA3 output")
    written = []
    try:
        for path, text in planned.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, text)
            written.append(path)
    except OSError as error:
        raise QRAInputError(f"{out}: cannot write QRA3 output ({error.strerror or error})") from None
    return written


# ----------------------------------------------------------------------------- export


def export(studies: list[Study]) -> tuple[str, dict]:
    """Studies -> QRA3 ``metrics.csv`` text and ``config.json`` dict, ready for the organisers.

    A study read with :func:`read_qra3` gives its files back (key, citations, abbreviations,
    ``normal_data``, Type III settings).  Any other study gets ``\\citet{<id>}`` citations,
    abbreviations made from initials and ``apply_over_correction`` from its conventions
    (``qrapp``: true, so QRA3 prints the same CV* as qra-widgets).  Result cells use
    Python's shortest round-trip float text.

    ``metrics.csv`` is machine-read input, handed to the organisers' tool as is, so its
    cells are written exactly as the names are (a system ``-GT`` stays ``-GT``, a study
    ``=evil`` keeps its config key): unlike every other CSV qra-widgets writes, it is
    *not* neutralised against spreadsheet formulas (:mod:`qra_widgets.report.csvsafe`), because
    an added ``'`` would change the names the tool and :func:`read_qra3` read back.  Open
    it in a spreadsheet only as text.

    >>> study = read_qra3("tests/data/qra3_small/metrics.csv", "tests/data/qra3_small/config.json")[0]
    >>> text, config = export([study])
    >>> text.splitlines()[:2]
    ['Key,Study,Experiment,System,Criterion,Result', 'Demo,Demo,O,A,Fluency,4.2']
    >>> config["Demo"]["criteria"]["F"]
    {'map': 'Fluency', 'apply_over_correction': False, 'normal_data': True}
    """
    import csv

    if not studies:
        raise QRAInputError("export: no study to export")
    out = _io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(METRICS_COLUMNS)
    config: dict[str, dict] = {}
    for study in studies:
        conventions = study_conventions(study) or QRAPP  # no conventions: made with the default
        settings = _settings(study)
        if settings["key"] in config:
            raise QRAInputError(f"export: two studies have the key {settings['key']!r}")
        config[settings["key"]] = _config_entry(study, conventions, resolved_scale=False)
        order = {e.id: i for i, e in enumerate(study.experiments)}
        qcs = {q.name: i for i, q in enumerate(study.quality_criteria)}
        systems = {s: i for i, s in enumerate(study.systems)}
        for (qc, system, experiment), value in sorted(study.scores.items(),
                                                      key=lambda kv: (qcs[kv[0][0]], order[kv[0][2]], systems[kv[0][1]])):
            writer.writerow([settings["key"], study.id, experiment, system, qc, repr(float(value))])
    return out.getvalue(), config


def export_files(studies: list[Study], out_dir: str | os.PathLike, *, force: bool = False) -> list[Path]:
    """Write ``out_dir/metrics.csv`` and ``out_dir/config.json`` (refusing to overwrite unless ``force``)."""
    from .io import atomic_write_text

    text, config = export(studies)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise QRAInputError(f"{out}: --out-dir is a file, not a folder")
    targets = [out / "metrics.csv", out / "config.json"]
    if not force:
        for target in targets:
            if target.exists():
                raise QRAInputError(f"{target}: exists; use --force to overwrite")
    try:
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(targets[0], text)
        atomic_write_text(targets[1], json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    except OSError as error:
        raise QRAInputError(f"{out}: cannot write ({error.strerror or error})") from None
    return targets

