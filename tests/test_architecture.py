"""The house plan as a test: the import-linter contracts in ``.importlinter`` hold.

Data flows one way (measures -> study -> io -> engine -> compare/overview -> report -> widgets
-> CLI) and nothing imports in a circle; a module that imports up the plan fails here.
"""

from __future__ import annotations

import configparser
import inspect
import io
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_of_the_house_plan_are_kept():
    """``lint-imports`` run in the repository root finds ``.importlinter`` itself (``--config`` is
    deprecated since import-linter 2.17; finding the file in the current directory works on every
    release pyproject allows), and keeps every contract the file states."""
    command = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    done = subprocess.run(
        [command, "--no-cache"],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    stated = configparser.ConfigParser()
    stated.read(ROOT / ".importlinter", encoding="utf-8")
    contracts = [name for name in stated.sections() if name.startswith("importlinter:contract:")]
    assert len(contracts) >= 15
    assert f"Contracts: {len(contracts)} kept, 0 broken." in done.stdout, done.stdout[-3000:]


def _statements(text: str) -> int:
    """The logical lines of a module (tokenize's NEWLINE tokens): a statement counts once however
    ruff format wraps it, so the limit below does not move when the tree is reformatted."""
    return sum(1 for token in tokenize.generate_tokens(io.StringIO(text).readline) if token.type == tokenize.NEWLINE)


def test_no_module_grows_past_about_four_hundred_and_fifty_statements():
    """A module that grows past ~450 statements is split by what it does (the largest today:
    widgets/annotation_experiment.py, 438; about 600 lines before ruff format wrapped them)."""
    sizes = {
        path.relative_to(ROOT).as_posix(): _statements(path.read_text(encoding="utf-8"))
        for path in (ROOT / "qra_widgets").rglob("*.py")
    }
    assert max(sizes.values()) > 100  # the walk found the package
    too_long = {name: n for name, n in sizes.items() if n > 450}
    assert not too_long, too_long


def _imports_by_module() -> dict[str, set[str]]:
    """Every module of the package -> the package modules it imports (grimp, as import-linter reads
    them: module-level and function-level imports alike)."""
    import grimp

    graph = grimp.build_graph("qra_widgets", cache_dir=None)
    return {name: set(graph.find_modules_directly_imported_by(name)) for name in graph.modules}


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_in_a_circle():
    """Module by module (finer than the acyclic contract, which looks at packages): no circle, with
    nothing set aside (``Assessment.to_*`` find their writers by name, :mod:`qra_widgets.writers`)."""
    edges = _imports_by_module()
    assert "qra_widgets.result" in edges and "qra_widgets.report.formats" in edges["qra_widgets"]
    assert _circles(edges) == []


def _layer_ranks() -> dict[str, int]:
    """``.importlinter``'s layers, top (0: the CLI) to bottom, as ``{module: rank}``; names joined by
    ``|`` share a rank.  The package root, the library's front door, sits right below the app
    (``widgets``); ``python -m qra_widgets`` (``__main__``) above the CLI."""
    stated = configparser.ConfigParser()
    stated.read(ROOT / ".importlinter", encoding="utf-8")
    layers = [line.strip() for line in stated["importlinter:contract:layers"]["layers"].splitlines() if line.strip()]
    ranks = {name.strip(): rank for rank, layer in enumerate(layers, start=1) for name in layer.split("|")}
    ranks["qra_widgets.__main__"] = 0
    ranks["qra_widgets"] = ranks["qra_widgets.widgets"] + 0.5
    return ranks


def _rank(module: str, ranks: dict[str, int]) -> float:
    return ranks[module] if module in ranks else ranks[".".join(module.split(".")[:2])]


def test_no_module_imports_one_above_it_but_the_lazy_dashboard():
    """Module by module, at any depth and whether the import is at the top or inside a function: the
    one import of a layer above is the package root's ``qra_widgets.Dashboard``, loaded in
    ``__getattr__`` when asked for.  (Before issue 32, ``assess`` imported ``report/formats.py`` too.)"""
    import ast

    edges = _imports_by_module()
    ranks = _layer_ranks()
    unplaced = {module for module in edges if module != "qra_widgets" and ".".join(module.split(".")[:2]) not in ranks}
    assert not unplaced, f"modules with no layer in .importlinter: {sorted(unplaced)}"
    up = {
        (importer, imported)
        for importer, imports in edges.items()
        for imported in imports
        if _rank(imported, ranks) < _rank(importer, ranks)
    }
    assert up == {("qra_widgets", "qra_widgets.widgets")}, sorted(up)
    root = ast.parse((ROOT / "qra_widgets" / "__init__.py").read_text(encoding="utf-8"))
    where = {
        function.name
        for function in ast.walk(root)
        if isinstance(function, ast.FunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.ImportFrom) and node.module == "widgets"
    }
    at_top = [n for n in root.body if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("widgets")]
    assert where == {"__getattr__"} and not at_top


def test_the_upward_check_sees_an_arrow_up():
    ranks = _layer_ranks()
    assert _rank("qra_widgets.report.formats", ranks) < _rank("qra_widgets.assess", ranks)
    assert _rank("qra_widgets.measures.kappa", ranks) > _rank("qra_widgets.assess", ranks)
    assert _rank("qra_widgets.writers", ranks) == _rank("qra_widgets.result", ranks)


def test_every_assessment_writer_is_the_report_function_its_docstring_names():
    """``Assessment.to_*`` delegate by name to the functions report/formats.py registers; ``help()``
    on each names that function, and report/formats.py never imports the engine it writes for."""
    import ast

    from qra_widgets import Assessment
    from qra_widgets.report import formats
    from qra_widgets.writers import writer

    methods = {"_repr_html_": "to_html"} | {
        name: name
        for name in (
            "table",
            "caption",
            "interval_caption",
            "to_markdown",
            "to_latex",
            "to_csv",
            "to_json",
            "narrative",
        )
    }
    for method, name in methods.items():
        assert writer(name) is getattr(formats, name)
        source = ast.unparse(ast.parse(inspect.getsource(getattr(Assessment, method)).strip()))
        assert f"writer({name!r})(self" in source, source
        if method != "_repr_html_":
            assert f"qra_widgets.report.formats.{name}" in getattr(Assessment, method).__doc__
    loaded = {
        n.module
        for n in ast.parse(Path(formats.__file__).read_text(encoding="utf-8")).body
        if isinstance(n, ast.ImportFrom)
    }
    assert not {m for m in loaded if m and m.lstrip(".").startswith(("assess", "study", "measures"))}, loaded


def test_an_unregistered_writer_is_named_in_its_error():
    from qra_widgets.writers import writer

    with pytest.raises(LookupError, match="no writer 'to_docx' is registered: import qra_widgets.report.formats"):
        writer("to_docx")


def test_the_developers_guide_shows_the_layers_as_the_contract_states_them():
    """docs/contributing.md's layer block is ``.importlinter``'s layers, top to bottom, without the
    ``qra_widgets.`` prefix (a note after a layer's names is allowed)."""
    stated = configparser.ConfigParser()
    stated.read(ROOT / ".importlinter", encoding="utf-8")
    layers = [line.strip() for line in stated["importlinter:contract:layers"]["layers"].splitlines() if line.strip()]
    expected = [" | ".join(name.strip().removeprefix("qra_widgets.") for name in layer.split("|")) for layer in layers]
    guide = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
    block = guide[guide.index("```\ncli\n") + 4 :]
    shown = [line.split("  ")[0].strip() for line in block[: block.index("```")].splitlines()]
    assert shown == expected


def test_every_measures_module_has_its_own_test_file():
    """Tests mirror the package: ``qra_widgets/measures/<module>.py`` is tested in
    ``tests/measures/test_<module>.py`` (a leading underscore dropped: ``_validation`` ->
    ``test_validation.py``)."""
    modules = sorted(p.stem for p in (ROOT / "qra_widgets" / "measures").glob("*.py") if p.stem != "__init__")
    assert len(modules) >= 14
    missing = [name for name in modules if not (ROOT / "tests" / "measures" / f"test_{name.lstrip('_')}.py").is_file()]
    assert not missing, missing


#: widgets/ modules that are not views: AppState and the commands and events mixed into it, which
#: may use pandas to compute what they hand the views.
APP_STATE_SIDE = {"state", "interval_commands", "events"}
#: What reading a pandas frame looks like in code: a view that calls one of these holds a frame.
FRAME_READING = {
    "iloc",
    "loc",
    "to_dict",
    "value_counts",
    "itertuples",
    "iterrows",
    "to_frame",
    "sort_values",
    "groupby",
    "nunique",
    "fillna",
    "astype",
    "isin",
    "head",
    "reset_index",
    "concat",
    "DataFrame",
    "Series",
    "notna",
    "isna",
    "dropna",
    "drop",
    "merge",
    "assign",
}


def _views() -> list[str]:
    names = [p.stem for p in (ROOT / "qra_widgets" / "widgets").glob("*.py") if p.stem != "__init__"]
    return sorted(set(names) - APP_STATE_SIDE)


def test_the_views_hold_no_pandas_frame():
    """The views render: the library, AppState and report/ (report/app_html.py, report/html.py) hand
    them HTML and plain Python data, so no view module imports pandas or reads a frame."""
    import ast

    import grimp

    views = _views()
    assert {"overview", "results", "sidebyside", "tables", "uncertainty", "library", "annotation_experiment"} <= set(
        views
    )
    graph = grimp.build_graph("qra_widgets", include_external_packages=True, cache_dir=None)
    importing = graph.find_modules_that_directly_import("pandas")
    assert "qra_widgets.widgets.state" in importing or "qra_widgets.overview" in importing  # the check sees pandas
    assert not importing & {f"qra_widgets.widgets.{name}" for name in views}, sorted(importing)
    reading = {}
    for name in views:
        tree = ast.parse((ROOT / "qra_widgets" / "widgets" / f"{name}.py").read_text(encoding="utf-8"))
        found = sorted({n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in FRAME_READING})
        if found:
            reading[name] = found
    assert not reading, reading
