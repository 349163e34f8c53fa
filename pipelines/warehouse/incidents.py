"""The service's known incidents: days on which it documented that its numbers are wrong.

Declared once, here: `migrate` makes core.service_incidents this declaration (and the lake and
serving database carry it from there), `bi.service_incident_days` marks each affected day of
each scope a BI tool can join on, and the page lists those within its days. Adding an incident
is one more `Incident` in INCIDENTS.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass
from datetime import date

import duckdb

from pipelines.transform.schema import AGENT_FIELD, BREAKDOWN_ARRAYS, CLI_FIELD, RECORD_FIELDS
from pipelines.warehouse.sql import rollback, run_sql

__all__ = ["INCIDENTS", "Incident", "refresh_incidents"]

_BOTH = ("organization", "enterprise")
# What an incident may name: the record fields the warehouse declares, and its arrays.
_MEASURES = frozenset(RECORD_FIELDS) | {CLI_FIELD, AGENT_FIELD} | {field for field, _ in BREAKDOWN_ARRAYS.values()}


@dataclass(frozen=True)
class Incident:
    incident_id: str
    first_day: date
    last_day: date
    days_approximate: bool  # the service named a month or "about", not exact days
    scopes: tuple[str, ...]
    measures: tuple[str, ...]  # the warehouse's names of the fields whose numbers are off
    summary: str
    service_said: str

    def __post_init__(self) -> None:
        # A typo would mark no day at all, silently: refused where it is declared.
        if self.first_day > self.last_day:
            raise ValueError(f"incident {self.incident_id}: first_day {self.first_day} is after {self.last_day}")
        if not self.scopes or set(self.scopes) - set(_BOTH):
            raise ValueError(f"incident {self.incident_id}: scopes {self.scopes} must be among {', '.join(_BOTH)}")
        unknown = sorted(set(self.measures) - _MEASURES)
        if not self.measures or unknown:
            raise ValueError(f"incident {self.incident_id}: measures must be declared record fields, not {unknown}")


INCIDENTS: tuple[Incident, ...] = (
    Incident(
        "app-reported-as-cli-2026-09",
        date(2026, 9, 1),
        date(2026, 9, 30),
        True,
        _BOTH,
        (
            "daily_active_assistant_app_users",
            "used_assistant_app",
            "daily_active_cli_users",
            "used_cli",
            "totals_by_cli",
        ),
        "desktop-app activity was reported as CLI activity: app users too low, CLI users too high",
        "The service's changelog (2026): desktop-app activity was reported as CLI in September; app users "
        "read about 78% low and CLI users about 42% high until it was corrected.",
    ),
    Incident(
        "ide-agent-sessions-via-sdk-2026-10",
        date(2026, 10, 6),
        date(2026, 11, 30),
        True,
        _BOTH,
        (
            "used_agent",
            "monthly_active_agent_users",
            "used_vscode_agent",
            "daily_active_vscode_agent_users",
            "daily_active_cli_users",
            "used_cli",
            "totals_by_cli",
        ),
        "IDE agent sessions that moved to the service's SDK were missing or counted as CLI until the IDE updated",
        "The service's changelog of 2026-10-06: agent sessions of IDEs that moved to its SDK were missing or "
        "counted as CLI until the IDE was updated; fixed in VS Code 1.139.0, in the other IDEs by about November.",
    ),
)


def refresh_incidents(conn: duckdb.DuckDBPyConnection) -> bool:
    """Make core.service_incidents hold INCIDENTS, in one transaction; whether it changed."""
    declared = sorted(astuple(incident) for incident in INCIDENTS)
    ids = [incident.incident_id for incident in INCIDENTS]
    if len(set(ids)) != len(ids):
        raise ValueError(f"incident ids must differ: {sorted(i for i in ids if ids.count(i) > 1)} declared twice")
    held = [
        (*row[:4], tuple(row[4]), tuple(row[5]), *row[6:])
        for row in run_sql(conn, "warehouse/select_service_incidents.sql")
    ]
    if held == declared:
        return False
    conn.execute("BEGIN TRANSACTION")
    try:
        run_sql(conn, "warehouse/delete_service_incidents.sql")
        for incident in INCIDENTS:
            values = {**incident.__dict__, "scopes": list(incident.scopes), "measures": list(incident.measures)}
            run_sql(conn, "warehouse/insert_service_incident.sql", **values)
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    return True
