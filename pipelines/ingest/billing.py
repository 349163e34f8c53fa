"""Fetch and land each scope's billed usage (docs/billing.md).

Per scope, per table of FEEDS, per month: every day of the month up to the service's today is
fetched (one call a day; per cost center and `none` for billing.cost_center_usage; one call a
month for the billing usage lines, whose items carry their date), then landed in one
transaction replacing the month. Which months: those of the last `months` (the service keeps
24) not yet landed with the month closed, so a first run backfills and every later run fetches
the open months only (the current one, and the previous until the 4th): work scales with the
open month, not the history. Months before 2026-06-01 are the premium-request meter's, later
ones the AI-credit meter's.

Newest month first, every scope's month before the one before it; before each scope's month the
rate-limit budget must cover its calls and keep BUDGET_RESERVE for the rest of the run, else the
backfill stops there, says so in one line, and the next runs fetch the months not landed closed.

A scope whose token cannot read billing (403), or whose billing answers another error, lands
nothing more here, is recorded `denied` or `failed` in billing.fetches and said in ONE line; the
other scopes and the run go on (the reports land as ever).

Long because the month's fetch, the budget's stop and a scope's refusal share one run's state
(the scopes' closed months and cost centers, the calls spent): apart, each would pass it around.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import UTC, date, datetime, timedelta
from typing import Any, cast

import duckdb
import polars as pl

from pipelines._words import counted
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
from pipelines.service.errors import PermissionDenied, RateLimited, RequestFailed, ServiceError
from pipelines.transform.billing_usage import UNDECLARED, UsageRows, usage_rows
from pipelines.transform.columns import polars_types
from pipelines.warehouse.billing_usage import (
    BILLING_LEVEL,
    BillingMonth,
    closed_months,
    land_billing_month,
    newest_known_day,
    record_denied,
)
from pipelines.warehouse.catalog import table

__all__ = [
    "BUDGET_RESERVE",
    "FEEDS",
    "BillingRefusal",
    "BillingResult",
    "Feed",
    "ingest_billing",
    "meter_of",
    "months_since",
    "months_to_fetch",
]


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


def months_since(since: date | None, today: date, months: int) -> int:
    """How many months back a run's window reaches: from `since`'s month to today's (a run lands
    the bill of the months its days fall in and of the months after them, which hold the open
    ones), never more than `months`; None (the schedule): `months`, the backfill."""
    if since is None or months <= 0:
        return months
    span = (today.year - since.year) * 12 + today.month - since.month + 1
    return min(months, max(1, span))


def _days(month: date, today: date) -> list[date]:
    last = min(_next_month(month) - timedelta(days=1), today)
    return [month + timedelta(days=n) for n in range((last - month).days + 1)]


# Calls of the rate-limit budget a billing run leaves for the rest of the run (the reports,
# snapshots, billing state and exports): the backfill stops before the budget falls under it.
BUDGET_RESERVE = 1000


@dataclass
class BillingResult:
    calls: int = 0
    months: int = 0  # table-months landed
    rows: dict[str, int] = dataclass_field(default_factory=dict)
    denied: list[str] = dataclass_field(default_factory=list)  # the one line of each scope refused or failed
    refused: list[BillingRefusal] = dataclass_field(default_factory=list)
    drift: list[str] = dataclass_field(default_factory=list)  # "table: path" of every undeclared field seen
    deferred: str | None = None  # the one line saying the backfill stopped for the rate limit


@dataclass
class _Scope:
    """One scope's work in a run: the months its feeds landed closed, its cost centers once asked."""

    scope: Scope
    name: str
    closed: set[tuple[str, date]]
    centers: list[str] | None = None

    def feeds(self, month: date) -> list[Feed]:
        return [
            f
            for f in FEEDS
            if (self.scope == "enterprise" or not f.by_cost_center) and (f.name, month) not in self.closed
        ]

    def calls(self, month: date, today: date) -> int:
        """What fetching the month costs: a call per day (per cost center and `none`) or per month."""
        days = len(_days(month, today))
        return sum(
            (days * (len(self.centers or ()) if f.by_cost_center else 1)) if f.per_day else 1 for f in self.feeds(month)
        )


def ingest_billing(
    client: ServiceClient,
    conn: duckdb.DuckDBPyConnection,
    *,
    scopes: Iterable[tuple[Scope, str]],
    months: int = HISTORY_MONTHS,
    since: date | None = None,
    refetch: bool = False,
    reserve: int = BUDGET_RESERVE,
    say: Callable[[str], None] = print,
) -> BillingResult:
    """Fetch and land the billed usage of every scope (see the module's docstring), newest month
    first, while the rate-limit budget stays over `reserve`; `since` (a run's first day) keeps the
    window to the months from its month on; `refetch` fetches the closed months again too."""
    result = BillingResult()
    if months <= 0:
        return result
    today = service_today(client)
    if today is None:  # never this machine's day: the service may not have reached it, nor closed its month
        today = newest_known_day(conn)
        say(_clockless(today))
        if today is None:
            return result
    months = months_since(since, today, months)
    work = [
        _Scope(scope, name, set() if refetch else closed_months(conn, scope=scope, scope_name=name))
        for scope, name in scopes
    ]
    window = list(reversed(months_to_fetch(today=today, months=months, closed=())))
    wanted = [m for m in window if any(w.feeds(m) for w in work)]
    landed = 0
    for month in wanted:
        for w in [w for w in work if w.feeds(month)]:
            try:
                if w.centers is None and w.scope == "enterprise":
                    w.centers = [*cost_center_ids(client, w.name), NO_COST_CENTER]
                    result.calls += 1
                if not _affordable(client, w.calls(month, today), reserve):
                    raise _OutOfBudget
                for feed in w.feeds(month):
                    _land(client, conn, feed, w, month=month, today=today, out=result, say=say)
            except (_OutOfBudget, RateLimited):
                result.deferred = _deferred(landed, len(wanted))
            except ServiceError as exc:
                _refused(conn, w, today, exc, result, say)
                work.remove(w)
                continue
            if result.deferred is not None:
                say(result.deferred)
                return result
        landed += 1
    return result


def _clockless(known: date | None) -> str:
    cause = "billing: the service's answers carry no usable Date header (does a proxy remove it?)"
    if known is None:
        return f"{cause} and no day it has is known yet: nothing asked; the next run with a Date fetches it"
    return f"{cause}: days asked up to {known}, the newest it is known to have, every month landed open (asked again)"


class _OutOfBudget(Exception):
    """The next month would spend the budget's reserve."""


def _affordable(client: ServiceClient, calls: int, reserve: int) -> bool:
    budget = client.budgets.get("core")
    return budget is None or budget.remaining is None or budget.remaining - calls >= reserve


def _deferred(landed: int, wanted: int) -> str:
    return (
        f"billing backfill: {landed} of {counted(wanted, 'month')} landed; "
        "the rest follow on the next runs (rate limit)"
    )


def _land(
    client: ServiceClient,
    conn: duckdb.DuckDBPyConnection,
    feed: Feed,
    w: _Scope,
    *,
    month: date,
    today: date,
    out: BillingResult,
    say: Callable[[str], None],
) -> None:
    landed, told = _fetch_month(client, feed, scope=w.scope, name=w.name, month=month, today=today, centers=w.centers)
    out.calls += int(landed.fetches["calls"].sum())
    land_billing_month(conn, landed)
    out.months += 1
    out.rows[feed.table] = out.rows.get(feed.table, 0) + landed.rows.height
    drift = landed.drift.select("path", "drift").unique().sort("path", "drift").iter_rows()
    seen = (f"{feed.name}: {path}" + ("" if kind == UNDECLARED else f" ({kind})") for path, kind in drift)
    out.drift += [path for path in seen if path not in out.drift]
    if told:
        say(
            f"{feed.table} of {w.scope} {w.name}: {counted(len(told), 'item')} whose gross - discount is not "
            f"its net, landed as sent (net is what is billed): {told[0]}"
            + (f"; and {len(told) - 1} more (raw.field_drift, drift inconsistent)" if len(told) > 1 else "")
        )


@dataclass(frozen=True)
class BillingRefusal:
    """A scope whose billed usage could not be read: denied (403) or failed (any other answer)."""

    scope: Scope
    name: str
    status: str  # denied | failed
    message: str  # the service's status and message

    def line(self) -> str:
        if self.status == "denied":
            return (
                f"billing of {self.scope} {self.name} not read: the token needs {BILLING_ROLES[self.scope]}; "
                "cost views stay empty for it"
            )
        return f"billing of {self.scope} {self.name} not read ({self.message}); the next run asks again"


def _refused(
    conn: duckdb.DuckDBPyConnection,
    w: _Scope,
    today: date,
    exc: ServiceError,
    out: BillingResult,
    say: Callable[[str], None],
) -> None:
    status = "denied" if isinstance(exc, PermissionDenied) else "failed"
    message = f"{exc.status} {exc.message}" if isinstance(exc, RequestFailed) else str(exc)
    refusal = BillingRefusal(w.scope, w.name, status, message)
    record_denied(conn, _refused_rows(refusal, today))
    out.refused.append(refusal)
    out.denied.append(refusal.line())
    say(refusal.line())


def _refused_rows(refusal: BillingRefusal, today: date) -> pl.DataFrame:
    row = {
        "scope": refusal.scope,
        "scope_name": refusal.name,
        "endpoint": "*",
        "day": today,
        "fetched_at": datetime.now(UTC),
        "month_closed": False,
        "status": refusal.status,
        "calls": 1,
        "rows": 0,
        "message": refusal.message,
    }
    return pl.DataFrame([row], schema=polars_types("billing.fetches"))


def _fetch_month(
    client: ServiceClient,
    feed: Feed,
    *,
    scope: Scope,
    name: str,
    month: date,
    today: date,
    centers: list[str] | None,
) -> tuple[BillingMonth, list[str]]:
    """The month's rows, fetches and drift, and what to tell of its items (UsageRows.told)."""
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
        # Closed only on the service's word: an answer without a Date leaves its month open.
        served = [a.served_at for _, a in answers if a.served_at is not None]
        fetched_at = max(served, default=datetime.now(UTC))
        closed = len(served) == len(answers) and min(served).date() >= month_closes(month)
        before = len(rows.rows)
        unheld = 0
        for fixed, answer in answers:
            unheld += usage_rows(
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
        if unheld:
            closed = rows.reopen(before)
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
                "message": f"{counted(unheld, 'amount')} kept in extra: no column holds it" if unheld else None,
            }
        )
    end = _next_month(month) - timedelta(days=1)
    landed = BillingMonth(
        scope=scope,
        scope_name=name,
        table=feed.table,
        start=month,
        end=end,
        rows=rows.frame(),
        fetches=pl.DataFrame(fetches, schema=polars_types("billing.fetches")),
        drift=_drift_frame(rows, scope=scope, name=name, feed=feed),
    )
    return landed, rows.told


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
            "drift": drift,
            "records": count,
            "json_type": rows.drift.types[(day, path, drift)],
            "fetched_at": now,
        }
        for (day, path, drift), count in sorted(rows.drift.counts.items())
    ]
    return pl.DataFrame(records, schema=polars_types("raw.field_drift"))
