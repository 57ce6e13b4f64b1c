"""The web app's exposure, tested against a live ``qra-widgets app`` on loopback.

No source, path or traceback reaches the page; Jupyter's APIs and file downloads are
refused; a forged execute_request is ignored; an oversized upload is refused before it is
parsed; idle kernels are culled; ten simultaneous sessions all save their study.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.error
import urllib.request
import uuid

import psutil
import pytest

from qra_widgets.examples import titles
from qra_widgets.store import StudyLibrary
from tests.browser import running_app

from .test_browser import check_no_code_or_traceback, open_app, tab

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EXAMPLE1 = titles()["qrapp_example1"]


def status_of(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


@pytest.mark.parametrize(
    "path",
    [
        "api/kernels",
        "api/contents",
        "api/sessions",
        "lab",
        "tree",
        "files/app.ipynb",
        "voila/files/app.ipynb",
        "voila/files/cli.py",
        "voila/files/serve.py",
        "voila/files/../qra_widgets/cli.py",
        "voila/render/app.ipynb",
        "notebooks/app.ipynb",
    ],
)
def test_jupyter_apis_and_source_downloads_are_refused(server, path):
    url, _library, _log = server
    code, body = status_of(url + path)
    assert code in (403, 404), (path, code)
    assert "def " not in body and "import " not in body


def test_the_page_carries_no_source_or_paths(server):
    url, _library, _log = server
    code, body = status_of(url)
    assert code == 200
    assert "Dashboard()" not in body and "from qra_widgets" not in body
    assert not re.search(r"/(root|home|work|usr)/", body)


def _forge_execute_request(base: str, kernel_id: str, marker: str) -> str:
    """Send an execute_request on the kernel's websocket from a fresh event loop (Playwright
    owns this thread's loop); returns what happened to the connection."""
    import threading

    from tornado.httpclient import HTTPClientError
    from tornado.websocket import websocket_connect

    outcome: list[str] = []

    async def send():
        connection = await websocket_connect(
            f"{base.replace('http', 'ws')}api/kernels/{kernel_id}/channels?session_id={uuid.uuid4().hex}"
        )
        message = {
            "header": {
                "msg_id": uuid.uuid4().hex,
                "username": "x",
                "session": uuid.uuid4().hex,
                "msg_type": "execute_request",
                "version": "5.3",
                "date": "",
            },
            "parent_header": {},
            "metadata": {},
            "channel": "shell",
            "buffers": [],
            "content": {
                "code": f"open({marker!r}, 'w').write('pwned')",
                "silent": False,
                "store_history": False,
                "user_expressions": {},
                "allow_stdin": False,
                "stop_on_error": True,
            },
        }
        await connection.write_message(json.dumps(message))
        await asyncio.sleep(3)
        connection.close()

    def run():
        try:
            asyncio.run(send())
            outcome.append("sent")
        except HTTPClientError as error:
            outcome.append(f"refused {error.code}")

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=60)
    return outcome[0] if outcome else "no answer"


def test_forged_execute_request_is_ignored(server, tmp_path, page):
    url, _library, _log = server
    open_app(page, url)  # a live session, so its kernel is running
    kernel_id = re.search(r'"kernelId":\s*"([^"]+)"', page.content())
    assert kernel_id, "the page names its kernel"
    marker = str(tmp_path / "forged.txt")
    outcome = _forge_execute_request(url, kernel_id.group(1), marker)
    print(f"\nforged execute_request: {outcome}")
    assert outcome == "sent" or outcome.startswith("refused"), outcome
    time.sleep(2)
    assert not (tmp_path / "forged.txt").exists(), f"the forged code ran ({outcome})"
    tab(page, "Study")  # and the session still works
    page.wait_for_selector(".qra-study-name")


def test_oversized_upload_is_refused_before_parsing(server, page, tmp_path):
    url, _library, _log = server
    open_app(page, url)
    tab(page, "Scores")
    big = tmp_path / "scores.csv"
    big.write_bytes(b"experiment,quality_criterion,system,score\n" + b"e,q,s,1\n" * (6 * 2**20 // 8))
    with page.expect_file_chooser() as chooser:  # ipywidgets' FileUpload opens a file chooser on click
        page.click(".qra-scores-upload")
    chooser.value.set_files(str(big))
    page.wait_for_function("() => document.querySelector('.qra-scores-upload')?.innerText.includes('(1)')")
    page.click(".qra-scores-upload-button")
    page.wait_for_function(
        "() => document.querySelector('.qra-status')?.innerText.includes('uploads are limited to 5 MiB')"
    )
    check_no_code_or_traceback(page)
    tab(page, "Study")  # the page still answers
    page.wait_for_selector(".qra-study-name")


def _kernels(process: psutil.Process) -> list[psutil.Process]:
    """Live kernel processes under the server (a culled kernel may linger as a zombie)."""
    kernels = []
    for child in process.children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "ipykernel" in " ".join(child.cmdline()):
                kernels.append(child)
        except (psutil.ZombieProcess, psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return kernels


def test_a_tab_gone_without_a_word_has_its_kernel_culled(tmp_path, browser):
    """A tab that crashed (no beforeunload request) leaves an idle, disconnected kernel: culled."""
    with running_app(tmp_path, cull_idle_timeout=4, cull_interval=2, pool_size=0) as (url, process):
        server = psutil.Process(process.pid)
        page = browser.new_page()
        page.set_default_timeout(90_000)
        open_app(page, url)
        page.wait_for_timeout(2000)
        in_use = len(_kernels(server))
        page.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(_kernels(server)) >= in_use:
            time.sleep(1)
        assert len(_kernels(server)) < in_use, "the closed tab's kernel was not culled"


def test_ten_simultaneous_sessions_save_without_loss(tmp_path, browser):
    with running_app(tmp_path, pool_size=2) as (url, process):
        pages = [browser.new_page() for _ in range(10)]
        try:
            for page in pages:  # ten tabs open at once; each gets its own kernel (started one after another)
                page.set_default_timeout(180_000)
                page.goto(url, wait_until="commit")
                page.wait_for_selector(".qra-dashboard")
            for page in pages:  # then all ten work at the same time
                page.select_option(".qra-example-choice select", label=EXAMPLE1)
                page.click(".qra-load-example")
            for i, page in enumerate(pages):
                tab(page, "Assessment")  # a tab is built when first shown
                page.wait_for_function("() => document.querySelector('.qra-assessment')?.innerText.includes('30.76')")
                tab(page, "Study")
                page.fill(".qra-study-id input", f"session-{i}")
                page.press(".qra-study-id input", "Enter")
                page.click(".qra-apply-details")
                tab(page, "Library")
                page.click(".qra-save")
            for page in pages:
                page.wait_for_function("() => document.querySelector('.qra-status')?.innerText.includes('Saved')")
                check_no_code_or_traceback(page)
            tree = [psutil.Process(process.pid), *_kernels(psutil.Process(process.pid))]
            memory = sum(p.memory_info().rss for p in tree) / 2**20
            print(f"\nserver memory with 10 sessions: {memory:.0f} MiB in {len(tree)} processes")
        finally:
            for page in pages:
                page.close()
        library = StudyLibrary(tmp_path / "library.sqlite3")
        assert sorted(s.id for s in library.list()) == sorted(f"session-{i}" for i in range(10))
        assert all(library.open(f"session-{i}").scores[("Fluency", "SVM", "Li2024")] == 3.02 for i in range(10))
        assert library.integrity_check() == "ok"


def test_no_server_path_in_the_page_or_any_websocket_frame(server, page):
    """The page never shows a server path (the library's, the home directory)."""
    import os

    url, library, _log = server
    frames: list[str] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived",
            lambda payload: frames.append(payload if isinstance(payload, str) else payload.decode("utf-8", "replace")),
        ),
    )
    open_app(page, url)
    for title in ("Study", "Scores", "Experiments", "Charts", "Library"):
        tab(page, title)
        page.wait_for_timeout(500)
    page.wait_for_timeout(1500)
    sent = "\n".join(frames) + page.content()
    assert len(frames) > 5
    for path in (str(library), str(library.parent), os.path.expanduser("~"), "site-packages"):
        assert path not in sent, path
