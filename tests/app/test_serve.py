"""What ``qra-widgets app`` configures, and the kernel's logging, without a browser.

The served page itself is tested in tests/e2e/test_serving.py and test_exposure.py.
"""

from __future__ import annotations

import json
import logging
import queue
import sys
import warnings
from pathlib import Path

import pytest

from qra_widgets import logs, serve
from qra_widgets.serve import voila_command


def test_qra_widgets_app_runs_plain_voila_with_its_settings():
    command = voila_command(8866, no_browser=True)
    assert command[1:3] == ["-m", "qra_widgets.serve"]
    assert command[3].endswith("app.ipynb")
    for setting in (
        "--preheat_kernel=True",
        f"--pool_size={serve.POOL_SIZE}",
        "--MappingKernelManager.cull_idle_timeout=600",
        "--VoilaConfiguration.template=qra",
        "--VoilaConfiguration.show_tracebacks=False",
        "--VoilaConfiguration.strip_sources=True",
        "--Voila.ip=127.0.0.1",
        f"--VoilaExecutor.iopub_timeout={serve.IOPUB_TIMEOUT}",
        "--Voila.identity_provider_class=qra_widgets.serve.XSRFCookieIdentityProvider",
    ):
        assert setting in command, setting


def test_the_page_loads_only_the_extensions_the_app_needs():
    command = voila_command(8866, no_browser=True)
    allow = next(part for part in command if part.startswith("--VoilaConfiguration.extension_allowlist="))
    assert allow == (
        "--VoilaConfiguration.extension_allowlist=['@jupyter-widgets/jupyterlab-manager', "
        "'@voila-dashboards/widgets-manager7', '@voila-dashboards/widgets-manager8', 'jupyterlab-plotly']"
    )


@pytest.fixture
def voila_argv(monkeypatch) -> list[str]:
    """The command line ``qra-widgets app`` starts Voila with, recorded by a stand-in for
    ``subprocess.Popen`` (the stand-in's process exits at once with status 0)."""
    argv: list[str] = []

    class Voila:
        returncode = 0

        def __init__(self, command, env):
            argv[:] = command

        def poll(self):
            return 0

        def wait(self):
            return 0

    monkeypatch.setattr("subprocess.Popen", Voila)
    return argv


def test_the_app_command_passes_pool_size_and_fill_delay(voila_argv):
    from qra_widgets import cli

    cli.main(["app", "--no-browser", "--pool-size", "20", "--fill-delay", "60"])
    assert "--pool_size=20" in voila_argv and "--VoilaKernelManager.fill_delay=60.0" in voila_argv


def test_pool_size_zero_starts_a_kernel_per_page():
    command = voila_command(8866, no_browser=True, pool_size=0)
    assert not any(part.startswith(("--preheat_kernel", "--pool_size")) for part in command)


def test_the_identity_provider_voila_is_told_to_load_exists():
    from jupyter_server.auth.identity import PasswordIdentityProvider
    from traitlets.utils.importstring import import_item

    provider = import_item("qra_widgets.serve.XSRFCookieIdentityProvider")
    assert issubclass(provider, PasswordIdentityProvider)


def test_the_page_template_has_no_external_links():
    template = serve.SHARE / "voila" / "templates" / serve.TEMPLATE
    assert json.loads((template / "conf.json").read_text()) == {"base_template": "lab"}
    text = (template / "index.html.j2").read_text()
    assert "extends 'voila/templates/lab/index.html.j2'" in text
    assert "<link" not in text and "http" not in text.replace("https?", "")


def test_configure_sends_the_log_to_a_file_and_not_to_stderr(tmp_path, capsys):
    log_file = tmp_path / "logs" / "app.log"
    handler = logs.configure(log_file)
    try:
        try:
            raise ValueError("a control that is a list")
        except ValueError:
            logging.getLogger("qra_widgets.widgets.common").exception("callback import_heds failed")
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.warn("a warning names its file and line", UserWarning, stacklevel=1)
        handler.flush()
    finally:
        logs.reset()
    text = log_file.read_text()
    assert "callback import_heds failed" in text and "Traceback (most recent call last)" in text
    assert "ValueError: a control that is a list" in text and "a warning names its file and line" in text
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
    assert logging.getLogger("qra_widgets").propagate is True  # reset() undid it


def test_configure_is_idempotent(tmp_path):
    first = logs.configure(tmp_path / "a.log")
    second = logs.configure(tmp_path / "b.log")
    try:
        handlers = [h for h in logging.getLogger("qra_widgets").handlers if getattr(h, "_qra_widgets_handler", False)]
        assert handlers == [second] and first not in logging.getLogger("py.warnings").handlers
    finally:
        logs.reset()


def test_configure_reads_the_log_file_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(logs.LOG_FILE_VARIABLE, str(tmp_path / "env.log"))
    handler = logs.configure()
    try:
        logging.getLogger("qra_widgets").warning("from the environment")
        handler.flush()
    finally:
        logs.reset()
    assert "from the environment" in (tmp_path / "env.log").read_text()


@pytest.fixture
def kernel(tmp_path):
    """A real IPython kernel (as Voila starts one), its stderr written to a file."""
    from jupyter_client.manager import KernelManager

    stderr_path = tmp_path / "kernel-stderr.log"
    with open(stderr_path, "w") as stderr:
        manager = KernelManager(kernel_name="python3")
        manager.start_kernel(
            stderr=stderr, stdout=stderr, env={**__import__("os").environ, "PYTHONPATH": str(Path(__file__).parents[2])}
        )
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        yield client, stderr_path
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def _run(client, code: str) -> list[dict]:
    """Execute ``code``; return every iopub message up to the kernel's return to idle."""
    msg_id = client.execute(code)
    messages = []
    while True:
        try:
            message = client.get_iopub_msg(timeout=60)
        except queue.Empty:
            raise AssertionError(f"no answer to {code!r}") from None
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        messages.append(message)
        if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
            return messages


FAILING_CALLBACK = """
import logging, warnings
try:
    raise TypeError("control must be a string, not list")
except TypeError:
    logging.getLogger("qra_widgets.widgets.common").exception("callback import_heds failed (marker-7431)")
warnings.warn("undefined measure (marker-7432)", UserWarning)
"""


def test_in_a_kernel_without_configure_the_traceback_goes_to_the_front_end(kernel):
    """The problem: Python's last-resort handler writes to the kernel's stderr stream."""
    client, _stderr = kernel
    streamed = "".join(
        m["content"].get("text", "") for m in _run(client, FAILING_CALLBACK) if m["msg_type"] == "stream"
    )
    assert "marker-7431" in streamed


def test_in_a_kernel_configure_keeps_tracebacks_and_warnings_off_the_front_end(kernel):
    client, stderr_path = kernel
    _run(client, "from qra_widgets.logs import configure\nconfigure()")
    messages = _run(client, FAILING_CALLBACK)
    sent = json.dumps([m["content"] for m in messages if m["msg_type"] != "execute_input"])  # that one echoes the code
    assert "marker-743" not in sent and "Traceback" not in sent
    _run(client, "import sys; sys.stderr.flush()")
    logged = stderr_path.read_text()
    assert "callback import_heds failed (marker-7431)" in logged
    assert "TypeError: control must be a string, not list" in logged and "undefined measure (marker-7432)" in logged


def test_server_stderr_is_fd_2_outside_a_kernel():
    import os

    stream = logs.server_stderr()
    try:
        assert os.path.sameopenfile(stream.fileno(), sys.__stderr__.fileno())
    finally:
        stream.close()


def test_allow_host_names_reach_voila_and_a_wildcard_is_refused(voila_argv, capsys):
    from qra_widgets import cli

    assert cli.main(["app", "--no-browser", "--allow-host", "Dash.Example.org", "--allow-host", "10.0.0.5"]) == 0
    assert {"--allow-host=dash.example.org", "--allow-host=10.0.0.5"} <= set(voila_argv)
    assert "localhost" in capsys.readouterr().err
    assert cli.main(["app", "--no-browser", "--allow-host", "*.example.org"]) == 2
    assert "is not a host name" in capsys.readouterr().err


def test_host_binding_does_not_widen_the_allowed_names():
    command = voila_command(8866, no_browser=True, host="0.0.0.0")
    assert "--Voila.ip=0.0.0.0" in command and not any(part.startswith("--allow-host") for part in command)
    assert not serve.host_allowed("0.0.0.0:8866", serve.allowed_hosts())
    assert not serve.host_allowed("127.0.0.2", serve.allowed_hosts())  # exact names, not every loopback address
