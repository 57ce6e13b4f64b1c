"""The grammar of an annotation spec's keys: which keys each object takes, the shape of an
experiment entry (:func:`check_entry`), and the system values an entry reports directly
(``scores``: :func:`reported_scores`).

Every object of a spec is checked for unknown keys (:func:`check_keys`): a misspelt key is
an error that suggests the nearest known one.  The layouts themselves are described in
:mod:`qra_widgets.io.layouts`.
"""

from __future__ import annotations

import difflib
from typing import Any

import numpy as np

from ..errors import QRAInputError
from ..limits import shown as _shown  # the one quoting rule for values from users' files and specs
from .reading import require as _require

LAYOUTS = ("long", "wide", "pairwise", "best_worst", "items_in_columns")
PAIRWISE_SCORES = ("preference", "win_rate", "bradley_terry")
TIE_RULES = ("half", "exclude")
BEST_WORST_BY = ("system", "position")
AGREEMENT_CODINGS = ("system", "position")
OUTCOMES = ("a", "b", "tie")
JOIN = "/"  # several key columns are joined into one key: ["dataset", "ix"] -> "qqp/375"

TOP_KEYS = (
    "schema",
    "version",
    "id",
    "name",
    "description",
    "quality_criteria",
    "systems",
    "missing",
    "aggregation",
    "conventions",
    "agreement_coding",
    "values",
    "choices",
    "experiments",
)
CRITERION_KEYS = ("name", "scale_min", "scale_max", "qcet_id", "label_level", "description", "evaluation_type")
EXPERIMENT_KEYS = (
    "id",
    "role",
    "label",
    "team",
    "date",
    "file",
    "files",
    "sheet",
    "layout",
    "columns",
    "items",
    "rows",
    "exclude",
    "optional_exclude",
    "systems",
    "values",
    "choices",
    "score",
    "ties",
    "best_worst_by",
    "agreement_coding",
    "criteria",
    "scores",
    "format",
    "delimiter",
    "records",
    "explode",
)
FORMATS = ("csv", "xlsx", "json", "jsonl")
DELIMITERS = (",", ";", "\t", "auto")
#: the file extensions that set ``format`` (and a tab delimiter) when the entry does not say
FORMAT_OF_SUFFIX = {
    ".jsonl": ("jsonl", None),
    ".json": ("json", None),
    ".xlsx": ("xlsx", None),
    ".xlsm": ("xlsx", None),
    ".tsv": ("csv", "\t"),
    ".tab": ("csv", "\t"),
}
KEY_REFS = ("constant", "row", "index", "key")  # {"constant": V}, {"row": true}, {"index": FIELD}, {"key": true}
FROM_EXPERIMENT_KEYS = ("from_experiment", "by")
RATERS_KEYS = ("raters",)
KEY_ROLES = ("system", "item", "rater", "criterion", "system_a", "system_b")  # roles a files entry may fix
SCORES_EXPERIMENT_KEYS = ("id", "role", "label", "team", "date", "scores")
COLUMN_KEYS = {
    "long": ("system", "item", "rater", "criterion", "rating", "criteria"),
    "wide": ("system", "item", "rater", "criteria"),
    "pairwise": ("item", "rater", "system_a", "system_b", "choice", "criteria"),
    "best_worst": ("item", "rater", "shown", "best", "worst", "criteria"),
    "items_in_columns": ("rater",),
}
ITEM_KEYS = ("column", "item", "system", "system_a", "system_b", "criterion")
SCORE_VALUE_KEYS = ("value", "se", "n")
BEST_WORST_KEYS = ("best", "worst")


def check_keys(data: dict, known, where: str) -> None:
    """Refuse a key that is not in ``known``, suggesting the nearest known one (difflib).

    >>> check_keys({"id": "x", "layuot": "long"}, EXPERIMENT_KEYS, "experiments[0]")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: experiments[0]: unknown key 'layuot'; did you mean 'layout'?
    """
    for key in data:
        if key in known:
            continue
        close = difflib.get_close_matches(str(key), list(known), n=1, cutoff=0.6)
        hint = f"did you mean {_shown(close[0])}?" if close else f"known keys: {', '.join(known)}"
        raise QRAInputError(f"{where}: unknown key {_shown(key)}; {hint}")


def _is_column_ref(value: Any) -> bool:
    return (isinstance(value, str) and value != "") or (
        isinstance(value, int) and not isinstance(value, bool) and value >= 1
    )


def is_key_ref(value: Any) -> bool:
    """Whether ``value`` is a key column given by a rule rather than a column: ``{"constant": V}``,
    ``{"row": true}``, ``{"index": FIELD}`` or ``{"key": true}`` (checked by :func:`_check_ref`)."""
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in KEY_REFS


def _check_key_ref(value: dict, where: str) -> None:
    ((kind, arg),) = value.items()
    if kind == "constant" and not (isinstance(arg, (str, int, float)) and not isinstance(arg, bool) and str(arg) != ""):
        raise QRAInputError(f"{where}.constant: expected a text or a number, got {_shown(arg)}")
    if kind == "row" and arg is not True:
        raise QRAInputError(f"{where}.row: expected true (the 1-based data row of the file), got {_shown(arg)}")
    if kind == "key" and arg is not True:
        raise QRAInputError(f"{where}.key: expected true (the key of each record of a JSON object), got {_shown(arg)}")
    if kind == "index" and not (isinstance(arg, str) and arg):
        raise QRAInputError(
            f'{where}.index: expected the dotted path of the exploded list ("explode"), got {_shown(arg)}'
        )


def _check_ref(value: Any, where: str, several: bool = False, key: bool = False) -> None:
    """A column reference; with ``key`` (a key column: system, item, rater, ...) also
    ``{"constant": V}``, ``{"row": true}`` or ``{"index": FIELD}``."""
    if key and isinstance(value, dict):
        if len(value) != 1 or next(iter(value)) not in KEY_REFS:
            check_keys(value, KEY_REFS, where)
            raise QRAInputError(f"{where}: give exactly one of {', '.join(KEY_REFS)}")
        _check_key_ref(value, where)
        return
    if (
        several
        and isinstance(value, list)
        and value
        and all(_is_column_ref(v) or (key and is_key_ref(v)) for v in value)
    ):
        for i, v in enumerate(value):
            if isinstance(v, dict):
                _check_key_ref(v, f"{where}[{i}]")
        return
    if not _is_column_ref(value):
        what = (
            "a column name, a 1-based column position, or a list of them"
            if several
            else "a column name or a 1-based column position"
        )
        if key:
            what += ', or {"constant": V}, {"row": true}, {"index": FIELD}, {"key": true}'
        raise QRAInputError(f"{where}: expected {what}, got {_shown(value)}")


def raters_map(value: Any) -> dict | None:
    """A criterion's ``{"raters": {RATER_ID: COLUMN}}`` mapping's raters, or None for a plain column."""
    return value["raters"] if isinstance(value, dict) and "raters" in value else None


def _check_raters(value: Any, where: str, allow_empty: bool = False) -> None:
    if not isinstance(value, dict) or (not value and not allow_empty):
        raise QRAInputError(f"{where}: expected {{RATER_ID: column, ...}} (one column per rater)")
    for rater, ref in value.items():
        _check_ref(ref, f"{where}.{rater}")


def _check_from_experiment(value: dict, where: str) -> None:
    check_keys(value, FROM_EXPERIMENT_KEYS, where)
    _require(value, "from_experiment", str, where)
    if value.get("by") != "item":
        raise QRAInputError(
            f'{where}.by: only "item" is supported (each row takes the system of the other '
            f"experiment's row with the same item), got {_shown(value.get('by'))}"
        )


def file_entries(entry: dict) -> list[dict]:
    """An entry's files as objects: ``{"file": name}`` plus the file's constants (and ``raters``)."""
    names = entry.get("files") or [entry["file"]]
    return [dict(f) if isinstance(f, dict) else {"file": f} for f in names]


def file_name(file_entry: str | dict) -> str:
    return file_entry["file"] if isinstance(file_entry, dict) else file_entry


def _check_file_entry(value: Any, where: str, layout: str) -> None:
    if isinstance(value, str) and value:
        return
    if not isinstance(value, dict):
        raise QRAInputError(f'{where}: expected a file name or {{"file": name, <key column>: constant, ...}}')
    check_keys(value, ("file",) + RATERS_KEYS + tuple(r for r in KEY_ROLES if r in COLUMN_KEYS[layout]), where)
    if not (isinstance(value.get("file"), str) and value["file"]):
        raise QRAInputError(f"{where}: missing field 'file' (the file's name)")
    for role, constant in value.items():
        if role in KEY_ROLES:
            _check_key_ref({"constant": constant}, f"{where}.{role}")
    if "raters" in value:
        if layout != "wide":
            raise QRAInputError(f"{where}.raters: raters in columns are read in the wide layout only")
        _check_raters(value["raters"], f"{where}.raters")


def _check_map(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise QRAInputError(f"{where}: expected an object mapping column names to lists of values")
    for column, wanted in value.items():
        if not isinstance(wanted, (list, str, int, float)) or isinstance(wanted, bool):
            raise QRAInputError(f"{where}.{column}: expected a value or a list of values")
    return value


def entry_layout(entry: dict) -> str:
    """An entry's layout: ``layout``, else ``long`` when its columns name a rating column, else ``wide``."""
    if "layout" in entry:
        return entry["layout"]
    columns = entry.get("columns") if isinstance(entry.get("columns"), dict) else {}
    return "long" if ("rating" in columns or "criterion" in columns) else "wide"


def check_entry(entry: Any, where: str, criteria: list[str]) -> None:
    """Check one experiment entry's shape (not its files): keys, layout, columns, maps."""
    if not isinstance(entry, dict):
        raise QRAInputError(f"{where}: expected an object")
    _require(entry, "id", str, where)
    for key in ("label", "team", "role"):
        _require(entry, key, str, where, default="")
    if "scores" in entry:
        check_keys(entry, SCORES_EXPERIMENT_KEYS, where + " (an experiment given by its system values)")
        _check_scores(entry["scores"], f"{where}.scores", criteria)
        return
    check_keys(entry, EXPERIMENT_KEYS, where)
    if ("file" in entry) == ("files" in entry):
        raise QRAInputError(
            f"{where}: give either 'file' or 'files' (a list of files that together make the "
            f"experiment), or 'scores' for an experiment known only by its system values"
        )
    layout = entry_layout(entry)
    if layout not in LAYOUTS:
        close = difflib.get_close_matches(str(layout), LAYOUTS, n=1)
        raise QRAInputError(
            f"{where}.layout: {_shown(layout)} is not one of {', '.join(LAYOUTS)}"
            + (f"; did you mean {_shown(close[0])}?" if close else "")
        )
    if "file" in entry:
        _require(entry, "file", str, where)
    else:
        files = _require(entry, "files", list, where)
        if not files:
            raise QRAInputError(f"{where}.files: expected a non-empty list of file names")
        for i, f in enumerate(files):
            _check_file_entry(f, f"{where}.files[{i}]", layout)
    _check_format(entry, where)
    columns = _require(entry, "columns", dict, where, default={} if layout == "items_in_columns" else ...)
    check_keys(columns, COLUMN_KEYS[layout], f"{where}.columns")
    cw = f"{where}.columns"
    if layout in ("long", "wide"):
        if "system" in columns:  # omitted: every row belongs to the single system "all"
            if isinstance(columns["system"], dict) and "from_experiment" in columns["system"]:
                _check_from_experiment(columns["system"], f"{cw}.system")
            else:
                _require(columns, "system", (str, int, list, dict), cw)
                _check_ref(columns["system"], f"{cw}.system", several=True, key=True)
        _require(columns, "item", (str, int, list, dict), cw)
        _check_ref(columns["item"], f"{cw}.item", several=True, key=True)
        if layout == "long":
            for role in ("criterion", "rating"):
                _require(columns, role, (str, int, dict) if role == "criterion" else (str, int), cw)
                _check_ref(columns[role], f"{cw}.{role}", key=role == "criterion")
            if "criteria" in columns:
                _require(columns, "criteria", dict, cw)
        else:
            per_file = "files" in entry and all(isinstance(f, dict) and "raters" in f for f in entry["files"])
            mapped = _require(columns, "criteria", dict, cw, default={} if per_file else ...)
            for name, ref in mapped.items():
                if isinstance(ref, dict):
                    check_keys(ref, RATERS_KEYS, f"{cw}.criteria.{name}")
                    _check_raters(ref.get("raters"), f"{cw}.criteria.{name}.raters")
                else:
                    _check_ref(ref, f"{cw}.criteria.{name}")
            in_columns = (
                per_file
                or any(isinstance(ref, dict) for ref in mapped.values())
                or any(isinstance(f, dict) and "raters" in f for f in entry.get("files") or [])
            )
            if in_columns and "rater" in columns:
                raise QRAInputError(f'{cw}.rater: raters are in columns ("raters"); omit columns.rater')
    elif layout == "pairwise":
        _require(columns, "item", (str, int, list, dict), cw)
        _check_ref(columns["item"], f"{cw}.item", several=True, key=True)
        for role in ("system_a", "system_b"):
            _require(columns, role, (str, int), cw)
            _check_ref(columns[role], f"{cw}.{role}")
        if ("choice" in columns) == ("criteria" in columns):
            raise QRAInputError(
                f"{cw}: give 'choice' (the choice column of the one criterion) or 'criteria' "
                f"(each criterion's choice column)"
            )
        for name, ref in (columns.get("criteria") or {"choice": columns.get("choice")}).items():
            _check_ref(ref, f"{cw}.criteria.{name}" if "criteria" in columns else f"{cw}.choice")
        score = _require(entry, "score", str, where, default="preference")
        if score not in PAIRWISE_SCORES:
            raise QRAInputError(f"{where}.score: must be one of {', '.join(PAIRWISE_SCORES)}, got {_shown(score)}")
        ties = _require(entry, "ties", str, where, default="half")
        if ties not in TIE_RULES:
            raise QRAInputError(f"{where}.ties: must be one of {', '.join(TIE_RULES)}, got {_shown(ties)}")
    elif layout == "best_worst":
        _require(columns, "item", (str, int, list, dict), cw)
        _check_ref(columns["item"], f"{cw}.item", several=True, key=True)
        shown = _require(columns, "shown", list, cw)
        if len(shown) < 2:
            raise QRAInputError(f"{cw}.shown: expected the columns of the two or more systems shown")
        for i, ref in enumerate(shown):
            _check_ref(ref, f"{cw}.shown[{i}]")
        if "criteria" in columns:
            if "best" in columns or "worst" in columns:
                raise QRAInputError(
                    f"{cw}: give 'best' and 'worst' (one criterion) or 'criteria' "
                    f'({{criterion: {{"best": column, "worst": column}}}}), not both'
                )
            for name, pair in _require(columns, "criteria", dict, cw).items():
                if not isinstance(pair, dict):
                    raise QRAInputError(f'{cw}.criteria.{name}: expected {{"best": column, "worst": column}}')
                check_keys(pair, BEST_WORST_KEYS, f"{cw}.criteria.{name}")
                for role in BEST_WORST_KEYS:
                    _require(pair, role, (str, int), f"{cw}.criteria.{name}")
                    _check_ref(pair[role], f"{cw}.criteria.{name}.{role}")
        else:
            for role in BEST_WORST_KEYS:
                _require(columns, role, (str, int), cw)
                _check_ref(columns[role], f"{cw}.{role}")
        by = _require(entry, "best_worst_by", str, where, default="system")
        if by not in BEST_WORST_BY:
            raise QRAInputError(f"{where}.best_worst_by: must be one of {', '.join(BEST_WORST_BY)}, got {_shown(by)}")
    else:  # items_in_columns
        items = _require(entry, "items", list, where)
        if not items:
            raise QRAInputError(f"{where}.items: is empty")
        for i, item in enumerate(items):
            iw = f"{where}.items[{i}]"
            if not isinstance(item, dict):
                raise QRAInputError(f"{iw}: expected an object")
            check_keys(item, ITEM_KEYS, iw)
            _require(item, "column", (str, int), iw)
            _check_ref(item["column"], f"{iw}.column")
            pair = "system_a" in item or "system_b" in item
            if pair:
                for role in ("system_a", "system_b"):
                    _require(item, role, str, iw)
                if "system" in item:
                    raise QRAInputError(f"{iw}: give 'system' (a rating) or 'system_a' and 'system_b' (a comparison)")
            elif "system" not in item:
                raise QRAInputError(
                    f"{iw}: missing field 'system' (the system this item rates); a study without "
                    f'systems gives every item the same one, e.g. "system": "all"'
                )
            else:
                _require(item, "system", str, iw)
            _require(item, "item", (str, int), iw, default="")
            _require(item, "criterion", str, iw, default="")
        if "rater" in columns:
            _check_ref(columns["rater"], f"{cw}.rater", several=True, key=True)
        score = _require(entry, "score", str, where, default="preference")
        if score not in PAIRWISE_SCORES:
            raise QRAInputError(f"{where}.score: must be one of {', '.join(PAIRWISE_SCORES)}, got {_shown(score)}")
    if "rater" in columns and layout != "items_in_columns":
        _check_ref(columns["rater"], f"{cw}.rater", several=True, key=True)
    for key in ("rows", "exclude", "optional_exclude"):
        if key in entry:
            _check_map(entry[key], f"{where}.{key}")
    for key in ("values", "choices", "systems"):
        if key in entry:
            _require(entry, key, dict, where)
    if "criteria" in entry:
        rated = _require(entry, "criteria", list, where)
        unknown = [c for c in rated if c not in criteria]
        if unknown:
            raise QRAInputError(
                f"{where}.criteria: {_shown(unknown[0])} is not a quality criterion of the spec"
                + _suggest(unknown[0], criteria)
            )
    coding = _require(entry, "agreement_coding", str, where, default="system")
    if coding not in AGREEMENT_CODINGS:
        raise QRAInputError(
            f"{where}.agreement_coding: must be one of {', '.join(AGREEMENT_CODINGS)}, got {_shown(coding)}"
        )


def _check_format(entry: dict, where: str) -> None:
    fmt = _require(entry, "format", str, where, default=None)
    if fmt is not None and fmt not in FORMATS:
        raise QRAInputError(
            f"{where}.format: must be one of {', '.join(FORMATS)}, got {_shown(fmt)}" + _suggest(fmt, FORMATS)
        )
    delimiter = _require(entry, "delimiter", str, where, default=None)
    if delimiter is not None and delimiter not in DELIMITERS:
        raise QRAInputError(
            f"{where}.delimiter: must be one of {', '.join(map(repr, DELIMITERS))}, got {_shown(delimiter)}"
        )
    for key in ("records", "explode"):
        if _require(entry, key, str, where, default="") == "" and key in entry:
            raise QRAInputError(f"{where}.{key}: expected a dotted path, got an empty text")
    if "sheet" in entry:
        _require(entry, "sheet", (str, int), where)


def _suggest(name: Any, known) -> str:
    close = difflib.get_close_matches(str(name), [str(k) for k in known], n=1, cutoff=0.6)
    return f"; did you mean {_shown(close[0])}?" if close else f" ({', '.join(map(str, known))})"


def _check_scores(scores: Any, where: str, criteria: list[str]) -> None:
    if not isinstance(scores, dict) or not scores:
        raise QRAInputError(f"{where}: expected {{criterion: {{system: value}}}}")
    for qc, values in scores.items():
        if qc not in criteria:
            raise QRAInputError(
                f"{where}: {_shown(qc)} is not a quality criterion of the spec" + _suggest(qc, criteria)
            )
        if not isinstance(values, dict) or not values:
            raise QRAInputError(f"{where}.{qc}: expected {{system: value}}")
        for system, value in values.items():
            _score_value(value, f"{where}.{qc}.{system}")


def _score_value(value: Any, where: str) -> tuple[float, dict]:
    """A reported system value: a number, or ``{"value": v, "se": s, "n": n}``."""

    def number(x, what):
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not np.isfinite(x):
            raise QRAInputError(f"{where}{what}: expected a finite number, got {_shown(x)}")
        return float(x)

    if isinstance(value, dict):
        check_keys(value, SCORE_VALUE_KEYS, where)
        if "value" not in value:
            raise QRAInputError(f"{where}: missing field 'value'")
        extra = {}
        if value.get("se") is not None:
            extra["se"] = number(value["se"], ".se")
            if extra["se"] < 0:
                raise QRAInputError(f"{where}.se: must not be negative, got {value['se']}")
        if value.get("n") is not None:
            n = value["n"]
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise QRAInputError(f"{where}.n: expected a positive whole number, got {_shown(n)}")
            extra["n"] = n
        return number(value["value"], ".value"), extra
    return number(value, ""), {}


def reported_scores(entry: dict) -> tuple[dict, dict]:
    """``({(criterion, system): value}, {(criterion, system): {"se": ..., "n": ...}})`` of a ``scores`` entry."""
    values, extras = {}, {}
    for qc, systems in entry["scores"].items():
        for system, value in systems.items():
            v, extra = _score_value(value, f"{entry['id']}.scores.{qc}.{system}")
            values[(qc, str(system))] = v
            if extra:
                extras[(qc, str(system))] = extra
    return values, extras
