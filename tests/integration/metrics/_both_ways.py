"""Each metric of the aggregate tier computed both ways: by the catalog, and from the full tier's
views the page and the run summary read (the serving database), for every row the catalog
answers; shared by the proofs on an emulator's home (tests/integration/metrics/test_both_ways.py,
tests/e2e/test_metrics_catalog.py)."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from typing import Any

import duckdb

from pipelines.metrics import MetricsReader
from pipelines.metrics.catalog import METRICS

_DAILY = "SELECT scope, scope_name, day, {value} FROM bi.assistant_activity_daily WHERE day BETWEEN $first AND $last"
_PERIOD = (
    "SELECT scope, scope_name, {value} FROM bi.assistant_activity_daily WHERE day BETWEEN $first AND $last GROUP BY ALL"
)
_AGENT_DAY = (
    "SELECT scope, scope_name, day, agent_id, {value} FROM bi.agent_usage_daily WHERE day BETWEEN $first AND $last"
)
_AGENT_PERIOD = "SELECT scope, scope_name, agent_id, {value} FROM bi.agent_usage_periods WHERE period_end = $last"
# bi.assistant_usage_daily's counted rows per source ({value} over them): a person once per source.
_SOURCE = (
    "SELECT scope, scope_name{day}, source, {value} FROM bi.assistant_usage_daily"
    " WHERE day BETWEEN $first AND $last GROUP BY ALL"
)
_PEOPLE = "count(DISTINCT person) FILTER (WHERE counted AND active)"
# bi.assistant_cost_daily's people's cost per source ({value} over amount_usd and billed), with every
# group bi.assistant_usage_daily has (a hidden row of the tier is one of them, cost or not).
_COST = (
    "SELECT scope, scope_name{day}, source, {value} FROM (SELECT scope, scope_name, day, source,"
    " CAST(NULL AS BOOLEAN) AS billed, CAST(NULL AS DECIMAL(38, 8)) AS amount_usd FROM bi.assistant_usage_daily"
    " UNION ALL SELECT scope, scope_name, day, source, billed, amount_usd FROM bi.assistant_cost_daily"
    " WHERE person IS NOT NULL) WHERE day BETWEEN $first AND $last GROUP BY ALL"
)
_VENDOR_SUMS = {
    "assistant_requests": "requests",
    "assistant_sessions": "sessions",
    "assistant_lines_added": "lines_added",
    "assistant_lines_accepted": "lines_accepted",
}
# Each metric of the aggregate tier from the full tier's views: rows of its keys (scope, scope
# name, the day for a day metric, its dimensions) and the figure; a period metric's for the
# period $first..$last.
FULL = {
    "active_users": _DAILY.format(value="daily_active_users"),
    "active_users_28d": _PERIOD.format(value="arg_max(monthly_active_users, day)"),
    "interactions": _DAILY.format(value="user_initiated_interaction_count"),
    "interactions_28d": _PERIOD.format(value="sum(user_initiated_interaction_count)"),
    "code_generations": _DAILY.format(value="code_generation_activity_count"),
    "code_acceptances": _DAILY.format(value="code_acceptance_activity_count"),
    "code_generations_28d": _PERIOD.format(value="sum(code_generation_activity_count)"),
    "code_acceptances_28d": _PERIOD.format(value="sum(code_acceptance_activity_count)"),
    "acceptance_rate": _DAILY.format(
        value="code_acceptance_activity_count / nullif(code_generation_activity_count, 0)"
    ),
    "acceptance_rate_28d": _PERIOD.format(
        value="sum(code_acceptance_activity_count) / nullif(sum(code_generation_activity_count), 0)"
    ),
    "agent_adoption": _AGENT_PERIOD.format(value="agent_users"),
    "agent_users": _AGENT_DAY.format(value="agent_users"),
    "agent_job_starts": _AGENT_DAY.format(value="agent_job_starts"),
    "agent_job_starts_28d": _AGENT_PERIOD.format(value="agent_job_starts"),
    "agent_sessions": _AGENT_DAY.format(value="agent_sessions"),
    "agent_sessions_28d": _AGENT_PERIOD.format(value="agent_sessions"),
    "team_active_users": "SELECT scope, scope_name, day, team_id, active_users FROM bi.team_usage_daily "
    "WHERE day BETWEEN $first AND $last",
    "team_active_users_28d": "SELECT scope, scope_name, team_id, active_users FROM bi.team_usage_periods "
    "WHERE period_end = $last",
    "cost_center_cost_28d": "SELECT scope, scope_name, cost_center_id, sum(net_amount) FROM bi.cost_by_cost_center "
    "WHERE day BETWEEN $first AND $last AND cost_center_id <> 'none' GROUP BY ALL",
    "team_charge_28d": "SELECT scope, scope_name, team_id, sum(net_amount) FROM bi.chargeback_by_team "
    "WHERE day BETWEEN $first AND $last AND team_id IS NOT NULL GROUP BY ALL",
    "assistant_people": _SOURCE.format(day=", day", value=_PEOPLE),
    "assistant_people_28d": _SOURCE.format(day="", value=_PEOPLE),
    **{
        f"{name}{suffix}": _SOURCE.format(day=day, value=f"CAST(sum({column}) FILTER (WHERE counted) AS BIGINT)")
        for name, column in _VENDOR_SUMS.items()
        for suffix, day in (("", ", day"), ("_28d", ""))
    },
    **{
        f"{name}{suffix}": _COST.format(day=day, value=f"sum(amount_usd) FILTER (WHERE {billed})")
        for name, billed in (("assistant_cost", "billed"), ("assistant_subscription_estimate", "NOT billed"))
        for suffix, day in (("", ", day"), ("_28d", ""))
    },
}


def both_ways(reader: MetricsReader, full: duckdb.DuckDBPyConnection, name: str, first: date) -> tuple[int, int]:
    """The catalog's answer for `name` from `first` on, split by every dimension it has, checked
    row by row against the views: a figure shown equals theirs, a row hidden is one they have, a
    row with neither is a gap named. Returns how many rows were shown and hidden."""
    metric = METRICS[name]
    keys = [d for d in metric.dimensions if d != "scope"]
    answer = reader.query(name, start=first, group_by=keys)
    assert not answer.truncated
    shown = hidden = 0
    for row in answer.records():
        if row[name] is None and not row["suppressed"]:
            assert row["day"] in answer.gaps, (name, row)  # no figure and not hidden: a gap, named
            continue
        start, end = (row["day"], row["day"]) if metric.grain == "day" else (row["period_start"], row["period_end"])
        sql = FULL[name]
        params = [start if word == "$first" else end for word in re.findall(r"\$first|\$last", sql)]
        found = {tuple(r[:-1]): r[-1] for r in full.execute(re.sub(r"\$first|\$last", "?", sql), params).fetchall()}
        key = (
            row["scope"],
            row["scope_name"],
            *([row["day"]] if metric.grain == "day" else []),
            *(row[k] for k in keys),
        )
        assert key in found, (name, key)
        if row["suppressed"]:
            hidden += 1
        else:
            assert _same(row[name], found[key]), (name, key, row[name], found[key])
            shown += 1
    return shown, hidden


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (float, Decimal)) or isinstance(b, (float, Decimal)):
        return b is not None and abs(float(a) - float(b)) < 1e-6
    return bool(a == b)
