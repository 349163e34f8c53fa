"""A report kind is its declaration: the places a new kind touches stay the ones
docs/architecture.md counts, because every other module loops over the declarations."""

from __future__ import annotations

import ast
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from pipelines.ingest.kinds import ROWS
from pipelines.service import ReportRef, get_dialect
from pipelines.service.kinds import REPORT_KINDS, ReportKind, carried_with, report_kind
from pipelines.transform import Provenance
from pipelines.warehouse.catalog import tables
from pipelines.warehouse.replace import _replaced

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "pipelines"
DECLARATIONS = PACKAGE / "service" / "kinds.py"
CARRIED = [k for k in REPORT_KINDS if k.carried_by is not None]
LEVELS = {k.level for k in REPORT_KINDS}
PERIODS = {k.kind for k in REPORT_KINDS}
# What a kind's path names it, under either scope: "repos-1-day", "organization-28-day".
PATH_NAMES = {
    k.path_name(scope).removesuffix("/latest") for k in REPORT_KINDS for scope in ("organization", "enterprise")
}


def _constants(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def kind_branches(source: str) -> list[str]:
    """The places in `source` that name a report kind instead of looping over the declarations:
    a path name ("repos-1-day"), a comparison against a carried kind's level, a condition or
    a key pairing a level with a period."""
    found = []
    carried_levels = {k.level for k in CARRIED}
    for node in ast.walk(ast.parse(source)):
        named = None
        if isinstance(node, ast.Constant) and node.value in PATH_NAMES:
            named = f"names {node.value!r}"
        elif isinstance(node, ast.Compare) and _constants(node) & carried_levels:
            named = f"compares with {sorted(_constants(node) & carried_levels)}"
        elif isinstance(node, (ast.BoolOp, ast.Compare, ast.Tuple)):
            # A tuple pairs them only when it holds nothing else: (level, period), a key.
            pure = not isinstance(node, ast.Tuple) or all(isinstance(e, ast.Constant) for e in node.elts)
            both = _constants(node)
            if pure and both & LEVELS and both & PERIODS:
                named = f"pairs {sorted(both & (LEVELS | PERIODS))}"
        if named:
            found.append(f"line {getattr(node, 'lineno', '?')} {named}")
    return found


def test_no_module_but_the_declarations_names_or_branches_on_a_report_kind() -> None:
    broken = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == DECLARATIONS:
            continue
        broken += [f"{path.relative_to(ROOT)} {where}" for where in kind_branches(path.read_text())]
    assert not broken, "loop over pipelines/service/kinds.py's declarations instead:\n" + "\n".join(broken)


@pytest.mark.parametrize(
    "former",
    [
        'if ref.level == "user" and ref.kind == "1-day":\n    pass',
        'carried = {("user", "1-day"): USER_TEAMS, ("aggregate", "1-day"): REPOS}',
        'if self.level in ("user-teams", "repos") and self.kind != "1-day":\n    pass',
        'path = "repos-1-day"',
    ],
    ids=["level-and-period", "keyed-by-pair", "carried-level", "path-name"],
)
def test_the_check_finds_the_branches_the_kinds_were_once_added_by(former: str) -> None:
    assert kind_branches(former)


def test_every_carried_kind_has_its_rows_its_tables_and_a_carrier_of_its_period() -> None:
    assert set(ROWS) == set(CARRIED)
    for kind in CARRIED:
        assert kind.carried_by in REPORT_KINDS and kind.carried_by.carried_by is None
        assert kind.kind == kind.carried_by.kind == "1-day"  # carried with a day's report
        landed = tables(writer=kind.level)
        assert landed, f"no catalog table has writer={kind.level!r}"
        assert {t.name for t in _replaced(kind.level) if t.writer == kind.level} == {
            t.name for t in landed if t.replaces
        }


@pytest.mark.parametrize("kind", CARRIED, ids=str)
def test_a_carried_kind_s_rows_are_for_exactly_the_tables_the_catalog_says_it_writes(kind: ReportKind) -> None:
    # The transform names the table each of its rows lands in (it cannot read the catalog); the
    # catalog says which tables the kind lands rows in (its others, core.team_days, its refresh
    # derives): the two must be one list.
    day = date(2026, 11, 20)
    prov = Provenance(
        ref=ReportRef("organization", "acme", kind.kind, kind.level, day),
        start_day=day,
        end_day=day,
        fetched_at=datetime(2026, 11, 21, tzinfo=UTC),
        dialect="service",
    )
    assert set(ROWS[kind]([], prov).frames) == {t.name for t in tables(writer=kind.level) if t.landing}


def test_each_carrier_carries_exactly_the_kinds_that_name_it() -> None:
    carried = [k for carrier in REPORT_KINDS for k in carried_with(carrier)]
    assert sorted(carried, key=str) == sorted(CARRIED, key=str)


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_every_kind_has_a_path_of_its_own_in_each_dialect(dialect: str) -> None:
    for scope, name in (("organization", "acme"), ("enterprise", "corp")):
        paths = [
            get_dialect(dialect).report_path(scope=scope, scope_name=name, kind=k.kind, level=k.level)
            for k in REPORT_KINDS
        ]
        assert len(set(paths)) == len(REPORT_KINDS)
        assert all(p.startswith(f"/{'orgs' if scope == 'organization' else 'enterprises'}/{name}/") for p in paths)
    assert (
        get_dialect(dialect)
        .report_path(scope="organization", scope_name="acme", kind="1-day", level="repos")
        .endswith("/metrics/reports/repos-1-day")
    )


def test_a_report_is_one_only_of_a_declared_level_and_period() -> None:
    for level in sorted(LEVELS):
        for period in sorted(PERIODS):
            day = date(2026, 11, 20) if period == "1-day" else None
            declared = any((k.level, k.kind) == (level, period) for k in REPORT_KINDS)
            if declared:
                assert ReportRef("organization", "acme", period, level, day).report == report_kind(level, period)
            else:
                with pytest.raises(ValueError, match=f"the {level} report is 1-day only"):
                    ReportRef("organization", "acme", period, level, day)  # type: ignore[arg-type]
