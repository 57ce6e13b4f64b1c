"""Annotations tab: one card per experiment (:class:`~qra_widgets.widgets.annotation_cards.ExperimentCard`),
each with its own files (several files make one experiment), a preview, its layout (one column per
criterion, a criterion and a rating column, pairwise judgements, best-worst tuples, a form with one
column per item, or the published system values only), the column pickers that layout needs (the
guessed ones pre-selected, from the headers and the content), the answer map and the row filters;
the quality criteria with their scales, evaluation type and QCET criterion; then Load, or Download
spec.  The view only builds the annotation spec: reading, checking and aggregating are
:mod:`qra_widgets.io.annotations`' job, called through :meth:`AppState.load_annotations`.

Every control carries a stable CSS class (``qw-ann-...``, listed in docs/app.md), which the
browser tests use.
"""

from __future__ import annotations

import json

import ipywidgets as w

from ..errors import QRAInputError
from ..io.annotations import SCHEMA, SCHEMA_VERSION
from .annotation_cards import CriterionRow, equals_lines, split_list, uploaded_files
from .annotation_experiment import ExperimentCard
from .common import (
    Confirm,
    Status,
    button,
    download_link,
    guarded,
    labelled,
    replace_children,
    run_reported,
)
from .datatable import DownloadButton, download_name
from .library import guard_unsaved
from .state import AppState

ACCEPT = ".csv,.tsv,.tab,.txt,.xlsx,.xlsm,.gz"


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
    """Criteria → experiment cards (files, layout, pickers, answers) → Load (replaces the study being
    edited) or Download spec."""

    ACCEPT = ACCEPT

    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.upload = w.FileUpload(
            accept=ACCEPT, multiple=True, description="Upload files: one experiment each", icon=""
        )  # no icon font (nothing from a CDN)
        self.upload.add_class("qra-annotations-upload")
        self.upload.add_class("qw-ann-upload")
        self.study_id = w.Text(value="annotations", layout=w.Layout(width="16em"))
        self.study_name = w.Text(layout=w.Layout(width="30em", max_width="100%"))
        self.missing = w.Text(value="NA, N/A, nan, *", layout=w.Layout(width="16em"))
        self.renames = w.Textarea(
            placeholder="name in the file = name in the study (one per line)",
            layout=w.Layout(width="30em", height="6em", max_width="100%"),
        )
        self.study_id.add_class("qra-annotations-study-id")
        self.study_id.add_class("qw-ann-study-id")
        self.renames.add_class("qra-annotations-renames")
        self.renames.add_class("qw-ann-renames")
        self.criteria: list[CriterionRow] = []
        self.criteria_box = w.VBox()
        self.add_criterion_button = button("Add a criterion", "qw-ann-add-criterion")
        self.experiments: list[ExperimentCard] = []
        self.experiments_box = w.VBox()
        self.add_experiment_button = button("Add an experiment", "qw-ann-add-experiment")
        self.agreement_coding = w.Dropdown(
            options=[("the chosen system", "system"), ("the answer's position", "position")],
            value="system",
            layout=w.Layout(width="14em"),
        )
        self.agreement_coding.add_class("qw-ann-agreement-coding")
        self.load = button("Load the annotations", "qw-ann-load", primary=True)
        self.download = DownloadButton(
            "Download spec",
            self.spec_file,
            status=status,
            tooltip="The spec this form describes, to keep beside the annotation files",
        )
        self.download.add_class("qw-ann-download-spec")
        self.spec_view = w.HTML()
        self.confirm = Confirm(lambda action: run_reported(self.status, action))
        self.upload.observe(self.on_upload, "value")
        self.add_criterion_button.on_click(lambda _: run_reported(self.status, self.add_criterion, ""))
        self.add_experiment_button.on_click(lambda _: run_reported(self.status, self.add_experiment))
        self.load.on_click(self.on_load)
        self.widget = w.VBox(
            [
                w.HTML(
                    "<h4>Start from item-level annotations</h4><p>One card per experiment: add its file(s) (CSV, TSV, "
                    "Excel or .csv.gz; several files with the same columns make one experiment), check the preview, "
                    "choose the layout, map the columns and the answers; an original known only by its published "
                    "values is a card with the <i>scores</i> layout. Give each criterion its scale, then load: each "
                    "system's value is the mean of its ratings (pairwise: its preference score, win rate or "
                    "Bradley-Terry value; best-worst: its best-worst score), and the ratings and this mapping are "
                    "saved with the study.</p>"
                ),
                w.HTML("<h5>Quality criteria</h5>"),
                self.criteria_box,
                self.add_criterion_button,
                w.HTML("<h5>Experiments</h5>"),
                self.experiments_box,
                w.HBox(
                    [self.add_experiment_button, self.upload], layout=w.Layout(flex_flow="row wrap", grid_gap="0.5em")
                ),
                w.HTML("<h5>Study</h5>"),
                labelled("Study id", self.study_id, "10em"),
                labelled("Study name", self.study_name, "10em"),
                labelled("Missing-rating marks (empty cells always are)", self.missing, "10em"),
                labelled("System names", self.renames, "10em"),
                labelled("Agreement of pairwise and best-worst answers codes", self.agreement_coding, "10em"),
                w.HBox([self.load, self.download]),
                self.confirm.widget,
                self.spec_view,
            ]
        )
        self.widget.add_class("qra-annotations-tab")
        self.add_criterion("")
        self.add_experiment()

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

    # ------------------------------------------------------------------ experiments and their files

    def on_upload(self, change) -> None:
        run_reported(self.status, self.add_files, uploaded_files(change["new"]))

    def add_files(self, files: dict[str, bytes]) -> None:
        """Files uploaded at once below the cards: one experiment each (an empty card first)."""
        for name, data in files.items():
            card = next((c for c in self.experiments if not c.files and c.layout.value != "scores"), None)
            card = card or self.add_experiment()
            card.add_files({name: data})
        if len(files) > 1:
            self.status.ok(
                f"Read {len(files)} files into {len(files)} experiments: check each card's preview and "
                "columns, then load."
            )

    def add_experiment(self) -> ExperimentCard:
        """A new, empty card: the first is the original, the others repeats (ids O, R1, R2, ...)."""
        taken = {card.id.value for card in self.experiments}
        first = not self.experiments
        experiment_id = (
            "O" if first and "O" not in taken else next(f"R{i}" for i in range(1, 1000) if f"R{i}" not in taken)
        )
        card = ExperimentCard(self, experiment_id, "original" if first else "repeat")
        self.experiments.append(card)
        replace_children(self.experiments_box, [c.widget for c in self.experiments])
        return card

    def remove_experiment(self, card: ExperimentCard) -> None:
        self.experiments.remove(card)
        replace_children(self.experiments_box, [c.widget for c in self.experiments])

    @property
    def files(self) -> dict[str, bytes]:
        """Every card's files, by the name the spec gives them (:meth:`spec_names`)."""
        names = self.spec_names()
        return {names[(id(card), name)]: data for card in self.experiments for name, data in card.files.items()}

    def spec_names(self) -> dict[tuple[int, str], str]:
        """The name each card's file has in the spec: its own name, unless another card holds a
        different file of that name; then ``EXPERIMENT/NAME`` (two labs' ``coherence.csv``
        stay two files: ``Lab1/coherence.csv`` and ``Lab2/coherence.csv``)."""
        holders: dict[str, set] = {}
        for card in self.experiments:
            for name, data in card.files.items():
                holders.setdefault(name, set()).add(data)
        names: dict[tuple[int, str], str] = {}
        used: dict[str, bytes] = {}
        for index, card in enumerate(self.experiments):
            for name, data in card.files.items():
                shown = name if len(holders[name]) == 1 else f"{card.id.value.strip() or index + 1}/{name}"
                if used.get(shown, data) != data:  # two cards with one id hold two files of one name
                    shown = f"{index + 1}/{name}"
                names[(id(card), name)] = used_name = shown
                used[used_name] = data
        return names

    def systems_found(self, exclude=None) -> list[str]:
        """The systems the other cards' files name, renamed as the study will name them."""
        renames = parse_renames(self.renames.value)
        found: dict[str, None] = {}
        for card in self.experiments:
            if card is not exclude:
                found.update(dict.fromkeys(renames.get(s, s) for s in card.systems_in_files()))
        return list(found)

    # ------------------------------------------------------------------ the spec and loading

    def spec(self) -> dict:
        """The annotation spec the form describes (checked by :meth:`AppState.load_annotations`)."""
        if not self.experiments:
            raise QRAInputError("annotations: add an experiment first")
        if not self.criteria:
            raise QRAInputError("annotations: add at least one quality criterion")
        study_id = self.study_id.value.strip()
        if not study_id:
            raise QRAInputError("study id: must be a non-empty text")
        names = self.spec_names()
        spec = {
            "schema": SCHEMA,
            "version": SCHEMA_VERSION,
            "id": study_id,
            "name": self.study_name.value.strip(),
            "quality_criteria": [row.spec(i) for i, row in enumerate(self.criteria)],
            "systems": parse_renames(self.renames.value),
            "missing": self.missing_marks(),
            "experiments": [
                card.spec(i, [names[(id(card), n)] for n in card.files]) for i, card in enumerate(self.experiments)
            ],
        }
        if any(e.get("layout") in ("pairwise", "best_worst", "items_in_columns") for e in spec["experiments"]):
            spec["agreement_coding"] = self.agreement_coding.value
        roles: dict[str, str] = {}
        for entry in spec["experiments"]:  # one experiment may take several cards (one per criterion's file)
            if roles.setdefault(entry["id"], entry["role"]) != entry["role"]:
                raise QRAInputError(
                    f"experiment ids: {entry['id']!r} is on two cards with different roles; give each "
                    "experiment its own id"
                )
        return spec

    def missing_marks(self) -> list[str]:
        return ["", *split_list(self.missing.value)]

    def spec_link(self, spec: dict) -> str:
        return download_link(
            spec_text(spec),
            download_name(spec["id"], "annotations", "json"),
            "application/json",
            "Download this annotation spec (JSON)",
        )

    def spec_file(self) -> tuple[str, str, str]:
        """The spec the form describes (checked first), as the file the Download spec button saves in one click."""
        from ..io.annotations import check_spec

        spec = check_spec(self.spec())
        name = download_name(spec["id"], "annotations", "json")
        self.status.ok(
            f"Downloaded the annotation spec as {name}: save it beside the files it names, then "
            "`qra-widgets report SPEC.json` gives the same study."
        )
        return name, "application/json", spec_text(spec)

    def parsed_frames(self) -> dict:
        """The tables parsed at upload, by spec name, for the load (not parsed again); a card whose
        format or delimiter was chosen by hand is read again through the spec."""
        names = self.spec_names()
        return {
            names[(id(card), name)]: frame
            for card in self.experiments
            if not card.format.value and card.delimiter.value == "auto"
            for name, frame in card.uploads.parsed().items()
        }

    @guarded(lambda self: self.status)
    def on_load(self, _=None) -> None:
        spec = self.spec()  # a form problem is reported before anything is asked
        files, frames = self.files, self.parsed_frames()

        def action():
            event = self.state.load_annotations(spec, files, frames=frames)
            self.spec_view.value = self.spec_link(spec)
            self.status.ok(event.message)

        guard_unsaved(self.state, self.confirm, "load the annotations", action)
