"""How each carried report kind's lines become rows: the half of its declaration
(pipelines/service/kinds.py) that the service layer cannot import.

A carried report is small (user-teams: one line per user and team, ~3 MB a day for 10,000
users; repos: one line per active repository), so `_carried` fetches it whole and parses it
with the function here, then the carrying report's landing writes it in its own transaction
(`ReportLanding.replace_carried`): a day's memberships and activity, or repositories and
aggregate record, always come from the same run.
"""

from __future__ import annotations

from pipelines.ingest._carried import CarriedLines, Lines, Parse
from pipelines.service.kinds import REPOS_1_DAY, USER_TEAMS_1_DAY, ReportKind
from pipelines.transform import Provenance
from pipelines.transform.repositories import repository_rows
from pipelines.transform.teams import user_team_rows

__all__ = ["ROWS"]


def _user_teams(lines: Lines, prov: Provenance) -> CarriedLines:
    assert prov.ref.day is not None
    parsed = user_team_rows(
        lines,
        scope=prov.ref.scope,
        scope_name=prov.ref.scope_name,
        day=prov.ref.day,
        entity_id=prov.entity_id,
        fetched_at=prov.fetched_at,
        served_at=prov.served_at,
    )
    return CarriedLines(
        frames={"core.user_team_days": parsed.frame},
        refused=[(line.line_number, line.reason) for line in parsed.refused],
        lines=parsed.lines,
        keyed=parsed.keyed,
        what=f"one user's membership of one team on {prov.ref.day}",
    )


def _repositories(lines: Lines, prov: Provenance) -> CarriedLines:
    assert prov.ref.day is not None
    parsed = repository_rows(
        lines,
        scope=prov.ref.scope,
        scope_name=prov.ref.scope_name,
        day=prov.ref.day,
        entity_id=prov.entity_id,
        dialect=prov.dialect,
        fetched_at=prov.fetched_at,
        served_at=prov.served_at,
    )
    return CarriedLines(
        frames=parsed.frames,
        refused=parsed.refused,
        lines=parsed.lines,
        keyed=parsed.keyed,
        what=f"one repository's record of {prov.ref.day}",
    )


# Every carried kind's rows (tests/unit/ingest/test_kinds.py holds one per declaration).
ROWS: dict[ReportKind, Parse] = {USER_TEAMS_1_DAY: _user_teams, REPOS_1_DAY: _repositories}
