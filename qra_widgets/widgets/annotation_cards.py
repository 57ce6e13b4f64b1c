"""The Annotations tab's parts: one quality criterion's row (:class:`CriterionRow`: name,
scale, label level, evaluation type, QCET criterion suggested from the name), one criterion's
column pickers in a card (:class:`CriterionPickers`) and the answer map's text forms; the guesses
a file's headers and content suggest are :func:`qra_widgets.io.uploads.guess_layout`.  The experiment card is
:class:`qra_widgets.widgets.annotation_experiment.ExperimentCard`; the tab itself is
:class:`qra_widgets.widgets.annotations.AnnotationsView`.
"""

from __future__ import annotations

import re

import ipywidgets as w

from ..errors import QRAInputError
from ..io import parse
from ..io.uploads import guess_layout, is_number  # noqa: F401 (the card's guesses, kept importable from here)
from ..report.html import escape
from ..study import EVALUATION_TYPES, LABEL_LEVELS
from .common import button, labelled, set_options

NONE = "(none)"
CONSTANT = "(one value for every row)"
ROW = "(the row's number)"
# Each label contains the layout's name in the spec grammar (the browser tests pick by it).
LAYOUT_CHOICES = (
    ("one column per criterion (wide)", "wide"),
    ("a criterion and a rating column (long)", "long"),
    ("pairwise judgements (pairwise)", "pairwise"),
    ("best-worst tuples (best_worst)", "best_worst"),
    ("a form: one column per item (items_in_columns)", "items_in_columns"),
    ("published system values only (scores)", "scores"),
)
FORMAT_CHOICES = (
    ("from the file name", ""),
    ("CSV (csv)", "csv"),
    ("Excel (xlsx)", "xlsx"),
    ("JSON (json)", "json"),
    ("JSON Lines (jsonl)", "jsonl"),
)
DELIMITER_CHOICES = (("sniffed (auto)", "auto"), ("comma ,", ","), ("semicolon ;", ";"), ("tab", "\t"))
PREVIEW_CELL = 60  # characters of a cell the preview shows (an MTurk cell can hold a whole page)
CHOICE_GUESSES = {
    "a": "a",
    "b": "b",
    "tie": "tie",
    "same": "tie",
    "equal": "tie",
    "neither": "tie",
    "both": "tie",
    "true": "b",
    "false": "a",
}
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
        guess = (
            CHOICE_GUESSES.get(str(answer).strip().lower(), "") if layout in ("pairwise", "items_in_columns") else ""
        )
        if layout == "best_worst":
            guess = {"a": "1", "b": "2"}.get(str(answer).strip().lower(), "")
        lines.append(f"{answer} = {guess}")
    return "\n".join(lines)


def suggest_qcet(name: str) -> str:
    """The QCET criterion of a criterion's name, "" when none is close: the one guesser,
    :func:`qra_widgets.properties.suggest.guess_qcet`, which every view uses.

    >>> suggest_qcet("Fluency"), suggest_qcet("Grammar"), suggest_qcet("Meaning"), suggest_qcet("Xyzzy")
    ('QOG-w-3', 'QOC-f-1', 'QTC-c-1', '')
    """
    from ..properties.suggest import guess_qcet

    return guess_qcet(name) or ""


def uploaded_files(value) -> dict[str, bytes]:
    """``{name: bytes}`` from a FileUpload value (ipywidgets 8: a tuple of dicts)."""
    return {str(item["name"]): bytes(item["content"]) for item in value or ()}


def split_list(text: str) -> list[str]:
    """Comma-separated values, stripped, empty ones dropped."""
    return [part.strip() for part in text.split(",") if part.strip()]


class CriterionRow:
    """One quality criterion: name, scale (the minimum is never assumed) and label level."""

    def __init__(self, name: str, on_change, on_remove):
        self.name = w.Text(
            value=name, placeholder="criterion name", continuous_update=False, layout=w.Layout(width="14em")
        )
        self.scale_min = w.Text(placeholder="scale min", layout=w.Layout(width="7em"))
        self.scale_max = w.Text(placeholder="scale max", layout=w.Layout(width="7em"))
        self.level = w.Dropdown(options=LABEL_LEVELS, value="ordinal", layout=w.Layout(width="9em"))
        self.evaluation_type = w.Dropdown(options=EVALUATION_TYPES, value="human", layout=w.Layout(width="9em"))
        self.qcet = w.Combobox(
            placeholder="QCET criterion",
            options=self.qcet_options(),
            ensure_option=False,
            layout=w.Layout(width="16em"),
        )
        self.evaluation_type.add_class("qra-annotations-evaluation-type")
        self.qcet.add_class("qra-annotations-qcet")
        self.remove = button("Remove", "qra-annotations-remove-criterion")
        for part, widget in (
            ("criterion-name", self.name),
            ("scale-min", self.scale_min),
            ("scale-max", self.scale_max),
        ):
            widget.add_class(f"qra-annotations-{part}")
            widget.add_class(f"qw-ann-{part}")
        self.name.observe(lambda _: on_change(), "value")
        self._auto, self._setting = True, False  # the QCET field follows the name until the user picks one
        self.name.observe(lambda _: self.suggest(), "value")
        self.qcet.observe(self._chosen, "value")
        self.remove.on_click(lambda _: on_remove(self))
        self.widget = w.HBox(
            [self.name, self.scale_min, self.scale_max, self.level, self.evaluation_type, self.qcet, self.remove],
            layout=w.Layout(flex_flow="row wrap", align_items="center"),
        )
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
        entry = {
            "name": name,
            "scale_min": low,
            "label_level": self.level.value,
            "evaluation_type": self.evaluation_type.value,
        }
        if high is not None:
            entry["scale_max"] = high
        qcet = self.qcet_id()
        if qcet:
            entry["qcet_id"] = qcet
        return entry


def slug(name: str) -> str:
    """A criterion's name as a CSS class part (``qw-ann-col-criterion-<slug>``).

    >>> slug("Meaning preservation"), slug("Relevancy (Q)")
    ('meaning-preservation', 'relevancy-q')
    """
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "criterion"


def file_stem(name: str) -> str:
    """A file's name without its folder and its suffixes (``lab1/grammar.csv.gz`` -> ``grammar``)."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base.split(".")[0] or base


def picker(css: str, width: str = "auto") -> w.Dropdown:
    widget = w.Dropdown(layout=w.Layout(width=width, max_width="30em"))
    widget.add_class(css)
    return widget


def set_shown(widget: w.Widget, shown: bool) -> None:
    widget.layout.display = None if shown else "none"


def wrap_row(*parts) -> w.HBox:
    return w.HBox(list(parts), layout=w.Layout(flex_flow="row wrap", align_items="center", grid_gap="0.5em"))


class CriterionPickers:
    """One criterion's columns in one card, for every layout at once (only the chosen layout's
    row is shown; nothing is re-parented when the layout changes): its column (wide), its
    choice column (pairwise), its value in the criterion column (long), its best and worst
    columns (best-worst), or the columns of its raters (raters in columns)."""

    def __init__(self, name: str):
        self.css = css = f"qw-ann-col-criterion-{slug(name)}"  # on the one picker the chosen layout shows
        self.name = name
        self.column = picker(css)
        self.column.add_class("qra-annotations-criterion-column")
        self.value = picker("qw-ann-criterion-value")
        self.best, self.worst = picker("qw-ann-col-best"), picker("qw-ann-col-worst")
        self.raters = w.SelectMultiple(rows=4, layout=w.Layout(width="auto", max_width="30em"))
        self.raters.add_class("qw-ann-col-raters")
        self.column_label = w.HTML()
        self.column_row = wrap_row(self.column_label, self.column)
        self.value_row = wrap_row(
            w.HTML(f"<span class='qra-label'>{escape(name)} is the criterion column's value</span>"), self.value
        )
        self.best_worst_row = wrap_row(
            w.HTML(f"<span class='qra-label'>Best and worst of {escape(name)}</span>"),
            labelled("best", self.best, "3em"),
            labelled("worst", self.worst, "3em"),
        )
        self.raters_row = wrap_row(
            w.HTML(f"<span class='qra-label'>Columns of {escape(name)}'s raters (one rater each)</span>"), self.raters
        )
        self.widget = w.VBox([self.column_row, self.value_row, self.best_worst_row, self.raters_row])

    def set_columns(self, columns: list[str], values: list[str]) -> None:
        for dropdown in (self.column, self.best, self.worst):
            set_options(dropdown, [NONE, *columns])
        set_options(self.value, [NONE, *values])
        self.raters.options = columns

    def show(self, layout: str, raters_in_columns: bool) -> None:
        self.column_label.value = (
            f"<span class='qra-label'>{'Choice column' if layout == 'pairwise' else 'Column'} of "
            f"{escape(self.name)}</span>"
        )
        set_shown(self.column_row, layout in ("wide", "pairwise") and not raters_in_columns)
        set_shown(self.value_row, layout == "long")
        set_shown(self.best_worst_row, layout == "best_worst")
        set_shown(self.raters_row, layout == "wide" and raters_in_columns)
        for widget, on in (
            (self.column, layout in ("wide", "pairwise")),
            (self.value, layout == "long"),
            (self.best_worst_row, layout == "best_worst"),
        ):
            (widget.add_class if on else widget.remove_class)(self.css)
        (self.column.add_class if layout == "pairwise" else self.column.remove_class)("qw-ann-col-choice")

    def state(self) -> tuple:
        return self.column.value, self.value.value, self.best.value, self.worst.value, tuple(self.raters.value)

    def restore(self, kept: tuple) -> None:
        for widget, value in zip((self.column, self.value, self.best, self.worst), kept):
            if value in widget.options:
                widget.value = value
        self.raters.value = tuple(v for v in kept[4] if v in self.raters.options)
