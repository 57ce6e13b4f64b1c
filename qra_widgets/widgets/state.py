"""The dashboard's state: the study being edited, its library revision, its assessment, and the
only code that changes them.

Every edit is a command method of :class:`AppState` (``set_scores``, ``rename_system``,
``import_scores``, ``save``, ...).  A command validates its input, changes the study (or
changes nothing and raises :class:`~qra_widgets.QRAInputError`), re-assesses and emits one
typed event.  Views render the state, call commands, and listen on three channels:

- ``"study"``: the structure changed (criteria, systems, experiments, names, a new study):
  forms and grids are rebuilt or updated;
- ``"scores"``: values or the assessment changed: tables and charts are redrawn;
- ``"saved"``: the library revision or the unsaved-changes flag changed: the header.

Each callback receives the event (:mod:`qra_widgets.widgets.events`).  A score refused is a
:class:`~qra_widgets.errors.ScoreError` carrying its cell and reason.  What the command-line
tools can reuse lives in the library, and the commands call it: the readers and the
scores-table and HEDS merges in ``io``; what is done to the library as a whole or to a study
as files (imports, QRA3 files, the HTML report) is :mod:`qra_widgets.library_actions`, which
the views call with ``state.library`` and ``state.study``: it edits nothing here.

The class has at most 25 public methods (``tests/app/test_app_state.py`` counts them), each a
command; queries the views need are attributes, the library's functions, or the views' own.

``AppState(study)`` works on a *copy* of ``study``: the caller's object, and any
``assess(study)`` result made from it, never change behind the caller's back.
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..assess import Assessment, assess
from ..conventions import PRESETS, Conventions, resolve
from ..errors import IdTakenError, QRAInputError, ScalesNeeded
from ..io import parse
from ..study import Experiment, QualityCriterion, Study
from .events import (
    ConventionsChanged,
    Event,
    IntervalsComputed,
    IntervalsDropped,
    SavedState,
    ScoresChanged,
    StructureChanged,
    StudyLoaded,
)
from .interval_commands import IntervalCommands, IntervalRun

SCALE_COLUMNS = ("scale_min", "scale_max")


@dataclass
class PendingScores:
    """An uploaded scores table waiting for the scales of criteria the study does not have yet."""

    source: str
    frame: Any
    new_criteria: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------- the state


def blank_study() -> Study:
    """A really empty study with a fresh id (two people starting at once never share an id)."""
    return Study(id=f"study-{secrets.token_hex(3)}", name="")


class AppState(IntervalCommands):
    """The study being edited, its assessment, and the commands that change them."""

    def __init__(self, study: Study | None = None, library_path=None, *, conventions: str | Conventions | None = None):
        self.study = copy.deepcopy(study) if study is not None else blank_study()
        self.revision: int | None = None  # the library revision the study was opened from / saved as
        self.dirty = False  # changes since it was opened or saved
        self.id_edited = study is not None  # an id chosen by someone is never re-derived from the name
        self.conventions: Conventions = resolve(conventions)
        self.assessment: Assessment | None = None
        self.assessment_problem = ""
        self.pending: PendingScores | None = None
        self._library_path = library_path
        self._library = None
        self._listeners: dict[str, list[Callable[[Event], None]]] = {"study": [], "scores": [], "saved": []}
        self._reassess()

    # ------------------------------------------------------------------ plumbing

    @property
    def library(self):
        if self._library is None:
            from ..store import StudyLibrary

            self._library = StudyLibrary(self._library_path)
        return self._library

    def on(self, channel: str, callback: Callable[[Event], None]) -> None:
        """Call ``callback(event)`` after every command whose event has ``channel``."""
        self._listeners[channel].append(callback)

    def _emit(self, event: Event) -> Event:
        self.last_event = event
        done: list[Callable] = []
        for channel in event.channels:
            for callback in self._listeners[channel]:
                if callback not in done:  # a callback on two channels runs once per event
                    done.append(callback)
                    callback(event)
        return event

    def _reassess(self) -> None:
        """Assess the study again; what an edit left unchanged (a criterion's rows, a system's
        CV*) is taken over from the current assessment (``assess(..., reuse=...)``), not recomputed."""
        try:
            self.assessment, self.assessment_problem = (
                assess(self.study, conventions=self.conventions, reuse=self.assessment),
                "",
            )
        except QRAInputError as error:
            self.assessment, self.assessment_problem = None, str(error)

    def _changed(self, event: Event) -> Event:
        self.dirty = True
        self._reassess()
        return self._emit(event)

    # ------------------------------------------------------------------ whole studies

    def load(
        self, study: Study | None = None, revision: int | None = None, *, example: str | None = None, message: str = ""
    ) -> Event:
        """Make (a copy of) ``study`` the one being edited: from a file, the library, or the
        bundled ``example`` of that name; with neither, start again from a really empty study
        (whose id follows its name until someone chooses one)."""
        if example is not None:
            from .. import examples

            study = examples.load(example)
            return self.load(
                study,
                None,
                message=message or f"Loaded the example {study.name!r}. Save it in the Library to keep your changes.",
            )
        if study is None:
            self.load(blank_study(), message=message or "A new empty study.")
            self.id_edited = False
            return self.last_event
        study.validate()
        self.study, self.revision, self.dirty, self.pending = copy.deepcopy(study), revision, False, None
        self.id_edited = True
        carried = getattr(study, "conventions", None) or study.metadata.get("conventions")
        if carried:  # a study file may say which conventions its numbers follow
            self.conventions = resolve(carried)
        self._reassess()
        return self._emit(StudyLoaded(message or f"Opened {study.name or study.id!r}."))

    def open_from_library(self, study_id: str, revision: int | None = None) -> Event:
        library = self.library
        study = library.open(study_id, revision)
        latest = library.latest_revision(study_id)
        which = f"revision {revision}" if revision is not None else f"revision {latest}"
        return self.load(study, latest, message=f"Opened {study.name or study_id!r} ({which}).")

    def save(self) -> Event:
        """Save the study as a new library revision.

        A study never saved before (``revision is None``) whose id the library already holds
        is refused with a suggested free id (the library's rule, ``StudyLibrary.save(new=True)``):
        it is never filed as a revision of another study.  A stale save (someone saved after this
        study was opened) is refused by the library and kept there as a conflict revision.
        """
        from ..store import ConflictError

        try:
            revision = self.library.save(self.study, self.revision, new=self.revision is None)
        except IdTakenError as taken:
            raise QRAInputError(
                f"save: the library already has a study with the id {taken.study_id!r}. Change the id on the Study tab "
                f"(for example to {taken.suggestion!r}) or open the existing study from the Library."
            ) from None
        except ConflictError as conflict:
            raise QRAInputError(str(conflict)) from None
        self.revision, self.dirty = revision, False
        return self._emit(
            SavedState(f"Saved {self.study.name or self.study.id!r} as revision {revision}.", revision=revision)
        )

    # ------------------------------------------------------------------ details and conventions

    def set_details(
        self, *, name: str | None = None, description: str | None = None, study_id: str | None = None
    ) -> Event:
        """Name, description and id.  While nobody has chosen an id for a study never saved, it
        follows the name; a changed id makes it a new study in the library."""
        study = self.study
        new_id = study.id if study_id is None else study_id.strip()
        if not new_id:
            raise QRAInputError("study id: must be a non-empty text")
        if study_id is not None and new_id != study.id:
            self.id_edited = True
        elif name is not None and name.strip() and not self.id_edited and self.revision is None:
            new_id = self.library.free_id(name)
        if new_id != study.id:
            self.revision = None  # a new id is a new study in the library
        study.id = new_id
        if name is not None:
            study.name = name
        if description is not None:
            study.description = description
        return self._changed(StructureChanged("Study details updated.", what="details"))

    def set_conventions(self, preset: str | Conventions) -> Event:
        """Re-assess with the ``qrapp`` or ``qra3`` conventions (or a :class:`Conventions`)."""
        self.conventions = resolve(preset)
        self._reassess()
        name = self.conventions.describe()
        return self._emit(ConventionsChanged(f"Assessed with the {name} conventions.", conventions=name))

    # ------------------------------------------------------------------ criteria

    def add_criterion(self, criterion: QualityCriterion) -> Event:
        self.study.add_quality_criterion(criterion)
        return self._changed(StructureChanged(f"Added quality criterion {criterion.name!r}.", what="criteria"))

    def update_criterion(self, name: str, criterion: QualityCriterion) -> Event:
        self.study.replace_quality_criterion(name, criterion)
        return self._changed(StructureChanged(f"Updated quality criterion {criterion.name!r}.", what="criteria"))

    def remove_criterion(self, name: str) -> Event:
        self.study.remove_quality_criterion(name)
        return self._changed(StructureChanged(f"Removed {name!r} and its scores.", what="criteria"))

    # ------------------------------------------------------------------ systems

    def add_system(self, name: str) -> Event:
        self.study.add_system(name)
        return self._changed(StructureChanged(f"Added system {name.strip()!r}.", what="systems"))

    def rename_system(self, old: str, new: str) -> Event:
        self.study.rename_system(old, new)
        return self._changed(StructureChanged(f"Renamed system {old!r} to {new.strip()!r}.", what="systems"))

    def remove_system(self, name: str) -> Event:
        self.study.remove_system(name)
        return self._changed(StructureChanged(f"Removed system {name!r} and its results.", what="systems"))

    # ------------------------------------------------------------------ experiments

    def add_experiment(self, experiment: Experiment) -> Event:
        self.study.add_experiment(experiment)
        return self._changed(StructureChanged(f"Added experiment {experiment.display_name!r}.", what="experiments"))

    def update_experiment(self, experiment_id: str, **changes: Any) -> Event:
        """Change an experiment's fields (``id``, ``label``, ``team``, ``date``, ``role``,
        ``properties``, ``conditions``) in one step: all of them or, if any is invalid, none.

        A new ``id`` is carried to the experiment's scores, labels, findings and sources.
        """
        study = self.study
        old = study.experiment(experiment_id)
        new_id = changes.get("id", old.id)
        new_id = new_id.strip() if isinstance(new_id, str) else new_id
        updated = replace(old, **{**changes, "id": new_id})  # validates every field first
        if "properties" in changes:
            from ..properties import check_properties

            check_properties(updated.properties, study.qc_names, f"experiment {updated.display_name!r}: properties")
        study.replace_experiment(updated, old.id)
        return self._changed(StructureChanged(f"Updated experiment {updated.display_name!r}.", what="experiments"))

    def remove_experiment(self, experiment_id: str) -> Event:
        label = self.study.experiment(experiment_id).display_name
        self.study.remove_experiment(experiment_id)
        return self._changed(StructureChanged(f"Removed experiment {label!r} and its results.", what="experiments"))

    def import_heds(self, experiment_id: str, data: bytes, source: str):
        """Merge a HEDS datasheet's answers into an experiment, and fill the study's criteria's
        evaluation type and QCET id where the sheet says and the study does not.  Returns ``(event, HEDSImport,
        criteria of the datasheet that are not in the study)``."""
        from ..io.heds import heds_from_bytes, merge_heds

        experiment = self.study.experiment(experiment_id)
        result, filled, unmatched = merge_heds(self.study, experiment_id, heds_from_bytes(data, source), source)
        said = f" Filled from the sheet: {'; '.join(filled)}." if filled else ""
        event = self._changed(
            StructureChanged(f"HEDS datasheet imported into {experiment.display_name!r}.{said}", what="properties")
        )
        return event, result, unmatched

    # ------------------------------------------------------------------ scores

    def set_scores(self, cells: dict[tuple[str, str, str], str | float | None]) -> Event:
        """Set scores typed in a cell or pasted (``{(criterion, system, experiment): number, text
        or None}``; ``None`` or empty text clears a cell): all valid, or nothing changes and the
        first problem is raised, naming the experiment as users see it
        (:func:`~qra_widgets.io.parse.score_cells`, :meth:`~qra_widgets.study.Study.update_scores`)."""
        values = parse.score_cells(self.study, cells)
        self.study.update_scores(values)
        said = "Score updated." if len(values) == 1 else f"Filled {len(values)} cells."
        return self._changed(ScoresChanged(said, cells=tuple(values)))

    def import_scores(
        self, data: bytes | None = None, source: str = "", scales: dict[str, tuple[float, float | None]] | None = None
    ):
        """Replace the scores from a long CSV/TSV/Excel table (``experiment, quality_criterion,
        system, score``, optional ``scale_min``, ``scale_max``, ``role``, ``source``).

        Scales come from the file's scale columns if it has them; otherwise criteria the study
        already has keep their scales (and every score is checked against them), and a
        criterion new to the study needs its scale in ``scales`` (``{name: (min, max)}``).
        Without it nothing changes: the upload is kept in :attr:`pending` and a
        :class:`PendingScores` is returned so the app can ask (then call ``import_scores(scales=...)``).  A scale is never assumed.
        Experiments the study already has keep their labels, roles and properties.

        Without ``data``, the waiting upload is finished with the ``scales`` the user gave.
        """
        from ..io import SCORE_COLUMNS, read_table

        if data is not None:
            frame = read_table(data, source, SCORE_COLUMNS, excel=source.lower().endswith(".xlsx"))
            return self._import_frame(frame, source, scales or {})
        if self.pending is None:
            raise QRAInputError("scales: there is no upload waiting for scales")
        result = self._import_frame(self.pending.frame, self.pending.source, scales or {})
        if isinstance(result, PendingScores):
            raise QRAInputError(f"scales: give the scale minimum of {', '.join(map(repr, result.new_criteria))}")
        return result

    def _import_frame(self, frame, source: str, scales: dict):
        from ..io import merge_scores_table

        try:
            study = merge_scores_table(self.study, frame, source, scales)
        except ScalesNeeded as needed:  # kept until the user gives them (import_scores(scales=...))
            self.pending = PendingScores(source, frame, needed.criteria)
            return self.pending
        self.study, self.pending = study, None
        kept = "" if "scale_min" in frame else " (scales kept or as given)"
        return self._changed(StructureChanged(f"Loaded {len(study.scores)} scores from {source}{kept}.", what="scores"))

    def import_labels(self, data: bytes, source: str) -> Event:
        """Add Type III labels from a long CSV (``experiment, quality_criterion, system, item, label``)."""
        from ..io import LABEL_COLUMNS, add_labels_table, read_table

        add_labels_table(self.study, read_table(data, source, LABEL_COLUMNS), source)
        return self._changed(
            StructureChanged(
                f"Added labels from {source}: the study now has {len(self.study.labels)} labels.", what="labels"
            )
        )

    # --- the library's classification of criteria (imports and downloads are library_actions, not commands)

    def classify_criteria(self, answers: dict) -> str:
        """Save ``{study id: {criterion: (evaluation type, QCET id)}}`` as new library revisions
        (:func:`qra_widgets.library_actions.classify`); the open study, if it is one of them and has
        no unsaved changes, is reloaded.  Returns a message."""
        from ..library_actions import classify

        revisions = classify(self.library, answers)
        note = ""
        if self.study.id in revisions and not self.dirty:
            self.open_from_library(self.study.id)
        elif self.study.id in revisions:
            note = (
                f" {self.study.id!r} is open with unsaved changes: its saved revision {revisions[self.study.id]} "
                "has them, the open copy not."
            )
        count = sum(len(c) for c in answers.values())
        return f"Saved the evaluation type and QCET criterion of {count} criteri{'on' if count == 1 else 'a'}.{note}"

    # --- annotations

    def load_annotations(self, spec: dict, files: dict[str, bytes], frames: dict | None = None) -> Event:
        """Make the study read from an annotation ``spec`` and its uploaded ``files`` ({name: bytes})
        the one being edited (its ratings keep the spec, so both are saved with the study).
        ``frames`` ({name: table}) are files the tab already parsed at upload: not parsed again."""
        from ..io.annotations import load_annotations

        study = load_annotations(
            spec, files=dict(files), frames=frames
        )  # uploads only: a name not uploaded is refused, never read
        return self.load(
            study,
            None,
            message=f"Loaded {answers_said(study.ratings)} from {len(study.experiments)} "
            f"experiment{'' if len(study.experiments) == 1 else 's'} "
            f"({', '.join(study.experiment_ids)}). Save it in the Library to keep it.",
        )


def answers_said(ratings) -> str:
    """How many answers a study's ratings hold, as the app says it: a pairwise or best-worst
    judgement is one answer (:meth:`~qra_widgets.ratings.Ratings.answer_counts`), not one per system shown."""
    direct, judged = ratings.answer_counts()
    plural = lambda n, what: f"{n} {what}{'' if n == 1 else 's'}"
    said = [plural(direct, "rating")] if direct or not judged else []
    return " and ".join(said + ([plural(judged, "comparative judgement")] if judged else []))


__all__ = [
    "PRESETS",
    "AppState",
    "ConventionsChanged",
    "Event",
    "IntervalRun",
    "IntervalsComputed",
    "IntervalsDropped",
    "PendingScores",
    "SavedState",
    "ScoresChanged",
    "StructureChanged",
    "StudyLoaded",
    "blank_study",
]
