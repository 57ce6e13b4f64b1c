"""The writers an :class:`~qra_widgets.assess.Assessment` delegates to, found by name.

The engine sits below the writers in the house plan, so it does not import them:
:mod:`qra_widgets.report.formats` registers its functions here when it is imported (the package
root imports it), and ``Assessment.to_csv`` and the other ``to_*`` methods look their writer up by
name, as pandas' accessors are registered by the module that defines them.  This module imports
nothing of the package.

>>> def shout(assessment):
...     return "WRITTEN"
>>> register(shout=shout)
>>> writer("shout")(None)
'WRITTEN'
>>> del _WRITERS["shout"]
>>> writer("shout")
Traceback (most recent call last):
...
LookupError: no writer 'shout' is registered: import qra_widgets.report.formats, which registers the writers of an Assessment
"""

from __future__ import annotations

from collections.abc import Callable

_WRITERS: dict[str, Callable] = {}


def register(**writers: Callable) -> None:
    """Make each ``name=function`` the writer ``Assessment`` calls by that name (a later
    registration of a name replaces the earlier one)."""
    _WRITERS.update(writers)


def writer(name: str) -> Callable:
    """The function registered as ``name``; a :class:`LookupError` naming it when none is."""
    try:
        return _WRITERS[name]
    except KeyError:
        raise LookupError(
            f"no writer {name!r} is registered: import qra_widgets.report.formats, "
            "which registers the writers of an Assessment"
        ) from None
