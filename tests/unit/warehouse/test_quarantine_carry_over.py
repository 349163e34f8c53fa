"""A cleared quarantined line stays cleared when its report is landed again (keep_cleared_quarantine.sql)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import duckdb
import polars as pl

from pipelines.service import ReportRef
from pipelines.warehouse import ReportSlice, land_report

DAY = date(2026, 11, 1)
KEY = ReportSlice(ReportRef("organization", "acme", "1-day", "user", DAY), DAY, DAY)
NOV_2 = date(2026, 11, 2)
OTHER_DAY = ReportSlice(ReportRef("organization", "acme", "1-day", "user", NOV_2), NOV_2, NOV_2)


def _rejects(key: ReportSlice, lines: list[tuple[int, str, str | None]]) -> pl.DataFrame:
    """Quarantine rows of file 0 of the report, as the ingest builds them: (line, reason, text)."""
    n = len(lines)
    return pl.DataFrame(
        {
            "scope": [key.ref.scope] * n,
            "scope_name": [key.ref.scope_name] * n,
            "report_kind": [key.ref.kind] * n,
            "level": [key.ref.level] * n,
            "report_start_day": [key.start_day] * n,
            "report_end_day": [key.end_day] * n,
            "file_index": [0] * n,
            "archive_path": ["raw/0000-abc.ndjson.zst"] * n,
            "link": ["https://x/f"] * n,
            "line_number": [line for line, _, _ in lines],
            "reason": [reason for _, reason, _ in lines],
            "line_text": [text for _, _, text in lines],
            "fetched_at": [datetime.now(UTC)] * n,
        },
        schema_overrides={
            "file_index": pl.Int32(),
            "line_number": pl.Int64(),
            "line_text": pl.String(),
            "fetched_at": pl.Datetime("us", "UTC"),
        },
    )


def _land(conn: duckdb.DuckDBPyConnection, key: ReportSlice, lines: list[tuple[int, str, str | None]]) -> None:
    with land_report(conn, key) as landing:
        landing.insert(table="quarantine", frame=_rejects(key, lines), file_index=0)


def _rows(conn: duckdb.DuckDBPyConnection) -> list[tuple]:
    return conn.execute(
        "SELECT report_start_day, line_number, reason, line_text, cleared_note FROM raw.quarantine ORDER BY 1, 2"
    ).fetchall()


def _clear(conn: duckdb.DuckDBPyConnection, line: int) -> None:
    conn.execute("UPDATE raw.quarantine SET cleared_at = now(), cleared_note = 'known' WHERE line_number = ?", [line])


def test_a_cleared_line_served_again_stays_cleared_and_a_new_bad_line_is_open(conn):
    _land(conn, KEY, [(5, "malformed JSON", "{broken")])
    _clear(conn, 5)
    _land(conn, KEY, [(5, "malformed JSON", "{broken"), (9, "missing day", "{}")])
    assert _rows(conn) == [(DAY, 5, "malformed JSON", "{broken", "known"), (DAY, 9, "missing day", "{}", None)]


def test_a_cleared_line_served_at_another_place_stays_cleared_once(conn):
    _land(conn, KEY, [(5, "malformed JSON", "{broken")])
    _clear(conn, 5)
    _land(conn, KEY, [(7, "malformed JSON", "{broken")])
    assert _rows(conn) == [(DAY, 5, "malformed JSON", "{broken", "known")]


def test_the_same_text_with_another_reason_is_a_new_open_line(conn):
    _land(conn, KEY, [(5, "malformed JSON", "{broken")])
    _clear(conn, 5)
    _land(conn, KEY, [(5, "nested deeper than 64 levels", "{broken")])
    assert _rows(conn) == [
        (DAY, 5, "malformed JSON", "{broken", "known"),
        (DAY, 5, "nested deeper than 64 levels", "{broken", None),
    ]


def test_a_line_without_text_matches_a_cleared_one_without_text(conn):
    _land(conn, KEY, [(1, "the file is gzip-compressed", None)])
    _clear(conn, 1)
    _land(conn, KEY, [(1, "the file is gzip-compressed", None)])
    assert _rows(conn) == [(DAY, 1, "the file is gzip-compressed", None, "known")]


def test_a_cleared_line_no_longer_served_stays_as_the_record_and_open_lines_are_replaced(conn):
    _land(conn, KEY, [(5, "malformed JSON", "{broken"), (6, "missing day", "{}")])
    _clear(conn, 5)
    _land(conn, KEY, [])
    assert _rows(conn) == [(DAY, 5, "malformed JSON", "{broken", "known")]


def test_a_cleared_line_of_another_day_does_not_clear_this_days_line(conn):
    _land(conn, OTHER_DAY, [(5, "malformed JSON", "{broken")])
    _clear(conn, 5)
    _land(conn, KEY, [(5, "malformed JSON", "{broken")])
    assert _rows(conn) == [
        (DAY, 5, "malformed JSON", "{broken", None),
        (OTHER_DAY.start_day, 5, "malformed JSON", "{broken", "known"),
    ]
