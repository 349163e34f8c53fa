"""A data home a command cannot use fails in one line naming the cause and what to do: a
read-only home, a warehouse file that is not a warehouse, a path Dagster's SQLite storage cannot
take. A home whose name holds pattern characters (`[`, `*`) works."""

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

CLI = str(Path(sys.executable).parent / "metrics-etl")


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_"))}
    return subprocess.run(
        [CLI, "--home", str(home), *args], env=env, cwd=_existing(home), capture_output=True, text=True, timeout=600
    )


def _existing(path: Path) -> Path:
    while not path.exists():
        path = path.parent
    return path


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode != 0, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
    return lines[0]


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small demo's home, in a directory whose name DuckDB would read as a file pattern."""
    home = tmp_path_factory.mktemp("homes") / "team [eu] *" / "home"
    done = _cli(home, "demo", "--days", "2", "--users", "10", "--repos", "1")
    assert done.returncode == 0, done.stderr[-3000:]
    return home


def test_a_home_named_with_pattern_characters_publishes_and_answers(demo_home: Path) -> None:
    done = _cli(demo_home, "sql", "--format", "csv", "SELECT count(DISTINCT day) AS days FROM core.daily_totals")
    assert done.returncode == 0, done.stderr
    header, days = done.stdout.splitlines()
    assert header == "days" and int(days) >= 2  # the two days and the latest 28-day report's


@contextlib.contextmanager
def _read_only(home: Path) -> Iterator[None]:
    """The home as a read-only file system (a bind mount); as another user, without its write bits."""
    if os.geteuid() != 0:
        subprocess.run(["chmod", "-R", "a-w", str(home)], check=True)
        try:
            yield
        finally:
            subprocess.run(["chmod", "-R", "u+w", str(home)], check=True)
        return
    mounted = subprocess.run(["mount", "--bind", str(home), str(home)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"root here cannot bind-mount, so nothing makes a directory read-only: {mounted.stderr.strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(home)], check=True)
        yield
    finally:
        subprocess.run(["umount", str(home)], check=True)


@pytest.mark.parametrize(
    "args", [["migrate"], ["backup", "{home}/../backups"], ["publish"], ["report"], ["init"], ["webhooks", "load"]]
)
def test_a_read_only_home_is_one_line_naming_the_cause(demo_home: Path, args: list[str]) -> None:
    with _read_only(demo_home):
        line = _one_line(_cli(demo_home, *(arg.format(home=demo_home) for arg in args)))
    assert "Read-only file system" in line or "Permission denied" in line or "does not exist" in line, line
    assert "--home" in line or "WEBHOOK_SPOOL_DIR" in line, line


@pytest.mark.parametrize("args", [["migrate"], ["backup", "{home}/../backups"], ["quarantine", "list"]])
def test_a_warehouse_file_that_is_not_a_warehouse_is_one_line(tmp_path: Path, args: list[str]) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "warehouse.duckdb").write_text("a note someone saved under the warehouse's name\n")
    line = _one_line(_cli(home, *(arg.format(home=home) for arg in args)))
    assert "not a valid DuckDB database file" in line and str(home / "warehouse.duckdb") in line, line
    with contextlib.suppress(duckdb.Error):  # nothing changed it into a database
        duckdb.connect(str(home / "warehouse.duckdb")).close()
    assert (home / "warehouse.duckdb").read_text().startswith("a note")


def test_a_home_dagster_cannot_keep_sqlite_files_in_is_one_line(tmp_path: Path) -> None:
    home = tmp_path / "what?" / "home"
    line = _one_line(_cli(home, "demo", "--days", "1", "--users", "4", "--repos", "1"))
    assert "'?'" in line and "--instance postgres" in line, line
    assert not (tmp_path / "what").exists(), "Dagster wrote its files at the path cut at the '?'"
