"""BI readers holding the serving database open across publishes, as a BI tool's process does: a
plain read-only DuckDB connection and a SQLAlchemy pool (duckdb-engine), both in this process,
while `metrics-etl run` lands later days in another process and publishes them."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest
from sqlalchemy import create_engine
from sqlalchemy.pool import QueuePool

from emulator import EmulatorConfig, running_emulator
from tests.e2e.chaos import Emulated, pipeline_env

CLI = str(Path(sys.executable).parent / "metrics-etl")
FIRST_DAYS = LATER_DAYS = 3
# Bounds the reading loop even if the run never ends (its own wait has a timeout too).
MAX_ROUNDS = 20_000
# The organization's reported days, and per day of bi.agent_usage_daily its agents and their job starts.
DAYS_SQL = "SELECT count(DISTINCT day) FROM core.daily_totals WHERE scope = 'organization'"
AGENTS_SQL = (
    "SELECT day, count(*), sum(agent_job_starts) FROM bi.agent_usage_daily WHERE scope = 'organization' GROUP BY day"
)


@dataclass(frozen=True)
class Answer:
    days: int
    agents: dict[date, tuple[int, int | None]]  # day → (agents, their job starts)


def _answer(execute: Callable[[str], Sequence[Sequence[Any]]]) -> Answer:
    ((days,),) = execute(DAYS_SQL)
    return Answer(days=days, agents={day: (n, starts) for day, n, starts in execute(AGENTS_SQL)})


def _run(env: dict[str, str], cwd: Path, first: date, last: date, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [CLI, "run", "--from", first.isoformat(), "--to", last.isoformat(), "--no-latest", "--no-snapshots"],
            env=env,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def _wait(process: subprocess.Popen[bytes], log: Path) -> None:
    try:
        code = process.wait(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert code == 0, log.read_text()[-3000:]


@pytest.mark.timeout(900)  # two runs of Dagster on a shared 2-core machine
def test_a_held_connection_and_a_pooled_engine_see_the_next_run_s_days_and_never_block_it(tmp_path):
    # Final days only (more than three days old): the platform serves the same reports on every fetch.
    last = datetime.now(UTC).date() - timedelta(days=5)
    later_first = last - timedelta(days=LATER_DAYS - 1)
    first = later_first - timedelta(days=FIRST_DAYS)
    place = Emulated(tmp_path / "pipeline")
    serving = place.root / "serving.duckdb"
    with running_emulator(EmulatorConfig(seed=31, users=60, repos=1, issues_per_repo=2)) as emu, ExitStack() as stack:
        env = pipeline_env(emu, place, first_day=first.isoformat())
        log = tmp_path / "first.log"
        _wait(_run(env, place.root, first, later_first - timedelta(days=1), log), log)

        engine = create_engine(
            f"duckdb:///{serving.resolve()}",
            connect_args={"read_only": True},
            poolclass=QueuePool,
            pool_size=2,
            max_overflow=0,
        )
        stack.callback(engine.dispose)
        # Both pooled connections are opened now and go back to the pool, which keeps them open.
        with engine.connect() as a, engine.connect() as b:
            pooled = [a.connection.dbapi_connection, b.connection.dbapi_connection]
            before = [_answer(lambda sql, c=c: c.exec_driver_sql(sql).all()) for c in (a, b)]
            # One process keeps one DuckDB database per file and refuses a second connection to it
            # with other settings: duckdb-engine sets its user agent, so the plain connection does too.
            user_agent = a.exec_driver_sql("SELECT current_setting('custom_user_agent')").scalar_one()
        config = {"custom_user_agent": user_agent}
        held = stack.enter_context(duckdb.connect(str(serving), read_only=True, config=config))
        before.append(_answer(lambda sql: held.execute(sql).fetchall()))
        assert [x.days for x in before] == [FIRST_DAYS] * 3

        log = tmp_path / "later.log"
        later = _run(env, place.root, later_first, last, log)
        seen: dict[str, list[Answer]] = {"held": [], "pool": []}
        for _ in range(MAX_ROUNDS):
            if later.poll() is not None:
                break
            seen["held"].append(_answer(lambda sql: held.execute(sql).fetchall()))
            # One connection per query, given back after it: the pool hands out its two in turn.
            with engine.connect() as c:
                seen["pool"].append(_answer(lambda sql, c=c: c.exec_driver_sql(sql).all()))
            time.sleep(0.02)  # leaves the emulator, served from this process, its share of the GIL
        _wait(later, log)  # exit 0: the readers never held the pipeline up

        with engine.connect() as a, engine.connect() as b:
            assert {id(a.connection.dbapi_connection), id(b.connection.dbapi_connection)} == {id(c) for c in pooled}
            after = [_answer(lambda sql, c=c: c.exec_driver_sql(sql).all()) for c in (a, b)]
        after.append(_answer(lambda sql: held.execute(sql).fetchall()))

    final = after[-1]
    assert final.days == FIRST_DAYS + LATER_DAYS
    assert after == [final] * 3, "every reader sees the new days on its next query"
    assert seen["held"] and seen["pool"], "the readers queried while the run was going"
    for name, answers in seen.items():
        days = [a.days for a in [before[-1], *answers, final]]
        assert days == sorted(days), f"{name}: the day count went down: {days}"
        for answer in answers:
            # Each day a reader sees is whole: every agent of that day with its final job starts.
            assert {d: final.agents[d] for d in answer.agents} == answer.agents, name
