"""Progress bars for the steps that can take more than a few seconds (the bootstrap, the planner,
the static site, the atlas build): tqdm on stderr, shown only on a terminal (off in a notebook,
a pipe or a log) and only once a step has run for 2 s, so quick calls print nothing."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable

DELAY = 2.0  # seconds before a bar appears


def bar(total: int | None = None, desc: str = "", unit: str = "it", iterable: Iterable | None = None):
    """A tqdm bar on stderr that stays off when stderr is not a terminal (tqdm's ``disable=None``).

    >>> shown = bar(3, "steps")  # the doctests run without a terminal: the bar is off
    >>> shown.disable
    True
    >>> shown.close()
    """
    from tqdm import tqdm

    return tqdm(
        iterable,
        total=total,
        desc=desc,
        unit=unit,
        file=sys.stderr,
        disable=None,
        delay=DELAY,
        leave=False,
        dynamic_ncols=True,
    )


def counter(shown) -> Callable[[int], None]:
    """``progress(done)`` for a callback that reports how many are done: moves ``shown`` (a bar) there."""
    return lambda done: shown.update(done - shown.n)
