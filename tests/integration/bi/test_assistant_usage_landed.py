"""bi.assistant_usage_daily over what a run lands from the emulator over loopback HTTP: the
service's user reports and seats, Claude Code's analytics and Cursor's daily usage of the same
days. Each source's rows equal its own figures for the same people and days; a vendor's person
whose seat keeps the email private is counted under the email, not lost, until an operator line
maps them; an agent app seen through the service and the vendor's own row of the same person and
day are both there, one counted."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest

from emulator import RunningEmulator, running_emulator
from emulator.seat import holder
from pipelines.ingest import ingest_report
from pipelines.ingest.identities import land_operator_identities, unmapped_notes
from pipelines.ingest.snapshots import SnapshotSettings, run_snapshot
from pipelines.service import ReportRef, RetryPolicy, ServiceClient
from pipelines.vendors.cursor import epoch_ms
from pipelines.warehouse import migrate
from tests._emulator import settings_for
from tests._vendors import read_vendors, vendor_world

TODAY = date(2026, 11, 20)
DAYS = (date(2026, 11, 10), date(2026, 11, 11), date(2026, 11, 12))  # final when fetched
FAST_RETRY = RetryPolicy(max_attempts=3, backoff_initial=0.01, backoff_max=0.05)


@dataclass(frozen=True)
class Landed:
    emu: RunningEmulator
    conn: duckdb.DuckDBPyConnection
    home: Path


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Landed]:
    home = tmp_path_factory.mktemp("assistants")
    conn = duckdb.connect(str(home / "warehouse.duckdb"))
    migrate(conn)
    with (
        running_emulator(vendor_world(TODAY)) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        org = emu.credentials["org"]
        for day in DAYS:
            ref = ReportRef("organization", org, "1-day", "user", day)
            ingest_report(client=client, ref=ref, conn=conn, raw_dir=home / "raw")
        run_snapshot(client, conn, settings=SnapshotSettings(orgs=(org,)), day=TODAY)
        read_vendors(emu, conn, days=DAYS, raw_dir=home / "raw")
        yield Landed(emu, conn, home)
    conn.close()


def served_by(emu: RunningEmulator, days: tuple[date, ...] = DAYS) -> dict[tuple[str, date, str], dict[str, Any]]:
    """Each vendor's records of `days` (in a row) as it serves them, by (vendor, day, email)."""
    creds = emu.credentials
    out: dict[tuple[str, date, str], dict[str, Any]] = {}
    for day in days:
        answer = httpx.get(
            creds["anthropic_base_url"] + "/v1/organizations/usage_report/claude_code",
            params={"starting_at": day.isoformat(), "limit": 1000},
            headers={"x-api-key": creds["anthropic_admin_key"], "anthropic-version": "2023-06-01"},
        )
        for r in answer.json()["data"]:
            if r["actor"]["type"] == "user_actor":
                core = r["core_metrics"]
                out["claude_code", day, r["actor"]["email_address"].lower()] = {
                    "sessions": core["num_sessions"],
                    "lines_added": core["lines_of_code"]["added"],
                    "requests": None,
                    "lines_accepted": None,
                }
    answer = httpx.post(
        creds["cursor_base_url"] + "/teams/daily-usage-data",
        json={"startDate": epoch_ms(days[0]), "endDate": epoch_ms(days[-1])},
        auth=(creds["cursor_api_key"], ""),
    )
    for r in answer.json()["data"]:
        requests = r["composerRequests"] + r["chatRequests"] + r["agentRequests"] + r["cmdkUsages"]
        out["cursor", date.fromisoformat(r["day"]), r["email"].lower()] = {
            "sessions": None,
            "lines_added": r["totalLinesAdded"],
            "requests": requests,
            "lines_accepted": r["acceptedLinesAdded"],
        }
    return out


def vendor_rows(conn: duckdb.DuckDBPyConnection) -> dict[tuple[str, date, str], dict[str, Any]]:
    """The view's vendor rows by (vendor, day, email): a person is in one row a scope, each the same."""
    rows = conn.execute(
        "SELECT DISTINCT source, day, unnest(emails), sessions, lines_added, requests, lines_accepted, login, person"
        " FROM bi.assistant_usage_daily WHERE source_kind = 'vendor'"
    ).fetchall()
    out: dict[tuple[str, date, str], dict[str, Any]] = {}
    for source, day, email, sessions, added, requests, accepted, login, person in rows:
        assert (source, day, email) not in out, "one person's vendor day is the same row in every scope"
        out[source, day, email] = {
            "sessions": sessions,
            "lines_added": added,
            "requests": requests,
            "lines_accepted": accepted,
            "login": login,
            "person": person,
        }
    return out


def _private_emails(conn: duckdb.DuckDBPyConnection, served: dict[tuple[str, date, str], Any]) -> list[str]:
    public = {e for (e,) in conn.execute("SELECT lower(assignee_email) FROM snapshots.seats").fetchall() if e}
    return sorted({email for (_, _, email) in served if email not in public and email.endswith("@people.example")})


def test_each_vendors_rows_are_its_served_figures_for_the_same_people_and_days(landed: Landed) -> None:
    served = served_by(landed.emu)
    rows = vendor_rows(landed.conn)
    assert {"claude_code", "cursor"} <= {vendor for vendor, _, _ in served}
    assert set(rows) == set(served)  # every person of every day, nobody dropped
    for key, figures in served.items():
        assert {k: rows[key][k] for k in figures} == figures, key
    mapped = [row for row in rows.values() if row["login"] is not None]
    assert mapped, "the seats' public emails map people"


def test_the_services_rows_are_its_user_records_and_agent_entries(landed: Landed) -> None:
    conn = landed.conn
    service = conn.execute(
        "SELECT scope, scope_name, day, lower(user_login), user_initiated_interaction_count, loc_added_sum"
        " FROM core.user_daily_totals ORDER BY ALL"
    ).fetchall()
    assert service
    assert (
        service
        == conn.execute(
            "SELECT scope, scope_name, day, person, requests, lines_added FROM bi.assistant_usage_daily"
            " WHERE source = 'service' ORDER BY ALL"
        ).fetchall()
    )
    agents = conn.execute(
        "SELECT scope, scope_name, day, 'agent:' || agent_id, lower(user_login), agent_job_starts"
        " FROM core.agent_activity WHERE level = 'user' ORDER BY ALL"
    ).fetchall()
    assert agents
    assert (
        agents
        == conn.execute(
            "SELECT scope, scope_name, day, source, person, agent_job_starts FROM bi.assistant_usage_daily"
            " WHERE source_kind = 'agent_app' ORDER BY ALL"
        ).fetchall()
    )
    # Agent job starts and the service's prompts never share a column (docs/service-contract.md §2).
    both = "SELECT count(*) FROM bi.assistant_usage_daily WHERE requests IS NOT NULL AND agent_job_starts IS NOT NULL"
    assert conn.execute(both).fetchone() == (0,)


def test_an_agent_app_and_its_vendors_own_row_of_a_person_and_day_are_both_there_one_counted(landed: Landed) -> None:
    pairs = landed.conn.execute(
        "SELECT a.counted, a.overlaps, v.counted, v.overlaps FROM bi.assistant_usage_daily AS a"
        " JOIN bi.assistant_usage_daily AS v USING (scope, scope_name, day, person)"
        " WHERE a.source = 'agent:2246796' AND v.source = 'claude_code'"
    ).fetchall()
    assert pairs, "the emulator's Claude agent users use Claude Code too"
    assert set(pairs) == {(False, "claude_code", True, "agent:2246796")}
    # Summed over counted rows, each person's use of a vendor a day is one row.
    twice = landed.conn.execute(
        "SELECT scope, day, person, coalesce(vendor, source), count(*) FROM bi.assistant_usage_daily"
        " WHERE counted GROUP BY ALL HAVING count(*) > 1"
    ).fetchall()
    assert twice == []


def test_a_person_whose_seat_keeps_the_email_private_is_counted_under_it_until_an_operator_line_maps_them(
    landed: Landed,
) -> None:
    conn = landed.conn
    served = served_by(landed.emu)
    private = _private_emails(conn, served)
    assert private, "every 4th seat holder keeps the email private"
    rows = vendor_rows(conn)
    for (_, _, email), row in rows.items():
        if email in private:
            assert (row["login"], row["person"]) == (None, email)
    unmapped = conn.execute("SELECT vendor, first_day, last_day, people FROM bi.assistant_unmapped_people").fetchall()
    outsiders = {email for (_, _, email) in served if not email.endswith("@people.example")}
    for vendor, first_day, last_day, people in unmapped:
        emails = {e for (v, _, e) in served if v == vendor and (e in private or e in outsiders)}
        assert (first_day, last_day, people) == (DAYS[0], DAYS[-1], len(emails))
    assert unmapped_notes(conn, first_day=DAYS[0], last_day=DAYS[-1])[0].startswith(f"{unmapped[0][0]}: ")

    # The operator maps one of them: their seat's name (where given) says which login is theirs.
    names = {holder(u)[1]: holder(u)[0] for u in range(1000)}
    seated = dict(conn.execute("SELECT assignee_name, login FROM snapshots.seats").fetchall())
    email = next(e for e in private if names[e] in seated)
    login = seated[names[email]]
    identities = landed.home / "identities.csv"
    identities.write_text(f"email,login\n  {email.upper()} ,{login}\n")
    read = land_operator_identities(conn, identities, read_day=TODAY, forgotten=None)
    assert read.errors == ()
    after = vendor_rows(conn)
    for (vendor, day, row_email), row in after.items():
        if row_email == email:
            assert (row["login"], row["person"]) == (login, login.lower())
            assert served[vendor, day, email] == {k: row[k] for k in served[vendor, day, email]}
    assert set(after) == set(rows)  # the others stay as they were
    scopes = conn.execute(
        "SELECT DISTINCT scope FROM bi.assistant_usage_daily WHERE person = ? AND source_kind = 'vendor'",
        [login.lower()],
    ).fetchall()
    assert scopes == [("organization",)]
