"""A warehouse of every coding assistant, landed from the emulator over loopback HTTP as a run lands
it: an organization's and its enterprise's aggregate and user reports of three final days, the
organization's seats (the identity map's public emails), Claude Code's analytics and Cursor's daily
usage of the same days, its spend read on SPEND_READ and on TODAY. Used by the aggregate tier's
vendor tests and the catalog's."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb

from emulator import running_emulator
from pipelines.ingest import ingest_report
from pipelines.ingest.snapshots import SnapshotSettings, run_snapshot
from pipelines.service import ReportRef, RetryPolicy, ServiceClient
from pipelines.warehouse import migrate
from tests._emulator import settings_for
from tests._vendors import read_vendors, vendor_world

TODAY = date(2026, 11, 20)
DAYS = (date(2026, 11, 10), date(2026, 11, 11), date(2026, 11, 12))  # final when fetched
SPEND_READ = DAYS[1]  # a read of Cursor's spend on a day of the reports
FAST_RETRY = RetryPolicy(max_attempts=3, backoff_initial=0.01, backoff_max=0.05)


def land_vendor_world(home: Path) -> Path:
    """The warehouse landed under `home` (closed: each test opens it as it needs)."""
    path = home / "warehouse.duckdb"
    with (
        duckdb.connect(str(path)) as conn,
        running_emulator(vendor_world(TODAY)) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        migrate(conn)
        creds = emu.credentials
        for day in DAYS:
            for scope, name in (("organization", creds["org"]), ("enterprise", creds["enterprise"])):
                for level in ("aggregate", "user"):
                    ref = ReportRef(scope, name, "1-day", level, day)
                    ingest_report(client=client, ref=ref, conn=conn, raw_dir=home / "raw")
        run_snapshot(client, conn, settings=SnapshotSettings(orgs=(creds["org"],)), day=TODAY)
        # Cursor's spend read on a day of the reports too (its growth lands on the read's day), then
        # again on TODAY, a day of no report: a cost without use.
        emu.set_today(SPEND_READ)
        read_vendors(emu, conn, days=DAYS[:1], raw_dir=home / "raw", only="cursor")
        emu.set_today(TODAY)
        read_vendors(emu, conn, days=DAYS, raw_dir=home / "raw")
    return path
