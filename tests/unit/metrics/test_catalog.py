"""Every declaration of the catalog holds together: names once, dimensions that exist, a
comparison's daily metric of the same split, per-person metrics only in the pseudonymous tier,
and every view a metric reads made by its group's SQL file, with the columns it names."""

from __future__ import annotations

import re

import pytest

from pipelines._paths import SQL_DIR
from pipelines.metrics.catalog import DIMENSIONS, GROUPS, METRICS

_DIMENSIONS = {d.name: d for d in DIMENSIONS}
_PEOPLE = {d.name for d in DIMENSIONS if d.tier == "pseudonymous"}


def test_every_metric_is_declared_once() -> None:
    names = [m.name for group in GROUPS.values() for m in group]
    assert len(names) == len(set(names)) == len(METRICS)


@pytest.mark.parametrize("metric", list(METRICS.values()), ids=lambda m: m.name)
def test_a_declaration_holds_together(metric) -> None:
    assert metric.dimensions[0] == "scope" and set(metric.dimensions) <= set(_DIMENSIONS)
    assert set(metric.split_by) <= set(metric.dimensions) - {"scope"}
    assert metric.definition.endswith(".") and "\n" not in metric.definition
    # A person's dimension makes a per-person metric, served only at the pseudonymous tier.
    assert (metric.tier == "pseudonymous") == bool(_PEOPLE & set(metric.dimensions))
    if metric.compared_by is not None:
        daily = METRICS[metric.compared_by]
        assert daily.grain == "day" and daily.compared_by == daily.name
        # Compared per group of the metric's own split (agent adoption: each app's job starts).
        assert set(daily.split_by) <= set(metric.split_by)
        assert (daily.dimensions, daily.tier) == (metric.dimensions, metric.tier)


def test_every_group_has_its_sql_file_and_nothing_else_is_one() -> None:
    files = {p.stem for p in (SQL_DIR / "metrics").glob("*.sql")}
    assert set(GROUPS) <= files
    # The rest are the reader's own statements and the calendar.
    assert {f for f in files - set(GROUPS) if not (f.startswith(("select_", "_")))} == set()


@pytest.mark.parametrize("group", list(GROUPS))
def test_every_view_a_metric_reads_is_made_by_its_group_s_file_with_its_columns(group: str) -> None:
    text = (SQL_DIR / "metrics" / f"{group}.sql").read_text()
    views = dict(re.findall(r"CREATE OR REPLACE TEMP VIEW (\w+) AS\s+SELECT (.*?)\s+FROM ", text, re.S))
    for metric in GROUPS[group]:
        assert metric.source in views, f"{metric.name} reads {metric.source}, which {group}.sql does not make"
        columns = {c.split(" AS ")[-1].strip().strip('"') for c in views[metric.source].split(",")}
        named = set(re.findall(r"\b([a-z_]+)\b(?!\s*\()", metric.measure + " " + (metric.known or "")))
        assert named - {"nullif", "sum"} - {"0"} <= columns, metric.name
        assert {"scope", "scope_name", "suppressed"} <= columns
        assert {"day"} <= columns if metric.grain == "day" else {"period_start", "period_end"} <= columns
        for dimension in metric.dimensions[1:]:
            assert dimension in columns and (not _DIMENSIONS[dimension].labelled or f"{dimension}_name" in columns)
