"""The paper example studies, shipped as package data (the one copy; ``paper_examples/studies``
links here).  Each JSON file carries the provenance of every number in its ``source`` fields.

>>> "qrapp_example1" in names()
True
>>> load("qrapp_example1").systems
['SVM', 'GeDi', 'DExperts']
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..errors import QRAInputError


def _folder() -> Path:
    return Path(str(resources.files(__name__)))


def names() -> list[str]:
    """Names of the example studies, sorted."""
    return sorted(p.stem for p in _folder().glob("*.json"))


def path(name: str) -> Path:
    """The file of example ``name``."""
    if name not in names():
        raise QRAInputError(f"example: unknown example {name!r}; choose one of {names()}")
    return _folder() / f"{name}.json"


def load(name: str):
    """The example study ``name`` as a :class:`~qra_widgets.Study`."""
    from ..io import load_study

    return load_study(path(name))


def published_table(rows):
    """Computed numbers beside the published ones, rounded to the digits the paper prints.

    ``rows``: ``(what, computed, published_text[, note])``; the published value is given as
    printed (``"13.193"``) so its number of decimals sets the rounding.  A row with a note
    is an explained, expected difference.

    >>> published_table([("CV*", 16.37187, "16.372"), ("mean", 4.97, "4.969", "rounded scores")])[["computed", "match"]].values.tolist()
    [['16.372', True], ['4.970', False]]
    """
    import pandas as pd

    records = []
    for what, computed, published, *note in rows:
        decimals = len(published.split(".")[1]) if "." in published else 0
        shown = round(float(computed), decimals)
        records.append(
            {
                "what": what,
                "computed": f"{shown:.{decimals}f}",
                "published": published,
                "match": shown == float(published),
                "note": note[0] if note else "",
            }
        )
    return pd.DataFrame(records)


def highlight(table):
    """The :func:`published_table` styled: mismatches red, explained differences amber."""

    def colour(row):
        shade = "" if row["match"] else ("background-color: #fff3cd" if row["note"] else "background-color: #f8d7da")
        return [shade] * len(row)

    return table.style.apply(colour, axis=1).hide(axis="index")


def unexplained_mismatches(table) -> list[str]:
    """Rows whose computed value differs from the paper without an explanation."""
    return table.loc[~table["match"] & (table["note"] == ""), "what"].tolist()


def titles() -> dict[str, str]:
    """Example name -> study title, for menus."""
    import json

    return {name: json.loads(path(name).read_text(encoding="utf-8")).get("name", name) for name in names()}
