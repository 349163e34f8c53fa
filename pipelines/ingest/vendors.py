"""Fetch and land one vendor's usage (docs/vendors.md) through the same archive, finality,
quarantine, retention and erasure paths as the service's reports.

Per fetch (pipelines/vendors/reads.py: a Claude Code day; Cursor's members, a window of days,
the spend): its records, but those of people `metrics-etl forget` erased, are written one a line
into the raw archive (zstd, with sha256, as a report file is) and parsed back from it; what cannot
land goes to raw.quarantine with its reason, the rest to the vendor's tables, the fetch's days
replaced in one transaction (pipelines/warehouse/vendors.py). A day is final once the vendor's
clock (its answers' Date) is past the day's end and the vendor's lag (wire.Vendor.final_after);
a day landed final is not fetched again (but with `refetch`), so a run costs the days still
moving. A key the vendor refuses, or any other failure, ends the vendor's run in ONE line naming
the vendor, the cause and what to do, recorded in vendors.fetches; the service's data lands as
ever, and the next run asks again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import duckdb
import polars as pl

from pipelines.ingest.archive import ArchivedFile, Segment, archive_stream, report_dir
from pipelines.ingest.archive_files import remove_unrecorded
from pipelines.ingest.parse import truncate_line
from pipelines.transform.columns import polars_types
from pipelines.transform.vendor_rows import UNDECLARED, VendorRows
from pipelines.transform.vendor_values import record_person, record_text
from pipelines.vendors import Denied, Endpoint, Fetched, Vendor, VendorClient, VendorError
from pipelines.vendors.reads import reads
from pipelines.warehouse.catalog import table
from pipelines.warehouse.erasure import Forgotten
from pipelines.warehouse.vendors import (
    VENDOR_LEVEL,
    VENDOR_SCOPE,
    VendorLanding,
    final_days,
    land_vendor,
    record_refusal,
)

__all__ = ["VendorResult", "ingest_vendor"]

_BATCH_LINES = 10_000


@dataclass
class VendorResult:
    vendor: str
    status: str = "ok"  # ok | denied | failed
    calls: int = 0
    fetches: int = 0  # fetches landed
    rows: dict[str, int] = field(default_factory=dict)
    quarantined: int = 0
    left_out: int = 0  # records of people erased, never archived nor landed
    final_days: int = 0  # usage days landed final
    drift: list[str] = field(default_factory=list)  # "endpoint: path" of every undeclared field seen
    line: str | None = None  # the one line a person reads when the vendor could not be read


def ingest_vendor(
    client: VendorClient,
    conn: duckdb.DuckDBPyConnection,
    *,
    days: Iterable[date],
    raw_dir: Path,
    forgotten: Forgotten | None = None,
    refetch: bool = False,
    say: Callable[[str], None] = print,
) -> VendorResult:
    """Land the vendor's usage of `days` not yet landed final (all of them with `refetch`), and
    its state now; the result, with the one line to tell when it could not be read."""
    vendor = client.vendor
    result = VendorResult(vendor.name)
    wanted = sorted(set(days))
    if wanted and not refetch:
        done = final_days(conn, vendor=vendor.name, endpoint=vendor.usage, start=wanted[0], end=wanted[-1])
        wanted = [day for day in wanted if day not in done]
    try:
        for fetched in reads(client, wanted):
            _land(conn, fetched, vendor=vendor, raw_dir=raw_dir, forgotten=forgotten, out=result)
    except VendorError as exc:
        result.status = "denied" if isinstance(exc, Denied) else "failed"
        result.line = str(exc) if isinstance(exc, Denied) else f"{exc}: the next run asks again"
        _record_refusal(conn, vendor.name, result.status, exc.message)
        say(result.line)
    result.calls = client.calls
    return result


def _names_erased(endpoint: Endpoint, record: dict[str, Any], forgotten: Forgotten) -> bool:
    return forgotten.names_vendor_user(*record_person(endpoint, record))


def _land(
    conn: duckdb.DuckDBPyConnection,
    fetched: Fetched,
    *,
    vendor: Vendor,
    raw_dir: Path,
    forgotten: Forgotten | None,
    out: VendorResult,
) -> None:
    endpoint = fetched.endpoint
    kept = [r for r in fetched.records if forgotten is None or not _names_erased(endpoint, r, forgotten)]
    out.left_out += len(fetched.records) - len(kept)
    fetched_at = datetime.now(UTC)
    place = {
        "scope": VENDOR_SCOPE,
        "scope_name": vendor.name,
        "report_kind": endpoint.name,
        "level": VENDOR_LEVEL,
        "report_start_day": fetched.start,
        "report_end_day": fetched.end,
        "file_index": 0,
        "link": f"{endpoint.method} {endpoint.path}",
        "fetched_at": fetched_at,
    }
    target = report_dir(
        raw_dir,
        scope=VENDOR_SCOPE,
        scope_name=vendor.name,
        level=VENDOR_LEVEL,
        kind=endpoint.name,
        start_day=fetched.start,
        end_day=fetched.end,
    )
    segments: list[Segment] = []
    text = "".join(record_text(record) + "\n" for record in kept).encode()
    archived = archive_stream([text], archive_dir=target, stem="0000", batch_rows=_BATCH_LINES, emit=segments.append)
    place["archive_path"] = str(archived.path)
    served = fetched.served_at
    # Final only on the vendor's word: an answer without a Date leaves every day open.
    final_before = (served - vendor.final_after).date() if served is not None else None
    read_day = served.date() if served is not None else fetched_at.date()
    rows = VendorRows(endpoint, fetched.start, fetched.end, read_day, fetched_at, final_before, fetched.envelope)
    refused: list[tuple[int, str, str | None]] = []
    for segment in segments:
        refused += [(r.line_number, r.reason, r.line_text) for r in segment.rejects]
        for offset, line in enumerate(segment.data.split(b"\n")[: segment.lines] if segment.data else []):
            rows.add(segment.first_line + offset, line.decode(errors="replace"))
    refused += [(n, reason, truncate_line(line.encode())) for n, reason, line in rows.refused]
    tables = _tables(rows, fetched)
    usage = endpoint.name == vendor.usage
    landing = VendorLanding(
        vendor.name,
        endpoint.name,
        fetched.start,
        fetched.end,
        tables,
        _frame("raw.report_files", [place | _file(archived, len(kept) - len(refused), len(refused))]),
        _frame("raw.quarantine", [place | {"line_number": n, "reason": r, "line_text": t} for n, r, t in refused]),
        _drift(rows, fetched_at=fetched_at),
        _fetches(rows, fetched, usage=usage, fetched_at=fetched_at, quarantined=len(refused)),
    )
    try:
        land_vendor(conn, landing)
    except BaseException:
        with suppress(Exception):  # the file this fetch archived, never landed
            remove_unrecorded(conn, [target])
        raise
    remove_unrecorded(conn, [target])  # the days' earlier file, when this fetch's bytes differ
    out.fetches += 1
    out.quarantined += len(refused)
    for name, (frame, _, _) in tables.items():
        out.rows[name] = out.rows.get(name, 0) + frame.height
    if usage and final_before is not None:
        out.final_days += sum(1 for day in _days(fetched) if day < final_before)
    seen = (f"{endpoint.name}: {path}" for (_, path, drift) in rows.drift if drift == UNDECLARED)
    out.drift += [path for path in dict.fromkeys(seen) if path not in out.drift]


def _days(fetched: Fetched) -> list[date]:
    return [fetched.start + timedelta(days=n) for n in range((fetched.end - fetched.start).days + 1)]


def _tables(rows: VendorRows, fetched: Fetched) -> dict[str, tuple[pl.DataFrame, date, date]]:
    """Each table the endpoint lands, its rows and the partition days they replace: a usage
    table's the days fetched (a day without records is replaced by none); a state's (the spend's
    cycle, the members' day) those its rows are of, so a read of nothing replaces nothing."""
    endpoint = fetched.endpoint
    out: dict[str, tuple[pl.DataFrame, date, date]] = {}
    for name in [endpoint.table, *(array_table for _, array_table, _ in endpoint.arrays)]:
        frame = rows.frame(name)
        partition = table(name).partition
        if partition == "day":
            out[name] = (frame, fetched.start, fetched.end)
        elif frame.height:
            days = frame[str(partition)]
            out[name] = (frame, cast(date, days.min()), cast(date, days.max()))
    return out


def _file(archived: ArchivedFile, records: int, quarantined: int) -> dict[str, Any]:
    return {
        "bytes": archived.bytes,
        "sha256": archived.sha256,
        "records": records,
        "quarantined": quarantined,
        "repeated_lines": 0,
    }


def _frame(name: str, rows: list[dict[str, Any]]) -> pl.DataFrame:
    schema = polars_types(name)
    return pl.DataFrame([{c: row.get(c) for c in schema} for row in rows], schema=schema, orient="row")


def _drift(rows: VendorRows, *, fetched_at: datetime) -> pl.DataFrame:
    return _frame(
        "raw.field_drift",
        [
            {
                "scope": VENDOR_SCOPE,
                "scope_name": rows.endpoint.vendor,
                "level": VENDOR_LEVEL,
                "report_kind": rows.endpoint.name,
                "day": day,
                "path": path,
                "drift": drift,
                "records": count,
                "json_type": rows.types[(day, path, drift)],
                "fetched_at": fetched_at,
            }
            for (day, path, drift), count in sorted(rows.drift.items())
        ],
    )


def _fetches(
    rows: VendorRows, fetched: Fetched, *, usage: bool, fetched_at: datetime, quarantined: int
) -> pl.DataFrame:
    """A row per day the fetch covered, with its records (a usage day's own; a read of the
    vendor's state, all of them), whether it was final, and the calls and lines refused on the
    first."""
    landed = rows.rows.get(fetched.endpoint.table, [])
    per_day = Counter(row["day"] for row in landed) if usage else Counter({fetched.start: len(landed)})
    return _frame(
        "vendors.fetches",
        [
            {
                "vendor": fetched.endpoint.vendor,
                "endpoint": fetched.endpoint.name,
                "day": day,
                "fetched_at": fetched_at,
                "served_at": fetched.served_at,
                "is_final": usage and rows.final_before is not None and day < rows.final_before,
                "status": "ok",
                "calls": fetched.calls if index == 0 else 0,
                "records": per_day.get(day, 0),
                "quarantined": quarantined if index == 0 else 0,
                "message": None,
            }
            for index, day in enumerate(_days(fetched))
        ],
    )


def _record_refusal(conn: duckdb.DuckDBPyConnection, vendor: str, status: str, message: str) -> None:
    now = datetime.now(UTC)
    row = {
        "vendor": vendor,
        "endpoint": "*",
        "day": now.date(),
        "fetched_at": now,
        "served_at": None,
        "is_final": False,
        "status": status,
        "calls": 1,
        "records": 0,
        "quarantined": 0,
        "message": message,
    }
    record_refusal(conn, _frame("vendors.fetches", [row]))
