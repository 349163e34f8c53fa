"""`metrics-etl report` on a serving database an older version published (it lacks a view this
version's page reads, bi.service_incident_days, or a column it renamed, agent_users now
third_party_agent_users): one line saying what to run, never a traceback."""

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.integration.bi._warehouse import build_warehouse


def _older(conn: duckdb.DuckDBPyConnection, what: str) -> None:
    """Make the serving database look as an older version published it."""
    if what == "view":
        conn.execute("DROP VIEW bi.service_incident_days")
        return
    ((sql,),) = conn.execute(
        "SELECT sql FROM duckdb_views() WHERE schema_name = 'bi' AND view_name = 'team_usage_periods'"
    ).fetchall()
    conn.execute(
        sql.replace("CREATE VIEW", "CREATE OR REPLACE VIEW", 1).replace("AS third_party_agent_users", "AS agent_users")
    )


@pytest.mark.parametrize(("what", "named"), [("view", "service_incident_days"), ("column", "third_party_agent_users")])
def test_report_on_a_serving_database_from_before_an_upgrade_says_to_publish_again(
    tmp_path: Path, what: str, named: str
) -> None:
    serving = tmp_path / "serving.duckdb"
    build_warehouse(serving)
    with duckdb.connect(str(serving)) as conn:
        _older(conn, what)
    env = {
        **os.environ,
        "METRICS_HOME": str(tmp_path),
        "SERVING_PATH": str(serving),
        "WAREHOUSE_PATH": str(tmp_path / "absent.duckdb"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "report"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert named in line and "run `metrics-etl publish`" in line
    assert not (tmp_path / "report.html").exists()
