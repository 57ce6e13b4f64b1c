"""Annotations tab: upload one item-level annotation file per experiment, see its first rows,
map its columns with dropdowns (the guessed mapping pre-selected), name the criteria and
their scales, and load.  The view only builds the annotation spec (issue 12 §1): reading,
checking and aggregating are :mod:`qra_widgets.annotations`' job, called through
:meth:`AppState.load_annotations`.  Wide files only (one column per criterion); a long file
(criterion and rating columns) is read from a spec with ``qra-widgets report SPEC.json``.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import ipywidgets as w

from .. import parse
from ..annotations import SCHEMA, SCHEMA_VERSION, guess_mapping, preview
from ..errors import QRAInputError
from ..study import LABEL_LEVELS
from .common import (
    Confirm,
    Status,
    button,
    download_link,
    guarded,
    labelled,
    replace_children,
    run_reported,
    safe_file_stem,
    set_options,
)
from .library import guard_unsaved
from .state import AppState

NONE = "(none)"
ACCEPT = ".csv,.tsv,.tab,.txt,.xlsx,.xlsm"
PREVIEW_ROWS = 5


def uploaded_files(value) -> dict[str, bytes]:
    """``{name: bytes}`` from a FileUpload value (ipywidgets 8: a tuple of dicts)."""
    return {str(item["name"]): bytes(item["content"]) for item in value or ()}


def parse_renames(text: str) -> dict[str, str]:
    """``name in file = name in the study``, one per line, into the spec's ``systems``.

    >>> parse_renames("SVM-RERANK-NEWS = SVM\\n\\nGEDI-NEWS=GeDi")
    {'SVM-RERANK-NEWS': 'SVM', 'GEDI-NEWS': 'GeDi'}
    """
    renames = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if "=" not in line:
            raise QRAInputError(f"system names, line {number}: write 'name in the file = name in the study', got {line.strip()!r}")
        old, new = (part.strip() for part in line.rsplit("=", 1))
        if not old or not new:
            raise QRAInputError(f"system names, line {number}: both names are needed, got {line.strip()!r}")
        renames[old] = new
    return renames


def split_list(text: str) -> list[str]:
    """Comma-separated values, stripped, empty ones dropped."""
    return [part.strip() for part in text.split(",") if part.strip()]


class CriterionRow:
    """One quality criterion: name, scale (the minimum is never assumed) and label level."""

    def __init__(self, name: str, on_change, on_remove):
        self.name = w.Text(value=name, placeholder="criterion name", continuous_update=False, layout=w.Layout(width="14em"))
        self.scale_min = w.Text(placeholder="scale min", layout=w.Layout(width="7em"))
        self.scale_max = w.Text(placeholder="scale max", layout=w.Layout(width="7em"))
        self.level = w.Dropdown(options=LABEL_LEVELS, value="ordinal", layout=w.Layout(width="9em"))
        self.remove = button("Remove", "qra-annotations-remove-criterion")
        self.name.add_class("qra-annotations-criterion-name")
        self.scale_min.add_class("qra-annotations-scale-min")
        self.scale_max.add_class("qra-annotations-scale-max")
        self.name.observe(lambda _: on_change(), "value")
        self.remove.on_click(lambda _: on_remove(self))
        self.widget = w.HBox([self.name, self.scale_min, self.scale_max, self.level, self.remove],
                             layout=w.Layout(flex_flow="row wrap", align_items="center"))

    def spec(self, index: int) -> dict:
        name = self.name.value.strip()
        if not name:
            raise QRAInputError(f"quality criterion {index + 1}: give it a name")
        low = parse.required_number(self.scale_min.value, f"{name}: scale minimum")
        high = parse.optional_number(self.scale_max.value, f"{name}: scale maximum")
        entry = {"name": name, "scale_min": low, "label_level": self.level.value}
        if high is not None:
            entry["scale_max"] = high
        return entry


class ExperimentCard:
    """One experiment: which uploaded file, its id and role, a preview, and its column mapping."""

    def __init__(self, view: AnnotationsView, file_name: str, experiment_id: str, role: str):
        self.view = view
        self.file = w.Dropdown(options=list(view.files), value=file_name, layout=w.Layout(width="auto"))
        self.id = w.Text(value=experiment_id, layout=w.Layout(width="12em"))
        self.label = w.Text(placeholder="label (optional)", layout=w.Layout(width="14em"))
        self.role = w.Dropdown(options=["original", "repeat"], value=role, layout=w.Layout(width="8em"))
        self.preview = w.HTML()
        self.preview.add_class("qra-annotations-preview")
        self.system = w.Dropdown(layout=w.Layout(width="auto"))
        self.item = w.Dropdown(layout=w.Layout(width="auto"))
        self.rater = w.Dropdown(layout=w.Layout(width="auto"))
        self.filter_column = w.Dropdown(layout=w.Layout(width="auto"))
        self.filter_values = w.Text(placeholder="values, comma-separated", layout=w.Layout(width="16em"))
        self.criteria_box = w.VBox()
        self.criteria: dict[str, w.Dropdown] = {}
        self.remove = button("Remove this experiment", "qra-annotations-remove-experiment")
        self.id.add_class("qra-annotations-experiment-id")
        for part, dropdown in (("system", self.system), ("item", self.item), ("rater", self.rater)):
            dropdown.add_class(f"qra-annotations-{part}")
        self.filter_column.add_class("qra-annotations-filter-column")
        self.filter_values.add_class("qra-annotations-filter-values")
        self.file.observe(lambda _: run_reported(view.status, self.read_file), "value")
        self.remove.on_click(lambda _: view.remove_experiment(self))
        self.widget = w.VBox([
            w.HBox([labelled("File", self.file, "4em"), labelled("Experiment id", self.id, "7em"), self.label, self.role],
                   layout=w.Layout(flex_flow="row wrap", align_items="center", grid_gap="0.5em")),
            self.preview,
            w.HBox([labelled("System column", self.system, "8em"), labelled("Item column", self.item, "7em"),
                    labelled("Rater column", self.rater, "7em")], layout=w.Layout(flex_flow="row wrap", grid_gap="0.5em")),
            self.criteria_box,
            w.HBox([labelled("Keep only rows where", self.filter_column, "11em"), labelled("is one of", self.filter_values, "5em")],
                   layout=w.Layout(flex_flow="row wrap", grid_gap="0.5em")),
            self.remove])
        self.widget.add_class("qra-annotations-experiment")
        self.columns: list[str] = []
        self.read_file()

    def read_file(self) -> None:
        """Show the chosen file's first rows and pre-select the guessed columns."""
        name = self.file.value
        head = preview(self.view.files[name], name, rows=PREVIEW_ROWS)
        self.columns = list(head.columns)
        self.preview.value = (f"<div class='qra-scroll'><p>First {len(head)} rows of <code>{html.escape(name)}</code>:</p>"
                              + head.to_html(index=False, escape=True, classes="qra-template") + "</div>")
        guess = guess_mapping(self.columns, self.view.criterion_names())
        for role, dropdown, optional in (("system", self.system, False), ("item", self.item, False), ("rater", self.rater, True)):
            dropdown.options = ([NONE] if optional else []) + self.columns
            dropdown.value = guess.get(role, NONE if optional else (self.columns[0] if self.columns else None))
        self.filter_column.options = [NONE, *self.columns]
        self.filter_column.value = NONE
        self._guess = guess
        self.sync_criteria(reset=True)

    def sync_criteria(self, reset: bool = False) -> None:
        """One dropdown per criterion; a criterion keeps its chosen column when it is renamed or another is added."""
        previous = {} if reset else {row: d.value for row, d in self.criteria.items()}
        guess = self._guess
        used = {guess.get(r) for r in ("system", "item", "rater")}
        spare = [c for c in self.columns if c not in used]
        self.criteria = {}
        rows = []
        for index, row in enumerate(self.view.criteria):
            name = row.name.value.strip()
            dropdown = w.Dropdown(options=[NONE, *self.columns], layout=w.Layout(width="auto"))
            dropdown.add_class("qra-annotations-criterion-column")
            chosen = previous.get(row) or (guess.get("criteria") or {}).get(name)
            if not chosen:  # a column named like a rating, else the index-th spare column
                chosen = guess.get("rating") if index == 0 and guess.get("rating") else (spare[index] if index < len(spare) else NONE)
            dropdown.value = chosen if chosen in dropdown.options else NONE
            self.criteria[row] = dropdown
            rows.append(labelled(f"Column of {name}" if name else f"Column of criterion {index + 1}", dropdown, "12em"))
        replace_children(self.criteria_box, rows)

    def spec(self, index: int) -> dict:
        where = f"experiment {index + 1} ({self.file.value})"
        experiment_id = self.id.value.strip()
        if not experiment_id:
            raise QRAInputError(f"{where}: give it an experiment id")
        criteria = {}
        for row, dropdown in self.criteria.items():
            name = row.name.value.strip()
            if dropdown.value in (None, NONE):
                raise QRAInputError(f"{where}: choose the column of quality criterion {name!r}")
            criteria[name] = dropdown.value
        columns = {"system": self.system.value, "item": self.item.value, "criteria": criteria}
        if self.rater.value not in (None, NONE):
            columns["rater"] = self.rater.value
        entry = {"id": experiment_id, "role": self.role.value, "file": self.file.value, "columns": columns}
        if self.label.value.strip():
            entry["label"] = self.label.value.strip()
        if self.filter_column.value not in (None, NONE):
            values = split_list(self.filter_values.value)
            if not values:
                raise QRAInputError(f"{where}: give the values of {self.filter_column.value!r} whose rows to keep")
            entry["rows"] = {self.filter_column.value: values}
        return entry


class AnnotationsView:
    """Upload → preview → map columns → name criteria → Load (replaces the study being edited)."""

    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.files: dict[str, bytes] = {}
        self.upload = w.FileUpload(accept=ACCEPT, multiple=True, description="Upload annotation files", icon="")  # no icon font (nothing from a CDN)
        self.upload.add_class("qra-annotations-upload")
        self.study_id = w.Text(value="annotations", layout=w.Layout(width="16em"))
        self.study_name = w.Text(layout=w.Layout(width="30em", max_width="100%"))
        self.missing = w.Text(value="NA, N/A, nan, *", layout=w.Layout(width="16em"))
        self.renames = w.Textarea(placeholder="name in the file = name in the study (one per line)",
                                  layout=w.Layout(width="30em", height="6em", max_width="100%"))
        self.study_id.add_class("qra-annotations-study-id")
        self.renames.add_class("qra-annotations-renames")
        self.criteria: list[CriterionRow] = []
        self.criteria_box = w.VBox()
        self.add_criterion_button = button("Add a criterion", "qra-annotations-add-criterion")
        self.experiments: list[ExperimentCard] = []
        self.experiments_box = w.VBox()
        self.add_from = w.Dropdown(layout=w.Layout(width="auto"))
        self.add_experiment_button = button("Add an experiment from this file", "qra-annotations-add-experiment")
        self.load = button("Load the annotations", "qra-annotations-load", primary=True)
        self.spec_view = w.HTML()
        self.confirm = Confirm(lambda action: run_reported(self.status, action))
        self.upload.observe(self.on_upload, "value")
        self.add_criterion_button.on_click(lambda _: run_reported(self.status, self.add_criterion, ""))
        self.add_experiment_button.on_click(self.on_add_experiment)
        self.load.on_click(self.on_load)
        self.widget = w.VBox([
            w.HTML("<h4>Start from item-level annotations</h4><p>Upload one file per experiment (CSV, TSV or Excel, one "
                   "row per rater and item, one column per criterion). Check the preview, map the columns, give each "
                   "criterion its scale, then load: each system's score is the mean of its ratings, and the ratings and "
                   "this mapping are saved with the study.</p>"),
            self.upload,
            w.HTML("<h5>Quality criteria</h5>"), self.criteria_box, self.add_criterion_button,
            w.HTML("<h5>Experiments</h5>"), self.experiments_box,
            w.HBox([labelled("Uploaded file", self.add_from, "8em"), self.add_experiment_button],
                   layout=w.Layout(flex_flow="row wrap", align_items="center")),
            w.HTML("<h5>Study</h5>"),
            labelled("Study id", self.study_id, "10em"), labelled("Study name", self.study_name, "10em"),
            labelled("Missing-rating marks (empty cells always are)", self.missing, "10em"),
            labelled("System names", self.renames, "10em"),
            self.load, self.confirm.widget, self.spec_view])
        self.widget.add_class("qra-annotations-tab")

    # ------------------------------------------------------------------ criteria

    def criterion_names(self) -> list[str]:
        return [row.name.value.strip() for row in self.criteria]

    def add_criterion(self, name: str) -> CriterionRow:
        row = CriterionRow(name, self.criteria_changed, self.remove_criterion)
        self.criteria.append(row)
        self.criteria_changed()
        return row

    def remove_criterion(self, row: CriterionRow) -> None:
        self.criteria.remove(row)
        self.criteria_changed()

    def criteria_changed(self) -> None:
        replace_children(self.criteria_box, [row.widget for row in self.criteria])
        for card in self.experiments:
            card.sync_criteria()

    # ------------------------------------------------------------------ files and experiments

    def on_upload(self, change) -> None:
        run_reported(self.status, self.add_files, uploaded_files(change["new"]))

    def add_files(self, files: dict[str, bytes]) -> None:
        """New uploads: each new file gets an experiment (the first one is the original)."""
        for name, data in files.items():
            preview(data, name, rows=1)  # refuse an unreadable file before keeping it
        fresh = [name for name in files if name not in self.files]
        self.files.update(files)
        set_options(self.add_from, list(self.files))
        if fresh and not self.criteria:  # a first guess: the rating column's name, or one criterion to name
            guess = guess_mapping(list(preview(files[fresh[0]], fresh[0], rows=1).columns))
            self.add_criterion(guess.get("rating", "") if "criterion" not in guess else "")
        for name in fresh:
            self.add_experiment(name)
        self.status.ok(f"Read {len(files)} file(s): check the previews and the columns, then load.")

    def add_experiment(self, file_name: str) -> ExperimentCard:
        taken = {card.id.value for card in self.experiments}
        experiment_id = parse.unique_id(Path(file_name).stem, taken)
        card = ExperimentCard(self, file_name, experiment_id, "repeat" if self.experiments else "original")
        self.experiments.append(card)
        replace_children(self.experiments_box, [c.widget for c in self.experiments])
        return card

    def remove_experiment(self, card: ExperimentCard) -> None:
        self.experiments.remove(card)
        replace_children(self.experiments_box, [c.widget for c in self.experiments])

    @guarded(lambda self: self.status)
    def on_add_experiment(self, _=None) -> None:
        if not self.add_from.value:
            raise QRAInputError("experiment: upload a file first")
        self.add_experiment(self.add_from.value)

    # ------------------------------------------------------------------ the spec and loading

    def spec(self) -> dict:
        """The annotation spec the form describes (checked by :meth:`AppState.load_annotations`)."""
        if not self.experiments:
            raise QRAInputError("annotations: upload at least one file")
        if not self.criteria:
            raise QRAInputError("annotations: add at least one quality criterion")
        study_id = self.study_id.value.strip()
        if not study_id:
            raise QRAInputError("study id: must be a non-empty text")
        spec = {"schema": SCHEMA, "version": SCHEMA_VERSION, "id": study_id, "name": self.study_name.value.strip(),
                "quality_criteria": [row.spec(i) for i, row in enumerate(self.criteria)],
                "systems": parse_renames(self.renames.value), "missing": ["", *split_list(self.missing.value)],
                "experiments": [card.spec(i) for i, card in enumerate(self.experiments)]}
        ids = [e["id"] for e in spec["experiments"]]
        if len(set(ids)) < len(ids):
            raise QRAInputError(f"experiment ids: each experiment needs its own id, got {ids}")
        return spec

    @guarded(lambda self: self.status)
    def on_load(self, _=None) -> None:
        spec = self.spec()  # a form problem is reported before anything is asked
        files = {e["file"]: self.files[e["file"]] for e in spec["experiments"]}

        def action():
            event = self.state.load_annotations(spec, files)
            self.spec_view.value = download_link(json.dumps(spec, indent=1), f"{safe_file_stem(spec['id'])}-annotations.json",
                                                 "application/json", "Download this annotation spec (JSON)")
            self.status.ok(event.message)

        guard_unsaved(self.state, self.confirm, "load the annotations", action)
