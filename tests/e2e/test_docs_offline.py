"""The built documentation site works offline: every page loads in headless Chromium from a
local server and makes no request outside the site.

The site is built by ``scripts/docs`` into ``docs/_build/html`` (CI runs it before the
suite); without a build these tests skip and say so.  The site is served by Python's
``http.server`` on a free loopback port; Chromium is Debian's (``tests/browser.py``).  Every
request is recorded, and any request that leaves the site is refused and reported: a
remote font, a CDN script (MathJax, plotly.js, require.js), a theme's web analytics.
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest

from tests.browser import CHROMIUM, chromium, free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SITE = Path(__file__).parents[2] / "docs" / "_build" / "html"
# Files other than pages: the theme's assets, and Sphinx's environment when it is kept there.
NOT_PAGES = {"_static", "_sources", "_images", "_downloads", ".doctrees", "reports"}


def site_pages() -> list[Path]:
    return sorted(p for p in SITE.rglob("*.html") if not NOT_PAGES.intersection(p.relative_to(SITE).parts[:-1]))


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="module")
def site_url():
    if not (SITE / "index.html").exists():
        pytest.skip(f"no documentation build in {SITE}: run scripts/docs first")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/test, which installs Debian's chromium")
    port = free_port()
    handler = functools.partial(QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def visits(site_url):
    """Load every page once; per page: the requests outside the site, the requests inside it
    that failed, script errors, and how many charts and formulas it has and drew."""
    results = {}
    with chromium() as context:
        outside: list[str] = []

        def route(route):
            url = route.request.url
            if url.startswith((site_url, "data:", "blob:", "about:")):
                route.continue_()
            else:
                outside.append(url)
                route.abort()

        context.route("**/*", route)
        page = context.new_page()
        page.set_default_timeout(60_000)
        failed: list[str] = []
        errors: list[str] = []
        page.on(
            "requestfailed",
            lambda request: request.url.startswith(site_url) and failed.append(f"{request.url} ({request.failure})"),
        )
        page.on(
            "response",
            lambda response: response.status >= 400 and failed.append(f"{response.url} (HTTP {response.status})"),
        )
        page.on("pageerror", lambda error: errors.append(str(error)))
        for path in site_pages():
            name = path.relative_to(SITE).as_posix()
            for record in (outside, failed, errors):
                record.clear()
            page.goto(site_url + name, wait_until="networkidle")
            charts = path.read_text(encoding="utf-8").count("Plotly.newPlot(")
            if charts:
                page.wait_for_function(
                    "n => document.querySelectorAll('div.plotly-graph-div .main-svg').length >= n", arg=charts
                )
            formulas = page.locator("div.math, span.math").count()
            if formulas:
                page.wait_for_function("() => document.querySelector('mjx-container') !== null")
            results[name] = {
                "outside": list(outside),
                "failed": list(failed),
                "errors": list(errors),
                "charts": charts,
                "charts drawn": page.evaluate(
                    "() => [...document.querySelectorAll('div.plotly-graph-div')]"
                    ".filter(d => d.querySelector('.main-svg')).length"
                ),
                "formulas": formulas,
                "formulas rendered": page.locator("mjx-container").count(),
            }
    return results


def test_the_site_has_the_pages_the_documentation_promises(visits):
    for page in [
        "index.html",
        "install.html",
        "user-guide/index.html",
        "user-guide/researcher.html",
        "user-guide/organiser.html",
        "user-guide/teacher.html",
        "file-formats.html",
        "conventions.html",
        "intervals.html",
        "app.html",
        "cli.html",
        "api/index.html",
        "decisions.html",
        "performance.html",
        "examples/index.html",
        "contributing.html",
        "changelog.html",
    ]:
        assert page in visits, f"{page} is not in the built site"
    notebooks = [name for name in visits if name.startswith("examples/paper/")]
    assert len(notebooks) >= 6, notebooks


def test_no_page_requests_anything_outside_the_site(visits):
    leaks = {name: visit["outside"] for name, visit in visits.items() if visit["outside"]}
    assert not leaks, f"requests outside the site: {leaks}"


def test_every_page_loads_its_assets_and_runs_without_a_script_error(visits):
    broken = {
        name: visit["failed"] + visit["errors"] for name, visit in visits.items() if visit["failed"] or visit["errors"]
    }
    assert not broken, broken


def test_every_notebook_chart_draws_from_the_one_local_plotly_js(visits):
    with_charts = {name: visit for name, visit in visits.items() if visit["charts"]}
    assert len(with_charts) >= 4, "the paper notebooks draw charts on at least four pages"
    for name, visit in with_charts.items():
        assert visit["charts drawn"] == visit["charts"], (name, visit)
    assert [p.relative_to(SITE).as_posix() for p in SITE.rglob("plotly*.js")] == ["_static/plotly.min.js"]
    inlined = [p.name for p in site_pages() if "* plotly.js v" in p.read_text(encoding="utf-8")]
    assert not inlined, f"pages that carry their own copy of plotly.js: {inlined}"


def test_the_formulas_of_the_measures_render_with_the_local_mathjax(visits):
    measures = visits["api/generated/qra_widgets.measures.html"]
    assert measures["formulas"] >= 5
    assert measures["formulas rendered"] >= measures["formulas"]
