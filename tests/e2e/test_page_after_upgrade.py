"""`metrics-etl report` on a serving database an older version published (it lacks a view this
version's page reads, bi.service_incident_days): one line saying what to run, never a traceback."""

import os
import subprocess
import sys
from pathlib import Path

import duckdb

from tests.integration.bi._warehouse import build_warehouse


def test_report_on_a_serving_database_from_before_an_upgrade_says_to_publish_again(tmp_path: Path) -> None:
    serving = tmp_path / "serving.duckdb"
    build_warehouse(serving)
    with duckdb.connect(str(serving)) as conn:
        conn.execute("DROP VIEW bi.service_incident_days")  # as a serving database published before it was
    env = {**os.environ, "METRICS_HOME": str(tmp_path), "SERVING_PATH": str(serving),
           "WAREHOUSE_PATH": str(tmp_path / "absent.duckdb")}
    done = subprocess.run([sys.executable, "-m", "pipelines.cli", "report"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "service_incident_days" in line and "run `metrics-etl publish`" in line
    assert not (tmp_path / "report.html").exists()
