"""Library and Examples: the SQLite study library (open, save with conflict handling,
history, delete/restore), its file actions (import QRA3 files, import many files, download the
open study as QRA3 files or an HTML report) and the paper examples.  The Overview is in
:mod:`.overview`."""

from __future__ import annotations

from pathlib import PurePosixPath

import ipywidgets as w

from .. import examples, library_actions
from ..errors import QRAInputError
from ..io.reading import check_size
from ..report.app_html import REPORT_ROWS_SHOWN, report_table  # noqa: F401 (REPORT_ROWS_SHOWN: kept importable)
from ..report.html import escape
from .common import (
    Confirm,
    Status,
    button,
    guard_unsaved,
    guarded,
    labelled,
    run_reported,
    selected,
)
from .criteria_prompt import CriteriaPrompt
from .datatable import DownloadButton, download_name
from .overview import OverviewView  # noqa: F401  (moved to widgets/overview.py; kept importable from here)
from .state import AppState

MAX_UPLOAD_TOTAL_BYTES = 40 * 2**20  # well under the app's websocket message limit (serve.WEBSOCKET_MAX_MESSAGE_BYTES)
BULK_TYPES = ".json,.csv,.tsv,.txt,.xlsx,.zip"
QRA3_FILES = {"metrics.csv": ("metrics", "text/csv"), "config.json": ("config", "application/json")}


def uploaded_files(upload: w.FileUpload) -> dict[str, bytes]:
    """``{name: bytes}`` of every file in a FileUpload, each refused before parsing if over
    :data:`~qra_widgets.io.reading.MAX_FILE_BYTES`, and all together if over :data:`MAX_UPLOAD_TOTAL_BYTES`."""
    if not upload.value:
        raise QRAInputError("upload: choose a file first")
    total = sum(len(item["content"]) for item in upload.value)
    if total > MAX_UPLOAD_TOTAL_BYTES:
        raise QRAInputError(
            f"upload: {len(upload.value)} files of {total / 2**20:.1f} MiB together; "
            f"the limit is {MAX_UPLOAD_TOTAL_BYTES // 2**20} MiB at once"
        )
    files = {}
    for item in upload.value:
        check_size(len(item["content"]), item["name"])
        files[item["name"]] = bytes(item["content"])
    return files


def qra3_pair(files: dict[str, bytes]) -> tuple[str, str]:
    """The (metrics .csv, config .json) names among two uploaded files."""
    csvs = [n for n in files if PurePosixPath(n).suffix.lower() == ".csv"]
    jsons = [n for n in files if PurePosixPath(n).suffix.lower() == ".json"]
    if len(files) != 2 or len(csvs) != 1 or len(jsons) != 1:
        raise QRAInputError(
            f"Import QRA3 files: choose two files, QRA3's metrics .csv and its config .json "
            f"(got {', '.join(map(repr, files))})"
        )
    return csvs[0], jsons[0]


def summary_line(report, what: str = "") -> str:
    """One line: what an :class:`~qra_widgets.bulk.ImportReport` added, found already there, refused."""
    ids = lambda pairs: ", ".join(repr(i) for _s, i in pairs)
    plural = lambda n: "no study" if n == 0 else f"{n} stud{'y' if n == 1 else 'ies'}"
    parts = [f"Imported {plural(len(report.added))}{what}" + (f": {ids(report.added)}" if report.added else "") + "."]
    if report.existed:
        parts.append(f"Already in the library, not overwritten: {ids(report.existed)}.")
    if report.refused:
        parts.append(
            f"Refused {len(report.refused)} "
            f"({'see below' if len(report.refused) > 1 else report.refused[0][0] + ': ' + report.refused[0][1]})."
        )
    if getattr(report, "skipped", None):
        parts.append(f"Skipped {len(report.skipped)} file{'s' if len(report.skipped) != 1 else ''} (see below).")
    return " ".join(parts)


class ExamplesBar:
    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.choice = w.Dropdown(
            options=[(title, name) for name, title in examples.titles().items()],
            layout=w.Layout(width="38em", max_width="100%"),
        )
        self.load = button("Load example", "qra-load-example")
        self.new = button("New empty study", "qra-new-study")
        self.confirm = Confirm(lambda action: run_reported(self.status, action))
        self.choice.add_class("qra-example-choice")
        self.load.on_click(self.on_load)
        self.new.on_click(self.on_new)
        self.widget = w.VBox(
            [
                w.HBox(
                    [labelled("Paper example", self.choice, "8em"), self.load, self.new],
                    layout=w.Layout(flex_flow="row wrap", align_items="center"),
                ),
                self.confirm.widget,
            ]
        )
        self.widget.add_class("qra-examples-bar")

    @guarded(lambda self: self.status)
    def on_load(self, _=None) -> None:
        name = self.choice.value
        guard_unsaved(
            self.state, self.confirm, "load the example", lambda: self.status.ok(self.state.load(example=name).message)
        )

    @guarded(lambda self: self.status)
    def on_new(self, _=None) -> None:
        guard_unsaved(
            self.state,
            self.confirm,
            "start a new empty study",
            lambda: (self.state.load(), self.status.ok("A new empty study: start on the Study tab.")),
        )


class LibraryView:
    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.studies = w.Select(rows=8, layout=w.Layout(width="44em", max_width="100%"))
        self.show_deleted = w.Checkbox(
            description="show deleted studies", value=False, indent=False, layout=w.Layout(width="auto")
        )
        self.open = button("Open the selected study", "qra-open")
        self.save = button("Save the study being edited", "qra-save", primary=True)
        self.delete = button("Delete the selected study", "qra-delete")
        self.restore = button("Restore the selected study", "qra-restore")
        self.history = w.Select(rows=6, layout=w.Layout(width="44em", max_width="100%"))
        self.open_revision = button("Open this revision", "qra-open-revision")
        self.confirm = Confirm(lambda action: run_reported(self.status, action))
        self.studies.add_class("qra-library-list")
        self.history.add_class("qra-history")
        self.open.on_click(self.on_open)
        self.save.on_click(self.on_save)
        self.delete.on_click(self.on_delete)
        self.restore.on_click(self.on_restore)
        self.open_revision.on_click(self.on_open_revision)
        self.studies.observe(lambda _: self.show_history(), "value")
        self.show_deleted.observe(lambda _: self.refresh(), "value")
        # file actions: imports into the library, downloads of the open study (built when clicked)
        self.qra3_upload = w.FileUpload(
            icon="",
            accept=".csv,.json",
            multiple=True,
            description="metrics.csv + config.json",
            layout=w.Layout(width="auto"),
        )
        self.import_qra3 = button("Import QRA3 files", "qra-import-qra3")
        self.bulk_upload = w.FileUpload(
            icon="",
            accept=BULK_TYPES,
            multiple=True,
            description="Study files, zips, QRA3 pairs",
            layout=w.Layout(width="auto"),
        )
        self.import_many = button("Import many", "qra-import-many")
        self.import_report = w.HTML()
        # a QRA3 run whose study id the library holds: offered under a new id (nothing is overwritten)
        self.clash_text = w.HTML()
        self.new_id = w.Text(layout=w.Layout(width="14em"))
        self.new_id.add_class("qra-import-new-id")
        self.import_as_new = button("Import it under this id", "qra-import-as-new")
        self.clash = w.VBox(
            [self.clash_text, w.HBox([self.new_id, self.import_as_new])], layout=w.Layout(display="none")
        )
        self.clash.add_class("qra-import-clash")
        self.pending_qra3: tuple | None = None
        self.import_as_new.on_click(self.on_import_as_new)
        self.criteria_prompt = CriteriaPrompt(
            state, status
        )  # asks the evaluation type and QCET criterion of what came in
        # downloads: one click builds the file from the study or library as it is then, and saves it
        self.download_qra3 = {
            name: DownloadButton(
                f"QRA3 {name}",
                lambda n=name: self.study_qra3_file(n),
                status=status,
                tooltip=f"The study being edited as QRA3's {name}",
            )
            for name in QRA3_FILES
        }
        self.download_report = DownloadButton(
            "Report (HTML)",
            self.report_file,
            status=status,
            tooltip="The study being edited as a one-file offline HTML report",
        )
        self.download_library_qra3 = {
            name: DownloadButton(
                f"{name} of the whole library",
                lambda n=name: self.library_qra3_file(n),
                status=status,
                tooltip=f"Every study of the library in one QRA3 {name}",
            )
            for name in QRA3_FILES
        }
        for name, (what, _mime) in QRA3_FILES.items():
            self.download_qra3[name].add_class(f"qra-download-qra3-{what}")
            self.download_library_qra3[name].add_class(f"qra-download-library-qra3-{what}")
        self.download_report.add_class("qra-download-report")
        self.qra3_upload.add_class("qra-qra3-upload")
        self.bulk_upload.add_class("qra-bulk-upload")
        self.import_report.add_class("qra-import-report")
        self.import_qra3.on_click(self.on_import_qra3)
        self.import_many.on_click(self.on_import_many)
        column = lambda *children: w.VBox(list(children), layout=w.Layout(align_items="flex-start"))
        row = lambda *children: w.HBox(
            list(children), layout=w.Layout(flex_flow="row wrap", align_items="center", grid_gap="0.5em")
        )
        self.widget = w.VBox(
            [
                w.HTML(
                    "<h4>Study library</h4><p>Every save is kept as a revision. If someone saved the study after you "
                    "opened it, your save is refused <i>and kept</i> as a conflict revision you can open below. A new study "
                    "whose id is already in the library is not saved: change its id first.</p>"
                ),
                self.save,
                w.HBox(
                    [
                        labelled("Studies", self.studies, "6em"),
                        column(self.open, self.delete, self.restore, self.show_deleted),
                    ],
                    layout=w.Layout(flex_flow="row wrap", grid_gap="1em"),
                ),
                self.confirm.widget,
                w.HBox(
                    [labelled("Revisions", self.history, "6em"), column(self.open_revision)],
                    layout=w.Layout(flex_flow="row wrap", grid_gap="1em"),
                ),
                w.HTML(
                    "<h4>Import into the library</h4><p>Imports never overwrite: a study whose id the library already "
                    "has is left as it is and reported. <b>QRA3 files</b>: the organisers' <code>metrics.csv</code> and "
                    "<code>config.json</code> (choose both); every study in them is added and the first one opened. "
                    "<b>Import many</b>: qra-widgets study files (.json), long score tables (.csv/.tsv/.xlsx; a "
                    "<code>study</code> column makes one study per value), annotation specs, QRA3 pairs, or a .zip of them.</p>"
                ),
                labelled("QRA3 files", row(self.qra3_upload, self.import_qra3), "8em"),
                self.clash,
                labelled("Many files", row(self.bulk_upload, self.import_many), "8em"),
                self.import_report,
                self.criteria_prompt.widget,
                w.HTML(
                    "<h4>Downloads</h4><p>The study being edited as QRA3's two input files (hand both to the organisers "
                    "as they are) or as a one-file HTML report (template table, charts, conventions; opens offline); or "
                    "every study in the library as one pair of QRA3 files. Each button saves its file in one "
                    "click.</p>"
                ),
                labelled("This study", row(*self.download_qra3.values(), self.download_report), "8em"),
                labelled("The library", row(*self.download_library_qra3.values()), "8em"),
            ]
        )
        self.widget.add_class("qra-library-tab")

    @guarded(lambda self: self.status)
    def refresh(self) -> None:
        summaries = self.state.library.list(include_deleted=self.show_deleted.value)
        self.studies.options = [
            (f"{s.id} · rev {s.latest}{' (deleted)' if s.deleted else ''} · {s.name}", s.id) for s in summaries
        ]  # id and revision first: a long name may be cut, they never are
        self.show_history()

    @guarded(lambda self: self.status)
    def show_history(self) -> None:
        if not self.studies.value:
            self.history.options = []
            return
        self.history.options = [
            (f"rev {r.revision}{' CONFLICT' if r.conflict else ''} · {r.saved_at[:19]} · {r.name}", r.revision)
            for r in reversed(self.state.library.history(self.studies.value))
        ]

    def _chosen(self) -> str:
        return selected(self.studies, "library study")

    @guarded(lambda self: self.status)
    def on_open(self, _=None) -> None:
        study_id = self._chosen()
        guard_unsaved(
            self.state,
            self.confirm,
            f"open {study_id!r}",
            lambda: self.status.ok(self.state.open_from_library(study_id).message),
        )

    @guarded(lambda self: self.status)
    def on_open_revision(self, _=None) -> None:
        study_id = self._chosen()
        revision = selected(self.history, "library revision")

        def action():
            self.state.open_from_library(study_id, revision)
            self.status.ok(f"Opened revision {revision} of {study_id!r}; saving it makes it the latest.")

        guard_unsaved(self.state, self.confirm, f"open revision {revision} of {study_id!r}", action)

    @guarded(lambda self: self.status)
    def on_save(self, _=None) -> None:
        try:
            event = self.state.save()
        finally:
            self.refresh()
        self.status.ok(event.message)

    @guarded(lambda self: self.status)
    def on_delete(self, _=None) -> None:
        study_id = self._chosen()
        self.state.library.delete(study_id)
        self._listed_after(f"Deleted {study_id!r}; tick 'show deleted studies' and Restore to bring it back.")

    @guarded(lambda self: self.status)
    def on_restore(self, _=None) -> None:
        study_id = self._chosen()
        self.state.library.restore(study_id)
        self._listed_after(f"Restored {study_id!r}.")

    def _listed_after(self, message: str) -> None:
        """After a change to the library: list it again and say what was done."""
        self.refresh()
        self.status.ok(message)

    # ------------------------------------------------------------------ file actions

    def _show_in_list(self, study_id: str) -> None:
        self.refresh()
        if study_id in [value for _label, value in self.studies.options]:
            self.studies.value = study_id

    @guarded(lambda self: self.status)
    def on_import_qra3(self, _=None) -> None:
        files = uploaded_files(self.qra3_upload)
        metrics, config = qra3_pair(files)
        try:
            report = library_actions.import_qra3(self.state.library, files[metrics], files[config], (metrics, config))
        finally:
            self.qra3_upload.value = ()
        self.import_report.value = report_table(report) if report.refused else ""
        message = summary_line(report, f" from {metrics} + {config}")
        self.status.ok(message)
        self.offer_new_id(report, (files[metrics], files[config], (metrics, config)))
        self.criteria_prompt.ask([study_id for _source, study_id in report.added])
        if not report.added:
            if report.existed:  # the library's own version is selected, ready to open
                self._show_in_list(report.existed[0][1])
            else:
                self.refresh()
            return
        first = report.added[0][1]
        self._show_in_list(first)
        guard_unsaved(
            self.state,
            self.confirm,
            f"open the imported study {first!r}",
            lambda: self.status.ok(f"{message} {self.state.open_from_library(first).message}"),
        )

    def offer_new_id(self, report, upload: tuple) -> None:
        """A study the library already holds: offer to import this run under a free id."""
        if not report.existed:
            self.clash.layout.display, self.pending_qra3 = "none", None
            return
        existing = report.existed[0][1]
        self.pending_qra3 = (*upload, existing)
        self.new_id.value = self.state.library.free_id(existing)  # not Yao2022 beside yao2022
        self.clash_text.value = (
            f"<p>The library already has a study with the id <b>{escape(existing)}</b> (kept as "
            "it is). Import this run as a new study under another id:</p>"
        )
        self.clash.layout.display = "flex"

    @guarded(lambda self: self.status)
    def on_import_as_new(self, _=None) -> None:
        if self.pending_qra3 is None:
            raise QRAInputError("Import QRA3 files: there is no run waiting for a new id")
        metrics, config, names, existing = self.pending_qra3
        new_id = self.new_id.value.strip()
        if not new_id:
            raise QRAInputError("new study id: must be a non-empty text")
        report = library_actions.import_qra3(self.state.library, metrics, config, names, renames={existing: new_id})
        if report.existed:
            raise QRAInputError(
                f"new study id: the library already has {new_id!r}; choose another "
                f"(for example {self.state.library.free_id(new_id)!r})"
            )
        self.clash.layout.display, self.pending_qra3 = "none", None
        self.status.ok(summary_line(report, f" from {names[0]} + {names[1]} as {new_id!r}"))
        self.criteria_prompt.ask([study_id for _source, study_id in report.added])
        self._show_in_list(new_id)

    @guarded(lambda self: self.status)
    def on_import_many(self, _=None) -> None:
        files = uploaded_files(self.bulk_upload)
        try:
            report = library_actions.import_files(self.state.library, files)
        finally:
            self.bulk_upload.value = ()
        self.refresh()
        self.import_report.value = report_table(report)
        self.status.ok(summary_line(report, f" from {len(files)} file{'s' if len(files) != 1 else ''}"))
        self.criteria_prompt.ask([study_id for _source, study_id in report.added])

    def study_qra3_file(self, name: str) -> tuple[str, str, str]:
        """The study being edited as QRA3's ``name`` (``metrics.csv`` or ``config.json``), built when clicked:
        ``<study id>-qra3-<metrics|config>-<date>.<csv|json>``."""
        study = self.state.study
        what, mime = QRA3_FILES[name]
        text = library_actions.study_qra3_files(study)[name]
        file_name = download_name(study.id, f"qra3-{what}", PurePosixPath(name).suffix[1:])
        self.status.ok(
            f"Downloaded QRA3's {name} of {study.id!r} as {file_name}: give it, with the "
            f"{'config.json' if what == 'metrics' else 'metrics.csv'}, to `qra-widgets qra3 --input ... "
            "--config ...` or the organisers' tool."
        )
        return file_name, mime, text

    def report_file(self) -> tuple[str, str, str]:
        """The study being edited as its one-file HTML report, with the assessment the app shows."""
        state = self.state
        page = library_actions.report_html(state.study, state.assessment, state.assessment_problem)
        file_name = download_name(state.study.id, "report", "html")
        self.status.ok(
            f"Downloaded the report of {state.study.id!r} as {file_name} ({state.conventions.describe()} conventions)."
        )
        return file_name, "text/html", page

    def library_qra3_file(self, name: str) -> tuple[str, str, str]:
        """QRA3's ``name`` of every study in the library with scores (their latest revisions)."""
        files, count = library_actions.library_qra3_files(self.state.library)
        what, mime = QRA3_FILES[name]
        file_name = download_name("library", f"qra3-{what}", PurePosixPath(name).suffix[1:])
        self.status.ok(
            f"Downloaded QRA3's {name} of the library as {file_name}: "
            f"{count} stud{'y' if count == 1 else 'ies'} with scores."
        )
        return file_name, mime, files[name]
