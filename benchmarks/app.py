"""Benchmarks of the served app with ``qra-widgets app``'s defaults, in headless Chromium.

    python benchmarks/app.py [--runs N]

Prints: first full render (page request to the dashboard drawn) cold (server just
started, kernel not preheated) and preheated; grid edit -> chart updated; websocket bytes
received per page load.  Targets on a 2-core machine: preheated < 5 s, edit < 300 ms,
< 8 MB per page load.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from qra_widgets.examples import titles
from qra_widgets.serve import chromium, running_app, wait_until_serving

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
    page.wait_for_function("() => document.querySelector('.qra-assessment').innerText.includes('30.76')")
    page.click(".lm-TabBar-tab:has-text('Charts')")
    page.wait_for_function(CV_POINTS)
    plot = "(() => { const el = document.querySelector('.qra-cv-chart'); return el.classList.contains('js-plotly-plot') ? el : el.querySelector('.js-plotly-plot'); })()"
    times = []
    for k in range(edits):
        value = f"{3.0 + (k % 5) / 10 + 0.01:.2f}"
        page.click(".lm-TabBar-tab:has-text('Scores')")
        cell = page.locator(".qra-cell-0-0-2 input")
        cell.fill(value)
        before = page.evaluate(f"() => {plot}.data[0]?.y?.[0]")
        start = time.perf_counter()
        cell.press("Enter")
        page.wait_for_function(f"() => {{ const y = {plot}.data[0]?.y?.[0]; return y !== undefined && y !== {before}; }}")
        times.append(time.perf_counter() - start)
    page.close()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp())
    with chromium() as context, running_app(folder, wait=False) as (url, process):
        started = time.perf_counter()
        wait_until_serving(url, process)
        server_start = time.perf_counter() - started
        cold, cold_bytes = render(context, url)
        time.sleep(8)  # the pool refills
        warm = []
        for _ in range(args.runs):
            seconds, received = render(context, url)
            warm.append((seconds, received))
            time.sleep(8)
        edits = edit_latency(context, url, 10)
    median_warm = statistics.median(s for s, _ in warm)
    median_bytes = statistics.median(b for _, b in warm)
    print("| measurement | value | target |")
    print("|---|---:|---|")
    print(f"| server start (until it answers) | {server_start:.1f} s | – |")
    print(f"| first render, first page after start | {cold:.1f} s | – |")
    print(f"| first render, preheated kernel (median of {args.runs}) | {median_warm:.1f} s | < 5 s |")
    print(f"| grid edit -> CV* chart updated (median of {len(edits)}) | {statistics.median(edits) * 1000:.0f} ms | < 300 ms |")
    print(f"| websocket bytes received per page load (median) | {median_bytes / 1e6:.2f} MB | < 8 MB |")
    print(f"| websocket bytes, first page after start | {cold_bytes / 1e6:.2f} MB | – |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
