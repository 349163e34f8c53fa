"""Every field the emulator serves lands in a typed column, in both dialects: nothing served lands
only in `extra` (raw.field_drift stays empty), and every declared field has a value somewhere.
Across the day the service renamed its coding agent the cloud agent, the cloud-agent columns
go on with no gap, from 1-day and 28-day reports alike."""

from datetime import timedelta
from pathlib import Path

import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest import ingest_report
from pipelines.service import ReportRef, ServiceClient
from pipelines.transform.schema import AGGREGATE, USER, totals_columns
from tests._emulator import settings_for
from tests.integration.ingest.conftest import FAST_RETRY, TODAY

DAYS = [TODAY - timedelta(days=n) for n in range(10, 4, -1)]  # six final days, oldest first
RENAMED_ON = DAYS[3]
# Declared for the records of a level, but a day may legitimately carry none (no merged pull
# request that day has no median).
_MAY_BE_NULL = {
    "pull_requests_median_minutes_to_merge_assistant_authored",
    "pull_requests_median_minutes_to_merge_assistant_reviewed",
}
_CLOUD = (
    "daily_active_assistant_cloud_agent_users",
    "weekly_active_assistant_cloud_agent_users",
    "monthly_active_assistant_cloud_agent_users",
)


def _land(emu, conn, tmp_path: Path, refs: list[ReportRef]) -> None:
    with ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client:
        for ref in refs:
            assert ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path / "raw").available, ref


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_every_served_field_lands_typed_and_every_declared_field_has_a_value(conn, tmp_path, dialect):
    config = EmulatorConfig(seed=71, users=80, today=TODAY, dialect=dialect, user_lines_per_file=500)
    with running_emulator(config) as emu:
        refs = [
            ReportRef(scope, name, "1-day", level, day)
            for day in DAYS
            for scope, name in (("organization", "acme"), ("enterprise", "acme-corp"))
            for level in ("aggregate", "user")
        ]
        _land(emu, conn, tmp_path, [*refs, ReportRef("enterprise", "acme-corp", "28-day", "aggregate")])
    drift = conn.execute("SELECT DISTINCT path, drift FROM raw.field_drift").fetchall()
    assert drift == [], "served but not declared (or not in the declared type)"
    for table, level in (("core.daily_totals", AGGREGATE), ("core.user_daily_totals", USER)):
        for column in totals_columns(level):
            if column in _MAY_BE_NULL:
                continue
            (filled,) = conn.execute(f'SELECT count("{column}") FROM {table}').fetchone()
            assert filled > 0, f"{table}.{column} is never filled"


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_the_cloud_agent_columns_go_on_across_the_rename_day(conn, tmp_path, dialect):
    config = EmulatorConfig(seed=72, users=80, today=TODAY, dialect=dialect, cloud_agent_from=RENAMED_ON)
    with running_emulator(config) as emu:
        refs = [
            ReportRef("organization", "acme", "1-day", level, day) for day in DAYS for level in ("aggregate", "user")
        ]
        _land(emu, conn, tmp_path, [*refs, ReportRef("enterprise", "acme-corp", "28-day", "aggregate")])
    for scope in ("organization", "enterprise"):
        rows = conn.execute(
            f"SELECT day, {', '.join(_CLOUD)} FROM core.daily_totals WHERE scope = ? AND day = ANY(?) ORDER BY day",
            [scope, DAYS],
        ).fetchall()
        assert [row[0] for row in rows] == DAYS, scope
        assert all(value is not None for row in rows for value in row[1:]), (scope, rows)
    users = dict(
        conn.execute(
            "SELECT day, count(used_assistant_cloud_agent) FROM core.user_daily_totals GROUP BY day"
        ).fetchall()
    )
    assert all(users[day] > 0 for day in DAYS)
    assert conn.execute("SELECT count(*) FROM raw.field_drift").fetchone() == (0,)
    (wire,) = conn.execute("SELECT count(*) FROM raw.report_files WHERE report_kind = '28-day'").fetchone()
    assert wire >= 1  # the 28-day report spanned the rename


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_the_app_and_vscode_agent_objects_of_users_add_up_to_the_aggregate_s(conn, tmp_path, dialect):
    """The desktop app's and VS Code agents' counts land on both levels (the github dialect's
    totals_by_copilot_app in the same columns), and a day's users add up to its aggregate."""
    config = EmulatorConfig(seed=73, users=120, today=TODAY, dialect=dialect)
    with running_emulator(config) as emu:
        _land(
            emu,
            conn,
            tmp_path,
            [ReportRef("organization", "acme", "1-day", level, DAYS[0]) for level in ("aggregate", "user")],
        )
    counts = (
        "totals_by_assistant_app_session_count",
        "totals_by_assistant_app_request_count",
        "totals_by_assistant_app_prompt_count",
        "totals_by_assistant_app_token_usage_output_tokens_sum",
        "totals_by_assistant_app_token_usage_prompt_tokens_sum",
        "totals_by_vscode_agent_session_count",
        "totals_by_vscode_agent_total_user_messages",
    )
    users = conn.execute(f"SELECT {', '.join(f'sum({c})' for c in counts)} FROM core.user_daily_totals").fetchone()
    aggregate = conn.execute(f"SELECT {', '.join(counts)} FROM core.daily_totals").fetchone()
    assert users == aggregate and all(n > 0 for n in aggregate)
    phases = conn.execute(
        "SELECT DISTINCT ai_adoption_phase_phase_number, ai_adoption_phase_phase, ai_adoption_phase_version"
        " FROM core.user_daily_totals ORDER BY 1"
    ).fetchall()
    assert phases == [(0, "No Cohort", "v1"), *((n, f"Phase {n}", "v1") for n in range(1, 4))]


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_the_aggregate_s_suggestions_per_comment_type_land_and_add_up_to_its_total(conn, tmp_path, dialect):
    """pull_requests.*_suggestions_by_comment_type (the github dialect's names inside the array
    too) lands one row per type, adding up to the day's suggestions and applied suggestions."""
    config = EmulatorConfig(seed=76, users=120, today=TODAY, dialect=dialect)
    with running_emulator(config) as emu:
        _land(emu, conn, tmp_path, [ReportRef("organization", "acme", "1-day", "aggregate", day) for day in DAYS[:2]])
    rows = conn.execute(
        "SELECT t.day, sum(c.total_assistant_suggestions), sum(c.total_assistant_applied_suggestions),"
        " any_value(t.pull_requests_total_assistant_suggestions),"
        " any_value(t.pull_requests_total_assistant_applied_suggestions)"
        " FROM core.daily_totals AS t JOIN core.comment_types AS c USING (scope, scope_name, day) GROUP BY t.day"
    ).fetchall()
    assert len(rows) == 2
    assert all(s == total and a == applied for _, s, a, total, applied in rows)
    assert conn.execute("SELECT count(*) FROM raw.field_drift").fetchone() == (0,)
