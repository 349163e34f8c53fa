"""The catalog and the page agree on reports the emulator served over loopback (an organization
and its enterprise, both levels, landed as a run lands them: tests/integration/bi/_landed.py) and
published with a k small enough that most rows are shown: each metric computed both ways, by the
catalog from the aggregate tier and from the full tier's views the page reads, and the run
summary's headline job starts are the catalog's. (The bill is not landed here: the cost metrics'
proof is tests/e2e/test_metrics_catalog.py's, on a run that lands it; nor are the vendors: the
metrics only they answer are proved by test_vendors.py.)"""

from __future__ import annotations

import io
import re
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pytest

from pipelines.bi.summary import summarize
from pipelines.config import Settings
from pipelines.metrics import MetricsReader
from pipelines.metrics.catalog import METRICS
from pipelines.publish.lake import publish
from pipelines.service import ReportRef
from tests.integration.bi._landed import landed_warehouse
from tests.integration.ingest.conftest import TODAY
from tests.integration.metrics._both_ways import FULL, both_ways

DAYS = [TODAY - timedelta(days=n) for n in range(12, 4, -1)]
_NO_BILL = ("cost_center_cost_28d", "team_charge_28d")
# Nor the vendors: test_vendors.py computes their metrics both ways on a home that lands them.
_NO_VENDOR = (
    "assistant_sessions",
    "assistant_sessions_28d",
    "assistant_lines_accepted",
    "assistant_lines_accepted_28d",
    "assistant_cost",
    "assistant_cost_28d",
    "assistant_subscription_estimate",
    "assistant_subscription_estimate_28d",
)


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    refs = [
        ReportRef(scope, name, "1-day", level, day)
        for day in DAYS
        for level in ("aggregate", "user")
        for scope, name in (("organization", "acme"), ("enterprise", "acme-corp"))
    ]
    conn = landed_warehouse(tmp_path_factory, "both-ways", seed=81, users=600, dialect="service", refs=refs)
    root = Path(
        conn.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchone()[0]
    ).parent
    publish(conn, lake=root / "lake", serving=root / "serving.duckdb", k=2, full=True)
    conn.close()
    return root


def test_every_metric_of_the_aggregate_tier_is_computed_both_ways() -> None:
    assert set(FULL) == {m.name for m in METRICS.values() if m.tier == "aggregate"}


@pytest.mark.parametrize("name", [n for n in FULL if n not in (*_NO_BILL, *_NO_VENDOR)])
def test_each_metric_is_the_views_figure(landed: Path, name: str) -> None:
    with (
        MetricsReader(Settings(home=landed).metrics_config()) as reader,
        duckdb.connect(str(landed / "serving.duckdb"), read_only=True) as full,
    ):
        shown, _hidden = both_ways(reader, full, name, DAYS[0])
    assert shown, f"{name}: no figure shown to compare"


def test_the_run_summary_s_headline_is_the_catalog_s_job_starts(landed: Path) -> None:
    out = io.StringIO()
    summarize(landed / "warehouse.duckdb", serving=landed / "serving.duckdb", out=out)
    day = r"(\d{4}-\d\d-\d\d)"
    found = re.search(
        rf"headline, (\w+) ([\w-]+), last 28 days \({day} \.\. {day}[^)]*\): ([\d,]+) agent job starts", out.getvalue()
    )
    assert found, out.getvalue()
    kind, name, _start, end, starts = found.groups()
    ask = {"scope": f"{kind}:{name}", "period": date.fromisoformat(end)}
    with MetricsReader(Settings(home=landed).metrics_config()) as reader:
        (total,) = reader.query("agent_job_starts_28d", **ask).records()
        apps = reader.query("agent_job_starts_28d", group_by=["agent"], **ask).records()
    if any(app["suppressed"] for app in apps):
        # An app of fewer than k users is hidden, and so is any sum holding it: never a part sum.
        assert total["suppressed"] and total["agent_job_starts_28d"] is None
    else:
        assert total["agent_job_starts_28d"] == int(starts.replace(",", ""))
