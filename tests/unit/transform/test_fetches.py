from datetime import UTC, date, datetime

import polars as pl

from pipelines.service import ReportRef
from pipelines.transform import Provenance
from pipelines.transform.fetches import COUNTERS, day_tallies, fetch_rows

D1, D2 = date(2026, 11, 18), date(2026, 11, 19)
FETCHED = datetime(2026, 11, 22, 6, 0, tzinfo=UTC)


def _prov(level: str) -> Provenance:
    return Provenance(
        ref=ReportRef("organization", "acme", "28-day", level),
        start_day=D1,
        end_day=D2,
        fetched_at=FETCHED,
        dialect="service",
    )


def _totals(rows: list[tuple[date, int, int, bool]]) -> pl.DataFrame:
    """(day, interactions, code generations, carried the agent array) per user row."""
    return pl.DataFrame(
        {
            "day": [r[0] for r in rows],
            **{
                name: [
                    r[1] if name == "user_initiated_interaction_count" else (r[2] if name.startswith("code_gen") else 1)
                    for r in rows
                ]
                for name in COUNTERS
            },
            "agent_breakdown_present": [r[3] for r in rows],
        }
    )


def _agents(rows: list[tuple[date, int]]) -> pl.DataFrame:
    return pl.DataFrame(
        {"day": [r[0] for r in rows], "agent_job_starts": [r[1] for r in rows]},
        schema={"day": pl.Date(), "agent_job_starts": pl.Int64()},
    )


def test_a_fetch_sums_its_files_per_day_and_counts_active_users_as_the_aggregate_does() -> None:
    file_0 = day_tallies(
        totals=_totals([(D1, 3, 0, True), (D1, 0, 0, False)]), agent_activity=_agents([(D1, 5)]), level="user"
    )
    file_1 = day_tallies(
        totals=_totals([(D1, 0, 2, True), (D2, 1, 0, False)]), agent_activity=_agents([(D1, 2)]), level="user"
    )
    rows = fetch_rows([file_0, file_1], _prov("user"))
    by_day = {r["day"]: r for r in rows.to_dicts()}
    assert by_day[D1]["records"] == 3 and by_day[D1]["agent_array_records"] == 2
    assert by_day[D1]["user_initiated_interaction_count"] == 3
    assert by_day[D1]["active_users"] == 2  # interactions or code generation; the idle row is not active
    assert by_day[D1]["agent_job_starts"] == 7
    # No record of D2 carried the agent array: a gap, not zero.
    assert by_day[D2]["agent_job_starts"] is None
    # Fetched Nov 22: Nov 19, 20 and 21 have passed in full since D1 ended, not since D2 did.
    assert (by_day[D1]["is_final"], by_day[D2]["is_final"]) == (True, False)
    assert {r["fetched_at"] for r in by_day.values()} == {FETCHED}


def test_an_agent_array_without_entries_is_zero_job_starts_not_a_gap() -> None:
    tallies = day_tallies(totals=_totals([(D1, 1, 1, True)]), agent_activity=_agents([]), level="user")
    assert fetch_rows([tallies], _prov("user"))["agent_job_starts"].to_list() == [0]


def test_aggregate_active_users_are_the_reported_daily_active_users() -> None:
    totals = _totals([(D1, 10, 4, False)]).with_columns(pl.lit(42).alias("daily_active_users"))
    rows = fetch_rows([day_tallies(totals=totals, agent_activity=_agents([]), level="aggregate")], _prov("aggregate"))
    assert rows.select("level", "records", "active_users", "agent_job_starts").row(0) == ("aggregate", 1, 42, None)


def test_a_fetch_without_files_has_no_rows() -> None:
    assert fetch_rows([], _prov("aggregate")).height == 0
