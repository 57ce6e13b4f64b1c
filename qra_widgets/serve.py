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

On SIGTERM or SIGINT Voila stops its loop and shuts every kernel down; ``qra-widgets app``
passes those signals on (``cli._app``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

WEBSOCKET_MAX_MESSAGE_BYTES = 64 * 2**20
TEMPLATE = "qra"
SHARE = Path(__file__).parent / "share" / "jupyter"
#: ``qra-widgets app``'s defaults; see the README's "Serving and deploying" section for the measurements behind them.
POOL_SIZE = 2
#: Seconds Voila waits after handing out a preheated kernel before starting its replacement (Voila's default: 1).
FILL_DELAY = 1.0
#: The JupyterLab extensions the page loads: the widgets, Voila's widget manager (it keeps the one
#: for the installed ipywidgets) and Plotly's renderer.  Voila loads
#: every extension installed in the environment otherwise (anywidget alone is 0.37 MB of
#: JavaScript more for every visitor, and a user's own JupyterLab extensions would follow).
FRONT_END_EXTENSIONS = ("@jupyter-widgets/jupyterlab-manager", "@voila-dashboards/widgets-manager7",
                        "@voila-dashboards/widgets-manager8", "jupyterlab-plotly")
CULL_IDLE_TIMEOUT = 600
CULL_INTERVAL = 60
#: Seconds nbclient waits for a cell's output once the kernel has replied (nbclient's default: 4).
IOPUB_TIMEOUT = 120


def voila_command(port: int, no_browser: bool, host: str = "127.0.0.1", pool_size: int = POOL_SIZE,
                  cull_idle_timeout: int = CULL_IDLE_TIMEOUT, preheat: bool = True,
                  cull_interval: int = CULL_INTERVAL, fill_delay: float = FILL_DELAY) -> list[str]:
    """The Voila command ``qra-widgets app`` runs.

    Preheated kernels make the first render fast; idle kernels with no open connection are
    culled (a tab that died without its ``beforeunload`` request).  The websocket limit is
    well above the app's 5 MiB upload limit, so an oversized file reaches the server and is
    refused with a message instead of silently closing the connection (up to ~47 MiB, base64
    included).

    Examples
    --------
    >>> command = voila_command(8866, no_browser=True)
    >>> command[1:3], "--VoilaConfiguration.template=qra" in command
    (['-m', 'qra_widgets.serve'], True)
    """
    from importlib import resources

    notebook = str(resources.files("qra_widgets").joinpath("app.ipynb"))
    return [
        sys.executable, "-m", "qra_widgets.serve", notebook, f"--port={port}", f"--Voila.ip={host}",
        *(["--no-browser"] if no_browser else []),
        *(["--preheat_kernel=True", f"--pool_size={pool_size}", f"--VoilaKernelManager.fill_delay={fill_delay}"]
          if preheat and pool_size > 0 else []),
        f"--MappingKernelManager.cull_idle_timeout={cull_idle_timeout}",
        f"--MappingKernelManager.cull_interval={cull_interval}",
        f"--Voila.tornado_settings={{'websocket_max_message_size': {WEBSOCKET_MAX_MESSAGE_BYTES}}}",
        f"--VoilaExecutor.iopub_timeout={IOPUB_TIMEOUT}",
        f"--Voila.identity_provider_class={__name__}.XSRFCookieIdentityProvider",
        f"--VoilaConfiguration.template={TEMPLATE}",
        f"--VoilaConfiguration.extension_allowlist={list(FRONT_END_EXTENSIONS)}",
        "--VoilaConfiguration.show_tracebacks=False", "--VoilaConfiguration.strip_sources=True",
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
            if (user is not None and request.method == "GET" and "_xsrf" not in request.cookies
                    and request.headers.get("Upgrade", "").lower() != "websocket"):
                handler.current_user = user  # Tornado's xsrf_token reads it; prepare() then sets the same user
                handler.xsrf_token  # noqa: B018 - reading it sets the cookie
            return user

    XSRFCookieIdentityProvider.__module__ = __name__
    return XSRFCookieIdentityProvider


def main(argv: list[str] | None = None) -> None:
    """Voila's command line (``python -m qra_widgets.serve NOTEBOOK --port=...``), able to find the ``qra`` template."""
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(SHARE), os.environ.get("JUPYTER_PATH")]))
    import voila.app

    voila.app.main(argv)


if __name__ == "__main__":
    main()
