"""Configuration of the emulator: what world it serves and which faults it injects."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import date
from pathlib import Path
from typing import Any, Literal

from emulator.errors import EmulatorError

Dialect = Literal["service", "github"]


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
    graphql_max_aliases: int | None = None
    seed: int = 0

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_FAULT_TYPES: dict[str, type] = {
    "error_rate": float,
    "slow_rate": float,
    "slow_ms": int,
    "truncate_rate": float,
    "drop_rate": float,
    "link_ttl_seconds": int,
    "spend_rate_limit_for_seconds": int,
    "secondary_limit_rate": float,
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
class EmulatorConfig:
    """The world the emulator serves; everything in it follows from `seed`."""

    seed: int = 1
    users: int = 50
    repos: int = 8
    issues_per_repo: int = 30
    dialect: Dialect = "service"
    today: date | None = None
    org: str = "acme"
    enterprise: str = "acme-corp"
    history_days: int = 60
    rate_limit: int = 5000
    unauth_limit: int = 60
    user_lines_per_file: int = 20_000
    report_file: Path | None = None
    report_file_day: date | None = None
    # The public example: the enterprise 28-day file also holds a second enterprise's wrapper.
    second_enterprise_in_28_day: bool = False
    faults: FaultSpec = field(default_factory=FaultSpec)

    def __post_init__(self) -> None:
        if self.dialect not in ("service", "github"):
            raise EmulatorError(f"unknown dialect {self.dialect!r}")
        if self.user_lines_per_file < 1:
            raise EmulatorError("user_lines_per_file must be at least 1")
        if self.report_file is not None and self.report_file_day is None:
            raise EmulatorError("report_file needs report_file_day")
