"""Test and benchmark helpers: a live ``qra-widgets app`` server and headless Debian Chromium.

These used to live in ``qra_widgets.serve``; they are for tests and benchmarks only, so they
stay out of the runtime package.  Import them as ``from tests.browser import ...`` (the
repository root on ``sys.path``: ``python -m pytest`` and ``PYTHONPATH=$PWD`` both give it).
Recipe: shared/recipes/voila-browser-testing.md.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from qra_widgets.serve import voila_command

CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags Chromium keeps dialling out on a closed network.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_serving(url: str, process: subprocess.Popen, timeout: float = 120) -> None:
    """Wait until the server answers HTTP.  It is asked for a page that does not exist: asking
    for the app would take a pre-heated kernel, which then idles until it is culled."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url + "voila/static/no-such-file", timeout=5):
                return
        except urllib.error.HTTPError:
            return  # 404: the server answers
        except OSError:
            time.sleep(0.25)
    raise TimeoutError(f"the server did not answer at {url} within {timeout} s")


def stop(process: subprocess.Popen, timeout: float = 20) -> None:
    """SIGTERM, then SIGKILL if it has not exited within ``timeout`` seconds."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@contextmanager
def running_app(
    folder: Path, wait: bool = True, command: list[str] | None = None, **options
) -> Iterator[tuple[str, subprocess.Popen]]:
    """Serve the app on a free loopback port with its library in ``folder``; always stop it.

    ``options`` go to :func:`qra_widgets.serve.voila_command`; ``command(port)`` replaces it
    (e.g. the ``qra-widgets app`` command line).  Server output goes to ``folder/voila.log``.
    """
    port = free_port()
    environment = dict(os.environ, QRA_WIDGETS_DB=str(Path(folder) / "library.sqlite3"))
    argv = command(port) if command else voila_command(port, no_browser=True, **options)
    with open(Path(folder) / "voila.log", "w") as log:
        process = subprocess.Popen(argv, env=environment, stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}/"
            if wait:
                wait_until_serving(url, process)
            yield url, process
        finally:
            stop(process)


def cli_app_command(port: int, *extra: str) -> list[str]:
    """``qra-widgets app`` as a user runs it, on ``port``."""
    return [sys.executable, "-m", "qra_widgets.cli", "app", "--no-browser", f"--port={port}", *extra]


@contextmanager
def chromium(viewport: dict | None = None):
    """A headless Debian Chromium driven by Playwright (never Playwright's own browser download)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            tempfile.mkdtemp(),
            executable_path=CHROMIUM,
            headless=True,
            viewport=viewport or {"width": 1400, "height": 1000},
            args=CHROMIUM_ARGS,
        )
        try:
            yield context
        finally:
            context.close()


@contextmanager
def chromium_browser():
    """A headless Debian Chromium; ``browser.new_context()`` gives each simulated visitor its own
    cookies and connection pool (one profile allows only 6 connections per server)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def new_visitors(browser, tabs: int, init_script: str | None = None) -> list:
    """``tabs`` blank pages, each a separate visitor (its own context: cookies, cache, connections).

    ``init_script`` runs in each page before the app's own scripts.
    """
    pages = []
    for _ in range(tabs):
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.set_default_timeout(300_000)
        if init_script:
            page.add_init_script(init_script)
        pages.append(page)
    return pages


def navigate_all(pages: list, url: str) -> None:
    """Start every page's navigation to ``url`` at (nearly) the same moment.

    ``page.goto`` would block until the server sends its first byte, which Voila does only once
    the page's kernel has rendered, so the navigation is started from the page instead.
    """
    for page in pages:
        page.evaluate("url => { window.location.href = url; }", url)


def open_at_once(browser, url: str, tabs: int, init_script: str | None = None) -> list:
    """Open ``tabs`` pages of ``url`` at the same moment, each as a separate visitor."""
    pages = new_visitors(browser, tabs, init_script)
    navigate_all(pages, url)
    return pages


def close_tab(page) -> None:
    """Close a page as a person closes a tab (``beforeunload`` runs), then its context."""
    page.close(run_before_unload=True)
    page.context.close()


def kernels(server) -> list:
    """Live kernel processes under a Voila server (a ``psutil.Process``); a shut-down kernel
    may linger as a zombie and is not counted."""
    import psutil

    found = []
    for child in server.children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "ipykernel" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.Error:
            continue
    return found
