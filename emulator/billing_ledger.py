"""The bill of every scope the emulator serves, filtered and summed as the billing endpoints
answer it: which lines a scope, a period and the query's filters select, and their sums per
item (exact decimals: a line's amounts are its quantities times the unit price)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from emulator.billing_centers import Centers
from emulator.billing_world import BillingBook, Line, closes_on, month_closed, next_month
from emulator.reportdata import ReportData
from emulator.reports import Reports
from emulator.state import EmulatorState

NONE = "none"  # the cost_center_id of usage in no cost center
ZERO = Decimal(0)


@dataclass(frozen=True)
class Scope:
    """A billed organization, enterprise or user: its book and which of its lines are its own."""

    kind: str  # organization | enterprise | user
    name: str  # as the service spells it
    book: BillingBook
    centers: Centers | None  # the enterprise's (cost centers exist at enterprise level)

    def owns(self, line: Line) -> bool:
        if self.kind == "organization":
            return line.org.lower() == self.name.lower()
        if self.kind == "user":
            return line.login.lower() == self.name.lower()
        return True


class Ledger:
    """One billing book per report data set, its cost centers, and the scopes that read them."""

    def __init__(self, state: EmulatorState, reports: Reports) -> None:
        self.state = state
        self.reports = reports
        self._books: dict[int, BillingBook] = {}
        self._centers: dict[int, Centers] = {}

    def _book(self, data: ReportData) -> BillingBook:
        with self.state.lock:
            if id(data) not in self._books:
                self._books[id(data)] = BillingBook(data)
            return self._books[id(data)]

    def centers(self, data: ReportData) -> Centers:
        with self.state.lock:
            if id(data) not in self._centers:
                self._centers[id(data)] = Centers(self._book(data), data.enterprise)
            return self._centers[id(data)]

    def scope(self, kind: str, name: str) -> Scope | None:
        """The scope the path names, None when the emulator serves no such one."""
        if kind == "user":
            book = self._book(self.reports.data)
            for user in book.users("enterprise"):
                login = book.identity(user)[0]
                if login.lower() == name.lower():
                    return Scope("user", login, book, self.centers(self.reports.data))
            return None
        found = self.reports.data_for(kind, name)
        if found is None:
            return None
        spelled = found.org if kind == "organization" else found.enterprise
        return Scope(kind, spelled, self._book(found), self.centers(found))

    def lines(self, scope: Scope, start: date, end: date) -> list[Line]:
        today = self.state.today()
        return [line for line in scope.book.lines(start, end, today) if scope.owns(line)]


def center_test(scope: Scope, wanted: str | None) -> Callable[[Line], bool] | str | None:
    """The line test of a `cost_center_id` query (`none`: usage in no cost center), None
    without one, or an error text."""
    if wanted is None:
        return None
    centers = scope.centers
    if scope.kind != "enterprise" or centers is None:
        return "cost_center_id is only accepted on an enterprise's billing"
    if wanted.lower() == NONE:
        return lambda line: centers.center_of(line) is None
    center = centers.by_id.get(wanted)
    if center is None:
        return f"No cost center {wanted!r} in enterprise {scope.name}"
    return lambda line: centers.center_of(line) is center


def select(
    lines: Iterable[Line], *, scope: Scope, query: dict[str, str], product_of: Callable[[str], str]
) -> list[Line] | str:
    """The lines the query's filters keep (names case-insensitive), or an error text."""
    in_center = center_test(scope, query.get("cost_center_id"))
    if isinstance(in_center, str):
        return in_center
    fields: dict[str, Callable[[Line], str]] = {
        "organization": lambda line: line.org,
        "user": lambda line: line.login,
        "model": lambda line: line.model,
        "product": lambda line: product_of(line.product),
        "sku": lambda line: product_of(line.sku),
    }
    asked = [(field, query[name].lower()) for name, field in fields.items() if name in query]
    return [
        line
        for line in lines
        if all(field(line).lower() == value for field, value in asked) and (in_center is None or in_center(line))
    ]


def totals(lines: Iterable[Line]) -> dict[str, Decimal]:
    """Gross, discount and net quantities and amounts of some lines (one meter's)."""
    out = dict.fromkeys(
        ("grossQuantity", "grossAmount", "discountQuantity", "discountAmount", "netQuantity", "netAmount"), ZERO
    )
    for line in lines:
        gross, discount, net = line.amounts()
        out["grossQuantity"] += line.gross
        out["discountQuantity"] += line.discount
        out["netQuantity"] += line.net
        out["grossAmount"] += gross
        out["discountAmount"] += discount
        out["netAmount"] += net
    return out


def items(
    lines: Iterable[Line], *, by: Callable[[Line], tuple[str, ...]], names: tuple[str, ...]
) -> list[dict[str, Any]]:
    """One item per group of lines (`by` gives its key, `names` the key's field names), with the
    unit, the price and the sums, ordered by key."""
    groups: dict[tuple[str, ...], list[Line]] = {}
    for line in lines:
        groups.setdefault(by(line), []).append(line)
    out = []
    for group_key, group in sorted(groups.items()):
        meter = group[0].meter
        item: dict[str, Any] = dict(zip(names, group_key, strict=True))
        item |= {"unitType": meter.unit_type, "pricePerUnit": meter.price}
        out.append(item | totals(group))
    return out


def billed_total(ledger: Ledger, scope: Scope, year: int, month: int) -> dict[str, Any]:
    """The control answer: a scope-month's sums per meter and in all, and whether it is closed."""
    first = date(year, month, 1)
    lines = ledger.lines(scope, first, next_month(first) - timedelta(days=1))
    meters = sorted({line.meter.name for line in lines})
    today = ledger.state.today()
    return {
        "scope": scope.kind,
        "name": scope.name,
        "year": year,
        "month": month,
        "month_closed": month_closed(first, today),
        "closes_at": f"{closes_on(first).isoformat()}T00:00:00Z",
        "meters": {m: totals(line for line in lines if line.meter.name == m) for m in meters},
        "total": {k: v for k, v in totals(lines).items() if k.endswith("Amount")},
    }
