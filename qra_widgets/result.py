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
    nan; empty otherwise).  ``experiments`` names the two experiments a value compares when it is not all of
    the study's: Type III agreement between the original's and one repeat's labels in a study of three or
    more experiments (``None`` otherwise).

    >>> ResultRow("I", "CV*", "system", "Fluency", "SVM", 19.96, 3)
    ResultRow(result_type='I', measure='CV*', level='system', quality_criterion='Fluency', system='SVM', value=19.96, n=3, n_systems=None, note='', experiments=None)
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
    experiments: tuple[str, str] | None = None

    @property
    def key(self) -> tuple:
        """``(measure, level, quality_criterion, system)``, the key of its interval in
        ``Assessment.intervals``; a row of one pair of experiments adds the pair, so it never takes
        the interval of the value over all experiments."""
        where = (self.measure, self.level, self.quality_criterion, self.system)
        return where if self.experiments is None else (*where, self.experiments)
