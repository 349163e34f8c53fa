"""The user-teams report (extension) over loopback: landed with its day's user rows, in both
dialects, against the emulator's own memberships (a mover, a team under the threshold, users on
two teams)."""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from emulator.reportdata import ReportData
from pipelines.ingest.report import ingest_report
from pipelines.service import ReportRef, ServiceClient
from pipelines.service.kinds import USER_TEAMS_1_DAY
from pipelines.warehouse import migrate
from tests._emulator import settings_for

from .conftest import FAST_RETRY, TODAY

HISTORY_DAYS = 60
USERS = 60


def _landed(conn: duckdb.DuckDBPyConnection, day: date) -> set[tuple[int, int, str]]:
    rows = conn.execute("SELECT user_id, team_id, slug FROM core.user_team_days WHERE day = ?", [day]).fetchall()
    return {(int(u), int(t), str(s)) for u, t, s in rows}


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_memberships_land_with_the_days_user_rows_and_team_views_follow_them(dialect: str, tmp_path: Path) -> None:
    config = EmulatorConfig(seed=11, users=USERS, today=TODAY, dialect=dialect, history_days=HISTORY_DAYS)
    first_day = TODAY - timedelta(HISTORY_DAYS)
    data = ReportData(seed=11, users=USERS, org="acme", enterprise="acme-corp", first_day=first_day)
    days = [
        data.pilot_listed_from - timedelta(1),
        data.pilot_listed_from,
        data.team_move_day - timedelta(1),
        data.team_move_day,
    ]
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(conn)
    with (
        running_emulator(config) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        for day in days:
            result = ingest_report(
                client=client,
                ref=ReportRef("organization", "acme", "1-day", "user", day),
                conn=conn,
                raw_dir=tmp_path / "raw",
            )
            assert result.carried[USER_TEAMS_1_DAY] == len(_landed(conn, day))
        again = ingest_report(  # a re-run replaces the day, memberships included
            client=client,
            ref=ReportRef("organization", "acme", "1-day", "user", days[0]),
            conn=conn,
            raw_dir=tmp_path / "raw",
        )

    expected = {
        day: {(m.user_id, m.team_id, m.slug) for m in data.team_members(scope="organization", day=day) if m.listed}
        for day in days
    }
    for day in days:
        assert _landed(conn, day) == expected[day]
    assert again.carried[USER_TEAMS_1_DAY] == len(expected[days[0]])

    # The pilot team is left out while under 5 members, and listed from the day it has 5.
    pilot = {m.team_id for m in data.team_members(scope="organization", day=days[1]) if m.slug == "pilot"}
    assert pilot and not pilot & {t for _, t, _ in _landed(conn, days[0])}
    assert pilot <= {t for _, t, _ in _landed(conn, days[1])}

    # The mover is on another team on the move day, and the team views follow the day's team.
    movers = {u for u, t, _ in _landed(conn, days[2]) if (u, t) not in {(v, s) for v, s, _ in _landed(conn, days[3])}}
    assert movers
    for day in days[2:]:
        by_team = conn.execute(
            "SELECT team_id, user_initiated_interaction_count, reported_users FROM bi.team_usage_daily WHERE day = ?",
            [day],
        ).fetchall()
        interactions = dict(
            conn.execute(
                "SELECT user_id, user_initiated_interaction_count FROM core.user_daily_totals WHERE day = ?", [day]
            ).fetchall()
        )
        for team_id, total, users in by_team:
            members = [u for u, t, _ in expected[day] if t == team_id]
            assert (total, users) == (sum(interactions[u] for u in members), len(members))

    # Users on two teams count in each: team rows add up to more than the day's users.
    per_user = Counter(u for u, _, _ in expected[days[3]])
    assert max(per_user.values()) >= 2
    (summed,) = conn.execute("SELECT sum(reported_users) FROM bi.team_usage_daily WHERE day = ?", [days[3]]).fetchone()
    assert summed == len(expected[days[3]]) > len(per_user)

    files = conn.execute(
        "SELECT count(*), sum(records) FROM raw.report_files WHERE level = 'user-teams' AND report_start_day = ?",
        [days[0]],
    ).fetchone()
    assert files == (1, len(expected[days[0]]))  # archived like every report file, once after the re-run


def test_a_28_day_user_report_never_replaces_a_day_landed_with_its_memberships(
    emu, client: ServiceClient, conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    day = TODAY - timedelta(days=5)
    ingest_report(
        client=client, ref=ReportRef("organization", "acme", "1-day", "user", day), conn=conn, raw_dir=tmp_path / "raw"
    )
    ingest_report(
        client=client, ref=ReportRef("organization", "acme", "28-day", "user"), conn=conn, raw_dir=tmp_path / "raw"
    )
    kinds = dict(
        conn.execute(
            "SELECT day, min(report_kind) || '/' || max(report_kind) FROM core.user_daily_totals GROUP BY day"
        ).fetchall()
    )
    assert kinds[day] == "1-day/1-day"
    assert {k for d, k in kinds.items() if d != day} == {"28-day/28-day"}
    assert len(kinds) == 28
    (teams,) = conn.execute("SELECT count(*) FROM bi.team_usage_daily WHERE day = ?", [day]).fetchone()
    (members,) = conn.execute("SELECT count(DISTINCT team_id) FROM core.user_team_days WHERE day = ?", [day]).fetchone()
    assert teams == members
