"""Type III labels, stored column-wise so that millions of them stay fast.

:class:`Labels` is a mapping ``(quality_criterion, system, item, experiment) -> label`` like
the other result stores of a :class:`~qra_widgets.Study`, but it keeps its data as five
arrays.  Bulk operations (validation, selecting a quality criterion, counting categories
per item) work on the arrays; the dict view is built only when single entries are read or
edited.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import QRAInputError

KEY_FIELDS = ("quality_criterion", "system", "item", "experiment")


@dataclass(frozen=True)
class CodedLabels:
    """One criterion's labels as integers, ready for the agreement core.

    Units are (system, item) pairs numbered in system order, so each system's units are one
    block: ``unit_system[u]`` is unit u's index in the study's systems.  Per label:
    ``unit``, ``experiment_row`` (index in the study's experiments) and ``code`` (index in
    ``categories``).
    """

    unit: np.ndarray
    unit_system: np.ndarray
    experiment_row: np.ndarray
    code: np.ndarray
    categories: np.ndarray


def _column(values) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    array[:] = list(values) if not isinstance(values, np.ndarray) else values
    return array


class Labels(MutableMapping):
    """Labels keyed by ``(quality_criterion, system, item, experiment)``."""

    def __init__(self, mapping: Any = None):
        self._dict: dict | None = dict(mapping.items() if isinstance(mapping, Labels) else (mapping or {}))
        self._columns: tuple[np.ndarray, ...] | None = None
        self._validated_for = None  # set by Study.validate; any change clears it
        self._rows_by_criterion: dict[str, np.ndarray] | None = None
        self._derived: dict = {}  # coded criteria and the experiment set, until the labels change

    @classmethod
    def from_columns(cls, quality_criterion, system, item, experiment, label) -> Labels:
        """Build from five equally long sequences (the fast path for files and big studies).
        A repeated key keeps its last label."""
        labels = cls()
        columns = tuple(_column(c) for c in (quality_criterion, system, item, experiment, label))
        if len({len(c) for c in columns}) != 1:
            lengths = dict(zip(KEY_FIELDS + ("label",), map(len, columns)))
            raise QRAInputError(f"labels: the five columns differ in length ({lengths})")
        labels._dict, labels._columns = None, _deduplicated(columns)
        return labels

    # ------------------------------------------------------------------ the two representations

    def columns(self) -> tuple[np.ndarray, ...]:
        """``(quality_criterion, system, item, experiment, label)`` as object arrays."""
        if self._columns is None:
            keys = list(self._dict)
            parts = list(zip(*keys)) if keys else [(), (), (), ()]
            self._columns = tuple(_column(p) for p in parts) + (_column(list(self._dict.values())),)
        return self._columns

    def _mapping(self) -> dict:
        if self._dict is None:
            qc, system, item, experiment, label = self._columns
            self._dict = dict(
                zip(zip(qc.tolist(), system.tolist(), item.tolist(), experiment.tolist()), label.tolist())
            )
        return self._dict

    def _changed(self) -> None:
        self._columns, self._validated_for, self._rows_by_criterion = None, None, None
        self._derived = {}

    # ------------------------------------------------------------------ mapping interface

    def __getitem__(self, key):
        return self._mapping()[key]

    def __setitem__(self, key, value) -> None:
        self._mapping()[key] = value
        self._changed()

    def __delitem__(self, key) -> None:
        del self._mapping()[key]
        self._changed()

    def __iter__(self) -> Iterator:
        return iter(self._mapping())

    def __len__(self) -> int:
        return len(self._dict) if self._dict is not None else len(self._columns[0])

    def __eq__(self, other) -> bool:
        if isinstance(other, Labels | dict):
            return len(self) == len(other) and self._mapping() == (
                other._mapping() if isinstance(other, Labels) else other
            )
        return NotImplemented

    def __repr__(self) -> str:
        return f"Labels({len(self)} labels)"

    # ------------------------------------------------------------------ bulk operations

    def select(self, position: int, values, keep: bool = True) -> Labels:
        """The labels whose key part ``position`` is (``keep``) or is not in ``values``."""
        columns = self.columns()
        mask = np.isin(columns[position], np.asarray(list(values), dtype=object))
        chosen = mask if keep else ~mask
        result = Labels()
        result._dict, result._columns = None, tuple(c[chosen] for c in columns)
        return result

    def renamed(self, position: int, old: str, new: str) -> Labels:
        columns = [c.copy() for c in self.columns()]
        columns[position][columns[position] == old] = new
        result = Labels()
        result._dict, result._columns = None, tuple(columns)
        return result

    def merged(self, other: Labels) -> Labels:
        """These labels with ``other``'s added; ``other`` wins where both have a key."""
        columns = tuple(np.concatenate([a, b]) for a, b in zip(self.columns(), other.columns()))
        return Labels.from_columns(*columns)

    def _criterion_rows(self) -> dict[str, np.ndarray]:
        if getattr(self, "_rows_by_criterion", None) is None:
            import pandas as pd

            qc = self.columns()[0]
            self._rows_by_criterion = (
                {str(k): v for k, v in pd.Series(qc, dtype=object).groupby(qc, sort=False).indices.items()}
                if len(qc)
                else {}
            )
        return self._rows_by_criterion

    def experiments(self) -> set[str]:
        """The experiments that gave labels."""
        if "experiments" not in self._derived and not len(self):
            self._derived["experiments"] = set()  # no pandas for a study without labels (a new one)
        if "experiments" not in self._derived:
            import pandas as pd

            self._derived["experiments"] = set(pd.unique(self.columns()[3]))
        return set(self._derived["experiments"])

    def coded_for_criterion(self, quality_criterion: str, systems, experiment_ids) -> CodedLabels:
        """The labels of one criterion as :class:`CodedLabels`, for the study's ``systems`` and
        ``experiment_ids`` (names must be valid: the study validates them first).

        Turning names into integers is most of the cost of assessing labels, and the labels do
        not change while scores are edited, so the result is kept until the labels change.
        """
        key = ("coded", quality_criterion, tuple(systems), tuple(experiment_ids))
        if key not in self._derived:
            self._derived[key] = _coded(*self.for_criterion(quality_criterion), systems, experiment_ids)
        return self._derived[key]

    def criteria(self) -> set[str]:
        """The quality criteria that have labels."""
        return set(self._criterion_rows())

    def for_criterion(self, quality_criterion: str) -> tuple[np.ndarray, ...]:
        """``(system, item, experiment, label)`` arrays of one quality criterion."""
        rows = self._criterion_rows().get(quality_criterion, np.array([], dtype=np.int64))
        _qc, system, item, experiment, label = self.columns()
        return system[rows], item[rows], experiment[rows], label[rows]


def _coded(system, item, experiment, label, systems, experiment_ids) -> CodedLabels:
    import pandas as pd

    from .measures.agreement import encode_values

    system_code = pd.Index(list(systems)).get_indexer(system).astype(np.int64)
    item_code, _ = pd.factorize(item)
    stride = int(item_code.max()) + 1 if len(item_code) else 1
    unit_keys, unit = np.unique(system_code * stride + item_code, return_inverse=True)
    code, categories = encode_values(label)
    return CodedLabels(
        unit, unit_keys // stride, pd.Index(list(experiment_ids)).get_indexer(experiment), code, categories
    )


def _deduplicated(columns: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    if not len(columns[0]):
        return columns
    import pandas as pd

    keys = pd.DataFrame({f: c for f, c in zip(KEY_FIELDS, columns[:4])})
    last = ~keys.duplicated(keep="last").to_numpy()
    return columns if last.all() else tuple(c[last] for c in columns)
