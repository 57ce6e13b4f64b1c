"""Study tab: name and description, quality criteria (with a searchable QCET picker), systems."""

from __future__ import annotations

import re

import ipywidgets as w

from ..errors import QRAInputError
from ..properties import qcet_taxonomy
from ..study import QualityCriterion
from .common import Status, guarded, labelled, selected
from .state import AppState


def _qcet_id(picked: str) -> str | None:
    """The QCET id of a picker entry such as ``"Fluency (QOG-w-3)"``; '' gives None."""
    if not picked.strip():
        return None
    match = re.search(r"\(([^()]+)\)\s*$", picked)
    if not match or match.group(1) not in qcet_taxonomy():
        raise QRAInputError(f"QCET criterion: {picked!r} is not in QCET v3.4.1; pick one from the list")
    return match.group(1)


def _optional_number(text: str, field: str) -> float | None:
    if not text.strip():
        return None
    try:
        return float(text)
    except ValueError:
        raise QRAInputError(f"{field}: {text!r} is not a number") from None


class StudyView:
    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.study_id = w.Text(description="Study id", continuous_update=False)
        self.name = w.Text(description="Name", continuous_update=False, layout=w.Layout(width="600px"))
        self.description = w.Textarea(description="Description", continuous_update=False, layout=w.Layout(width="600px", height="70px"))
        self.apply_details = w.Button(description="Apply name and description", icon="check")

        self.criteria = w.Select(description="Criteria", rows=5)
        self.qc_name = w.Text(placeholder="e.g. Fluency")
        self.qc_min = w.Text(value="1", layout=w.Layout(width="80px"))
        self.qc_max = w.Text(value="5", layout=w.Layout(width="80px"))
        self.qc_qcet = w.Combobox(placeholder="type to search QCET", options=[n.label for n in qcet_taxonomy().values()],
                                  ensure_option=False, layout=w.Layout(width="420px"))
        self.qc_level = w.Dropdown(options=["nominal", "ordinal", "interval", "ratio"], value="ordinal")
        self.add_qc = w.Button(description="Add criterion", icon="plus")
        self.update_qc = w.Button(description="Update selected", icon="pencil")
        self.remove_qc = w.Button(description="Remove selected", icon="trash")

        self.systems = w.Select(description="Systems", rows=6)
        self.system_name = w.Text(placeholder="system name")
        self.add_system = w.Button(description="Add system", icon="plus")
        self.rename_system = w.Button(description="Rename selected", icon="pencil")
        self.remove_system = w.Button(description="Remove selected", icon="trash")

        for widget, css in ((self.name, "qra-study-name"), (self.study_id, "qra-study-id"), (self.apply_details, "qra-apply-details"), (self.add_system, "qra-add-system"), (self.system_name, "qra-system-name")):
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

        self.widget = w.VBox([
            w.HTML("<h4>Study</h4>"), self.study_id, self.name, self.description, self.apply_details,
            w.HTML("<h4>Quality criteria</h4><p>Scores below the scale minimum are refused; the minimum is "
                   "subtracted before CV* (QRA 2022 §3.1). Pick the standardised QCET criterion by typing part of its name.</p>"),
            w.HBox([self.criteria, w.VBox([labelled("Name", self.qc_name), labelled("Scale minimum", self.qc_min),
                                           labelled("Scale maximum (optional)", self.qc_max), labelled("QCET criterion", self.qc_qcet),
                                           labelled("Label level (Type III)", self.qc_level),
                                           w.HBox([self.add_qc, self.update_qc, self.remove_qc])])]),
            w.HTML("<h4>Systems</h4>"),
            w.HBox([self.systems, w.VBox([self.system_name, w.HBox([self.add_system, self.rename_system, self.remove_system])])]),
        ])
        self.refresh()

    def refresh(self) -> None:
        study = self.state.study
        self.study_id.value, self.name.value, self.description.value = study.id, study.name, study.description
        self.criteria.options = study.qc_names
        self.systems.options = list(study.systems)

    def _criterion_from_form(self) -> QualityCriterion:
        minimum = _optional_number(self.qc_min.value, "scale minimum")
        return QualityCriterion(self.qc_name.value, minimum if minimum is not None else 0.0,
                                _optional_number(self.qc_max.value, "scale maximum"), _qcet_id(self.qc_qcet.value), self.qc_level.value)

    @guarded(lambda self: self.status)
    def on_apply_details(self, _=None) -> None:
        study = self.state.study
        new_id = self.study_id.value.strip()
        if not new_id:
            raise QRAInputError("study id: must be a non-empty text")
        if new_id != study.id:
            self.state.revision = None  # a new id is a new study in the library
        study.id, study.name, study.description = new_id, self.name.value, self.description.value
        self.state.structure_changed()
        self.status.ok("Study details updated.")

    @guarded(lambda self: self.status)
    def on_pick_qc(self, change) -> None:
        if not change["new"]:
            return
        qc = self.state.study.quality_criterion(change["new"])
        self.qc_name.value, self.qc_min.value = qc.name, f"{qc.scale_min:g}"
        self.qc_max.value = "" if qc.scale_max is None else f"{qc.scale_max:g}"
        self.qc_qcet.value = qcet_taxonomy()[qc.qcet_id].label if qc.qcet_id in qcet_taxonomy() else ""
        self.qc_level.value = qc.label_level

    @guarded(lambda self: self.status)
    def on_add_qc(self, _=None) -> None:
        self.state.study.add_quality_criterion(self._criterion_from_form())
        self.state.structure_changed()
        self.status.ok(f"Added quality criterion {self.qc_name.value!r}.")

    @guarded(lambda self: self.status)
    def on_update_qc(self, _=None) -> None:
        self.state.study.replace_quality_criterion(selected(self.criteria, "quality criteria"), self._criterion_from_form())
        self.state.structure_changed()
        self.status.ok("Quality criterion updated.")

    @guarded(lambda self: self.status)
    def on_remove_qc(self, _=None) -> None:
        name = selected(self.criteria, "quality criteria")
        self.state.study.remove_quality_criterion(name)
        self.state.structure_changed()
        self.status.ok(f"Removed {name!r} and its scores.")

    @guarded(lambda self: self.status)
    def on_add_system(self, _=None) -> None:
        self.state.study.add_system(self.system_name.value)
        self.state.structure_changed()
        self.status.ok(f"Added system {self.system_name.value.strip()!r}.")

    @guarded(lambda self: self.status)
    def on_rename_system(self, _=None) -> None:
        self.state.study.rename_system(selected(self.systems, "systems"), self.system_name.value)
        self.state.structure_changed()
        self.status.ok("System renamed.")

    @guarded(lambda self: self.status)
    def on_remove_system(self, _=None) -> None:
        name = selected(self.systems, "systems")
        self.state.study.remove_system(name)
        self.state.structure_changed()
        self.status.ok(f"Removed system {name!r} and its results.")
