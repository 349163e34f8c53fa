"""The run summary's Cost section: what the AI assistant cost per scope, from the billing views.

Per scope, the net cost of the newest 28 days with billing data and its change a day against
the 28 before, called by the one change rule (sql/views/_change_rule.sql) and said in the
words every change is said in (pipelines._words.rate_change); the cost centers and teams
charged the most; the budgets of the newest month, those projected over first; and, for a
scope whose billing the token may not read, one line saying what is missing and why. The
figures are the page's too (sql/bi/cost/).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from decimal import Decimal
from typing import Any

import duckdb

from pipelines._words import counted, rate_change
from pipelines.warehouse.sql import run_sql

__all__ = ["cost_lines", "money"]

_TOP_COST_CENTERS = 3
_TOP_TEAMS = 5
_CHARGEBACK_QUERY = (
    "SELECT scope, scope_name, team, rule, sum(net_amount) AS net FROM bi.chargeback_by_team "
    "WHERE day > (SELECT max(day) FROM bi.cost_daily) - 28 GROUP BY ALL ORDER BY scope, scope_name, net DESC"
)
_BUDGET_QUERY = (
    "SELECT enterprise, budget_entity_name, budget_amount, consumed_to_date, projected_month_end, "
    "users_blocked FROM bi.budget_burn WHERE month = (SELECT max(month) FROM bi.budget_burn) "
    "ORDER BY projected_over DESC, enterprise, budget_entity_name"
)


def money(amount: Decimal | float | None) -> str:
    """An amount of dollars to the cent: "$1,234.50", "-$3.00" (a credit), "—" when unknown."""
    if amount is None:
        return "—"
    return f"{'-' if amount < 0 else ''}${abs(amount):,.2f}"


def cost_lines(conn: duckdb.DuckDBPyConnection, *, command: str) -> str:
    """The Cost section as text: a headline per scope with billing data, its cost centers, teams
    and budgets, and a line per scope whose billing was refused; nothing when there is neither."""
    text = ""
    centers = _by_scope(run_sql(conn, "bi/cost/select_cost_centers.sql"))
    teams = _by_scope(run_sql(conn, "bi/cost/select_teams.sql"))
    budgets: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for row in run_sql(conn, "bi/cost/select_budgets.sql"):
        budgets[row[0]].append(row[1:])
    for row in run_sql(conn, "bi/cost/select_periods.sql"):
        text += _headline(*row)
        key = (row[0], row[1])
        text += _cost_center_line(centers.get(key, []))
        text += _team_line(teams.get(key, []), command=command)
        if row[0] == "enterprise":
            text += _budget_lines(row[1], budgets.pop(row[1], []), command=command)
    for enterprise, rows in budgets.items():  # budgets of an enterprise without cost lines yet
        text += "\n" + _budget_lines(enterprise, rows, command=command)
    for row in run_sql(conn, "bi/cost/select_denied.sql"):
        text += f"\n{denied_line(*row)}\n"
    return text


def denied_line(scope: str, name: str, endpoints: str, fetched_at: Any, message: str | None) -> str:
    """What cost data of a scope is missing and why: the service refused the token its billing."""
    who = (
        "an enterprise owner or billing manager"
        if scope == "enterprise"
        else "an organization owner or billing manager"
    )
    said = f', it said "{message}"' if message else ""
    return (
        f"cost of {scope} {name}: not read, the service refused this token its billing ({endpoints}; last "
        f"asked {fetched_at:%Y-%m-%d %H:%M} UTC{said}): it needs {who}, or an "
        "app with billing read; "
        f"everything else of {scope} {name} landed (`metrics-etl check` says it per scope)"
    )


def _by_scope(rows: list[tuple[Any, ...]]) -> dict[tuple[str, str], list[tuple[Any, ...]]]:
    grouped: dict[tuple[str, str], list[tuple[Any, ...]]] = defaultdict(list)
    for scope, name, *rest in rows:
        grouped[(scope, name)].append(tuple(rest))
    return grouped


def _headline(
    scope: str,
    name: str,
    start: Any,
    end: Any,
    days: int,
    open_days: int,
    gross: Decimal,
    discount: Decimal,
    net: Decimal,
    previous_days: int | None,
    previous_net: Decimal | None,
    min_days: int,
    change: str | None,
    low: float | None,
    high: float | None,
) -> str:
    short = f"; only {counted(days, 'day')} of billing data" if days < 28 else ""
    line = (
        f"\ncost, {scope} {name}, last 28 days with billing data ({start} .. {end}{short}): {money(net)} net "
        f"({money(gross)} gross less {money(discount)} included in seats)"
    )
    if open_days:
        line += f"; {counted(open_days, 'day')} of a month the service has not closed may still grow"
    if not previous_days:
        return line + "; nothing earlier to compare with\n"
    rate, before = float(net) / days, float(previous_net or 0) / previous_days
    if change is None:
        return line + (
            f"; no comparison: {days} and {counted(previous_days, 'day')} of billing data (fewer than {min_days})\n"
        )
    said = rate_change(
        change, rate, before, unit="dollars a day", before=f"in the {previous_days} days before", low=low, high=high
    )
    return line + f"; {said}\n"


def _cost_center_line(rows: list[tuple[Any, ...]]) -> str:
    if not rows:
        return ""
    named = [(cid, name, net) for cid, name, net in rows if cid != "none"]
    shown = ", ".join(f"{name or cid} {money(net)}" for cid, name, net in named[:_TOP_COST_CENTERS])
    more = f", {len(named) - _TOP_COST_CENTERS} more" if len(named) > _TOP_COST_CENTERS else ""
    none = "".join(f"; in no cost center {money(net)}" for cid, _, net in rows if cid == "none")
    return f"  cost centers ({len(named)}), the most first: {shown or 'none'}{more}{none}\n"


def _team_line(rows: list[tuple[Any, ...]], *, command: str) -> str:
    if not rows:
        return ""
    teams = [(team, net) for team_id, team, net, _, _ in rows if team_id is not None]
    shown = ", ".join(f"{team} {money(net)}" for team, net in teams[:_TOP_TEAMS])
    more = f", {len(teams) - _TOP_TEAMS} more" if len(teams) > _TOP_TEAMS else ""
    left = "".join(
        f"; unallocated {money(net)}" + (f" ({reasons})" if reasons else "")
        for team_id, _, net, _, reasons in rows
        if team_id is None and abs(net) >= Decimal("0.005")  # rounding's millionths: nothing to say
    )
    return (
        f"  charged back to teams ({len(teams)}; a user on two teams split between them), the most first: "
        f'{shown or "none"}{more}{left}: {command} sql "{_CHARGEBACK_QUERY}"\n'
    )


def _budget_lines(enterprise: str, budgets: list[tuple[Any, ...]], *, command: str) -> str:
    """The enterprise's budgets of the newest month: those projected over, or the nearest to it."""
    if not budgets:
        return ""
    over = [b for b in budgets if b[9]]
    month = budgets[0][6]
    month = f"{month:%Y-%m}" if isinstance(month, date) else month  # its first day, or its name
    head = f"  budgets of enterprise {enterprise}, {month}: {len(over)} of {len(budgets)} projected over at month end"
    if not over:
        return f"{head}; the nearest, {_budget(*budgets[0])}\n"
    listed = "".join(f"\n    {_budget(*b)}" for b in over)
    return f'{head}:{listed}\n    every budget: {command} sql "{_BUDGET_QUERY}"\n'


def _budget(
    budget_id: str,
    budget_type: str | None,
    budget_scope: str | None,
    entity: str | None,
    sku: str | None,
    amount: Decimal | None,
    _month: Any,
    consumed: Decimal | None,
    projected: Decimal | None,
    _over: bool,
    prevent: bool | None,
    blocked: int | None,
) -> str:
    what = " ".join(part for part in ((budget_scope or "").replace("_", " "), entity or budget_id, sku) if part)
    stops = "; stops usage at the budget" if prevent else ""
    held = f", {counted(blocked, 'user')} blocked" if blocked else ""
    return f"{what}: {money(consumed)} to date, {money(projected)} projected against {money(amount)}{stops}{held}"
