"""Every report kind the platform serves, declared once: the rest of the pipeline loops over these.

A kind is one level of report in one period (the aggregate 1-day report, repos-1-day). Its
declaration says what the wire and the landing need to know of it: its level and period, the
name its path gives it, and, for a small report of a day landed inside another's transaction
(`carried_by`), which report carries it and the statements that refresh what its rows derive.
The rest follows from these and from the catalog: the tables it lands are those whose `writer`
is its level (pipelines/warehouse/catalog.py), its rows come from `ROWS` beside its transform
(pipelines/ingest/kinds.py). docs/architecture.md counts what a new kind costs;
tests/unit/ingest/test_kinds.py holds it there.

The lowest layer, so the dialects and the report identity (`ReportRef`) read it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Scope = Literal["organization", "enterprise"]
Kind = Literal["1-day", "28-day"]
Level = Literal["aggregate", "user", "user-teams", "repos"]


@dataclass(frozen=True)
class ReportKind:
    level: Level
    kind: Kind
    # The report's name in its path before the period ("users" -> users-1-day); None: the scope's
    # own (organization-1-day). Both dialects name reports alike; the dialect holds the product.
    report: str | None
    # The day's report whose landing carries this one, in its transaction: a re-run of the day
    # replaces both, and a 204/404 of this one lands nothing of it.
    carried_by: ReportKind | None = None
    # sql/<name> run before this kind's rows are replaced (keeping aside what the old rows named)
    # and after they landed (the tables derived from them); None: nothing derived.
    refresh: tuple[str, str] | None = None

    def path_name(self, scope: Scope) -> str:
        """The report's last path segments: `users-1-day`, `organization-28-day/latest`."""
        suffix = "/latest" if self.kind == "28-day" else ""
        return f"{self.report or scope}-{self.kind}{suffix}"

    def __str__(self) -> str:
        return f"{self.level} {self.kind}"


AGGREGATE_1_DAY = ReportKind("aggregate", "1-day", None)
AGGREGATE_28_DAY = ReportKind("aggregate", "28-day", None)
USER_1_DAY = ReportKind("user", "1-day", "users")
USER_28_DAY = ReportKind("user", "28-day", "users")
# An extension (docs/extensions.md): the day's memberships, with the day's user report.
USER_TEAMS_1_DAY = ReportKind(
    "user-teams",
    "1-day",
    "user-teams",
    carried_by=USER_1_DAY,
    refresh=("warehouse/begin_user_teams.sql", "warehouse/refresh_team_dimensions.sql"),
)
# Each repository active that day, with the day's aggregate report.
REPOS_1_DAY = ReportKind("repos", "1-day", "repos", carried_by=AGGREGATE_1_DAY)

REPORT_KINDS = (AGGREGATE_1_DAY, AGGREGATE_28_DAY, USER_1_DAY, USER_28_DAY, USER_TEAMS_1_DAY, REPOS_1_DAY)


def report_kind(level: str, kind: str) -> ReportKind:
    """The declaration of `level`'s `kind` report; ValueError when the platform serves none."""
    for declared in REPORT_KINDS:
        if (declared.level, declared.kind) == (level, kind):
            return declared
    periods = [declared.kind for declared in REPORT_KINDS if declared.level == level]
    if periods:
        raise ValueError(f"the {level} report is {' or '.join(periods)} only")
    raise ValueError(f"no {level} report is declared (pipelines/service/kinds.py)")


def carried_with(carrier: ReportKind) -> tuple[ReportKind, ...]:
    """The kinds landed inside `carrier`'s transaction, in declaration order."""
    return tuple(declared for declared in REPORT_KINDS if declared.carried_by == carrier)
