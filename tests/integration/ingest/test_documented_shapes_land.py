"""What the service's docs describe, as the emulator serves it, lands whole in both dialects: no
line lost or quarantined, no field drift; null code-review flags as NULL, organization rows
naming their enterprise, the desktop-app-only users' copilot_app entry, language x feature
rows without interactions, repository visibility as the report writes it."""

from datetime import timedelta
from pathlib import Path

import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest import ingest_report
from pipelines.service import ReportRef, ServiceClient
from tests._emulator import settings_for
from tests.integration.ingest.conftest import FAST_RETRY, TODAY

DAYS = [TODAY - timedelta(days=n) for n in range(9, 5, -1)]  # four final days
USERS = 60


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_every_documented_shape_lands_with_no_line_lost_and_no_drift(conn, tmp_path: Path, dialect):
    config = EmulatorConfig(seed=83, users=USERS, repos=6, today=TODAY, dialect=dialect)
    with (
        running_emulator(config) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        for day in DAYS:
            for scope, name in (("organization", "acme"), ("enterprise", "acme-corp")):
                for level in ("aggregate", "user"):
                    ref = ReportRef(scope, name, "1-day", level, day)
                    assert ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path / "raw").available
    assert conn.execute("SELECT count(*) FROM raw.field_drift").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM raw.quarantine").fetchone() == (0,)
    per_day = conn.execute(
        "SELECT scope, day, count(*) FROM core.user_daily_totals GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    sizes = {"organization": USERS, "enterprise": USERS + USERS // 2}
    assert per_day == sorted((scope, day, sizes[scope]) for scope in sizes for day in DAYS)
    (enterprise_id,) = conn.execute(
        "SELECT DISTINCT enterprise_id FROM core.daily_totals WHERE scope = 'enterprise'"
    ).fetchone()
    for table in ("core.daily_totals", "core.user_daily_totals"):
        assert conn.execute(f"SELECT DISTINCT enterprise_id FROM {table} WHERE scope = 'organization'").fetchall() == [
            (enterprise_id,)
        ]
    reviews = dict(
        conn.execute(
            "SELECT coalesce(used_assistant_code_review_active::VARCHAR, 'null'), count(*)"
            " FROM core.user_daily_totals GROUP BY ALL"
        ).fetchall()
    )
    assert set(reviews) == {"true", "false", "null"}
    assert conn.execute(
        "SELECT count(*) FROM core.user_daily_totals WHERE used_assistant_cloud_agent IS NULL"
    ).fetchone() == (0,)
    app_only = conn.execute(
        "SELECT count(*) FROM core.breakdowns AS f WHERE f.level = 'user' AND f.kind = 'feature'"
        " AND f.feature = 'copilot_app' AND NOT EXISTS (SELECT 1 FROM core.breakdowns AS i WHERE i.kind = 'ide'"
        " AND i.level = 'user' AND (i.scope, i.day, i.user_id) = (f.scope, f.day, f.user_id))"
    ).fetchone()
    assert app_only[0] > 0
    assert (
        conn.execute(
            "SELECT count(*), count(user_initiated_interaction_count) FROM core.breakdowns"
            " WHERE kind = 'language_feature'"
        ).fetchone()[1]
        == 0
    )
    assert conn.execute(
        "SELECT count(*) FROM core.breakdowns WHERE kind IN ('model_feature', 'language_model')"
        " AND feature IS NOT DISTINCT FROM 'code_completion'"
    ).fetchone() == (0,)
    visibility = {v for (v,) in conn.execute("SELECT DISTINCT repo_visibility FROM core.repository_days").fetchall()}
    assert visibility == {"PRIVATE", "INTERNAL", "PUBLIC"}
