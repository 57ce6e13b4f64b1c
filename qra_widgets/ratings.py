"""Item-level ratings, stored column-wise, and what a study derives from them.

A reproduction team starts from ratings: one number per (quality criterion, system, item,
experiment, rater).  :class:`Ratings` keeps them as six arrays (like
:class:`~qra_widgets.labels.Labels`) and derives

* **Type I** system means (:meth:`Ratings.system_means`): a system's measured value in an
  experiment is the mean of *all* its ratings there (``how="mean"``, the default, which is
  what teams publish, e.g. van Miltenburg et al. 2024's 3.125 / 2.570 / 2.275), or the mean
  of the item means (``how="item_mean"``), or the median of all ratings (``how="median"``);
* **Type III** item labels (:meth:`Ratings.item_labels`): each experiment's label for an
  item aggregates its raters' ratings by a rule that fits the criterion's ``label_level``
  (:data:`LABEL_RULES`): the *median* for ordinal, and when it falls between two integer
  scale points (an even number of raters who disagree) the even one of the two (round half to
  even), so the label is always a scale point and is not pushed down or up by the number of
  raters (the lower median would make a two-rater label the minimum of the two ratings); the
  *mode* for nominal (ties go to the smallest category), the *mean* for interval and ratio;
* **annotator agreement** within each experiment (:func:`annotator_agreement`):
  Krippendorff's alpha at the criterion's level, Fleiss' kappa, Cohen's kappa (exactly two
  raters), Gwet's AC1 and Brennan-Prediger generalised to many raters (Gwet 2014).

Numbers only; reading files is :mod:`qra_widgets.io.annotations`' job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import QRAInputError

KEY_FIELDS = ("quality_criterion", "system", "item", "experiment", "rater")
FIELDS = (*KEY_FIELDS, "rating")
AGGREGATIONS = ("mean", "item_mean", "median")
LABEL_RULES = {
    "ordinal": "median (between two integer scale points: the even one)",
    "nominal": "mode (ties: smallest category)",
    "interval": "mean",
    "ratio": "mean",
}
AGREEMENT_COLUMNS = ["experiment", "quality_criterion", "measure", "value", "n_items", "n_raters", "note"]


def _objects(values) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    array[:] = list(values) if not isinstance(values, np.ndarray) else values
    return array


def _check_columns(data: Any, fields: tuple[str, ...], text_fields: tuple[str, ...], where: str) -> None:
    """A stored column-wise object: a dict with one list per field, the ``text_fields`` all text."""
    if not isinstance(data, dict):
        raise QRAInputError(f"{where}: expected an object with one list per field {list(fields)}")
    missing = [f for f in fields if not isinstance(data.get(f), list)]
    if missing:
        raise QRAInputError(f"{where}: missing list(s) {missing}")
    for name in text_fields:
        bad = [i for i, v in enumerate(data[name]) if not isinstance(v, str)]
        if bad:
            raise QRAInputError(f"{where}.{name}[{bad[0]}]: expected text, got {data[name][bad[0]]!r}")


class Ratings:
    """Ratings keyed by ``(quality_criterion, system, item, experiment, rater)``, column-wise.

    ``spec`` is the annotation spec they were read with (:mod:`qra_widgets.io.annotations`),
    kept so that a saved study says where its ratings came from.

    >>> r = Ratings.from_columns(["Q"] * 4, ["A", "A", "B", "B"], ["i1", "i1", "i2", "i2"],
    ...                          ["E"] * 4, ["r1", "r2", "r1", "r2"], [1, 2, 4, 4])
    >>> len(r), r.system_means("Q")
    (4, {('A', 'E'): 1.5, ('B', 'E'): 4.0})
    """

    def __init__(
        self, columns: tuple[np.ndarray, ...] | None = None, spec: dict | None = None, choices: Choices | None = None
    ):
        if columns is None:
            columns = tuple(_objects([]) for _ in KEY_FIELDS) + (np.array([], dtype=float),)
        self._columns = columns
        self.spec = spec
        self.choices = choices  # the raw choices of pairwise / best-worst judgements (annotator agreement)

    @classmethod
    def from_columns(
        cls, quality_criterion, system, item, experiment, rater, rating, spec: dict | None = None
    ) -> Ratings:
        keys = tuple(_objects(c) for c in (quality_criterion, system, item, experiment, rater))
        values = np.asarray(rating, dtype=float)
        if len({len(c) for c in keys} | {len(values)}) != 1:
            raise QRAInputError("ratings: the six columns differ in length")
        return cls(keys + (values,), spec)

    # ------------------------------------------------------------------ data

    def columns(self) -> tuple[np.ndarray, ...]:
        """``(quality_criterion, system, item, experiment, rater, rating)``; rating is float."""
        return self._columns

    def __len__(self) -> int:
        return len(self._columns[0])

    def __bool__(self) -> bool:
        return len(self) > 0

    def answer_counts(self) -> tuple[int, int]:
        """``(direct ratings, comparative judgements)``: the answers raters gave.  A pairwise or
        best-worst judgement is one answer, though it is stored as one rating per system shown
        (two for a pair), so ``len(ratings)`` counts it twice or more.

        >>> r = Ratings.from_columns(["Q"] * 4, ["x", "y", "x", "y"], ["u|x", "u|y", "v|x", "v|y"],
        ...                          ["E"] * 4, ["r1"] * 4, [100, -100, -100, 100])
        >>> r.choices = Choices.from_columns(["Q"] * 2, ["E"] * 2, ["u", "v"], ["r1"] * 2, ["x", "y"], ["a", "b"],
        ...                                  coding={"E": "system"})
        >>> len(r), r.answer_counts()
        (4, (0, 2))
        """
        if self.choices is None or not len(self.choices):
            return len(self), 0
        judged = self.choices.judged()
        derived = np.fromiter(
            ((q, e) in judged for q, e in zip(self._columns[0], self._columns[3])), dtype=bool, count=len(self)
        )
        return int((~derived).sum()), len(self.choices)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Ratings):
            return NotImplemented
        return (
            len(self) == len(other)
            and all(np.array_equal(a, b) for a, b in zip(self._columns, other._columns))
            and self.spec == other.spec
            and self.choices == other.choices
        )

    def __repr__(self) -> str:
        return f"Ratings({len(self)} ratings)"

    def frame(self):
        """The ratings as a DataFrame with columns :data:`FIELDS`."""
        import pandas as pd

        return pd.DataFrame(dict(zip(FIELDS, self._columns)))

    def criteria(self) -> list[str]:
        import pandas as pd

        return [str(c) for c in pd.unique(self._columns[0])] if len(self) else []

    def experiments(self) -> set[str]:
        import pandas as pd

        return set(pd.unique(self._columns[3])) if len(self) else set()

    def for_criterion(self, quality_criterion: str) -> tuple[np.ndarray, ...]:
        """``(system, item, experiment, rater, rating)`` of one criterion."""
        keep = self._columns[0] == quality_criterion
        return tuple(c[keep] for c in self._columns[1:])

    def select(self, position: int, values, keep: bool = True) -> Ratings:
        """The ratings whose key part ``position`` is (``keep``) or is not in ``values``."""
        mask = np.isin(self._columns[position], np.asarray(list(values), dtype=object))
        chosen = mask if keep else ~mask
        choices = self.choices.select(position, values, keep) if self.choices is not None else None
        return Ratings(tuple(c[chosen] for c in self._columns), self.spec, choices)

    def renamed(self, position: int, old: str, new: str) -> Ratings:
        columns = [c.copy() for c in self._columns]
        columns[position][columns[position] == old] = new
        choices = self.choices.renamed(position, old, new) if self.choices is not None else None
        return Ratings(tuple(columns), self.spec, choices)

    # ------------------------------------------------------------------ JSON (columnar: one list per field)

    def to_dict(self) -> dict[str, Any]:
        data = {name: column.tolist() for name, column in zip(FIELDS, self._columns)}
        if self.choices is not None:
            data["choices"] = self.choices.to_dict()
        return {"fields": list(FIELDS), **data}

    @classmethod
    def from_dict(cls, data: Any, spec: dict | None = None, where: str = "ratings") -> Ratings:
        _check_columns(data, FIELDS, KEY_FIELDS, where)
        bad = [i for i, v in enumerate(data["rating"]) if isinstance(v, bool) or not isinstance(v, (int, float))]
        if bad:
            raise QRAInputError(f"{where}.rating[{bad[0]}]: expected a number, got {data['rating'][bad[0]]!r}")
        ratings = cls.from_columns(*(data[f] for f in FIELDS), spec=spec)
        if data.get("choices") is not None:
            ratings.choices = Choices.from_dict(data["choices"], f"{where}.choices")
        return ratings

    # ------------------------------------------------------------------ validation (called by Study.validate)

    def check(self, quality_criteria: dict, systems, experiments) -> None:
        """Names must be the study's; ratings finite and on the criterion's scale."""
        if not len(self):
            return
        names = (
            tuple((q.name, q.scale_min, q.scale_max) for q in quality_criteria.values()),
            tuple(systems),
            tuple(experiments),
        )
        if getattr(self, "_checked_for", None) == names:  # ratings never change in place: check once per study shape
            return
        import pandas as pd  # only when there are ratings to check (a new study's first render needs no pandas)

        qc, system, item, experiment, rater, rating = self._columns
        where = lambda i: (
            f"rating by {rater[i]!r} of item {item[i]!r} of {system[i]!r} in experiment {experiment[i]!r} on {qc[i]!r}"
        )
        for values, known, what in (
            (qc, list(quality_criteria), "quality criterion"),
            (system, systems, "system"),
            (experiment, experiments, "experiment"),
        ):
            unknown = ~pd.Series(values, dtype=object).isin(list(known)).to_numpy()
            if unknown.any():
                i = int(np.argmax(unknown))
                raise QRAInputError(f"{where(i)}: unknown {what} {values[i]!r}")
        if not np.isfinite(rating).all():
            i = int(np.argmax(~np.isfinite(rating)))
            raise QRAInputError(f"{where(i)}: rating is missing or not finite")
        for name, criterion in quality_criteria.items():
            rows = qc == name
            low = rows & (rating < criterion.scale_min)
            high = rows & (rating > criterion.scale_max) if criterion.scale_max is not None else np.zeros_like(rows)
            if low.any() or high.any():
                i = int(np.argmax(low | high))
                raise QRAInputError(
                    f"{where(i)}: {rating[i]:g} is outside the scale {criterion.scale_min:g}.."
                    f"{criterion.scale_max if criterion.scale_max is not None else 'inf'} of {name!r}"
                )
        frame = pd.DataFrame({"q": qc, "i": item, "e": experiment, "s": system})
        clash = frame.groupby(["q", "e", "i"], sort=False).s.transform("nunique").to_numpy() > 1
        if clash.any():
            i = int(np.argmax(clash))
            raise QRAInputError(
                f"{where(i)}: item {item[i]!r} is rated under more than one system in {experiment[i]!r}"
            )
        self._checked_for = names

    # ------------------------------------------------------------------ derived results

    def system_means(self, quality_criterion: str, how: str = "mean") -> dict[tuple[str, str], float]:
        """``{(system, experiment): value}``: Type I values of one criterion (see the module docstring)."""
        import pandas as pd

        if how not in AGGREGATIONS:
            raise QRAInputError(f"aggregation: must be one of {AGGREGATIONS}, got {how!r}")
        system, item, experiment, _rater, rating = self.for_criterion(quality_criterion)
        frame = pd.DataFrame({"s": system, "i": item, "e": experiment, "v": rating})
        if how == "item_mean":
            frame = frame.groupby(["s", "e", "i"], sort=False).v.mean().reset_index()
        grouped = frame.groupby(["s", "e"], sort=False).v
        values = grouped.mean() if how in ("mean", "item_mean") else grouped.median()
        return {(str(s), str(e)): float(v) for (s, e), v in values.items()}

    def item_labels(self, quality_criterion: str, label_level: str):
        """``(system, item, experiment, label)`` arrays: each experiment's label per item by :data:`LABEL_RULES`."""
        import pandas as pd

        if label_level not in LABEL_RULES:
            raise QRAInputError(f"label_level: must be one of {tuple(LABEL_RULES)}, got {label_level!r}")
        system, item, experiment, _rater, rating = self.for_criterion(quality_criterion)
        frame = pd.DataFrame({"s": system, "i": item, "e": experiment, "v": rating})
        grouped = frame.groupby(["s", "i", "e"], sort=False).v
        if label_level in ("interval", "ratio"):
            labels = grouped.mean()
        elif label_level == "ordinal":
            labels = grouped.apply(lambda v: _ordinal_label(v.to_numpy()))
        else:  # the mode, ties -> the smallest category: count each (item, value), most frequent first
            counts = frame.groupby(["s", "i", "e", "v"], sort=False).size().reset_index(name="n")
            counts = counts.sort_values(["n", "v"], ascending=[False, True], kind="stable")
            first = counts.drop_duplicates(["s", "i", "e"], keep="first").set_index(["s", "i", "e"]).v
            labels = first.reindex(grouped.size().index)
        index = labels.index
        return (
            index.get_level_values(0).to_numpy(dtype=object),
            index.get_level_values(1).to_numpy(dtype=object),
            index.get_level_values(2).to_numpy(dtype=object),
            labels.to_numpy(dtype=float),
        )

    def coverage(self) -> dict[str, Any]:
        """Which items each experiment rated: ``{"items": total, "per_experiment": {...}, "in_all": n,
        "not_in_all": [(system, item), ...]}`` (items only some experiments rated are allowed)."""
        import pandas as pd

        _qc, system, item, experiment, _r, _v = self._columns
        frame = pd.DataFrame({"u": list(zip(system, item)), "e": experiment}).drop_duplicates()
        per = frame.groupby("e").u.nunique().to_dict()
        counts = frame.groupby("u").e.nunique()
        n_experiments = frame.e.nunique()
        partial = sorted(counts.index[counts < n_experiments])
        return {
            "items": len(counts),
            "per_experiment": {str(k): int(v) for k, v in per.items()},
            "in_all": int((counts == n_experiments).sum()),
            "not_in_all": partial,
        }


# ----------------------------------------------------------------------------- raw choices


CHOICE_FIELDS = ("quality_criterion", "experiment", "unit", "rater", "code_system", "code_position")
CODINGS = ("system", "position")


class Choices:
    """The raw choices of pairwise and best-worst judgements, column-wise: one row per
    comparison shown (``unit``: the item and the systems shown) and rater, with the answer
    coded two ways, ``code_system`` (the chosen system, or ``tie``; ``best X, worst Y``) and
    ``code_position`` (``a`` / ``b`` / ``tie``; ``best 1, worst 2``).  ``coding`` says, per
    experiment, which code annotator agreement uses (the spec's ``agreement_coding``).

    >>> c = Choices.from_columns(["Q"] * 2, ["E"] * 2, ["u1", "u1"], ["r1", "r2"], ["x", "y"], ["a", "a"],
    ...                          coding={"E": "position"})
    >>> c.codes("Q", "E")[2].tolist()
    ['a', 'a']
    """

    def __init__(self, columns: tuple[np.ndarray, ...], coding: dict[str, str]):
        self._columns = columns
        self.coding = dict(coding)

    @classmethod
    def from_columns(
        cls, quality_criterion, experiment, unit, rater, code_system, code_position, *, coding: dict[str, str]
    ) -> Choices:
        columns = tuple(_objects(c) for c in (quality_criterion, experiment, unit, rater, code_system, code_position))
        if len({len(c) for c in columns}) != 1:
            raise QRAInputError("choices: the six columns differ in length")
        bad = [e for e, how in coding.items() if how not in CODINGS]
        if bad:
            raise QRAInputError(
                f"choices: agreement coding of {bad[0]!r} must be one of {CODINGS}, got {coding[bad[0]]!r}"
            )
        return cls(columns, coding)

    def __len__(self) -> int:
        return len(self._columns[0])

    def __eq__(self, other) -> bool:
        if not isinstance(other, Choices):
            return NotImplemented
        return self.coding == other.coding and all(np.array_equal(a, b) for a, b in zip(self._columns, other._columns))

    def units(self) -> set[str]:
        """Every judgement unit (the item and the systems shown) of every criterion and experiment."""
        return set(self._columns[2].tolist())

    def judged(self) -> set[tuple[str, str]]:
        """The ``(quality criterion, experiment)`` pairs answered by judgements."""
        return set(zip(self._columns[0], self._columns[1]))

    def has(self, quality_criterion: str, experiment: str) -> bool:
        return bool(((self._columns[0] == quality_criterion) & (self._columns[1] == experiment)).any())

    def codes(self, quality_criterion: str, experiment: str, coding: str | None = None) -> tuple[np.ndarray, ...]:
        """``(unit, rater, code)`` of one criterion in one experiment, by its coding (or ``coding``)."""
        keep = (self._columns[0] == quality_criterion) & (self._columns[1] == experiment)
        how = coding or self.coding.get(experiment, "system")
        return self._columns[2][keep], self._columns[3][keep], self._columns[4 if how == "system" else 5][keep]

    def select(self, position: int, values, keep: bool = True) -> Choices | None:
        """Follows :meth:`Ratings.select` for criteria and experiments; other selections drop the choices."""
        at = {0: 0, 3: 1}.get(position)
        if at is None:
            return None
        mask = np.isin(self._columns[at], np.asarray(list(values), dtype=object))
        chosen = mask if keep else ~mask
        return Choices(tuple(c[chosen] for c in self._columns), self.coding)

    def renamed(self, position: int, old: str, new: str) -> Choices:
        """Follows :meth:`Ratings.renamed` for criteria and experiments (a renamed system keeps its codes:
        nominal agreement does not depend on the names of the categories)."""
        at = {0: 0, 3: 1}.get(position)
        if at is None:
            return self
        columns = [c.copy() for c in self._columns]
        columns[at][columns[at] == old] = new
        coding = {(new if e == old else e): c for e, c in self.coding.items()} if position == 3 else self.coding
        return Choices(tuple(columns), coding)

    def to_dict(self) -> dict[str, Any]:
        return {
            "fields": list(CHOICE_FIELDS),
            **{n: c.tolist() for n, c in zip(CHOICE_FIELDS, self._columns)},
            "coding": dict(self.coding),
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "choices") -> Choices:
        _check_columns(data, CHOICE_FIELDS, CHOICE_FIELDS, where)
        coding = data.get("coding") or {}
        if not isinstance(coding, dict):
            raise QRAInputError(f"{where}.coding: expected an object")
        return cls.from_columns(*(data[f] for f in CHOICE_FIELDS), coding=coding)


def choice_counts(choices: Choices, quality_criterion: str, experiment: str, coding: str | None = None) -> RaterCounts:
    """Count matrix of one experiment's raw choices on one criterion: unit = one comparison
    shown, category = the coded answer (nominal)."""
    import pandas as pd

    unit, rater, code = choices.codes(quality_criterion, experiment, coding)
    code_codes, categories = pd.factorize(code, sort=True)
    return _counted(unit, rater, code_codes, np.asarray(categories, dtype=object))


def _counted(units, rater: np.ndarray, codes: np.ndarray, categories: np.ndarray) -> RaterCounts:
    """:class:`RaterCounts` of coded answers (``codes`` index ``categories``) by unit and rater."""
    import pandas as pd

    unit_codes, unit_index = pd.factorize(units, sort=True)
    rater_codes, rater_index = pd.factorize(rater, sort=True)
    q = max(len(categories), 1)
    counts = np.bincount(unit_codes * q + codes, minlength=len(unit_index) * q).reshape(len(unit_index), q)
    pair = None
    if len(rater_index) == 2:
        pair = np.full((2, len(unit_index)), -1, dtype=np.int64)
        pair[rater_codes, unit_codes] = codes
    return RaterCounts(counts, categories, list(unit_index), [str(r) for r in rater_index], pair)


def _ordinal_label(ratings: np.ndarray) -> float:
    """The median of one item's ratings as a scale point: between two integer points, the even
    one (round half to even: (2, 3) -> 2, (3, 4) -> 4), so an even number of raters neither
    lowers nor raises labels on average; between non-integer points, the lower one.

    >>> _ordinal_label(np.array([3.0, 4.0])), _ordinal_label(np.array([2.0, 3.0])), _ordinal_label(np.array([1.0, 5.0, 4.0]))
    (4.0, 2.0, 4.0)
    """
    ordered = np.sort(ratings)
    low, high = ordered[(len(ordered) - 1) // 2], ordered[len(ordered) // 2]
    if low == high or not (float(low).is_integer() and float(high).is_integer()):
        return float(low)
    return float(np.round((low + high) / 2))


# ----------------------------------------------------------------------------- annotator agreement


@dataclass(frozen=True)
class RaterCounts:
    """One experiment's ratings of one criterion as counts: ``counts[u, c]`` raters gave category c to
    unit u (units = (system, item) pairs in ``units``); ``pair`` holds the two raters' codes per unit
    (-1 = missing) when exactly two raters took part, else None."""

    counts: np.ndarray
    categories: np.ndarray
    units: list
    raters: list
    pair: np.ndarray | None


def rater_counts(ratings: Ratings, quality_criterion: str, experiment: str, categories=None) -> RaterCounts:
    """Count matrix of one experiment's raters on one criterion (units in system, item order)."""
    import pandas as pd

    from .measures.agreement import encode_values

    system, item, exp, rater, rating = ratings.for_criterion(quality_criterion)
    keep = exp == experiment
    system, item, rater, rating = system[keep], item[keep], rater[keep], rating[keep]
    if not len(rating):  # an experiment given by its system values only (or not rating this criterion)
        return RaterCounts(np.zeros((0, 1), dtype=np.int64), np.array([], dtype=float), [], [], None)
    codes, found = encode_values(rating, categories=on_scale(rating, categories))
    return _counted(pd.MultiIndex.from_arrays([system, item]), rater, codes, found)


def on_scale(values: np.ndarray, categories: np.ndarray | None) -> np.ndarray | None:
    """``categories`` (a scale's points) when every value is one of them, else None: ratings off the
    points (means, tau values on a -1..1 scale) are counted by their observed values instead.

    >>> points = np.array([1.0, 2.0, 3.0])
    >>> on_scale(np.array([1.0, 3.0]), points).tolist(), on_scale(np.array([0.5]), points)
    ([1.0, 2.0, 3.0], None)
    """
    if categories is None or not np.isin(values, categories).all():
        return None
    return categories


def scale_categories(criterion) -> np.ndarray | None:
    """The scale points of an integer scale (``scale_min..scale_max``), so unused points count in q
    (:func:`on_scale`: the observed values instead when a rating is not one of them)."""
    low, high = criterion.scale_min, criterion.scale_max
    if high is None or low != int(low) or high != int(high) or high - low > 100:
        return None
    return np.arange(low, high + 1, dtype=float)


def _measured(function, *args, **kwargs) -> tuple[float, str]:
    """A measure's value as a float and, if it was undefined, the reason (:func:`qra_widgets.errors.measured`)."""
    from .errors import measured

    value, reason = measured(function, *args, **kwargs)
    return float(value), reason


AGREEMENT_MEASURES = ("alpha", "fleiss_kappa", "kappa", "ac1", "bp")


def agreement_values(counted: RaterCounts, level: str) -> dict[str, tuple[float, str]]:
    """Each measure of :data:`AGREEMENT_MEASURES` (``kappa`` only with two raters) as (value, note)."""
    from . import measures as m

    scoped = m.CategoryCounts(counted.counts, counted.categories)
    results = {
        "alpha": _measured(m.krippendorff_alpha, scoped, level=level),
        "fleiss_kappa": _measured(m.fleiss_kappa, scoped),
    }
    if counted.pair is not None:
        a, b = (np.where(row >= 0, row, np.nan) for row in counted.pair.astype(float))
        results["kappa"] = _measured(m.cohen_kappa, a, b, categories=list(range(len(counted.categories))))
    results["ac1"] = _measured(m.gwet_ac, scoped)
    results["bp"] = _measured(m.brennan_prediger, scoped)
    return results


def annotator_agreement(study, conventions=None):
    """Agreement among each experiment's own raters, per criterion: a frame with columns
    :data:`AGREEMENT_COLUMNS` (``n_items`` = items rated at least twice)."""
    import pandas as pd

    from .conventions import resolve

    conventions = resolve(conventions)
    rows = []
    ratings = getattr(study, "ratings", None)
    if not ratings:
        return pd.DataFrame(columns=AGREEMENT_COLUMNS)
    choices = getattr(ratings, "choices", None)
    rated = ratings.criteria()
    for qc in study.quality_criteria:
        if qc.name not in rated:
            continue
        for experiment in study.experiment_ids:
            level = conventions.alpha_level or qc.label_level
            if choices is not None and choices.has(qc.name, experiment):
                counted = choice_counts(choices, qc.name, experiment)  # raw choices: nominal, unit = comparison shown
                level = "nominal"
            else:
                counted = rater_counts(ratings, qc.name, experiment, scale_categories(qc))
            if not len(counted.units):
                continue
            n_items = int((counted.counts.sum(axis=1) >= 2).sum())
            for measure, (value, note) in agreement_values(counted, level).items():
                rows.append([experiment, qc.name, measure, value, n_items, len(counted.raters), note])
            if qc.label_level in ("interval", "ratio") and not (
                choices is not None and choices.has(qc.name, experiment)
            ):
                rows += _icc_rows(ratings, qc.name, experiment)
    return pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)


ICC_LISTED = ("ICC2", "ICC2k")  # two-way random, absolute agreement: one rater, the mean of the k raters


def _icc_rows(ratings, quality_criterion: str, experiment: str) -> list[list]:
    """The intraclass correlations :data:`ICC_LISTED` of one experiment's interval/ratio ratings
    (:func:`qra_widgets.measures.icc`, over the items every rater rated) as agreement rows."""
    import pandas as pd

    system, item, where, rater, rating = ratings.for_criterion(quality_criterion)
    keep = where == experiment
    frame = pd.DataFrame(
        {"item": [f"{s}\x1f{i}" for s, i in zip(system[keep], item[keep])], "rater": rater[keep], "value": rating[keep]}
    )
    frame = frame.groupby(["item", "rater"], sort=False, as_index=False).value.mean()
    found, note = _measured_frame(icc, frame, item="item", rater="rater", value="value")
    left_out = found.attrs["items_left_out"]
    extra = f"{left_out} items not rated by every rater left out" if left_out else ""
    return [
        [
            experiment,
            quality_criterion,
            kind,
            float(found.loc[kind, "icc"]),
            found.attrs["items"],
            found.attrs["raters"],
            "; ".join(t for t in (note, extra) if t),
        ]
        for kind in ICC_LISTED
    ]


def _measured_frame(function, *args, **kwargs):
    """A measure's frame and, if it was undefined, the reason (as :func:`_measured`)."""
    import warnings

    from .errors import UndefinedMeasureWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMeasureWarning)
        found = function(*args, **kwargs)
    return found, "; ".join(
        dict.fromkeys(str(w.message) for w in caught if issubclass(w.category, UndefinedMeasureWarning))
    )


def icc(frame, *, item: str, rater: str, value: str, ci: float = 0.95):
    """The six intraclass correlations of a long frame (one row per rating) as a frame with rows
    ICC1, ICC2, ICC3, ICC1k, ICC2k, ICC3k and the columns of
    :data:`qra_widgets.measures.icc.ICC_COLUMNS`: the measure
    :func:`qra_widgets.measures.icc.icc_matrix` read from a frame.  Items not rated by every rater
    are left out, as pingouin's ``intraclass_corr(nan_policy="omit")``; the frame's ``attrs``
    record how many items and raters were used and how many items were left out.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per rating.
    item : str
        The column of item ids.
    rater : str
        The column of rater ids (each rater rates an item at most once).
    value : str
        The column of the numeric ratings.
    ci : float, default 0.95
        The coverage of the F-based confidence intervals.

    Returns
    -------
    pandas.DataFrame
        Rows ICC1, ICC2, ICC3, ICC1k, ICC2k, ICC3k; columns type, description, icc, F, df1, df2,
        pval, ci_low and ci_high.

    >>> import pandas as pd
    >>> ratings = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4], "rater": list("abababab"),
    ...                         "score": [4, 5, 2, 2, 3, 4, 5, 5]})
    >>> round(float(icc(ratings, item="item", rater="rater", value="score").loc["ICC2", "icc"]), 4)
    0.8696
    """
    import pandas as pd

    from .measures.icc import DESCRIPTIONS, ICC_COLUMNS, ICC_TYPES, icc_matrix

    for name, column in (("item", item), ("rater", rater), ("value", value)):
        if column not in frame.columns:
            raise QRAInputError(f"{name}: no column {column!r} in the frame (columns: {list(frame.columns)})")
    values = pd.to_numeric(frame[value], errors="coerce")
    if values.isna().any():
        row = int(np.flatnonzero(values.isna().to_numpy())[0])
        raise QRAInputError(f"{value}: row {row} is not a number ({frame[value].iloc[row]!r})")
    if frame.duplicated([item, rater]).any():
        row = int(np.flatnonzero(frame.duplicated([item, rater]).to_numpy())[0])
        raise QRAInputError(
            f"row {row}: item {frame[item].iloc[row]!r} is rated twice by rater {frame[rater].iloc[row]!r}"
        )
    wide = pd.DataFrame({"i": frame[item], "r": frame[rater], "v": values}).pivot(index="i", columns="r", values="v")
    complete = wide.dropna()
    found = icc_matrix(complete.to_numpy(), ci=ci)
    out = pd.DataFrame([[t, DESCRIPTIONS[t], *found[t]] for t in ICC_TYPES], columns=ICC_COLUMNS).set_index(
        "type", drop=False
    )
    out.index.name = None
    out.attrs.update(items=len(complete), raters=wide.shape[1], items_left_out=len(wide) - len(complete), ci=ci)
    return out
