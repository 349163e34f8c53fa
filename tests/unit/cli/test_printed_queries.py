"""The queries the demo, the run summary and the README give a reader to type next, run as
typed by `metrics-etl sql` at an 80-column terminal on a warehouse of known numbers: each shows
every column it selects (the key ones first), in an order it names."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipelines.bi.summary import _INACTIVE_SEATS_QUERY, _TEAMS_QUERY
from pipelines.cli import _sql, cli
from pipelines.cli._run import _FIRST_QUERY
from tests.integration.bi._warehouse import build_warehouse
from tests.unit.cli.test_sql import _boxes

ROOT = Path(__file__).resolve().parents[3]
SURFACES = (ROOT / "sql/queries/select_agent_surfaces_in_use.sql").read_text()


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("printed") / "w.duckdb"
    build_warehouse(path)
    return path


def _selected(query: str) -> list[str]:
    """The names a query's SELECT gives its columns (an alias if it has one)."""
    listed = re.search(r"SELECT\s+(.*?)\s+FROM", query, re.S | re.I)
    assert listed is not None, query
    return [column.split()[-1] for column in re.split(r",\s*(?![^()]*\))", listed[1])]


@pytest.mark.parametrize(
    ("query", "keys"),
    [
        (_FIRST_QUERY, ["scope_name", "agent_name"]),
        (_TEAMS_QUERY, ["scope_name", "team_slug"]),
        (_INACTIVE_SEATS_QUERY, ["org_login", "login"]),
        (SURFACES, ["scope", "scope_name", "surface_name"]),
    ],
    ids=["the demo's and README's first", "the summary's teams", "the summary's inactive seats", "README surfaces"],
)
def test_a_printed_query_shows_every_column_it_selects_at_an_80_column_terminal(
    warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str, keys: list[str]
) -> None:
    for name in list(os.environ):
        if name.startswith(("SERVICE_", "WAREHOUSE_", "SERVING_", "METRICS_", "LAKE_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SERVING_PATH", str(warehouse))
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr(_sql, "_stdout_is_terminal", lambda: True)
    done = CliRunner().invoke(cli, ["sql"], input=query)  # as the README runs a file: on stdin
    assert done.exit_code == 0, done.output
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    boxes = _boxes(done.stdout)
    shown = [name for at, (names, _) in enumerate(boxes) for name in names if at == 0 or name not in keys]
    assert shown == _selected(query) and all(names[: len(keys)] == keys for names, _ in boxes), done.stdout
    assert all(rows for _, rows in boxes) and "ORDER BY" in query
    if query != SURFACES:  # the summary's and the demo's fit whole, one table
        assert len(boxes) == 1


def test_the_demos_first_query_is_the_readmes() -> None:
    assert f'sql "{_FIRST_QUERY}"' in (ROOT / "README.md").read_text()
