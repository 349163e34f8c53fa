"""The page's "Assistants across vendors" section (issue 47), from bi.assistant_usage_daily,
bi.assistant_unmapped_people and bi.assistant_cost_daily (full tier).

Over the newest 28 days with a row: each source's active people (vendors: how many of them the
identity map knows the login of), the people on the service and a vendor or on two vendors, each
vendor's unmapped people and what to do about them, and each source's cost, billed apart from
estimated. The page's scope and scope `vendor` only: an enterprise is never added to its
organizations. Counts only, no person named. Without a vendor landed, one line naming the settings.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from html import escape
from typing import Any

import duckdb

from pipelines.bi import money
from pipelines.page._table import Cell, table
from pipelines.warehouse.sql import run_sql

_Row = tuple[Any, ...]
# A vendor's name as a person reads it (the page sits below pipelines.vendors, whose titles it
# cannot import; a vendor not named here reads under its source name).
_VENDORS = {"claude_code": "Claude Code", "cursor": "Cursor"}
_PEOPLE = ("Source", "People active", "Mapped to a service login", "Days with data", "Provisional days")
_UNMAPPED = ("Vendor", "People without a login", "API keys", "Every day landed")
_COST = ("Source", "What it is", "Amount", "Gross", "Of which unmapped people", "Days it covers", "Provisional days")
# (source, cost_kind) → (label, what the amount is): billed and estimated never read alike.
_COST_KINDS = {
    ("service", "billed"): ("The service", "billed: the bill's net, after the seats' included allowance"),
    ("claude_code", "api_estimate"): ("Claude Code", "estimated by Anthropic, API use: billed per token"),
    ("claude_code", "subscription_estimate"): (
        "Claude Code",
        "estimated by Anthropic, subscription seats: not billed, the seat's price pays it",
    ),
    ("claude_code", "unknown_estimate"): (
        "Claude Code",
        "estimated by Anthropic, no customer type sent: not claimed billed",
    ),
    ("cursor", "on_demand"): ("Cursor", "billed: on-demand spend beyond the plan, its growth between two reads"),
}

NO_VENDOR = (
    '<section class="card" id="assistants"><p class="lead"><strong>Assistants across vendors</strong>: no vendor '
    "landed yet; set <code>ANTHROPIC_ADMIN_KEY</code> (Claude Code, Anthropic Admin API) or "
    "<code>CURSOR_API_KEY</code> (Cursor Admin API) to show them beside the service.</p></section>"
)


def vendors_section(conn: duckdb.DuckDBPyConnection, *, scope: str, scope_name: str) -> str:
    """The section for the page's scope (and scope `vendor`), or its one line when no vendor landed."""
    ((landed, first, last),) = run_sql(conn, "page/select_vendor_window.sql", scope=scope, scope_name=scope_name)
    if not landed:
        return NO_VENDOR
    if last is None:  # vendors landed, but none of their rows nor the scope's are in this scope
        return (
            '<section class="card" id="assistants"><h2>Assistants across vendors</h2>'
            f'<p class="lead">No assistant data in {escape(scope)} {escape(scope_name)} or under scope '
            "<code>vendor</code> yet.</p></section>"
        )
    window = {"scope": scope, "scope_name": scope_name, "first_day": first, "last_day": last}
    sources = run_sql(conn, "page/select_vendor_sources.sql", **window)
    ((service_and_vendor, two_vendors),) = run_sql(conn, "page/select_vendor_overlap.sql", **window)
    unmapped = run_sql(conn, "page/select_vendor_unmapped.sql", **window)
    cost = run_sql(conn, "page/select_vendor_cost.sql", **window)
    overlap = (
        f'<p class="vendor-overlap">People on more than one source: <strong data-figure="service-and-vendor">'
        f"{service_and_vendor:,}</strong> on the service and at least one vendor, "
        f'<strong data-figure="two-vendors">{two_vendors:,}</strong> on two vendors or more.</p>'
    )
    return (
        '<section class="card" id="assistants"><h2>Assistants across vendors</h2>'
        f'<p class="lead">{first} to {last}: the newest 28 days with assistant data, in {escape(scope)} '
        f"{escape(scope_name)} and, for the vendors' people no scope of the service has, under scope "
        "<code>vendor</code>. A person counts once however many days; an agent app's use that its vendor's "
        "own figures hold is counted there, once. Each source counts its own kind of activity, so sources "
        "are never added up. Provisional days were fetched before they were final: still filling in.</p>"
        f"{_people(sources)}{overlap}{_unmapped(unmapped)}{_cost(cost)}</section>"
    )


def _vendor(name: str) -> str:
    return _VENDORS.get(name, name)


def _source_label(source: str) -> str:
    if source == "service":
        return "The service (its own surfaces)"
    if source.startswith("agent:"):
        return f"Agent app {escape(source.removeprefix('agent:'))} (through the service)"
    return escape(_vendor(source))


def _people(rows: list[_Row]) -> str:
    body: list[tuple[str, list[Cell]]] = [
        (
            f'class="vendor-source" data-source="{escape(source)}"',
            [
                (_source_label(source), ""),
                (f"{active:,}", "num"),
                (f"{mapped:,}" if kind == "vendor" else "—", "num"),
                (f"{days:,}", "num"),
                (f"{provisional:,}", "num"),
            ],
        )
        for source, kind, active, mapped, days, provisional in rows
    ]
    return table(headings=_PEOPLE, rows=body, caption="<strong>People active per source</strong>")


def _unmapped(rows: list[_Row]) -> str:
    if not rows:
        return ""
    body: list[tuple[str, list[Cell]]] = [
        (
            f'class="vendor-unmapped" data-vendor="{escape(vendor)}" data-people="{people}"',
            [
                (escape(_vendor(vendor)), ""),
                (f"{people:,}", "num"),
                (f"{api_keys:,}", "num"),
                (f"{ever:,} people, {since} to {until}" if since else "—", ""),
            ],
        )
        for vendor, people, api_keys, ever, since, until in rows
    ]
    return (
        table(headings=_UNMAPPED, rows=body, caption="<strong>Vendors' people without a service login</strong>")
        + '<p class="muted">They are counted under scope <code>vendor</code>, never dropped. To join them to '
        "their service use, list each one's email and login in the identity map: a CSV of "
        "<code>email,login</code> lines at <code>IDENTITY_MAP_PATH</code>; the next run reads it.</p>"
    )


def _days(first: date | None, last: date | None) -> str:
    if first is None or last is None:
        return "—"
    return str(last) if first == last else f"{first} to {last}"


def _cost(rows: list[_Row]) -> str:
    if not rows:
        return '<p class="muted">No cost landed in these days.</p>'
    body: list[tuple[str, list[Cell]]] = []
    for source, kind, billed, amount, gross, unmapped, covers_from, last, provisional in rows:
        label, what = _COST_KINDS.get(
            (source, kind),
            (_vendor(source), f"{kind}: {'billed' if billed else 'not billed'}"),
        )
        body.append(
            (
                f'class="vendor-cost" data-source="{escape(source)}" data-cost-kind="{escape(kind)}" '
                f'data-amount="{Decimal(amount):.2f}"',
                [
                    (escape(label), ""),
                    (escape(what), ""),
                    (money(amount), "num"),
                    (money(gross), "num"),
                    (money(unmapped) if source != "service" else "—", "num"),
                    (_days(covers_from, last), ""),
                    (f"{provisional:,}", "num"),
                ],
            )
        )
    return table(
        headings=_COST,
        rows=body,
        caption="<strong>Cost per source</strong> · in US dollars; each row its own kind, never added up: "
        "the service's bill and the vendors' estimates are different things",
    )
