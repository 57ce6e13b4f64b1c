"""The same ratings written in each layout the spec grammar reads give the same study (issue 29):
long CSV, ``;`` CSV, raters in columns (``{"raters": {...}}``), one file per rater (``files``
entries with a ``rater`` constant), and JSON Lines with the raters' annotations nested in each
record (``explode``).  Hypothesis draws the ratings (with missing cells); the study from the long
CSV is the reference."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qra_widgets.io.annotations import load_annotations

CRITERIA = ("Fluency", "Accuracy")


@st.composite
def ratings(draw):
    """``{experiment: {(system, item, rater, criterion): rating}}`` and the raters."""
    n_systems = draw(st.integers(1, 3))
    n_items = draw(st.integers(1, 3))
    raters = [f"r{i}" for i in range(draw(st.integers(1, 3)))]
    result = {}
    for experiment in ("O", "R"):
        cells = {}
        for s in range(n_systems):
            for i in range(n_items):
                for rater in raters:
                    for qc in CRITERIA:
                        value = draw(st.one_of(st.none(), st.integers(1, 5)))
                        if value is not None:
                            cells[(f"S{s}", f"{experiment}{s}-{i}", rater, qc)] = value
        for qc in CRITERIA:  # the long layout needs each criterion's rows in each file
            if not any(key[3] == qc for key in cells):
                cells[("S0", f"{experiment}0-0", raters[0], qc)] = draw(st.integers(1, 5))
        result[experiment] = cells
    return result, raters


def _csv(rows: list[list], delimiter: str = ",") -> bytes:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return out.getvalue().encode()


def _units(cells: dict) -> list[tuple[str, str]]:
    return sorted({(s, i) for (s, i, _r, _q) in cells})


def _spec(entries: list[dict]) -> dict:
    return {
        "schema": "qra-widgets/annotations",
        "version": 1,
        "id": "layouts",
        "quality_criteria": [{"name": qc, "scale_min": 1, "scale_max": 5} for qc in CRITERIA],
        "experiments": entries,
    }


def long_layout(data, raters, delimiter=","):
    files, entries = {}, []
    for experiment, cells in data.items():
        rows = [["system", "item", "rater", "criterion", "rating"]] + [
            [s, i, r, q, v] for (s, i, r, q), v in sorted(cells.items())
        ]
        name = f"{experiment}.csv"
        files[name] = _csv(rows, delimiter)
        entries.append(
            {
                "id": experiment,
                "role": "original" if experiment == "O" else "repeat",
                "file": name,
                "columns": {
                    "system": "system",
                    "item": "item",
                    "rater": "rater",
                    "criterion": "criterion",
                    "rating": "rating",
                },
            }
        )
    return files, entries


def semicolon_layout(data, raters):
    return long_layout(data, raters, ";")


def raters_in_columns(data, raters):
    files, entries = {}, []
    for experiment, cells in data.items():
        header = ["system", "item"] + [f"{q} ({r})" for q in CRITERIA for r in raters]
        rows = [header] + [
            [s, i] + [cells.get((s, i, r, q), "") for q in CRITERIA for r in raters] for s, i in _units(cells)
        ]
        name = f"{experiment}.csv"
        files[name] = _csv(rows)
        entries.append(
            {
                "id": experiment,
                "role": "original" if experiment == "O" else "repeat",
                "file": name,
                "columns": {
                    "system": "system",
                    "item": "item",
                    "criteria": {q: {"raters": {r: f"{q} ({r})" for r in raters}} for q in CRITERIA},
                },
            }
        )
    return files, entries


def file_per_rater(data, raters):
    files, entries = {}, []
    for experiment, cells in data.items():
        listed = []
        for rater in raters:
            mine = [(s, i) for s, i in _units(cells) if any((s, i, rater, q) in cells for q in CRITERIA)]
            if not mine:
                continue
            name = f"{experiment}-{rater}.csv"
            files[name] = _csv(
                [["system", "item", *CRITERIA]]
                + [[s, i] + [cells.get((s, i, rater, q), "") for q in CRITERIA] for s, i in mine]
            )
            listed.append({"file": name, "rater": rater})
        entries.append(
            {
                "id": experiment,
                "role": "original" if experiment == "O" else "repeat",
                "files": listed,
                "columns": {"system": "system", "item": "item", "criteria": {q: q for q in CRITERIA}},
            }
        )
    return files, entries


def nested_json_lines(data, raters):
    files, entries = {}, []
    for experiment, cells in data.items():
        lines = []
        for s, i in _units(cells):
            annotations = [{"who": r, "scores": {q: cells.get((s, i, r, q)) for q in CRITERIA}} for r in raters]
            lines.append(json.dumps({"model": {"name": s}, "id": i, "annotations": annotations}))
        name = f"{experiment}.jsonl"
        files[name] = ("\n".join(lines) + "\n").encode()
        entries.append(
            {
                "id": experiment,
                "role": "original" if experiment == "O" else "repeat",
                "file": name,
                "explode": "annotations",
                "columns": {
                    "system": "model.name",
                    "item": "id",
                    "rater": "annotations.who",
                    "criteria": {q: f"annotations.scores.{q}" for q in CRITERIA},
                },
            }
        )
    return files, entries


def _study(layout, data, raters):
    files, entries = layout(data, raters)
    return load_annotations(_spec(entries), files=files)


def _same(study, reference) -> None:
    keys = ["quality_criterion", "system", "item", "experiment", "rater"]
    ours = study.ratings.frame().sort_values(keys).reset_index(drop=True)
    theirs = reference.ratings.frame().sort_values(keys).reset_index(drop=True)
    assert ours[keys].astype(str).equals(theirs[keys].astype(str))
    assert np.array_equal(ours.rating.to_numpy(float), theirs.rating.to_numpy(float))
    assert set(study.scores) == set(reference.scores)
    for key, value in reference.scores.items():
        assert study.scores[key] == pytest.approx(value, rel=1e-12)
    assert sorted(study.systems) == sorted(reference.systems)
    assert study.labels == reference.labels


@pytest.mark.parametrize(
    "layout", [semicolon_layout, raters_in_columns, file_per_rater, nested_json_lines], ids=lambda f: f.__name__
)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn=ratings())
def test_each_layout_gives_the_study_of_the_long_csv(layout, drawn):
    data, raters = drawn
    _same(_study(layout, data, raters), _study(long_layout, data, raters))


@settings(max_examples=20, deadline=None)
@given(drawn=ratings())
def test_a_constant_system_and_an_omitted_system_give_the_same_label_only_study(drawn):
    data, raters = drawn
    files, entries = long_layout(data, raters)
    omitted = [{**e, "columns": {k: v for k, v in e["columns"].items() if k != "system"}} for e in entries]
    constant = [{**e, "columns": {**e["columns"], "system": {"constant": "all"}}} for e in entries]
    a, b = load_annotations(_spec(omitted), files=files), load_annotations(_spec(constant), files=files)
    assert a.systems == b.systems == ["all"]
    _same(a, b)


@settings(max_examples=20, deadline=None)
@given(drawn=ratings())
def test_row_keys_and_index_keys_name_items_and_raters_by_position(drawn):
    """``{"row": true}`` numbers the records as the item; ``{"index": "annotations"}`` names each
    nested annotation's rater by its position: the study is the long CSV's with items and raters
    renamed by those positions."""
    data, raters = drawn
    files, entries = nested_json_lines(data, raters)
    for entry in entries:
        entry["columns"].update(item={"row": True}, rater={"index": "annotations"})
    study = load_annotations(_spec(entries), files=files)
    renamed = {}
    for experiment, cells in data.items():
        number = {unit: str(k) for k, unit in enumerate(_units(cells), 1)}
        renamed[experiment] = {(s, number[(s, i)], str(raters.index(r)), q): v for (s, i, r, q), v in cells.items()}
    # items are numbered per file, so the two experiments' items share numbers; keep them apart by system
    frame = study.ratings.frame()
    got = {
        (row.experiment, row.system, row.item, row.rater, row.quality_criterion): row.rating
        for row in frame.itertuples()
    }
    want = {(e, s, i, r, q): float(v) for e, cells in renamed.items() for (s, i, r, q), v in cells.items()}
    assert got == want
