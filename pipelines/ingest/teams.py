"""The user-teams report of a day (an extension: docs/extensions.md), fetched for its user rows.

It is small (one line per user and team: ~3 MB a day for 10,000 users): fetched whole and
parsed by `_carried`, then the user report's landing writes it in its own transaction
(`ReportLanding.replace_user_teams`), so a day's memberships and activity always come from the
same run.
"""

from __future__ import annotations

from pathlib import Path

from pipelines.ingest._carried import CarriedLines, Lines, fetch_carried
from pipelines.service import ReportRef, ServiceClient
from pipelines.transform import Provenance
from pipelines.transform.teams import user_team_rows
from pipelines.warehouse import CarriedReport

__all__ = ["fetch_user_teams"]


def _parse(lines: Lines, prov: Provenance) -> CarriedLines:
    assert prov.ref.day is not None
    parsed = user_team_rows(
        lines, scope=prov.ref.scope, scope_name=prov.ref.scope_name, day=prov.ref.day,
        entity_id=prov.entity_id, fetched_at=prov.fetched_at, served_at=prov.served_at,
    )
    return CarriedLines(
        frames={"core.user_team_days": parsed.frame},
        refused=[(line.line_number, line.reason) for line in parsed.refused],
        lines=parsed.lines, keyed=parsed.keyed, what=f"one user's membership of one team on {prov.ref.day}",
    )


def fetch_user_teams(
    client: ServiceClient, user_ref: ReportRef, *, prov: Provenance, raw_dir: Path
) -> CarriedReport | None:
    """The day's memberships for a user-level 1-day report; None when the platform has none for
    the day (not yet, or no teams report for this scope)."""
    return fetch_carried(client, user_ref, "user-teams", prov=prov, raw_dir=raw_dir, parse=_parse)
