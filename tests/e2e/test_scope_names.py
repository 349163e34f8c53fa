"""Scope names are compared as the service compares them: `SERVICE_ORG=ACME` then `acme` land as
one organization, under the service's own spelling, in both dialects."""

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import httpx
import pytest

from emulator import EmulatorConfig, running_emulator
from tests._emulator import environ_for

CLI = str(Path(sys.executable).parent / "metrics-etl")
DAY = datetime.now(UTC).date() - timedelta(days=6)


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_the_service_answers_an_organization_under_its_own_spelling(dialect):
    with running_emulator(EmulatorConfig(seed=41, users=4, repos=1, dialect=dialect)) as emu:
        headers = {"Authorization": f"token {emu.credentials['token']}"}
        with httpx.Client(base_url=emu.base_url, headers=headers) as client:
            assert client.get("/orgs/ACME").json()["login"] == "acme"
            assert client.get("/orgs/AcMe").json()["login"] == "acme"
            assert client.get("/orgs/nobody").status_code == 404


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_one_organization_lands_under_one_name_whatever_case_the_setting_uses(tmp_path, dialect):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_"))}
    env |= {"METRICS_HOME": str(tmp_path), "METRICS_START_DAY": (DAY - timedelta(days=1)).isoformat()}
    config = EmulatorConfig(seed=42, users=6, repos=1, issues_per_repo=1, dialect=dialect)
    with running_emulator(config) as emu:
        for org, enterprise, day in (("ACME", "ACME-Corp", DAY - timedelta(days=1)), ("acme", "acme-corp", DAY)):
            done = subprocess.run(
                [CLI, "run", "--day", day.isoformat(), "--no-latest"],
                env=env | environ_for(emu, SERVICE_ORG=org, SERVICE_ENTERPRISE=enterprise),
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, done.stderr[-3000:]
    with duckdb.connect(str(tmp_path / "warehouse.duckdb"), read_only=True) as conn:
        scopes = conn.execute("SELECT DISTINCT scope, scope_name FROM core.user_daily_totals ORDER BY ALL").fetchall()
        members = conn.execute("SELECT DISTINCT org_login FROM snapshots.org_members").fetchall()
        days = conn.execute("SELECT scope_name, count(*) FROM core.daily_totals GROUP BY 1 ORDER BY 1").fetchall()
    assert scopes == [("enterprise", "acme-corp"), ("organization", "acme")]
    assert members == [("acme",)]
    assert days == [("acme", 2), ("acme-corp", 2)]  # both runs' days, under one name each
