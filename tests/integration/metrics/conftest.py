"""A data home of known numbers for the catalog's tests: the hand-built warehouse of
tests/integration/bi/_warehouse.py (two 28-day periods of one organization: an app grown, one
gone, one new, one shrunk; every 9th day without the agent array; the newest 3 days provisional)
published as a run publishes it, with its aggregate tier (k = 2: most rows shown) and its
pseudonymous tier beside the full serving database the page reads."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from pipelines.config import MetricsConfig
from pipelines.publish.aggregate import aggregate_serving
from pipelines.publish.lake import publish
from pipelines.publish.pseudonymous import pseudonymous_serving, publish_pseudonymous
from tests.integration.bi._warehouse import Expected, build_warehouse

KEY = "catalog-test-pseudonym-key-0123456789"
K = 2


@dataclass(frozen=True)
class Home:
    root: Path
    expected: Expected

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse.duckdb"

    @property
    def serving(self) -> Path:
        return self.root / "serving.duckdb"

    def config(self, tier: str = "aggregate", **limits: float) -> MetricsConfig:
        return MetricsConfig(
            aggregate_path=aggregate_serving(self.serving),
            pseudonymous_path=pseudonymous_serving(self.serving) if tier == "pseudonymous" else None,
            tier=tier,
            **limits,  # type: ignore[arg-type]
        )

    def full(self) -> duckdb.DuckDBPyConnection:
        """The full serving database: the views the page and the run summary read."""
        return duckdb.connect(str(self.serving), read_only=True)


def make_home(root: Path) -> Home:
    expected = build_warehouse(root / "warehouse.duckdb")
    with duckdb.connect(str(root / "warehouse.duckdb")) as conn:
        publish(conn, lake=root / "lake", serving=root / "serving.duckdb", k=K, full=True)
        publish_pseudonymous(conn, serving=root / "serving.duckdb", key=KEY)
    return Home(root, expected)


@pytest.fixture(scope="package")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    return make_home(tmp_path_factory.mktemp("catalog-home"))
