"""A field the service renames lands in its one column on both sides of the rename: its former
wire name is declared beside it (schema.FORMER_NAMES), so no day goes missing and no second
column or drift appears."""

from dataclasses import replace
from datetime import timedelta

import duckdb
import pytest

from emulator import EmulatorConfig, RecordDrift, running_emulator
from pipelines.ingest import ingest_report
from pipelines.ingest._wire import wire_of
from pipelines.service import ReportRef, ServiceClient
from pipelines.transform import schema
from pipelines.warehouse import migrate
from tests._emulator import settings_for
from tests.integration.ingest.conftest import TODAY

BEFORE, AFTER = TODAY - timedelta(days=8), TODAY - timedelta(days=7)  # a Thursday and a Friday


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_a_renamed_field_lands_in_one_column_with_no_gap_day(dialect, tmp_path, monkeypatch):
    # As a release would declare it: `used_chat` was sent as `used_chat_v0` until the rename.
    monkeypatch.setitem(schema.FORMER_NAMES, dialect, {**schema.FORMER_NAMES[dialect], "used_chat": ("used_chat_v0",)})
    wire_of.cache_clear()
    config = EmulatorConfig(
        seed=61,
        users=60,
        today=TODAY,
        dialect=dialect,
        record_drift=RecordDrift(renamed=(("used_chat", "used_chat_v0"),)),
    )
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(conn)
    try:
        with running_emulator(config) as emu, ServiceClient(config=settings_for(emu).service_config()) as client:
            drift = {}
            for day in (BEFORE, AFTER):
                if day == AFTER:  # the service renamed the field between the two days
                    emu.state.config = replace(emu.state.config, record_drift=RecordDrift())
                result = ingest_report(
                    client=client,
                    ref=ReportRef("organization", "acme", "1-day", "user", day),
                    conn=conn,
                    raw_dir=tmp_path / "raw",
                )
                drift |= result.drift
        per_day = dict(
            conn.execute(
                "SELECT day, count(*) FILTER (WHERE used_chat) FROM core.user_daily_totals GROUP BY day"
            ).fetchall()
        )
        columns = {
            row[0]
            for row in conn.execute(
                "SELECT column_name FROM duckdb_columns() WHERE table_name = 'user_daily_totals'"
            ).fetchall()
        }
    finally:
        conn.close()
        monkeypatch.undo()
        wire_of.cache_clear()
    assert per_day[BEFORE] > 0 and per_day[AFTER] > 0  # chat users on both sides of the rename
    assert "used_chat_v0" not in columns and drift == {}
