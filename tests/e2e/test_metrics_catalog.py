"""The catalog and the page agree on the home `metrics-etl run` built from the emulator's reports
and bill (the clean reference of tests/e2e/conftest.py, aggregate tier at the default k = 5):
each metric computed both ways, by the catalog from the aggregate tier and from the full tier's
views the page reads, every figure it shows theirs, every row it hides said hidden; and the run
summary's headline job starts are the catalog's."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

import duckdb
import pytest

from pipelines.config import Settings
from pipelines.metrics import MetricsReader
from tests.e2e.conftest import Reference
from tests.integration.metrics._both_ways import FULL, both_ways

# The scope's own figures are about every active user, never fewer than k in the emulator's world.
_ALWAYS_SHOWN = ("active_users", "interactions", "interactions_28d", "code_generations", "code_acceptances")


@pytest.fixture(scope="module")
def reader(reference: Reference) -> Iterator[MetricsReader]:
    with MetricsReader(Settings(home=reference.place.root).metrics_config()) as reader:
        yield reader


@pytest.fixture(scope="module")
def full(reference: Reference) -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect(str(reference.place.root / "serving.duckdb"), read_only=True) as conn:
        yield conn


@pytest.mark.parametrize("name", list(FULL))
def test_the_catalog_s_figures_are_the_views(reader, full, reference: Reference, name: str) -> None:
    shown, _hidden = both_ways(reader, full, name, date.fromisoformat(reference.window.first))
    if name in _ALWAYS_SHOWN:
        assert shown, name


def test_the_run_summary_s_headline_is_the_catalog_s_job_starts(reader, reference: Reference) -> None:
    day = r"(\d{4}-\d\d-\d\d)"
    headline = rf"headline, (\w+) ([\w-]+), last 28 days \({day} \.\. {day}[^)]*\): ([\d,]+) agent job starts"
    found = re.search(headline, reference.log)
    assert found, reference.log[-3000:]
    kind, name, _start, end, starts = found.groups()
    ask = {"scope": f"{kind}:{name}", "period": date.fromisoformat(end)}
    (total,) = reader.query("agent_job_starts_28d", **ask).records()
    apps = reader.query("agent_job_starts_28d", group_by=["agent"], **ask).records()
    if any(app["suppressed"] for app in apps):
        # An app of fewer than k users is hidden, and so is any sum holding it: never a part sum.
        assert total["suppressed"] and total["agent_job_starts_28d"] is None
    else:
        assert total["agent_job_starts_28d"] == sum(app["agent_job_starts_28d"] for app in apps)
        assert total["agent_job_starts_28d"] == int(starts.replace(",", ""))
