"""Issue 47's Done-when through the demo: `metrics-etl demo` lands the service and both vendors
over loopback, and bi.assistant_usage_daily equals each source's figures for the same people and
days (the vendors' as an emulator of the same seed serves them); the people no login is known for
are counted, told in the run's lines, never lost; neither vendor's key is anywhere in the home."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import duckdb

from emulator import EmulatorConfig, running_emulator
from pipelines._clock import utc_today
from tests.e2e.chaos import secret_findings
from tests.integration.bi.test_assistant_usage_landed import served_by, vendor_rows

CLI = str(Path(sys.executable).parent / "metrics-etl")
DAYS, USERS, REPOS = 6, 30, 2
# A vendor's day is final two days after it ends (docs/vendors.md): the days compared.
FINAL_LAG = 3


def test_a_demo_of_three_sources_equals_each_source_for_the_same_people_and_days(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_"))}
    env |= {"XDG_DATA_HOME": str(tmp_path / "share")}
    done = subprocess.run(
        [CLI, "demo", "--days", str(DAYS), "--users", str(USERS), "--repos", str(REPOS)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (tmp_path / "stdout").write_text(done.stdout + done.stderr)
    today = utc_today()
    days = tuple(today - timedelta(days=n) for n in range(DAYS - 1, FINAL_LAG - 1, -1))
    # The demo's emulator is gone with it; one of the same seed and size serves the same world.
    config = EmulatorConfig(seed=42, users=USERS, repos=REPOS, history_days=max(60, DAYS + 5))
    with running_emulator(config) as emu:
        served = served_by(emu, days)
        keys = {name: emu.credentials[name] for name in ("anthropic_admin_key", "cursor_api_key")}
    home = tmp_path / "share" / "metrics-etl-demo"
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        rows = {key: row for key, row in vendor_rows(conn).items() if key[1] in days}
        service = conn.execute(
            "SELECT scope, scope_name, day, lower(user_login), user_initiated_interaction_count, loc_added_sum"
            " FROM core.user_daily_totals ORDER BY ALL"
        ).fetchall()
        service_rows = conn.execute(
            "SELECT scope, scope_name, day, person, requests, lines_added FROM bi.assistant_usage_daily"
            " WHERE source = 'service' ORDER BY ALL"
        ).fetchall()
        unmapped = dict(conn.execute("SELECT vendor, people FROM bi.assistant_unmapped_people").fetchall())
        unmapped_in_view = dict(
            conn.execute(
                "SELECT source, count(DISTINCT person) FROM bi.assistant_usage_daily"
                " WHERE source_kind = 'vendor' AND login IS NULL AND person_kind = 'email' GROUP BY ALL"
            ).fetchall()
        )
    assert {vendor for vendor, _, _ in served} == {"claude_code", "cursor"}
    assert set(rows) == set(served)  # every person of every final day, nobody dropped
    for key, figures in served.items():
        assert {k: rows[key][k] for k in figures} == figures, key
    assert service and service == service_rows
    # Unmapped people: counted in the view, in bi.assistant_unmapped_people and in the run's lines.
    assert unmapped and unmapped == unmapped_in_view
    for vendor, people in unmapped.items():
        told = re.search(rf"{vendor}: (\d+) people of .* have no service login", done.stdout)
        assert told and int(told.group(1)) == people, done.stdout[-3000:]
    # The keys (the emulator's are the seed's): in no log, archive, cache, lake or table of the home.
    homes = [home / name for name in ("logs", "raw", "lake", "dagster", "http-cache.sqlite3")]
    warehouses = [home / "warehouse.duckdb", home / "serving.duckdb"]
    assert secret_findings(secrets=keys, files=[*homes, tmp_path / "stdout"], warehouses=warehouses) == []
