"""Progress bars (qra_widgets/progress.py): on a terminal's stderr after 2 s, never in a pipe or a
notebook, and never for a quick step."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pty = pytest.importorskip("pty", reason="pseudo-terminals are POSIX only")


def _on_a_terminal(code: str) -> bytes:
    """What a child process writes to a 100-column terminal."""
    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    child = subprocess.Popen([sys.executable, "-c", code], stdout=slave, stderr=slave, env=os.environ)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    child.wait()
    os.close(master)
    return out


SLOW = (
    "import time\nfrom qra_widgets.progress import bar\nshown = bar(3, 'bootstrap', 'replicate')\n"
    "shown.update(1); time.sleep(2.3); shown.update(1); shown.close()\n"
)


def test_a_step_over_two_seconds_shows_its_bar_on_a_terminal():
    out = _on_a_terminal(SLOW).decode(errors="replace")
    assert "bootstrap:  67%" in out and "2/3" in out


def test_a_quick_step_shows_nothing_even_on_a_terminal():
    quick = "from qra_widgets.progress import bar\nshown = bar(3, 'bootstrap')\nshown.update(3); shown.close()\n"
    assert _on_a_terminal(quick) == b""


def test_without_a_terminal_nothing_is_written():
    done = subprocess.run([sys.executable, "-c", SLOW], capture_output=True, text=True, env=os.environ, check=True)
    assert done.stderr == "" and done.stdout == ""
