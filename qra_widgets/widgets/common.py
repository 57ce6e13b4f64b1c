"""Small pieces every view uses: the guard that turns errors into messages, the status line,
download links.  No statistics here."""

from __future__ import annotations

import base64
import functools
import html
import logging

import ipywidgets as w

from ..errors import QRAInputError

log = logging.getLogger("qra_widgets")


class Status(w.HTML):
    """One line of feedback: what happened, or what went wrong (never a traceback)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_class("qra-status")

    def ok(self, text: str) -> None:
        self.value = f"<span class='qra-ok' style='color:#155724'>{html.escape(text)}</span>"

    def error(self, text: str) -> None:
        self.value = f"<span class='qra-error' style='color:#721c24'>⚠ {html.escape(text)}</span>"

    def clear(self) -> None:
        self.value = ""


def guarded(status_of):
    """Decorate a callback so that no exception escapes it.

    A :class:`QRAInputError` is shown as it is (it names the field and the problem); any
    other exception is logged with its traceback on the server and shown as one line.
    ``status_of(self)`` returns the :class:`Status` to write to.
    """
    def decorate(callback):
        @functools.wraps(callback)
        def wrapper(self, *args, **kwargs):
            status = status_of(self)
            try:
                return callback(self, *args, **kwargs)
            except QRAInputError as error:
                status.error(str(error))
            except Exception as error:
                log.exception("callback %s failed", callback.__name__)
                status.error(f"Something went wrong ({type(error).__name__}). The study is unchanged; "
                             "the details are in the server log.")
        return wrapper
    return decorate


def download_link(text: str | bytes, file_name: str, mime: str, label: str) -> str:
    """An HTML anchor that downloads ``text`` as ``file_name`` (a data: URI; nothing touches the server's disk)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    payload = base64.b64encode(data).decode("ascii")
    return (f"<a class='qra-download' download='{html.escape(file_name, quote=True)}' "
            f"href='data:{mime};base64,{payload}'>{html.escape(label)}</a>")


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


def labelled(label: str, widget: w.Widget, width: str = "160px") -> w.HBox:
    return w.HBox([w.Label(label, layout=w.Layout(width=width)), widget])
