"""Which reports the emulator serves, and the key that pins one version of one: a link's path
segment names the scope, the report, its day, the fetch and the emulated day it was made on."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

# Report names in the path, per scope: (level, kind).
REPORT_NAMES = {
    "organization": {
        "organization-1-day": ("aggregate", "1-day"),
        "users-1-day": ("user", "1-day"),
        "organization-28-day/latest": ("aggregate", "28-day"),
        "users-28-day/latest": ("user", "28-day"),
        "user-teams-1-day": ("user-teams", "1-day"),  # an extension: no 28-day form
        "repos-1-day": ("repos", "1-day"),
    },
    "enterprise": {
        "enterprise-1-day": ("aggregate", "1-day"),
        "users-1-day": ("user", "1-day"),
        "enterprise-28-day/latest": ("aggregate", "28-day"),
        "users-28-day/latest": ("user", "28-day"),
        "user-teams-1-day": ("user-teams", "1-day"),
        "repos-1-day": ("repos", "1-day"),
    },
}
TEAMS_LEVEL = "user-teams"
REPOS_LEVEL = "repos"


@dataclass(frozen=True)
class ReportKey:
    """Everything that pins one version of one report; it is the link's path segment."""

    scope: str
    name: str  # the organization or enterprise (scope names hold no dots)
    level: str
    kind: str
    day: date  # the report day (1-day) or end day (28-day)
    fetch_no: int
    today: date

    def text(self) -> str:
        return ".".join(
            [
                self.scope,
                self.name,
                self.level,
                self.kind,
                self.day.isoformat(),
                str(self.fetch_no),
                self.today.isoformat(),
            ]
        )

    @classmethod
    def parse(cls, text: str) -> ReportKey | None:
        parts = text.split(".")
        if len(parts) != 7:
            return None
        try:
            return cls(
                scope=parts[0],
                name=parts[1],
                level=parts[2],
                kind=parts[3],
                day=date.fromisoformat(parts[4]),
                fetch_no=int(parts[5]),
                today=date.fromisoformat(parts[6]),
            )
        except ValueError:
            return None

    def days(self) -> list[date]:
        if self.kind == "1-day":
            return [self.day]
        return [self.day - timedelta(days=27 - i) for i in range(28)]
