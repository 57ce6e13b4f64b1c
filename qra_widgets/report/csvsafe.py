"""CSV that is safe to open in a spreadsheet (CSV/formula injection, OWASP).

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and, in some, a
tab or carriage return) as a formula, so a system called ``=HYPERLINK("http://x", "y")``
would become a live link or command when an exported CSV is opened.  Following OWASP's
advice, every **text** cell that starts with one of these characters is written with a
leading apostrophe (``'=HYPERLINK(...)``), which spreadsheets show as text.  Numbers are
never touched (``-0.5`` stays a number), and neither is text that is a plain number
(``"-0.5"``), which no spreadsheet runs.

Every CSV qra-widgets writes goes through :func:`frame_to_csv` (or :func:`columns_to_csv` for
a frame's columns, :func:`safe_cell` for single values): ``Assessment.to_csv``, the CLI's
``report --format csv``, the dashboard's downloads, the static site.

>>> safe_cell("=HYPERLINK(1)"), safe_cell("@SUM(A1)"), safe_cell("-0.5"), safe_cell(-0.5), safe_cell("GeDi")
("'=HYPERLINK(1)", "'@SUM(A1)", '-0.5', -0.5, 'GeDi')
>>> safe_cell("-2+3"), safe_cell("\\tcmd")
("'-2+3", "'\\tcmd")
"""

from __future__ import annotations

import re
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


NUL_SHOWN = "\ufffd"  # what a NUL character in a text cell is written as (the replacement character)


def no_nul(value: Any) -> Any:
    """``value`` with each NUL character written as U+FFFD: Python 3.10's ``csv`` writer cannot
    write a NUL at all ("need to escape"), 3.11's writes it raw, which spreadsheets cut at; so every
    Python writes the same file.

    >>> no_nul("a\\x00b") == "a\\ufffdb", no_nul(1.5)
    (True, 1.5)
    """
    if isinstance(value, str) and "\x00" in value:
        return value.replace("\x00", NUL_SHOWN)
    return value


class NulSafeWriter:
    """``csv.writer(out, **options)`` whose rows' text cells go through :func:`no_nul` (the CSVs
    that keep names exactly, such as QRA3's ``table.csv`` and ``metrics.csv``)."""

    def __init__(self, out, **options):
        import csv

        self._writer = csv.writer(out, **options)

    def writerow(self, row):
        return self._writer.writerow([no_nul(cell) for cell in row])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


def safe_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` if it is text a spreadsheet would run as a formula (and each
    NUL character as U+FFFD, :func:`no_nul`)."""
    value = no_nul(value)
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def safe_csv_text(text: str) -> str:
    """A CSV text another writer made (QRA3's ``metrics.csv``, kept exact for the organisers' tool),
    rewritten with every cell :func:`safe_cell`-ed, for a copy people open in a spreadsheet (the
    static site's download).  Numbers stay as they are.

    >>> print(safe_csv_text('Key,System,Result\\nDemo,"=HYPERLINK(""http://x"",""y"")",-0.5\\n'), end="")
    Key,System,Result
    Demo,"'=HYPERLINK(""http://x"",""y"")",-0.5
    """
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in csv.reader(io.StringIO(text, newline="")):
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()


def _may_hold_text(dtype) -> bool:
    """True for every dtype a text cell can have: ``object``, pandas' ``string`` and pandas 3's
    default ``str`` (both ``StringDtype``), and ``category`` (whose categories may be text)."""
    import pandas as pd

    return (
        pd.api.types.is_object_dtype(dtype)
        or isinstance(dtype, (pd.StringDtype, pd.CategoricalDtype))
        or pd.api.types.is_string_dtype(dtype)
    )


def safe_frame(frame):
    """A copy of a pandas DataFrame whose text cells (and column names) are :func:`safe_cell`-ed.

    Every text dtype is covered, pandas 3's default ``str`` included:

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": pd.array(["=1+1"], dtype="string"), "b": pd.Categorical(["@x"]),
    ...                       "c": pd.Series(["-2+3"], dtype=object)})
    >>> safe_frame(frame).iloc[0].tolist()
    ["'=1+1", "'@x", "'-2+3"]
    """
    import pandas as pd

    frame = frame.copy(deep=False)  # columns are replaced, never changed in place
    for position, dtype in enumerate(frame.dtypes):
        if not _may_hold_text(dtype):
            continue
        values = frame.iloc[:, position].tolist()  # a scan of plain values: most columns need nothing
        if any(isinstance(v, str) and v.startswith(FORMULA_STARTS) for v in values):
            frame.isetitem(
                position,
                pd.Series(
                    [safe_cell(v) for v in values],
                    index=frame.index,
                    dtype=object if isinstance(dtype, pd.CategoricalDtype) else dtype,
                ),
            )
    frame.columns = [safe_cell(c) for c in frame.columns]
    if _may_hold_text(frame.index.dtype):
        frame.index = frame.index.map(safe_cell)
    return frame


def frame_to_csv(frame, **options) -> str:
    """``frame.to_csv(**options)`` (``index=False`` unless given) with formula cells neutralised.

    Without other options, a frame of plain columns (numpy numbers and booleans, text, objects,
    nullable integers and booleans, categories) is written by the standard library's ``csv``
    writer from the cells pandas would hand it (:func:`_cells`, text cells :func:`safe_cell`-ed as
    :func:`safe_frame` does): the same text at a fraction of the cost.

    >>> import pandas as pd
    >>> print(frame_to_csv(pd.DataFrame({"system": ["=1+1", "ok"], "CV*": [-0.5, 2.0]})), end="")
    system,CV*
    '=1+1,-0.5
    ok,2.0
    """
    import csv

    import pandas as pd

    options.setdefault("index", False)
    plain = {"index": False}
    if (
        options in (plain, {**plain, "quoting": csv.QUOTE_NONNUMERIC})
        and len(frame.columns)
        and not isinstance(frame.columns, pd.MultiIndex)
    ):
        text = _write(list(frame.columns), [series for _name, series in frame.items()], nonnumeric="quoting" in options)
        if text is not None:
            return text
    return safe_frame(frame).to_csv(**options)


def columns_to_csv(columns: dict, *, nonnumeric: bool = False) -> str:
    """The text :func:`frame_to_csv` writes for ``pandas.DataFrame(columns)``, without making the
    frame: ``columns`` maps each name to its cells (a numpy or pandas array, a Series, or a list of
    texts, which pandas would read as text); ``nonnumeric`` quotes as ``quoting=csv.QUOTE_NONNUMERIC``.

    >>> import numpy as np
    >>> print(columns_to_csv({"system": ["=1+1", None], "CV*": np.array([-0.5, np.nan])}), end="")
    system,CV*
    '=1+1,-0.5
    ,
    """
    import csv

    import pandas as pd

    text = _write(
        list(columns),
        [pd.Series(v, dtype=object) if isinstance(v, list) else v for v in columns.values()],
        nonnumeric=nonnumeric,
    )
    if text is not None:
        return text
    return frame_to_csv(pd.DataFrame(columns), **({"quoting": csv.QUOTE_NONNUMERIC} if nonnumeric else {}))


def _write(names: list, arrays: list, nonnumeric: bool = False) -> str | None:
    """CSV of columns by the standard library's writer, with pandas' defaults (``QUOTE_MINIMAL``,
    ``"`` doubled, ``os.linesep``), or with ``nonnumeric`` pandas' ``QUOTE_NONNUMERIC`` (every
    cell quoted but the numbers; a missing number is a quoted empty text); ``None`` if a column is
    not one :func:`_cells` writes."""
    import csv
    import io
    import os

    cells = []
    for values in arrays:
        cells.append(_numbers(values) if nonnumeric else None)
        if cells[-1] is None:
            cells[-1] = _cells(values)
        if cells[-1] is None or (nonnumeric and _is_bool(values)):
            return None
    out = io.StringIO()
    writer = csv.writer(
        out, lineterminator=os.linesep, quoting=csv.QUOTE_NONNUMERIC if nonnumeric else csv.QUOTE_MINIMAL
    )
    writer.writerow([safe_cell(name) for name in names])
    writer.writerows(zip(*cells))
    return out.getvalue()


def _is_bool(values) -> bool:
    import pandas as pd

    return pd.api.types.is_bool_dtype(values.dtype)


def _numbers(values):
    """A numeric column's cells for ``QUOTE_NONNUMERIC``: Python floats and ints (written unquoted,
    floats by ``repr``, numpy's shortest round-trip text), ``""`` where missing; None for others."""
    import numpy as np
    import pandas as pd

    dtype = values.dtype
    if _is_bool(values) or not (pd.api.types.is_float_dtype(dtype) or pd.api.types.is_integer_dtype(dtype)):
        return None
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        array = np.asarray(values, dtype=float)
        out = array.astype(object)
        out[np.isnan(array)] = ""
        return out
    if isinstance(dtype, np.dtype):
        return np.asarray(values).astype(object)
    if not pd.api.types.is_integer_dtype(dtype):
        return None  # nullable floats: pandas
    missing = np.asarray(pd.isna(values))
    out = np.array(values.astype(object), dtype=object)
    out[missing] = ""
    return out


def _cells(values):
    """One column's cells as ``DataFrame.to_csv`` (``na_rep=""``) hands them to ``csv.writer``, text
    cells neutralised: numpy floats as numpy's shortest round-trip text, other numpy values and
    every extension array (nullable integers and booleans, text, categories) as Python objects,
    missing cells as ``""``.  ``None`` for anything else (dates, intervals, nullable floats,
    sparse): those go through pandas."""
    import numpy as np
    import pandas as pd

    dtype = values.dtype  # a Series' dtype is numpy's for numpy-backed columns (its .array's is pandas' wrapper)
    values = values.array if isinstance(values, pd.Series) else values
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        array = np.asarray(values)
        text = array.astype(str).astype(object)
        text[np.isnan(array)] = ""
        return text
    if isinstance(dtype, np.dtype) and dtype.kind in "iubO":
        text = np.array(np.asarray(values), dtype=object)
    elif (
        isinstance(dtype, (pd.StringDtype, pd.BooleanDtype))
        or pd.api.types.is_integer_dtype(dtype)
        or (isinstance(dtype, pd.CategoricalDtype) and dtype.categories.dtype.kind not in "Mm")
    ):
        text = np.asarray(values.astype(object))
    else:
        return None
    text[np.asarray(pd.isna(values))] = ""
    if _may_hold_text(dtype) and any(
        isinstance(v, str) and (v.startswith(FORMULA_STARTS) or "\x00" in v) for v in text
    ):
        text = [safe_cell(v) for v in text]
    return text
