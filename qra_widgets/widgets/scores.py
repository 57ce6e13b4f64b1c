"""Scores tab: one editable grid per quality criterion (systems x experiments), paste from a
spreadsheet, and uploads of long CSV/Excel scores and Type III labels.

Cells are text inputs that commit on Enter or leaving the cell (so typing never triggers a
re-assessment: that is the debounce).  An invalid entry stays in its cell, is marked, and
its reason is listed under the grid; the study keeps its last valid value.
"""

from __future__ import annotations

import html

import ipywidgets as w

from ..errors import QRAInputError
from ..io import LABEL_COLUMNS, SCORE_COLUMNS, add_labels_table, read_table, study_from_scores_table
from .common import Status, guarded, set_options
from .experiments import uploaded
from .state import AppState


def _parse_score(text: str) -> float | None:
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        hint = " (use '.' as the decimal point)" if "," in text else ""
        raise QRAInputError(f"{text!r} is not a number{hint}") from None


class ScoreGrid:
    """The grid of one quality criterion."""

    def __init__(self, state: AppState, qc_index: int, qc: str, on_problem):
        self.state, self.qc, self.on_problem = state, qc, on_problem
        study = state.study
        self.cells: dict[tuple[str, str], w.Text] = {}
        header = [w.HTML("<b>system \\ experiment</b>")] + [w.HTML(f"<b>{html.escape(e.display_name)}</b>") for e in study.experiments]
        children = list(header)
        for i, system in enumerate(study.systems):
            children.append(w.HTML(html.escape(system)))
            for j, experiment in enumerate(study.experiments):
                value = study.scores.get((qc, system, experiment.id))
                cell = w.Text(value="" if value is None else f"{value:g}", continuous_update=False, layout=w.Layout(width="auto"))
                cell.add_class("qra-cell")
                cell.add_class(f"qra-cell-{qc_index}-{i}-{j}")
                cell.observe(lambda change, s=system, e=experiment.id: self.on_edit(s, e, change), "value")
                self.cells[(system, experiment.id)] = cell
                children.append(cell)
        columns = f"minmax(140px, max-content) repeat({len(study.experiments)}, minmax(90px, 140px))"
        self.widget = w.GridBox(children, layout=w.Layout(grid_template_columns=columns, grid_gap="2px 6px"))
        self.widget.add_class(f"qra-grid-{qc_index}")
        self.problems: dict[tuple[str, str], str] = {}

    def on_edit(self, system: str, experiment: str, change) -> None:
        cell, key = self.cells[(system, experiment)], (system, experiment)
        try:
            value = _parse_score(change["new"])
            if value is None:
                self.state.study.clear_score(self.qc, system, experiment)
            else:
                self.state.study.set_score(self.qc, system, experiment, value)
        except QRAInputError as error:
            message = str(error)
            self.problems[key] = message.split(": ", 1)[-1] if message.startswith("score for") else message
            cell.add_class("qra-invalid")
            cell.layout.border = "2px solid #dc3545"
            self.on_problem()
            return
        self.problems.pop(key, None)
        cell.remove_class("qra-invalid")
        cell.layout.border = ""
        self.on_problem()
        self.state.scores_changed()

    def paste(self, text: str) -> int:
        """Fill the grid from a pasted block: rows = systems, columns = experiments, in grid
        order (a header row or column of names is skipped).  Returns the cells filled."""
        rows = [line.split("\t") if "\t" in line else line.split(",") for line in text.strip("\n").splitlines()]
        study = self.state.study
        if rows and rows[0] and rows[0][0].strip() not in study.systems and any(c.strip() in [e.display_name for e in study.experiments] for c in rows[0]):
            rows = rows[1:]
        filled = 0
        for i, row in enumerate(rows[: len(study.systems)]):
            if row and row[0].strip() == study.systems[i]:
                row = row[1:]
            for j, text_value in enumerate(row[: len(study.experiments)]):
                self.cells[(study.systems[i], study.experiments[j].id)].value = text_value.strip()
                filled += 1
        return filled


class ScoresView:
    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.grids: list[ScoreGrid] = []
        self.grid_box = w.VBox()
        self.problems = w.HTML()
        self.problems.add_class("qra-cell-problems")
        self.paste_target = w.Dropdown(description="Paste into")
        self.paste_text = w.Textarea(placeholder="paste cells copied from a spreadsheet (rows = systems, columns = experiments)",
                                     layout=w.Layout(width="640px", height="80px"))
        self.paste_button = w.Button(description="Fill grid from pasted cells", icon="paste")
        self.scores_upload = w.FileUpload(accept=".csv,.tsv,.txt,.xlsx", multiple=False, description="Scores file")
        self.scores_button = w.Button(description="Replace scores from file", icon="upload")
        self.labels_upload = w.FileUpload(accept=".csv,.tsv,.txt", multiple=False, description="Labels CSV")
        self.labels_button = w.Button(description="Add Type III labels", icon="upload")
        self.labels_info = w.HTML()
        self.scores_upload.add_class("qra-scores-upload")
        self.scores_button.add_class("qra-scores-upload-button")
        self.paste_button.on_click(self.on_paste)
        self.scores_button.on_click(self.on_scores_file)
        self.labels_button.on_click(self.on_labels_file)
        state.on("study", self.rebuild)
        self.widget = w.VBox([
            w.HTML("<h4>Scores</h4><p>Type a score and press Enter (or leave the cell). Empty = not scored. "
                   "Invalid entries are kept and marked; the study keeps its last valid value.</p>"),
            self.grid_box, self.problems,
            w.HTML("<h4>Paste from a spreadsheet</h4>"), w.HBox([self.paste_target, self.paste_button]), self.paste_text,
            w.HTML("<h4>Upload</h4><p>Scores: long CSV or Excel with columns <code>experiment, quality_criterion, system, "
                   "score</code> (optional <code>scale_min</code>, <code>scale_max</code>): it replaces the study's criteria, "
                   "systems, experiments and scores. Labels: long CSV with <code>experiment, quality_criterion, system, item, "
                   "label</code>. Files up to 5 MiB.</p>"),
            w.HBox([self.scores_upload, self.scores_button]), w.HBox([self.labels_upload, self.labels_button]), self.labels_info,
        ])
        self.rebuild()

    def rebuild(self) -> None:
        study = self.state.study
        self.grids = [ScoreGrid(self.state, i, qc, self.show_problems) for i, qc in enumerate(study.qc_names)]
        self.grid_box.children = [w.VBox([w.HTML(f"<b>{html.escape(g.qc)}</b>"), g.widget]) for g in self.grids]
        set_options(self.paste_target, study.qc_names)
        self.labels_info.value = f"{len(study.labels)} Type III labels in the study." if study.labels else ""
        self.show_problems()

    def show_problems(self) -> None:
        items = [f"<li>{html.escape(g.qc)} / {html.escape(s)} / {html.escape(e)}: {html.escape(p)}</li>"
                 for g in self.grids for (s, e), p in g.problems.items()]
        self.problems.value = f"<ul class='qra-invalid-list' style='color:#721c24'>{''.join(items)}</ul>" if items else ""

    def grid(self, qc: str) -> ScoreGrid:
        return next(g for g in self.grids if g.qc == qc)

    @guarded(lambda self: self.status)
    def on_paste(self, _=None) -> None:
        if not self.paste_target.value:
            raise QRAInputError("paste: add a quality criterion first")
        filled = self.grid(self.paste_target.value).paste(self.paste_text.value)
        self.status.ok(f"Pasted {filled} cells into {self.paste_target.value!r}.")

    @guarded(lambda self: self.status)
    def on_scores_file(self, _=None) -> None:
        name, data = uploaded(self.scores_upload)
        frame = read_table(data, name, SCORE_COLUMNS, excel=name.lower().endswith(".xlsx"))
        study = study_from_scores_table(frame, self.state.study.id, name)
        study.name, study.description = self.state.study.name, self.state.study.description
        self.scores_upload.value = ()
        self.state.load(study, self.state.revision)
        self.status.ok(f"Loaded {len(study.scores)} scores from {name}.")

    @guarded(lambda self: self.status)
    def on_labels_file(self, _=None) -> None:
        name, data = uploaded(self.labels_upload)
        add_labels_table(self.state.study, read_table(data, name, LABEL_COLUMNS), name)
        self.labels_upload.value = ()
        self.state.structure_changed()
        self.status.ok(f"Added labels from {name}: the study now has {len(self.state.study.labels)} labels.")
