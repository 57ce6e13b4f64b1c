"""Reading bytes from users, safely: the one place every reader gets its bytes, text and tables.

Every file a user gives qra-widgets (study JSON, score and label tables, HEDS datasheets,
QRA3 files, annotation files, backups) is read through these functions, so the limits
are the same everywhere and each refusal names the file and the problem.

The limits are :mod:`qra_widgets.limits` (one table of documented numbers for every layer).

>>> decode(b"\\xef\\xbb\\xbfa,b", "scores.csv")
'a,b'
>>> check_size(MAX_FILE_BYTES + 1, "big.csv")
Traceback (most recent call last):
...
qra_widgets.errors.QRAInputError: big.csv: is 20.0 MiB; the limit is 20 MiB
>>> load_json('{"a": [1, 2.5]}', "x.json")
{'a': [1, 2.5]}
>>> load_json("[" * 100 + "]" * 100, "deep.json")
Traceback (most recent call last):
...
qra_widgets.errors.QRAInputError: deep.json: JSON nested more than 64 levels deep
>>> read_csv_rows("a,b\\n1,2\\n", "t.csv")
[['a', 'b'], ['1', '2']]
"""

from __future__ import annotations

import csv
import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

from ..errors import QRAInputError
from ..limits import (
    MAX_COLUMNS,
    MAX_FILE_BYTES,
    MAX_INT_DIGITS,
    MAX_JSON_DEPTH,
    MAX_LINE_BYTES,
    MAX_PACKING_RATIO,
    MAX_ROWS,
    MAX_UNPACKED_BYTES,
    shown,
    shown_values,
)

_ZIP_MAGIC = b"PK\x03\x04"


def decode(data: bytes, source: str, *, hint: str = "is it a CSV file?") -> str:
    """UTF-8 text (a BOM is fine), or a :class:`QRAInputError` naming the first bad byte.

    A NUL byte is refused (no text file has one, and parsers drop it silently, changing a name);
    so is a line over :data:`MAX_LINE_BYTES` (the csv module's message for it names no row).

    >>> decode(b"a,b\\nx\\x00y,1", "m.csv")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: m.csv: line 2 has a NUL byte (character 2); a text file has none: is it a binary file?
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise QRAInputError(
            f"{source}: is not UTF-8 text (byte 0x{data[error.start]:02x} at position {error.start}); "
            "save it as UTF-8 (CSV UTF-8 in Excel)"
        ) from None
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise QRAInputError(
            f"{source}: line {line} has a NUL byte (character {nul - text.rfind(chr(10), 0, nul)}); "
            "a text file has none: is it a binary file?"
        )
    check_line_lengths(text, source, hint)
    return text


def check_line_lengths(text: str, source: str, hint: str = "is it a CSV file?") -> None:
    """Refuse a line over :data:`MAX_LINE_BYTES` characters, naming it (before any CSV parser sees it);
    ``hint`` ends the message (what to do about it for this kind of file)."""
    if len(text) <= MAX_LINE_BYTES:
        return
    for number, line in enumerate(text.split("\n"), start=1):
        if len(line) > MAX_LINE_BYTES:
            raise QRAInputError(
                f"{source}: line {number} is {len(line) / 2**20:.1f} MiB long; the limit is "
                f"{MAX_LINE_BYTES / 2**20:.0f} MiB per line ({hint})"
            )


def check_size(size: int, source: str) -> None:
    """Refuse a file over :data:`MAX_FILE_BYTES` before reading or parsing it."""
    if size > MAX_FILE_BYTES:
        raise QRAInputError(f"{source}: is {size / 2**20:.1f} MiB; the limit is {MAX_FILE_BYTES / 2**20:.0f} MiB")


def read_bytes(path: str | os.PathLike) -> bytes:
    """The bytes of a file the user named, after the size check.

    A missing file, a folder, or a file that cannot be read raises :class:`QRAInputError`
    naming the path and the reason.
    """
    path = Path(path)
    if path.is_dir():
        raise QRAInputError(f"{path}: is a folder, not a file")
    if not path.is_file():
        raise QRAInputError(f"{path}: no such file")
    try:
        check_size(path.stat().st_size, path.name)
        return path.read_bytes()
    except OSError as error:
        raise QRAInputError(f"{path}: cannot be read ({error.strerror or error})") from None


# ----------------------------------------------------------------------------- zip archives (.xlsx)


def check_zip(data: bytes, source: str) -> None:
    """Refuse a zip archive (an .xlsx is one) that would unpack to too much.

    Reads only the zip directory: the total declared size must stay under
    :data:`MAX_UNPACKED_BYTES` and no member over 1 MiB may unpack to more than
    :data:`MAX_PACKING_RATIO` times its packed size.  :mod:`zipfile` (which openpyxl uses)
    stops inflating a member at its declared size, so the directory cannot lie its way past
    this check.

    >>> import io, zipfile
    >>> buffer = io.BytesIO()
    >>> with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
    ...     archive.writestr("sheet.xml", "0" * 5_000_000)
    >>> check_zip(buffer.getvalue(), "bomb.xlsx")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: bomb.xlsx: sheet.xml unpacks to 4.8 MiB from 5 KiB (ratio 10... > 100); refused as a zip bomb
    """
    check_size(len(data), source)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
        raise QRAInputError(f"{source}: is not a valid .xlsx/.zip file ({error})") from None
    total = sum(member.file_size for member in members)
    if total > MAX_UNPACKED_BYTES:
        raise QRAInputError(
            f"{source}: unpacks to {total / 2**20:.0f} MiB; the limit is {MAX_UNPACKED_BYTES / 2**20:.0f} MiB"
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > 2**20 and ratio > MAX_PACKING_RATIO:
            raise QRAInputError(
                f"{source}: {member.filename} unpacks to {member.file_size / 2**20:.1f} MiB from "
                f"{member.compress_size / 2**10:.0f} KiB (ratio {ratio:.0f} > {MAX_PACKING_RATIO}); refused as a zip bomb"
            )


# ----------------------------------------------------------------------------- JSON


def _json_int(text: str, source: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise QRAInputError(
            f"{source}: the integer {text[:12]}... has {len(text.lstrip('-'))} digits; the limit is {MAX_INT_DIGITS}"
        )
    return int(text)


def _json_float(text: str, source: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise QRAInputError(f"{source}: the number {text[:24]} is too large for a floating-point number")
    return number


def _json_constant(name: str, source: str):
    raise QRAInputError(f"{source}: {name} is not valid JSON; write null for a missing value")


def _check_depth(value: Any, source: str) -> None:
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise QRAInputError(f"{source}: JSON nested more than {MAX_JSON_DEPTH} levels deep")
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


def _unique_keys(source: str):
    """An ``object_pairs_hook`` refusing a key given twice in one object (JSON lets the last win silently)."""

    def hook(pairs):
        seen = {}
        for key, value in pairs:
            if key in seen:
                raise QRAInputError(f"{source}: the key {shown(key)} appears twice in one object; keep one")
            seen[key] = value
        return seen

    return hook


def load_json(text: str | bytes, source: str) -> Any:
    """Parse JSON from a user, with the caps: size, nesting depth, integer digits, no NaN.

    Bytes (a file, an upload) are size-checked and decoded (:func:`decode`) first.  ``NaN``/``Infinity`` (which
    Python's :mod:`json` accepts but JSON does not) and numbers beyond the float range are
    refused, so whatever loads can be saved again.

    >>> load_json('{"revision": ' + "9" * 400 + "}", "backup.json")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: backup.json: the integer 999999999999... has 400 digits; the limit is 20
    >>> load_json('{"x": NaN}', "m.json")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: m.json: NaN is not valid JSON; write null for a missing value
    """
    if isinstance(text, bytes):  # a user's file or upload; text comes from the program (the library, tests)
        check_size(len(text), source)
        text = decode(text, source)
    try:
        data = json.loads(
            text,
            parse_int=lambda s: _json_int(s, source),
            parse_float=lambda s: _json_float(s, source),
            parse_constant=lambda s: _json_constant(s, source),
            object_pairs_hook=_unique_keys(source),
        )
    except json.JSONDecodeError as error:
        raise QRAInputError(
            f"{source}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except RecursionError:
        raise QRAInputError(f"{source}: JSON nested more than {MAX_JSON_DEPTH} levels deep") from None
    _check_depth(data, source)
    return data


# ----------------------------------------------------------------------------- tables


def check_shape(rows: int, columns: int, source: str) -> None:
    """Refuse a table beyond the caps (:data:`MAX_ROWS` rows, :data:`MAX_COLUMNS` columns), naming the file."""
    if rows > MAX_ROWS:
        raise QRAInputError(f"{source}: has more than {MAX_ROWS:,} rows; the limit is {MAX_ROWS:,}")
    if columns > MAX_COLUMNS:
        raise QRAInputError(f"{source}: has {columns:,} columns; the limit is {MAX_COLUMNS:,}")


def _check_widths(rows: list[list[str]], source: str) -> None:
    """Every row as long as the header, else a message naming the row (and a trailing comma)."""
    width = len(rows[0])
    if all(len(row) == width for row in rows):
        return
    for number, row in enumerate(rows[1:], start=2):
        if len(row) == width:
            continue
        if len(row) == width + 1 and row[-1].strip() == "":
            raise QRAInputError(
                f"{source}: row {number} has {len(row)} fields but the header has {width}: "
                "a trailing delimiter at the end of the row? remove it (or name the extra column)"
            )
        raise QRAInputError(f"{source}: row {number} has {len(row)} fields but the header has {width}")


def read_csv_rows(text: str, source: str, delimiter: str = ",") -> list[list[str]]:
    """Rows of a CSV text (header first) as lists of strings, with the table caps.

    Blank lines are skipped; every row must have as many fields as the header.

    >>> read_csv_rows("a,b\\n1,2,\\n", "t.csv")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: t.csv: row 2 has 3 fields but the header has 2: a trailing delimiter at the end of the row? remove it (or name the extra column)
    """
    check_size(len(text), source)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True, skipinitialspace=True)
    rows: list[list[str]] = []
    try:
        # the file is already under MAX_FILE_BYTES, so reading it whole is bounded; caps follow
        rows = [row for row in reader if row and (row[0].strip() or any(cell.strip() for cell in row))]
    except csv.Error as error:
        hint = '; is a quote (") left open?' if "end of data" in str(error) or "expected" in str(error) else ""
        raise QRAInputError(f"{source}: row {reader.line_num}: cannot be read as CSV ({error}){hint}") from None
    if not rows:
        raise QRAInputError(f"{source}: is empty")
    check_shape(len(rows) - 1, max(map(len, rows)), source)
    _check_widths(rows, source)
    return rows


def read_csv_frame(text: str, source: str, delimiter: str = ","):
    """The same table as :func:`read_csv_rows`, as a pandas DataFrame of strings (row 0 is the
    header), read by pandas' C parser: the fast path for big label files.

    The header's width is checked before pandas allocates anything.  A file pandas might read
    differently from :func:`read_csv_rows` (a ragged row, an open quote, an empty or "NA"
    cell) is read again by :func:`read_csv_rows`, whose message names the row.

    >>> read_csv_frame("a,b\\n 1,2\\n", "t.csv").values.tolist()
    [['a', 'b'], ['1', '2']]
    """
    import pandas as pd

    check_size(len(text), source)
    try:
        header = next(csv.reader(io.StringIO(text[:1_000_000], newline=""), delimiter=delimiter), [])
    except csv.Error:
        header = []
    check_shape(0, len(header), source)
    try:
        # default NA parsing on purpose: a missing field and an empty (or "NA") cell both become NaN,
        # and any NaN sends the file to read_csv_rows, which tells them apart and keeps the text
        frame = pd.read_csv(
            io.StringIO(text),
            sep=delimiter,
            header=None,
            dtype=str,
            skipinitialspace=True,
            engine="c",
            nrows=MAX_ROWS + 2,
            quoting=csv.QUOTE_MINIMAL,
        )
    except Exception:  # noqa: BLE001 - pandas' message is vaguer than read_csv_rows'; let it name the row
        frame = None
    if frame is None or frame.isna().to_numpy().any() or frame.shape[1] != len(header) or frame.empty:
        rows = read_csv_rows(text, source, delimiter)
        return pd.DataFrame(rows, dtype=object)
    check_shape(len(frame) - 1, frame.shape[1], source)
    return frame


def _excel_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return str(value)


def read_excel_rows(data: bytes, source: str) -> list[list[str]]:
    """Rows of the one sheet of an .xlsx workbook (header first) as lists of strings.

    :func:`check_zip` runs first; a workbook whose other sheets hold data is refused (which
    sheet would be meant?), and so is one beyond the table caps.  Empty rows are skipped and
    empty cells after the last header column are ignored.
    """
    check_zip(data, source)
    from openpyxl import load_workbook

    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as error:  # noqa: BLE001 - openpyxl raises many unrelated types for a corrupt file
        raise QRAInputError(f"{source}: cannot be read as a spreadsheet ({type(error).__name__}: {error})") from None
    try:
        sheets = workbook.worksheets
        if not sheets:
            raise QRAInputError(f"{source}: has no sheets")
        others = [
            s.title
            for s in sheets[1:]
            if any(v is not None for row in s.iter_rows(max_row=50, values_only=True) for v in row)
        ]
        if others:
            raise QRAInputError(
                f"{source}: has data on more than one sheet ({shown(sheets[0].title)}, then {shown_values(others)[1:-1]}); "
                "qra-widgets reads one table: keep it on one sheet and remove or empty the others"
            )
        rows: list[list[str]] = []
        sheet_rows: list[int] = []  # the sheet's row number of each kept row
        for at, values in enumerate(sheets[0].iter_rows(values_only=True), start=1):
            cells = [_excel_text(v) for v in values]
            if not any(c.strip() for c in cells):
                continue
            rows.append(cells)
            sheet_rows.append(at)
            check_shape(len(rows) - 1, len(cells), source)
    except QRAInputError:
        raise
    except Exception as error:  # noqa: BLE001
        raise QRAInputError(f"{source}: cannot be read as a spreadsheet ({type(error).__name__}: {error})") from None
    finally:
        workbook.close()
    if not rows:
        raise QRAInputError(f"{source}: the first sheet is empty")
    header = rows[0]
    while header and header[-1].strip() == "":
        header = header[:-1]
    width = len(header)
    for number, row in enumerate(rows[1:], start=2):
        extra = [c for c in row[width:] if c.strip()]
        if extra:
            raise QRAInputError(
                f"{source}: row {number} has a value ({shown(extra[0])}) beyond the last named column; name its column in the header"
            )
    body = [row[:width] + [""] * (width - len(row)) for row in rows[1:]]
    if any(cell == "" for row in body for cell in row):
        _refuse_formulas_without_values(data, source, header, body, sheet_rows[1:])
    return [header] + body


def _refuse_formulas_without_values(
    data: bytes, source: str, header: list[str], body: list[list[str]], sheet_rows: list[int]
) -> None:
    """An empty cell that holds a formula has no saved value (a file written by a program, never
    opened in a spreadsheet): refuse it naming the cell, rather than read it as empty."""
    from openpyxl import load_workbook

    wanted = {at: k for k, at in enumerate(sheet_rows) if "" in body[k]}
    workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    try:
        for at, values in enumerate(workbook.worksheets[0].iter_rows(values_only=True), start=1):
            if at not in wanted:
                continue
            k = wanted[at]
            for column, (cell, formula) in enumerate(zip(body[k], values)):
                if cell == "" and isinstance(formula, str) and formula.startswith("="):
                    raise QRAInputError(
                        f"{source}: row {k + 2}, column {shown(header[column])}: holds the formula {shown(formula)} "
                        "with no saved value (written by a program, never calculated); open and save the file "
                        "in Excel or LibreOffice, or paste the values"
                    )
    finally:
        workbook.close()


# ----------------------------------------------------------------------------- fields and quoted values


def require(data: dict, key: str, kind, where: str, default: Any = ...) -> Any:
    """``data[key]`` checked to be of ``kind`` (a missing or null field is ``default``, or refused)."""
    if key not in data or data[key] is None:
        if default is ...:
            raise QRAInputError(f"{where}: missing field {key!r}")
        return default
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, kind):
        names = "/".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        got = (
            shown(value)
            if isinstance(value, str)
            else repr(value)
            if len(repr(value)) <= 40
            else f"a {type(value).__name__}"
        )
        raise QRAInputError(f"{where}.{key}: expected {names}, got {got}")
    return value
