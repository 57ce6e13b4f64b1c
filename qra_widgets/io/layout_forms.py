"""The ``items_in_columns`` layout (a form export: one row per rater, one column per item):
each listed column is melted into a rating or a pairwise judgement per rater.
"""

from __future__ import annotations

import numpy as np

from ..errors import QRAInputError
from ..limits import shown as _shown
from .layout_pairwise import _check_range, _pairwise_encoding, judgements_from, outcomes, pairwise_ratings
from .layout_rows import (
    RATING_FIELDS,
    Part,
    Table,
    _answers_found,
    _criterion_of_item,
    _empty_ratings,
    _mapped,
    _merged,
    _present,
    check_items,
)


def read_items_in_columns(
    table: Table,
    entry: dict,
    criteria: dict,
    systems_map: dict,
    missing: set,
    values: dict | None,
    choices: dict | None,
) -> Part:
    """The ``items_in_columns`` layout: each listed column is melted into a rating or a
    judgement per rater (row), then read like ``long`` or ``pairwise``."""
    columns = entry.get("columns") or {}
    rater = (
        table.column(columns["rater"], "rater")
        if columns.get("rater")
        else np.array([f"{table.source} row {r}" for r in table.rows], dtype=object)
    )
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
            raise QRAInputError(
                f"{where}: quality criterion {_shown(qc)} has both rated and compared items; an "
                f"experiment reads one or the other per criterion"
            )
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
                    raise QRAInputError(
                        f"{table.source}: row {at[i]}, {label}: {_shown(answers[i])} is not a number; "
                        f'map answer texts with "values" (the answers found are {_answers_found(answers)})'
                    )
            q = criteria[qc]
            outside = (numbers < q.scale_min) | ((numbers > q.scale_max) if q.scale_max is not None else False)
            if outside.any():
                i = int(np.argmax(outside))
                raise QRAInputError(
                    f"{table.source}: row {at[i]}, {label}: {numbers[i]:g} is outside the scale of {_shown(qc)}"
                )
            system = systems_map.get(spec_item["system"], spec_item["system"])
            rating_rows["quality_criterion"].append(np.full(len(at), qc, dtype=object))
            rating_rows["system"].append(np.full(len(at), system, dtype=object))
            rating_rows["item"].append(np.full(len(at), item_id, dtype=object))
            rating_rows["rater"].append(who)
            rating_rows["rating"].append(numbers)
            rating_rows["row"].append(at)
            rating_rows["column"].append(np.full(len(at), label, dtype=object))
        else:
            outcome = outcomes(answers, choices, table, at, label)
            _check_range(
                criteria[qc], *_pairwise_encoding(score, ties)[1], f"the pairwise score {_shown(score)}", table.source
            )
            a = systems_map.get(spec_item["system_a"], spec_item["system_a"])
            b = systems_map.get(spec_item["system_b"], spec_item["system_b"])
            pair_rows.append(
                (
                    qc,
                    judgements_from(
                        table,
                        qc=qc,
                        item=np.full(len(at), item_id, dtype=object),
                        rater=who,
                        system_a=np.full(len(at), a, dtype=object),
                        system_b=np.full(len(at), b, dtype=object),
                        outcome=outcome,
                        rows=at,
                    ),
                    label,
                )
            )
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
