"""Where a batch of records came from, stamped on every row: its own module, so the rules that
judge records (`rules`) and the transform that applies them (`records`) both import it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipelines.service import ReportRef

__all__ = ["Provenance"]


@dataclass(frozen=True)
class Provenance:
    """Where a batch of records came from; stamped on every row."""

    ref: ReportRef
    start_day: date  # the days the report covers (its metadata's, not the day asked for)
    end_day: date
    fetched_at: datetime
    dialect: str  # whose wire names the records carry (pipelines.service.dialect)
    # The id of the scope's entity (`organization_id` or `enterprise_id`); a record naming
    # another is rejected. None until known: then every record is taken.
    entity_id: str | None = None
    # The service's clock when it answered the metadata request (its Date header); None: unknown.
    served_at: datetime | None = None
