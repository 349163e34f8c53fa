"""The service layer is a library: it knows nothing of the application around it."""

import ast
from pathlib import Path

import pipelines.service

PACKAGE = Path(pipelines.service.__file__).parent


def _foreign_imports(tree: ast.AST) -> set[str]:
    """Modules of ``pipelines`` outside ``pipelines.service``; a relative import counts (it hides where it goes)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            found.add("." * node.level + (node.module or ""))
            continue
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        found |= {n for n in names if n.split(".")[0] == "pipelines" and n.split(".")[1:2] != ["service"]}
    return found


def test_no_module_of_the_service_imports_the_rest_of_pipelines() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 10
    foreign = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in modules
        for name in _foreign_imports(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert not foreign, f"imports from outside pipelines.service: {sorted(foreign)}"
