"""The shape of the house (ENGINEERING.md): arrows point inward. Every import statement of `companion/` and
`vision/` is read from the source, those inside functions too, and the test fails on an import cycle between
modules, on `companion/rules` importing Flask, SQLAlchemy, the camera or the web layer, and on `vision` importing
the web layer."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("companion", "vision")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(p): p
        for package in PACKAGES
        for p in (ROOT / package).rglob("*.py")
        if "__pycache__" not in p.parts
    }


def _imports(name: str, path: Path) -> Iterator[str]:
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            yield target
            # "from package import module" imports the module too.
            yield from (f"{target}.{alias.name}" for alias in node.names)


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for target in _imports(name, path):
            # An import of a.b.c loads a, a.b and a.b.c; only modules of this project count.
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                targets.add(target)
        graph[name] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def _external(path: Path, name: str) -> set[str]:
    return {t.split(".")[0] for t in _imports(name, path)}


def test_there_is_no_import_cycle_between_modules():
    assert _cycles(_graph()) == []


def test_the_rules_engine_imports_no_framework_camera_or_web_layer():
    for name, path in _modules().items():
        if not name.startswith("companion.rules"):
            continue
        outside = _external(path, name) & {
            "flask",
            "flask_sqlalchemy",
            "sqlalchemy",
            "wtforms",
            "vision",
            "cv2",
            "numpy",
        }
        assert not outside, (name, outside)
        inner = {
            t for t in _graph()[name] if t.startswith("companion") and not t.startswith("companion.rules")
        }
        assert not inner, (name, inner)


def test_the_camera_never_imports_the_web_layer():
    graph = _graph()
    for name, targets in graph.items():
        if name.startswith("vision"):
            web = {t for t in targets if t.startswith("companion") and not t.startswith("companion.rules")}
            assert not web, (name, web)


def test_the_input_boundary_imports_no_framework_and_only_the_engine():
    # ENGINEERING.md: "parsing of rules, phases, cards, groups and round reports in one module with no Flask or
    # SQLAlchemy, used by pages, API and CLI alike".
    path = ROOT / "companion" / "inputs.py"
    outside = _external(path, "companion.inputs") & {"flask", "flask_babel", "flask_sqlalchemy", "sqlalchemy"}
    assert not outside
    inner = {t for t in _graph()["companion.inputs"] if t.startswith("companion")}
    assert all(t.startswith("companion.rules") for t in inner), inner


def test_the_engines_sentences_are_worded_in_one_module_below_the_cards():
    # Every other module of the engine words its refusals through companion.rules.wording, which in turn needs
    # only the phases and the refusal codes (a card that cannot be read is worded there too).
    assert _graph()["companion.rules.wording"] <= {"companion.rules.phases", "companion.rules.refusals"}
