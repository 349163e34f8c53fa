"""The import rule drawn in docs/architecture.md holds for every module of `pipelines/`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pipelines"
_ROW = re.compile(r"^\|\s*`(\w+)`\s*\|(.*)\|\s*$")
_ROOT_HELPERS = {"_paths", "_memory", "_process", "_clock", "_words"}


def _layers() -> dict[str, set[str] | None]:
    """Package -> the packages it may import (None: every package), from the doc's table."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text.split("<!-- layers -->")[1].split("<!-- /layers -->")[0]
    layers: dict[str, set[str] | None] = {}
    for line in table.splitlines():
        match = _ROW.match(line)
        if match:
            name, allowed = match.groups()
            layers[name] = None if "every package" in allowed else set(re.findall(r"`(\w+)`", allowed))
    return layers


def _top(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "pipelines" and len(parts) > 1 else None


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        top = relative.parts[0].removesuffix(".py")
        if top not in {"__init__", *_ROOT_HELPERS}:
            out.append((top, path))
    return out


def test_every_package_is_placed_in_a_layer() -> None:
    layers = _layers()
    unplaced = sorted({top for top, _ in _modules()} - set(layers))
    assert not unplaced, f"add {unplaced} to the layer table in docs/architecture.md"


def test_no_package_imports_one_above_it() -> None:
    layers = _layers()
    broken = []
    for top, path in _modules():
        allowed = layers.get(top)
        if allowed is None:
            continue
        for module in _imports(path):
            target = _top(module)
            if target is None or target == top:
                continue
            if target in _ROOT_HELPERS and top not in ("service", "vendors"):
                continue
            if target not in allowed:
                broken.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not broken, "imports against docs/architecture.md:\n" + "\n".join(broken)


def test_the_table_names_only_packages_that_exist() -> None:
    layers = _layers()
    existing = {top for top, _ in _modules()}
    named = set(layers) | {name for allowed in layers.values() if allowed for name in allowed}
    assert named <= existing, f"docs/architecture.md names packages that do not exist: {sorted(named - existing)}"


def _sized_modules() -> list[Path]:
    """The modules the size rule holds: pipelines/ and the emulator of the service (emulator/)."""
    return [path for _, path in _modules()] + sorted((ROOT / "emulator").rglob("*.py"))


def test_the_size_rule_reads_the_emulator_too() -> None:
    assert ROOT / "emulator" / "reportdata.py" in _sized_modules()


def test_a_module_over_300_lines_says_why_at_its_top() -> None:
    # Past ~300 lines a module usually holds two things; the few that are one thing say so.
    unexplained = []
    for path in _sized_modules():
        text = path.read_text()
        docstring = ast.get_docstring(ast.parse(text)) or ""
        if text.count("\n") > 300 and not re.search(r"\blong because\b", docstring, re.IGNORECASE):
            unexplained.append(f"{path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    assert not unexplained, "split these or say 'Long because ...' in the module docstring:\n" + "\n".join(unexplained)


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Module -> the modules of `pipelines` it imports (under TYPE_CHECKING or in a function too:
    a circle only type checking walks still ties the modules into one piece)."""
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                # `from package import module` imports the module; `from module import name`, the module.
                targets.update(
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names
                )
            elif isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
        graph[name] = {target for target in targets if target in modules and target != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
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
                        circles.append(sorted(component))
    return circles


def test_the_circle_finder_names_the_modules_of_a_circle_and_only_those() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}}
    assert _circles(graph) == [["a", "b", "c"]]


def test_no_import_circle_spans_modules() -> None:
    # A circle makes its modules one piece: none can be read, tested or moved without the others.
    circles = _circles(_import_graph())
    named = "\n".join(" <-> ".join(circle) for circle in circles)
    assert not circles, f"import circles (move what the modules share to a module both import):\n{named}"
