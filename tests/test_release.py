"""What a release promises beyond the code: the version on the command line, ``python -m
qra_widgets``, the typing marker, and numpydoc Parameters/Returns on the public functions
(the API reference is generated from them, docs/api/)."""

from __future__ import annotations

import importlib.resources
import inspect
import re
import subprocess
import sys

import pytest

import qra_widgets
from qra_widgets.cli import main


def test_version_option_prints_the_package_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"qra-widgets {qra_widgets.__version__}\n"


def test_python_dash_m_runs_the_same_command_line():
    result = subprocess.run(
        [sys.executable, "-m", "qra_widgets", "report", "--example", "qrapp_example1"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    assert "|   SVM | CV\\* | 19.96 |" in result.stdout  # QRA++ Table 3: CV* of SVM's Fluency, original and two repeats
    version = subprocess.run(
        [sys.executable, "-m", "qra_widgets", "--version"], capture_output=True, text=True, check=True, timeout=120
    )
    assert version.stdout.strip() == f"qra-widgets {qra_widgets.__version__}"


def test_the_typing_marker_ships_with_the_package():
    """PEP 561: in the package as imported (the installed wheel, in .ci/run's pythons job)."""
    assert importlib.resources.files("qra_widgets").joinpath("py.typed").is_file()


# numpydoc sections, read as numpydoc reads them: a title line, then a line of as many dashes.
def numpydoc_sections(doc: str) -> dict[str, list[str]]:
    """Section title -> its lines (for ``Parameters`` and the like: one entry per unindented line)."""
    lines = inspect.cleandoc(doc).splitlines()
    sections: dict[str, list[str]] = {}
    current = None
    for i, line in enumerate(lines):
        title = line.strip()
        if title and i + 1 < len(lines) and lines[i + 1].strip() == "-" * len(title) and not line.startswith(" "):
            current = sections.setdefault(title, [])
        elif current is not None and not re.fullmatch(r"-+", line.strip()):
            current.append(line)
    return sections


def documented_names(section: list[str]) -> list[str]:
    """``x, y : float`` and ``**filters`` entries of a Parameters section -> their names."""
    names = []
    for line in section:
        if line and not line[0].isspace():
            names += [name.strip() for name in line.split(" : ")[0].split(",")]
    return names


def signature_names(function) -> list[str]:
    prefix = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    return [prefix.get(p.kind, "") + p.name for p in inspect.signature(function).parameters.values()]


PUBLIC_FUNCTIONS = sorted(name for name in qra_widgets.__all__ if inspect.isfunction(getattr(qra_widgets, name)))


def test_the_public_api_has_functions_to_check():
    assert {"assess", "load_study", "read_qra3", "overview"} <= set(PUBLIC_FUNCTIONS)


@pytest.mark.parametrize("name", PUBLIC_FUNCTIONS)
def test_every_public_function_documents_each_parameter_and_what_it_returns(name):
    function = getattr(qra_widgets, name)
    sections = numpydoc_sections(function.__doc__ or "")
    assert documented_names(sections.get("Parameters", [])) == signature_names(function), (
        f"{name}: the numpydoc Parameters section must name every parameter, in the signature's order"
    )
    returns = [line for line in sections.get("Returns", []) if line.strip()]
    assert returns and not returns[0][0].isspace(), f"{name}: a numpydoc Returns section with a type"


def test_the_section_reader_finds_a_missing_parameter():
    def documented(a, b=1, *args, **kwargs):
        """Sum.

        Parameters
        ----------
        a, b : int
            Terms.
        **kwargs
            Ignored.

        Returns
        -------
        int
        """

    sections = numpydoc_sections(documented.__doc__)
    assert documented_names(sections["Parameters"]) == ["a", "b", "**kwargs"]
    assert signature_names(documented) == ["a", "b", "*args", "**kwargs"]
    assert sections["Returns"][0] == "int"
