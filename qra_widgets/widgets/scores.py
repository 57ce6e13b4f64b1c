"""Scores tab: one editable grid per quality criterion (systems x experiments), paste from a
spreadsheet, and uploads of long CSV/Excel scores and Type III labels.

Cells are text inputs that commit on Enter or leaving the cell (so typing never triggers a
re-assessment: that is the debounce).  An invalid entry stays in its cell, is marked, and
its reason is listed under the grid; the study keeps its last valid value.

A grid shows at most :data:`PAGE_ROWS` systems at a time, so a 200-system study builds the
same few hundred widgets as a 5-system one; paging, edits and a new study of the same shape
re-bind the existing cells in place.  Every change goes through :class:`AppState` commands.
"""

from __future__ import annotations

import ipywidgets as w

from ..errors import QRAInputError, ScoreError
from ..report.html import escape
from .common import Status, button, close_all, guarded, labelled, replace_children, set_options
from .experiments import uploaded
from .state import AppState, Event, PendingScores, ScoresChanged

PAGE_ROWS = 20


class ScoreGrid:
    """The grid of one quality criterion: a page of systems, re-bound in place."""

    def __init__(self, state: AppState, qc_index: int, qc: str, on_problem, status: Status | None = None):
        self.state, self.qc, self.qc_index, self.on_problem = state, qc, qc_index, on_problem
        self.status = status or Status()  # where a failing edit says so (the Scores tab's status line)
        self.page = 0
        self.problems: dict[tuple[str, str], tuple[str, str]] = {}  # (system, experiment) -> (typed text, reason)
        self._binding = False
        experiments = state.study.experiments
        rows = min(PAGE_ROWS, len(state.study.systems))
        self._shape = (qc, rows, len(experiments))  # what these widgets can show without a rebuild
        self.header = [w.HTML(f"<b title='{escape(e.id)}'>{escape(e.display_name)}</b>") for e in experiments]
        self.row_names = [w.HTML() for _ in range(rows)]
        self.grid_cells: list[list[w.Text]] = []
        children = [w.HTML("<b>system \\ experiment</b>"), *self.header]
        for i in range(rows):
            line = []
            children.append(self.row_names[i])
            for j in range(len(experiments)):
                cell = w.Text(continuous_update=False, layout=w.Layout(width="auto"))
                cell.add_class("qra-cell")
                cell.add_class(f"qra-cell-{qc_index}-{i}-{j}")
                cell.observe(lambda change, i=i, j=j: self.on_edit(i, j, change), "value")
                line.append(cell)
                children.append(cell)
            self.grid_cells.append(line)
        columns = f"minmax(9em, max-content) repeat({len(experiments)}, minmax(6em, 9em))"
        self.table = w.GridBox(
            children, layout=w.Layout(grid_template_columns=columns, grid_gap="2px 6px", overflow="auto")
        )
        self.table.add_class(f"qra-grid-{qc_index}")
        self.previous = button("◀ Previous systems", "qra-page-previous")
        self.next = button("Next systems ▶", "qra-page-next")
        self.where = w.HTML()
        self.previous.on_click(lambda _: self.show_page(self.page - 1))
        self.next.on_click(lambda _: self.show_page(self.page + 1))
        pager = (
            [w.HBox([self.previous, self.where, self.next], layout=w.Layout(align_items="center"))]
            if len(state.study.systems) > PAGE_ROWS
            else []
        )
        self.widget = w.VBox([w.HTML(f"<h5 class='qra-grid-title'>{escape(qc)}</h5>"), self.table, *pager])
        self.bind()

    def shape(self) -> tuple:
        """(criterion, rows of cells, experiments) the grid was built for."""
        return self._shape

    @property
    def pages(self) -> int:
        return max(1, -(-len(self.state.study.systems) // PAGE_ROWS))

    def page_systems(self) -> list[str]:
        return self.state.study.systems[self.page * PAGE_ROWS : (self.page + 1) * PAGE_ROWS]

    @guarded(lambda self: self.status)
    def show_page(self, page: int) -> None:
        self.page = min(max(page, 0), self.pages - 1)
        self.bind()

    def bind(self) -> None:
        """Show the current page's systems and values in the existing widgets."""
        study = self.state.study
        self.page = min(self.page, self.pages - 1)
        systems = self.page_systems()
        self._binding = True
        try:
            for header, experiment in zip(self.header, study.experiments):
                header.value = f"<b title='{escape(experiment.id)}'>{escape(experiment.display_name)}</b>"
            for i, name_widget in enumerate(self.row_names):
                system = systems[i] if i < len(systems) else None
                name_widget.value = escape(system) if system else ""
                for j, experiment in enumerate(study.experiments):
                    cell = self.grid_cells[i][j]
                    cell.disabled = system is None
                    self._show(cell, system, experiment.id)
        finally:
            self._binding = False
        first = self.page * PAGE_ROWS
        self.where.value = f"systems {first + 1}–{first + len(systems)} of {len(study.systems)}"

    def _show(self, cell: w.Text, system: str | None, experiment: str) -> None:
        problem = self.problems.get((system, experiment)) if system else None
        if problem:
            cell.value = problem[0]
            cell.add_class("qra-invalid")
        else:
            value = self.state.study.scores.get((self.qc, system, experiment)) if system else None
            cell.value = "" if value is None else f"{value:g}"
            cell.remove_class("qra-invalid")

    @property
    def cells(self) -> dict[tuple[str, str], w.Text]:
        """The visible cells by (system, experiment id)."""
        ids = self.state.study.experiment_ids
        return {
            (system, ids[j]): self.grid_cells[i][j]
            for i, system in enumerate(self.page_systems())
            for j in range(len(ids))
        }

    def cell(self, system: str, experiment: str) -> w.Text:
        """The cell of ``system`` in ``experiment``, turning to its page first."""
        self.show_page(self.state.study.systems.index(system) // PAGE_ROWS)
        return self.cells[(system, experiment)]

    def update(self, keys) -> None:
        """Re-show the cells of ``keys`` (criterion, system, experiment) if they are on this page."""
        visible = {(s, e): c for (s, e), c in self.cells.items()}
        self._binding = True
        try:
            for qc, system, experiment in keys:
                if qc == self.qc and (system, experiment) in visible:
                    self.problems.pop((system, experiment), None)
                    self._show(visible[(system, experiment)], system, experiment)
        finally:
            self._binding = False

    @guarded(lambda self: self.status)
    def on_edit(self, i: int, j: int, change) -> None:
        if self._binding:
            return
        systems = self.page_systems()
        if i >= len(systems):
            return
        system, experiment = systems[i], self.state.study.experiments[j].id
        cell = self.grid_cells[i][j]
        try:
            self.state.set_scores({(self.qc, system, experiment): change["new"]})
        except QRAInputError as error:
            reason = error.reason if isinstance(error, ScoreError) else str(error)
            self.problems[(system, experiment)] = (change["new"], reason)
            cell.add_class("qra-invalid")
            self.on_problem()
            return
        self.on_problem()

    def close(self) -> None:
        for widget in (self.widget, self.previous, self.next, self.where):  # the pager may not be on the page
            close_all(widget)


class ScoresView:
    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.grids: list[ScoreGrid] = []
        self.grid_box = w.VBox()
        self.empty = w.HTML()
        self.problems = w.HTML()
        self.problems.add_class("qra-cell-problems")
        self.paste_target = w.Dropdown(layout=w.Layout(width="auto"))
        self.paste_text = w.Textarea(
            placeholder="paste cells copied from a spreadsheet (rows = systems, columns = experiments)",
            layout=w.Layout(width="100%", max_width="48em", height="80px"),
        )
        self.paste_button = button("Fill the grid from the pasted cells", "qra-paste")
        self.scores_upload = w.FileUpload(
            icon="",
            accept=".csv,.tsv,.txt,.xlsx",
            multiple=False,
            description="Scores file",
            layout=w.Layout(width="auto"),
        )
        self.scores_button = button("Load scores from the file", "qra-scores-upload-button")
        self.labels_upload = w.FileUpload(
            icon="", accept=".csv,.tsv,.txt", multiple=False, description="Labels CSV", layout=w.Layout(width="auto")
        )
        self.labels_button = button("Add Type III labels from the file", "qra-labels-upload-button")
        self.labels_info = w.HTML()
        self.scale_prompt = w.VBox(layout=w.Layout(display="none"))
        self.scale_prompt.add_class("qra-scale-prompt")
        self.scale_inputs: dict[str, tuple[w.Text, w.Text]] = {}
        self.scale_apply = button("Use these scales and load the file", "qra-scale-apply", primary=True)
        self.scale_cancel = button("Cancel the upload", "qra-scale-cancel")
        self.scores_upload.add_class("qra-scores-upload")
        self.paste_button.on_click(self.on_paste)
        self.scores_button.on_click(self.on_scores_file)
        self.labels_button.on_click(self.on_labels_file)
        self.scale_apply.on_click(self.on_apply_scales)
        self.scale_cancel.on_click(self.on_cancel_scales)
        state.on("study", self.on_study)
        state.on("scores", self.on_scores)
        self.widget = w.VBox(
            [
                w.HTML(
                    "<h4>Scores</h4><p>Type a score and press Enter (or leave the cell). Empty = not scored. "
                    "Invalid entries are kept and marked; the study keeps its last valid value.</p>"
                ),
                self.empty,
                self.grid_box,
                self.problems,
                w.HTML("<h4>Paste from a spreadsheet</h4>"),
                labelled("Paste into criterion", self.paste_target),
                self.paste_text,
                self.paste_button,
                w.HTML(
                    "<h4>Upload</h4><p>Scores: long CSV or Excel with columns <code>experiment, quality_criterion, system, "
                    "score</code> (optional <code>scale_min</code>, <code>scale_max</code>, <code>role</code>): it replaces the "
                    "study's systems, experiments and scores. Without scale columns the criteria keep their scales, and "
                    "you are asked for the scale of a new criterion. Labels: long CSV with <code>experiment, "
                    "quality_criterion, system, item, label</code>. Files up to 5 MiB.</p>"
                ),
                w.HBox([self.scores_upload, self.scores_button], layout=w.Layout(flex_flow="row wrap")),
                self.scale_prompt,
                w.HBox([self.labels_upload, self.labels_button], layout=w.Layout(flex_flow="row wrap")),
                self.labels_info,
            ]
        )
        self.widget.add_class("qra-scores-tab")
        self.rebuild()

    # ------------------------------------------------------------------ display

    def on_study(self, event: Event | None = None) -> None:
        shapes = [g.shape() for g in self.grids]
        study = self.state.study
        wanted = [(qc, min(PAGE_ROWS, len(study.systems)), len(study.experiments)) for qc in study.qc_names]
        if shapes == wanted:  # same shape: re-bind the cells in place
            for grid in self.grids:
                grid.problems.clear()
                grid.bind()
            self._show_extras()
        else:
            self.rebuild()

    def on_scores(self, event: Event | None = None) -> None:
        if isinstance(event, ScoresChanged):
            for grid in self.grids:
                grid.update(event.cells)
            self.show_problems()

    def rebuild(self) -> None:
        study = self.state.study
        old = self.grids
        self.grids = [
            ScoreGrid(self.state, i, qc, self.show_problems, self.status) for i, qc in enumerate(study.qc_names)
        ]
        self.grid_box.children = [g.widget for g in self.grids]
        for grid in old:
            grid.close()
        self._show_extras()

    def _show_extras(self) -> None:
        study = self.state.study
        if not study.qc_names or not study.systems or not study.experiments:
            missing = [
                what
                for what, present in (
                    ("a quality criterion", study.qc_names),
                    ("systems", study.systems),
                    ("experiments", study.experiments),
                )
                if not present
            ]
            self.empty.value = (
                f"<p class='qra-hint'>The grid appears once the study has {', '.join(missing)} "
                "(Study and Experiments tabs), or upload a scores file below.</p>"
            )
        else:
            self.empty.value = ""
        set_options(self.paste_target, study.qc_names)
        self.labels_info.value = f"{len(study.labels)} Type III labels in the study." if study.labels else ""
        self.show_problems()

    def show_problems(self) -> None:
        names = {e.id: e.display_name for e in self.state.study.experiments}  # a removed experiment: its id
        items = [
            f"<li>{escape(g.qc)} / {escape(s)} / {escape(names.get(e, e))}: {escape(p[1])}</li>"
            for g in self.grids
            for (s, e), p in g.problems.items()
        ]
        self.problems.value = f"<ul class='qra-invalid-list'>{''.join(items)}</ul>" if items else ""

    def grid(self, qc: str) -> ScoreGrid:
        return next(g for g in self.grids if g.qc == qc)

    # ------------------------------------------------------------------ commands

    @guarded(lambda self: self.status)
    def on_paste(self, _=None) -> None:
        from ..io import parse

        if not self.paste_target.value:
            raise QRAInputError("paste: add a quality criterion first")
        study, qc = self.state.study, self.paste_target.value
        rows = parse.pasted_block(self.paste_text.value, study.systems, [e.display_name for e in study.experiments])
        cells = {
            (qc, study.systems[i], study.experiments[j].id): text
            for i, row in enumerate(rows)
            for j, text in enumerate(row)
        }
        self.state.set_scores(cells)
        self.status.ok(f"Pasted {len(cells)} cells into {qc!r}.")

    @guarded(lambda self: self.status)
    def on_scores_file(self, _=None) -> None:
        name, data = uploaded(self.scores_upload)
        result = self.state.import_scores(data, name)
        self.scores_upload.value = ()
        if isinstance(result, PendingScores):
            self.ask_scales(result)
            self.status.ok(
                f"{name}: give the scale of {', '.join(map(repr, result.new_criteria))} before the scores are used."
            )
            return
        self.hide_scales()
        self.status.ok(result.message)

    def ask_scales(self, pending: PendingScores) -> None:
        self.scale_inputs = {}
        rows = []
        for qc in pending.new_criteria:
            low = w.Text(placeholder="e.g. 1", layout=w.Layout(width="7em"))
            high = w.Text(placeholder="e.g. 5 (optional)", layout=w.Layout(width="10em"))
            low.add_class("qra-scale-min")
            high.add_class("qra-scale-max")
            self.scale_inputs[qc] = (low, high)
            rows.append(
                w.HBox(
                    [
                        w.HTML(f"<b>{escape(qc)}</b>", layout=w.Layout(width="12em")),
                        labelled("lowest possible score", low, "11em"),
                        labelled("highest (optional)", high, "10em"),
                    ],
                    layout=w.Layout(flex_flow="row wrap"),
                )
            )
        question = w.HTML(
            f"<p class='qra-warning'>{escape(pending.source)} has no <code>scale_min</code> column and "
            "these criteria are new to the study. CV* subtracts the scale minimum (QRA 2022 §3.1), so it "
            "must be known: what scale were they rated on?</p>"
        )
        replace_children(self.scale_prompt, [question, *rows, w.HBox([self.scale_apply, self.scale_cancel])])
        self.scale_prompt.layout.display = "flex"

    def hide_scales(self) -> None:
        replace_children(self.scale_prompt, [self.scale_apply, self.scale_cancel])
        self.scale_inputs = {}
        self.scale_prompt.layout.display = "none"

    @guarded(lambda self: self.status)
    def on_apply_scales(self, _=None) -> None:
        from ..io import parse

        scales = {
            qc: (
                parse.required_number(low.value, f"{qc}: lowest possible score"),
                parse.optional_number(high.value, f"{qc}: highest possible score"),
            )
            for qc, (low, high) in self.scale_inputs.items()
        }
        event = self.state.import_scores(scales=scales)
        self.hide_scales()
        self.status.ok(event.message)

    @guarded(lambda self: self.status)
    def on_cancel_scales(self, _=None) -> None:
        self.state.pending = None
        self.hide_scales()
        self.status.ok("Upload cancelled; the study is unchanged.")

    @guarded(lambda self: self.status)
    def on_labels_file(self, _=None) -> None:
        name, data = uploaded(self.labels_upload)
        event = self.state.import_labels(data, name)
        self.labels_upload.value = ()
        self.status.ok(event.message)
