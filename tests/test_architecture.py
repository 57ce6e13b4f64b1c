"""The house plan as a test: the import-linter contracts in ``.importlinter`` hold.

Data flows one way (measures -> study -> io -> engine -> compare/overview -> report -> widgets
-> CLI) and nothing imports in a circle; a module that imports up the plan fails here.
"""

from __future__ import annotations

import configparser
import io
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

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


def test_no_module_imports_in_a_circle_besides_the_writers_delegation():
    """Module by module (finer than the acyclic contract, which looks at packages): no circle once the
    one call-time arrow, ``Assessment.to_*`` -> report/formats.py, is set aside."""
    edges = _imports_by_module()
    assert "qra_widgets.result" in edges and "qra_widgets.report.formats" in edges["qra_widgets.assess"]
    edges["qra_widgets.assess"].discard("qra_widgets.report.formats")
    assert _circles(edges) == []


def test_the_engine_imports_the_writers_only_when_a_writer_is_called():
    """The exception in ``.importlinter`` is one import inside ``assess._writers``: loading the
    engine never loads a writer, and report/formats.py never imports the engine."""
    import ast

    tree = ast.parse((ROOT / "qra_widgets" / "assess.py").read_text(encoding="utf-8"))
    where = {}
    for function in [None, *[n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]]:
        body = tree.body if function is None else function.body
        for node in body if function is None else ast.walk(function):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("report"):
                where.setdefault(node.module, set()).add(None if function is None else function.name)
    assert where == {"report": {"_writers"}}
    formats = ast.parse((ROOT / "qra_widgets" / "report" / "formats.py").read_text(encoding="utf-8"))
    loaded = {n.module for n in formats.body if isinstance(n, ast.ImportFrom)}
    assert not {m for m in loaded if m and m.lstrip(".").startswith(("assess", "study", "measures"))}, loaded
