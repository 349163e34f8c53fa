"""A fetch drops the lines of people erased by `metrics-etl forget` (docs/privacy.md).

Inside a report's landing transaction, before it commits: the people the report's days name
are tested against the erased people's keyed hashes, the rows of those who match leave every
table (warehouse.erasure), the team days are counted again without them (the landing computes
its agent days and rollups after this), and the archive files of this fetch are written again
without their lines. So an erased person never lands again, and the aggregate report's
figures, which the service computes, stay as the service gave them.

A snapshot's listings are filtered before they land (`without_forgotten`): a seat or a member
naming an erased person goes, an issue they wrote stays without its author, an @mention of
one in a free-text column (an issue's title) is replaced by a placeholder, and their login
leaves a list of logins (a budget's alert recipients). Its ETag cache
entries naming them are removed after it (`forget_cached`): the next snapshot asks for those
listings whole again, and no cached copy keeps them.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from pathlib import Path

import duckdb
import polars as pl

from pipelines.ingest.rewrite import rewrite_without
from pipelines.warehouse.catalog import tables
from pipelines.warehouse.erasure import (
    PERSON_TABLES,
    Forgotten,
    ScopeDay,
    archive_files,
    erase_rows,
    people_in,
    record_erased_days,
    record_rewrite,
    refresh_team_days,
)
from pipelines.warehouse.people import redact_text
from pipelines.warehouse.sql import run_sql


def drop_forgotten(
    conn: duckdb.DuckDBPyConnection, forgotten: Forgotten, *, first_day: date, last_day: date, fetched_at: datetime
) -> int:
    """Remove the erased people this landing brought back; how many rows went (0: nobody)."""
    people = people_in(conn, forgotten, first_day=first_day, last_day=last_day)
    erased = [erase_rows(conn, person, first_day=first_day, last_day=last_day) for person in people]
    removed = sum(sum(each.rows.values()) for each in erased)
    days: set[ScopeDay] = set().union(*(each.days for each in erased))
    # The aggregate report still counts them on these days, as after the erasure itself.
    record_erased_days(conn, erased, on_ingest=True)
    # A person every line of whom was set aside (an id sent as a string) lands no row to find them by.
    quarantined = [
        rowid
        for rowid, line in run_sql(
            conn, "privacy/select_fetch_quarantine.sql", fetched_at=fetched_at, first_day=first_day, last_day=last_day
        )
        if line is not None and forgotten.names_report_line(line.encode())
    ]
    if quarantined:
        removed += len(run_sql(conn, "privacy/delete_quarantine_rows.sql", rowids=quarantined))
    if not people and not quarantined:
        return 0
    for scope, scope_name in {(scope, scope_name) for scope, scope_name, _ in days}:
        refresh_team_days(conn, scope=scope, scope_name=scope_name, start_day=first_day, end_day=last_day)
    for path, sha in archive_files(conn, first_day=first_day, last_day=last_day, fetched_at=[fetched_at]):
        done = rewrite_without(Path(path), forgotten.names_report_line)
        if done is None:
            continue
        record_rewrite(
            conn,
            previous=(path, sha),
            path=str(done.path),
            sha256=done.sha256,
            size=done.bytes,
            lines_removed=done.lines_removed,
            reason="ingest",
        )
        # Whether this landing commits or not, nothing should keep the file that names them.
        if done.path != Path(path):
            Path(path).unlink(missing_ok=True)
    return removed


def without_forgotten(
    frames: Mapping[str, pl.DataFrame], forgotten: Forgotten, *, schema: str
) -> dict[str, pl.DataFrame]:
    """The frames (table name in `schema` → rows) without the erased people: a row naming one goes,
    or stays without them where the table keeps such rows (an issue loses its author); their
    @mentions in the catalog's free-text columns are replaced, and their logins leave its list
    columns of logins."""
    person_tables = {t.name: t for t in PERSON_TABLES}
    declared = {t.name: t for t in tables()}
    kept = {}
    for name, frame in frames.items():
        table = declared.get(f"{schema}.{name}")
        texts, lists = (table.text, table.login_lists) if table is not None else ((), ())
        kept[name] = _without_listed(_without_mentions(frame, forgotten, texts), forgotten, lists)
    for name, frame in list(kept.items()):
        person_table = person_tables.get(f"{schema}.{name}")
        if person_table is None or frame.height == 0:
            continue
        columns = (person_table.id_column, person_table.login_column)
        rows = list(zip(frame[columns[0]].to_list(), frame[columns[1]].to_list(), strict=True))
        # Each person once: a listing names thousands of people, few of them twice.
        named = {row: forgotten.names(*row) for row in set(rows)}
        mask = pl.Series([named[row] for row in rows], dtype=pl.Boolean)
        if person_table.where is not None:  # only these rows name a person (a cost center's users)
            column, value = person_table.where
            mask = mask & (frame[column] == value).fill_null(False)
        if not mask.any():
            continue
        if person_table.anonymize:
            kept[name] = frame.with_columns(
                pl.when(mask).then(None).otherwise(pl.col(column)).alias(column) for column in columns
            )
        else:
            kept[name] = frame.filter(~mask)
    return kept


def _without_mentions(frame: pl.DataFrame, forgotten: Forgotten, columns: tuple[str, ...]) -> pl.DataFrame:
    present = [column for column in columns if column in frame.columns]
    if not present or frame.height == 0:
        return frame
    return frame.with_columns(
        pl.col(column).map_elements(lambda text: redact_text(text, forgotten), return_dtype=pl.String)
        for column in present
    )


def _without_listed(frame: pl.DataFrame, forgotten: Forgotten, columns: tuple[str, ...]) -> pl.DataFrame:
    present = [column for column in columns if column in frame.columns]
    if not present or frame.height == 0:
        return frame

    def kept(logins: list[str | None] | None) -> list[str | None] | None:
        return None if logins is None else [x for x in logins if x is None or not forgotten.is_login(x)]

    return frame.with_columns(
        pl.Series(column, [kept(logins) for logins in frame[column].to_list()], dtype=frame[column].dtype)
        for column in present
    )
