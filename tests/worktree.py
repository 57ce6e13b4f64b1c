"""The git work tree before and after a test run: tests write only under pytest's tmp paths.

``tests/conftest.py`` takes :func:`tree_state` when the session starts and again when it
finishes, and fails the run if :func:`changed_paths` names any path.  The state is what
``git status`` lists (modified, deleted and untracked files; ignored files such as caches do not
count), each with its size and modification time, so a run that rewrites a file the developer
had already changed is caught too, while the developer's own earlier changes are not.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def tree_state(root: Path) -> dict[str, tuple] | None:
    """``{path: (git status code, size, mtime in ns)}`` of every path ``git status`` lists in
    the work tree whose top folder is ``root``; ``None`` when ``root`` is not the top of a git
    work tree (an unpacked sdist, a copy) or git is missing, so nothing can be compared."""
    root = Path(root).resolve()
    try:
        top = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-toplevel"],
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != root:
            return None
        listing = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules"],
            capture_output=True,
            timeout=300,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    state: dict[str, tuple] = {}
    entries = iter(listing.decode("utf-8", "surrogateescape").split("\0"))
    for entry in entries:
        if not entry:
            continue
        code, path = entry[:2], entry[3:]
        if "R" in code or "C" in code:  # a rename or copy: the source path follows
            next(entries, None)
        try:
            stat = os.lstat(root / path)
            state[path] = (code, stat.st_size, stat.st_mtime_ns)
        except OSError:
            state[path] = (code, None, None)
    return state


def changed_paths(before: dict[str, tuple], after: dict[str, tuple]) -> list[str]:
    """The paths whose ``git status`` entry, size or modification time differ between two
    states of :func:`tree_state`, sorted."""
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))
