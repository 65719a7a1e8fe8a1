"""The modules of ppcg_py import one another one way: no cycle, counting every import
(a function's own, and those under TYPE_CHECKING), and the stages before code
generation (extract, schedule, memory) never import codegen."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ppcg_py"


def _modules() -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, whether it is a package's __init__)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _imports(modules: dict[str, tuple[Path, bool]]) -> dict[str, set[str]]:
    """The ppcg_py modules each module imports, anywhere in its code."""

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in modules.items():
        base = name if is_package else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                source = base
                for _ in range(node.level - 1):
                    source = source.rpartition(".")[0]
                source = (f"{source}.{node.module}" if node.module else source) if node.level else node.module
                targets.add(source)
                targets.update(f"{source}.{alias.name}" for alias in node.names)
        graph[name] = {m for t in targets if (m := known(t)) is not None and m != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle():
    assert _cycles(_imports(_modules())) == []


def test_stages_before_codegen_do_not_import_it():
    graph = _imports(_modules())
    early = ("ppcg_py.extract", "ppcg_py.schedule", "ppcg_py.memory")
    reaching = {m: sorted(t for t in targets if t.startswith("ppcg_py.codegen"))
                for m, targets in graph.items() if m.startswith(early)}
    assert {m: t for m, t in reaching.items() if t} == {}
