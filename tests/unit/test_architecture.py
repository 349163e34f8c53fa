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
            if target in _ROOT_HELPERS and top != "service":
                continue
            if target not in allowed:
                broken.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not broken, "imports against docs/architecture.md:\n" + "\n".join(broken)


def test_the_table_names_only_packages_that_exist() -> None:
    layers = _layers()
    existing = {top for top, _ in _modules()}
    named = set(layers) | {name for allowed in layers.values() if allowed for name in allowed}
    assert named <= existing, f"docs/architecture.md names packages that do not exist: {sorted(named - existing)}"


def test_a_module_over_300_lines_says_why_at_its_top() -> None:
    # Past ~300 lines a module usually holds two things; the few that are one thing say so.
    unexplained = []
    for _, path in _modules():
        text = path.read_text()
        docstring = ast.get_docstring(ast.parse(text)) or ""
        if text.count("\n") > 300 and not re.search(r"\blong because\b", docstring, re.IGNORECASE):
            unexplained.append(f"{path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    assert not unexplained, "split these or say 'Long because ...' in the module docstring:\n" + "\n".join(unexplained)
