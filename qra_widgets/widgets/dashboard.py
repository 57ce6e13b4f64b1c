"""The whole app: a header (study, saved state, revision), an examples bar, a status line and
one tab per task, styled by the package's own ``static/theme.css`` (no external requests).

Only the Study tab is built with the dashboard; every other tab's view is built the first time
it is shown (or asked for, e.g. ``dashboard.charts``) and then kept.  A view renders the
current state when it is built, so nothing is missed.  Each widget costs every visitor's
browser a model and a view: the first page had 875 widget models, most of them for tabs not
opened yet (twenty tabs opened at once took seconds each).
"""

from __future__ import annotations

import ipywidgets as w

from ..report.html import escape
from ..study import Study
from .common import Status, guarded, theme_css
from .experiments import ExperimentsView
from .library import ExamplesBar, LibraryView
from .overview import OverviewView
from .results import AssessmentView, ChartsView, CompareView
from .scores import ScoresView
from .state import AppState

TITLES = (
    "Study",
    "Experiments",
    "Scores",
    "Assessment",
    "Charts",
    "Compare",
    "Library",
    "Overview",
    "Annotations",
    "Intervals",
    "Side by side",
)


def _annotations_view():
    from .annotations import AnnotationsView

    return AnnotationsView


def _uncertainty_view():
    from .uncertainty import UncertaintyView

    return UncertaintyView


def _sidebyside_view():
    from .sidebyside import SideBySideView

    return SideBySideView


#: Each later tab's view class, by the dashboard attribute that holds it (a function, so the
#: two views with heavier imports are imported when first built).
VIEWS = {
    "experiments": lambda: ExperimentsView,
    "scores": lambda: ScoresView,
    "assessment": lambda: AssessmentView,
    "charts": lambda: ChartsView,
    "compare": lambda: CompareView,
    "library": lambda: LibraryView,
    "overview": lambda: OverviewView,
    "annotations": _annotations_view,
    "uncertainty": _uncertainty_view,
    "sidebyside": _sidebyside_view,
}
#: The tab each of those views fills, and the view of each of those tabs.
VIEW_TITLES = dict(zip(VIEWS, TITLES[1:]))
TITLE_VIEWS = {title: name for name, title in VIEW_TITLES.items()}


class Dashboard:
    """``Dashboard(study=None, library_path=None)``: display it (or its ``.widget``) in a notebook.

    The dashboard edits a **copy** of ``study``: the object you pass in, and any
    ``assess(study)`` result you made from it, stay as they were.  The edited study is
    ``dashboard.state.study``.  A tab is built when first shown, and then draws every chart
    at once.
    """

    def __init__(self, study: Study | None = None, library_path=None, *, conventions=None):
        self.state = AppState(study, library_path, conventions=conventions)
        self.status = Status()
        self.examples = ExamplesBar(self.state, self.status)
        from .study_form import StudyView

        self.study_view = StudyView(self.state, self.status)
        self._views: dict[str, object] = {}
        boxes = [w.VBox(layout=w.Layout(width="100%")) for _ in VIEWS]  # each gets its view when first shown
        self.tabs = w.Tab(children=[self.study_view.widget, *boxes], titles=TITLES)
        self.tabs.observe(self._on_tab, "selected_index")
        self.study_view.navigate = self.show_tab
        self.title = w.HTML()
        self.title.add_class("qra-header")
        self.state.on("saved", self._show_title)
        self.state.on("study", self._show_title)
        self._show_title()
        self.style = w.HTML(f"<style>{theme_css()}</style>")
        self.widget = w.VBox([self.style, self.title, self.examples.widget, self.status, self.tabs])
        self.widget.add_class("qra-dashboard")

    def __getattr__(self, name: str):
        """``dashboard.charts`` and the other later tabs' views, built on first use."""
        if name.startswith("_") or name not in VIEWS:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self._view(name)

    def _view(self, name: str):
        """The view ``name``, built and put in its tab's box the first time it is asked for.

        The box stays: changing the Tab's own children would make the browser rebuild the
        views of every later tab (ipywidgets keeps only the views before the first change)."""
        view = self._views.get(name)
        if view is None:
            view = self._views[name] = VIEWS[name]()(self.state, self.status)
            if hasattr(view, "navigate"):  # the Overview opens a study on its Assessment tab
                view.navigate = self.show_tab
            self.tabs.children[TITLES.index(VIEW_TITLES[name])].children = (view.widget,)
        return view

    def show_tab(self, title: str) -> None:
        self.tabs.selected_index = TITLES.index(title)

    def _show_title(self, event=None) -> None:
        state, study = self.state, self.state.study
        if state.revision is None:
            saved = "<span class='qra-badge qra-badge-new'>not saved in the library yet</span>"
        elif state.dirty:
            saved = (
                f"<span class='qra-badge qra-badge-dirty'>unsaved changes · based on revision {state.revision}</span>"
            )
        else:
            saved = f"<span class='qra-badge qra-badge-saved'>saved · revision {state.revision}</span>"
        name = escape(study.name) if study.name else "<i>Untitled study</i>"
        self.title.value = (
            f"<div class='qra-title'><span class='qra-brand'>qra-widgets</span> <span class='qra-study-title'>{name}</span> "
            f"<code class='qra-id'>{escape(study.id)}</code> {saved}</div>"
        )

    @guarded(lambda self: self.status)
    def _on_tab(self, change) -> None:
        self.status.clear()  # a message belongs to the tab it was given on
        title = TITLES[change["new"]]
        name = TITLE_VIEWS.get(title)
        if name is not None:
            built = name in self._views
            view = self._view(name)
            # the Overview reads the library when built; shown again, it reads it again if anything was saved
            if name == "library" or (name == "overview" and built):
                view.refresh()
        if "experiments" in self._views:
            self._views["experiments"].visible = title == "Experiments"
        if title == "Experiments":
            self._views["experiments"].ensure_form()

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
