"""Configuration of the emulator: what world it serves and which faults it injects."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import date
from pathlib import Path
from typing import Any, Literal

from emulator.errors import EmulatorError

Dialect = Literal["service", "github"]
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*$")
SECONDARY_LIMIT_KINDS = ("retry_after", "no_retry_after", "abuse")


def _flag(raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text not in ("true", "false", "1", "0"):
        raise ValueError(f"not a boolean: {raw!r}")
    return text in ("true", "1")


@dataclass(frozen=True)
class FaultSpec:
    """Faults injected on demand; every one is off by default."""

    error_rate: float = 0.0
    slow_rate: float = 0.0
    slow_ms: int = 0
    truncate_rate: float = 0.0
    drop_rate: float = 0.0
    link_ttl_seconds: int | None = None
    spend_rate_limit_for_seconds: int | None = None
    secondary_limit_rate: float = 0.0
    # How a secondary limit answers: with retry-after, without it, or as the older
    # "abuse detection" 403 (also without it).
    secondary_limit_kind: str = "retry_after"
    # Rate-limit answers (primary and secondary) use 403 or 429, as the public service does.
    limit_status: int = 403
    # No x-ratelimit-reset header on any answer (a spent budget with no reset time).
    omit_rate_limit_reset: bool = False
    graphql_max_aliases: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.secondary_limit_kind not in SECONDARY_LIMIT_KINDS:
            raise EmulatorError(f"secondary_limit_kind must be one of {', '.join(SECONDARY_LIMIT_KINDS)}")
        if self.limit_status not in (403, 429):
            raise EmulatorError("limit_status must be 403 or 429")

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_FAULT_TYPES: dict[str, Callable[[Any], Any]] = {
    "error_rate": float,
    "slow_rate": float,
    "slow_ms": int,
    "truncate_rate": float,
    "drop_rate": float,
    "link_ttl_seconds": int,
    "spend_rate_limit_for_seconds": int,
    "secondary_limit_rate": float,
    "secondary_limit_kind": str,
    "limit_status": int,
    "omit_rate_limit_reset": _flag,
    "graphql_max_aliases": int,
    "seed": int,
}


def fault_spec_from_json(data: dict[str, Any]) -> FaultSpec:
    """Build a FaultSpec from the admin endpoint's JSON, rejecting unknown names."""
    unknown = set(data) - set(_FAULT_TYPES)
    if unknown:
        raise EmulatorError(f"unknown fault names: {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    for name, raw in data.items():
        values[name] = None if raw is None else _FAULT_TYPES[name](raw)
    return FaultSpec(**values)


def parse_fault_spec(text: str) -> FaultSpec:
    """Parse the CLI form `error_rate=0.1,drop_rate=0.05`."""
    values: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, raw = part.partition("=")
        if not sep or name not in _FAULT_TYPES:
            raise EmulatorError(f"bad fault setting {part!r}; known: {', '.join(_FAULT_TYPES)}")
        try:
            values[name] = _FAULT_TYPES[name](raw)
        except ValueError as exc:
            raise EmulatorError(f"bad value for {name}: {raw!r}") from exc
    return FaultSpec(**values)


@dataclass(frozen=True)
class RecordDrift:
    """Records as a service that changed under a client sends them (off by default): a field no
    client declares yet on every record, and values of declared fields in another JSON type."""

    undeclared_field: str | None = None  # e.g. totals_by_future_widget, an object on every record
    # Every Nth user record (0: none) carries ai_credits_used as a string, used_agent as 1 and
    # loc_added_sum as a string.
    mistyped_every: int = 0
    # Fields sent under another name, as before (or after) a rename: (field, name sent).
    renamed: tuple[tuple[str, str], ...] = ()

    def apply(self, record: dict[str, Any], *, user_index: int | None) -> dict[str, Any]:
        for field_name, sent in self.renamed:
            if field_name in record:
                record[sent] = record.pop(field_name)
        if self.undeclared_field:
            record[self.undeclared_field] = {"widgets": 3, "kind": "future"}
        if user_index is not None and self.mistyped_every and user_index % self.mistyped_every == 0:
            for name, value in MISTYPED.items():
                if name in record:
                    record[name] = value(record[name])
        return record


# How RecordDrift mistypes a user record's fields: each value as another JSON type.
MISTYPED: dict[str, Callable[[Any], Any]] = {
    "ai_credits_used": str,
    "used_agent": int,
    "loc_added_sum": str,
}


def parse_record_drift(text: str) -> RecordDrift:
    """The CLI form `undeclared_field=totals_by_future_widget,mistyped_every=3`."""
    values: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, raw = part.partition("=")
        if name == "undeclared_field":
            values[name] = raw
        elif name == "mistyped_every":
            values[name] = int(raw)
        else:
            raise EmulatorError(f"bad record drift setting {part!r}; known: undeclared_field, mistyped_every")
    return RecordDrift(**values)


REPORT_FILE_LEVELS = ("user", "aggregate", "user-teams", "repos")
VENDORS = ("claude", "cursor")


def parse_vendors(text: str) -> tuple[str, ...]:
    """The CLI form `claude,cursor`; `none` (or nothing) serves no vendor."""
    names = tuple(n.strip() for n in text.split(",") if n.strip() and n.strip() != "none")
    if unknown := set(names) - set(VENDORS):
        raise EmulatorError(f"unknown vendors {', '.join(sorted(unknown))}; known: {', '.join(VENDORS)}, none")
    return names


@dataclass(frozen=True)
class EmulatorConfig:
    """The world the emulator serves; everything in it follows from `seed`."""

    seed: int = 1
    users: int = 50
    repos: int = 8
    issues_per_repo: int = 30
    dialect: Dialect = "service"
    today: date | None = None
    org: str = "acme"  # a comma list serves several organizations; the first is the primary
    enterprise: str = "acme-corp"  # likewise for enterprises
    history_days: int = 60
    rate_limit: int = 5000
    unauth_limit: int = 60
    user_lines_per_file: int = 20_000
    report_file: Path | None = None
    report_file_day: date | None = None
    # Which of the primary organization's 1-day reports of report_file_day the file is served as:
    # "user" (users-1-day), "aggregate" (organization-1-day), "user-teams" or "repos".
    report_file_level: str = "user"
    # The public example: the enterprise 28-day file also holds a second enterprise's wrapper.
    second_enterprise_in_28_day: bool = False
    faults: FaultSpec = field(default_factory=FaultSpec)
    record_drift: RecordDrift = field(default_factory=RecordDrift)
    # The day the service renamed its "coding agent" fields "cloud agent" (April 2026 on the
    # public service): earlier days' records carry the old names. None: the new names throughout.
    cloud_agent_from: date | None = None
    # The first day with a repos-1-day report (GA 2026-07-17 on the public service): earlier days
    # answer 204 (organization) or 404 (enterprise), as a day not yet available. None: every day.
    repos_from: date | None = None
    # The day repository rows gained pull_request_review_times (2026-09-25, no backfill): earlier
    # rows carry no such field. None: every day has it.
    review_times_from: date | None = None
    # Seats whose `assignee` is null (a deleted or pending account, as the service documents it)
    # at the end of every organization's and enterprise's seat listing, counted in total_seats.
    unassigned_seats: int = 0
    # Seats no table can hold (an assignee id over 64 bits, as a broken or hostile service might
    # send) after those, each of its own holder, counted in total_seats too.
    unlandable_seats: int = 0
    # Whether the owner's and the installation's tokens hold billing read (an enterprise admin or
    # billing manager, an app with billing read): False serves a token without it, whose billing
    # answers are 403 while the rest of the platform answers as before (docs/emulator.md, "Billing").
    billing_read: bool = True
    # The vendors served beside the service (emulator/vendors.py): "claude", "cursor"; () serves
    # the service alone, as a team that buys neither. Each key's requests a minute before a 429:
    # Cursor documents 20 for its Admin API; Anthropic gives no number for this endpoint.
    vendors: tuple[str, ...] = ("claude", "cursor")
    claude_requests_per_minute: int = 60
    cursor_requests_per_minute: int = 20

    def __post_init__(self) -> None:
        if unknown := set(self.vendors) - set(VENDORS):
            raise EmulatorError(f"unknown vendors {', '.join(sorted(unknown))}; known: {', '.join(VENDORS)}")
        if min(self.claude_requests_per_minute, self.cursor_requests_per_minute) < 1:
            raise EmulatorError("a vendor's requests per minute must be at least 1")
        if self.dialect not in ("service", "github"):
            raise EmulatorError(f"unknown dialect {self.dialect!r}")
        if self.user_lines_per_file < 1:
            raise EmulatorError("user_lines_per_file must be at least 1")
        if self.report_file is not None and self.report_file_day is None:
            raise EmulatorError("report_file needs report_file_day")
        if self.report_file_level not in REPORT_FILE_LEVELS:
            raise EmulatorError(f"report_file_level {self.report_file_level!r}: one of {', '.join(REPORT_FILE_LEVELS)}")
        for name in (*self.orgs, *self.enterprises):
            if not _NAME.match(name):
                raise EmulatorError(f"scope name {name!r}: letters, digits and hyphens only")
        if not self.orgs or not self.enterprises:
            raise EmulatorError("at least one organization and one enterprise")

    @property
    def orgs(self) -> tuple[str, ...]:
        return tuple(n.strip() for n in self.org.split(",") if n.strip())

    @property
    def enterprises(self) -> tuple[str, ...]:
        return tuple(n.strip() for n in self.enterprise.split(",") if n.strip())

    @property
    def primary_org(self) -> str:
        return self.orgs[0]

    @property
    def primary_enterprise(self) -> str:
        return self.enterprises[0]
