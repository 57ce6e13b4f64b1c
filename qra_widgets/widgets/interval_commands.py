"""The interval commands of :class:`~qra_widgets.widgets.state.AppState` (bootstrap intervals),
and the reproduction planner's query :func:`plan_designs`: computed on request, never on an edit.
The bootstrap runs in :meth:`IntervalRun.compute` (a query on a snapshot, safe in a thread);
``bootstrap_request`` and ``apply_intervals`` are the commands around it.

A running bootstrap works on a snapshot of the study and of the assessment it will decorate;
any edit (which always re-assesses, so ``state.assessment`` becomes a new object) makes that
snapshot stale: the bootstrap stops at its next progress callback, and a result that finishes
anyway is discarded.  So a score edit never waits for a bootstrap and never shows stale intervals.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from ..assess import Assessment, assess
from ..conventions import Conventions
from ..errors import QRAInputError
from ..study import Study
from .events import Event, IntervalsComputed, IntervalsDropped


class _BootstrapCancelled(Exception):
    """Raised from the progress callback to stop a cancelled or stale bootstrap."""


@dataclass(frozen=True)
class IntervalRun:
    """What a bootstrap works on: a copy of the study, its conventions, the assessment it
    decorates, and whether the study was edited since (``stale()``)."""

    study: Study
    conventions: Conventions
    basis: Assessment
    stale: Callable[[], bool] = field(default=lambda: False, compare=False, repr=False)

    def compute(
        self,
        B: int,
        seed: int | None = None,
        *,
        ci_method: str = "percentile",
        resample: str = "items",
        progress: Callable[[int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ):
        """Run the bootstrap on the snapshot (safe in a background thread: it changes nothing).

        ``progress(done)`` is called per chunk of replicates; if ``cancelled()`` is true then, or the
        study was edited meanwhile, the bootstrap stops there and ``None`` is returned.
        """

        def check(done: int) -> None:
            if (cancelled is not None and cancelled()) or self.stale():
                raise _BootstrapCancelled
            if progress is not None:
                progress(done)

        try:
            return assess(
                self.study,
                conventions=self.conventions,
                bootstrap=B,
                seed=seed,
                ci_method=ci_method,
                resample=resample,
                progress=check,
            )
        except _BootstrapCancelled:
            return None


def plan_designs(
    study: Study,
    conventions: Conventions,
    items,
    raters_per_item,
    *,
    B: int = 200,
    runs: int = 3,
    seed: int | None = 0,
    design: str = "new items",
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
):
    """Expected interval widths per design (:func:`~qra_widgets.plan_reproduction`) for ``study``
    (the planner box's query: it changes nothing; give it ``state.study`` and ``state.conventions``).

    Each (items, raters per item) design is simulated on its own with the same ``seed``, so
    a design's row does not depend on which other designs are asked for; ``progress(done,
    total)`` is called after each design and ``cancelled()`` (true) stops before the next,
    returning ``None``.
    """
    import pandas as pd

    from ..planning import plan_reproduction
    from ..planning_pairwise import comparative_rule

    study = copy.deepcopy(study)  # safe in a background thread while the study is edited
    if any(comparative_rule(study, qc.name, e) for qc in study.quality_criteria for e in study.ratings.experiments()):
        raise QRAInputError(
            "plan: pairwise and best-worst judgements are planned by judgements per system pair, not in "
            "this box: run `qra-widgets plan SPEC.json` or plan_reproduction(study, judgements_per_pair=...)"
        )
    designs = [(n, k) for n in items for k in raters_per_item]
    if not designs:
        raise QRAInputError("plan: give at least one number of items and one number of raters per item")
    frames = []
    for done, (n, k) in enumerate(designs, 1):
        if cancelled is not None and cancelled():
            return None
        frames.append(
            plan_reproduction(
                study, items=[n], raters_per_item=[k], B=B, runs=runs, seed=seed, conventions=conventions, design=design
            )
        )
        if progress is not None:
            progress(done, len(designs))
    return pd.concat(frames, ignore_index=True)


class IntervalCommands:
    """Mixed into :class:`~qra_widgets.widgets.state.AppState`, whose study, conventions,
    assessment and event channels they use."""

    study: Study
    conventions: Conventions
    assessment: Assessment | None
    assessment_problem: str
    _emit: Callable[[Event], Event]

    def bootstrap_request(self) -> IntervalRun:
        """A snapshot whose :meth:`IntervalRun.compute` runs the bootstrap (raises if the study
        cannot be assessed); show its result with :meth:`apply_intervals`."""
        if self.assessment is None:
            raise QRAInputError(f"intervals: the study cannot be assessed yet ({self.assessment_problem})")
        basis = self.assessment
        return IntervalRun(
            copy.deepcopy(self.study), self.conventions, basis, stale=lambda: self.assessment is not basis
        )

    def apply_intervals(self, run: IntervalRun, result: Assessment | None) -> Event:
        """Show ``result`` (from :meth:`IntervalRun.compute`) unless it was cancelled or is stale."""
        if run.stale():
            return self._emit(
                IntervalsDropped(
                    "The study changed while the intervals were computed: they were "
                    "discarded. Compute them again for the current scores."
                )
            )
        if result is None:
            return self._emit(IntervalsDropped("Intervals cancelled; the assessment is shown without them."))
        self.assessment = result
        info = result.bootstrap_info
        return self._emit(
            IntervalsComputed(
                f"{info['ci']:.0%} intervals from {info['B']} bootstrap replicates (seed {info['seed']}).",
                bootstrap=dict(info),
            )
        )

    def run_bootstrap(
        self,
        B: int,
        seed: int | None = None,
        *,
        ci_method: str = "percentile",
        resample: str = "items",
        progress: Callable[[int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Event:
        """Compute and show intervals in one call (the app runs the two halves in a thread and the kernel's loop)."""
        run = self.bootstrap_request()
        return self.apply_intervals(
            run, run.compute(B, seed, ci_method=ci_method, resample=resample, progress=progress, cancelled=cancelled)
        )
