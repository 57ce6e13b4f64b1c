"""DNS rebinding: the served app answers only to its allowed host names, on pages and websockets.

A web page the operator visits can point its own name (``rebind.attacker.example``) at
127.0.0.1; the browser then sends ``Host: rebind.attacker.example`` and ``Origin:
http://rebind.attacker.example``.  Each test starts ``qra-widgets app`` as a user runs it and
talks to it through the network: raw HTTP requests and websocket upgrades with chosen headers,
and Chromium told to resolve the attacker's name to the server (``--host-resolver-rules``),
which is what a rebinding attack achieves.
"""

from __future__ import annotations

import socket
import uuid
from urllib.parse import urlsplit

import pytest

from tests.browser import CHROMIUM_ARGS, cli_app_command, running_app

from .test_browser import open_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ATTACKER = "rebind.attacker.example"
ALLOWED = "Dash.Example.Test"


def raw_request(url: str, path: str, headers: dict[str, str]) -> tuple[int, str]:
    """Send one GET with exactly ``headers`` (Host included) and return (status, body start)."""
    parts = urlsplit(url)
    headers = {"Connection": "close", **headers}
    lines = [f"GET {path} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as connection:
        connection.sendall("\r\n".join(lines).encode())
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = connection.recv(4096)
            if not chunk:
                break
            received += chunk
        head, _, body = received.partition(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ),
            0,
        )
        while len(body) < min(length, 4096):
            chunk = connection.recv(4096)
            if not chunk:
                break
            body += chunk
    return int(head.split(b" ", 2)[1]), body.decode("utf-8", "replace")


def upgrade_headers(host: str, origin: str | None) -> dict[str, str]:
    headers = {
        "Host": host,
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    }
    if origin is not None:
        headers["Origin"] = origin
    return headers


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("guarded")
    command = lambda port: cli_app_command(
        port, f"--db={folder / 'library.sqlite3'}", "--pool-size=0", f"--allow-host={ALLOWED}"
    )
    with running_app(folder, command=command) as (url, _process):
        yield url, folder / "voila.log"


def test_a_page_request_with_a_foreign_host_header_is_refused(guarded):
    url, log = guarded
    port = urlsplit(url).port
    status, body = raw_request(url, "/", {"Host": f"{ATTACKER}:{port}"})
    assert status == 403 and "Host not allowed" in body
    # a forwarded header naming an allowed host changes nothing: X-Forwarded-* is never read
    status, _ = raw_request(url, "/voila/static/voila.js", {"Host": ATTACKER, "X-Forwarded-Host": "localhost"})
    assert status == 403
    assert f"Host {ATTACKER + ':' + str(port)!r}" in log.read_text()


def test_a_websocket_upgrade_with_a_foreign_host_and_origin_is_refused(guarded):
    url, _ = guarded
    channels = f"/api/kernels/{uuid.uuid4()}/channels"
    status, body = raw_request(url, channels, upgrade_headers(ATTACKER, f"http://{ATTACKER}"))
    assert status == 403 and "Host not allowed" in body
    # the allowed Host with the attacker's Origin (a cross-site page's websocket), or with no Origin at all
    for origin in (f"http://{ATTACKER}", None, "null"):
        status, body = raw_request(url, channels, upgrade_headers("127.0.0.1", origin))
        assert status == 403 and "Origin" in body, origin
    # the preheated kernels' request-info socket is guarded the same way
    status, _ = raw_request(url, f"/voila/query/{uuid.uuid4()}", upgrade_headers(ATTACKER, f"http://{ATTACKER}"))
    assert status == 403


def test_allowed_names_pass_the_guard_whatever_their_case_and_port(guarded):
    url, _ = guarded
    for host in ("localhost", "127.0.0.1:1", "[::1]", ALLOWED.upper() + ":443"):
        status, body = raw_request(url, "/voila/static/voila.js", {"Host": host})
        assert status == 200 and "not allowed" not in body, (host, status, body[:200])
    status, _ = raw_request(
        url,
        f"/api/kernels/{uuid.uuid4()}/channels",
        upgrade_headers(ALLOWED.lower(), f"https://{ALLOWED.lower()}:8443"),
    )
    assert status != 403  # past the guard (no such kernel)


def test_the_real_page_loads_under_an_allowed_name_and_not_under_a_rebound_one(guarded):
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM

    url, _ = guarded
    port = urlsplit(url).port
    rules = f"--host-resolver-rules=MAP {ATTACKER} 127.0.0.1, MAP {ALLOWED.lower()} 127.0.0.1"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[*CHROMIUM_ARGS, rules])
        try:
            page = browser.new_page()
            page.set_default_timeout(180_000)
            response = page.goto(f"http://{ATTACKER}:{port}/")
            assert response.status == 403 and "Host not allowed" in page.content()
            assert page.query_selector(".qra-dashboard") is None
            open_app(page, f"http://{ALLOWED.lower()}:{port}/")  # widgets render: their kernel websocket was accepted
            assert page.query_selector(".qra-dashboard") is not None
        finally:
            browser.close()
