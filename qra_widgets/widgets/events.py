"""What a command of :class:`~qra_widgets.widgets.state.AppState` changed: one typed event per
command, sent to the views listening on its channels (``"study"``, ``"scores"``, ``"saved"``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar


@dataclass(frozen=True)
class Event:
    """Something a command changed; ``message`` is what the status line can say."""

    channels: ClassVar[tuple[str, ...]] = ()
    message: str = ""


@dataclass(frozen=True)
class StudyLoaded(Event):
    """A different study is being edited (new, example, file, library)."""

    channels: ClassVar[tuple[str, ...]] = ("study", "scores", "saved")


@dataclass(frozen=True)
class StructureChanged(Event):
    """Criteria, systems, experiments, names or properties changed."""

    channels: ClassVar[tuple[str, ...]] = ("study", "scores", "saved")
    what: str = ""  # "details", "criteria", "systems", "experiments", "properties", "labels"


@dataclass(frozen=True)
class ScoresChanged(Event):
    """Score values changed; ``cells`` are the (criterion, system, experiment) keys."""

    channels: ClassVar[tuple[str, ...]] = ("scores", "saved")
    cells: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class ConventionsChanged(Event):
    channels: ClassVar[tuple[str, ...]] = ("scores",)
    conventions: str = ""


@dataclass(frozen=True)
class SavedState(Event):
    """The study was saved (or its id changed, which makes it a new study in the library)."""

    channels: ClassVar[tuple[str, ...]] = ("saved",)
    revision: int | None = None


@dataclass(frozen=True)
class IntervalsComputed(Event):
    """The assessment now has bootstrap intervals (``bootstrap``: B, seed, ci, ci_method, ...)."""

    channels: ClassVar[tuple[str, ...]] = ("scores",)
    bootstrap: dict = field(default_factory=dict)


@dataclass(frozen=True)
class IntervalsDropped(Event):
    """A bootstrap was cancelled, or its result was stale and discarded."""

    channels: ClassVar[tuple[str, ...]] = ("scores",)
