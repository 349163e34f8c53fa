"""No list of tables is kept by hand: a list of tables in production code is derived from the
catalog (pipelines/warehouse/catalog.py), whose declarations (and the column declarations beside
them, pipelines/transform/_columns_<schema>.py) are the only places that list tables.

A named collection of two or more table names written out (a constant, a loop's literal) is a
second list to keep in step with the catalog, and such lists drifted before: the publish's
upstream, the unkeyed tables, the webhook refresh's tables. A dict keyed by tables is not one: it
gives each table what is its own (its frame, its columns, its key), which the catalog cannot."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pipelines.warehouse.catalog import TABLES

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pipelines"
DECLARATIONS = {PACKAGE / "warehouse" / "catalog.py", *(PACKAGE / "transform").glob("_columns_*.py")}
NAMES = {t.name for t in TABLES}
BARE = {t.table for t in TABLES}


def _collection(node: ast.AST | None) -> list[ast.expr] | None:
    """The elements of a tuple, list or set literal, or of frozenset/tuple/set(...) of one."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"frozenset", "set", "tuple"}:
        node = node.args[0] if len(node.args) == 1 else None
    return node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else None


def _table_names(elements: list[ast.expr]) -> list[str]:
    texts = [e.value for e in elements if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    qualified = [t for t in texts if t in NAMES]
    if len(qualified) >= 2:
        return qualified
    bare = [t for t in texts if t in BARE]
    return bare if len(bare) >= 2 and len(bare) == len(elements) else []


def table_lists(source: str) -> list[str]:
    """Where `source` writes out a list of tables: an assignment's value or a loop's iterable."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            candidates = [node.value]
        elif isinstance(node, (ast.For, ast.comprehension)):
            candidates = [node.iter]
        else:
            continue
        for candidate in candidates:
            elements = _collection(candidate)
            if elements and (names := _table_names(elements)):
                found.append(f"line {candidate.lineno}: {', '.join(names)}")
    return found


def test_no_production_module_keeps_a_list_of_tables_by_hand() -> None:
    broken = [
        f"{path.relative_to(ROOT)} {where}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in DECLARATIONS
        for where in table_lists(path.read_text())
    ]
    assert not broken, "derive these from the catalog (tables(...), a Table field):\n" + "\n".join(broken)


@pytest.mark.parametrize(
    "former",
    [
        'UNKEYED = frozenset({"raw.quarantine", "core.daily_totals"})',
        'REPOSITORY_TABLES = ("repositories", "repository_stats", "issues", "warnings")',
        'TABLES = {n: f(n) for n in ("core.repository_days", "core.repository_review_times")}',
        'STATE_TABLES: tuple[str, ...] = ("billing.cost_centers", "billing.budgets")',
    ],
    ids=["unkeyed", "refresh-tables", "loop", "annotated"],
)
def test_the_check_finds_the_lists_of_tables_once_kept_by_hand(former: str) -> None:
    assert table_lists(former)


def test_a_table_s_own_values_keyed_by_it_and_one_table_named_pass() -> None:
    assert not table_lists('FRAMES = {"core.breakdowns": a, "core.agent_activity": b}\nUSER = "core.user_daily_totals"')
