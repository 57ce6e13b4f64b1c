"""One experiment's card on the Annotations tab (:class:`ExperimentCard`): its own files, a
preview, its layout and the pickers that layout needs, the answer map, the row filters, or a
``scores`` card's boxes; it builds its experiment's entry of the annotation spec."""

from __future__ import annotations

import ipywidgets as w

from ..errors import QRAInputError
from ..io import parse
from ..io.annotations import guess_mapping
from ..io.layout_keys import BEST_WORST_BY, PAIRWISE_SCORES, TIE_RULES
from ..io.uploads import UploadedFiles
from ..report.app_html import upload_preview
from ..report.html import escape
from .annotation_cards import (
    CONSTANT,
    DELIMITER_CHOICES,
    FORMAT_CHOICES,
    LAYOUT_CHOICES,
    NONE,
    PREVIEW_CELL,
    ROW,
    CriterionPickers,
    answer_map_template,
    file_stem,
    is_number,
    parse_answer_map,
    picker,
    set_shown,
    slug,
    split_list,
    uploaded_files,
    wrap_row,
)
from .common import button, labelled, replace_children, run_reported, set_options


class ExperimentCard:
    """One experiment: its own files (several files make one experiment: the spec's ``files``),
    id, role and label, a preview, its layout and the pickers that layout needs, the answer map
    and the row filters; or, with the ``scores`` layout, one box per system and criterion for an
    experiment known only by its published values.

    Every control is built once; choosing a layout only shows and hides rows (nothing is
    re-parented or closed).  The files are the card's own: two cards may hold files of the same
    name (two labs' ``coherence.csv``) and they stay two files.  Each file is parsed once, when
    it is uploaded, and kept (:attr:`uploads`, :class:`~qra_widgets.io.uploads.UploadedFiles`) for the preview, the guesses,
    the answer map and the load.

    ``view`` is the tab (:class:`~qra_widgets.widgets.annotations.AnnotationsView`) whose
    criteria, missing marks, system names and status line the card reads; it is not imported
    here, so the tab and its parts do not import each other."""

    def __init__(self, view, experiment_id: str, role: str):
        self.view = view
        self.files: dict[str, bytes] = {}
        self.uploads = UploadedFiles()  # the files, each parsed once at upload
        self.columns: list[str] = []
        self.guess: dict = {}
        self.upload = w.FileUpload(accept=view.ACCEPT, multiple=True, description="Add files", icon="")
        self.upload.add_class("qw-ann-files")
        self.clear_files = button("Remove its files", "qw-ann-clear-files")
        self.file_list = w.HTML("<span class='qra-muted'>no file yet</span>")
        self.id = w.Text(value=experiment_id, continuous_update=False, layout=w.Layout(width="8em"))
        self.label = w.Text(placeholder="label (optional)", layout=w.Layout(width="14em"))
        self.role = w.Dropdown(options=["original", "repeat"], value=role, layout=w.Layout(width="8em"))
        self.layout = w.Dropdown(options=LAYOUT_CHOICES, value="wide", layout=w.Layout(width="auto"))
        self.format = w.Dropdown(options=FORMAT_CHOICES, value="", layout=w.Layout(width="auto"))
        self.delimiter = w.Dropdown(options=DELIMITER_CHOICES, value="auto", layout=w.Layout(width="auto"))
        self.sheet = w.Text(placeholder="sheet (Excel)", layout=w.Layout(width="9em"))
        self.preview = w.HTML(layout=w.Layout(max_height="400px", overflow="auto", width="100%"))
        self.item = w.SelectMultiple(rows=3, layout=w.Layout(width="auto", max_width="30em"))
        self.rater, self.system = picker("qw-ann-col-rater"), picker("qw-ann-col-system")
        self.constants = {
            key: w.Text(placeholder=f"the {key} of every row", layout=w.Layout(width="10em"))
            for key in ("system", "rater")
        }
        self.criterion_column, self.rating_column = picker("qw-ann-col-criterion"), picker("qw-ann-col-rating")
        self.system_a, self.system_b = picker("qw-ann-col-system_a"), picker("qw-ann-col-system_b")
        self.shown = w.SelectMultiple(rows=4, layout=w.Layout(width="auto", max_width="30em"))
        self.raters_in_columns = w.Checkbox(
            description="raters in columns (one column per rater)", indent=False, layout=w.Layout(width="auto")
        )
        self.score = w.Dropdown(options=PAIRWISE_SCORES, value="preference", layout=w.Layout(width="10em"))
        self.ties = w.Dropdown(options=TIE_RULES, value="half", layout=w.Layout(width="7em"))
        self.best_worst_by = w.Dropdown(options=BEST_WORST_BY, value="system", layout=w.Layout(width="7em"))
        self.items = w.Textarea(
            placeholder="column | item id | system   (a rating)\n"
            "column | item id | system A | system B   (a comparison)\n"
            "column: its name, or its position 1, 2, ... when headers repeat",
            layout=w.Layout(width="36em", height="8em", max_width="100%"),
        )
        self.answer_map = w.VBox(layout=w.Layout(max_height="400px", overflow="auto"))
        self.map_entries: dict[str, w.Text] = {}
        self.fill_map = button("Fill the map from the answers found", "qw-ann-fill-map")
        self.filter_column, self.exclude_column = picker("qw-ann-rows-column"), picker("qw-ann-exclude-column")
        self.filter_values = w.Text(placeholder="values, comma-separated", layout=w.Layout(width="16em"))
        self.exclude_values = w.Text(placeholder="values, comma-separated", layout=w.Layout(width="16em"))
        self.excludes = [(self.exclude_column, self.exclude_values)]  # drop rows by several columns (workers, checks)
        self.exclude_box = w.VBox()
        self.add_exclude = button("Drop rows by another column", "qw-ann-add-exclude")
        self.score_systems = w.Text(
            placeholder="systems, comma-separated",
            continuous_update=False,
            layout=w.Layout(width="30em", max_width="100%"),
        )
        self.score_box = w.VBox()
        self.score_inputs: dict[tuple[str, str], w.Text] = {}
        self.pickers: dict = {}  # CriterionRow -> CriterionPickers
        self.criteria_box = w.VBox()
        self.remove = button("Remove this experiment", "qw-ann-remove-experiment")
        for css, widget in (
            ("qw-ann-experiment", self.id),
            ("qw-ann-role", self.role),
            ("qw-ann-layout", self.layout),
            ("qw-ann-label", self.label),
            ("qw-ann-format", self.format),
            ("qw-ann-delimiter", self.delimiter),
            ("qw-ann-sheet", self.sheet),
            ("qw-ann-preview", self.preview),
            ("qw-ann-col-item", self.item),
            ("qw-ann-col-shown", self.shown),
            ("qw-ann-raters-in-columns", self.raters_in_columns),
            ("qw-ann-score-kind", self.score),
            ("qw-ann-ties", self.ties),
            ("qw-ann-best-worst-by", self.best_worst_by),
            ("qw-ann-items", self.items),
            ("qw-ann-map", self.answer_map),
            ("qw-ann-rows-values", self.filter_values),
            ("qw-ann-exclude-values", self.exclude_values),
            ("qw-ann-score-systems", self.score_systems),
            ("qw-ann-const-system", self.constants["system"]),
            ("qw-ann-const-rater", self.constants["rater"]),
        ):
            widget.add_class(css)
        self.rows = {
            "files": wrap_row(self.upload, self.clear_files, self.file_list),
            "format": wrap_row(
                labelled("Format", self.format, "4em"), labelled("Delimiter", self.delimiter, "5em"), self.sheet
            ),
            "item": labelled("Item column(s)", self.item, "9em"),
            "rater": wrap_row(labelled("Rater column", self.rater, "9em"), self.constants["rater"]),
            "raters_in_columns": self.raters_in_columns,
            "system": wrap_row(labelled("System column", self.system, "9em"), self.constants["system"]),
            "long": wrap_row(
                labelled("Criterion column", self.criterion_column, "9em"),
                labelled("Rating column", self.rating_column, "8em"),
            ),
            "pairwise": wrap_row(
                labelled("System A column", self.system_a, "9em"), labelled("System B column", self.system_b, "9em")
            ),
            "pairwise_score": wrap_row(labelled("Score", self.score, "4em"), labelled("Ties", self.ties, "3em")),
            "shown": labelled("Columns of the systems shown", self.shown, "14em"),
            "best_worst_by": labelled("Best and worst name the", self.best_worst_by, "12em"),
            "items": labelled("Items", self.items, "5em"),
            "criteria": self.criteria_box,
            "map": w.VBox(
                [
                    w.HTML(
                        "<span class='qra-label'>Answer map: each answer found, and the value (a number; "
                        "pairwise: a, b or tie; best-worst by position: 1, 2, ...) it stands for</span>"
                    ),
                    self.answer_map,
                    self.fill_map,
                ]
            ),
            "filters": w.VBox(
                [
                    wrap_row(
                        labelled("Keep only rows where", self.filter_column, "11em"),
                        labelled("is one of", self.filter_values, "5em"),
                    ),
                    self.exclude_box,
                    self.add_exclude,
                ]
            ),
            "scores": w.VBox([labelled("Systems", self.score_systems, "6em"), self.score_box]),
        }
        self.upload.observe(lambda change: run_reported(view.status, self.on_upload, change["new"]), "value")
        self.clear_files.on_click(lambda _: run_reported(view.status, self.set_files, {}))
        self.sheet.observe(lambda _: run_reported(view.status, self.reread), "value")
        self.layout.observe(lambda _: run_reported(view.status, self.layout_chosen), "value")
        for widget in (self.raters_in_columns, self.system, self.rater):
            widget.observe(lambda _: self.show(), "value")
        self.criterion_column.observe(lambda _: self.sync_criteria(), "value")
        self.score_systems.observe(lambda _: self.sync_scores(), "value")
        self.fill_map.on_click(lambda _: run_reported(view.status, self.fill_answer_map))
        self.remove.on_click(lambda _: view.remove_experiment(self))
        self.add_exclude.on_click(lambda _: self.add_exclude_row())
        self.exclude_box.children = (self.exclude_row(self.exclude_column, self.exclude_values),)
        self.widget = w.VBox(
            [
                wrap_row(
                    labelled("Experiment id", self.id, "7em"),
                    self.label,
                    labelled("Role", self.role, "3em"),
                    labelled("Layout", self.layout, "4em"),
                ),
                *self.rows.values(),
                self.preview,
                self.remove,
            ],
            layout=w.Layout(border="1px solid #ccc", padding="0.5em", margin="0 0 0.75em 0"),
        )
        self.widget.add_class("qw-ann-card")
        self.widget.add_class("qra-annotations-experiment")
        self.set_files({})

    # ------------------------------------------------------------------ files

    def on_upload(self, value) -> None:
        added = uploaded_files(value)
        if added:
            self.add_files(added)

    def add_files(self, files: dict[str, bytes]) -> None:
        """Parse each new file once (a file that cannot be read is refused, by name, and nothing
        of this upload is kept), then show the preview and guess the columns."""
        added = UploadedFiles.read(files, self.sheet.value.strip() or None)
        first = not self.files
        self.set_files({**self.files, **files}, self.uploads.merged(added))
        if first:
            if not self.label.value.strip():
                self.label.value = file_stem(next(iter(files)))  # "grammar" for grammar.csv.gz
            self.apply_guess()
        rows = added.rows()
        self.view.status.ok(
            f"{self.id.value}: read {len(files)} file(s) ({', '.join(files)}; {rows} rows): check the "
            f"preview and the columns."
        )

    def reread(self) -> None:
        """The sheet changed: parse the files again with it."""
        if self.files:
            self.set_files(self.files, UploadedFiles.read(self.files, self.sheet.value.strip() or None))

    def set_files(self, files: dict[str, bytes], uploads: UploadedFiles | None = None) -> None:
        self.files, self.uploads = dict(files), uploads or UploadedFiles()
        names = list(self.files)
        self.file_list.value = (
            ", ".join(f"<code>{escape(n)}</code>" for n in names)
            if names
            else "<span class='qra-muted'>no file yet</span>"
        )
        self.columns = self.uploads.columns()
        self.show_preview()
        unique = list(dict.fromkeys(self.columns))
        set_options(self.rater, [NONE, CONSTANT, *unique])
        set_options(self.system, [*unique, CONSTANT, NONE])
        for dropdown in (self.criterion_column, self.rating_column, self.system_a, self.system_b):
            set_options(dropdown, unique)
        for dropdown in (self.filter_column, *(column for column, _ in self.excludes)):
            set_options(dropdown, [NONE, *unique])
        kept = tuple(v for v in self.item.value if v in unique or v == ROW)
        self.item.options = [*unique, ROW]
        self.item.value = kept
        kept_shown = tuple(v for v in self.shown.value if v in unique)
        self.shown.options = unique
        self.shown.value = kept_shown
        self.sync_criteria()

    @staticmethod
    def exclude_row(column, values) -> w.HBox:
        return wrap_row(labelled("Drop rows where", column, "11em"), labelled("is one of", values, "5em"))

    def add_exclude_row(self) -> None:
        column = picker("qw-ann-exclude-column")
        column.options = self.filter_column.options
        column.value = NONE
        values = w.Text(placeholder="values, comma-separated", layout=w.Layout(width="16em"))
        values.add_class("qw-ann-exclude-values")
        self.excludes.append((column, values))
        self.exclude_box.children = (*self.exclude_box.children, self.exclude_row(column, values))

    def show_preview(self) -> None:
        self.preview.value = upload_preview(self.uploads, 5, PREVIEW_CELL) if self.uploads else ""

    # ------------------------------------------------------------------ guesses and layout

    def apply_guess(self) -> None:
        """Pre-select what the first file's headers and content suggest."""
        if not self.uploads:
            return
        guess = self.guess = self.uploads.guess(self.view.criterion_names())
        for dropdown, key in (
            (self.system, "system"),
            (self.rater, "rater"),
            (self.criterion_column, "criterion"),
            (self.rating_column, "rating"),
            (self.system_a, "system_a"),
            (self.system_b, "system_b"),
        ):
            if guess.get(key) in dropdown.options:
                dropdown.value = guess[key]
        if guess.get("item"):
            self.item.value = (guess["item"],)
        if guess.get("shown"):
            self.shown.value = tuple(guess["shown"])
        if guess.get("layout") == "best_worst":
            self.best_worst_by.value = "position"
        self.layout.value = guess.get("layout", "wide")
        self.prefill_criteria(reset=True)
        self.show()

    def layout_chosen(self) -> None:
        if self.layout.value == "scores" and not self.score_systems.value.strip():
            self.score_systems.value = ", ".join(self.view.systems_found(exclude=self))
        self.prefill_criteria()
        self.sync_scores()
        self.show()

    def show(self) -> None:
        """Show the rows the chosen layout needs; hide the others (they keep their values)."""
        layout = self.layout.value
        data = layout != "scores"
        raters = layout == "wide" and self.raters_in_columns.value
        for key, on in (
            ("files", data),
            ("format", data),
            ("item", layout in ("wide", "long", "pairwise", "best_worst")),
            ("rater", data and not raters),
            ("raters_in_columns", layout == "wide"),
            ("system", layout in ("wide", "long")),
            ("long", layout == "long"),
            ("pairwise", layout == "pairwise"),
            ("pairwise_score", layout in ("pairwise", "items_in_columns")),
            ("shown", layout == "best_worst"),
            ("best_worst_by", layout == "best_worst"),
            ("items", layout == "items_in_columns"),
            ("criteria", layout in ("wide", "long", "pairwise", "best_worst")),
            ("map", data),
            ("filters", data),
            ("scores", not data),
        ):
            set_shown(self.rows[key], on)
        set_shown(self.preview, data)
        for key in ("system", "rater"):
            set_shown(self.constants[key], getattr(self, key).value == CONSTANT)
        for pickers in self.pickers.values():
            pickers.show(layout, raters)
        if layout == "items_in_columns" and not self.items.value.strip() and self.columns:
            repeated = {c for c in self.columns if self.columns.count(c) > 1}
            self.items.value = "\n".join(
                f"{i} | {f'column {i}' if c in repeated else c} | "
                for i, c in enumerate(self.columns, 1)
                if c != self.guess.get("rater")
            )

    # ------------------------------------------------------------------ criteria

    def sync_criteria(self) -> None:
        """One row of pickers per criterion of the study; a criterion keeps its chosen columns
        when it is renamed or another is added."""
        kept = {row: pickers.state() for row, pickers in self.pickers.items()}
        values = []
        if (
            self.uploads
            and self.criterion_column.value in self.columns
            and self.columns.count(self.criterion_column.value) == 1
        ):
            values = self.uploads.distinct(self.criterion_column.value)
        unique = list(dict.fromkeys(self.columns))
        fresh = {}
        for index, row in enumerate(self.view.criteria):
            name = row.name.value.strip() or f"criterion {index + 1}"
            pickers = CriterionPickers(name)
            pickers.set_columns(unique, values)
            if row in kept:
                pickers.restore(kept[row])
            fresh[row] = pickers
        self.pickers = fresh
        replace_children(self.criteria_box, [p.widget for p in fresh.values()])
        self.prefill_criteria()  # only pickers left empty: a column chosen is kept
        self.sync_scores()
        self.show()

    def prefill_criteria(self, reset: bool = False) -> None:
        """Guess each criterion's columns: a column named like the criterion; with one criterion
        (and only then), the rating, choice or best/worst column the content suggests.  One
        criterion's column is never pre-filled into another's."""
        guess, layout = self.guess, self.layout.value
        named = guess_mapping(self.columns, self.view.criterion_names()).get("criteria", {}) if self.columns else {}
        alone = len(self.pickers) == 1
        for row, pickers in self.pickers.items():
            name = row.name.value.strip()
            if reset or pickers.column.value == NONE:
                chosen = named.get(name) or (
                    alone and (guess.get("choice") if layout == "pairwise" else guess.get("rating")) or NONE
                )
                if chosen in pickers.column.options:
                    pickers.column.value = chosen
            if reset or pickers.value.value == NONE:
                match = [v for v in pickers.value.options if v.strip().lower() == name.lower()]
                pickers.value.value = (
                    match[0]
                    if match
                    else (pickers.value.options[1] if alone and len(pickers.value.options) == 2 else NONE)
                )
            if reset or NONE in (pickers.best.value, pickers.worst.value):
                key = slug(name).split("-")[0][:3]
                for dropdown, word in ((pickers.best, "best"), (pickers.worst, "worst")):
                    found = [c for c in pickers.best.options if word in c.lower() and (alone or key in c.lower())]
                    dropdown.value = found[0] if found else NONE

    # ------------------------------------------------------------------ a scores card

    def sync_scores(self) -> None:
        """One box per system x criterion (titled "SYSTEM / CRITERION"); typed values are kept."""
        if self.layout.value != "scores":
            return
        systems = split_list(self.score_systems.value)
        criteria = [name for name in self.view.criterion_names() if name]
        old = {key: box.value for key, box in self.score_inputs.items()}
        self.score_inputs = {}
        rows = []
        for criterion in criteria:
            boxes = []
            for system in systems:
                box = w.Text(
                    value=old.get((system, criterion), ""),
                    placeholder=system,
                    tooltip=f"{system} / {criterion}",
                    layout=w.Layout(width="7em"),
                )
                box.add_class("qw-ann-score")
                self.score_inputs[(system, criterion)] = box
                boxes.append(w.VBox([w.HTML(f"<span class='qra-label'>{escape(system)}</span>"), box]))
            rows.append(w.VBox([w.HTML(f"<b>{escape(criterion)}</b>"), wrap_row(*boxes)]))
        replace_children(self.score_box, rows)

    def systems_in_files(self) -> list[str]:
        """The systems this card's files name (after its row filters), for a scores card's boxes."""
        if not self.uploads or self.layout.value == "scores":
            return []
        entry = {}
        self.add_filters(entry, "preview")
        layout = self.layout.value
        columns = {
            "wide": [self.system.value],
            "long": [self.system.value],
            "pairwise": [self.system_a.value, self.system_b.value],
            "best_worst": list(self.shown.value),
        }.get(layout, [])
        return self.uploads.values_in(columns, entry)

    # ------------------------------------------------------------------ the answer map

    def answer_columns(self) -> list[str | int]:
        """The columns whose answers go through the answer map."""
        layout = self.layout.value
        if layout == "long":
            return [self.rating_column.value]
        if layout == "items_in_columns":
            return [item["column"] for item in self.item_specs()]
        if layout == "best_worst":
            return [c for p in self.pickers.values() for c in (p.best.value, p.worst.value) if c != NONE]
        if layout == "wide" and self.raters_in_columns.value:
            return [c for p in self.pickers.values() for c in p.raters.value]
        return [p.column.value for p in self.pickers.values() if p.column.value not in (None, NONE)]

    def fill_answer_map(self) -> None:
        """One box per answer found in the answer columns that is not a number (for choices, every
        answer), with a guess where one is obvious (A -> a, same -> tie); values typed are kept."""
        missing = set(self.view.missing_marks())
        if not self.uploads:
            raise QRAInputError(f"experiment {self.id.value}: add its file(s) first")
        found = self.uploads.answers(self.answer_columns(), missing, self.id.value)
        layout = self.layout.value
        numbers = layout in ("wide", "long") or (
            layout == "items_in_columns" and all(len(i) == 3 and "system" in i for i in self.item_specs())
        )
        answers = [a for a in found if not (numbers and is_number(a))]
        guesses = (
            dict(line.split(" = ", 1) for line in answer_map_template(answers, layout).splitlines()) if answers else {}
        )
        self.set_answer_map(
            {a: self.map_entries[a].value if a in self.map_entries else guesses.get(a, "").strip() for a in answers}
        )
        if not answers:
            self.view.status.ok(f"{self.id.value}: every answer found is already a number: no map needed.")
        else:
            self.view.status.ok(
                f"{self.id.value}: found {len(answers)} answer(s): give each its value in the map below the pickers."
            )

    def set_answer_map(self, mapped: dict) -> None:
        """The map's boxes: one per answer, titled with the answer's text."""
        self.map_entries = {}
        rows = []
        for answer, value in mapped.items():
            box = w.Text(value=str(value), tooltip=str(answer), layout=w.Layout(width="8em"))
            box.add_class("qw-ann-map-entry")
            self.map_entries[str(answer)] = box
            rows.append(
                wrap_row(w.HTML(f"<code>{escape(str(answer))}</code> =", layout=w.Layout(min_width="8em")), box)
            )
        replace_children(self.answer_map, rows)

    def answer_values(self) -> dict:
        """The map as the spec's ``values`` / ``choices``: numbers become numbers; an empty box is
        left out (the reader then names the answer as unmapped)."""
        text = "\n".join(
            f"{answer} = {box.value.strip()}" for answer, box in self.map_entries.items() if box.value.strip()
        )
        return parse_answer_map(text, f"experiment {self.id.value}: answer map")

    def item_specs(self) -> list[dict]:
        """The items of a form (``column | item | system`` or ``column | item | system A | system B`` lines)."""
        items = []
        for number, line in enumerate(self.items.value.splitlines(), 1):
            parts = [p.strip() for p in line.split("|")]
            if not line.strip() or (len(parts) >= 3 and not any(parts[2:])):
                continue  # a template line left blank: not an item
            if len(parts) not in (3, 4) or not parts[0]:
                raise QRAInputError(
                    f"{self.id.value}: items, line {number}: write 'column | item | system' or "
                    f"'column | item | system A | system B', got {line.strip()!r}"
                )
            column: str | int = int(parts[0]) if parts[0].isdigit() else parts[0]
            item = {"column": column, "item": parts[1] or str(parts[0])}
            if len(parts) == 3:
                item["system"] = parts[2]
            else:
                item["system_a"], item["system_b"] = parts[2], parts[3]
            if len(self.view.criteria) == 1:
                item["criterion"] = self.view.criterion_names()[0]
            items.append(item)
        if not items:
            raise QRAInputError(f"{self.id.value}: items: give at least one 'column | item | system' line")
        return items

    # ------------------------------------------------------------------ the spec entry

    def key_column(self, key: str, where: str):
        """A key picker's spec value: a column, ``{"constant": V}``, or ``{"row": true}``."""
        widget = getattr(self, key)
        if key == "item":
            chosen = list(widget.value)
            if not chosen:
                raise QRAInputError(f"{where}: choose the item column(s)")
            if ROW in chosen:
                return {"row": True}
            return chosen[0] if len(chosen) == 1 else chosen
        if widget.value == CONSTANT:
            value = self.constants[key].value.strip()
            if not value:
                raise QRAInputError(f"{where}: give the {key} every row has")
            return {"constant": value}
        if widget.value in (None, NONE):
            return None
        return widget.value

    def add_filters(self, entry: dict, where: str) -> None:
        for key, column, values in (
            ("rows", self.filter_column, self.filter_values),
            *(("exclude", column, values) for column, values in self.excludes),
        ):
            if column.value not in (None, NONE):
                chosen = split_list(values.value)
                if not chosen:
                    raise QRAInputError(
                        f"{where}: give the values of {column.value!r} whose rows to "
                        f"{'keep' if key == 'rows' else 'drop'}"
                    )
                entry.setdefault(key, {}).setdefault(column.value, []).extend(chosen)

    def spec(self, index: int, names: list[str]) -> dict:
        """This card's experiment entry; ``names`` are its files' names in the spec."""
        experiment_id = self.id.value.strip()
        where = f"experiment {index + 1} ({experiment_id or 'no id'})"
        if not experiment_id:
            raise QRAInputError(f"{where}: give it an experiment id")
        layout = self.layout.value
        entry: dict = {"id": experiment_id, "role": self.role.value}
        if self.label.value.strip():
            entry["label"] = self.label.value.strip()
        if layout == "scores":
            return {**entry, "scores": self.reported_scores(where)}
        if not names:
            raise QRAInputError(f"{where}: add its file(s) (the Add files button of its card)")
        if len(names) == 1:
            entry["file"] = names[0]
        else:
            entry["files"] = names
        if self.format.value:
            entry["format"] = self.format.value
        if self.delimiter.value != "auto" and self.format.value in ("", "csv"):
            entry["delimiter"] = self.delimiter.value
        if self.sheet.value.strip():
            entry["sheet"] = self.sheet.value.strip()
        entry["layout"] = layout
        columns: dict = {}
        raters = layout == "wide" and self.raters_in_columns.value
        rater = None if raters else self.key_column("rater", where)
        if rater is not None:
            columns["rater"] = rater
        if layout in ("wide", "long"):
            system = self.key_column("system", where)
            if system is not None:
                columns["system"] = system
        if layout in ("wide", "long", "pairwise", "best_worst"):
            columns["item"] = self.key_column("item", where)
        if layout == "long":
            columns.update(criterion=self.criterion_column.value, rating=self.rating_column.value)
            named = {name: p.value.value for name, p in self.named_pickers() if p.value.value not in (None, NONE)}
            if any(name != value for name, value in named.items()):
                columns["criteria"] = named
        elif layout in ("wide", "pairwise"):
            criteria = {}
            for name, pickers in self.named_pickers():
                if raters and pickers.raters.value:
                    criteria[name] = {"raters": {column: column for column in pickers.raters.value}}
                elif not raters and pickers.column.value not in (None, NONE):
                    criteria[name] = pickers.column.value
            if not criteria:
                raise QRAInputError(
                    f"{where}: choose the {'choice ' if layout == 'pairwise' else ''}column of at least "
                    f"one quality criterion"
                )
            columns["criteria"] = criteria
            if layout == "pairwise":
                columns.update(system_a=self.system_a.value, system_b=self.system_b.value)
                entry.update(score=self.score.value, ties=self.ties.value)
        elif layout == "best_worst":
            if len(self.shown.value) < 2:
                raise QRAInputError(f"{where}: choose the columns of the two or more systems shown")
            columns["shown"] = list(self.shown.value)
            criteria = {
                name: {"best": p.best.value, "worst": p.worst.value}
                for name, p in self.named_pickers()
                if NONE not in (p.best.value, p.worst.value)
            }
            if not criteria:
                raise QRAInputError(f"{where}: choose the best and the worst column of at least one quality criterion")
            columns["criteria"] = criteria
            entry["best_worst_by"] = self.best_worst_by.value
        else:
            entry["items"] = self.item_specs()
            entry["score"] = self.score.value
        entry["columns"] = columns
        mapped = self.answer_values()
        if mapped:
            entry["values" if layout in ("wide", "long") else "choices"] = mapped
            if layout == "items_in_columns" and any("system" in i for i in entry["items"]):
                entry["values"] = {k: v for k, v in mapped.items() if not isinstance(v, str)}
                entry["choices"] = {k: v for k, v in mapped.items() if isinstance(v, str)}
                entry = {k: v for k, v in entry.items() if v != {}}
        self.add_filters(entry, where)
        return entry

    def named_pickers(self):
        for row, pickers in self.pickers.items():
            name = row.name.value.strip()
            if name:
                yield name, pickers

    def reported_scores(self, where: str) -> dict:
        """A scores card's boxes as ``{criterion: {system: value}}`` (an empty box is no value)."""
        scores: dict = {}
        for (system, criterion), box in self.score_inputs.items():
            if box.value.strip():
                value = parse.required_number(box.value, f"{where}: {system} / {criterion}")
                scores.setdefault(criterion, {})[system] = value
        if not scores:
            raise QRAInputError(f"{where}: type at least one system's value in its boxes")
        return scores
