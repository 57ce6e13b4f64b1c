"""The comparative layouts, ``pairwise`` and ``best_worst``: their judgements (one row per
comparison shown and rater), the ratings they give each system, and the system values and
sign tests computed from the judgements (:mod:`qra_widgets.measures.pairwise`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import QRAInputError
from ..limits import check_pairwise
from ..limits import shown as _shown
from .layout_keys import OUTCOMES, _suggest
from .layout_rows import (
    JUDGEMENT_FIELDS,
    RATING_FIELDS,
    Part,
    Table,
    _answers_found,
    _empty_ratings,
    _mapped,
    _merged,
    _objects,
    _present,
    _system_names,
    check_items,
)


def _pairwise_encoding(score: str, ties: str) -> tuple[dict[str, float], tuple[float, float]]:
    """Per outcome, the rating stored for the system (won / tie / lost), and the range of the values."""
    if score == "preference":
        return {"won": 100.0, "tie": 0.0, "lost": -100.0}, (-100.0, 100.0)
    return {"won": 100.0, "tie": 50.0, "lost": 0.0}, (0.0, 100.0)


def _check_range(qc, low: float, high: float, what: str, source: str) -> None:
    if qc.scale_min > low or (qc.scale_max is not None and qc.scale_max < high):
        raise QRAInputError(
            f"{source}: {what} gives values {low:g}..{high:g}, but quality criterion "
            f"{_shown(qc.name)} has the scale "
            f"{qc.scale_min:g}..{'' if qc.scale_max is None else f'{qc.scale_max:g}'}; set its "
            f"scale_min and scale_max to {low:g} and {high:g}"
        )


def outcomes(answers: np.ndarray, choices: dict | None, table: Table, rows: np.ndarray, label: str) -> np.ndarray:
    """Each answer of a choice column as ``a``, ``b`` or ``tie`` (through ``choices`` when given);
    any other answer is an error naming its row and listing every answer found."""
    outcome = _mapped(answers, choices, table, rows, label, "choices") if choices is not None else answers
    bad = ~np.isin(outcome, np.array(OUTCOMES, dtype=object))
    if bad.any():
        i = int(np.argmax(bad))
        raise QRAInputError(
            f"{table.source}: row {rows[i]}, {label}: answer {_shown(answers[i])} is not "
            f'a, b or tie; map the answers with "choices" (the answers found are '
            f"{_answers_found(answers)})"
        )
    return outcome.astype(object)


def judgements_from(
    table: Table,
    *,
    qc: str,
    item: np.ndarray,
    rater: np.ndarray,
    system_a: np.ndarray,
    system_b: np.ndarray,
    outcome: np.ndarray,
    rows: np.ndarray,
) -> dict:
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
    return {
        "quality_criterion": np.full(n, qc, dtype=object),
        "unit": unit,
        "rater": rater,
        "system_a": system_a,
        "system_b": system_b,
        "outcome": outcome,
        "shown": np.empty(n, dtype=object),
        "best": np.empty(n, dtype=object),
        "worst": np.empty(n, dtype=object),
        "code_system": chosen.astype(object),
        "code_position": outcome.astype(object),
        "row": rows,
    }


def pairwise_ratings(j: dict, score: str, ties: str, column_label: str) -> dict[str, np.ndarray]:
    """The ratings a pairwise judgement gives each of its two systems (see :func:`_pairwise_encoding`);
    the item of a rating is the judgement's unit and the system (``unit|system``)."""
    points, _ = _pairwise_encoding(score, ties)
    keep = (
        np.ones(len(j["unit"]), dtype=bool)
        if not (score == "win_rate" and ties == "exclude")
        else j["outcome"] != "tie"
    )
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


def read_pairwise(
    table: Table, entry: dict, criteria: dict, systems_map: dict, missing: set, choices: dict | None
) -> Part:
    """The ``pairwise`` layout (see the module docstring)."""
    columns = entry["columns"]
    score, ties = entry.get("score", "preference"), entry.get("ties", "half")
    item = table.column(columns["item"], "item")
    rater = (
        table.column(columns["rater"], "rater")
        if columns.get("rater")
        else np.array([f"{table.source} row {r}" for r in table.rows], dtype=object)
    )
    system_a = _system_names(table.column(columns["system_a"], "system_a"), systems_map)
    system_b = _system_names(table.column(columns["system_b"], "system_b"), systems_map)
    if "criteria" in columns:
        refs = dict(columns["criteria"])
    else:
        rated = entry.get("criteria") or list(criteria)
        if len(rated) != 1:
            raise QRAInputError(
                f"{table.source}: 'choice' is for one criterion; the spec has {len(rated)} — map each "
                f"criterion to its choice column with columns.criteria"
            )
        refs = {rated[0]: columns["choice"]}
    part = Part(_merged(_empty_ratings()))
    ratings = []
    for qc, ref in refs.items():
        if qc not in criteria:
            raise QRAInputError(
                f"{table.source}: columns.criteria names {_shown(qc)}, not a quality criterion of the spec"
                + _suggest(qc, list(criteria))
            )
        _check_range(
            criteria[qc], *_pairwise_encoding(score, ties)[1], f"the pairwise score {_shown(score)}", table.source
        )
        cells = table.column(ref, qc)
        present = _present(cells, missing)
        at = table.rows[present]
        answers = cells[present]
        outcome = outcomes(answers, choices, table, at, table.label(ref))
        j = judgements_from(
            table,
            qc=qc,
            item=item[present],
            rater=rater[present],
            system_a=system_a[present],
            system_b=system_b[present],
            outcome=outcome,
            rows=at,
        )
        if (
            score == "bradley_terry"
        ):  # max_pairwise, before sign tests and the fit (again over all files of the experiment)
            check_pairwise(len(j["unit"]), len(set(j["system_a"].tolist()) | set(j["system_b"].tolist())), table.source)
        part.judgements.append(j)
        part.rules[qc] = {"layout": "pairwise", "score": score, "ties": ties}
        ratings.append(pairwise_ratings(j, score, ties, table.label(ref)))
    part.ratings = {k: np.concatenate([r[k] for r in ratings]) for k in RATING_FIELDS}
    check_items(part.ratings, table.source, {"item": "item", "rater": columns.get("rater")})
    return part


# ----------------------------------------------------------------------------- best-worst


def read_best_worst(
    table: Table, entry: dict, criteria: dict, systems_map: dict, missing: set, choices: dict | None
) -> Part:
    """The ``best_worst`` layout (see the module docstring)."""
    columns = entry["columns"]
    by = entry.get("best_worst_by", "system")
    item = table.column(columns["item"], "item")
    rater = (
        table.column(columns["rater"], "rater")
        if columns.get("rater")
        else np.array([f"{table.source} row {r}" for r in table.rows], dtype=object)
    )
    shown = np.stack([_system_names(table.column(ref, "shown"), systems_map) for ref in columns["shown"]], axis=1)
    if "criteria" in columns:
        refs = {qc: (pair["best"], pair["worst"]) for qc, pair in columns["criteria"].items()}
    else:
        rated = entry.get("criteria") or list(criteria)
        if len(rated) != 1:
            raise QRAInputError(
                f"{table.source}: 'best' and 'worst' are for one criterion; the spec has {len(rated)} — "
                f"map each criterion with columns.criteria"
            )
        refs = {rated[0]: (columns["best"], columns["worst"])}
    part = Part(_merged(_empty_ratings()))
    ratings = []
    k = shown.shape[1]
    for qc, (best_ref, worst_ref) in refs.items():
        if qc not in criteria:
            raise QRAInputError(
                f"{table.source}: columns.criteria names {_shown(qc)}, not a quality criterion of the spec"
                + _suggest(qc, list(criteria))
            )
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
                    raise QRAInputError(
                        f"{table.source}: row {at[i]}, {table.label(ref)}: answer {_shown(cells[i])} is "
                        f"not a position 1..{k} of the {k} systems shown (best_worst_by: position; map "
                        f'answers with "choices"; the answers found are {_answers_found(cells)})'
                    )
                picked.append(position.astype(int) - 1)
            else:
                names = _system_names(answer.astype(str).astype(object), systems_map)
                rows_shown = shown[present]
                where = np.array([list(r).index(n) if n in r else -1 for r, n in zip(rows_shown.tolist(), names)])
                if (where < 0).any():
                    i = int(np.argmax(where < 0))
                    raise QRAInputError(
                        f"{table.source}: row {at[i]}, {table.label(ref)}: {_shown(names[i])} is not "
                        f"among the systems shown ({', '.join(map(str, rows_shown[i]))})"
                    )
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
        unit = np.array(
            [f"{i} [{' vs '.join(sorted(map(str, t)))}]" for i, t in zip(item[present], tuples)], dtype=object
        )
        n = len(at)
        part.judgements.append(
            {
                "quality_criterion": np.full(n, qc, dtype=object),
                "unit": unit,
                "rater": rater[present],
                "system_a": np.empty(n, dtype=object),
                "system_b": np.empty(n, dtype=object),
                "outcome": np.empty(n, dtype=object),
                "shown": _objects([tuple(t) for t in tuples.tolist()]),
                "best": best,
                "worst": worst,
                "code_system": np.array([f"best {b}, worst {w}" for b, w in zip(best, worst)], dtype=object),
                "code_position": np.array(
                    [f"best {b + 1}, worst {w + 1}" for b, w in zip(best_at, worst_at)], dtype=object
                ),
                "row": at,
            }
        )
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


def system_values(judgements: list[dict], rule: dict, source: str = "pairwise judgements") -> dict[str, float]:
    """One criterion's system values in one experiment from its judgements, by its rule."""
    from ..measures import pairwise as pw

    merged = {k: np.concatenate([j[k] for j in judgements]) for k in JUDGEMENT_FIELDS}
    if rule["layout"] == "best_worst":
        return pw.best_worst_scores(merged["shown"], merged["best"], merged["worst"])
    a, b, o = merged["system_a"], merged["system_b"], merged["outcome"]
    if rule["score"] == "bradley_terry":  # max_pairwise: before the systems x systems win matrix
        check_pairwise(len(a), len(set(a.tolist()) | set(b.tolist())), source)
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
    records = []
    for row in sign_tests(a, b, o):
        records.append(
            {
                "experiment": experiment,
                "quality_criterion": quality_criterion,
                "system_x": row["system_x"],
                "system_y": row["system_y"],
                "wins_x": int(row["wins_x"]),
                "wins_y": int(row["wins_y"]),
                "ties": int(row["ties"]),
                "p": None if np.isnan(row["p"]) else float(row["p"]),
                "p_holm": None if np.isnan(row["p_holm"]) else float(row["p_holm"]),
            }
        )
    return records
