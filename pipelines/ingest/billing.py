"""Fetch and land each scope's billed usage (docs/billing.md).

Per scope, per table of FEEDS, per month: every day of the month up to the service's today is
fetched (one call a day; per cost center and `none` for billing.cost_center_usage; one call a
month for the billing usage lines, whose items carry their date), then landed in one
transaction replacing the month. Which months: those of the last `months` (the service keeps
24) not yet landed with the month closed, so a first run backfills and every later run fetches
the open months only (the current one, and the previous until the 4th): work scales with the
open month, not the history. Months before 2026-06-01 are the premium-request meter's, later
ones the AI-credit meter's.

A scope whose token cannot read billing lands nothing here, is recorded `denied` in
billing.fetches and said in ONE line; the run goes on (the reports land as ever).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import UTC, date, datetime, timedelta
from typing import Any, cast

import duckdb
import polars as pl

from pipelines._clock import utc_today
from pipelines.service.billing import NO_COST_CENTER, UsageAnswer, cost_center_ids, fetch_usage, service_today
from pipelines.service.billing_wire import (
    AI_CREDITS_FROM,
    BILLING_ROLES,
    HISTORY_MONTHS,
    Dialect,
    Scope,
    field,
    month_closes,
)
from pipelines.service.client import ServiceClient
from pipelines.service.errors import PermissionDenied
from pipelines.transform.billing_usage import UNDECLARED, UsageRows, usage_rows
from pipelines.transform.columns import polars_types
from pipelines.warehouse.billing_usage import (
    BILLING_LEVEL,
    BillingMonth,
    closed_months,
    land_billing_month,
    record_denied,
)
from pipelines.warehouse.catalog import table

__all__ = ["FEEDS", "BillingResult", "Feed", "ingest_billing", "meter_of", "months_to_fetch"]


@dataclass(frozen=True)
class Feed:
    """One billing table and how it is fetched."""

    table: str  # billing.<table>, also its billing.fetches endpoint
    endpoint: str | None  # its billing_wire endpoint; None: the meter's (AI credits or premium requests)
    per_day: bool = True  # one call a day; False: one a month, each item saying its date
    by_cost_center: bool = False  # one call per cost center and `none` (an enterprise's)

    @property
    def name(self) -> str:
        return self.table.split(".", 1)[1]


FEEDS: tuple[Feed, ...] = (
    Feed("billing.credit_usage", None),
    Feed("billing.cost_center_usage", None, by_cost_center=True),
    Feed("billing.usage_summary", "usage_summary"),
    Feed("billing.product_usage", "usage", per_day=False),
)


def meter_of(month: date) -> str:
    """The meter a month is billed in: premium requests before 2026-06-01, AI credits from then."""
    return "premium_request" if month < AI_CREDITS_FROM else "ai_credit"


def _month_start(day: date) -> date:
    return day.replace(day=1)


def _next_month(first: date) -> date:
    return (first.replace(day=28) + timedelta(days=4)).replace(day=1)


def months_to_fetch(*, today: date, months: int, closed: Iterable[date]) -> list[date]:
    """The first days of the months a run fetches, oldest first: the last `months` (at most the
    service's HISTORY_MONTHS, the current one included) but those landed closed."""
    done = set(closed)
    first = _month_start(today)
    wanted = [first]
    for _ in range(min(months, HISTORY_MONTHS) - 1):
        first = _month_start(first - timedelta(days=1))
        wanted.append(first)
    return [m for m in reversed(wanted) if m not in done]


def _days(month: date, today: date) -> list[date]:
    last = min(_next_month(month) - timedelta(days=1), today)
    return [month + timedelta(days=n) for n in range((last - month).days + 1)]


@dataclass
class BillingResult:
    calls: int = 0
    months: int = 0  # table-months landed
    rows: dict[str, int] = dataclass_field(default_factory=dict)
    denied: list[str] = dataclass_field(default_factory=list)  # the one line of each scope refused
    drift: list[str] = dataclass_field(default_factory=list)  # "table: path" of every undeclared field seen


def ingest_billing(
    client: ServiceClient,
    conn: duckdb.DuckDBPyConnection,
    *,
    scopes: Iterable[tuple[Scope, str]],
    months: int = HISTORY_MONTHS,
    refetch: bool = False,
    say: Callable[[str], None] = print,
) -> BillingResult:
    """Fetch and land the billed usage of every scope (see the module's docstring); `refetch`
    fetches the closed months again too."""
    result = BillingResult()
    if months <= 0:
        return result
    today = service_today(client) or utc_today()
    for scope, name in scopes:
        try:
            _ingest_scope(client, conn, scope=scope, name=name, today=today, months=months, refetch=refetch, out=result)
        except PermissionDenied as exc:
            line = f"billing of {scope} {name} not read: the token needs {BILLING_ROLES}; cost views stay empty for it"
            record_denied(conn, _denied_rows(scope, name, today, exc))
            result.denied.append(line)
            say(line)
    return result


def _denied_rows(scope: str, name: str, today: date, exc: PermissionDenied) -> pl.DataFrame:
    row = {
        "scope": scope,
        "scope_name": name,
        "endpoint": "*",
        "day": today,
        "fetched_at": datetime.now(UTC),
        "month_closed": False,
        "status": "denied",
        "calls": 1,
        "rows": 0,
        "message": exc.message,
    }
    return pl.DataFrame([row], schema=polars_types("billing.fetches"))


def _ingest_scope(
    client: ServiceClient,
    conn: duckdb.DuckDBPyConnection,
    *,
    scope: Scope,
    name: str,
    today: date,
    months: int,
    refetch: bool,
    out: BillingResult,
) -> None:
    closed = set() if refetch else closed_months(conn, scope=scope, scope_name=name)
    centers: list[str] | None = None
    for feed in FEEDS:
        if feed.by_cost_center and scope != "enterprise":
            continue
        for month in months_to_fetch(today=today, months=months, closed={m for e, m in closed if e == feed.name}):
            if feed.by_cost_center and centers is None:
                centers = [*cost_center_ids(client, name), NO_COST_CENTER]
                out.calls += 1
            landed = _fetch_month(client, feed, scope=scope, name=name, month=month, today=today, centers=centers)
            out.calls += int(landed.fetches["calls"].sum())
            land_billing_month(conn, landed)
            out.months += 1
            out.rows[feed.table] = out.rows.get(feed.table, 0) + landed.rows.height
            seen = (f"{feed.name}: {path}" for path in landed.drift["path"].unique().sort())
            out.drift += [path for path in seen if path not in out.drift]


def _fetch_month(
    client: ServiceClient,
    feed: Feed,
    *,
    scope: Scope,
    name: str,
    month: date,
    today: date,
    centers: list[str] | None,
) -> BillingMonth:
    meter = meter_of(month)
    dialect = cast(Dialect, client.dialect.name)
    endpoint = feed.endpoint or f"{meter}_usage"
    grain = table(feed.table).grain
    rows = UsageRows(feed.table)
    fetches: list[dict[str, Any]] = []
    days: list[date | None] = list(_days(month, today)) if feed.per_day else [None]
    for day in days:
        answers: list[tuple[dict[str, Any], UsageAnswer]] = []
        for center in centers if feed.by_cost_center and centers is not None else [None]:
            answer = fetch_usage(
                client,
                scope=scope,
                scope_name=name,
                endpoint=endpoint,
                year=month.year,
                month=month.month,
                day=day.day if day is not None else None,
                cost_center_id=center,
            )
            fixed: dict[str, Any] = {"scope": scope, "scope_name": name}
            if feed.endpoint is None:
                fixed["meter"] = meter
            if center is not None:
                fixed |= _center(dialect, answer, center)
            answers.append((fixed, answer))
        served = [a.served_at for _, a in answers if a.served_at is not None] or [datetime.now(UTC)]
        fetched_at = max(served)
        closed = min(served).date() >= month_closes(month)
        before = len(rows.rows)
        for fixed, answer in answers:
            usage_rows(
                rows,
                answer.items,
                dialect=dialect,
                day=day,
                envelope=answer.envelope,
                fixed=fixed,
                grain=grain,
                fetched_at=fetched_at,
                month_closed=closed,
            )
        fetches.append(
            {
                "scope": scope,
                "scope_name": name,
                "endpoint": feed.name,
                "day": day or month,
                "fetched_at": fetched_at,
                "month_closed": closed,
                "status": "ok",
                "calls": len(answers),
                "rows": len(rows.rows) - before,
                "message": None,
            }
        )
    end = _next_month(month) - timedelta(days=1)
    return BillingMonth(
        scope=scope,
        scope_name=name,
        table=feed.table,
        start=month,
        end=end,
        rows=rows.frame(),
        fetches=pl.DataFrame(fetches, schema=polars_types("billing.fetches")),
        drift=_drift_frame(rows, scope=scope, name=name, feed=feed),
    )


def _center(dialect: Dialect, answer: UsageAnswer, center: str) -> dict[str, Any]:
    """The cost center's id and name as the answer echoes them (`costCenter`), else the filter's."""
    echoed = field(dialect, answer.envelope, "costCenter")
    named = echoed.get("name") if isinstance(echoed, dict) else None
    return {"cost_center_id": center, "cost_center_name": named}


def _drift_frame(rows: UsageRows, *, scope: str, name: str, feed: Feed) -> pl.DataFrame:
    now = datetime.now(UTC)
    records = [
        {
            "scope": scope,
            "scope_name": name,
            "level": BILLING_LEVEL,
            "report_kind": feed.name,
            "day": day,
            "path": path,
            "drift": UNDECLARED,
            "records": count,
            "json_type": rows.drift.types[(day, path)],
            "fetched_at": now,
        }
        for (day, path), count in sorted(rows.drift.counts.items())
    ]
    return pl.DataFrame(records, schema=polars_types("raw.field_drift"))
