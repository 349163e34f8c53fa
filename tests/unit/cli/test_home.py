"""`metrics-etl init`, `migrate` and `backup`, in-process."""

from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from pipelines.cli import cli
from pipelines.instance import instance_template


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def test_init_creates_the_home_and_a_local_instance_and_never_overwrites_one(runner, tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = runner.invoke(cli, ["--home", str(home), "init"])
    assert done.exit_code == 0, done.output
    config = home / "dagster" / "dagster.yaml"
    assert config.read_text() == instance_template("local")
    assert (home / "logs").is_dir() and (home / "spool").is_dir() and (home / "raw").is_dir()
    assert f"DAGSTER_HOME={home / 'dagster'}" in done.output
    config.write_text("# edited by the operator\n")
    again = runner.invoke(cli, ["--home", str(home), "init", "--instance", "postgres"])
    assert again.exit_code == 0 and "kept as it was" in again.output
    assert config.read_text() == "# edited by the operator\n"


def test_init_writes_the_postgres_instance_when_asked(runner, tmp_path: Path) -> None:
    done = runner.invoke(cli, ["--home", str(tmp_path), "init", "--instance", "postgres"])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "dagster" / "dagster.yaml").read_text() == instance_template("postgres")


def test_migrate_applies_the_schema_once(runner, tmp_path: Path) -> None:
    first = runner.invoke(cli, ["--home", str(tmp_path), "migrate"])
    assert first.exit_code == 0 and first.output.startswith("applied ")
    second = runner.invoke(cli, ["--home", str(tmp_path), "migrate"])
    assert second.exit_code == 0 and "is up to date" in second.output


def test_backup_copies_a_whole_warehouse_that_opens_on_its_own(runner, tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert runner.invoke(cli, ["--home", str(home), "migrate"]).exit_code == 0
    with duckdb.connect(str(home / "warehouse.duckdb")) as conn:
        conn.execute("CREATE TABLE main.kept AS SELECT range AS n FROM range(1000)")
    done = runner.invoke(cli, ["--home", str(home), "backup", str(tmp_path / "backups")])
    assert done.exit_code == 0, done.output
    (copy,) = (tmp_path / "backups").glob("warehouse-*.duckdb")
    assert not list((tmp_path / "backups").glob(".*")), "no partial file is left"
    with duckdb.connect(str(copy), read_only=True) as conn:
        assert conn.execute("SELECT count(*) FROM main.kept").fetchone() == (1000,)


def test_backup_of_nothing_says_so_in_one_line(runner, tmp_path: Path) -> None:
    done = runner.invoke(cli, ["--home", str(tmp_path), "backup", str(tmp_path / "b")])
    assert done.exit_code == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith("metrics-etl backup:") and "nothing landed yet" in line
