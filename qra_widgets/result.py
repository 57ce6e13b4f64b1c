"""One row of an assessment: the record every writer, chart and view reads.

:class:`ResultRow` sits low in the house plan (it imports nothing of the package), so the writers in
:mod:`qra_widgets.report` can read an :class:`~qra_widgets.assess.Assessment`'s rows without
importing the engine that made them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ResultRow:
    """One computed cell of the QRA++ Table 2 grid: its result type (``"I"`` to ``"IV"``), the measure
    (``"CV*"``, ``"r"``, ...), the level (``"system"``, ``"qc"``, ``"study"``), where it applies, its value,
    ``n`` (experiments), ``n_systems`` (the systems a Type II/IV value used) and ``note`` (why a value is
    nan; empty otherwise).

    >>> ResultRow("I", "CV*", "system", "Fluency", "SVM", 19.96, 3)
    ResultRow(result_type='I', measure='CV*', level='system', quality_criterion='Fluency', system='SVM', value=19.96, n=3, n_systems=None, note='')
    """

    result_type: str
    measure: str
    level: str
    quality_criterion: str | None
    system: str | None
    value: float
    n: int
    n_systems: int | None = None
    note: str = ""
