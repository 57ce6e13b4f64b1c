"""A live ``qra-widgets app`` (Voila) on a free loopback port and headless Debian Chromium.

Recipe: shared/recipes/voila-browser-testing.md.  Chromium comes from Debian's package
(/usr/bin/chromium, installed by scripts/test); Playwright only drives it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SCREENSHOTS as OUTPUT  # a temporary folder, never the work tree (tests/conftest.py)

from tests.browser import CHROMIUM, chromium, running_app


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """Yields (url, library path, log path); Voila and its kernels are always stopped."""
    folder = tmp_path_factory.mktemp("app")
    with running_app(folder) as (url, _process):
        yield url, folder / "library.sqlite3", folder / "voila.log"


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/test, which installs Debian's chromium")
    with chromium() as context:
        yield context


@pytest.fixture
def page(browser, request):
    page = browser.new_page()
    page.set_default_timeout(180_000)  # a cold kernel on a busy 2-core box can take a minute
    OUTPUT.mkdir(parents=True, exist_ok=True)
    console: list[str] = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    try:
        yield page
    finally:
        page.screenshot(path=str(OUTPUT / f"{request.node.name}-last.png"), full_page=True)
        (OUTPUT / f"{request.node.name}-console.log").write_text("\n".join(console))
        page.close()
