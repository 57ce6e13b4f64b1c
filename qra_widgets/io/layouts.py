"""The layouts of an annotation spec: the grammar of its keys, and each layout's reader.

:mod:`qra_widgets.io.annotations` reads a spec's files (only through
:func:`~qra_widgets.io.annotations.spec_file_bytes`) and gives each experiment entry's table to
:func:`read_entry`, which turns it into a :class:`Part`: item-level ratings (one number per
system, item, rater and criterion, what :class:`~qra_widgets.ratings.Ratings` keeps) and,
for the pairwise and best-worst layouts, the raw judgements (one row per comparison shown
and rater), from which the system values and annotator agreement are computed.

Layouts (``"layout"`` of an experiment):

``long``
    one row per rating; ``columns.criterion`` holds the criterion, ``columns.rating`` the rating.
``wide``
    one row per rated output; ``columns.criteria`` maps each criterion to its column.
``pairwise``
    one row per judgement of two systems (``columns.system_a`` / ``system_b``); the choice
    column (``columns.choice``, or ``columns.criteria`` per criterion) holds ``a`` / ``b`` /
    ``tie`` after the ``choices`` map.  ``score``: ``preference`` (default), ``win_rate``
    (``ties``: ``half`` or ``exclude``) or ``bradley_terry``
    (:mod:`qra_widgets.measures.pairwise`).
``best_worst``
    one row per tuple shown (``columns.shown``, a list of columns); ``best`` and ``worst``
    hold a system name, or a 1-based position in ``shown`` with ``"best_worst_by":
    "position"``; value = 100 x (best - worst) / shown.
``items_in_columns``
    one row per rater (a form export), one column per item, named or by 1-based position
    (``items``: each says which system it rates, or which two systems it compares).

Every object of a spec is checked for unknown keys (:func:`check_keys`): a misspelt key is
an error that suggests the nearest known one.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import QRAInputError

LAYOUTS = ("long", "wide", "pairwise", "best_worst", "items_in_columns")
PAIRWISE_SCORES = ("preference", "win_rate", "bradley_terry")
TIE_RULES = ("half", "exclude")
BEST_WORST_BY = ("system", "position")
AGREEMENT_CODINGS = ("system", "position")
OUTCOMES = ("a", "b", "tie")
JOIN = "/"  # several key columns are joined into one key: ["dataset", "ix"] -> "qqp/375"

TOP_KEYS = ("schema", "version", "id", "name", "description", "quality_criteria", "systems", "missing",
            "aggregation", "conventions", "agreement_coding", "values", "choices", "experiments")
CRITERION_KEYS = ("name", "scale_min", "scale_max", "qcet_id", "label_level", "description", "evaluation_type")
EXPERIMENT_KEYS = ("id", "role", "label", "team", "date", "file", "files", "sheet", "layout", "columns", "items",
                   "rows", "exclude", "optional_exclude", "systems", "values", "choices", "score", "ties",
                   "best_worst_by", "agreement_coding", "criteria", "scores")
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


def _shown(value: Any) -> str:
    from .reading import shown  # one quoting rule for values from users' files and specs

    return shown(value)


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
        hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(known)}"
        raise QRAInputError(f"{where}: unknown key {_shown(key)}; {hint}")


def _is_column_ref(value: Any) -> bool:
    return (isinstance(value, str) and value != "") or (isinstance(value, int) and not isinstance(value, bool) and value >= 1)


def _check_ref(value: Any, where: str, several: bool = False) -> None:
    if several and isinstance(value, list) and value and all(_is_column_ref(v) for v in value):
        return
    if not _is_column_ref(value):
        what = "a column name, a 1-based column position, or a list of them" if several else \
            "a column name or a 1-based column position"
        raise QRAInputError(f"{where}: expected {what}, got {_shown(value)}")


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
    from .reading import require as _require

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
        raise QRAInputError(f"{where}: give either 'file' or 'files' (a list of files that together make the "
                            f"experiment), or 'scores' for an experiment known only by its system values")
    if "file" in entry:
        _require(entry, "file", str, where)
    else:
        files = _require(entry, "files", list, where)
        if not files or not all(isinstance(f, str) and f for f in files):
            raise QRAInputError(f"{where}.files: expected a non-empty list of file names")
    layout = entry_layout(entry)
    if layout not in LAYOUTS:
        close = difflib.get_close_matches(str(layout), LAYOUTS, n=1)
        raise QRAInputError(f"{where}.layout: {_shown(layout)} is not one of {', '.join(LAYOUTS)}"
                            + (f"; did you mean {close[0]!r}?" if close else ""))
    columns = _require(entry, "columns", dict, where, default={} if layout == "items_in_columns" else ...)
    check_keys(columns, COLUMN_KEYS[layout], f"{where}.columns")
    cw = f"{where}.columns"
    if layout in ("long", "wide"):
        for role in ("system", "item"):
            _require(columns, role, (str, int, list), cw)
            _check_ref(columns[role], f"{cw}.{role}", several=True)
        if layout == "long":
            for role in ("criterion", "rating"):
                _require(columns, role, (str, int), cw)
                _check_ref(columns[role], f"{cw}.{role}")
            if "criteria" in columns:
                _require(columns, "criteria", dict, cw)
        else:
            _require(columns, "criteria", dict, cw)
            for name, ref in columns["criteria"].items():
                _check_ref(ref, f"{cw}.criteria.{name}")
    elif layout == "pairwise":
        _require(columns, "item", (str, int, list), cw)
        _check_ref(columns["item"], f"{cw}.item", several=True)
        for role in ("system_a", "system_b"):
            _require(columns, role, (str, int), cw)
            _check_ref(columns[role], f"{cw}.{role}")
        if ("choice" in columns) == ("criteria" in columns):
            raise QRAInputError(f"{cw}: give 'choice' (the choice column of the one criterion) or 'criteria' "
                                f"(each criterion's choice column)")
        for name, ref in (columns.get("criteria") or {"choice": columns.get("choice")}).items():
            _check_ref(ref, f"{cw}.criteria.{name}" if "criteria" in columns else f"{cw}.choice")
        score = _require(entry, "score", str, where, default="preference")
        if score not in PAIRWISE_SCORES:
            raise QRAInputError(f"{where}.score: must be one of {', '.join(PAIRWISE_SCORES)}, got {_shown(score)}")
        ties = _require(entry, "ties", str, where, default="half")
        if ties not in TIE_RULES:
            raise QRAInputError(f"{where}.ties: must be one of {', '.join(TIE_RULES)}, got {_shown(ties)}")
    elif layout == "best_worst":
        _require(columns, "item", (str, int, list), cw)
        _check_ref(columns["item"], f"{cw}.item", several=True)
        shown = _require(columns, "shown", list, cw)
        if len(shown) < 2:
            raise QRAInputError(f"{cw}.shown: expected the columns of the two or more systems shown")
        for i, ref in enumerate(shown):
            _check_ref(ref, f"{cw}.shown[{i}]")
        if "criteria" in columns:
            if "best" in columns or "worst" in columns:
                raise QRAInputError(f"{cw}: give 'best' and 'worst' (one criterion) or 'criteria' "
                                    f"({{criterion: {{\"best\": column, \"worst\": column}}}}), not both")
            for name, pair in _require(columns, "criteria", dict, cw).items():
                if not isinstance(pair, dict):
                    raise QRAInputError(f"{cw}.criteria.{name}: expected {{\"best\": column, \"worst\": column}}")
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
            else:
                _require(item, "system", str, iw)
            _require(item, "item", (str, int), iw, default="")
            _require(item, "criterion", str, iw, default="")
        if "rater" in columns:
            _check_ref(columns["rater"], f"{cw}.rater", several=True)
        score = _require(entry, "score", str, where, default="preference")
        if score not in PAIRWISE_SCORES:
            raise QRAInputError(f"{where}.score: must be one of {', '.join(PAIRWISE_SCORES)}, got {_shown(score)}")
    if "rater" in columns and layout != "items_in_columns":
        _check_ref(columns["rater"], f"{cw}.rater", several=True)
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
            raise QRAInputError(f"{where}.criteria: {_shown(unknown[0])} is not a quality criterion of the spec"
                                + _suggest(unknown[0], criteria))
    coding = _require(entry, "agreement_coding", str, where, default="system")
    if coding not in AGREEMENT_CODINGS:
        raise QRAInputError(f"{where}.agreement_coding: must be one of {', '.join(AGREEMENT_CODINGS)}, got {_shown(coding)}")


def _suggest(name: Any, known) -> str:
    close = difflib.get_close_matches(str(name), [str(k) for k in known], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else f" ({', '.join(map(str, known))})"


def _check_scores(scores: Any, where: str, criteria: list[str]) -> None:
    if not isinstance(scores, dict) or not scores:
        raise QRAInputError(f"{where}: expected {{criterion: {{system: value}}}}")
    for qc, values in scores.items():
        if qc not in criteria:
            raise QRAInputError(f"{where}: {_shown(qc)} is not a quality criterion of the spec" + _suggest(qc, criteria))
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


# ----------------------------------------------------------------------------- tables


@dataclass
class Table:
    """One file's cells as text (``frame``), with the file's row number of each row."""

    frame: Any
    source: str
    rows: np.ndarray

    @classmethod
    def of(cls, frame, source: str) -> Table:
        return cls(frame, source, np.arange(len(frame)) + 2)  # the header is row 1

    def column(self, ref, role: str) -> np.ndarray:
        """A column's cells by name or 1-based position; several columns are joined with ``/``."""
        if isinstance(ref, list):
            parts = [self.column(r, role) for r in ref]
            joined = parts[0].astype(object)
            for part in parts[1:]:
                joined = np.array([f"{x}{JOIN}{y}" for x, y in zip(joined, part)], dtype=object)
            return joined
        return self.frame.iloc[:, self.position(ref, role)].to_numpy(dtype=object)

    def position(self, ref, role: str) -> int:
        names = list(self.frame.columns)
        if isinstance(ref, int) and not isinstance(ref, bool):
            if not 1 <= ref <= len(names):
                raise QRAInputError(f"{self.source}: {role} is column {ref}, but the file has {len(names)} columns")
            return ref - 1
        found = [i for i, name in enumerate(names) if name == ref]
        if not found:
            close = difflib.get_close_matches(str(ref), [str(n) for n in names], n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise QRAInputError(f"{self.source}: column {ref!r} is missing{hint}; found {names[:30]}")
        if len(found) > 1:
            raise QRAInputError(f"{self.source}: {len(found)} columns are named {_shown(ref)} (columns "
                                f"{', '.join(str(i + 1) for i in found)}); name the {role} column by its 1-based position")
        return found[0]

    def label(self, ref) -> str:
        """How a message names a column."""
        if isinstance(ref, list):
            return "+".join(self.label(r) for r in ref)
        if isinstance(ref, int) and not isinstance(ref, bool):
            return f"column {ref} ({_shown(self.frame.columns[ref - 1])})" if 1 <= ref <= len(self.frame.columns) \
                else f"column {ref}"
        return f"column {ref!r}"

    def keep(self, mask: np.ndarray) -> Table:
        return Table(self.frame[mask], self.source, self.rows[mask])


def select_rows(table: Table, entry: dict, *, optional: bool = False) -> Table:
    """Apply ``rows`` (keep a row when each listed column takes one of its values), then
    ``exclude`` (drop a row when any listed column takes one of its values), then, with
    ``optional``, ``optional_exclude`` too.  Keys are the file's column names."""
    def values_of(wanted):
        return [str(v) for v in (wanted if isinstance(wanted, list) else [wanted])]

    for key, keep in (("rows", True), ("exclude", False)) + ((("optional_exclude", False),) if optional else ()):
        for column, wanted in (entry.get(key) or {}).items():
            if column not in table.frame.columns:
                close = difflib.get_close_matches(str(column), [str(c) for c in table.frame.columns], n=1, cutoff=0.6)
                raise QRAInputError(f"{table.source}: column {column!r} (in {key}) is missing"
                                    + (f"; did you mean {close[0]!r}?" if close else f"; found {list(table.frame.columns)[:30]}"))
            cells = table.column(column, key)
            hit = np.isin(cells, np.array(values_of(wanted), dtype=object))
            table = table.keep(hit if keep else ~hit)
    return table


def check_optional_exclude(table: Table, entry: dict) -> None:
    """``optional_exclude`` is not applied by default, but its columns must exist."""
    for column in entry.get("optional_exclude") or {}:
        if column not in table.frame.columns:
            raise QRAInputError(f"{table.source}: column {column!r} (in optional_exclude) is missing; "
                                f"found {list(table.frame.columns)[:30]}")


# ----------------------------------------------------------------------------- what a layout gives


RATING_FIELDS = ("quality_criterion", "system", "item", "rater", "rating", "row", "column")
JUDGEMENT_FIELDS = ("quality_criterion", "unit", "rater", "system_a", "system_b", "outcome", "shown", "best", "worst",
                    "code_system", "code_position", "row")


@dataclass
class Part:
    """What one experiment entry gives: ratings (:data:`RATING_FIELDS`), and for the pairwise
    and best-worst layouts the judgements (:data:`JUDGEMENT_FIELDS`), with how each
    criterion's system values are computed from them (``rules``: criterion -> rule)."""

    ratings: dict[str, np.ndarray]
    judgements: list[dict] = field(default_factory=list)
    rules: dict[str, dict] = field(default_factory=dict)

    def criteria(self) -> list[str]:
        return list(dict.fromkeys(self.ratings["quality_criterion"].tolist()))


def _objects(values: list) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):  # element by element: a list of equal tuples would become 2-D
        array[i] = value
    return array


def _empty_ratings() -> dict[str, list]:
    return {name: [] for name in RATING_FIELDS}


def _merged(out: dict[str, list]) -> dict[str, np.ndarray]:
    return {k: (np.concatenate(v) if v else np.array([], dtype=float if k == "rating" else object)) for k, v in out.items()}


def _answers_found(cells: np.ndarray, limit: int = 20) -> str:
    import pandas as pd

    counts = pd.Series(cells, dtype=object).value_counts()
    shown = [f"{_shown(v)} ({n})" for v, n in counts.head(limit).items()]
    more = f" and {len(counts) - limit} more" if len(counts) > limit else ""
    return ", ".join(shown) + more


def _mapped(cells: np.ndarray, mapping: dict, table: Table, rows: np.ndarray, label: str, what: str) -> np.ndarray:
    """Each answer through ``mapping`` (``values`` or ``choices``); an unmapped answer is an
    error naming its row and listing every answer found in the column."""
    keys = {str(k): v for k, v in mapping.items()}
    known = np.isin(cells, np.array(list(keys), dtype=object))
    if not known.all():
        i = int(np.argmax(~known))
        raise QRAInputError(f"{table.source}: row {rows[i]}, {label}: answer {_shown(cells[i])} is not in the "
                            f"{what} map; the answers found are {_answers_found(cells)}")
    return np.array([keys[c] for c in cells], dtype=object)


def _system_names(cells: np.ndarray, names: dict) -> np.ndarray:
    return np.array([names.get(c, c) for c in cells], dtype=object)


def _present(cells: np.ndarray, missing: set) -> np.ndarray:
    return ~np.isin(cells, np.array(list(missing), dtype=object))


def _criterion_of_item(item: dict, criteria: list[str], where: str) -> str:
    name = item.get("criterion") or ""
    if not name:
        if len(criteria) != 1:
            raise QRAInputError(f"{where}: the spec has {len(criteria)} quality criteria; say which one this item "
                                f"rates ('criterion')")
        return criteria[0]
    if name not in criteria:
        raise QRAInputError(f"{where}.criterion: {_shown(name)} is not a quality criterion of the spec"
                            + _suggest(name, criteria))
    return name


# ----------------------------------------------------------------------------- ratings layouts (long, wide)


def read_ratings(table: Table, entry: dict, criteria: dict, systems_map: dict, missing: set,
                 values: dict | None) -> dict[str, np.ndarray]:
    """The ``long`` and ``wide`` layouts: ratings after every check (errors name file, row and column)."""
    import pandas as pd

    columns = entry["columns"]
    source = table.source
    system = _system_names(table.column(columns["system"], "system"), systems_map)
    item = table.column(columns["item"], "item")
    rater = (table.column(columns["rater"], "rater") if columns.get("rater")
             else np.array([f"{source} row {r}" for r in table.rows], dtype=object))
    for cells, ref in ((system, columns["system"]), (item, columns["item"])):
        empty = cells == ""
        if empty.any():
            raise QRAInputError(f"{source}: row {table.rows[np.argmax(empty)]}, {table.label(ref)} is empty")
    if entry_layout(entry) == "long":
        criterion_cells = table.column(columns["criterion"], "criterion")
        value_of = columns.get("criteria") or {name: name for name in criteria}
        criterion_of = {}
        for name, value in value_of.items():
            if name not in criteria:
                raise QRAInputError(f"{source}: columns.criteria names {_shown(name)}, not a quality criterion of the "
                                    f"spec" + _suggest(name, list(criteria)))
            criterion_of[str(value)] = name
        for value, name in criterion_of.items():
            if not (criterion_cells == value).any():
                raise QRAInputError(f"{source}: {table.label(columns['criterion'])} has no rows for quality criterion "
                                    f"{name!r} (value {value!r})")
        known = np.isin(criterion_cells, np.array(list(criterion_of), dtype=object))
        qc_names = np.array([criterion_of.get(c, "") for c in criterion_cells], dtype=object)
        blocks = [(qc_names[known], table.column(columns["rating"], "rating")[known], columns["rating"], known)]
    else:
        wanted = entry.get("criteria") or list(criteria)
        for name in columns["criteria"]:
            if name not in criteria:
                raise QRAInputError(f"{source}: columns.criteria names {_shown(name)}, not a quality criterion of the "
                                    f"spec" + _suggest(name, list(criteria)))
        for name in wanted:
            if name not in columns["criteria"]:
                raise QRAInputError(f"{source}: the spec gives no column for quality criterion {name!r} (columns.criteria)")
        blocks = [(np.full(len(table.frame), name, dtype=object), table.column(columns["criteria"][name], name),
                   columns["criteria"][name], np.ones(len(table.frame), dtype=bool)) for name in columns["criteria"]]
    out = _empty_ratings()
    for qc_names, raw, ref, rows in blocks:
        present = _present(raw, missing)
        at = table.rows[rows][present]
        cells = raw[present]
        if values is not None:
            numbers = _mapped(cells, values, table, at, table.label(ref), "values").astype(float)
        else:
            numbers = pd.to_numeric(pd.Series(cells, dtype=object), errors="coerce").to_numpy(dtype=float)
            bad = ~np.isfinite(numbers)
            if bad.any():
                i = int(np.argmax(bad))
                raise QRAInputError(f"{source}: row {at[i]}, {table.label(ref)}: {_shown(cells[i])} is not a number "
                                    f"(list it under \"missing\" if it marks a missing rating, or map answer texts to "
                                    f"numbers with \"values\"; the answers found are {_answers_found(cells)})")
        names = qc_names[present]
        for name in dict.fromkeys(names.tolist()):
            qc = criteria[name]
            mine = names == name
            outside = mine & ((numbers < qc.scale_min) | ((numbers > qc.scale_max) if qc.scale_max is not None else False))
            if outside.any():
                i = int(np.argmax(outside))
                raise QRAInputError(f"{source}: row {at[i]}, {table.label(ref)}: {numbers[i]:g} is outside the scale "
                                    f"{qc.scale_min:g}..{'' if qc.scale_max is None else f'{qc.scale_max:g}'} of {name!r}")
        out["quality_criterion"].append(names)
        out["system"].append(system[rows][present])
        out["item"].append(item[rows][present])
        out["rater"].append(rater[rows][present])
        out["rating"].append(numbers)
        out["row"].append(at)
        out["column"].append(np.full(len(at), table.label(ref), dtype=object))
    merged = _merged(out)
    check_items(merged, source, columns)
    return merged


def check_items(merged: dict, source: str, columns: dict) -> None:
    """An item is rated under one system, and a rater rates an item once per criterion."""
    import pandas as pd

    if not len(merged["rating"]):
        return
    frame = pd.DataFrame({k: merged[k] for k in ("quality_criterion", "system", "item", "rater", "row")})
    first_system = frame.groupby("item", sort=False).system.transform("first")
    clash = (frame.system != first_system).to_numpy()
    item_label = columns.get("item", "item")
    if clash.any():
        i = int(np.argmax(clash))
        earlier = int(frame.row[(frame["item"] == frame["item"].iat[i]) & (frame.system == first_system.iat[i])].iat[0])
        raise QRAInputError(f"{source}: row {frame.row.iat[i]}, column {item_label!r}: item {frame['item'].iat[i]!r} is "
                            f"rated under system {frame.system.iat[i]!r} here and {first_system.iat[i]!r} in row {earlier}")
    twice = frame.duplicated(["quality_criterion", "item", "rater"], keep="first").to_numpy()
    if twice.any() and columns.get("rater"):
        j = int(np.argmax(twice))
        same = ((frame.quality_criterion == frame.quality_criterion.iat[j]) & (frame["item"] == frame["item"].iat[j])
                & (frame.rater == frame.rater.iat[j])).to_numpy()
        i = int(np.argmax(same))
        files = merged.get("source")
        if files is not None and files[i] != files[j]:
            where = f"{files[i]} row {frame.row.iat[i]} and {files[j]} row {frame.row.iat[j]}"
        else:
            where = f"rows {frame.row.iat[i]} and {frame.row.iat[j]}"
        raise QRAInputError(f"{source}: {where}, column {columns['rater']!r}: rater {frame.rater.iat[i]!r} rates item "
                            f"{frame['item'].iat[i]!r} on {frame.quality_criterion.iat[i]!r} twice")


# ----------------------------------------------------------------------------- pairwise


def _pairwise_encoding(score: str, ties: str) -> tuple[dict[str, float], tuple[float, float]]:
    """Per outcome, the rating stored for the system (won / tie / lost), and the range of the values."""
    if score == "preference":
        return {"won": 100.0, "tie": 0.0, "lost": -100.0}, (-100.0, 100.0)
    return {"won": 100.0, "tie": 50.0, "lost": 0.0}, (0.0, 100.0)


def _check_range(qc, low: float, high: float, what: str, source: str) -> None:
    if qc.scale_min > low or (qc.scale_max is not None and qc.scale_max < high):
        raise QRAInputError(f"{source}: {what} gives values {low:g}..{high:g}, but quality criterion {qc.name!r} has the "
                            f"scale {qc.scale_min:g}..{'' if qc.scale_max is None else f'{qc.scale_max:g}'}; set its "
                            f"scale_min and scale_max to {low:g} and {high:g}")


def judgements_from(table: Table, *, qc: str, item: np.ndarray, rater: np.ndarray, system_a: np.ndarray,
                    system_b: np.ndarray, outcome: np.ndarray, rows: np.ndarray) -> dict:
    """Pairwise judgements as columns (:data:`JUDGEMENT_FIELDS`); unit = the item and the two systems shown."""
    same = system_a == system_b
    if same.any():
        i = int(np.argmax(same))
        raise QRAInputError(f"{table.source}: row {rows[i]}: compares system {_shown(system_a[i])} with itself")
    low = np.where(system_a.astype(str) <= system_b.astype(str), system_a, system_b)
    high = np.where(system_a.astype(str) <= system_b.astype(str), system_b, system_a)
    unit = np.array([f"{i} [{x} vs {y}]" for i, x, y in zip(item, low, high)], dtype=object)
    chosen = np.where(outcome == "a", system_a, np.where(outcome == "b", system_b, "tie"))
    n = len(unit)
    return {"quality_criterion": np.full(n, qc, dtype=object), "unit": unit, "rater": rater, "system_a": system_a,
            "system_b": system_b, "outcome": outcome, "shown": np.empty(n, dtype=object), "best": np.empty(n, dtype=object),
            "worst": np.empty(n, dtype=object), "code_system": chosen.astype(object), "code_position": outcome.astype(object),
            "row": rows}


def pairwise_ratings(j: dict, score: str, ties: str, column_label: str) -> dict[str, np.ndarray]:
    """The ratings a pairwise judgement gives each of its two systems (see :func:`_pairwise_encoding`);
    the item of a rating is the judgement's unit and the system (``unit|system``)."""
    points, _ = _pairwise_encoding(score, ties)
    keep = np.ones(len(j["unit"]), dtype=bool) if not (score == "win_rate" and ties == "exclude") else j["outcome"] != "tie"
    o = j["outcome"][keep]
    out = _empty_ratings()
    for side, other in (("system_a", "a"), ("system_b", "b")):
        won = np.where(o == other, points["won"], np.where(o == "tie", points["tie"], points["lost"]))
        systems = j[side][keep]
        out["quality_criterion"].append(j["quality_criterion"][keep])
        out["system"].append(systems)
        out["item"].append(np.array([f"{u}|{s}" for u, s in zip(j["unit"][keep], systems)], dtype=object))
        out["rater"].append(j["rater"][keep])
        out["rating"].append(won.astype(float))
        out["row"].append(j["row"][keep])
        out["column"].append(np.full(int(keep.sum()), column_label, dtype=object))
    return _merged(out)


def read_pairwise(table: Table, entry: dict, criteria: dict, systems_map: dict, missing: set,
                  choices: dict | None) -> Part:
    """The ``pairwise`` layout (see the module docstring)."""
    columns = entry["columns"]
    score, ties = entry.get("score", "preference"), entry.get("ties", "half")
    item = table.column(columns["item"], "item")
    rater = (table.column(columns["rater"], "rater") if columns.get("rater")
             else np.array([f"{table.source} row {r}" for r in table.rows], dtype=object))
    system_a = _system_names(table.column(columns["system_a"], "system_a"), systems_map)
    system_b = _system_names(table.column(columns["system_b"], "system_b"), systems_map)
    if "criteria" in columns:
        refs = dict(columns["criteria"])
    else:
        rated = entry.get("criteria") or list(criteria)
        if len(rated) != 1:
            raise QRAInputError(f"{table.source}: 'choice' is for one criterion; the spec has {len(rated)} — map each "
                                f"criterion to its choice column with columns.criteria")
        refs = {rated[0]: columns["choice"]}
    part = Part(_merged(_empty_ratings()))
    ratings = []
    for qc, ref in refs.items():
        if qc not in criteria:
            raise QRAInputError(f"{table.source}: columns.criteria names {_shown(qc)}, not a quality criterion of the spec"
                                + _suggest(qc, list(criteria)))
        _check_range(criteria[qc], *_pairwise_encoding(score, ties)[1], f"the pairwise score {score!r}", table.source)
        cells = table.column(ref, qc)
        present = _present(cells, missing)
        at = table.rows[present]
        answers = cells[present]
        outcome = (_mapped(answers, choices, table, at, table.label(ref), "choices") if choices is not None else answers)
        bad = ~np.isin(outcome, np.array(OUTCOMES, dtype=object))
        if bad.any():
            i = int(np.argmax(bad))
            raise QRAInputError(f"{table.source}: row {at[i]}, {table.label(ref)}: answer {_shown(answers[i])} is not "
                                f"a, b or tie; map the answers with \"choices\" (the answers found are "
                                f"{_answers_found(answers)})")
        j = judgements_from(table, qc=qc, item=item[present], rater=rater[present], system_a=system_a[present],
                            system_b=system_b[present], outcome=outcome.astype(object), rows=at)
        part.judgements.append(j)
        part.rules[qc] = {"layout": "pairwise", "score": score, "ties": ties}
        ratings.append(pairwise_ratings(j, score, ties, table.label(ref)))
    part.ratings = {k: np.concatenate([r[k] for r in ratings]) for k in RATING_FIELDS}
    check_items(part.ratings, table.source, {"item": "item", "rater": columns.get("rater")})
    return part


# ----------------------------------------------------------------------------- best-worst


def read_best_worst(table: Table, entry: dict, criteria: dict, systems_map: dict, missing: set,
                    choices: dict | None) -> Part:
    """The ``best_worst`` layout (see the module docstring)."""
    columns = entry["columns"]
    by = entry.get("best_worst_by", "system")
    item = table.column(columns["item"], "item")
    rater = (table.column(columns["rater"], "rater") if columns.get("rater")
             else np.array([f"{table.source} row {r}" for r in table.rows], dtype=object))
    shown = np.stack([_system_names(table.column(ref, "shown"), systems_map) for ref in columns["shown"]], axis=1)
    if "criteria" in columns:
        refs = {qc: (pair["best"], pair["worst"]) for qc, pair in columns["criteria"].items()}
    else:
        rated = entry.get("criteria") or list(criteria)
        if len(rated) != 1:
            raise QRAInputError(f"{table.source}: 'best' and 'worst' are for one criterion; the spec has {len(rated)} — "
                                f"map each criterion with columns.criteria")
        refs = {rated[0]: (columns["best"], columns["worst"])}
    part = Part(_merged(_empty_ratings()))
    ratings = []
    k = shown.shape[1]
    for qc, (best_ref, worst_ref) in refs.items():
        if qc not in criteria:
            raise QRAInputError(f"{table.source}: columns.criteria names {_shown(qc)}, not a quality criterion of the spec"
                                + _suggest(qc, list(criteria)))
        _check_range(criteria[qc], -100.0, 100.0, "best-worst scaling", table.source)
        best_cells, worst_cells = table.column(best_ref, "best"), table.column(worst_ref, "worst")
        present = _present(best_cells, missing) & _present(worst_cells, missing)
        at = table.rows[present]
        picked = []
        for ref, cells in ((best_ref, best_cells[present]), (worst_ref, worst_cells[present])):
            answer = _mapped(cells, choices, table, at, table.label(ref), "choices") if choices is not None else cells
            if by == "position":
                position = np.array([_position(a, k) for a in answer], dtype=float)
                bad = np.isnan(position)
                if bad.any():
                    i = int(np.argmax(bad))
                    raise QRAInputError(f"{table.source}: row {at[i]}, {table.label(ref)}: answer {_shown(cells[i])} is "
                                        f"not a position 1..{k} of the {k} systems shown (best_worst_by: position; map "
                                        f"answers with \"choices\"; the answers found are {_answers_found(cells)})")
                picked.append(position.astype(int) - 1)
            else:
                names = _system_names(answer.astype(str).astype(object), systems_map)
                rows_shown = shown[present]
                where = np.array([list(r).index(n) if n in r else -1 for r, n in zip(rows_shown.tolist(), names)])
                if (where < 0).any():
                    i = int(np.argmax(where < 0))
                    raise QRAInputError(f"{table.source}: row {at[i]}, {table.label(ref)}: {_shown(names[i])} is not "
                                        f"among the systems shown ({', '.join(map(str, rows_shown[i]))})")
                picked.append(where)
        best_at, worst_at = picked
        same = best_at == worst_at
        if same.any():
            i = int(np.argmax(same))
            raise QRAInputError(f"{table.source}: row {at[i]}: the same system is chosen best and worst")
        tuples = shown[present]
        idx = np.arange(len(at))
        best = tuples[idx, best_at]
        worst = tuples[idx, worst_at]
        unit = np.array([f"{i} [{' vs '.join(sorted(map(str, t)))}]" for i, t in zip(item[present], tuples)], dtype=object)
        n = len(at)
        part.judgements.append({
            "quality_criterion": np.full(n, qc, dtype=object), "unit": unit, "rater": rater[present],
            "system_a": np.empty(n, dtype=object), "system_b": np.empty(n, dtype=object), "outcome": np.empty(n, dtype=object),
            "shown": _objects([tuple(t) for t in tuples.tolist()]),
            "best": best, "worst": worst,
            "code_system": np.array([f"best {b}, worst {w}" for b, w in zip(best, worst)], dtype=object),
            "code_position": np.array([f"best {b + 1}, worst {w + 1}" for b, w in zip(best_at, worst_at)], dtype=object),
            "row": at})
        part.rules[qc] = {"layout": "best_worst"}
        out = _empty_ratings()
        for position in range(k):
            systems = tuples[:, position]
            value = np.where(best_at == position, 100.0, np.where(worst_at == position, -100.0, 0.0))
            out["quality_criterion"].append(np.full(n, qc, dtype=object))
            out["system"].append(systems)
            out["item"].append(np.array([f"{u}|{s}" for u, s in zip(unit, systems)], dtype=object))
            out["rater"].append(rater[present])
            out["rating"].append(value)
            out["row"].append(at)
            out["column"].append(np.full(n, table.label(best_ref), dtype=object))
        ratings.append(_merged(out))
    part.ratings = {key: np.concatenate([r[key] for r in ratings]) for key in RATING_FIELDS}
    check_items(part.ratings, table.source, {"item": "item", "rater": columns.get("rater")})
    return part


def _position(answer: Any, k: int) -> float:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return float("nan")
    return value if value.is_integer() and 1 <= value <= k else float("nan")


# ----------------------------------------------------------------------------- items in columns (forms)


def read_items_in_columns(table: Table, entry: dict, criteria: dict, systems_map: dict, missing: set,
                          values: dict | None, choices: dict | None) -> Part:
    """The ``items_in_columns`` layout: each listed column is melted into a rating or a
    judgement per rater (row), then read like ``long`` or ``pairwise``."""
    columns = entry.get("columns") or {}
    rater = (table.column(columns["rater"], "rater") if columns.get("rater")
             else np.array([f"{table.source} row {r}" for r in table.rows], dtype=object))
    names = list(criteria)
    rating_rows, pair_rows = _empty_ratings(), []
    score, ties = entry.get("score", "preference"), entry.get("ties", "half")
    kinds: dict[str, str] = {}
    for n, spec_item in enumerate(entry["items"]):
        where = f"{table.source}: items[{n}]"
        qc = _criterion_of_item(spec_item, names, where)
        ref = spec_item["column"]
        position = table.position(ref, f"items[{n}]")
        label = table.label(ref)
        item_id = str(spec_item.get("item") or (ref if isinstance(ref, str) else f"column {ref}"))
        kind = "pairwise" if "system_a" in spec_item else "rating"
        if kinds.setdefault(qc, kind) != kind:
            raise QRAInputError(f"{where}: quality criterion {qc!r} has both rated and compared items; an experiment "
                                f"reads one or the other per criterion")
        cells = table.frame.iloc[:, position].to_numpy(dtype=object)
        present = _present(cells, missing)
        at, answers = table.rows[present], cells[present]
        who = rater[present]
        if kind == "rating":
            if values is not None:
                numbers = _mapped(answers, values, table, at, label, "values").astype(float)
            else:
                import pandas as pd

                numbers = pd.to_numeric(pd.Series(answers, dtype=object), errors="coerce").to_numpy(dtype=float)
                if not np.isfinite(numbers).all():
                    i = int(np.argmax(~np.isfinite(numbers)))
                    raise QRAInputError(f"{table.source}: row {at[i]}, {label}: {_shown(answers[i])} is not a number; "
                                        f"map answer texts with \"values\" (the answers found are {_answers_found(answers)})")
            q = criteria[qc]
            outside = (numbers < q.scale_min) | ((numbers > q.scale_max) if q.scale_max is not None else False)
            if outside.any():
                i = int(np.argmax(outside))
                raise QRAInputError(f"{table.source}: row {at[i]}, {label}: {numbers[i]:g} is outside the scale of {qc!r}")
            system = systems_map.get(spec_item["system"], spec_item["system"])
            rating_rows["quality_criterion"].append(np.full(len(at), qc, dtype=object))
            rating_rows["system"].append(np.full(len(at), system, dtype=object))
            rating_rows["item"].append(np.full(len(at), item_id, dtype=object))
            rating_rows["rater"].append(who)
            rating_rows["rating"].append(numbers)
            rating_rows["row"].append(at)
            rating_rows["column"].append(np.full(len(at), label, dtype=object))
        else:
            outcome = _mapped(answers, choices, table, at, label, "choices") if choices is not None else answers
            bad = ~np.isin(outcome, np.array(OUTCOMES, dtype=object))
            if bad.any():
                i = int(np.argmax(bad))
                raise QRAInputError(f"{table.source}: row {at[i]}, {label}: answer {_shown(answers[i])} is not a, b or "
                                    f"tie; map the answers with \"choices\" (the answers found are "
                                    f"{_answers_found(answers)})")
            _check_range(criteria[qc], *_pairwise_encoding(score, ties)[1], f"the pairwise score {score!r}", table.source)
            a = systems_map.get(spec_item["system_a"], spec_item["system_a"])
            b = systems_map.get(spec_item["system_b"], spec_item["system_b"])
            pair_rows.append((qc, judgements_from(table, qc=qc, item=np.full(len(at), item_id, dtype=object), rater=who,
                                                  system_a=np.full(len(at), a, dtype=object),
                                                  system_b=np.full(len(at), b, dtype=object),
                                                  outcome=outcome.astype(object), rows=at), label))
    parts = [_merged(rating_rows)] if rating_rows["rating"] else []
    part = Part(_merged(_empty_ratings()))
    for qc, j, label in pair_rows:
        part.judgements.append(j)
        part.rules[qc] = {"layout": "pairwise", "score": score, "ties": ties}
        parts.append(pairwise_ratings(j, score, ties, label))
    if parts:
        part.ratings = {k: np.concatenate([p[k] for p in parts]) for k in RATING_FIELDS}
    check_items(part.ratings, table.source, {"item": "item", "rater": columns.get("rater")})
    return part


def read_entry(table: Table, entry: dict, criteria: dict, systems_map: dict, missing: set,
               values: dict | None, choices: dict | None) -> Part:
    """One experiment entry's table as a :class:`Part`, by its layout."""
    layout = entry_layout(entry)
    if layout in ("long", "wide"):
        part = Part(read_ratings(table, entry, criteria, systems_map, missing, values))
    elif layout == "pairwise":
        part = read_pairwise(table, entry, criteria, systems_map, missing, choices)
    elif layout == "best_worst":
        part = read_best_worst(table, entry, criteria, systems_map, missing, choices)
    else:
        part = read_items_in_columns(table, entry, criteria, systems_map, missing, values, choices)
    part.ratings["source"] = np.full(len(part.ratings["rating"]), table.source, dtype=object)  # which file, for messages
    return part


def system_values(judgements: list[dict], rule: dict) -> dict[str, float]:
    """One criterion's system values in one experiment from its judgements, by its rule."""
    from ..measures import pairwise as pw

    merged = {k: np.concatenate([j[k] for j in judgements]) for k in JUDGEMENT_FIELDS}
    if rule["layout"] == "best_worst":
        return pw.best_worst_scores(merged["shown"], merged["best"], merged["worst"])
    a, b, o = merged["system_a"], merged["system_b"], merged["outcome"]
    if rule["score"] == "preference":
        return pw.preference_scores(a, b, o)
    if rule["score"] == "win_rate":
        return pw.win_rates(a, b, o, ties=rule["ties"])
    return pw.bradley_terry(a, b, o)


def sign_test_records(experiment: str, quality_criterion: str, judgements: list[dict]) -> list[dict]:
    """Two-sided binomial (sign) tests per system pair of one experiment's judgements on one
    criterion, Holm-adjusted over its pairs (:func:`qra_widgets.measures.pairwise.sign_tests`),
    as JSON-safe records (an undefined p is ``None``).  A best-worst judgement counts when it
    showed two systems (best = the one preferred)."""
    from ..measures.pairwise import sign_tests

    merged = {k: np.concatenate([j[k] for j in judgements]) for k in JUDGEMENT_FIELDS}
    a, b, o = merged["system_a"], merged["system_b"], merged["outcome"]
    paired = np.array([o_ is not None for o_ in o], dtype=bool)
    if not paired.all():  # best-worst: pairs only
        two = np.array([s is not None and len(s) == 2 for s in merged["shown"]], dtype=bool)
        if not two.any():
            return []
        shown = merged["shown"][two]
        a = np.array([s[0] for s in shown], dtype=object)
        b = np.array([s[1] for s in shown], dtype=object)
        o = np.where(merged["best"][two] == a, "a", "b").astype(object)
    frame = sign_tests(a, b, o)
    records = []
    for row in frame.itertuples(index=False):
        records.append({"experiment": experiment, "quality_criterion": quality_criterion, "system_x": row.system_x,
                        "system_y": row.system_y, "wins_x": int(row.wins_x), "wins_y": int(row.wins_y),
                        "ties": int(row.ties), "p": None if np.isnan(row.p) else float(row.p),
                        "p_holm": None if np.isnan(row.p_holm) else float(row.p_holm)})
    return records
