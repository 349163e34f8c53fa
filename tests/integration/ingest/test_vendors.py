"""Both vendors over loopback against the emulator: what lands equals what each vendor serves for
the same people and days; a provisional day is replaced once final and then never asked again; a
run again changes nothing; `forget` of a vendor user's email leaves no row and no archived record."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest
import zstandard

from emulator import EmulatorConfig, RunningEmulator, running_emulator
from pipelines.config import Secret, Settings
from pipelines.ingest.vendors import VendorResult, ingest_vendor
from pipelines.privacy.forget import Places, forget
from pipelines.vendors import VendorClient
from pipelines.vendors.cursor import epoch_ms

from .conftest import TODAY

DAYS = [TODAY - timedelta(days=n) for n in range(6, -1, -1)]  # a week, today's provisional figures too


@pytest.fixture
def vendors_emu() -> Iterator[RunningEmulator]:
    config = EmulatorConfig(
        seed=11, users=30, today=TODAY, claude_requests_per_minute=1000, cursor_requests_per_minute=1000
    )
    with running_emulator(config) as running:
        yield running


def vendor_settings(emu: RunningEmulator, **overrides: Any) -> Settings:
    creds = emu.credentials
    values: dict[str, Any] = {
        "anthropic_admin_key": Secret(creds["anthropic_admin_key"]),
        "anthropic_base_url": creds["anthropic_base_url"],
        "cursor_api_key": Secret(creds["cursor_api_key"]),
        "cursor_base_url": creds["cursor_base_url"],
    }
    return Settings(**(values | overrides))


def _ingest(emu: RunningEmulator, conn: duckdb.DuckDBPyConnection, raw: Path, days: list[date]) -> list[VendorResult]:
    configs, skipped = vendor_settings(emu).vendor_configs()
    assert not skipped
    results = []
    for config in configs.values():
        with VendorClient(config) as client:
            results.append(ingest_vendor(client, conn, days=days, raw_dir=raw, say=pytest.fail))
    return results


def _served_claude(emu: RunningEmulator, day: date) -> list[dict[str, Any]]:
    creds = emu.credentials
    answer = httpx.get(
        creds["anthropic_base_url"] + "/v1/organizations/usage_report/claude_code",
        params={"starting_at": day.isoformat(), "limit": 1000},
        headers={"x-api-key": creds["anthropic_admin_key"]},
    )
    return list(answer.json()["data"])


def _served_cursor(emu: RunningEmulator, first: date, last: date) -> list[dict[str, Any]]:
    creds = emu.credentials
    answer = httpx.post(
        creds["cursor_base_url"] + "/teams/daily-usage-data",
        json={"startDate": epoch_ms(first), "endDate": epoch_ms(last)},
        auth=(creds["cursor_api_key"], ""),
    )
    return list(answer.json()["data"])


def test_both_vendors_land_what_they_serve_for_the_same_people_and_days(
    vendors_emu: RunningEmulator, conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    results = _ingest(vendors_emu, conn, tmp_path / "raw", DAYS)
    assert [r.status for r in results] == ["ok", "ok"]
    for day in DAYS:
        served = _served_claude(vendors_emu, day)
        landed = conn.execute(
            "SELECT count(*), sum(lines_added), sum(num_sessions) FROM vendors.claude_code_days WHERE day = ?", [day]
        ).fetchone()
        assert landed == (
            len(served),
            sum(r["core_metrics"]["lines_of_code"]["added"] for r in served) or None,
            sum(r["core_metrics"]["num_sessions"] for r in served) or None,
        )
        cost = conn.execute("SELECT sum(estimated_cost_cents) FROM vendors.claude_code_models WHERE day = ?", [day])
        assert cost.fetchone()[0] == (
            sum(m["estimated_cost"]["amount"] for r in served for m in r["model_breakdown"]) or None
        )  # type: ignore[index]
    served_cursor = _served_cursor(vendors_emu, DAYS[0], DAYS[-1])
    landed_cursor = conn.execute("SELECT count(*), sum(total_tabs_accepted) FROM vendors.cursor_days").fetchone()
    assert landed_cursor == (len(served_cursor), sum(r["totalTabsAccepted"] for r in served_cursor))
    members = conn.execute("SELECT count(*) FROM vendors.cursor_members").fetchone()
    assert members is not None and members[0] > 0
    assert conn.execute("SELECT count(*) FROM raw.quarantine").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM raw.field_drift").fetchone() == (0,)  # every served field declared


def test_a_provisional_day_is_replaced_when_final_then_never_asked_again_and_a_rerun_changes_nothing(
    vendors_emu: RunningEmulator, conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    day = TODAY - timedelta(days=1)
    _ingest(vendors_emu, conn, tmp_path / "raw", [day])
    sql = "SELECT sum(num_sessions), bool_and(is_final) FROM vendors.claude_code_days WHERE day = ?"
    provisional = conn.execute(sql, [day]).fetchone()
    assert provisional is not None and provisional[1] is False
    vendors_emu.set_today(TODAY + timedelta(days=2))
    results = _ingest(vendors_emu, conn, tmp_path / "raw", [day])
    assert [r.final_days for r in results] == [1, 1]
    final = conn.execute(sql, [day]).fetchone()
    assert final is not None and final[1] is True and final[0] > provisional[0]
    assert final[0] == sum(r["core_metrics"]["num_sessions"] for r in _served_claude(vendors_emu, day))
    snapshot = conn.execute("SELECT * FROM vendors.claude_code_days ORDER BY ALL").fetchall()
    again = _ingest(vendors_emu, conn, tmp_path / "raw", [day])
    assert [r.fetches for r in again] == [0, 2]  # the final day not asked; Cursor's members and spend read
    assert conn.execute("SELECT * FROM vendors.claude_code_days ORDER BY ALL").fetchall() == snapshot
    files = conn.execute("SELECT count(*) FROM raw.report_files WHERE report_kind = 'claude_code'").fetchone()
    assert files == (1,)


def test_forget_of_a_vendor_user_s_email_leaves_no_row_and_no_archived_record(
    vendors_emu: RunningEmulator, conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    _ingest(vendors_emu, conn, tmp_path / "raw", DAYS)
    (email,) = conn.execute(
        "SELECT c.email FROM vendors.claude_code_days AS c JOIN vendors.cursor_days AS u USING (email)"
        " ORDER BY 1 LIMIT 1"
    ).fetchone()  # type: ignore[misc]
    places = Places(tmp_path / "raw", tmp_path / "spool", None, tmp_path / "lake", tmp_path / "serving.duckdb", 5)
    forget(conn, email, key="a-test-pseudonym-key-of-some-length", places=places)
    for table in ("claude_code_days", "claude_code_models", "cursor_days", "cursor_spend", "cursor_members"):
        assert conn.execute(f"SELECT count(*) FROM vendors.{table} WHERE email = ?", [email]).fetchone() == (0,)
    for (path,) in conn.execute("SELECT archive_path FROM raw.report_files").fetchall():
        text = zstandard.ZstdDecompressor().decompressobj().decompress(Path(path).read_bytes())
        assert email.encode() not in text
