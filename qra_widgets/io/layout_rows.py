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
from .layout_keys import JOIN, _suggest, entry_layout


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
            hint = f"; did you mean {_shown(close[0])}?" if close else ""
            raise QRAInputError(f"{self.source}: column {_shown(ref)} is missing{hint}; "
                                f"found {_shown_values(names, 30)}")
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
        return f"column {_shown(ref)}"

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
                raise QRAInputError(f"{table.source}: column {_shown(column)} (in {key}) is missing"
                                    + (f"; did you mean {_shown(close[0])}?" if close
                                       else f"; found {_shown_values(table.frame.columns, 30)}"))
            cells = table.column(column, key)
            hit = np.isin(cells, np.array(values_of(wanted), dtype=object))
            table = table.keep(hit if keep else ~hit)
    return table


def check_optional_exclude(table: Table, entry: dict) -> None:
    """``optional_exclude`` is not applied by default, but its columns must exist."""
    for column in entry.get("optional_exclude") or {}:
        if column not in table.frame.columns:
            raise QRAInputError(f"{table.source}: column {_shown(column)} (in optional_exclude) is missing; "
                                f"found {_shown_values(table.frame.columns, 30)}")


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
                                    f"{_shown(name)} (value {_shown(value)})")
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
                raise QRAInputError(f"{source}: the spec gives no column for quality criterion {_shown(name)} "
                                    "(columns.criteria)")
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
                                    f"{qc.scale_min:g}..{'' if qc.scale_max is None else f'{qc.scale_max:g}'} "
                                    f"of {_shown(name)}")
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
        raise QRAInputError(f"{source}: row {frame.row.iat[i]}, column {_shown(item_label)}: item "
                            f"{_shown(frame['item'].iat[i])} is rated under system {_shown(frame.system.iat[i])} here "
                            f"and {_shown(first_system.iat[i])} in row {earlier}")
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
        raise QRAInputError(f"{source}: {where}, column {_shown(columns['rater'])}: rater "
                            f"{_shown(frame.rater.iat[i])} rates item {_shown(frame['item'].iat[i])} "
                            f"on {_shown(frame.quality_criterion.iat[i])} twice")

