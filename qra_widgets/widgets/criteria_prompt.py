"""The question "what kind of evaluation is this?", asked where studies enter without saying (QRA3 files,
Import many).  Each criterion without an evaluation type or QCET criterion gets a row with both
filled in from its name (:func:`qra_widgets.properties.suggest.suggest_criterion`, whose QCET guess is
the one guesser, :func:`~qra_widgets.properties.suggest.guess_qcet`); Save
stores them as new library revisions.  Without a type a criterion is ranked with the unknowns
in the Overview, apart from the human and metric results.  Nothing is computed here."""

from __future__ import annotations

import ipywidgets as w

from ..overview import unclassified_records
from ..properties import qcet_taxonomy
from ..report.html import escape
from ..study import EVALUATION_TYPES
from .common import Status, button, guarded
from .state import AppState

MAX_ROWS = 40  # a bulk import of hundreds of criteria: the first 40 here, the rest from the Study tab
TYPE_LABELS = {
    "human": "human evaluation",
    "metric": "automatic metric",
    "llm-as-judge": "LLM as judge",
    "unknown": "unknown",
}


class CriteriaPrompt:
    """Hidden until :meth:`ask` finds criteria to classify."""

    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.fields: list[tuple[str, str, w.Dropdown, w.Dropdown]] = []
        self.intro = w.HTML()
        self.rows = w.VBox()
        self.save = button("Save evaluation types and QCET criteria", "qra-classify-save", primary=True)
        self.skip = button("Not now", "qra-classify-skip")
        self.save.on_click(self.on_save)
        self.skip.on_click(lambda _: self.hide())
        self.widget = w.VBox(
            [self.intro, self.rows, w.HBox([self.save, self.skip], layout=w.Layout(flex_flow="row wrap"))],
            layout=w.Layout(display="none"),
        )
        self.widget.add_class("qra-classify")

    @guarded(lambda self: self.status)
    def ask(self, study_ids) -> None:
        """Show a row for each criterion of these (library) studies that has no evaluation type or QCET criterion."""
        records = unclassified_records(self.state.library, list(study_ids))
        if not records:
            self.hide()
            return
        qcet = [("(none)", "")] + [(f"{node.label}", node.id) for node in qcet_taxonomy().values() if node.depth >= 1]
        for old in self.rows.children:
            old.close()
        self.fields, children = [], []
        for record in records[:MAX_ROWS]:
            kind = w.Dropdown(
                options=[(TYPE_LABELS[t], t) for t in EVALUATION_TYPES],
                value=record["suggested_type"],
                layout=w.Layout(width="13em"),
            )
            kind.add_class("qra-classify-type")
            criterion = w.Dropdown(options=qcet, value=record["suggested_qcet"] or "", layout=w.Layout(width="22em"))
            criterion.add_class("qra-classify-qcet")
            label = w.HTML(
                f"<span class='qra-label' title='{escape(record['study'])}'><b>"
                f"{escape(record['quality_criterion'])}</b> · {escape(record['study'])}</span>",
                layout=w.Layout(width="18em"),
            )
            hint = w.HTML(f"<span class='qra-hint'>suggested: {escape(record['reason'])}</span>")
            row = w.HBox([label, kind, criterion, hint], layout=w.Layout(flex_flow="row wrap", align_items="center"))
            row.add_class("qra-classify-row")
            children.append(row)
            self.fields.append((record["study"], record["quality_criterion"], kind, criterion))
        more = len(records) - len(self.fields)
        self.intro.value = (
            "<h4>What kind of evaluation is each criterion?</h4><p>These criteria came without an evaluation "
            "type or QCET criterion. The suggestions come from their names: check them and save. Human, "
            "metric and LLM-as-judge results are ranked apart in the Overview; unknown ones on their own."
            + (f" {more} more criteria: set them on the Study tab of each study." if more > 0 else "")
            + "</p>"
        )
        self.rows.children = children
        self.widget.layout.display = "flex"

    def hide(self) -> None:
        self.widget.layout.display = "none"

    @guarded(lambda self: self.status)
    def on_save(self, _=None) -> None:
        answers: dict[str, dict] = {}
        for study_id, criterion, kind, qcet in self.fields:
            answers.setdefault(study_id, {})[criterion] = (kind.value, qcet.value or None)
        self.status.ok(self.state.classify_criteria(answers))
        self.hide()
