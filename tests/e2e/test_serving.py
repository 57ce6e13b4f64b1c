"""How ``qra-widgets app`` serves: stopping, closing tabs, requests, errors, arrivals.

Each test starts its own server (Voila and its kernels are always stopped) and counts the
server's processes with psutil.
"""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path
from urllib.parse import urlsplit

import psutil
import pytest

from tests.browser import cli_app_command, kernels, running_app

from .test_browser import open_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FAULTS = Path(__file__).parent / "faults"
REPOSITORY = Path(__file__).parents[2]


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"{what} within {timeout} s")


def alive(processes: list[psutil.Process]) -> list[psutil.Process]:
    still = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                still.append(process)
        except psutil.NoSuchProcess:
            continue
    return still


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_voila_and_every_kernel_within_5_s(tmp_path, browser, signum):
    command = lambda port: cli_app_command(port, f"--db={tmp_path / 'library.sqlite3'}", "--pool-size=2")
    with running_app(tmp_path, command=command) as (url, process):
        page = browser.new_page()
        page.set_default_timeout(180_000)
        open_app(page, url)  # a page's kernel as well as the pool's two
        cli = psutil.Process(process.pid)
        wait_for(lambda: len(kernels(cli)) >= 3, 120, "three kernels did not start")
        time.sleep(2)  # let the pool refill finish
        tree = cli.children(recursive=True)
        running = len(kernels(cli))
        assert running >= 3
        start = time.monotonic()
        os.kill(process.pid, signum)
        process.wait(timeout=10)
        left = wait_for(lambda: not alive(tree) or None, 10, "processes survived") and alive(tree)
        seconds = time.monotonic() - start
        page.close()
    print(
        f"\n{signal.Signals(signum).name}: qra-widgets app, Voila and {running} kernels ({len(tree)} processes) stopped in {seconds:.1f} s"
    )
    assert left == [] and seconds < 5
    assert process.returncode == 0


def test_closing_a_tab_shuts_its_kernel_down(tmp_path, browser):
    with running_app(tmp_path, pool_size=1) as (url, process):  # no idle culling within the test's time
        server = psutil.Process(process.pid)
        wait_for(lambda: len(kernels(server)) == 1, 120, "the pool did not fill")
        pages = [browser.new_page() for _ in range(3)]
        for page in pages:
            page.set_default_timeout(180_000)
            open_app(page, url)
        with_tabs = wait_for(
            lambda: len(kernels(server)) if len(kernels(server)) == 4 else None,
            120,
            "three tabs and the pool did not make four kernels",
        )
        for page in pages:
            page.close(run_before_unload=True)  # as closing a tab does: Voila's beforeunload posts the shutdown
        wait_for(lambda: len(kernels(server)) == 1, 30, "the closed tabs' kernels were not shut down")
        log = (tmp_path / "voila.log").read_text()
    assert with_tabs == 4
    assert "_xsrf" not in log and " 403 " not in log
    assert len(re.findall(r"Kernel shutdown: ", log)) >= 3


def test_no_request_leaves_the_server(server, page):
    url, _library, _log = server
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    open_app(page, url)
    page.click(".lm-TabBar-tab:has-text('Charts')")
    page.wait_for_timeout(3000)  # late requests (fonts, lazily loaded scripts)
    outside = sorted(
        {u for u in requests if urlsplit(u).scheme not in ("data", "blob") and urlsplit(u).hostname != "127.0.0.1"}
    )
    print(f"\n{len(requests)} requests, all to 127.0.0.1" if not outside else "")
    assert len(requests) > 10
    assert outside == []


def test_the_page_loads_two_extensions_and_never_animates_while_loading(server, page):
    """Arrivals: what each visitor's browser must run before the dashboard draws."""
    url, _library, _log = server
    open_app(page, url)
    extensions = page.evaluate(
        "() => JSON.parse(document.getElementById('jupyter-config-data').textContent)"
        ".federated_extensions.map(e => e.name).sort()"
    )
    assert extensions == [
        "@jupyter-widgets/jupyterlab-manager",
        "@voila-dashboards/widgets-manager8",
        "jupyterlab-plotly",
    ]
    animations = page.evaluate("""() => ['spinner', 'voila-skeleton-post'].map(name => {
        const outer = document.createElement('div'); outer.className = name;
        outer.innerHTML = '<div class="voila-skeleton-avatar"></div><div class="voila-skeleton-line"></div>';
        document.body.appendChild(outer);
        const names = [outer, ...outer.children].map(el => getComputedStyle(el).animationName);
        outer.remove(); return names; })""")
    assert animations == [["none", "none", "none"], ["none", "none", "none"]]


def test_a_failing_callback_sends_no_traceback_and_logs_it(tmp_path, browser):
    """An unexpected error in a callback reaches the server log, not the page."""
    environment = {
        "PYTHONPATH": os.pathsep.join([str(REPOSITORY), str(FAULTS)]),
        "QRA_WIDGETS_TEST_FAULT": "examples.load",
    }
    old = {key: os.environ.get(key) for key in environment}
    os.environ.update(environment)
    try:
        with running_app(tmp_path, pool_size=1) as (url, _process):
            page = browser.new_page()
            page.set_default_timeout(180_000)
            frames: list[str] = []
            page.on(
                "websocket",
                lambda ws: ws.on(
                    "framereceived",
                    lambda payload: frames.append(
                        payload if isinstance(payload, str) else payload.decode("utf-8", "replace")
                    ),
                ),
            )
            open_app(page, url)
            page.select_option(".qra-example-choice select", index=1)
            page.click(".qra-load-example")
            page.wait_for_function("() => document.querySelector('.qra-status')?.innerText.includes('server log')")
            page.wait_for_timeout(1500)  # any stream message would follow the status update
            content = page.content()
            page.close()
            log = (tmp_path / "voila.log").read_text()
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    sent = "\n".join(frames) + content
    assert len(frames) > 5
    for forbidden in ("Traceback", "injected fault", "examples.py", str(REPOSITORY), "site-packages"):
        assert forbidden not in sent, forbidden
    assert "Traceback (most recent call last)" in log
    assert "RuntimeError: injected fault: cannot read" in log
