"""The catalog's vendor metrics on a tier published from what a run lands over loopback (the
service's reports, Claude Code's and Cursor's own usage: tests/integration/bi/_vendors_landed.py):
the reader, `metrics-etl metrics query` and the MCP server's query tool answer each source's figures
as aggregate.vendor_daily and vendor_periods show them, a hidden group NULL and named as
suppressed, never a person; the people no login is known for under scope `vendor`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from pipelines.cli import cli
from pipelines.config import MetricsConfig
from pipelines.mcp._tools import TOOLS
from pipelines.metrics import MetricsError, MetricsReader
from pipelines.metrics.catalog import GROUPS
from pipelines.publish.aggregate import aggregate_serving
from pipelines.publish.lake import publish
from tests.integration.bi._vendors_landed import DAYS, land_vendor_world
from tests.integration.metrics._both_ways import both_ways

K = 3


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("vendor-catalog")
    with duckdb.connect(str(land_vendor_world(home))) as conn:
        publish(conn, lake=home / "lake", serving=home / "serving.duckdb", k=K, full=True)
    return home


def _config(root: Path) -> MetricsConfig:
    return MetricsConfig(aggregate_path=aggregate_serving(root / "serving.duckdb"), pseudonymous_path=None)


def _tier(root: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(aggregate_serving(root / "serving.duckdb")), read_only=True) as tier:
        return tier.execute(sql).fetchall()


def test_each_sources_people_a_day_are_the_tiers_shown_figures_and_a_hidden_group_is_named(root: Path) -> None:
    with MetricsReader(_config(root)) as reader:
        answer = reader.query("assistant_people", start=DAYS[0], end=DAYS[-1])
    rows = {(r["scope"], r["scope_name"], r["day"], r["source"]): r for r in answer.records()}
    shown = _tier(
        root,
        "SELECT scope, scope_name, day, source, suppressed, active_people FROM aggregate.vendor_daily"
        f" WHERE day <= DATE '{DAYS[-1]}'",  # Cursor's spend read on a later day is a row of its own
    )
    assert {key[:4] for key in shown} == set(rows)
    for *key, suppressed, people in shown:
        assert (rows[tuple(key)]["assistant_people"], rows[tuple(key)]["suppressed"]) == (people, suppressed)
    assert {"service", "claude_code", "cursor"} <= {r["source"] for r in rows.values() if not r["suppressed"]}
    hidden = [key for *key, suppressed, _ in shown if suppressed]
    assert hidden and answer.suppressed.count == len(hidden)
    assert all(set(group) == {"scope", "scope_name", "day", "source"} for group in answer.suppressed.groups)


def test_a_period_metric_is_the_tiers_period_and_a_source_filter_names_it(root: Path) -> None:
    with MetricsReader(_config(root)) as reader:
        answer = reader.query("assistant_lines_added_28d", filters={"source": "cursor"})
    expected = _tier(
        root,
        "SELECT scope, scope_name, period_start, period_end, source, lines_added, suppressed"
        " FROM aggregate.vendor_periods WHERE source = 'cursor' AND period_index = 0 ORDER BY ALL",
    )
    assert expected and list(answer.rows) == expected


def test_the_people_no_login_is_known_for_are_asked_for_as_scope_vendor(root: Path) -> None:
    with MetricsReader(_config(root)) as reader:
        answer = reader.query("assistant_people", scope="vendor:cursor", start=DAYS[0], end=DAYS[-1])
        with pytest.raises(MetricsError, match=r"unknown scope 'vendor:nobody': accepted: .*vendor:cursor"):
            reader.query("assistant_people", scope="vendor:nobody")
    assert {r["scope"] for r in answer.records()} == {"vendor"}
    assert [r["day"] for r in answer.records()] == list(DAYS)
    assert all(r["assistant_people"] > 0 for r in answer.records() if not r["suppressed"])


def test_the_command_line_and_the_mcp_query_tool_answer_as_the_reader(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("SERVICE_", "WAREHOUSE_", "SERVING_", "METRICS_", "LAKE_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("METRICS_HOME", str(root))
    done = CliRunner().invoke(cli, ["metrics", "query", "assistant_requests", "--format", "json"])
    assert done.exit_code == 0, done.output
    tool = TOOLS["query_metric"]
    with MetricsReader(_config(root)) as reader:
        expected = reader.query("assistant_requests").to_dict()
        assert tool.answer(reader, tool.args(metric="assistant_requests")) == expected
    assert json.loads(done.stdout) == expected
    assert {r["source"] for r in expected["rows"] if r["assistant_requests"] is not None} >= {"service", "cursor"}


@pytest.mark.parametrize("name", [m.name for m in GROUPS["vendors"]])
def test_each_vendor_metric_is_bi_assistant_usage_dailys_counted_figure(root: Path, name: str) -> None:
    with (
        MetricsReader(_config(root)) as reader,
        duckdb.connect(str(root / "serving.duckdb"), read_only=True) as full,
    ):
        shown, _hidden = both_ways(reader, full, name, DAYS[0])
    assert shown, f"{name}: no figure shown to compare"


def test_each_vendors_cost_is_the_tiers_and_the_command_line_and_the_mcp_tool_answer_it(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    expected = _tier(
        root,
        "SELECT scope, scope_name, day, source, cost_usd, suppressed FROM aggregate.vendor_daily"
        f" WHERE source IN ('claude_code', 'cursor') AND day <= DATE '{DAYS[-1]}'"
        " AND (suppressed OR cost_usd IS NOT NULL) ORDER BY ALL",
    )
    assert [r for r in expected if r[3] == "cursor" and not r[5]], "Cursor's spend read on a report day is shown"
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("SERVICE_", "WAREHOUSE_", "SERVING_", "METRICS_", "LAKE_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("METRICS_HOME", str(root))
    args = ["--from", DAYS[0].isoformat(), "--to", DAYS[-1].isoformat()]
    done = CliRunner().invoke(cli, ["metrics", "query", "assistant_cost", *args, "--format", "json"])
    assert done.exit_code == 0, done.output
    tool = TOOLS["query_metric"]
    with MetricsReader(_config(root)) as reader:
        answer = reader.query("assistant_cost", start=DAYS[0], end=DAYS[-1])
        by_tool = tool.answer(
            reader, tool.args(metric="assistant_cost", start=DAYS[0].isoformat(), end=DAYS[-1].isoformat())
        )
    rows = [r for r in answer.rows if r[3] is not None]  # a gap's row names no source
    assert [(*r[:4], r[4], r[5]) for r in rows] == expected
    assert by_tool == answer.to_dict() and json.loads(done.stdout) == answer.to_dict()
