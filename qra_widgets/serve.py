"""Serving the app with Voila: the command ``qra-widgets app`` runs, and what it configures.

``python -m qra_widgets.serve NOTEBOOK ARGS`` is Voila's own command line with three settings
made through Voila's configuration (no Voila internals are replaced):

- **The page template** ``qra`` (``qra_widgets/share/jupyter/voila/templates/qra``): Voila's
  ``lab`` template without its FontAwesome links to cdn.jsdelivr.net and nbconvert's mermaid.js
  import from cdnjs.cloudflare.com, so no request leaves the server (Voila's own bundle
  already carries FontAwesome).  :func:`main` puts the package's ``share/jupyter`` on ``JUPYTER_PATH`` to find it.
- **Waiting for the page's output** (``--VoilaExecutor.iopub_timeout``): when Voila runs
  the notebook, nbclient waits only 4 s for a cell's output once the kernel has replied,
  then logs "Timeout waiting for IOPub output" and goes on without it.  On a busy machine
  the dashboard's display message comes later than that, and the page stays without a
  dashboard for good: the "stuck pre-heat renders" that ``serve.py`` used to work around
  by replacing Voila's kernel pool (measured again: 20 of 20 tabs opened at once stuck,
  with that warning in the log).  The wait is now :data:`IOPUB_TIMEOUT`.
- **The XSRF cookie** (:class:`XSRFCookieIdentityProvider`): Voila's page posts
  ``voila/api/shutdown/<kernel>`` with the ``_xsrf`` cookie's value when the tab is closed
  (``beforeunload``), but Voila 0.5 never sets that cookie, so every such request was refused
  ("'_xsrf' argument missing", 403) and a closed tab's kernel lived until the idle cull.
  The identity provider, which Jupyter Server consults on every request, sets it.

- **Host and Origin** (:class:`HostGuardVoila`): Voila sets Jupyter Server's
  ``allow_remote_access=True``, so no Host header was ever checked and a DNS-rebinding page
  (``Host: rebind.attacker.example``) could load the app and open its kernel websocket.  Every
  request now passes :func:`host_allowed` before it reaches any handler (pages, static files,
  websockets alike): the Host header must name ``localhost``, ``127.0.0.1`` or ``[::1]``, or a
  name given with ``--allow-host`` (exact, case-insensitive, port ignored, no wildcards).  A
  request carrying an ``Origin`` (every websocket upgrade must) passes only if it is
  ``http(s)://`` on an allowed name (:func:`origin_allowed`).  ``X-Forwarded-*`` headers are
  never read.  ``--host`` only chooses the address to bind.  See docs/serving.md.

On SIGTERM or SIGINT Voila stops its loop and shuts every kernel down; ``qra-widgets app``
passes those signals on (``cli._app``).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

WEBSOCKET_MAX_MESSAGE_BYTES = 64 * 2**20
TEMPLATE = "qra"
SHARE = Path(__file__).parent / "share" / "jupyter"
#: ``qra-widgets app``'s defaults; see the "Serving and deploying" section of docs/app.md for the measurements behind them.
POOL_SIZE = 2
#: Seconds Voila waits after handing out a preheated kernel before starting its replacement (Voila's default: 1).
FILL_DELAY = 1.0
#: The JupyterLab extensions the page loads: the widgets, Voila's widget manager (it keeps the one
#: for the installed ipywidgets) and Plotly's renderer.  Voila loads
#: every extension installed in the environment otherwise (anywidget alone is 0.37 MB of
#: JavaScript more for every visitor, and a user's own JupyterLab extensions would follow).
FRONT_END_EXTENSIONS = (
    "@jupyter-widgets/jupyterlab-manager",
    "@voila-dashboards/widgets-manager7",
    "@voila-dashboards/widgets-manager8",
    "jupyterlab-plotly",
)
CULL_IDLE_TIMEOUT = 600
CULL_INTERVAL = 60
#: Seconds nbclient waits for a cell's output once the kernel has replied (nbclient's default: 4).
IOPUB_TIMEOUT = 120
#: The host names the app always answers to; ``--allow-host NAME`` adds more.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")
ALLOW_HOST_OPTION = "--allow-host="


def _host_name(value: str) -> str | None:
    """The name part of a ``Host`` header (``name``, ``name:port``, ``[v6]``, ``[v6]:port``), in
    lower case, or None if it is not of that form.

    >>> _host_name("LocalHost:8866"), _host_name("[::1]:80"), _host_name("a b"), _host_name("::1")
    ('localhost', '[::1]', None, None)
    """
    value = value.strip().lower()
    match = re.fullmatch(r"(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::\d{1,5})?", value)
    return match.group(1) if match else None


def normalise_host(name: str) -> str:
    """An ``--allow-host`` value as compared: lower case; an IPv6 address in brackets; no port,
    no scheme, no wildcard (refused with :class:`~qra_widgets.QRAInputError`).

    >>> normalise_host("Dash.Example.ORG"), normalise_host("::1")
    ('dash.example.org', '[::1]')
    """
    from .errors import QRAInputError

    text = str(name).strip().lower()
    if ":" in text and not text.startswith("["):
        text = f"[{text}]"
    if _host_name(text) != text or "*" in text:
        raise QRAInputError(
            f"--allow-host: {str(name)[:80]!r} is not a host name (give an exact name such as "
            "dash.example.org, without a scheme, port or wildcard)"
        )
    return text


def allowed_hosts(extra=()) -> frozenset[str]:
    """The names the app answers to: :data:`LOCAL_HOSTS` and each of ``extra`` (``--allow-host``)."""
    return frozenset(LOCAL_HOSTS) | {normalise_host(name) for name in extra}


def host_allowed(host: str | None, allowed) -> bool:
    """Whether a request's ``Host`` header names an allowed host (the port is ignored).

    >>> allowed = allowed_hosts(["dash.example.org"])
    >>> [host_allowed(h, allowed) for h in ("localhost:8866", "[::1]:8866", "DASH.example.org", "rebind.attacker.example", None)]
    [True, True, True, False, False]
    """
    return host is not None and _host_name(host) in allowed


def origin_allowed(origin: str | None, allowed) -> bool:
    """Whether a request's ``Origin`` is ``http(s)://`` on an allowed host (the port is ignored).

    >>> allowed = allowed_hosts()
    >>> [origin_allowed(o, allowed) for o in ("http://localhost:8866", "https://127.0.0.1", "null",
    ...                                       "file://localhost", "http://rebind.attacker.example", None)]
    [True, True, False, False, False, False]
    """
    if not origin:
        return False
    try:
        parts = urlsplit(origin.strip())
    except ValueError:
        return False
    return (
        parts.scheme.lower() in ("http", "https") and not parts.path.strip("/") and host_allowed(parts.netloc, allowed)
    )


def request_refusal(headers, allowed) -> str | None:
    """Why a request is refused (``headers``: its HTTP headers), or None when it may pass.

    The Host header must name an allowed host; an ``Origin``, when sent, must be ``http(s)`` on
    an allowed host; a websocket upgrade must send one.  ``X-Forwarded-*`` is never read.

    >>> allowed = allowed_hosts()
    >>> request_refusal({"Host": "localhost:8866"}, allowed) is None
    True
    >>> request_refusal({"Host": "rebind.attacker.example", "X-Forwarded-Host": "localhost"}, allowed)
    'Host not allowed'
    >>> request_refusal({"Host": "localhost", "Upgrade": "websocket"}, allowed)
    'websocket without an allowed Origin'
    """
    if not host_allowed(headers.get("Host"), allowed):
        return "Host not allowed"
    origin = headers.get("Origin")
    if headers.get("Upgrade", "").lower() == "websocket" and not origin_allowed(origin, allowed):
        return "websocket without an allowed Origin"
    if origin is not None and not origin_allowed(origin, allowed):
        return "Origin not allowed"
    return None


def voila_command(
    port: int,
    no_browser: bool,
    host: str = "127.0.0.1",
    pool_size: int = POOL_SIZE,
    cull_idle_timeout: int = CULL_IDLE_TIMEOUT,
    preheat: bool = True,
    cull_interval: int = CULL_INTERVAL,
    fill_delay: float = FILL_DELAY,
    allow_hosts=(),
) -> list[str]:
    """The Voila command ``qra-widgets app`` runs.

    Preheated kernels make the first render fast; idle kernels with no open connection are
    culled (a tab that died without its ``beforeunload`` request).  The websocket limit is
    well above the app's 5 MiB upload limit, so an oversized file reaches the server and is
    refused with a message instead of silently closing the connection (up to ~47 MiB, base64
    included).  ``host`` is only the address to bind; the app answers to :data:`LOCAL_HOSTS`
    and ``allow_hosts`` (see :func:`request_refusal`).

    Examples
    --------
    >>> command = voila_command(8866, no_browser=True)
    >>> command[1:3], "--VoilaConfiguration.template=qra" in command
    (['-m', 'qra_widgets.serve'], True)
    """
    from importlib import resources

    notebook = str(resources.files("qra_widgets").joinpath("app.ipynb"))
    return [
        sys.executable,
        "-m",
        "qra_widgets.serve",
        notebook,
        f"--port={port}",
        f"--Voila.ip={host}",
        *(f"{ALLOW_HOST_OPTION}{name}" for name in sorted(allowed_hosts(allow_hosts) - set(LOCAL_HOSTS))),
        *(["--no-browser"] if no_browser else []),
        *(
            ["--preheat_kernel=True", f"--pool_size={pool_size}", f"--VoilaKernelManager.fill_delay={fill_delay}"]
            if preheat and pool_size > 0
            else []
        ),
        f"--MappingKernelManager.cull_idle_timeout={cull_idle_timeout}",
        f"--MappingKernelManager.cull_interval={cull_interval}",
        f"--Voila.tornado_settings={{'websocket_max_message_size': {WEBSOCKET_MAX_MESSAGE_BYTES}}}",
        f"--VoilaExecutor.iopub_timeout={IOPUB_TIMEOUT}",
        f"--Voila.identity_provider_class={__name__}.XSRFCookieIdentityProvider",
        f"--VoilaConfiguration.template={TEMPLATE}",
        f"--VoilaConfiguration.extension_allowlist={list(FRONT_END_EXTENSIONS)}",
        "--VoilaConfiguration.show_tracebacks=False",
        "--VoilaConfiguration.strip_sources=True",
    ]


def __getattr__(name: str):
    """``XSRFCookieIdentityProvider`` is built on first use, so importing this module needs no Jupyter Server."""
    if name == "XSRFCookieIdentityProvider":
        global XSRFCookieIdentityProvider
        XSRFCookieIdentityProvider = _xsrf_cookie_identity_provider()
        return XSRFCookieIdentityProvider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _xsrf_cookie_identity_provider():
    from inspect import isawaitable

    from jupyter_server.auth.identity import PasswordIdentityProvider

    class XSRFCookieIdentityProvider(PasswordIdentityProvider):
        """Jupyter Server's default identity provider, which also sets the ``_xsrf`` cookie.

        Tornado sets that cookie only when a handler reads ``xsrf_token``, and Voila's page
        handler never does; its front end then posts the tab's kernel shutdown with an empty
        ``_xsrf`` and is refused.  Reading the token on a page request (not a websocket
        upgrade) sets the cookie, so the shutdown request passes Tornado's ordinary
        double-submit check.  Nothing else about authentication changes.
        """

        async def get_user(self, handler):
            user = super().get_user(handler)
            if isawaitable(user):
                user = await user
            request = handler.request
            if (
                user is not None
                and request.method == "GET"
                and "_xsrf" not in request.cookies
                and request.headers.get("Upgrade", "").lower() != "websocket"
            ):
                handler.current_user = user  # Tornado's xsrf_token reads it; prepare() then sets the same user
                handler.xsrf_token  # noqa: B018 - reading it sets the cookie
            return user

    XSRFCookieIdentityProvider.__module__ = __name__
    return XSRFCookieIdentityProvider


def _forbidden_handler():
    import tornado.web

    class ForbiddenHost(tornado.web.RequestHandler):
        """Answers 403 to every method: a request :func:`request_refusal` refused."""

        def initialize(self, reason: str) -> None:
            self.reason = reason

        def prepare(self) -> None:
            self.set_status(403)
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            self.finish(f"403 Forbidden: {self.reason}\n")

    return ForbiddenHost


def guard_application(app, allowed) -> None:
    """Make ``app`` (a Tornado application) refuse every request :func:`request_refusal` refuses,
    before routing: no handler of Voila or Jupyter Server sees it."""
    import logging

    find_handler = app.find_handler
    forbidden = _forbidden_handler()
    log = logging.getLogger("qra_widgets.serve")

    def guarded(request, **kwargs):
        reason = request_refusal(request.headers, allowed)
        if reason is None:
            return find_handler(request, **kwargs)
        log.warning(
            "refused %s %s: %s (Host %r, Origin %r)",
            request.method,
            request.path[:200],
            reason,
            str(request.headers.get("Host"))[:100],
            str(request.headers.get("Origin"))[:100],
        )
        return app.get_handler_delegate(request, forbidden, {"reason": reason})

    app.find_handler = guarded


def _guarded_voila(allowed):
    import voila.app

    class HostGuardVoila(voila.app.Voila):
        """Voila whose application refuses requests for other host names (see :func:`guard_application`)."""

        def listen(self):
            guard_application(self.app, allowed)
            return super().listen()

    return HostGuardVoila


def main(argv: list[str] | None = None) -> None:
    """Voila's command line (``python -m qra_widgets.serve NOTEBOOK --port=PORT [--allow-host=NAME]...``),
    able to find the ``qra`` template, answering only to the allowed host names."""
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(SHARE), os.environ.get("JUPYTER_PATH")]))
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = [a.removeprefix(ALLOW_HOST_OPTION) for a in argv if a.startswith(ALLOW_HOST_OPTION)]
    argv = [a for a in argv if not a.startswith(ALLOW_HOST_OPTION)]
    _guarded_voila(allowed_hosts(extra)).launch_instance(argv)


if __name__ == "__main__":
    main()
