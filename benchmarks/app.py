"""Benchmarks of the served app with ``qra-widgets app``'s defaults, in headless Chromium.

    python benchmarks/app.py [--runs N] [--pool-size P] [--fill-delay D] [--arrivals N] [--one-after-another N]
    python benchmarks/app.py --only-load --arrivals 20 --pool-size 20 --fill-delay 60 --control

Prints: first full render (page request to the dashboard drawn) cold (server just
started, kernel not preheated) and preheated; grid edit -> chart updated; websocket bytes
received per page load; N tabs opened at once (slowest render, kernel memory per tab, kernels
left after the tabs close); N tabs opened one after another (renders that never finish);
with ``--control``, the same arrivals on a one-widget notebook with the same server settings.
Targets on a 2-core machine: preheated < 5 s, edit < 300 ms, < 8 MB per page load, 20 tabs
opened at once all rendered within 30 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the test helpers live in tests/, not in the package
from qra_widgets.examples import titles
from qra_widgets.serve import FILL_DELAY, POOL_SIZE, voila_command
from tests.browser import (
    chromium_browser,
    close_tab,
    kernels,
    navigate_all,
    new_visitors,
    running_app,
    wait_until_serving,
)

CV_POINTS = "() => document.querySelectorAll('.qra-cv-chart .barlayer .point').length > 0"


def render(context, url: str) -> tuple[float, int]:
    """Seconds from request to the dashboard drawn (title, tabs and the Study form), and websocket bytes received."""
    page = context.new_page()
    page.set_default_timeout(180_000)
    received: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(len(payload))))
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.wait_for_selector(".qra-dashboard .lm-TabBar-tab")
    page.wait_for_selector(".qra-study-name input")
    elapsed = time.perf_counter() - start
    page.wait_for_timeout(1500)  # let late messages arrive before counting
    page.close()
    return elapsed, sum(received)


def edit_latency(context, url: str, edits: int) -> list[float]:
    page = context.new_page()
    page.set_default_timeout(120_000)
    page.goto(url, wait_until="commit")
    page.wait_for_selector(".qra-dashboard")
    page.select_option(".qra-example-choice select", label=titles()["qrapp_example1"])
    page.click(".qra-load-example")
    page.click(".lm-TabBar-tab:has-text('Assessment')")  # a tab is built when first shown
    page.wait_for_function("() => document.querySelector('.qra-assessment')?.innerText.includes('30.76')")
    page.click(".lm-TabBar-tab:has-text('Charts')")
    page.wait_for_function(CV_POINTS)
    plot = "(() => { const el = document.querySelector('.qra-cv-chart'); return !el ? null : el.classList.contains('js-plotly-plot') ? el : el.querySelector('.js-plotly-plot'); })()"
    times = []
    for k in range(edits):
        value = f"{3.0 + (k % 5) / 10 + 0.01:.2f}"
        page.click(".lm-TabBar-tab:has-text('Scores')")
        cell = page.locator(".qra-cell-0-0-2 input")
        cell.fill(value)
        page.wait_for_function(
            f"() => {plot}?.data?.[0]?.y?.[0] !== undefined"
        )  # drawn (a redraw replaces the plot's element)
        before = page.evaluate(f"() => {plot}.data[0].y[0]")
        start = time.perf_counter()
        cell.press("Enter")
        page.wait_for_function(
            f"() => {{ const y = {plot}?.data[0]?.y?.[0]; return y !== undefined && y !== {before}; }}"
        )
        times.append(time.perf_counter() - start)
    page.close()
    return times


def wait_for_kernels(server: psutil.Process, at_most: int, timeout: float) -> tuple[int, float]:
    """Wait until at most ``at_most`` kernels run; returns (kernels, seconds waited)."""
    start = time.perf_counter()
    while len(kernels(server)) > at_most and time.perf_counter() - start < timeout:
        time.sleep(0.5)
    return len(kernels(server)), time.perf_counter() - start


def wait_for_pool(server: psutil.Process, pool_size: int, timeout: float = 300) -> float:
    """Wait until ``pool_size`` kernels run and have stopped using CPU (their notebook rendered);
    returns the seconds waited."""
    start = time.perf_counter()
    used = -1.0
    while time.perf_counter() - start < timeout:
        running = kernels(server)
        now = cpu_seconds(running)
        if len(running) >= pool_size and now - used < 0.05:
            break
        used = now
        time.sleep(1)
    return time.perf_counter() - start


ARRIVAL_TIMEOUT = 180
#: Records, in the page, the moment the dashboard's Study form appears (``window.qraDrawnAt``, ms since the epoch).
DRAWN_AT = """
new MutationObserver((_, observer) => {
  if (document.querySelector('.qra-study-name input')) { window.qraDrawnAt = Date.now(); observer.disconnect(); }
}).observe(document, {childList: true, subtree: true, attributes: true, attributeFilter: ['class']});
"""
#: The control: a notebook with one Text widget (the same class, so the same wait), served with
#: the app's own settings.  What the arrivals cost Voila and Chromium with no app at all.
CONTROL_NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "control",
            "metadata": {},
            "outputs": [],
            "source": "import ipywidgets as w\nname = w.Text(value='control')\nname.add_class('qra-study-name')\nname",
        }
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def cpu_seconds(processes) -> float:
    """User + system CPU seconds of ``processes`` (those that ended meanwhile count 0)."""
    total = 0.0
    for process in processes:
        try:
            total += sum(process.cpu_times()[:2])
        except psutil.Error:
            continue
    return total


def browser_processes() -> list:
    """Chromium's processes (browser, renderers, GPU/utility), started by Playwright under this one."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "chrom" in child.name().lower():
                found.append(child)
        except psutil.Error:
            continue
    return found


def arrivals(browser, url: str, server: psutil.Process, tabs: int, pool_size: int) -> dict:
    """``tabs`` visitors open the app at the same moment: seconds until each sees the dashboard,
    kernel memory, and kernels left once they close their tabs.

    The visitors' blank pages (a browser context each) are made before the clock starts: making
    them is the test harness's work, not the server's, and in use each browser is a visitor's own.
    The clock starts when the first navigation is started; each tab records when it drew.
    CPU is counted per role over the window from the first tab opened to the last one drawn:
    Chromium (all its processes; renderers started in the window count whole), the Voila
    server, and the kernels (pooled ones count what they used in the window; new ones whole).
    """
    pages = new_visitors(browser, tabs, init_script=DRAWN_AT)
    time.sleep(2)  # the new renderers settle
    load_before = os.getloadavg()[0]
    pooled = kernels(server)
    cpu_before = {
        "browser": cpu_seconds(browser_processes()),
        "server": cpu_seconds([server]),
        "kernels": cpu_seconds(pooled),
    }
    start, epoch = time.perf_counter(), time.time()
    navigate_all(pages, url)
    seconds, stuck = [], []
    for page in pages:
        try:
            page.wait_for_selector(
                ".qra-study-name input", timeout=max(1, start + ARRIVAL_TIMEOUT - time.perf_counter()) * 1000
            )
            seconds.append(
                page.evaluate("() => window.qraDrawnAt") / 1000 - epoch
            )  # when this page drew it, not when we looked
        except Exception:  # noqa: BLE001 - playwright's TimeoutError
            stuck.append(page.evaluate("() => document.body ? document.body.innerText.slice(0, 200) : ''"))
    window = time.perf_counter() - start
    drawn = kernels(server)
    cpu_window = {
        "browser": cpu_seconds(browser_processes()) - cpu_before["browser"],
        "server": cpu_seconds([server]) - cpu_before["server"],
        "kernels": cpu_seconds(drawn) - cpu_before["kernels"],
    }
    time.sleep(3)  # the pool refills
    running = kernels(server)
    rss = sum(k.memory_info().rss for k in running) / 2**20
    uss = sum(k.memory_full_info().uss for k in running) / 2**20
    cpu = sum(sum(k.cpu_times()[:2]) for k in running)
    for page in pages:
        close_tab(page)  # Voila's beforeunload asks the server to shut the tab's kernel down
    left, waited = wait_for_kernels(server, pool_size, timeout=60)
    return {
        "tabs": tabs,
        "stuck": stuck,
        "slowest": max(seconds) if not stuck else float("inf"),
        "median": statistics.median(seconds) if seconds else float("inf"),
        "kernels": len(running),
        "rss_per_kernel": rss / len(running),
        "uss_per_kernel": uss / len(running),
        "left_after_close": left,
        "close_seconds": waited,
        "cpu_per_kernel": cpu / len(running),
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "window": window,
        "cpu_window": cpu_window,
        "new_kernels": len({k.pid for k in drawn} - {k.pid for k in pooled}),
    }


def one_after_another(context, url: str, tabs: int, timeout: float = 90) -> tuple[int, list[float]]:
    """Open ``tabs`` tabs one after another, each closed once drawn; returns (renders that never finished, seconds)."""
    stuck, seconds = 0, []
    for _ in range(tabs):
        page = context.new_page()
        start = time.perf_counter()
        page.goto(url, wait_until="commit")
        try:
            page.wait_for_selector(".qra-study-name input", timeout=timeout * 1000)
            seconds.append(time.perf_counter() - start)
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: this render never finished
            stuck += 1
        page.close(run_before_unload=True)
    return stuck, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--pool-size", type=int, default=POOL_SIZE, help=f"preheated kernels (default {POOL_SIZE}, as qra-widgets app)"
    )
    parser.add_argument(
        "--fill-delay",
        type=float,
        default=FILL_DELAY,
        help=f"seconds before a handed-out preheated kernel is replaced (default {FILL_DELAY}, as qra-widgets app)",
    )
    parser.add_argument("--arrivals", type=int, default=20, help="tabs opened at once (default 20; 0 to skip)")
    parser.add_argument(
        "--one-after-another",
        type=int,
        default=0,
        help="tabs opened one after another, to count renders that never finish",
    )
    parser.add_argument("--only-load", action="store_true", help="only the arrivals and one-after-another measurements")
    parser.add_argument(
        "--control",
        action="store_true",
        help="also the same arrivals on a one-Text-widget notebook served by plain Voila (the floor)",
    )
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp())
    if args.only_load:
        with chromium_browser() as browser:
            with running_app(folder, wait=False, pool_size=args.pool_size, fill_delay=args.fill_delay) as (
                url,
                process,
            ):
                wait_until_serving(url, process)
                wait_for_pool(psutil.Process(process.pid), args.pool_size)
                report_load(browser, browser.new_context(viewport={"width": 1400, "height": 1000}), url, process, args)
            if args.control:  # after the app's server stopped, so that its pool refills do not overlap
                control(browser, folder, args)
        return 0
    with (
        chromium_browser() as browser,
        running_app(folder, wait=False, pool_size=args.pool_size, fill_delay=args.fill_delay) as (url, process),
    ):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        started = time.perf_counter()
        wait_until_serving(url, process)
        server_start = time.perf_counter() - started
        cold, cold_bytes = render(context, url)
        server = psutil.Process(process.pid)
        refill = lambda: (time.sleep(args.fill_delay + 1), wait_for_pool(server, args.pool_size))
        refill()
        warm = []
        for _ in range(args.runs):
            seconds, received = render(context, url)
            warm.append((seconds, received))
            refill()
        edits = edit_latency(context, url, 10)
        refill()
        report_load(browser, context, url, process, args, header=False)
    median_warm = statistics.median(s for s, _ in warm)
    median_bytes = statistics.median(b for _, b in warm)
    print_header()
    print(f"| server start (until it answers) | {server_start:.1f} s | – |")
    print(f"| first render, first page after start | {cold:.1f} s | – |")
    print(f"| first render, preheated kernel (median of {args.runs}) | {median_warm:.1f} s | < 5 s |")
    print(
        f"| grid edit -> CV* chart updated (median of {len(edits)}) | {statistics.median(edits) * 1000:.0f} ms | < 300 ms |"
    )
    print(f"| websocket bytes received per page load (median) | {median_bytes / 1e6:.2f} MB | < 8 MB |")
    print(f"| websocket bytes, first page after start | {cold_bytes / 1e6:.2f} MB | – |")
    return 0


def control(browser, folder: Path, args) -> None:
    """The arrivals row for :data:`CONTROL_NOTEBOOK`: the same server command (template, extensions,
    pool, fill delay), only the notebook differs."""
    import json

    notebook = folder / "control.ipynb"
    notebook.write_text(json.dumps(CONTROL_NOTEBOOK))

    def command(port: int) -> list[str]:
        argv = voila_command(port, no_browser=True, pool_size=args.pool_size, fill_delay=args.fill_delay)
        return [str(notebook) if part.endswith("app.ipynb") else part for part in argv]

    with running_app(folder, wait=False, command=command) as (url, process):
        wait_until_serving(url, process)
        server = psutil.Process(process.pid)
        wait_for_pool(server, args.pool_size)
        load = arrivals(browser, url, server, args.arrivals, args.pool_size)
    used = load["cpu_window"]
    print(
        f"| control: {load['tabs']} tabs of a one-Text-widget notebook, same server settings: "
        f"slowest / median render | {load['slowest']:.1f} s / {load['median']:.1f} s | – |"
    )
    print(
        f"| ... CPU until the last tab was drawn: Chromium / kernels / Voila server | "
        f"{used['browser']:.1f} s / {used['kernels']:.1f} s / {used['server']:.1f} s | – |"
    )


def print_header() -> None:
    print("| measurement | value | target |")
    print("|---|---:|---|")


def report_load(browser, context, url: str, process, args, header: bool = True) -> int:
    server = psutil.Process(process.pid)
    if header:
        print_header()
    if args.arrivals:
        load = arrivals(browser, url, server, args.arrivals, args.pool_size)
        print(
            f"| {load['tabs']} tabs opened at once, pool of {args.pool_size}, fill delay {args.fill_delay:g} s: slowest / median render | "
            f"{load['slowest']:.1f} s / {load['median']:.1f} s | slowest < 30 s |"
        )
        print(f"| ... CPU time per kernel to start and render (user + system) | {load['cpu_per_kernel']:.1f} s | – |")
        used = load["cpu_window"]
        print(
            f"| ... CPU used until the last tab was drawn ({load['window']:.1f} s, {os.cpu_count()} cores): "
            f"Chromium / kernels ({load['new_kernels']} started) / Voila server | "
            f"{used['browser']:.1f} s / {used['kernels']:.1f} s / {used['server']:.1f} s | – |"
        )
        print(
            f"| ... machine load average (1 min) before / after | {load['load_before']:.1f} / {load['load_after']:.1f} | 2 cores |"
        )
        if load["stuck"]:
            print(
                f"| ... tabs not drawn after {ARRIVAL_TIMEOUT} s | {len(load['stuck'])}: {sorted(set(load['stuck']))} | 0 |"
            )
        print(
            f"| kernel memory per tab (RSS / USS, {load['kernels']} kernels) | "
            f"{load['rss_per_kernel']:.0f} MiB / {load['uss_per_kernel']:.0f} MiB | – |"
        )
        print(
            f"| kernels left {load['close_seconds']:.0f} s after closing the {load['tabs']} tabs | "
            f"{load['left_after_close']} (the pool) | {args.pool_size} |"
        )
    if args.one_after_another:
        stuck, seconds = one_after_another(context, url, args.one_after_another)
        print(f"| {args.one_after_another} tabs one after another: renders never finished (90 s) | {stuck} | 0 |")
        if seconds:
            print(
                f"| ... their render, median / slowest | {statistics.median(seconds):.1f} s / {max(seconds):.1f} s | – |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
