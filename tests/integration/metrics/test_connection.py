"""The reader's connection opens its tier's databases read-only and nothing else: no other file
of the home (the full lake, the warehouse), no database attached after it; a question past the
time limit is stopped by a timer, in one line, whenever the limit passes: during a statement,
between two (the next is refused), or just as one starts (it is interrupted too)."""

from __future__ import annotations

from typing import Any

import duckdb
import pytest

from pipelines.metrics import MetricsError, MetricsReader
from pipelines.metrics._connection import Question, deadline, open_tiers
from tests.integration.metrics.conftest import Home


def test_the_reader_can_open_no_file_but_its_tier_s(home: Home) -> None:
    full_lake = next((home.root / "lake" / "current").rglob("*.parquet"))
    with open_tiers(home.config(), ["agents"]) as conn:
        assert conn.execute("SELECT count(*) FROM metrics_agent_periods").fetchone()[0] > 0
        for statement in (
            f"SELECT * FROM read_parquet('{full_lake}')",
            f"ATTACH '{home.warehouse}' AS w (READ_ONLY)",
            f"COPY (SELECT 1) TO '{home.root / 'out.csv'}'",
            "SET enable_external_access = true",
            "INSERT INTO aggregate.agent_daily SELECT * FROM aggregate.agent_daily",
        ):
            with pytest.raises(duckdb.Error):
                conn.execute(statement)
    assert not (home.root / "out.csv").exists()


def test_the_pseudonymous_tier_is_not_even_attached_by_default(home: Home) -> None:
    with open_tiers(home.config(), ["agents"]) as conn:
        attached = {name for (name,) in conn.execute("SELECT database_name FROM duckdb_databases()").fetchall()}
    assert "pseudonymous_tier" not in attached and "aggregate_tier" in attached


def test_a_question_past_the_time_limit_is_stopped_in_one_line(home: Home) -> None:
    config = home.config(time_limit_s=0.2)
    with open_tiers(config, []) as conn, pytest.raises(MetricsError) as stopped, deadline(conn, config):
        conn.execute("SELECT count(*) FROM range(1000000000) AS a, range(1000000000) AS b").fetchall()
    assert str(stopped.value) == (
        "the question ran past the time limit of 0.2 s (METRICS_CATALOG_TIMEOUT): ask for fewer days or groups, "
        "or raise the limit"
    )
    assert not stopped.value.usage


_PAST = (
    "the question ran past the time limit of 0.05 s (METRICS_CATALOG_TIMEOUT): ask for fewer days or groups, "
    "or raise the limit"
)


def test_a_question_whose_limit_passes_between_two_of_its_statements_is_stopped_in_one_line(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[str] = []
    run = Question.run

    def then_the_limit_passes(question: Question, name: str, /, **params: Any) -> list[tuple[Any, ...]]:
        rows = run(question, name, **params)
        ran.append(name)
        question.passed.wait()  # the limit passes while no statement runs: its interrupt reaches none
        return rows

    monkeypatch.setattr(Question, "run", then_the_limit_passes)
    with MetricsReader(home.config(time_limit_s=0.05)) as reader, pytest.raises(MetricsError) as stopped:
        reader.query("agent_adoption")
    assert str(stopped.value) == _PAST and not stopped.value.usage
    assert ran == ["metrics/select_bounds.sql"]  # the next statement was never started


def test_a_statement_that_starts_just_after_the_limit_passed_is_stopped_too(home: Home) -> None:
    config = home.config(time_limit_s=0.05)
    with open_tiers(config, []) as conn, pytest.raises(MetricsError) as stopped, deadline(conn, config) as question:
        question.passed.wait()
        # A statement whose start the limit raced: seconds of work unless interrupted.
        conn.execute("SELECT sum(a.range + b.range) FROM range(30000) AS a, range(30000) AS b").fetchall()
    assert str(stopped.value) == _PAST
