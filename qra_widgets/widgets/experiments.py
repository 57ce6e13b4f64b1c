"""Experiments tab: the original and its repeats, their property form (generated from the
catalogue), HEDS import and conditions of measurement."""

from __future__ import annotations

import ipywidgets as w

from ..errors import QRAInputError
from ..io import parse
from ..io.reading import check_size
from ..properties import PROPERTIES, Property
from ..report.html import escape
from ..study import Experiment
from .common import Status, button, close_all, guarded, labelled, selected
from .state import AppState

NOT_ANSWERED = "(not answered)"
MAX_UPLOAD_BYTES = 5 * 1024 * 1024


def uploaded(upload: w.FileUpload) -> tuple[str, bytes]:
    """Name and bytes of the file in a FileUpload, refused before parsing if too large."""
    if not upload.value:
        raise QRAInputError("upload: choose a file first")
    item = upload.value[0]
    data = bytes(item["content"])
    check_size(len(data), item["name"])
    if len(data) > MAX_UPLOAD_BYTES:
        raise QRAInputError(
            f"{item['name']}: is {len(data) / 2**20:.1f} MiB; uploads are limited to {MAX_UPLOAD_BYTES // 2**20} MiB"
        )
    return item["name"], data


class PropertyInput:
    """The widget(s) for one property answer, and the conversion to and from its stored value."""

    def __init__(self, prop: Property, criterion: str | None = None):
        self.prop, self.criterion = prop, criterion
        self.other = w.Text(placeholder="describe 'other'", layout=w.Layout(width="14em"))
        options = list(prop.options)
        if prop.kind == "single" and len(options) > 40:
            self.main = w.Combobox(
                options=options,
                ensure_option=True,
                placeholder="type to search",
                layout=w.Layout(width="26em", max_width="100%"),
            )
        elif prop.kind == "single":
            self.main = w.Dropdown(options=[NOT_ANSWERED, *options], layout=w.Layout(width="26em", max_width="100%"))
        elif prop.kind == "multiple":
            self.main = w.SelectMultiple(
                options=options, rows=min(6, len(options)), layout=w.Layout(width="26em", max_width="100%")
            )
        elif prop.kind == "integer":
            self.main = w.Text(
                placeholder="a whole number (or why it varies)", layout=w.Layout(width="26em", max_width="100%")
            )
        else:
            self.main = w.Textarea(layout=w.Layout(width="26em", max_width="100%", height="50px"))
        title = f"{prop.id} {prop.name}" + (f" [{criterion}]" if criterion else "")
        parts = [self.main, self.other] if prop.has_other else [self.main]
        self.widget = w.HBox(
            [
                w.HTML(
                    f"<span title='{escape(prop.question)}'>{escape(title)}</span>",
                    layout=w.Layout(width="20em", min_width="12em"),
                ),
                *parts,
            ],
            layout=w.Layout(flex_flow="row wrap", align_items="center"),
        )
        self.widget.add_class("qra-property")

    def close(self) -> None:
        close_all(self.widget)
        close_all(self.other)  # not on the page when the property has no "other" option

    def show(self, value) -> None:
        kind, self.other.value = self.prop.kind, ""
        if kind == "multiple":
            chosen = value or []
            others = [v for v in chosen if v.startswith("Other: ")]
            self.other.value = others[0][7:] if others else ""
            self.main.value = tuple(v if v in self.prop.options else self._other_option() for v in chosen)
        elif kind == "single":
            if isinstance(value, str) and value.startswith("Other: "):
                self.other.value, value = value[7:], self._other_option()
            self.main.value = (
                value if value is not None else ("" if isinstance(self.main, w.Combobox) else NOT_ANSWERED)
            )
        else:
            self.main.value = "" if value is None else str(value)

    def _other_option(self) -> str:
        return next(o for o in self.prop.options if o.startswith("Other ("))

    def read(self):
        """The stored value, or None if not answered."""
        kind, value, other = self.prop.kind, self.main.value, self.other.value.strip()
        if kind == "multiple":
            chosen = [f"Other: {other}" if (o.startswith("Other (") and other) else o for o in value]
            return chosen or None
        if kind == "single":
            if value in (NOT_ANSWERED, ""):
                return None
            return f"Other: {other}" if value.startswith("Other (") and other else value
        text = value.strip()
        if not text:
            return None
        return int(text) if kind == "integer" and text.isdigit() else text


class ExperimentsView:
    def __init__(self, state: AppState, status: Status):
        self.state, self.status = state, status
        self.experiments = w.Select(rows=6, layout=w.Layout(width="18em"))
        self.experiments.add_class("qra-experiment-list")
        self.exp_id = w.Text(placeholder="short id, e.g. repro-2024")
        self.exp_label = w.Text(placeholder="label shown in tables")
        self.exp_team = w.Text()
        self.exp_date = w.Text(placeholder="e.g. 2024")
        self.exp_role = w.Dropdown(options=["original", "repeat"], value="repeat")
        self.add = button("Add as a new experiment", "qra-add-experiment")
        self.update = button("Update the selected experiment", "qra-update-experiment")
        self.remove = button("Remove the selected experiment", "qra-remove-experiment")
        self.save_properties = button("Save properties and conditions", "qra-save-properties", primary=True)
        self.heds_upload = w.FileUpload(
            icon="", accept=".json", multiple=False, description="HEDS JSON", layout=w.Layout(width="auto")
        )
        self.heds_import = button("Import into the selected experiment", "qra-heds-import")
        self.heds_report = w.HTML()
        self.conditions = w.Textarea(
            placeholder="one per line: object: Code by = authors\nmethod: Implem. by = sacreBLEU\nprocedure: Test set = WMT14",
            layout=w.Layout(width="100%", max_width="48em", height="90px"),
        )
        self.property_box = w.VBox()
        self._inputs: dict[tuple[str, str | None], PropertyInput] = {}
        self._form_criteria: list[str] | None = None  # the criteria the property form was built for
        self.visible = False  # set by the Dashboard while this tab is shown: then the form is kept current
        for widget, css in ((self.exp_id, "qra-exp-id"), (self.exp_label, "qra-exp-label")):
            widget.add_class(css)
        self.heds_upload.add_class("qra-heds-upload")
        self.add.on_click(self.on_add)
        self.update.on_click(self.on_update)
        self.remove.on_click(self.on_remove)
        self.save_properties.on_click(self.on_save_properties)
        self.heds_import.on_click(self.on_heds_import)
        self.experiments.observe(self.on_pick, "value")
        state.on("study", self.refresh)
        form = w.VBox(
            [
                labelled("Id", self.exp_id),
                labelled("Label", self.exp_label),
                labelled("Team", self.exp_team),
                labelled("Date", self.exp_date),
                labelled("Role", self.exp_role),
                w.HBox([self.add, self.update, self.remove], layout=w.Layout(flex_flow="row wrap")),
            ]
        )
        self.widget = w.VBox(
            [
                w.HTML(
                    "<h4>Comparable experiments</h4><p>The original experiment and its repeats. Select one to edit it; "
                    "changing its id keeps its scores.</p>"
                ),
                w.HBox([self.experiments, form], layout=w.Layout(flex_flow="row wrap", grid_gap="1em")),
                w.HTML(
                    "<h4>Import a HEDS datasheet</h4><p>A datasheet saved by the HEDS 2 or HEDS 3.0 form (JSON, at most 5 MiB) fills the matching "
                    "properties of the selected experiment; criteria are matched by name (or to the only criterion).</p>"
                ),
                w.HBox([self.heds_upload, self.heds_import], layout=w.Layout(flex_flow="row wrap")),
                self.heds_report,
                w.HTML("<h4>Conditions of measurement</h4>"),
                self.conditions,
                w.HTML("<h4>Experiment properties (QRA++ Table 1; hover a name for its question)</h4>"),
                self.property_box,
                self.save_properties,
            ]
        )
        self.widget.add_class("qra-experiments-tab")
        self.refresh()

    # ------------------------------------------------------------------ display

    def refresh(self, event=None) -> None:
        study = self.state.study
        current = self.experiments.value
        self.experiments.options = [(f"{e.display_name} ({e.role})", e.id) for e in study.experiments]
        if current in study.experiment_ids:
            self.experiments.value = current
        elif study.experiments:
            self.experiments.value = study.experiments[0].id
        self.on_pick({"new": self.experiments.value})
        if self.visible:
            self.ensure_form()

    @property
    def inputs(self) -> dict[tuple[str, str | None], PropertyInput]:
        """The property form's inputs by (property id, criterion); built on first use and
        rebuilt only when the criteria change (it is ~100 widgets: opening a study does not wait for it)."""
        if self._form_criteria != self.state.study.qc_names:
            self._build_property_form()
            self._show_properties()
        return self._inputs

    def ensure_form(self) -> None:
        """Build the property form now (the Dashboard calls this when the tab is shown)."""
        _ = self.inputs

    def _build_property_form(self) -> None:
        qcs = self.state.study.qc_names
        old, old_inputs = list(self.property_box.children), list(self._inputs.values())
        self._inputs = {}
        for prop in PROPERTIES.values():
            for criterion in qcs if prop.per_criterion else [None]:
                self._inputs[(prop.id, criterion)] = PropertyInput(prop, criterion)
        general = [i.widget for (pid, _), i in self._inputs.items() if not PROPERTIES[pid].human_only]
        human = [i.widget for (pid, _), i in self._inputs.items() if PROPERTIES[pid].human_only]
        self.property_box.children = [
            w.HTML("<b>All evaluations</b>"),
            *general,
            w.HTML("<b>Human evaluation only</b>"),
            *human,
        ]
        for field in old_inputs:
            field.close()
        for child in old:
            close_all(child)
        self._form_criteria = list(qcs)

    @guarded(lambda self: self.status)
    def on_pick(self, change) -> None:
        if not change["new"]:
            for field in (self.exp_id, self.exp_label, self.exp_team, self.exp_date):
                field.value = ""
            return
        experiment = self.state.study.experiment(change["new"])
        self.exp_id.value, self.exp_label.value, self.exp_team.value = experiment.id, experiment.label, experiment.team
        self.exp_date.value, self.exp_role.value = experiment.date, experiment.role
        self.conditions.value = parse.conditions_text(experiment.conditions)
        self._show_properties()

    def _show_properties(self) -> None:
        """Show the selected experiment's answers in the property form, if it is built and current."""
        if (
            self._form_criteria != self.state.study.qc_names
            or self.experiments.value not in self.state.study.experiment_ids
        ):
            return
        experiment = self.state.study.experiment(self.experiments.value)
        for (pid, criterion), field in self._inputs.items():
            value = experiment.properties.get(pid)
            field.show(
                value.get(criterion) if (criterion and isinstance(value, dict)) else (None if criterion else value)
            )

    # ------------------------------------------------------------------ edits

    def _selected(self) -> Experiment:
        return self.state.study.experiment(selected(self.experiments, "experiments"))

    @guarded(lambda self: self.status)
    def on_add(self, _=None) -> None:
        experiment = Experiment(
            self.exp_id.value.strip(),
            label=self.exp_label.value,
            team=self.exp_team.value,
            date=self.exp_date.value,
            role=self.exp_role.value,
        )
        event = self.state.add_experiment(experiment)
        self.experiments.value = experiment.id
        self.status.ok(event.message)

    @guarded(lambda self: self.status)
    def on_update(self, _=None) -> None:
        old, new_id = self._selected(), self.exp_id.value.strip()
        event = self.state.update_experiment(
            old.id,
            id=new_id,
            label=self.exp_label.value,
            team=self.exp_team.value,
            date=self.exp_date.value,
            role=self.exp_role.value,
        )
        self.experiments.value = new_id
        self.status.ok(event.message)

    @guarded(lambda self: self.status)
    def on_remove(self, _=None) -> None:
        event = self.state.remove_experiment(self._selected().id)
        self.status.ok(event.message)

    @guarded(lambda self: self.status)
    def on_save_properties(self, _=None) -> None:
        experiment = self._selected()
        answers: dict = {}
        for (pid, criterion), field in self.inputs.items():
            value = field.read()
            if value is None:
                continue
            if criterion:
                answers.setdefault(pid, {})[criterion] = value
            else:
                answers[pid] = value
        event = self.state.update_experiment(
            experiment.id, properties=answers, conditions=parse.conditions(self.conditions.value)
        )
        self.status.ok(f"Saved {len(answers)} properties of {experiment.display_name!r}. " + event.message)

    @guarded(lambda self: self.status)
    def on_heds_import(self, _=None) -> None:
        experiment = self._selected()
        name, data = uploaded(self.heds_upload)
        event, result, unmatched = self.state.import_heds(experiment.id, data, name)
        self.heds_upload.value = ()
        notes = "".join(f"<li>{escape(n)}</li>" for n in result.notes)
        skipped = (
            f"<li>criteria not in this study (not imported): {escape(', '.join(unmatched))}</li>" if unmatched else ""
        )
        self.heds_report.value = (
            f"<p>Imported {len(result.properties)} properties from {escape(name)}. "
            f"{len(result.unmapped)} answered HEDS fields are not QRA++ properties: "
            f"<details><summary>show</summary>{escape(', '.join(result.unmapped))}</details></p>"
            f"<ul>{notes}{skipped}</ul>"
        )
        self.status.ok(event.message)
