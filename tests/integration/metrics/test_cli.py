"""`metrics-etl metrics` in-process on a home of known numbers: the catalog as a table, CSV or
JSON, the same answers as the reader's; each mistake one line on stderr, no traceback (exit 2
for a question the catalog cannot take, 1 for a tier that cannot answer)."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pipelines.cli import cli
from pipelines.metrics import MetricsReader
from pipelines.metrics.catalog import METRICS
from tests.integration.bi._warehouse import LAST_DAY
from tests.integration.metrics.conftest import Home


@pytest.fixture
def run(home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("SERVICE_", "WAREHOUSE_", "SERVING_", "METRICS_", "LAKE_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("METRICS_HOME", str(home.root))

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, ["metrics", *args])

    return invoke


def test_list_names_every_metric_of_the_tier_and_the_dimensions(run) -> None:
    table = run("list", "--format", "table")
    assert table.exit_code == 0, table.output
    aggregate = [m for m in METRICS.values() if m.tier == "aggregate"]
    assert all(f"\n{m.name} " in table.stdout for m in aggregate)
    assert "user_interactions" not in table.stdout and "\ndimensions:\n" in table.stdout
    listed = json.loads(run("list", "--format", "json", "--tier", "pseudonymous").stdout)
    assert [m["name"] for m in listed["metrics"]] == list(METRICS)
    assert "user" in [d["name"] for d in listed["dimensions"]]


def test_describe_says_the_declaration(run) -> None:
    described = json.loads(run("describe", "agent_adoption", "--format", "json").stdout)
    assert described == METRICS["agent_adoption"].to_dict()
    assert (
        "\ngap_rule         A period's figure covers" in run("describe", "agent_adoption", "--format", "table").stdout
    )


def test_query_as_json_is_the_reader_s_answer(run, home: Home) -> None:
    done = run("query", "agent_adoption", "--format", "json")
    assert done.exit_code == 0, done.output
    with MetricsReader(home.config()) as reader:
        assert json.loads(done.stdout) == reader.query("agent_adoption").to_dict()


def test_query_as_csv_prints_rows_and_says_the_gaps_on_stderr(run, home: Home) -> None:
    done = run("query", "agent_job_starts", "--from", "2026-03-01", "--to", "2026-03-10", "--format", "csv")
    assert done.exit_code == 0, done.output
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert [r["day"] for r in rows] == [f"2026-03-{d:02d}" for d in range(1, 11)]
    assert {r["day"] for r in rows if r["agent_job_starts"] == ""} == {"2026-03-07"}  # a gap: empty, never 0
    assert "gaps (no figure: NULL, never zero): 2026-03-07" in done.stderr


def test_query_splits_and_filters_as_asked(run) -> None:
    done = run("query", "agent_job_starts", "--period", str(LAST_DAY), "--where", "agent=Alpha", "--format", "csv")
    rows = [r for r in csv.DictReader(io.StringIO(done.stdout)) if r["agent"]]
    assert rows and {(r["agent"], r["agent_name"]) for r in rows} == {("a-1", "Alpha")}
    split = list(
        csv.DictReader(io.StringIO(run("query", "team_active_users", "--by", "team", "--format", "csv").stdout))
    )
    assert {r["team_name"] for r in split} == {"platform", "web"}


def test_compare_prints_the_page_s_call(run) -> None:
    done = run("compare", "agent_adoption", "--first", "2026-03-03", "--second", str(LAST_DAY), "--format", "table")
    assert done.exit_code == 0, done.output
    calls = {line.split()[2]: line for line in done.stdout.splitlines() if line.startswith("organization")}
    assert [w for w in ("grown", "gone", "new", "shrunk") if w in " ".join(calls.values())] == [
        "grown",
        "gone",
        "new",
        "shrunk",
    ]
    assert "compared by agent_job_starts, with the page's change rule" in done.stdout


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["query", "nope"], "metrics-etl metrics query: unknown metric 'nope': accepted: acceptance_rate,"),
        (["query", "user_interactions"], "metrics-etl metrics query: user_interactions is a per-person metric"),
        (
            ["query", "interactions", "--from", "2026-13-01"],
            "metrics-etl metrics query: malformed range: --from '2026-13-01' is not a day: accepted: YYYY-MM-DD",
        ),
        (
            ["query", "interactions", "--where", "agent"],
            "metrics-etl metrics query: --where 'agent' is not DIMENSION=VALUE",
        ),
        (
            ["query", "interactions", "--by", "agent"],
            "metrics-etl metrics query: interactions cannot be grouped or filtered by agent: accepted: scope",
        ),
        (
            ["compare", "cost_center_cost_28d", "--first", "2026-03-03", "--second", "2026-03-31"],
            "metrics-etl metrics compare: cost_center_cost_28d has no daily counts",
        ),
    ],
)
def test_a_mistake_is_one_line_and_exit_2(run, args: list[str], line: str) -> None:
    done = run(*args)
    assert done.exit_code == 2, done.output
    assert done.stderr.startswith(line) and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_a_home_without_the_tier_is_one_line_and_exit_1(run, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("METRICS_HOME", str(tmp_path / "empty"))
    done = run("query", "agent_adoption")
    assert done.exit_code == 1
    assert done.stderr.startswith("metrics-etl metrics query: no aggregate tier yet: ")
    assert done.stderr.count("\n") == 1
