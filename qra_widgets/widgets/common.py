"""Small pieces every view uses: the guard that turns errors into messages, the status line,
download links.  No statistics here."""

from __future__ import annotations

import base64
import functools
import logging

import ipywidgets as w

from ..errors import QRAInputError
from ..report.html import escape

log = logging.getLogger("qra_widgets")


class Status(w.HTML):
    """One line of feedback: what happened, or what went wrong (never a traceback)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_class("qra-status")
        self.add_class("qw-status")  # the stable class the browser tests find it by

    def ok(self, text: str) -> None:
        self.value = f"<span class='qra-ok'>{escape(text)}</span>"

    def error(self, text: str) -> None:
        self.value = f"<span class='qra-error'>⚠ {escape(text)}</span>"

    def clear(self) -> None:
        self.value = ""


def run_reported(status: Status, action, *args, **kwargs):
    """Run ``action``; show a :class:`QRAInputError` as it is (it names the field and the
    problem), and any other exception as one line (its traceback goes to the server log).
    Shows the event's message if the action returns an event that has one."""
    try:
        result = action(*args, **kwargs)
    except QRAInputError as error:
        status.error(str(error))
        return None
    except Exception as error:
        log.exception("callback %s failed", getattr(action, "__name__", action))
        status.error(
            f"Something went wrong ({type(error).__name__}). The study is unchanged; the details are in the server log."
        )
        return None
    return result


def guarded(status_of):
    """Decorate a callback so that no exception escapes it (see :func:`run_reported`).
    ``status_of(self)`` returns the :class:`Status` to write to."""

    def decorate(callback):
        @functools.wraps(callback)
        def wrapper(self, *args, **kwargs):
            return run_reported(status_of(self), callback, self, *args, **kwargs)

        return wrapper

    return decorate


def download_link(text: str | bytes, file_name: str, mime: str, label: str) -> str:
    """An HTML anchor that downloads ``text`` as ``file_name`` (a data: URI; nothing touches the server's disk)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    payload = base64.b64encode(data).decode("ascii")
    return (
        f"<a class='qra-download' download='{escape(file_name)}' "
        f"href='data:{mime};base64,{payload}'>{escape(label)}</a>"
    )


def safe_file_stem(name: str) -> str:
    """A download file name from a user's study name: no path separators, nothing exotic."""
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name).strip("_")
    return stem[:60] or "study"


def selected(choice: w.Widget, what: str):
    """The value chosen in a Select/Dropdown, or a QRAInputError saying what to choose."""
    if choice.value in (None, ""):
        raise QRAInputError(f"{what}: choose one first")
    return choice.value


def set_options(choice: w.Dropdown, options: list) -> None:
    """Replace a dropdown's options, keeping its value if still offered, else the first option."""
    current = choice.value
    choice.options = options
    values = [o[1] if isinstance(o, tuple) else o for o in options]
    choice.value = current if current in values else (values[0] if values else None)


def labelled(label: str, widget: w.Widget, width: str = "12em") -> w.HBox:
    """A form row: the label never truncated (it wraps), the field after it."""
    text = w.HTML(f"<span class='qra-label'>{escape(label)}</span>", layout=w.Layout(width=width, min_width=width))
    row = w.HBox([text, widget], layout=w.Layout(flex_flow="row wrap", align_items="center"))
    row.add_class("qra-row")
    return row


def button(text: str, css: str = "", primary: bool = False, tooltip: str = "") -> w.Button:
    """A button sized to its label (no icon: nothing is fetched from a CDN)."""
    widget = w.Button(
        description=text,
        tooltip=tooltip or text,
        button_style="primary" if primary else "",
        layout=w.Layout(width="auto", min_width="max-content", align_self="flex-start"),
    )
    widget.add_class("qra-button")
    if css:
        widget.add_class(css)
    return widget


def close_all(widget: w.Widget) -> None:
    """Close a widget that is being replaced, and everything inside it (so nothing piles up in the kernel)."""
    for child in getattr(widget, "children", ()):
        close_all(child)
    for part in ("layout", "style"):  # each widget's Layout and Style are widgets too
        owned = getattr(widget, part, None)
        if isinstance(owned, w.Widget):
            owned.close()
    widget.close()


def replace_children(box: w.Box, children) -> None:
    """Swap a box's children, closing those that are not kept."""
    children = tuple(children)
    keep = {id(c) for c in children}
    old = [c for c in box.children if id(c) not in keep]
    box.children = children
    for child in old:
        close_all(child)


class Confirm:
    """ "You have unsaved changes: discard them and ...?" with two buttons, shown only when asked.

    ``ask(question, action)`` shows it; the first button runs ``action`` (through ``runner``,
    which turns errors into status messages), the second hides it.
    """

    def __init__(self, runner):
        self.runner = runner
        self.question = w.HTML()
        self.yes = button("Discard changes and continue", "qra-confirm-yes")
        self.no = button("Cancel", "qra-confirm-no")
        self.widget = w.HBox([self.question, self.yes, self.no], layout=w.Layout(display="none", flex_flow="row wrap"))
        self.widget.add_class("qra-confirm")
        self._action = None
        self.yes.on_click(self._on_yes)
        self.no.on_click(lambda _: self.hide())

    def ask(self, question: str, action) -> None:
        self.question.value = f"<span class='qra-warning'>{escape(question)}</span>"
        self._action = action
        self.widget.layout.display = "flex"

    def hide(self) -> None:
        self._action, self.widget.layout.display = None, "none"

    def _on_yes(self, _=None) -> None:
        action, self._action = self._action, None
        self.hide()
        if action is not None:
            self.runner(action)


def theme_css() -> str:
    """The app's stylesheet, shipped in the package (``qra_widgets/static/theme.css``)."""
    from importlib import resources

    return resources.files("qra_widgets").joinpath("static/theme.css").read_text(encoding="utf-8")


def guard_unsaved(state, confirm: Confirm, what: str, action) -> None:
    """Run ``action`` now if nothing is unsaved, else ask first (the study being edited would be replaced)."""
    if state.dirty:
        confirm.ask(f"The study being edited has unsaved changes. Discard them and {what}?", action)
    else:
        action()
