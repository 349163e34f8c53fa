"""The repos-1-day report of a day: each repository active that day, fetched with the day's
aggregate report.

It is small (one line per active repository), so it is fetched whole and parsed by `_carried`,
then the aggregate report's landing writes it in its own transaction
(`ReportLanding.replace_repositories`): a re-run of the day replaces the day's repositories
with its aggregate record, and the check that the repositories' pull requests fit in the
aggregate's compares two reports of one run.
"""

from __future__ import annotations

from pathlib import Path

from pipelines.ingest._carried import CarriedLines, Lines, fetch_carried
from pipelines.service import ReportRef, ServiceClient
from pipelines.transform import Provenance
from pipelines.transform.repositories import repository_rows
from pipelines.warehouse import CarriedReport

__all__ = ["fetch_repositories"]


def _parse(lines: Lines, prov: Provenance) -> CarriedLines:
    assert prov.ref.day is not None
    parsed = repository_rows(
        lines, scope=prov.ref.scope, scope_name=prov.ref.scope_name, day=prov.ref.day,
        entity_id=prov.entity_id, dialect=prov.dialect, fetched_at=prov.fetched_at, served_at=prov.served_at,
    )
    return CarriedLines(frames=parsed.frames, refused=parsed.refused, lines=parsed.lines, keyed=parsed.keyed,
                        what=f"one repository's record of {prov.ref.day}")


def fetch_repositories(
    client: ServiceClient, aggregate_ref: ReportRef, *, prov: Provenance, raw_dir: Path
) -> CarriedReport | None:
    """The day's repositories for an aggregate 1-day report; None when the platform has none for
    the day (204/404: not yet, or before the report existed)."""
    return fetch_carried(client, aggregate_ref, "repos", prov=prov, raw_dir=raw_dir, parse=_parse)
