"""The dashboard's state: the study being edited, its library revision, its assessment.

Views change the study through :class:`AppState` and listen for ``study`` (structure or
names changed: rebuild forms) and ``scores`` (values changed: reassess) events.
"""

from __future__ import annotations

from collections.abc import Callable

from ..assess import Assessment, assess
from ..errors import QRAInputError
from ..study import Experiment, QualityCriterion, Study


def blank_study() -> Study:
    return Study(id="new-study", name="New study", quality_criteria=[QualityCriterion("Quality", scale_min=1, scale_max=5)],
                 systems=["System A", "System B"],
                 experiments=[Experiment("original", label="original", role="original"), Experiment("repeat-1", label="repeat 1")])


class AppState:
    def __init__(self, study: Study | None = None, library_path=None):
        self.study = study or blank_study()
        self.revision: int | None = None  # the library revision the study was opened from
        self.assessment: Assessment | None = None
        self.assessment_problem = ""
        self._library_path = library_path
        self._library = None
        self._listeners: dict[str, list[Callable[[], None]]] = {"study": [], "scores": []}
        self.reassess()

    @property
    def library(self):
        if self._library is None:
            from ..store import StudyLibrary

            self._library = StudyLibrary(self._library_path)
        return self._library

    def on(self, event: str, callback: Callable[[], None]) -> None:
        self._listeners[event].append(callback)

    def _emit(self, event: str) -> None:
        for callback in self._listeners[event]:
            callback()

    def reassess(self) -> None:
        try:
            self.assessment, self.assessment_problem = assess(self.study), ""
        except QRAInputError as error:
            self.assessment, self.assessment_problem = None, str(error)

    def load(self, study: Study, revision: int | None = None) -> None:
        """Make ``study`` the one being edited (from a file, an example or the library)."""
        self.study, self.revision = study, revision
        self.reassess()
        self._emit("study")
        self._emit("scores")

    def structure_changed(self) -> None:
        """Names, systems, experiments or criteria changed."""
        self.reassess()
        self._emit("study")
        self._emit("scores")

    def scores_changed(self) -> None:
        self.reassess()
        self._emit("scores")
