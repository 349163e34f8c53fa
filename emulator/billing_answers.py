"""What every billing route answers with: who may read billing (403 otherwise, as the service
words it), the period a query asks for (year, month, day; 24 months back at most), the wire's
field names and product words per dialect, and money as JSON numbers."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from emulator.answers import json_response, message, principal_of
from emulator.billing_world import HISTORY_MONTHS, month_start, months_back, next_month
from emulator.state import EmulatorState

_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def billing_denied(request: Request, state: EmulatorState) -> Response | None:
    """401 without a token; 403 for a token without billing read (an installation's words, or a
    person's), with the billing docs' link; None when the request may read billing."""
    principal = principal_of(request)
    if principal.kind == "anonymous":
        return message(401, "Requires authentication")
    if principal.billing_read:
        return None
    text = (
        "Resource not accessible by integration"
        if principal.kind == "installation"
        else "Must have admin rights or billing manager role"
    )
    return message(403, text, documentation_url=f"{state.wire.docs_url}/billing/usage")


def wire_key(name: str, dialect: str) -> str:
    """A field's name on the wire: the public service's camelCase, or its snake_case."""
    return name if dialect == "github" else _CAMEL.sub(r"_\1", name).lower()


def wire_json(value: Any, dialect: str) -> Any:
    """A record in the dialect's field names, Decimal money as JSON numbers (the shortest float
    that reads back as the same decimal: every amount here has at most 15 digits)."""
    if isinstance(value, dict):
        return {wire_key(k, dialect): wire_json(v, dialect) for k, v in value.items()}
    if isinstance(value, list):
        return [wire_json(v, dialect) for v in value]
    if isinstance(value, Decimal):
        number = float(value)
        assert Decimal(repr(number)) == value, value
        return int(number) if value == value.to_integral_value() else number
    return value


def billing_json(request: Request, state: EmulatorState, record: dict[str, Any], status: int = 200) -> Response:
    return json_response(request, wire_json(record, state.config.dialect), status=status)


@dataclass(frozen=True)
class Period:
    """The days a billing query asks for: a year, a month or a day."""

    start: date
    end: date
    year: int
    month: int | None
    day: int | None

    def time_period(self) -> dict[str, int]:
        out = {"year": self.year}
        if self.month is not None:
            out["month"] = self.month
        if self.day is not None:
            out["day"] = self.day
        return out


def period_of(request: Request, today: date) -> Period | Response:
    """The query's year, month and day (defaults: this year and month, as the service's are),
    or 400 naming what is wrong; months older than HISTORY_MONTHS answer 400 too."""
    query = request.query_params
    try:
        year = int(query.get("year", today.year))
        month = int(query["month"]) if "month" in query else None
        day = int(query["day"]) if "day" in query else None
    except ValueError:
        return message(400, "Query parameters 'year', 'month' and 'day' must be integers")
    if "year" not in query and month is None:
        month = today.month
    if day is not None and month is None:
        month = today.month
    try:
        if month is None:
            start, end = date(year, 1, 1), date(year, 12, 31)
        elif day is None:
            start = date(year, month, 1)
            end = next_month(start) - timedelta(days=1)
        else:
            start = end = date(year, month, day)
    except ValueError:
        return message(400, f"No such date: year {year}, month {month}, day {day}")
    oldest = month_start(today)
    for _ in range(HISTORY_MONTHS - 1):
        oldest = month_start(oldest - timedelta(days=1))
    if end < oldest:
        return message(
            400,
            f"Only the past {HISTORY_MONTHS} months of billing data are available "
            f"(from {oldest.isoformat()}); ask for a later year or month",
        )
    start = max(start, oldest)
    assert months_back(start, today) < HISTORY_MONTHS
    return Period(start=start, end=end, year=year, month=month, day=day)
