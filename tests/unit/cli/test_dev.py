"""`metrics-etl dev-env`, the environment `make dev` starts Dagster's UI in: the demo's home and
partitions covering every day it holds, so the UI after `make demo` shows the demo's runs."""

from __future__ import annotations

import os
import shlex
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from pipelines._clock import utc_today
from pipelines.cli import cli
from pipelines.cli._run import DEMO_DAYS


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    return CliRunner()


def _exports(runner: CliRunner, *args: str) -> dict[str, str]:
    done = runner.invoke(cli, [*args, "dev-env"])
    assert done.exit_code == 0, done.output
    pairs = [line.removeprefix("export ").split("=", 1) for line in done.stdout.splitlines()]
    return {name: shlex.split(value)[0] for name, value in pairs}


def _landed(warehouse: Path, first: date) -> None:
    """A warehouse holding daily reports from `first` (and a 28-day report from before it)."""
    warehouse.parent.mkdir(parents=True)
    with duckdb.connect(str(warehouse)) as conn:
        conn.execute("CREATE SCHEMA raw")
        conn.execute("CREATE TABLE raw.report_files (report_kind VARCHAR, report_start_day DATE)")
        conn.execute(
            "INSERT INTO raw.report_files VALUES ('1-day', $first), ('1-day', $first + 1), ('28-day', $first - 30)",
            {"first": first},
        )


def test_without_a_home_it_is_the_demos_with_partitions_from_the_first_day_a_demo_lands(
    runner: CliRunner, tmp_path: Path
) -> None:
    home = tmp_path / "share" / "metrics-etl-demo"
    assert _exports(runner) == {
        "METRICS_HOME": str(home),
        "DAGSTER_HOME": str(home / "dagster"),
        "METRICS_START_DAY": (utc_today() - timedelta(days=DEMO_DAYS)).isoformat(),
    }


def test_partitions_start_at_the_first_day_an_earlier_demo_landed(runner: CliRunner, tmp_path: Path) -> None:
    first = utc_today() - timedelta(days=DEMO_DAYS + 9)  # a demo of nine days ago
    _landed(tmp_path / "share" / "metrics-etl-demo" / "warehouse.duckdb", first)
    assert _exports(runner)["METRICS_START_DAY"] == first.isoformat()


def test_a_home_given_is_used_with_its_own_settings(runner: CliRunner, tmp_path: Path) -> None:
    first = utc_today() - timedelta(days=400)
    _landed(tmp_path / "deployment" / "warehouse.duckdb", first)
    exports = _exports(runner, "--home", str(tmp_path / "deployment"))
    assert exports["METRICS_HOME"] == str(tmp_path / "deployment")
    assert exports["DAGSTER_HOME"] == str(tmp_path / "deployment" / "dagster")
    assert exports["METRICS_START_DAY"] == first.isoformat()


def test_runs_an_earlier_version_made_in_the_home_get_the_code_location_the_ui_lists(
    runner: CliRunner, tmp_path: Path
) -> None:
    import dagster as dg

    from pipelines.config import Settings
    from pipelines.instance import ensure_instance, process_tags

    home = tmp_path / "share" / "metrics-etl-demo"
    ensure_instance(Settings(home=home))

    @dg.op
    def step() -> None: ...

    @dg.job(name="snapshots_job")
    def job() -> None:
        step()

    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
        run_id = job.execute_in_process(instance=instance, tags=process_tags()).run_id
    _exports(runner)
    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
        run = instance.get_run_by_id(run_id)
    assert run is not None and run.remote_job_origin is not None
    assert run.remote_job_origin.repository_origin.get_label() == "__repository__@metrics_etl"
