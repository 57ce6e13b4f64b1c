"""An annotation file's format (an experiment's ``format``, ``delimiter``, ``sheet``, ``records``
and ``explode``) and its reader: from a file's bytes to a :class:`~qra_widgets.io.layout_rows.Table`
of text cells.

``csv`` (the default; ``delimiter`` one of ``,`` ``;`` tab or ``auto``, which picks the one of the
three the header line holds most of), ``xlsx`` (optional ``sheet``), ``json`` (``records``: the
dotted path of the list of records, or of an object whose values are the records and whose keys
``{"key": true}`` gives) and ``jsonl`` (one record per line).  Without ``format``, the
extensions ``.jsonl``, ``.json``, ``.xlsx`` and ``.tsv`` set it.  In JSON records, column names are
dotted paths (``annotations.coherence``, by :func:`pandas.json_normalize`); ``explode`` makes each
element of the list at a path its own row, keeping its record number (``{"row": true}``) and its
0-based position (``{"index": FIELD}``).

>>> table = read_table(b'{"id": 7, "ann": [{"c": 1}, {"c": 2}]}\\n', "x.jsonl", {"explode": "ann"})
>>> table.frame.to_dict("list"), table.record.tolist(), table.index["ann"].tolist()
({'id': ['7', '7'], 'ann.c': ['1', '2']}, [1, 1], [0, 1])
>>> table = read_table(b'{"t": {"C1": {"V": {"run": 0.887}}, "C2": {"V": {"run": null}}}}', "x.json", {"records": "t"})
>>> table.frame.to_dict("list"), table.keys.tolist()
({'V.run': ['0.887', '']}, ['C1', 'C2'])
>>> sniff_delimiter("a;b;c\\n1;2;3")
';'
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import QRAInputError
from ..limits import shown as _shown
from .layout_keys import DELIMITERS, FORMAT_OF_SUFFIX
from .layout_rows import Table
from .reading import check_shape, check_size, check_zip, decode, load_json, read_csv_frame

CANDIDATES = (",", ";", "\t")
_SHOWN_DELIMITER = {",": "','", ";": "';'", "\t": "'\\t' (tab)"}
_KEYS_HINT = (
    'set "format" ("csv", "xlsx", "json", "jsonl") and, for CSV, "delimiter" (",", ";", "\\t") in the '
    "experiment's entry"
)


def entry_format(entry: dict, name: str) -> tuple[str, str]:
    """``(format, delimiter)`` of a file of an entry: the entry's keys, else the file's extension."""
    suffix = Path(name).suffix.lower()
    by_suffix, tab = FORMAT_OF_SUFFIX.get(suffix, ("csv", None))
    fmt = entry.get("format") or by_suffix
    delimiter = entry.get("delimiter") or (tab if fmt == "csv" else None) or "auto"
    if delimiter not in DELIMITERS:
        raise QRAInputError(f"{name}: delimiter {_shown(delimiter)} is not one of {', '.join(map(repr, DELIMITERS))}")
    return fmt, delimiter


def sniff_delimiter(text: str) -> str:
    """The one of ``,`` ``;`` tab that the first non-empty line holds most of (outside quotes);
    ``,`` when it holds none (a one-column file)."""
    line = next((ln for ln in text[:1_000_000].splitlines() if ln.strip()), "")
    outside, quoted = [], False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif not quoted:
            outside.append(ch)
    counts = {d: outside.count(d) for d in CANDIDATES}
    best = max(CANDIDATES, key=lambda d: counts[d])  # ties: the earlier, so ',' first
    return best if counts[best] else ","


def read_table(data: bytes, source: str, entry: dict) -> Table:
    """A file of an entry as a :class:`Table`, by the entry's ``format`` (see the module docstring).

    The bytes go through :mod:`qra_widgets.io.reading`'s caps (file size, zip directory,
    rows and columns).  A file that is not what its format says is an error naming the
    ``format`` / ``delimiter`` keys.
    """
    import pandas as pd

    check_size(len(data), source)
    fmt, delimiter = entry_format(entry, source)
    if fmt == "xlsx":
        check_zip(data, source)
        try:
            frame = pd.read_excel(
                io.BytesIO(data), sheet_name=entry.get("sheet") or 0, dtype=str, keep_default_na=False
            )
        except Exception as error:  # noqa: BLE001 - pandas/openpyxl raise many unrelated types for a corrupt file
            raise QRAInputError(f"{source}: cannot be read as a spreadsheet ({error}); {_KEYS_HINT}") from None
        check_shape(len(frame), len(frame.columns), source)
        return Table.of(_stripped(frame), source)
    hint = "write the JSON with line breaks, e.g. json.dump(data, file, indent=1)" if fmt == "json" else None
    text = decode(data, source, hint=hint) if hint else decode(data, source)
    if fmt in ("json", "jsonl"):
        return _json_table(text, source, fmt, entry)
    return Table.of(_stripped(csv_frame(text, source, delimiter)), source)


def csv_frame(text: str, source: str, delimiter: str = "auto"):
    """A CSV text as a frame of text cells with its header as column names; ``auto`` sniffs
    the delimiter.  A file that looks like JSON, or does not read with the delimiter, is an
    error that says which delimiter was used and names the keys that change it."""
    import pandas as pd

    head = text.lstrip()[:1]
    if head in ("{", "["):
        raise QRAInputError(
            f"{source}: looks like JSON, not CSV (it starts with {_shown(head)}); "
            f'set "format": "jsonl" (one record per line) or "json" (with "records")'
        )
    sniffed = delimiter == "auto"
    sep = sniff_delimiter(text) if sniffed else delimiter
    try:
        table = read_csv_frame(text, source, delimiter=sep)
    except QRAInputError as error:
        how = "sniffed" if sniffed else 'from "delimiter"'
        raise QRAInputError(
            f"{error} (read as CSV with the delimiter {_SHOWN_DELIMITER[sep]}, {how}; if the file "
            f"is not that, {_KEYS_HINT})"
        ) from None
    header = [str(c) for c in table.iloc[0]]
    others = [d for d in CANDIDATES if d != sep and len(header) == 1 and d in header[0]]
    if others:
        how = " (sniffed)" if sniffed else ' (from "delimiter")'
        raise QRAInputError(
            f"{source}: the header is one column, {_shown(header[0])}, which holds "
            f"{_SHOWN_DELIMITER[others[0]]}: read as CSV with the delimiter {_SHOWN_DELIMITER[sep]}"
            f'{how}; set "delimiter": '
            f'{json.dumps(others[0])} (or "auto") in the experiment\'s entry'
        )
    return pd.DataFrame(table.iloc[1:].to_numpy(), columns=header)


def _stripped(frame):
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame.map(lambda v: str(v).strip())


def _at(value: Any, path: str, source: str, where: str) -> Any:
    for part in path.split(".") if path else []:
        if not isinstance(value, dict) or part not in value:
            raise QRAInputError(f"{source}: {where}: no field {_shown(part)} on the path {_shown(path)}")
        value = value[part]
    return value


def _replaced(record: dict, path: list[str], element: Any) -> dict:
    """A copy of ``record`` with the value at ``path`` replaced by ``element`` (only the objects
    along the path are copied: each exploded element gets its own row)."""
    row = dict(record)
    row[path[0]] = element if len(path) == 1 else _replaced(record[path[0]], path[1:], element)
    return row


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(value, ensure_ascii=False)


def _json_table(text: str, source: str, fmt: str, entry: dict) -> Table:
    import pandas as pd

    keys = None  # with "records" reaching an object: each record's key
    if fmt == "jsonl":
        records = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    records.append(load_json(line, f"{source} line {number}"))
                except QRAInputError as error:
                    raise QRAInputError(f'{error} (read as JSON Lines, "format": "jsonl"; {_KEYS_HINT})') from None
        check_shape(len(records), 0, source)
    else:
        try:
            whole = load_json(text, source)
        except QRAInputError as error:
            raise QRAInputError(f'{error} (read as JSON, "format": "json"; {_KEYS_HINT})') from None
        records = _at(whole, entry.get("records", ""), source, "records")
        if isinstance(records, dict):  # an object of records: each value is one, its key {"key": true}
            keys, records = list(records), list(records.values())
        elif not isinstance(records, list):
            raise QRAInputError(
                f"{source}: records {_shown(entry.get('records', ''))} is not a list of records or an object "
                f'of records ("records" is the dotted path of the list or object)'
            )
        check_shape(len(records), 0, source)
    rows, numbers, positions = [], [], []
    explode = entry.get("explode")
    for number, record in enumerate(records, 1):
        if not isinstance(record, dict):
            what = f"record {_shown(keys[number - 1])}" if keys is not None else f"record {number}"
            raise QRAInputError(f"{source}: {what} is not an object")
        if explode is None:
            rows.append(record)
            numbers.append(number)
            continue
        elements = _at(record, explode, source, f"record {number}, explode")
        if not isinstance(elements, list):
            raise QRAInputError(f'{source}: record {number}: {_shown(explode)} is not a list ("explode")')
        for position, element in enumerate(elements):
            rows.append(_replaced(record, explode.split("."), element))
            numbers.append(number)
            positions.append(position)
    check_shape(len(rows), 0, source)
    if not rows:
        raise QRAInputError(f"{source}: has no records")
    frame = pd.json_normalize(rows, sep=".")
    check_shape(len(frame), len(frame.columns), source)
    frame = frame.astype(object).where(frame.notna(), None).map(_cell)
    frame.columns = [str(c) for c in frame.columns]
    index = {explode: np.array(positions)} if explode is not None else {}
    table = Table.of(frame, source, np.array(numbers), index)
    if keys is not None:
        table.keys = np.array([keys[number - 1] for number in numbers], dtype=object)  # each row's record's
    return table
