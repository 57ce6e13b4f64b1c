"""Annotations tab: upload item-level annotation files, see each file's first rows, choose its
layout (one column per criterion, a criterion and a rating column, pairwise judgements,
best-worst tuples, or a form with one column per item), map its columns with dropdowns (the
guessed mapping pre-selected), map answer texts to values or choices (the map is filled from
the answers found), name the criteria with their scales, evaluation type and QCET criterion
(suggested from the name), and load, or download the spec.  The view only builds the
annotation spec: reading, checking and aggregating are :mod:`qra_widgets.io.annotations`' job,
called through :meth:`AppState.load_annotations`.
"""

from __future__ import annotations

import json
from pathlib import Path

import ipywidgets as w

from ..errors import QRAInputError
from ..io import parse
from ..io.annotations import SCHEMA, SCHEMA_VERSION, guess_mapping, preview
from .annotation_cards import CriterionRow, ExperimentCard, equals_lines, split_list
from .common import (
    Confirm,
    Status,
    button,
    download_link,
    guarded,
    labelled,
    replace_children,
    run_reported,
    set_options,
)
from .datatable import DownloadButton, download_name
from .library import guard_unsaved
from .state import AppState

ACCEPT = ".csv,.tsv,.tab,.txt,.xlsx,.xlsm,.gz"


def uploaded_files(value) -> dict[str, bytes]:
    """``{name: bytes}`` from a FileUpload value (ipywidgets 8: a tuple of dicts)."""
    return {str(item["name"]): bytes(item["content"]) for item in value or ()}


def parse_renames(text: str) -> dict[str, str]:
    """``name in file = name in the study``, one per line, into the spec's ``systems``.

    >>> parse_renames("SVM-RERANK-NEWS = SVM\\n\\nGEDI-NEWS=GeDi")
    {'SVM-RERANK-NEWS': 'SVM', 'GEDI-NEWS': 'GeDi'}
    """
    renames = {}
    for number, line, old, new in equals_lines(text, "system names", "name in the file = name in the study"):
        if not old or not new:
            raise QRAInputError(f"system names, line {number}: both names are needed, got {line!r}")
        renames[old] = new
    return renames





def spec_text(spec: dict) -> str:
    """An annotation spec as the file the app hands out (JSON, one-space indent, non-ASCII kept)."""
    return json.dumps(spec, indent=1, ensure_ascii=False)


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
        self.agreement_coding = w.Dropdown(options=[("the chosen system", "system"), ("the answer's position", "position")],
                                           value="system", layout=w.Layout(width="14em"))
        self.load = button("Load the annotations", "qra-annotations-load", primary=True)
        self.download = DownloadButton("Download spec", self.spec_file, status=status,
                                       tooltip="The spec this form describes, to keep beside the annotation files")
        self.download.add_class("qra-annotations-download")
        self.spec_view = w.HTML()
        self.confirm = Confirm(lambda action: run_reported(self.status, action))
        self.upload.observe(self.on_upload, "value")
        self.add_criterion_button.on_click(lambda _: run_reported(self.status, self.add_criterion, ""))
        self.add_experiment_button.on_click(self.on_add_experiment)
        self.load.on_click(self.on_load)
        self.widget = w.VBox([
            w.HTML("<h4>Start from item-level annotations</h4><p>Upload one file per experiment (CSV, TSV, Excel or "
                   ".csv.gz): ratings (one column per criterion, or a criterion and a rating column), pairwise "
                   "judgements, best-worst tuples, or a form export with one column per item. Check the preview, "
                   "choose the layout, map the columns and the answers, give each criterion its scale, then load: "
                   "each system's value is the mean of its ratings (pairwise: its preference score, win rate or "
                   "Bradley-Terry value; best-worst: its best-worst score), and the ratings and this mapping are "
                   "saved with the study.</p>"),
            self.upload,
            w.HTML("<h5>Quality criteria</h5>"), self.criteria_box, self.add_criterion_button,
            w.HTML("<h5>Experiments</h5>"), self.experiments_box,
            w.HBox([labelled("Uploaded file", self.add_from, "8em"), self.add_experiment_button],
                   layout=w.Layout(flex_flow="row wrap", align_items="center")),
            w.HTML("<h5>Study</h5>"),
            labelled("Study id", self.study_id, "10em"), labelled("Study name", self.study_name, "10em"),
            labelled("Missing-rating marks (empty cells always are)", self.missing, "10em"),
            labelled("System names", self.renames, "10em"),
            labelled("Agreement of pairwise and best-worst answers codes", self.agreement_coding, "10em"),
            w.HBox([self.load, self.download]), self.confirm.widget, self.spec_view])
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
        from ..io.annotations import entry_file_bytes

        for name in files:
            data, shown = entry_file_bytes(name, files=files)
            preview(data, shown, rows=1)  # refuse an unreadable file before keeping it
        fresh = [name for name in files if name not in self.files]
        self.files.update(files)
        set_options(self.add_from, list(self.files))
        if fresh and not self.criteria:  # a first guess: the rating column's name, or one criterion to name
            data, shown = entry_file_bytes(fresh[0], files=files)
            guess = guess_mapping(list(preview(data, shown, rows=1).columns))
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
                "systems": parse_renames(self.renames.value), "missing": self.missing_marks(),
                "experiments": [card.spec(i) for i, card in enumerate(self.experiments)]}
        if any(e.get("layout") in ("pairwise", "best_worst", "items_in_columns") for e in spec["experiments"]):
            spec["agreement_coding"] = self.agreement_coding.value
        ids = [e["id"] for e in spec["experiments"]]
        if len(set(ids)) < len(ids):
            raise QRAInputError(f"experiment ids: each experiment needs its own id, got {ids}")
        return spec

    def missing_marks(self) -> list[str]:
        return ["", *split_list(self.missing.value)]

    def spec_link(self, spec: dict) -> str:
        return download_link(spec_text(spec), download_name(spec["id"], "annotations", "json"),
                             "application/json", "Download this annotation spec (JSON)")

    def spec_file(self) -> tuple[str, str, str]:
        """The spec the form describes (checked first), as the file the Download spec button saves in one click."""
        from ..io.annotations import check_spec

        spec = check_spec(self.spec())
        name = download_name(spec["id"], "annotations", "json")
        self.status.ok(f"Downloaded the annotation spec as {name}: save it beside the files it names, then "
                       "`qra-widgets report SPEC.json` gives the same study.")
        return name, "application/json", spec_text(spec)

    @guarded(lambda self: self.status)
    def on_load(self, _=None) -> None:
        spec = self.spec()  # a form problem is reported before anything is asked
        files = {e["file"]: self.files[e["file"]] for e in spec["experiments"]}

        def action():
            event = self.state.load_annotations(spec, files)
            self.spec_view.value = self.spec_link(spec)
            self.status.ok(event.message)

        guard_unsaved(self.state, self.confirm, "load the annotations", action)
