"""The Annotations tab's parts: one quality criterion's row (:class:`CriterionRow`: name,
scale, label level, evaluation type, QCET criterion suggested from the name) and one
experiment's card (:class:`ExperimentCard`: its file, a preview, its layout, the column
mapping and the answer map), each building its part of the annotation spec.  The tab itself
is :class:`qra_widgets.widgets.annotations.AnnotationsView`.
"""

from __future__ import annotations

import html

import ipywidgets as w

from ..errors import QRAInputError
from ..io import parse
from ..io.annotations import guess_mapping
from ..io.layout_keys import BEST_WORST_BY, PAIRWISE_SCORES, TIE_RULES
from ..study import EVALUATION_TYPES, LABEL_LEVELS
from .common import button, labelled, replace_children, run_reported

NONE = "(none)"
LAYOUT_CHOICES = (("one column per criterion (wide)", "wide"), ("criterion and rating columns (long)", "long"),
                  ("pairwise judgements", "pairwise"), ("best-worst tuples", "best_worst"),
                  ("a form: one column per item", "items_in_columns"))
CHOICE_GUESSES = {"a": "a", "b": "b", "tie": "tie", "same": "tie", "equal": "tie", "neither": "tie", "both": "tie",
                  "true": "b", "false": "a"}
PREVIEW_ROWS = 5


def equals_lines(text: str, what: str, form: str):
    """Each non-blank ``left = right`` line of a form field as ``(line number, line, left, right)``,
    split at its last ``=``; a line without one is refused, quoting ``form`` (the shape to write).

    >>> list(equals_lines("a = b\\n\\nx=y=z", "names", "old = new"))
    [(1, 'a = b', 'a', 'b'), (3, 'x=y=z', 'x=y', 'z')]
    """
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if "=" not in line:
            raise QRAInputError(f"{what}, line {number}: write '{form}', got {line.strip()!r}")
        left, right = (part.strip() for part in line.rsplit("=", 1))
        yield number, line.strip(), left, right


def parse_answer_map(text: str, what: str) -> dict:
    """``answer = value`` lines (the value map of ratings or choices); numbers become numbers.

    >>> parse_answer_map("Sehr gut = 5\\nAudio 1 = a", "values")
    {'Sehr gut': 5, 'Audio 1': 'a'}
    """
    mapped: dict = {}
    for number, _line, answer, value in equals_lines(text, what, "answer = value"):
        if not value:
            raise QRAInputError(f"{what}, line {number}: give the value of answer {answer!r}")
        try:
            mapped[answer] = int(value) if value.lstrip("-").isdigit() else float(value)
        except ValueError:
            mapped[answer] = value
    return mapped


def answer_map_template(answers, layout: str) -> str:
    """The map's lines for the answers found, with a guess where one is obvious (A -> a, same -> tie)."""
    lines = []
    for answer in answers:
        guess = CHOICE_GUESSES.get(str(answer).strip().lower(), "") if layout in ("pairwise", "items_in_columns") else ""
        if layout == "best_worst":
            guess = {"a": "1", "b": "2"}.get(str(answer).strip().lower(), "")
        lines.append(f"{answer} = {guess}")
    return "\n".join(lines)


def suggest_qcet(name: str) -> str:
    """The QCET criterion whose name best matches a criterion's name ("" when none is close):
    the same name, else a name starting like it, else the closest name (difflib).

    >>> suggest_qcet("Fluency"), suggest_qcet("Grammar"), suggest_qcet("Meaning"), suggest_qcet("Xyzzy")
    ('QOG-w-3', 'QOC-f-1', 'QTC-c-1', '')
    """
    import difflib

    from ..properties import qcet_taxonomy

    wanted = name.strip().lower()
    if not wanted:
        return ""
    leaves = sorted((n for n in qcet_taxonomy().values() if n.depth >= 4), key=lambda n: n.id)
    main = {n.id: n.name.split(" (")[0].strip().lower() for n in leaves}
    for node in leaves:
        if main[node.id] == wanted:
            return node.id
    stem = wanted[:max(5, len(wanted) - 3)]
    for node in leaves:
        if any(word.startswith(stem) for word in main[node.id].replace("/", " ").split()):
            return node.id
    close = difflib.get_close_matches(wanted, list(main.values()), n=1, cutoff=0.7)
    return next((i for i, text in main.items() if close and text == close[0]), "")


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
        self.evaluation_type = w.Dropdown(options=EVALUATION_TYPES, value="human", layout=w.Layout(width="9em"))
        self.qcet = w.Combobox(placeholder="QCET criterion", options=self.qcet_options(), ensure_option=False,
                               layout=w.Layout(width="16em"))
        self.evaluation_type.add_class("qra-annotations-evaluation-type")
        self.qcet.add_class("qra-annotations-qcet")
        self.remove = button("Remove", "qra-annotations-remove-criterion")
        self.name.add_class("qra-annotations-criterion-name")
        self.scale_min.add_class("qra-annotations-scale-min")
        self.scale_max.add_class("qra-annotations-scale-max")
        self.name.observe(lambda _: on_change(), "value")
        self._auto, self._setting = True, False  # the QCET field follows the name until the user picks one
        self.name.observe(lambda _: self.suggest(), "value")
        self.qcet.observe(self._chosen, "value")
        self.remove.on_click(lambda _: on_remove(self))
        self.widget = w.HBox([self.name, self.scale_min, self.scale_max, self.level, self.evaluation_type, self.qcet,
                              self.remove], layout=w.Layout(flex_flow="row wrap", align_items="center"))
        self.suggest()

    @staticmethod
    def qcet_options() -> list[str]:
        from ..properties import qcet_taxonomy

        return [node.label for node in qcet_taxonomy().values()]

    def suggest(self) -> None:
        """Pre-fill the QCET criterion from the name, unless the user chose one."""
        from ..properties import qcet_taxonomy

        if not self._auto:
            return
        found = suggest_qcet(self.name.value)
        self._setting = True
        try:
            self.qcet.value = qcet_taxonomy()[found].label if found else ""
        finally:
            self._setting = False

    def _chosen(self, _change) -> None:
        if not self._setting:
            self._auto = False

    def qcet_id(self) -> str | None:
        from ..properties import qcet_taxonomy

        text = self.qcet.value.strip()
        if not text:
            return None
        by_label = {node.label: node.id for node in qcet_taxonomy().values()}
        if text in by_label:
            return by_label[text]
        if text in qcet_taxonomy():
            return text
        raise QRAInputError(f"{self.name.value.strip()}: {text!r} is not a QCET criterion; pick one from the list")

    def spec(self, index: int) -> dict:
        name = self.name.value.strip()
        if not name:
            raise QRAInputError(f"quality criterion {index + 1}: give it a name")
        low = parse.required_number(self.scale_min.value, f"{name}: scale minimum")
        high = parse.optional_number(self.scale_max.value, f"{name}: scale maximum")
        entry = {"name": name, "scale_min": low, "label_level": self.level.value,
                 "evaluation_type": self.evaluation_type.value}
        if high is not None:
            entry["scale_max"] = high
        qcet = self.qcet_id()
        if qcet:
            entry["qcet_id"] = qcet
        return entry


class ExperimentCard:
    """One experiment: which uploaded file, its id and role, a preview, its layout and column mapping.

    ``view`` is the tab (:class:`~qra_widgets.widgets.annotations.AnnotationsView`) whose uploaded
    files, criteria, missing marks and status line the card reads; it is not imported here, so
    the tab and its parts do not import each other."""

    def __init__(self, view, file_name: str, experiment_id: str, role: str):
        self.view = view
        self.file = w.Dropdown(options=list(view.files), value=file_name, layout=w.Layout(width="auto"))
        self.id = w.Text(value=experiment_id, layout=w.Layout(width="12em"))
        self.label = w.Text(placeholder="label (optional)", layout=w.Layout(width="14em"))
        self.role = w.Dropdown(options=["original", "repeat"], value=role, layout=w.Layout(width="8em"))
        self.layout = w.Dropdown(options=LAYOUT_CHOICES, value="wide", layout=w.Layout(width="auto"))
        self.preview = w.HTML()
        self.preview.add_class("qra-annotations-preview")
        self.system = w.Dropdown(layout=w.Layout(width="auto"))
        self.item = w.Dropdown(layout=w.Layout(width="auto"))
        self.rater = w.Dropdown(layout=w.Layout(width="auto"))
        self.criterion_column = w.Dropdown(layout=w.Layout(width="auto"))
        self.rating_column = w.Dropdown(layout=w.Layout(width="auto"))
        self.system_a = w.Dropdown(layout=w.Layout(width="auto"))
        self.system_b = w.Dropdown(layout=w.Layout(width="auto"))
        self.shown = w.SelectMultiple(rows=4, layout=w.Layout(width="auto"))
        self.score = w.Dropdown(options=PAIRWISE_SCORES, value="preference", layout=w.Layout(width="10em"))
        self.ties = w.Dropdown(options=TIE_RULES, value="half", layout=w.Layout(width="7em"))
        self.best_worst_by = w.Dropdown(options=BEST_WORST_BY, value="system", layout=w.Layout(width="7em"))
        self.items = w.Textarea(placeholder="column | item id | system   (a rating)\n"
                                            "column | item id | system A | system B   (a comparison)\n"
                                            "column: its name, or its position 1, 2, ... when headers repeat",
                                layout=w.Layout(width="36em", height="8em", max_width="100%"))
        self.answer_map = w.Textarea(placeholder="answer = value (ratings), or answer = a / b / tie (pairwise), "
                                                 "or answer = 1 / 2 ... (best-worst by position)",
                                     layout=w.Layout(width="36em", height="7em", max_width="100%"))
        self.fill_map = button("Fill the map from the answers found", "qra-annotations-fill-map")
        self.filter_column = w.Dropdown(layout=w.Layout(width="auto"))
        self.filter_values = w.Text(placeholder="values, comma-separated", layout=w.Layout(width="16em"))
        self.exclude_column = w.Dropdown(layout=w.Layout(width="auto"))
        self.exclude_values = w.Text(placeholder="values, comma-separated", layout=w.Layout(width="16em"))
        self.mapping_box = w.VBox()
        self.criteria_box = w.VBox()
        self.criteria: dict[CriterionRow, w.Widget] = {}
        self.remove = button("Remove this experiment", "qra-annotations-remove-experiment")
        self.id.add_class("qra-annotations-experiment-id")
        self.layout.add_class("qra-annotations-layout")
        self.items.add_class("qra-annotations-items")
        self.answer_map.add_class("qra-annotations-answer-map")
        for part, dropdown in (("system", self.system), ("item", self.item), ("rater", self.rater),
                               ("system-a", self.system_a), ("system-b", self.system_b)):
            dropdown.add_class(f"qra-annotations-{part}")
        self.filter_column.add_class("qra-annotations-filter-column")
        self.filter_values.add_class("qra-annotations-filter-values")
        self.file.observe(lambda _: run_reported(view.status, self.read_file), "value")
        self.layout.observe(lambda _: self.show_mapping(), "value")
        self.fill_map.on_click(lambda _: run_reported(view.status, self.fill_answer_map))
        self.remove.on_click(lambda _: view.remove_experiment(self))
        self.widget = w.VBox([
            w.HBox([labelled("File", self.file, "4em"), labelled("Experiment id", self.id, "7em"), self.label, self.role],
                   layout=w.Layout(flex_flow="row wrap", align_items="center", grid_gap="0.5em")),
            self.preview,
            labelled("Layout", self.layout, "5em"),
            self.mapping_box,
            w.HBox([labelled("Keep only rows where", self.filter_column, "11em"), labelled("is one of", self.filter_values, "5em")],
                   layout=w.Layout(flex_flow="row wrap", grid_gap="0.5em")),
            w.HBox([labelled("Drop rows where", self.exclude_column, "11em"), labelled("is one of", self.exclude_values, "5em")],
                   layout=w.Layout(flex_flow="row wrap", grid_gap="0.5em")),
            self.remove])
        self.widget.add_class("qra-annotations-experiment")
        self.columns: list[str] = []
        self.frame = None
        self.read_file()

    def read_file(self) -> None:
        """Show the chosen file's first rows and pre-select the guessed columns."""
        from ..io.annotations import entry_file_bytes, read_frame

        name = self.file.value
        data, shown = entry_file_bytes(name, files=self.view.files)
        self.frame = read_frame(data, shown)
        head = self.frame.head(PREVIEW_ROWS)
        self.columns = list(head.columns)
        self.preview.value = (f"<div class='qra-scroll'><p>First {len(head)} rows of <code>{html.escape(name)}</code>:</p>"
                              + head.to_html(index=False, escape=True, classes="qra-template") + "</div>")
        guess = guess_mapping(self.columns, self.view.criterion_names())
        for role, dropdown, optional in (("system", self.system, False), ("item", self.item, False), ("rater", self.rater, True)):
            dropdown.options = ([NONE] if optional else []) + self.columns
            dropdown.value = guess.get(role, NONE if optional else (self.columns[0] if self.columns else None))
        for dropdown in (self.criterion_column, self.rating_column, self.system_a, self.system_b):
            dropdown.options = self.columns
        self.criterion_column.value = guess.get("criterion", self.columns[0] if self.columns else None)
        self.rating_column.value = guess.get("rating", self.columns[-1] if self.columns else None)
        for dropdown, word in ((self.system_a, "a"), (self.system_b, "b")):
            found = [c for c in self.columns if c.lower().rstrip("12").endswith(("system_" + word, "system" + word))
                     or c.lower() in (f"system_{word}", f"system{'1' if word == 'a' else '2'}",
                                      f"input.system{'1' if word == 'a' else '2'}")]
            dropdown.value = found[0] if found else (self.columns[0] if self.columns else None)
        self.shown.options = self.columns
        for dropdown in (self.filter_column, self.exclude_column):
            dropdown.options = [NONE, *self.columns]
            dropdown.value = NONE
        self._guess = guess
        self.show_mapping()

    def show_mapping(self) -> None:
        """The mapping controls of the chosen layout."""
        layout = self.layout.value
        keys = labelled("Rater column", self.rater, "7em")
        if layout == "wide":
            rows = [w.HBox([labelled("System column", self.system, "8em"), labelled("Item column", self.item, "7em"), keys],
                           layout=w.Layout(flex_flow="row wrap", grid_gap="0.5em")), self.criteria_box]
        elif layout == "long":
            rows = [w.HBox([labelled("System column", self.system, "8em"), labelled("Item column", self.item, "7em"), keys,
                            labelled("Criterion column", self.criterion_column, "9em"),
                            labelled("Rating column", self.rating_column, "8em")],
                           layout=w.Layout(flex_flow="row wrap", grid_gap="0.5em"))]
        elif layout == "pairwise":
            rows = [w.HBox([labelled("Item column", self.item, "7em"), keys, labelled("System A column", self.system_a, "9em"),
                            labelled("System B column", self.system_b, "9em")],
                           layout=w.Layout(flex_flow="row wrap", grid_gap="0.5em")),
                    self.criteria_box,
                    w.HBox([labelled("Score", self.score, "4em"), labelled("Ties", self.ties, "3em")],
                           layout=w.Layout(flex_flow="row wrap", grid_gap="0.5em"))]
        elif layout == "best_worst":
            rows = [w.HBox([labelled("Item column", self.item, "7em"), keys,
                            labelled("Columns of the systems shown", self.shown, "14em")],
                           layout=w.Layout(flex_flow="row wrap", grid_gap="0.5em")),
                    self.criteria_box, labelled("Best and worst name", self.best_worst_by, "12em")]
        else:
            if not self.items.value.strip():
                repeated = {c for c in self.columns if self.columns.count(c) > 1}
                self.items.value = "\n".join(f"{i} | {f'column {i}' if c in repeated else c} | "
                                              for i, c in enumerate(self.columns, 1) if c != self._guess.get("rater"))
            rows = [keys, labelled("Items", self.items, "5em"), labelled("Score", self.score, "4em")]
        if layout in ("wide", "pairwise", "best_worst"):
            self.sync_criteria(reset=True)
        replace_children(self.mapping_box, rows + [labelled("Answer map", self.answer_map, "7em"), self.fill_map])

    def sync_criteria(self, reset: bool = False) -> None:
        """Per criterion, the column (wide), the choice column (pairwise) or the best and worst columns
        (best-worst); a criterion keeps its chosen columns when it is renamed or another is added."""
        layout = self.layout.value
        previous = {} if reset else {row: _values_of(widget) for row, widget in self.criteria.items()}
        guess = getattr(self, "_guess", {})
        used = {guess.get(r) for r in ("system", "item", "rater")}
        spare = [c for c in self.columns if c not in used]
        self.criteria = {}
        rows = []
        for index, row in enumerate(self.view.criteria):
            name = row.name.value.strip() or f"criterion {index + 1}"
            kept = previous.get(row)
            if layout == "best_worst":
                best, worst = (w.Dropdown(options=[NONE, *self.columns], layout=w.Layout(width="auto")) for _ in range(2))
                best.value = kept[0] if kept else next((c for c in self.columns if "best" in c.lower()), NONE)
                worst.value = kept[1] if kept else next((c for c in self.columns if "worst" in c.lower()), NONE)
                widget = w.HBox([labelled("best", best, "3em"), labelled("worst", worst, "3em")])
                widget.best, widget.worst = best, worst
            else:
                widget = w.Dropdown(options=[NONE, *self.columns], layout=w.Layout(width="auto"))
                widget.add_class("qra-annotations-criterion-column")
                chosen = (kept[0] if kept else None) or (guess.get("criteria") or {}).get(row.name.value.strip())
                if not chosen:  # a column named like a rating, else the index-th spare column
                    chosen = guess.get("rating") if index == 0 and guess.get("rating") else (spare[index] if index < len(spare) else NONE)
                widget.value = chosen if chosen in widget.options else NONE
            self.criteria[row] = widget
            what = {"wide": "Column of", "pairwise": "Choice column of", "best_worst": "Best and worst of"}.get(layout, "Column of")
            rows.append(labelled(f"{what} {name}", widget, "12em"))
        replace_children(self.criteria_box, rows)

    def answer_columns(self) -> list[str | int]:
        """The columns whose answers go through the answer map."""
        layout = self.layout.value
        if layout == "long":
            return [self.rating_column.value]
        if layout == "items_in_columns":
            return [item["column"] for item in self.item_specs()]
        if layout == "best_worst":
            return [c for widget in self.criteria.values() for c in (widget.best.value, widget.worst.value) if c != NONE]
        return [widget.value for widget in self.criteria.values() if widget.value not in (None, NONE)]

    def fill_answer_map(self) -> None:
        """List every answer found in the answer columns that is not a number (or, for choices, not a/b/tie)."""
        missing = set(self.view.missing_marks())
        found: dict[str, None] = {}
        for column in self.answer_columns():
            cells = (self.frame.iloc[:, column - 1] if isinstance(column, int) else self.frame[column]).astype(str)
            if getattr(cells, "ndim", 1) != 1:
                raise QRAInputError(f"{self.file.value}: several columns are named {column!r}; use the form layout "
                                    f"and name them by position")
            for value in cells:
                if value not in missing:
                    found[value] = None
        layout = self.layout.value
        if layout in ("wide", "long") or (layout == "items_in_columns" and all(len(i) == 3 and "system" in i
                                                                                for i in self.item_specs())):
            answers = [a for a in found if not _is_number(a)]
        else:
            answers = list(found)
        if not answers:
            self.answer_map.value = ""
            self.view.status.ok("Every answer found is already a number: no map needed.")
            return
        self.answer_map.value = answer_map_template(answers, layout)
        self.view.status.ok(f"Found {len(answers)} answer(s) in {self.file.value}: give each its value in the map.")

    def item_specs(self) -> list[dict]:
        """The items of a form (``column | item | system`` or ``column | item | system A | system B`` lines)."""
        items = []
        for number, line in enumerate(self.items.value.splitlines(), 1):
            parts = [p.strip() for p in line.split("|")]
            if not line.strip() or (len(parts) >= 3 and not any(parts[2:])):
                continue  # a template line left blank: not an item
            if len(parts) not in (3, 4) or not parts[0]:
                raise QRAInputError(f"{self.file.value}: items, line {number}: write 'column | item | system' or "
                                    f"'column | item | system A | system B', got {line.strip()!r}")
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
            raise QRAInputError(f"{self.file.value}: items: give at least one 'column | item | system' line")
        return items

    def spec(self, index: int) -> dict:
        where = f"experiment {index + 1} ({self.file.value})"
        experiment_id = self.id.value.strip()
        if not experiment_id:
            raise QRAInputError(f"{where}: give it an experiment id")
        layout = self.layout.value
        entry: dict = {"id": experiment_id, "role": self.role.value, "file": self.file.value, "layout": layout}
        if self.label.value.strip():
            entry["label"] = self.label.value.strip()
        columns: dict = {}
        if self.rater.value not in (None, NONE):
            columns["rater"] = self.rater.value
        if layout in ("wide", "long"):
            columns.update(system=self.system.value, item=self.item.value)
        if layout in ("pairwise", "best_worst"):
            columns["item"] = self.item.value
        if layout == "long":
            columns.update(criterion=self.criterion_column.value, rating=self.rating_column.value)
        elif layout in ("wide", "pairwise"):
            criteria = {}
            for row, dropdown in self.criteria.items():
                name = row.name.value.strip()
                if dropdown.value in (None, NONE):
                    raise QRAInputError(f"{where}: choose the column of quality criterion {name!r}")
                criteria[name] = dropdown.value
            columns["criteria"] = criteria
            if layout == "pairwise":
                columns.update(system_a=self.system_a.value, system_b=self.system_b.value)
                entry.update(score=self.score.value, ties=self.ties.value)
        elif layout == "best_worst":
            if len(self.shown.value) < 2:
                raise QRAInputError(f"{where}: choose the columns of the two or more systems shown")
            columns["shown"] = list(self.shown.value)
            criteria = {}
            for row, pair in self.criteria.items():
                name = row.name.value.strip()
                if NONE in (pair.best.value, pair.worst.value):
                    raise QRAInputError(f"{where}: choose the best and the worst column of {name!r}")
                criteria[name] = {"best": pair.best.value, "worst": pair.worst.value}
            columns["criteria"] = criteria
            entry["best_worst_by"] = self.best_worst_by.value
        else:
            entry["items"] = self.item_specs()
            entry["score"] = self.score.value
        entry["columns"] = columns
        mapped = parse_answer_map(self.answer_map.value, f"{where}: answer map")
        if mapped:
            entry["values" if layout in ("wide", "long") else "choices"] = mapped
            if layout == "items_in_columns" and any("system" in i for i in entry["items"]):
                entry["values"] = {k: v for k, v in mapped.items() if not isinstance(v, str)}
                entry["choices"] = {k: v for k, v in mapped.items() if isinstance(v, str)}
                entry = {k: v for k, v in entry.items() if v != {}}
        for key, column, values in (("rows", self.filter_column, self.filter_values),
                                    ("exclude", self.exclude_column, self.exclude_values)):
            if column.value not in (None, NONE):
                chosen = split_list(values.value)
                if not chosen:
                    raise QRAInputError(f"{where}: give the values of {column.value!r} whose rows to "
                                        f"{'keep' if key == 'rows' else 'drop'}")
                entry[key] = {column.value: chosen}
        return entry


def _values_of(widget) -> tuple:
    """The column(s) a criterion's widget holds: (column,) or (best, worst)."""
    if hasattr(widget, "best"):
        return (widget.best.value, widget.worst.value)
    return (widget.value,)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
