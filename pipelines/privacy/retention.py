"""METRICS_RETENTION_DAYS: user-level rows (the vendors' rows of people too), the raw archive and
webhook payloads older than that many days leave the data home, at each publish of the daily run
(docs/privacy.md).

Aggregate-level rows (the service's own figures per scope and day) are kept. What a run looks
at is what expired since the last one (meta.retention keeps the first day kept), plus the old
days landed since (a backfill: the lake's change marks and the fetch times name them): so its
cost follows what expires, not what the warehouse holds. The rows go in one transaction, with
what the landings derived from them (agent and team days, the rollups) computed again for their
days, and their lake partitions marked changed for the publish that follows; the archive files
after it commits (a crash between leaves files the next run's erasure of the same days still finds).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import duckdb

from pipelines.ingest.archive_files import expired_files
from pipelines.warehouse.catalog import table
from pipelines.warehouse.erasure import PERSON_TABLES, ScopeDay, refresh_derived
from pipelines.warehouse.erasure_vendors import VENDOR_TABLES
from pipelines.warehouse.sql import rollback, run_sql

__all__ = ["RetentionResult", "apply_retention"]

_NEVER = date(1, 1, 1)
_NEVER_AT = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class RetentionResult:
    kept_from: date  # the first day kept
    rows: dict[str, int]  # rows removed per table
    files: int  # archive files removed

    def line(self) -> str | None:
        if not self.rows and not self.files:
            return None
        removed = ", ".join(f"{name} {count:,}" for name, count in sorted(self.rows.items()))
        return f"retention: before {self.kept_from} removed {removed or 'no rows'}; {self.files:,} archive files"


def apply_retention(
    conn: duckdb.DuckDBPyConnection, *, days: int, today: date, raw_dir: Path | None = None
) -> RetentionResult:
    """Remove what is older than `days` days before `today` and was not removed yet; under
    `raw_dir`, every archive file of an expired report, whether a row names it or not (a file a
    killed run left, or one recorded where a moved data home was before)."""
    cutoff = today - timedelta(days=days)
    found = run_sql(conn, "privacy/select_retention.sql")
    since, applied_at = found[0] if found else (_NEVER, _NEVER_AT)
    window = {
        "cutoff": cutoff,
        "since": since,
        "applied_at": applied_at,
        "cutoff_at": datetime.combine(cutoff, time(), tzinfo=UTC),
        "since_at": datetime.combine(since, time(), tzinfo=UTC) if since > _NEVER else _NEVER_AT,
    }
    files = [path for (path,) in run_sql(conn, "privacy/select_expired_archive_files.sql", **window)]
    if raw_dir is not None:
        files = list(dict.fromkeys([*files, *(str(path) for path in expired_files(raw_dir, cutoff=cutoff))]))
    rows: dict[str, int] = {}
    expiring: set[ScopeDay] = set()
    conn.execute("BEGIN TRANSACTION")
    try:
        for person_table in PERSON_TABLES:
            if person_table.anonymize:
                continue  # an issue is the repository's; its author goes only on erasure
            identifiers = {"table": person_table.name, "day": person_table.day_column}
            if person_table.scoped:
                scope_days = run_sql(conn, "privacy/select_expiring_days.sql", identifiers=identifiers, **window)
                expiring.update((scope, scope_name, day) for scope, scope_name, day in scope_days)
            both_levels = "level" in table(person_table.name).grain
            sql = "privacy/expire_user_level_rows.sql" if both_levels else "privacy/expire_rows.sql"
            rows[person_table.name] = len(run_sql(conn, sql, identifiers=identifiers, **window))
        for vendor_table in VENDOR_TABLES:  # a vendor's rows of a person: nothing derived from them
            identifiers = {"table": vendor_table.name, "day": str(vendor_table.partition)}
            rows[vendor_table.name] = len(run_sql(conn, "privacy/expire_rows.sql", identifiers=identifiers, **window))
        refresh_derived(conn, expiring)
        rows["events.webhook_deliveries"] = len(run_sql(conn, "privacy/expire_deliveries.sql", **window))
        rows["events.webhook_quarantine"] = len(run_sql(conn, "privacy/expire_quarantine.sql", **window))
        run_sql(conn, "privacy/record_retention.sql", cutoff=cutoff)
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    removed = 0
    for path in files:
        try:
            Path(path).unlink()
            removed += 1
        except FileNotFoundError:
            pass  # removed by an earlier run, or an erasure wrote it again under another name
    return RetentionResult(cutoff, {name: count for name, count in rows.items() if count}, removed)
