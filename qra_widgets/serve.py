"""Running the Voila app from Python: for ``qra-widgets app``, the browser tests and the
benchmarks, so all three start it the same way."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags Chromium keeps dialling out on a closed network.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WEBSOCKET_MAX_MESSAGE_BYTES = 64 * 2**20


def voila_command(port: int, no_browser: bool, host: str = "127.0.0.1", pool_size: int = 1,
                  cull_idle_timeout: int = 600, preheat: bool = True, cull_interval: int = 60) -> list[str]:
    """The Voila command ``qra-widgets app`` runs.

    Preheated kernels make the first render fast; idle kernels are culled because a closed
    tab's kernel is otherwise never shut down.  The websocket limit is well above the app's
    5 MiB upload limit, so an oversized file reaches the server and is refused with a
    message instead of silently closing the connection (up to ~47 MiB, base64 included).
    """
    from importlib import resources

    notebook = str(resources.files("qra_widgets").joinpath("app.ipynb"))
    return [
        sys.executable, "-m", "voila", notebook, f"--port={port}", f"--Voila.ip={host}",
        *(["--no-browser"] if no_browser else []),
        *(["--preheat_kernel=True", f"--pool_size={pool_size}"] if preheat else []),
        f"--MappingKernelManager.cull_idle_timeout={cull_idle_timeout}", f"--MappingKernelManager.cull_interval={cull_interval}",
        f"--Voila.tornado_settings={{'websocket_max_message_size': {WEBSOCKET_MAX_MESSAGE_BYTES}}}",
        "--VoilaConfiguration.show_tracebacks=False", "--VoilaConfiguration.strip_sources=True",
    ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_serving(url: str, process: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"voila exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(0.25)
    raise TimeoutError(f"voila did not answer at {url} within {timeout} s")


@contextmanager
def running_app(folder: Path, wait: bool = True, **options) -> Iterator[tuple[str, subprocess.Popen]]:
    """Serve the app on a free loopback port with its library in ``folder``; always stop it."""
    port = free_port()
    environment = dict(os.environ, QRA_WIDGETS_DB=str(Path(folder) / "library.sqlite3"))
    with open(Path(folder) / "voila.log", "w") as log:
        process = subprocess.Popen(voila_command(port, no_browser=True, **options), env=environment,
                                   stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}/"
            if wait:
                wait_until_serving(url, process)
            yield url, process
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


@contextmanager
def chromium(viewport: dict | None = None):
    """A headless Debian Chromium driven by Playwright (never Playwright's own browser download)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(tempfile.mkdtemp(), executable_path=CHROMIUM, headless=True,
                                                       viewport=viewport or {"width": 1400, "height": 1000}, args=CHROMIUM_ARGS)
        try:
            yield context
        finally:
            context.close()
