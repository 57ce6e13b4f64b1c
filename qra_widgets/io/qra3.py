"""QRA3 input: the organisers' ``metrics.csv`` + ``config.json`` read into studies.

How QRA3 computes is :mod:`qra_widgets.qra3`; its output files are :mod:`qra_widgets.report.qra3`.
"""

from __future__ import annotations

import io as _io
import json
import math
import os
import re
from pathlib import Path
from typing import Any

from ..conventions import QRA3, Conventions, stored_conventions
from ..errors import QRAInputError
from ..study import Experiment, QualityCriterion, Study
from .reading import check_size, decode, load_json, read_bytes

METRICS_COLUMNS = ("Key", "Study", "Experiment", "System", "Criterion", "Result")
OUTPUT_FILES = ("table.csv", "table.tex", "data.json", "references.bib", "config.json")
AGREEMENT_METHODS = {
    "auto": ("alpha",),
    "krippendorff": ("alpha",),
    "alpha": ("alpha",),
    "fleiss": ("fleiss_kappa",),
    "fleiss_kappa": ("fleiss_kappa",),
}
ALPHA_MODES = ("nominal", "ordinal", "interval", "ratio")
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}
_CONVENTIONS_KEY = "conventions"
QRA3_KEY = "qra3"


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
        known = {
            "scale_starts_at",
            "type_iii_agreement_method",
            "type_iii_krippendorff_alpha_mode",
            "type_iii_ordinal_labels",
            "experiments",
            "citation",
            "criteria",
        }
        unknown = sorted(set(entry) - known)
        if unknown:
            raise QRAInputError(
                f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; QRA3 configs use {', '.join(sorted(known))}"
            )
        if "scale_starts_at" in entry:
            _expect(entry["scale_starts_at"], float, f"{where}.scale_starts_at", "a number")
        method = entry.get("type_iii_agreement_method", "auto")
        if method not in AGREEMENT_METHODS:
            raise QRAInputError(
                f"{where}.type_iii_agreement_method: must be one of {', '.join(AGREEMENT_METHODS)}, got {method!r}"
            )
        mode = entry.get("type_iii_krippendorff_alpha_mode")
        if mode is not None and mode not in ALPHA_MODES:
            raise QRAInputError(
                f"{where}.type_iii_krippendorff_alpha_mode: must be one of {', '.join(ALPHA_MODES)}, got {mode!r}"
            )
        if "type_iii_ordinal_labels" in entry:
            _expect(entry["type_iii_ordinal_labels"], list, f"{where}.type_iii_ordinal_labels", "a list")
            for i, label in enumerate(entry["type_iii_ordinal_labels"]):
                if isinstance(label, bool) or not isinstance(label, (str, int, float)):
                    raise QRAInputError(
                        f"{where}.type_iii_ordinal_labels[{i}]: must be a text or number, got {label!r}"
                    )
        experiments = _expect(
            entry.get("experiments", {}), dict, f"{where}.experiments", "an object (experiment id -> citation)"
        )
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

    from .reading import check_line_lengths, shown

    if "\x00" in text:
        raise QRAInputError(
            f"{source}: line {text.count(chr(10), 0, text.find(chr(0))) + 1} has a NUL byte; a name cannot hold one"
        )
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
        frame = pd.read_csv(
            _io.StringIO(text), dtype=str, keep_default_na=False, skipinitialspace=True, index_col=False
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise QRAInputError(f"{source}: is not a readable CSV table ({str(error).strip()})") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in METRICS_COLUMNS if c not in frame.columns]
    if missing:
        raise QRAInputError(
            f"{source}: missing column(s) {', '.join(missing)}; QRA3 metrics need {','.join(METRICS_COLUMNS)}"
        )
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
        raise QRAInputError(
            f"{source}: row {row['row']}: a second Result for {row['Study']} / {row['Experiment']} / "
            f"{row['System']} / {row['Criterion']}"
        )
    return frame


def conventions_for(entry: dict, where: str = "config.json") -> Conventions:
    """The :class:`Conventions` one QRA3 config entry asks for (the ``qra3`` preset, adjusted)."""
    flags = {abbr: settings.get("apply_over_correction", False) for abbr, settings in entry.get("criteria", {}).items()}
    if len(set(flags.values())) > 1:
        raise QRAInputError(
            f"{where}.criteria: apply_over_correction differs between criteria "
            f"({', '.join(f'{k}: {str(v).lower()}' for k, v in flags.items())}); "
            "qra-widgets applies one CV* convention per study"
        )
    changes: dict[str, Any] = {}
    if flags and next(iter(flags.values())) != QRA3.small_sample_factor:
        changes["small_sample_factor"] = next(iter(flags.values()))
    many = AGREEMENT_METHODS[entry.get("type_iii_agreement_method", "auto")]
    if many != QRA3.agreement_many:
        changes["agreement_many"] = many
    return QRA3.replace(**changes) if changes else QRA3


def read_qra3_bytes(
    metrics: bytes,
    config: bytes,
    *,
    metrics_name: str = "metrics.csv",
    config_name: str = "config.json",
    krippendorff_alpha_mode: str | None = None,
) -> list[Study]:
    """:func:`read_qra3` for uploaded files: their bytes and names (the app's "Import QRA3 files").

    >>> metrics = b"Key,Study,Experiment,System,Criterion,Result\\nDemo,Demo,O,A,Fluency,4.2\\nDemo,Demo,R1,A,Fluency,4.0\\n"
    >>> config = b'{"Demo": {"experiments": {"O": "o", "R1": "r"}, "criteria": {"F": {"map": "Fluency"}}}}'
    >>> [(s.id, s.experiment_ids) for s in read_qra3_bytes(metrics, config)]
    [('Demo', ['O', 'R1'])]
    """
    check_size(len(metrics), metrics_name)
    check_size(len(config), config_name)
    return _studies(
        metrics_from_text(decode(metrics, metrics_name), metrics_name),
        check_config(load_json(config, config_name), config_name),
        metrics_name,
        config_name,
        krippendorff_alpha_mode,
    )


def read_qra3(
    metrics_csv: str | os.PathLike, config_json: str | os.PathLike, *, krippendorff_alpha_mode: str | None = None
) -> list[Study]:
    """Read QRA3's ``metrics.csv`` + ``config.json``: one :class:`Study` per ``Study`` value.

    Each study carries its conventions (:func:`study_conventions`; ``assess(study)`` uses
    them) and its QRA3 settings in ``study.metadata["qra3"]`` (key, citations, criterion
    abbreviations, ``normal_data``...), so :func:`export` and :func:`write_outputs` give
    the files back.  Malformed input raises :class:`QRAInputError` naming the file, row,
    column or key.

    Parameters
    ----------
    metrics_csv : str or os.PathLike
        QRA3's ``metrics.csv`` (Key, Study, Experiment, System, Criterion, Result).
    config_json : str or os.PathLike
        QRA3's ``config.json`` (the settings of each study).
    krippendorff_alpha_mode : {"nominal", "ordinal", "interval", "ratio"}, optional
        Krippendorff's alpha level for Type III results; default: the config's
        ``type_iii_krippendorff_alpha_mode``.

    Returns
    -------
    list of Study
        One study per ``Study`` value, in the order they first appear in ``metrics.csv``.

    Examples
    --------

    >>> studies = read_qra3("tests/data/qra3_small/metrics.csv", "tests/data/qra3_small/config.json")  # made-up numbers
    >>> [(s.id, s.experiment_ids, s.systems, s.qc_names) for s in studies]
    [('Demo', ['O', 'R1', 'R2'], ['A', 'B', 'C'], ['Fluency'])]
    >>> study_conventions(studies[0]).describe()
    'qra3'
    """
    metrics_path, config_path = Path(metrics_csv), Path(config_json)
    return _studies(
        read_metrics(metrics_path),
        read_config(config_path),
        metrics_path.name,
        config_path.name,
        krippendorff_alpha_mode,
    )


def _studies(
    frame, config: dict, metrics_name: str, config_name: str, krippendorff_alpha_mode: str | None
) -> list[Study]:
    if krippendorff_alpha_mode is not None and krippendorff_alpha_mode not in ALPHA_MODES:
        raise QRAInputError(
            f"--krippendorff-alpha-mode: must be one of {', '.join(ALPHA_MODES)}, got {krippendorff_alpha_mode!r}"
        )
    studies = []
    for study_id in dict.fromkeys(frame["Study"]):
        rows = frame[frame["Study"] == study_id]
        studies.append(_study(rows, study_id, config, metrics_name, config_name, krippendorff_alpha_mode))
    return studies


def _study(rows, study_id: str, config: dict, source: str, config_source: str, alpha_mode: str | None) -> Study:
    keys = list(dict.fromkeys(rows["Key"]))
    if len(keys) > 1:
        row = rows[rows["Key"] != keys[0]].iloc[0]
        raise QRAInputError(
            f"{source}: row {row['row']}, column Key: study {study_id!r} has two keys ({keys[0]!r}, {keys[1]!r})"
        )
    key = keys[0]
    config_key = study_id if study_id in config else key
    if config_key not in config:
        raise QRAInputError(
            f"{config_source}: has no entry for study {study_id!r} ({source} row {rows['row'].iloc[0]}, column Study)"
        )
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
            raise QRAInputError(
                f"{at}, column Criterion: {row['Criterion']!r} is not mapped by {where}.criteria "
                f"(maps: {', '.join(map(repr, by_name)) or 'none'})"
            )
        if row["Experiment"] not in experiment_ids:
            raise QRAInputError(
                f"{at}, column Experiment: {row['Experiment']!r} is not in {where}.experiments "
                f"({', '.join(experiment_ids)})"
            )
        if name not in qcs:
            abbreviation = by_name[name]
            settings = criteria.get(abbreviation, {})
            scale = float(settings.get("scale_starts_at", study_scale))
            qcs[name] = QualityCriterion(name, scale_min=scale, label_level=level)
            abbreviations[name] = abbreviation
        qc = qcs[name]
        if row["Result"] < qc.scale_min:
            raise QRAInputError(
                f"{at}, column Result: {row['Result']} is below scale_starts_at {qc.scale_min:g} of {name!r}"
            )
        scores[(name, row["System"], row["Experiment"])] = row["Result"]
    used = {e for (_q, _s, e) in scores}
    present = [e for e in experiment_ids if e in used]  # in config order; the first is the original
    experiments = [Experiment(e, role="original" if i == 0 else "repeat") for i, e in enumerate(present)]
    settings = {
        "key": key,
        "citation": entry.get("citation", ""),
        "experiments": {e.id: cited.get(e.id, "") for e in experiments},
        "criteria": {
            name: {
                "abbreviation": abbreviations[name],
                "normal_data": criteria.get(abbreviations[name], {}).get("normal_data", True),
            }
            for name in qcs
        },
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
        id=study_id,
        name=study_id,
        quality_criteria=list(qcs.values()),
        systems=list(dict.fromkeys(rows["System"])),
        experiments=experiments,
        scores=scores,
        metadata={_CONVENTIONS_KEY: conventions.to_stored(), QRA3_KEY: settings},
    )


def study_conventions(study: Study) -> Conventions | None:
    """The conventions a study carries (its study file's ``conventions``), or ``None``."""
    return stored_conventions(study.metadata)
