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

The modules: :mod:`~qra_widgets.io.layout_keys` (the grammar of the spec's keys, and the
``scores`` an entry reports directly), :mod:`~qra_widgets.io.layout_rows` (the file's cells,
row selection, answer maps, ``long`` and ``wide``), :mod:`~qra_widgets.io.layout_pairwise`
(``pairwise`` and ``best_worst``, their system values and sign tests) and
:mod:`~qra_widgets.io.layout_forms` (``items_in_columns``).
"""

from __future__ import annotations

import numpy as np

from .layout_forms import read_items_in_columns
from .layout_keys import entry_layout
from .layout_pairwise import read_best_worst, read_pairwise
from .layout_rows import Part, Table, read_ratings


def read_entry(
    table: Table,
    entry: dict,
    criteria: dict,
    systems_map: dict,
    missing: set,
    values: dict | None,
    choices: dict | None,
) -> Part:
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
    part.ratings["source"] = np.full(
        len(part.ratings["rating"]), table.source, dtype=object
    )  # which file, for messages
    return part
