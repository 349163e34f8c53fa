"""The public service's record fields land in typed columns under either dialect, over loopback.

Expected values come from the emulator's own generator (emulator.reportdata), whose dialect
names are made apart from the pipeline's table (schema.WIRE_NAMES), so a wrong mapping on
either side shows.
"""

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from emulator.reportdata import ReportData
from pipelines.ingest import ingest_report
from pipelines.service import ReportRef, ServiceClient
from pipelines.warehouse import migrate
from pipelines.warehouse.checks import REPORT_CHECKS, WHOLE_HISTORY, run_checks
from tests._emulator import settings_for
from tests.integration.ingest.conftest import FAST_RETRY, TODAY

FINAL_DAY = TODAY - timedelta(days=4)  # a Monday, final: the emulator serves it complete on every fetch
YESTERDAY = TODAY - timedelta(days=1)
_CONFIG = {"seed": 11, "users": 40, "today": TODAY, "user_lines_per_file": 400}

_AGGREGATE_COLUMNS = (
    "daily_active_cli_users",
    "daily_active_assistant_code_review_users",
    "daily_passive_assistant_code_review_users",
    "weekly_active_assistant_code_review_users",
    "weekly_passive_assistant_code_review_users",
    "monthly_active_assistant_code_review_users",
    "monthly_passive_assistant_code_review_users",
    "daily_active_assistant_cloud_agent_users",
    "weekly_active_assistant_cloud_agent_users",
    "monthly_active_assistant_cloud_agent_users",
    "daily_active_assistant_app_users",
    "daily_active_vscode_agent_users",
)
_PULL_REQUEST_MEMBERS = (
    "total_created_by_assistant",
    "total_reviewed_by_assistant",
    "total_merged_created_by_assistant",
    "total_merged_reviewed_by_assistant",
    "median_minutes_to_merge_assistant_authored",
    "median_minutes_to_merge_assistant_reviewed",
    "total_assistant_suggestions",
    "total_assistant_applied_suggestions",
)


def _client(emu) -> ServiceClient:
    return ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(c)
    yield c
    c.close()


def _data(dialect: str) -> ReportData:
    config = EmulatorConfig(dialect=dialect, **_CONFIG)
    return ReportData(
        seed=config.seed,
        users=config.users,
        org=config.org,
        enterprise=config.enterprise,
        first_day=TODAY - timedelta(days=config.history_days),
        dialect=dialect,
    )


def _dicts(conn, query: str, params: list | None = None) -> list[dict]:
    cursor = conn.execute(query, params or [])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_public_aggregate_fields_land_in_typed_columns(conn, tmp_path, dialect):
    with running_emulator(EmulatorConfig(dialect=dialect, **_CONFIG)) as emu, _client(emu) as client:
        ingest_report(
            client=client,
            ref=ReportRef("enterprise", "acme-corp", "1-day", "aggregate", FINAL_DAY),
            conn=conn,
            raw_dir=tmp_path / "raw",
        )
    record = _data(dialect).aggregate_record(scope="enterprise", day=FINAL_DAY, completeness=1.0)
    (row,) = _dicts(conn, "SELECT * FROM core.daily_totals")
    name = "copilot" if dialect == "github" else "assistant"
    pulls = record["pull_requests"]
    # The example, literally: the record says total_created_by_copilot under github.
    assert row["pull_requests_total_created_by_assistant"] == pulls[f"total_created_by_{name}"]
    assert row["daily_active_assistant_code_review_users"] == record[f"daily_active_{name}_code_review_users"]
    for column in _AGGREGATE_COLUMNS:
        assert row[column] == record[column.replace("assistant", name)] is not None, column
    for member in _PULL_REQUEST_MEMBERS:
        # A median is null on the wire on a day without such a merged pull request.
        wire = pulls[member.replace("assistant", name)]
        assert row[f"pull_requests_{member}"] == wire and (wire is not None or "median" in member), member
    assert (
        row["daily_active_assistant_code_review_users"] + row["daily_passive_assistant_code_review_users"]
        <= row["daily_active_users"]
    )
    extra = json.loads(row["extra"]) if row["extra"] else {}
    assert not [k for k in extra if "copilot" in k or "assistant" in k]


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_public_user_fields_and_versions_land_in_typed_columns(conn, tmp_path, dialect):
    with running_emulator(EmulatorConfig(dialect=dialect, **_CONFIG)) as emu, _client(emu) as client:
        ingest_report(
            client=client,
            ref=ReportRef("organization", "acme", "1-day", "user", FINAL_DAY),
            conn=conn,
            raw_dir=tmp_path / "raw",
        )
    data = _data(dialect)
    lines = data.user_lines(
        scope="organization",
        days=[FINAL_DAY],
        completeness_for=lambda _: 1.0,
        start=0,
        stop=data.user_count(scope="organization"),
    )
    records = {r["user_id"]: r for r in map(json.loads, lines)}
    rows = {r["user_id"]: r for r in _dicts(conn, "SELECT * FROM core.user_daily_totals")}
    assert rows.keys() == records.keys()
    name = "copilot" if dialect == "github" else "assistant"
    for user_id, record in records.items():
        row = rows[user_id]
        assert row["ai_credits_used"] == Decimal(repr(record["ai_credits_used"]))
        for kind in ("active", "passive"):
            assert row[f"used_assistant_code_review_{kind}"] is record[f"used_{name}_code_review_{kind}"]
        # The agent surfaces of 2026, under the dialect's names.
        assert row["used_assistant_cloud_agent"] is record[f"used_{name}_cloud_agent"]
        assert row["used_assistant_app"] is record[f"used_{name}_app"]
        assert row["used_vscode_agent"] is record["used_vscode_agent"]
        # The chat panel's modes are features of totals_by_feature, not top-level fields.
        assert not any(key.startswith("chat_panel_") for key in record)
    assert any(r["ai_credits_used"] > 0 for r in rows.values())
    assert any(r["used_assistant_code_review_active"] for r in rows.values())
    for surface in ("used_assistant_cloud_agent", "used_assistant_app", "used_vscode_agent"):
        assert any(r[surface] for r in rows.values()), surface

    ides = _dicts(conn, "SELECT * FROM core.breakdowns WHERE kind = 'ide'")
    assert ides and all(r["ide_version"] and r["plugin_version"] and r["ide_version_sampled_at"] for r in ides)
    for r in ides:
        (entry,) = records[r["user_id"]]["totals_by_ide"]
        assert r["ide_version"] == entry["last_known_ide_version"]["ide_version"]
        assert r["plugin"] == entry["last_known_plugin_version"]["plugin"]
        assert r["plugin_version_sampled_at"] == datetime.fromisoformat(
            entry["last_known_plugin_version"]["sampled_at"]
        )
        assert r["ide_version_sampled_at"] == datetime.fromisoformat(entry["last_known_ide_version"]["sampled_at"])
    clis = _dicts(conn, "SELECT * FROM core.breakdowns WHERE kind = 'cli'")
    assert clis
    for r in clis:
        version = records[r["user_id"]]["totals_by_cli"]["last_known_cli_version"]
        assert r["cli_version"] == version["cli_version"]
        assert r["cli_version_sampled_at"] == datetime.fromisoformat(version["sampled_at"])


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_internal_fields_stay_in_extra_and_views_read_typed_columns_without_gaps(conn, tmp_path, dialect):
    with running_emulator(EmulatorConfig(dialect=dialect, **_CONFIG)) as emu, _client(emu) as client:
        for level in ("aggregate", "user"):
            ingest_report(
                client=client,
                ref=ReportRef("organization", "acme", "28-day", level, None),
                conn=conn,
                raw_dir=tmp_path / "raw",
            )
    for table, fields in (
        ("core.daily_totals", ("etl_id", "day_partition")),
        ("core.user_daily_totals", ("day_partition", "entity_id_partition")),
    ):
        columns = {r[0] for r in conn.execute(f"DESCRIBE {table}").fetchall()}
        for field in fields:
            assert field not in columns
            assert conn.execute(f"SELECT count(*) FROM {table} WHERE extra->>? IS NOT NULL", [field]).fetchone()[0] > 0
    rows = _dicts(conn, "SELECT * FROM bi.assistant_activity_daily")
    assert len(rows) == 28
    typed = [c for c in rows[0] if "assistant" in c or c == "daily_active_cli_users"]
    assert len(typed) >= 10
    # Medians are NULL on days without a merged pull request, as on the wire; counts never are.
    gaps = {c for r in rows for c in typed if r[c] is None and not c.startswith("pull_requests_median")}
    assert gaps == set()
    assert any(r["pull_requests_median_minutes_to_merge_assistant_authored"] is not None for r in rows)


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_second_enterprise_in_a_28_day_file_is_quarantined_and_the_next_daily_run_keeps_the_grain(
    conn, tmp_path, dialect
):
    config = EmulatorConfig(dialect=dialect, second_enterprise_in_28_day=True, **_CONFIG)
    own_id = _data(dialect).enterprise_id
    with running_emulator(config) as emu, _client(emu) as client:
        first = ingest_report(
            client=client,
            ref=ReportRef("enterprise", "acme-corp", "28-day", "aggregate", None),
            conn=conn,
            raw_dir=tmp_path / "raw",
        )
        assert first.quarantined == 1
        (line, reason, path) = conn.execute("SELECT line_number, reason, archive_path FROM raw.quarantine").fetchone()
        assert line == 2 and path.endswith(".ndjson.zst")
        assert f"is not enterprise acme-corp's (enterprise_id {own_id})" in reason and reason.startswith(
            "enterprise_id "
        )
        assert conn.execute(
            "SELECT count(*), count(DISTINCT day), min(enterprise_id), max(enterprise_id) FROM core.daily_totals"
        ).fetchone() == (28, 28, own_id, own_id)
        # The daily run and a second 28-day run (the id now comes from the warehouse) keep the grain.
        ingest_report(
            client=client,
            ref=ReportRef("enterprise", "acme-corp", "1-day", "aggregate", YESTERDAY),
            conn=conn,
            raw_dir=tmp_path / "raw",
        )
        again = ingest_report(
            client=client,
            ref=ReportRef("enterprise", "acme-corp", "28-day", "aggregate", None),
            conn=conn,
            raw_dir=tmp_path / "raw",
        )
        assert again.quarantined == 1
    grains = [check for check in REPORT_CHECKS if check.name == "grain_is_unique"]
    assert [
        o.describe() for o in run_checks(conn, grains, where="whole history", **WHOLE_HISTORY) if not o.passed
    ] == []
    assert conn.execute("SELECT count(DISTINCT enterprise_id) FROM core.daily_totals").fetchone()[0] == 1
