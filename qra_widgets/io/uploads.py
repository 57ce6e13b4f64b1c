"""The files of one annotation experiment as the app holds them: each parsed once when it is
uploaded (:func:`~qra_widgets.io.annotations.read_frame`), kept for the preview, the layout
guess, the pickers' choices, the answer map and the load, and asked questions in plain Python
(column names, distinct values, answers), so that the Annotations view holds no frame.

:func:`guess_layout` is what a file's headers and content suggest (the user corrects it).
"""

from __future__ import annotations

import re

from ..errors import QRAInputError
from .annotations import guess_mapping

_CHOICE_WORDS = {
    "a",
    "b",
    "true",
    "false",
    "tie",
    "same",
    "equal",
    "neither",
    "both",
    "left",
    "right",
    "first",
    "second",
    "1",
    "2",
    "0",
}


def guess_layout(frame, criteria=()) -> dict:
    """The layout and columns a file's headers *and content* suggest (the user corrects them):

    - best-worst: a best and a worst column, and two or more columns naming the systems shown;
    - pairwise: two columns naming systems from one vocabulary (different on nearly every row)
      and a column of two or three choice words (A/B, True/False, tie) or of those systems' names;
    - long: a criterion and a rating column; else wide (:func:`~qra_widgets.io.annotations.guess_mapping`).

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"worker": ["w1", "w1", "w2"], "ix": ["1", "2", "1"], "system_a": ["x", "y", "z"],
    ...                       "system_b": ["y", "z", "x"], "chose_b": ["True", "False", "True"]})
    >>> guess = guess_layout(frame)
    >>> guess["layout"], guess["system_a"], guess["system_b"], guess["choice"], guess["rater"]
    ('pairwise', 'system_a', 'system_b', 'chose_b', 'worker')
    """
    columns = [str(c) for c in frame.columns]
    unique = [c for c in columns if columns.count(c) == 1]
    guess: dict = dict(guess_mapping(columns, list(criteria)))
    sample = frame[unique].head(2000)
    values = {c: set(sample[c]) - {""} for c in unique}
    lower = {c: c.lower() for c in unique}
    taken = {v for v in guess.values() if isinstance(v, str)}
    for key, patterns in (
        ("rater", (r"worker|annotator|rater|labell?er|participant|judge",)),
        ("item", (r"(^|[._])code$", r"(^|[._])(item|ix|example)(_?id)?$", r"^hitid$")),
    ):
        for pattern in patterns:  # MTurk: WorkerId; the item's code before the HIT's id
            found = next((c for c in unique if c not in taken and re.search(pattern, lower[c])), None)
            if found and key not in guess:
                guess[key] = found
                taken.add(found)
    named = re.compile(r"sys|model|condition|method|left|right|first|second|option")
    systems = sorted(
        (
            c
            for c in unique
            if 2 <= len(values[c]) <= 60 and (named.search(lower[c]) or not all(is_number(v) for v in values[c]))
        ),
        key=lambda c: not named.search(lower[c]),
    )  # numbered columns (task, position) are no systems
    pair = None
    for i, first in enumerate(systems):
        for second in systems[i + 1 :]:
            shared = len(values[first] & values[second]) / len(values[first] | values[second])
            if shared >= 0.5 and (sample[first] != sample[second]).mean() >= 0.9:
                pair = (first, second)
                break
        if pair:
            break
    best = [c for c in unique if "best" in lower[c]]
    worst = [c for c in unique if "worst" in lower[c]]
    if pair and best and worst:
        guess.update(layout="best_worst", shown=list(pair), best=best[0], worst=worst[0])
        guess.pop("system", None)
        return guess
    if pair:
        vocabulary = values[pair[0]] | values[pair[1]] | {"tie"}
        named = sorted(
            (
                c
                for c in unique
                if c not in pair
                and 2 <= len(values[c]) <= 3
                and ({v.lower() for v in values[c]} <= _CHOICE_WORDS or values[c] <= vocabulary)
            ),
            key=lambda c: not re.search(r"chose|choice|prefer|winner|better|answer", lower[c]),
        )
        if named:
            guess.update(layout="pairwise", system_a=pair[0], system_b=pair[1], choice=named[0])
            guess.pop("system", None)
            if guess.get("item") in pair or guess.get("item") == named[0]:
                guess.pop("item")
            return guess
    guess["layout"] = "long" if "rating" in guess and "criterion" in guess else "wide"
    return guess


def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class UploadedFiles:
    """``{file name: parsed table}`` of one experiment's files (they share their columns)."""

    def __init__(self, tables: dict | None = None):
        self._tables = dict(tables or {})

    @classmethod
    def read(cls, files: dict[str, bytes], sheet: str | None = None) -> UploadedFiles:
        """Parse each file once (a file that cannot be read raises QRAInputError naming it)."""
        from .annotations import entry_file_bytes, read_frame

        tables = {}
        for name, data in files.items():
            data, shown = entry_file_bytes(name, files={name: data})
            tables[name] = read_frame(data, shown, sheet)
        return cls(tables)

    def __bool__(self) -> bool:
        return bool(self._tables)

    def __len__(self) -> int:
        return len(self._tables)

    def merged(self, other: UploadedFiles) -> UploadedFiles:
        return UploadedFiles({**self._tables, **other._tables})

    def parsed(self) -> dict:
        """``{file name: parsed table}``, for the load (which does not parse them again)."""
        return dict(self._tables)

    def rows(self) -> int:
        """The rows of every file."""
        return sum(len(table) for table in self._tables.values())

    def columns(self) -> list[str]:
        """The first file's column names, in order (a name may repeat)."""
        return list(next(iter(self._tables.values())).columns) if self._tables else []

    def combined(self):
        """All the files as one table."""
        import pandas as pd

        tables = list(self._tables.values())
        return tables[0] if len(tables) == 1 else pd.concat(tables, ignore_index=True)

    def distinct(self, column: str) -> list[str]:
        """The non-empty values of ``column``, sorted."""
        return sorted(set(self.combined()[column]) - {""})

    def values_in(self, columns: list[str], entry: dict | None = None) -> list[str]:
        """The non-empty values of each of ``columns`` (named once in the files), in the order
        found, of the rows the row filters of ``entry`` keep."""
        from .layout_rows import Table, select_rows

        frame = self.combined()
        if entry:
            frame = select_rows(Table.of(frame, "preview"), entry).frame
        names = self.columns()
        found: dict[str, None] = {}
        for column in columns:
            if column in frame.columns and names.count(column) == 1:
                found.update(dict.fromkeys(v for v in frame[column] if v))
        return list(found)

    def answers(self, columns: list, missing: set, where: str) -> list[str]:
        """The distinct answers (as text) in ``columns`` (a name, or a 1-based position), in the order
        found, but the ``missing`` marks; a name that several columns share is refused."""
        frame = self.combined()
        found: dict[str, None] = {}
        for column in columns:
            cells = frame.iloc[:, column - 1] if isinstance(column, int) else frame[column]
            if getattr(cells, "ndim", 1) != 1:
                raise QRAInputError(
                    f"{where}: several columns are named {column!r}; use the form layout and name them by position"
                )
            found.update(dict.fromkeys(v for v in cells.astype(str) if v not in missing))
        return list(found)

    def guess(self, criteria=()) -> dict:
        """:func:`guess_layout` of all the files."""
        return guess_layout(self.combined(), criteria)

    def preview(self, rows: int, cell: int):
        """The first file's name, its first ``rows`` rows (each cell cut at ``cell`` characters, "…"
        marking a cut) and its row count: what the card's preview shows."""
        name, frame = next(iter(self._tables.items()))
        head = frame.head(rows).map(lambda v: v if len(v) <= cell else v[:cell] + "…")
        return name, head, len(frame)
