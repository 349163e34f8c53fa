"""One demo home for the MCP tests: `metrics-etl demo` lands 56 days of the emulator's reports over
loopback (two whole 28-day periods, so a comparison can be called) and publishes them; a second
publish with a pseudonym key writes the pseudonymous tier beside the aggregate one. The tests
start `metrics-etl mcp` on it as an assistant's client does. (The e2e reference run lands 8
days: too few for two periods.)"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

CLI = str(Path(sys.executable).parent / "metrics-etl")
KEY = "a-test-pseudonym-key-of-some-length"
DAYS, USERS = 56, 150
# The smallest group the aggregate tier shows. The demo's world is small: at 5 nearly every
# agent app's day is hidden; at 2 most are shown and a lone person still is not.
K = 2


@dataclass(frozen=True)
class Home:
    path: Path
    cwd: Path  # where the server runs: no .env of the repository's
    env: Mapping[str, str]  # the variables a client's configuration would give it

    def sql(self, query: str, *params: object, db: str = "serving.duckdb") -> list[tuple[object, ...]]:
        with duckdb.connect(str(self.path / db), read_only=True) as conn:
            return conn.execute(query, list(params)).fetchall()

    def logins_and_ids(self) -> set[str]:
        """Every login and user id the warehouse knows: none may reach an answer of the aggregate tier."""
        with duckdb.connect(str(self.path / "warehouse.duckdb"), read_only=True) as conn:
            rows = conn.execute(
                "SELECT user_login, CAST(user_id AS VARCHAR) FROM core.user_daily_totals "
                "UNION SELECT login, CAST(user_id AS VARCHAR) FROM snapshots.seats"
            ).fetchall()
        return {value for row in rows for value in row if value}


def clean_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_", "SERVING_", "LAKE_"))
    }
    return env | extra


def cli(home: Home, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, "--home", str(home.path), *args],
        env={**home.env, **extra},
        cwd=home.cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="session")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    root = tmp_path_factory.mktemp("mcp")
    (root / "cwd").mkdir()
    made = Home(path=root / "home", cwd=root / "cwd", env=clean_env(XDG_DATA_HOME=str(root / "share")))
    demo = cli(made, "demo", "--days", str(DAYS), "--users", str(USERS), "--repos", "2")
    assert demo.returncode == 0, demo.stderr[-3000:]
    published = cli(made, "publish", METRICS_PSEUDONYM_KEY=KEY, METRICS_AGGREGATE_K=str(K))
    assert published.returncode == 0, published.stderr[-3000:]
    return made
