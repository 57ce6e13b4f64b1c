"""Study tab: a first-run guide for an empty study; id, name and description; quality criteria
(with a searchable QCET picker and how each was evaluated: human, metric, LLM-as-judge);
systems.  Every change is an :class:`AppState` command."""

from __future__ import annotations

from dataclasses import replace

import ipywidgets as w

from .. import examples
from ..io import parse
from ..properties import qcet_taxonomy
from ..study import EVALUATION_TYPES, QualityCriterion
from .common import Status, button, guarded, labelled, selected
from .state import AppState

EVALUATION_LABELS = {
    "human": "human evaluation",
    "metric": "automatic metric",
    "llm-as-judge": "LLM-as-judge",
    "unknown": "not stated (unknown)",
}


class StudyView:
    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.navigate = lambda title: None  # set by the Dashboard: show another tab
        self.guide_example = w.Dropdown(
            options=[(title, name) for name, title in examples.titles().items()],
            layout=w.Layout(width="100%", max_width="40em"),
        )
        self.guide_load = button("Open this example", "qra-guide-example", primary=True)
        self.guide_upload = button("Upload a scores file (Scores tab)", "qra-guide-upload")
        self.guide = w.VBox(
            [
                w.HTML(
                    "<div class='qra-guide'><h4>Start here</h4><p>This study is empty. Two ways in:</p><ol>"
                    "<li><b>Open a paper example</b> to see what an assessment looks like (its published numbers are "
                    "shown beside the computed ones);</li><li><b>Upload your scores</b> as a long CSV or Excel file "
                    "(<code>experiment, quality_criterion, system, score</code>);</li></ol><p>or build the study by hand "
                    "below: name it, add a quality criterion with its scale, the systems, then the experiments.</p></div>"
                ),
                w.HBox([self.guide_example, self.guide_load], layout=w.Layout(flex_flow="row wrap")),
                self.guide_upload,
            ]
        )
        self.guide.add_class("qra-guide-box")
        self.guide_load.on_click(self.on_guide_example)
        self.guide_upload.on_click(lambda _: self.navigate("Scores"))

        self.study_id = w.Text(continuous_update=False, layout=w.Layout(width="24em", max_width="100%"))
        self.name = w.Text(
            continuous_update=False,
            placeholder="e.g. Fluency of my system, original and two repeats",
            layout=w.Layout(width="40em", max_width="100%"),
        )
        self.description = w.Textarea(
            continuous_update=False, layout=w.Layout(width="40em", max_width="100%", height="70px")
        )
        self.apply_details = button("Apply the study details", "qra-apply-details", primary=True)

        self.criteria = w.Select(rows=5, layout=w.Layout(width="16em"))
        self.qc_name = w.Text(placeholder="e.g. Fluency")
        self.qc_min = w.Text(placeholder="lowest possible score, e.g. 1", layout=w.Layout(width="16em"))
        self.qc_max = w.Text(placeholder="highest, e.g. 5 (optional)", layout=w.Layout(width="16em"))
        self.qc_qcet = w.Combobox(
            placeholder="type to search QCET",
            options=[n.label for n in qcet_taxonomy().values()],
            ensure_option=False,
            layout=w.Layout(width="26em", max_width="100%"),
        )
        self.qc_evaluation = w.Dropdown(
            options=[(EVALUATION_LABELS[t], t) for t in EVALUATION_TYPES],
            value="unknown",
            layout=w.Layout(width="16em"),
        )
        self.qc_level = w.Dropdown(options=["nominal", "ordinal", "interval", "ratio"], value="ordinal")
        self.add_qc = button("Add as a new criterion", "qra-add-criterion")
        self.update_qc = button("Update the selected criterion", "qra-update-criterion")
        self.remove_qc = button("Remove the selected criterion", "qra-remove-criterion")

        self.systems = w.Select(rows=6, layout=w.Layout(width="16em"))
        self.system_name = w.Text(placeholder="system name")
        self.add_system = button("Add system", "qra-add-system")
        self.rename_system = button("Rename the selected system", "qra-rename-system")
        self.remove_system = button("Remove the selected system", "qra-remove-system")

        for widget, css in (
            (self.name, "qra-study-name"),
            (self.study_id, "qra-study-id"),
            (self.system_name, "qra-system-name"),
            (self.qc_name, "qra-qc-name"),
            (self.qc_min, "qra-qc-min"),
            (self.qc_max, "qra-qc-max"),
            (self.qc_qcet, "qra-qc-qcet"),
            (self.qc_evaluation, "qra-qc-evaluation"),
            (self.criteria, "qra-criteria-list"),
            (self.systems, "qra-system-list"),
        ):
            widget.add_class(css)
        self.apply_details.on_click(self.on_apply_details)
        self.add_qc.on_click(self.on_add_qc)
        self.update_qc.on_click(self.on_update_qc)
        self.remove_qc.on_click(self.on_remove_qc)
        self.criteria.observe(self.on_pick_qc, "value")
        self.add_system.on_click(self.on_add_system)
        self.rename_system.on_click(self.on_rename_system)
        self.remove_system.on_click(self.on_remove_system)
        self.systems.observe(lambda change: setattr(self.system_name, "value", change["new"] or ""), "value")
        state.on("study", self.refresh)
        state.on("saved", self.refresh)

        row = lambda *children: w.HBox(list(children), layout=w.Layout(flex_flow="row wrap", grid_gap="1em"))
        self.widget = w.VBox(
            [
                self.guide,
                w.HTML("<h4>Study</h4>"),
                labelled("Name", self.name),
                labelled("Study id (library key)", self.study_id),
                labelled("Description", self.description),
                self.apply_details,
                w.HTML(
                    "<p class='qra-hint'>The id follows the name until you change it; a changed id is saved as a new study.</p>"
                ),
                w.HTML(
                    "<h4>Quality criteria</h4><p>Scores below the scale minimum are refused; the minimum is "
                    "subtracted before CV* (QRA 2022 §3.1), so give it: it is never assumed to be 0. Pick the "
                    "standardised QCET criterion by typing part of its name, and say how the criterion was evaluated: "
                    "human and metric CV* are never ranked together (QRA++ §6.1). A HEDS datasheet imported on the "
                    "Experiments tab fills both where the study leaves them open.</p>"
                ),
                row(
                    self.criteria,
                    w.VBox(
                        [
                            labelled("Name", self.qc_name),
                            labelled("Scale minimum", self.qc_min),
                            labelled("Scale maximum (optional)", self.qc_max),
                            row(labelled("QCET criterion", self.qc_qcet), labelled("Evaluated by", self.qc_evaluation)),
                            labelled("Label level (Type III)", self.qc_level),
                            row(self.add_qc, self.update_qc, self.remove_qc),
                        ]
                    ),
                ),
                w.HTML("<h4>Systems</h4>"),
                row(
                    self.systems,
                    w.VBox(
                        [
                            labelled("System name", self.system_name),
                            row(self.add_system, self.rename_system, self.remove_system),
                        ]
                    ),
                ),
            ]
        )
        self.widget.add_class("qra-study-tab")
        self.refresh()

    def refresh(self, event=None) -> None:
        study = self.state.study
        self.study_id.value, self.name.value, self.description.value = study.id, study.name, study.description
        picked = self.criteria.value
        self.criteria.options = study.qc_names
        if picked in study.qc_names:  # the form shows the criterion as it now is (e.g. after a HEDS import)
            self.criteria.value = picked
            self.on_pick_qc({"new": picked})
        self.systems.options = list(study.systems)
        empty = not (study.quality_criteria or study.systems or study.experiments or study.name)
        self.guide.layout.display = "flex" if empty else "none"

    def _criterion_from_form(self, base: QualityCriterion | None = None) -> QualityCriterion:
        minimum = parse.required_number(self.qc_min.value, "scale minimum")
        qcet = parse.qcet_id(self.qc_qcet.value, qcet_taxonomy())
        fields = {
            "name": self.qc_name.value,
            "scale_min": minimum,
            "qcet_id": qcet,
            "label_level": self.qc_level.value,
            "evaluation_type": self.qc_evaluation.value,
            "scale_max": parse.optional_number(self.qc_max.value, "scale maximum"),
        }
        return (
            replace(base, **fields) if base else QualityCriterion(**fields)
        )  # other fields of an edited criterion are kept

    @guarded(lambda self: self.status)
    def on_guide_example(self, _=None) -> None:
        event = self.state.load(example=self.guide_example.value)
        self.status.ok(event.message)
        self.navigate("Assessment")

    @guarded(lambda self: self.status)
    def on_apply_details(self, _=None) -> None:
        study = self.state.study
        changed_id = self.study_id.value.strip() != study.id
        self.state.set_details(
            name=self.name.value,
            description=self.description.value,
            study_id=self.study_id.value if changed_id else None,
        )
        self.status.ok(f"Study details updated (id {self.state.study.id!r}).")

    @guarded(lambda self: self.status)
    def on_pick_qc(self, change) -> None:
        if not change["new"]:
            return
        qc = self.state.study.quality_criterion(change["new"])
        self.qc_name.value, self.qc_min.value = qc.name, f"{qc.scale_min:g}"
        self.qc_max.value = "" if qc.scale_max is None else f"{qc.scale_max:g}"
        self.qc_qcet.value = qcet_taxonomy()[qc.qcet_id].label if qc.qcet_id in qcet_taxonomy() else ""
        self.qc_level.value = qc.label_level
        self.qc_evaluation.value = qc.evaluation_type

    @guarded(lambda self: self.status)
    def on_add_qc(self, _=None) -> None:
        self.status.ok(self.state.add_criterion(self._criterion_from_form()).message)

    @guarded(lambda self: self.status)
    def on_update_qc(self, _=None) -> None:
        name = selected(self.criteria, "quality criteria")
        event = self.state.update_criterion(name, self._criterion_from_form(self.state.study.quality_criterion(name)))
        self.status.ok(event.message)

    @guarded(lambda self: self.status)
    def on_remove_qc(self, _=None) -> None:
        self.status.ok(self.state.remove_criterion(selected(self.criteria, "quality criteria")).message)

    @guarded(lambda self: self.status)
    def on_add_system(self, _=None) -> None:
        self.status.ok(self.state.add_system(self.system_name.value).message)

    @guarded(lambda self: self.status)
    def on_rename_system(self, _=None) -> None:
        self.status.ok(self.state.rename_system(selected(self.systems, "systems"), self.system_name.value).message)

    @guarded(lambda self: self.status)
    def on_remove_system(self, _=None) -> None:
        self.status.ok(self.state.remove_system(selected(self.systems, "systems")).message)
