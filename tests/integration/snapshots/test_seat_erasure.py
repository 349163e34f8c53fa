"""`forget` of a seated person, over loopback against the emulator: their seat listings are archived
with their login, name and email; afterwards no table, lake file, serving database (the aggregate
and pseudonymous tiers included), cached answer or archived listing holds any of the three, and
the next snapshot (the service still lists them) archives and lands the listing without them."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig
from pipelines.ingest.seat_listings import read_listing
from pipelines.ingest.snapshots import SnapshotSettings, run_snapshot
from pipelines.privacy.forget import Places, forget
from pipelines.privacy.retention import apply_retention
from pipelines.publish.lake import publish
from pipelines.publish.pseudonymous import publish_pseudonymous
from pipelines.service import ServiceClient
from pipelines.warehouse import migrate
from pipelines.warehouse.erasure import load_forgotten
from tests._emulator import settings_for
from tests.e2e.test_forget import _scan
from tests.integration.snapshots.conftest import FAST_RETRY
from tests.integration.snapshots.test_seats import _served

KEY = "a-test-pseudonym-key-of-some-length"


USERS = 30


@pytest.fixture
def emulator_config() -> EmulatorConfig:
    return EmulatorConfig(seed=5, users=USERS, repos=1, issues_per_repo=1)


def test_forget_leaves_no_trace_of_a_seated_persons_login_name_or_email_even_in_the_archived_listings(
    emu, make_client, tmp_path, emulator_config
):
    home = tmp_path  # the warehouse, the raw archive, the lake, the serving databases, the ETag cache
    org, enterprise = emu.credentials["org"], emu.credentials["enterprise"]
    settings = SnapshotSettings(orgs=(org,), enterprises=(enterprise,))
    places = Places(
        raw_dir=home / "raw",
        spool_dir=home / "spool",
        etag_cache=home / "etag-cache.sqlite3",
        lake=home / "lake",
        serving=home / "serving.duckdb",
        aggregate_k=5,
    )
    conn = duckdb.connect(str(home / "warehouse.duckdb"))
    migrate(conn)
    today = datetime.now(UTC).date()
    run_snapshot(make_client(), conn, settings=settings, day=today, raw_dir=places.raw_dir)
    # A person seated by both listings whose seat shows a name and an email.
    login, name, email = conn.execute(
        "SELECT login, assignee_name, assignee_email FROM snapshots.seats JOIN snapshots.enterprise_seats"
        " USING (user_id, login, assignee_name, assignee_email)"
        " WHERE assignee_name IS NOT NULL AND assignee_email IS NOT NULL ORDER BY user_id LIMIT 1"
    ).fetchone()
    publish(conn, lake=places.lake, serving=places.serving, k=places.aggregate_k)
    publish_pseudonymous(conn, serving=places.serving, key=KEY)
    traces = {
        what: re.compile(rf"(?<![0-9a-z.]){re.escape(value)}(?![0-9a-z])", re.IGNORECASE)
        for what, value in (("login", login), ("name", name), ("email", email))
    }

    anyone = re.compile("|".join(pattern.pattern for pattern in traces.values()), re.IGNORECASE)

    def scanned(*patterns: re.Pattern[str]) -> list[list[str]]:
        """Where each pattern is found, the warehouse closed meanwhile (a reader opens it as a file)."""
        nonlocal conn
        conn.close()
        found = [_scan(home, pattern) for pattern in patterns]
        conn = duckdb.connect(str(home / "warehouse.duckdb"))
        return found

    found = dict(zip(traces, scanned(*traces.values()), strict=True))
    assert all(any(p.startswith("raw/") for p in paths) for paths in found.values()), found
    # The tiers for other readers never show a seat holder, before any erasure too.
    assert not [p for paths in found.values() for p in paths if "aggregate" in p or "pseudonymous" in p], found

    forget(conn, login, key=KEY, places=places)

    assert scanned(anyone) == [[]]
    lineage = conn.execute(
        "SELECT count(*) FROM meta.archive_lineage AS l JOIN raw.report_files AS f USING (archive_path)"
        " WHERE l.reason = 'erasure' AND f.level = 'seats'"
    ).fetchone()
    assert lineage == (2,)  # both listings written again, their new sha256 recorded

    # The service still lists them: the next snapshot lands and archives every other seat, not theirs.
    run_snapshot(
        make_client(), conn, settings=settings, day=today, raw_dir=places.raw_dir, forgotten=load_forgotten(conn, KEY)
    )
    assert scanned(anyone) == [[]]
    assert len(list(places.raw_dir.rglob("*.zst"))) == 2  # the erased versions replaced, not kept beside
    assert conn.execute("SELECT erased_seats FROM snapshots.seat_totals").fetchall() == [(1,)]
    assert conn.execute(
        "SELECT sum(records) FROM raw.report_files WHERE level = 'seats' AND scope = 'organization'"
    ).fetchone() == (emulator_config.users - 1,)
    conn.close()


def test_retention_removes_expired_seat_listings_with_the_seat_rows_naming_their_holders(emu, make_client, tmp_path):
    org, enterprise = emu.credentials["org"], emu.credentials["enterprise"]
    raw = tmp_path / "raw"
    conn = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(conn)
    old, kept = date(2026, 10, 1), date(2026, 11, 20)
    for day in (old, kept):
        run_snapshot(
            make_client(), conn, settings=SnapshotSettings(orgs=(org,), enterprises=(enterprise,)), day=day, raw_dir=raw
        )
    files = dict(
        conn.execute(
            "SELECT report_start_day, list(archive_path) FROM raw.report_files WHERE level = 'seats' GROUP BY ALL"
        ).fetchall()
    )

    done = apply_retention(conn, days=30, today=kept + timedelta(days=1))

    assert done.files == 2 and not any(Path(p).exists() for p in files[old])
    assert all(Path(p).exists() for p in files[kept])
    named = "SELECT DISTINCT snapshot_day FROM snapshots.{} WHERE assignee_name IS NOT NULL OR login IS NOT NULL"
    for table in ("seats", "enterprise_seats"):
        assert conn.execute(named.format(table)).fetchall() == [(kept,)]
    conn.close()


_MENTIONED: dict[str, str] = {}  # the login every team's description names, set by the test


def _teams_mention(seat: dict, index: int) -> dict:
    if isinstance(seat.get("assigning_team"), dict):
        seat = {**seat, "assigning_team": {**seat["assigning_team"], "description": f"Ask @{_MENTIONED['login']}"}}
    return seat


@pytest.mark.parametrize("changed_service", [_teams_mention], indirect=True)
def test_forget_takes_a_persons_login_out_of_other_seats_text_in_the_archive_and_later_listings(
    emu, changed_service, tmp_path
):
    """A team's description mentioning the person is kept only in the archived listing (no table
    holds it): the erasure writes it again without their login, and a later listing is archived so."""
    org = emu.credentials["org"]
    _MENTIONED["login"] = login = _served(emu, "service")[1][4]["assignee"]["login"]
    settings = settings_for(emu, base_url=changed_service, etag_cache=tmp_path / "etag-cache.sqlite3")
    places = Places(
        raw_dir=tmp_path / "raw",
        spool_dir=tmp_path / "spool",
        etag_cache=settings.etag_cache,
        lake=tmp_path / "lake",
        serving=tmp_path / "serving.duckdb",
        aggregate_k=5,
    )
    conn = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(conn)
    today = datetime.now(UTC).date()

    def snapshot() -> list[dict]:
        with ServiceClient(config=settings.service_config(), retry=FAST_RETRY) as client:
            run_snapshot(
                client,
                conn,
                settings=SnapshotSettings(orgs=(org,)),
                day=today,
                raw_dir=places.raw_dir,
                forgotten=load_forgotten(conn, KEY),
            )
        (path,) = [p for (p,) in conn.execute("SELECT archive_path FROM raw.report_files").fetchall()]
        return read_listing(Path(path), source="").seats

    mentioned = re.compile(rf"(?<![0-9a-z]){re.escape(login)}(?![0-9a-z])", re.IGNORECASE)
    seats = snapshot()
    assert sum(bool(mentioned.search(json.dumps(s["assigning_team"]))) for s in seats) > 1

    forget(conn, login, key=KEY, places=places)

    for seats in (
        read_listing(Path(conn.execute("SELECT archive_path FROM raw.report_files").fetchone()[0]), source="").seats,
        snapshot(),
    ):
        assert len(seats) == USERS - 1
        assert not any(mentioned.search(json.dumps(seat)) for seat in seats)
        teams = [s["assigning_team"] for s in seats if s["assigning_team"]]
        assert teams and {t["description"] for t in teams} == {"Ask @[erased]"}
    conn.close()
