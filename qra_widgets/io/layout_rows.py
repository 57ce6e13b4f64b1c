"""What every layout reader shares: a file's cells (:class:`Table`), the row selection
(``rows``, ``exclude``, ``optional_exclude``), the answer maps (``values``, ``choices``),
what a layout gives (:class:`Part`), and the ``long`` and ``wide`` layouts' reader
(:func:`read_ratings`) with its checks of items (:func:`check_items`).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import QRAInputError
from ..limits import shown as _shown
from ..limits import shown_values as _shown_values
from .layout_keys import JOIN, _suggest, entry_layout, raters_map

SINGLE_SYSTEM = "all"  # the system of every row when columns.system is omitted (a corpus re-annotation)


@dataclass
class Table:
    """One file's cells as text (``frame``), with the file's row number of each row (``rows``,
    what messages name), each row's 1-based data row or record number (``record``: what
    ``{"row": true}`` gives), the 0-based position of each row's element in an exploded list
    (``index``: field -> positions), columns computed from other experiments (``derived``) and, for
    JSON whose ``records`` is an object, each row's record key (``keys``: what ``{"key": true}`` gives)."""

    frame: Any
    source: str
    rows: np.ndarray
    record: np.ndarray | None = None
    index: dict = field(default_factory=dict)
    derived: dict = field(default_factory=dict)
    keys: np.ndarray | None = None  # each row's record key, when JSON "records" reaches an object

    def __post_init__(self):
        if self.record is None:
            self.record = np.arange(1, len(self.frame) + 1)

    @classmethod
    def of(cls, frame, source: str, record=None, index=None) -> Table:
        return cls(
            frame,
            source,
            np.arange(len(frame)) + 2 if record is None else np.asarray(record),  # header = row 1
            record,
            dict(index or {}),
        )

    def column(self, ref, role: str) -> np.ndarray:
        """A column's cells by name or 1-based position; several columns are joined with ``/``;
        ``{"constant": V}``, ``{"row": true}``, ``{"index": FIELD}`` and ``{"key": true}`` are computed per row."""
        if isinstance(ref, dict):
            return self._computed(ref, role)
        if isinstance(ref, list):
            parts = [self.column(r, role) for r in ref]
            joined = parts[0].astype(object)
            for part in parts[1:]:
                joined = np.array([f"{x}{JOIN}{y}" for x, y in zip(joined, part)], dtype=object)
            return joined
        return self.frame.iloc[:, self.position(ref, role)].to_numpy(dtype=object)

    def _computed(self, ref: dict, role: str) -> np.ndarray:
        n = len(self.frame)
        if "constant" in ref:
            return np.full(n, str(ref["constant"]), dtype=object)
        if "row" in ref:
            return np.array([str(r) for r in self.record], dtype=object)
        if "key" in ref:
            if self.keys is None:
                raise QRAInputError(
                    f'{self.source}: {role} is {{"key": true}}, but the records are not an object '
                    f'({{"key": true}} is the key of each record when "format": "json" and "records" '
                    f"reaches an object of records)"
                )
            return self.keys.copy()
        if "index" in ref:
            if ref["index"] not in self.index:
                raise QRAInputError(
                    f'{self.source}: {role} is {{"index": {_shown(ref["index"])}}}, but the entry '
                    f"explodes {_shown(next(iter(self.index), None)) if self.index else 'no list'} "
                    f'("explode" names the list whose elements become rows)'
                )
            return np.array([str(i) for i in self.index[ref["index"]]], dtype=object)
        key = _ref_key(ref)
        if key not in self.derived:
            raise QRAInputError(f"{self.source}: {role}: {_shown(ref)} cannot be computed here")
        return self.derived[key]

    def position(self, ref, role: str) -> int:
        names = list(self.frame.columns)
        if isinstance(ref, int) and not isinstance(ref, bool):
            if not 1 <= ref <= len(names):
                raise QRAInputError(f"{self.source}: {role} is column {ref}, but the file has {len(names)} columns")
            return ref - 1
        found = [i for i, name in enumerate(names) if name == ref]
        if not found:
            close = difflib.get_close_matches(str(ref), [str(n) for n in names], n=1, cutoff=0.6)
            hint = f"; did you mean {_shown(close[0])}?" if close else ""
            raise QRAInputError(
                f"{self.source}: column {_shown(ref)} is missing{hint}; found {_shown_values(names, 30)}"
            )
        if len(found) > 1:
            raise QRAInputError(
                f"{self.source}: {len(found)} columns are named {_shown(ref)} (columns "
                f"{', '.join(str(i + 1) for i in found)}); name the {role} column by its 1-based position"
            )
        return found[0]

    def label(self, ref) -> str:
        """How a message names a column."""
        if isinstance(ref, list):
            return "+".join(self.label(r) for r in ref)
        if isinstance(ref, dict):
            return _ref_key(ref)
        if isinstance(ref, int) and not isinstance(ref, bool):
            return (
                f"column {ref} ({_shown(self.frame.columns[ref - 1])})"
                if 1 <= ref <= len(self.frame.columns)
                else f"column {ref}"
            )
        return f"column {_shown(ref)}"

    def keep(self, mask: np.ndarray) -> Table:
        return Table(
            self.frame[mask],
            self.source,
            self.rows[mask],
            self.record[mask],
            {k: v[mask] for k, v in self.index.items()},
            {k: v[mask] for k, v in self.derived.items()},
            None if self.keys is None else self.keys[mask],
        )


def _ref_key(ref: dict) -> str:
    """How a computed key column is named (in messages and in :attr:`Table.derived`)."""
    import json

    return json.dumps(ref, sort_keys=True, ensure_ascii=False)


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
                raise QRAInputError(
                    f"{table.source}: column {_shown(column)} (in {key}) is missing"
                    + (
                        f"; did you mean {_shown(close[0])}?"
                        if close
                        else f"; found {_shown_values(table.frame.columns, 30)}"
                    )
                )
            cells = table.column(column, key)
            hit = np.isin(cells, np.array(values_of(wanted), dtype=object))
            table = table.keep(hit if keep else ~hit)
    return table


def check_optional_exclude(table: Table, entry: dict) -> None:
    """``optional_exclude`` is not applied by default, but its columns must exist."""
    for column in entry.get("optional_exclude") or {}:
        if column not in table.frame.columns:
            raise QRAInputError(
                f"{table.source}: column {_shown(column)} (in optional_exclude) is missing; "
                f"found {_shown_values(table.frame.columns, 30)}"
            )


# ----------------------------------------------------------------------------- what a layout gives


RATING_FIELDS = ("quality_criterion", "system", "item", "rater", "rating", "row", "column")
JUDGEMENT_FIELDS = (
    "quality_criterion",
    "unit",
    "rater",
    "system_a",
    "system_b",
    "outcome",
    "shown",
    "best",
    "worst",
    "code_system",
    "code_position",
    "row",
)


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
    return {
        k: (np.concatenate(v) if v else np.array([], dtype=float if k == "rating" else object)) for k, v in out.items()
    }


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
        raise QRAInputError(
            f"{table.source}: row {rows[i]}, {label}: answer {_shown(cells[i])} is not in the "
            f"{what} map; the answers found are {_answers_found(cells)}"
        )
    return np.array([keys[c] for c in cells], dtype=object)


def _system_names(cells: np.ndarray, names: dict) -> np.ndarray:
    return np.array([names.get(c, c) for c in cells], dtype=object)


def _present(cells: np.ndarray, missing: set) -> np.ndarray:
    return ~np.isin(cells, np.array(list(missing), dtype=object))


def _criterion_of_item(item: dict, criteria: list[str], where: str) -> str:
    name = item.get("criterion") or ""
    if not name:
        if len(criteria) != 1:
            raise QRAInputError(
                f"{where}: the spec has {len(criteria)} quality criteria; say which one this item rates ('criterion')"
            )
        return criteria[0]
    if name not in criteria:
        raise QRAInputError(
            f"{where}.criterion: {_shown(name)} is not a quality criterion of the spec" + _suggest(name, criteria)
        )
    return name


# ----------------------------------------------------------------------------- ratings layouts (long, wide)


def read_ratings(
    table: Table, entry: dict, criteria: dict, systems_map: dict, missing: set, values: dict | None
) -> dict[str, np.ndarray]:
    """The ``long`` and ``wide`` layouts: ratings after every check (errors name file, row and column)."""
    import pandas as pd

    columns = entry["columns"]
    source = table.source
    system_ref = columns.get("system", {"constant": SINGLE_SYSTEM})  # omitted: one system, "all"
    system = _system_names(table.column(system_ref, "system"), systems_map)
    item = table.column(columns["item"], "item")
    rater = (
        table.column(columns["rater"], "rater")
        if columns.get("rater")
        else np.array([f"{source} row {r}" for r in table.rows], dtype=object)
    )
    for cells, ref in ((system, system_ref), (item, columns["item"])):
        empty = cells == ""
        if empty.any():
            raise QRAInputError(f"{source}: row {table.rows[np.argmax(empty)]}, {table.label(ref)} is empty")
    if entry_layout(entry) == "long":
        criterion_cells = table.column(columns["criterion"], "criterion")
        value_of = columns.get("criteria") or {name: name for name in criteria}
        criterion_of = {}
        for name, value in value_of.items():
            if name not in criteria:
                raise QRAInputError(
                    f"{source}: columns.criteria names {_shown(name)}, not a quality criterion of the "
                    f"spec" + _suggest(name, list(criteria))
                )
            criterion_of[str(value)] = name
        for value, name in criterion_of.items():
            if not (criterion_cells == value).any():
                raise QRAInputError(
                    f"{source}: {table.label(columns['criterion'])} has no rows for quality criterion "
                    f"{_shown(name)} (value {_shown(value)})"
                )
        known = np.isin(criterion_cells, np.array(list(criterion_of), dtype=object))
        qc_names = np.array([criterion_of.get(c, "") for c in criterion_cells], dtype=object)
        blocks = [(qc_names[known], table.column(columns["rating"], "rating")[known], columns["rating"], known, rater)]
    else:
        wanted = entry.get("criteria") or list(criteria)
        for name in columns["criteria"]:
            if name not in criteria:
                raise QRAInputError(
                    f"{source}: columns.criteria names {_shown(name)}, not a quality criterion of the "
                    f"spec" + _suggest(name, list(criteria))
                )
        for name in wanted:
            if name not in columns["criteria"]:
                raise QRAInputError(
                    f"{source}: the spec gives no column for quality criterion {_shown(name)} (columns.criteria)"
                )
        every = np.ones(len(table.frame), dtype=bool)
        blocks = []
        for name, ref in columns["criteria"].items():
            per_rater = raters_map(ref)
            if per_rater is None:
                blocks.append(
                    (np.full(len(table.frame), name, dtype=object), table.column(ref, name), ref, every, rater)
                )
                continue
            for rater_id, column in per_rater.items():  # raters in columns: one block per rater
                blocks.append(
                    (
                        np.full(len(table.frame), name, dtype=object),
                        table.column(column, name),
                        column,
                        every,
                        np.full(len(table.frame), str(rater_id), dtype=object),
                    )
                )
    out = _empty_ratings()
    for qc_names, raw, ref, rows, raters in blocks:
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
                raise QRAInputError(
                    f"{source}: row {at[i]}, {table.label(ref)}: {_shown(cells[i])} is not a number "
                    f'(list it under "missing" if it marks a missing rating, or map answer texts to '
                    f'numbers with "values"; the answers found are {_answers_found(cells)})'
                )
        names = qc_names[present]
        for name in dict.fromkeys(names.tolist()):
            qc = criteria[name]
            mine = names == name
            outside = mine & (
                (numbers < qc.scale_min) | ((numbers > qc.scale_max) if qc.scale_max is not None else False)
            )
            if outside.any():
                i = int(np.argmax(outside))
                raise QRAInputError(
                    f"{source}: row {at[i]}, {table.label(ref)}: {numbers[i]:g} is outside the scale "
                    f"{qc.scale_min:g}..{'' if qc.scale_max is None else f'{qc.scale_max:g}'} "
                    f"of {_shown(name)}"
                )
        out["quality_criterion"].append(names)
        out["system"].append(system[rows][present])
        out["item"].append(item[rows][present])
        out["rater"].append(raters[rows][present])
        out["rating"].append(numbers)
        out["row"].append(at)
        out["column"].append(np.full(len(at), table.label(ref), dtype=object))
    merged = _merged(out)
    check_items(merged, source, columns)
    return merged


def raters_named(columns: dict) -> bool:
    """Whether the raters are named (a rater column, a constant, or raters in columns), so that a
    rater rating an item twice is an error; without, every row is its own rater."""
    return bool(columns.get("rater")) or any(
        raters_map(ref) is not None for ref in (columns.get("criteria") or {}).values()
    )


def check_items(merged: dict, source: str, columns: dict, named: bool | None = None) -> None:
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
        raise QRAInputError(
            f"{source}: row {frame.row.iat[i]}, column {_shown(item_label)}: item "
            f"{_shown(frame['item'].iat[i])} is rated under system {_shown(frame.system.iat[i])} here "
            f"and {_shown(first_system.iat[i])} in row {earlier}"
        )
    twice = frame.duplicated(["quality_criterion", "item", "rater"], keep="first").to_numpy()
    if twice.any() and (raters_named(columns) if named is None else named):
        j = int(np.argmax(twice))
        same = (
            (frame.quality_criterion == frame.quality_criterion.iat[j])
            & (frame["item"] == frame["item"].iat[j])
            & (frame.rater == frame.rater.iat[j])
        ).to_numpy()
        i = int(np.argmax(same))
        files = merged.get("source")
        if files is not None and files[i] != files[j]:
            where = f"{files[i]} row {frame.row.iat[i]} and {files[j]} row {frame.row.iat[j]}"
        else:
            where = f"rows {frame.row.iat[i]} and {frame.row.iat[j]}"
        column = f"column {_shown(columns['rater'])}" if isinstance(columns.get("rater"), (str, int)) else "raters"
        raise QRAInputError(
            f"{source}: {where}, {column}: rater "
            f"{_shown(frame.rater.iat[i])} rates item {_shown(frame['item'].iat[i])} "
            f"on {_shown(frame.quality_criterion.iat[i])} twice"
        )
