"""Each enterprise's billed AI credits per user, from the service's usage report exports
(docs/billing.md).

Per enterprise, per month of AI credits not landed closed (the open months every run, and the
history the service keeps once): an export of the month (up to the service's today) is asked
for, waited on (bounded, backing off), its signed CSV links downloaded into the raw archive
(zstd, with sha256, as report files are) and its lines landed in billing.user_usage, the month
replaced in one transaction; a line that cannot land goes to raw.quarantine with its reason and
the others land. People erased by `metrics-etl forget` are left out of the rows and of the
archived file. A token that cannot read the exports is said in one line per enterprise and
recorded `denied` in billing.fetches; an export the service did not finish, or whose file cannot
be read (its header), is said, lands nothing (the month landed before stays) and is asked for
again by the next run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import duckdb
import polars as pl

from pipelines._clock import utc_today
from pipelines.ingest._billing_export_files import (
    ExportUnreadable,
    download_export_file,
    segment_lines,
    table_frame,
    without_forgotten,
)
from pipelines.ingest.archive import report_dir
from pipelines.ingest.archive_files import remove_unrecorded
from pipelines.ingest.billing import months_since, months_to_fetch
from pipelines.ingest.parse import truncate_line
from pipelines.service import ServiceClient
from pipelines.service.billing import service_today
from pipelines.service.billing_exports import POLLS, ExportNotReady, request_export, wait_export
from pipelines.service.billing_wire import AI_CREDITS_FROM, BILLING_ROLES, HISTORY_MONTHS, Dialect, month_closes
from pipelines.service.errors import NotFound, PermissionDenied
from pipelines.transform.billing_exports import ExportLines, export_frame, export_rows
from pipelines.transform.columns import polars_types
from pipelines.warehouse.billing_exports import (
    EXPORT_KIND,
    EXPORT_LEVEL,
    ExportMonth,
    land_export_month,
)
from pipelines.warehouse.billing_usage import closed_months, record_denied
from pipelines.warehouse.erasure import Forgotten

__all__ = ["ENDPOINT", "ExportResult", "ingest_exports"]

ENDPOINT = "user_usage"  # billing.fetches' name of the exports' landing


@dataclass
class ExportResult:
    months: int = 0
    rows: int = 0
    quarantined: int = 0
    calls: int = 0
    lines: list[str] = field(default_factory=list)  # what a person must know: one line each
    denied: dict[str, str] = field(default_factory=dict)  # enterprise -> the 403 refusing its exports


def ingest_exports(
    client: ServiceClient,
    conn: duckdb.DuckDBPyConnection,
    *,
    enterprises: Iterable[str],
    raw_dir: Path,
    months: int = HISTORY_MONTHS,
    since: date | None = None,
    refetch: bool = False,
    forgotten: Forgotten | None = None,
    polls: int = POLLS,
    sleep: Callable[[float], None] = time.sleep,
    say: Callable[[str], None] = print,
) -> ExportResult:
    """Land every enterprise's export months not landed closed (all of them with `refetch`)."""
    result = ExportResult()
    if months <= 0:  # BILLING_MONTHS=0: billing is off
        return result
    today = service_today(client) or utc_today()
    months = months_since(since, today, months)
    for name in enterprises:
        closed = {
            month
            for endpoint, month in closed_months(conn, scope="enterprise", scope_name=name)
            if endpoint == ENDPOINT
        }
        for month in months_to_fetch(today=today, months=months, closed=() if refetch else closed):
            if month < AI_CREDITS_FROM:
                continue  # no AI credits before: the premium-request months are billing.credit_usage's
            try:
                landed = _export_month(
                    client, name=name, month=month, today=today, raw_dir=raw_dir, polls=polls, sleep=sleep
                )
            except (PermissionDenied, NotFound) as exc:
                line = (
                    f"billing exports of enterprise {name!r} not read ({exc.status} {exc.message}): the token needs "
                    f"{BILLING_ROLES['enterprise']}; billing.user_usage (the cost per user) stays without it"
                )
                record_denied(conn, _denied(name, today, exc.message))
                if isinstance(exc, PermissionDenied):
                    result.denied[name] = f"{exc.status} {exc.message}"
                result.lines.append(line)
                say(line)
                break
            except (ExportNotReady, ExportUnreadable) as exc:
                remove_unrecorded(conn, sorted(_month_dirs(raw_dir, name, month)))  # what it archived, unlanded
                result.lines.append(str(exc))
                say(str(exc))
                continue
            if forgotten is not None:
                landed = without_forgotten(landed, forgotten)
            directories = sorted(_month_dirs(raw_dir, name, month))
            try:
                land_export_month(conn, landed)
            except BaseException:
                with suppress(Exception):  # the files this export archived, never landed
                    remove_unrecorded(conn, directories)
                raise
            # The month's earlier exports (another end day), and any a killed run left: no row names them.
            remove_unrecorded(conn, directories)
            result.months += 1
            result.rows += landed.rows.height
            result.quarantined += landed.quarantine.height
            result.calls += int(landed.fetches["calls"].sum())
    return result


def _denied(name: str, today: date, message: str) -> pl.DataFrame:
    row = {
        "scope": "enterprise",
        "scope_name": name,
        "endpoint": ENDPOINT,
        "day": today,
        "fetched_at": datetime.now(UTC),
        "month_closed": False,
        "status": "denied",
        "calls": 1,
        "rows": 0,
        "message": message,
    }
    return pl.DataFrame([row], schema=polars_types("billing.fetches"))


def _month_dirs(raw_dir: Path, name: str, month: date) -> Iterator[Path]:
    """The archive directories of the month's exports, whatever day they ended on."""
    kind_dir = report_dir(
        raw_dir,
        scope="enterprise",
        scope_name=name,
        level=EXPORT_LEVEL,
        kind=EXPORT_KIND,
        start_day=month,
        end_day=month,
    ).parent
    if kind_dir.is_dir():
        yield from kind_dir.glob(f"{month.isoformat()}_*")


def _next_month(first: date) -> date:
    return (first.replace(day=28) + timedelta(days=4)).replace(day=1)


def _export_month(
    client: ServiceClient,
    *,
    name: str,
    month: date,
    today: date,
    raw_dir: Path,
    polls: int,
    sleep: Callable[[float], None],
) -> ExportMonth:
    last = _next_month(month) - timedelta(days=1)
    end = min(last, today)
    requests_before = client.stats.requests
    export = request_export(client, enterprise=name, start_day=month, end_day=end)
    export = wait_export(client, export, enterprise=name, polls=polls, sleep=sleep)
    fetched_at = datetime.now(UTC)
    closed = today >= month_closes(month)  # on the service's clock, as the usage months are judged
    target = report_dir(
        raw_dir,
        scope="enterprise",
        scope_name=name,
        level=EXPORT_LEVEL,
        kind=EXPORT_KIND,
        start_day=export.start_day,
        end_day=export.end_day,
    )
    files = [
        download_export_file(client, export, index, target=target, enterprise=name)
        for index in range(len(export.links))
    ]
    source = ExportLines(name, month, end, fetched_at, closed, cast(Dialect, client.dialect.name))
    rows: list[dict[str, Any]] = []
    file_rows: list[dict[str, Any]] = []
    quarantine: list[dict[str, Any]] = []
    for each in files:
        parsed = export_rows(segment_lines(each.segments), source)
        if parsed.unreadable is not None:
            raise ExportUnreadable(
                f"the {export.report_type} export {export.id} of enterprise {name!r} ({export.start_day}.."
                f"{export.end_day}) not landed: its file {each.index} cannot be read ({parsed.unreadable}); "
                "billing.user_usage keeps the month as last landed, and the next run asks for it again"
            )
        refused = [(reject.line_number, reject.reason, reject.line_text) for s in each.segments for reject in s.rejects]
        refused += [(number, reason, truncate_line(text.encode())) for number, reason, text in parsed.refused]
        rows += parsed.rows
        place = {
            "scope": "enterprise",
            "scope_name": name,
            "report_kind": EXPORT_KIND,
            "level": EXPORT_LEVEL,
            "report_start_day": export.start_day,
            "report_end_day": export.end_day,
            "file_index": each.index,
            "archive_path": str(each.archived.path),
            "link": each.link,
            "fetched_at": fetched_at,
        }
        file_rows.append(
            place
            | {
                "bytes": each.archived.bytes,
                "sha256": each.archived.sha256,
                "records": len(parsed.rows),
                "quarantined": len(refused),
                "repeated_lines": 0,
            }
        )
        quarantine += [place | {"line_number": n, "reason": why, "line_text": text} for n, why, text in refused]
    fetch = {
        "scope": "enterprise",
        "scope_name": name,
        "endpoint": ENDPOINT,
        "day": month,
        "fetched_at": fetched_at,
        "month_closed": closed,
        "status": "ok",
        "calls": client.stats.requests - requests_before,
        "rows": len(rows),
        "message": None,
    }
    return ExportMonth(
        scope_name=name,
        start=month,
        end=last,
        rows=export_frame(rows),
        files=table_frame("raw.report_files", file_rows),
        quarantine=table_frame("raw.quarantine", quarantine),
        fetches=table_frame("billing.fetches", [fetch]),
    )
