"""Erasing one person from the warehouse, and knowing whom a later fetch must drop (docs/privacy.md).

A person is named by their user id and login; what is kept of an erased person is two keyed
hashes in meta.forgotten_people (pipelines/warehouse/people.py says how each is matched).

Every table that holds a person declares its columns naming them in the catalog
(`Table.person`; `PERSON_TABLES` here): its rows of the person go (issues keep their row and
lose the author), and the lake partitions they were in are marked changed, so the next
publish writes those partitions again without them. A webhook delivery goes when a person field
of its kind names them; their login in kept text (`Table.text`, other people's deliveries) is
replaced. What the landings derive from user rows (agent and team days, the rollups) is
computed again for the days rows left (`refresh_derived`, pipelines/warehouse/derived.py), so every view equals what the
remaining rows say. The aggregate report, which the service computes, still counts the person:
the days their user-level records left are recorded with how many people, never whom
(`record_erased_days`, core.erased_user_days), and bi.reconciliation explains the difference.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

import duckdb

from pipelines.warehouse.billing_exports import EXPORT_KIND, export_line_pattern
from pipelines.warehouse.catalog import Table, tables
from pipelines.warehouse.derived import ScopeDay, refresh_derived, refresh_team_days
from pipelines.warehouse.erasure_vendors import erase_vendor_rows
from pipelines.warehouse.people import Forgotten, Person, person_hashes
from pipelines.warehouse.sql import run_sql

__all__ = [
    "PERSON_TABLES",
    "Erased",
    "Forgotten",
    "ForgottenWithoutKey",
    "Person",
    "PersonTable",
    "ScopeDay",
    "archive_files",
    "erase_rows",
    "forgotten_hashes",
    "load_forgotten",
    "people_in",
    "person_hashes",
    "record_erased_days",
    "record_rewrite",
    "refresh_derived",
    "refresh_team_days",
    "remember",
]

FIRST_DAY, LAST_DAY = date(1, 1, 1), date(9999, 12, 31)


@dataclass(frozen=True)
class PersonTable:
    """A table naming people, as the catalog declares it (Table.person)."""

    name: str
    id_column: str
    login_column: str
    day_column: str  # its partition day: what retention and a landing's days select by
    scoped: bool  # its rows are a scope's (what the landings derive things from)
    # Neither person column is in its grain: the row stays without the person (an issue, its author).
    anonymize: bool
    # The rows naming a person are those whose column holds this value (Table.person_where);
    # None: every row.
    where: tuple[str, str] | None = None

    @property
    def identifiers(self) -> dict[str, str]:
        """Its table and columns, as the privacy/ SQL names them."""
        where = self.where[0] if self.where else self.login_column
        return {
            "table": self.name,
            "id": self.id_column,
            "login": self.login_column,
            "day": self.day_column,
            "where": where,
        }

    @property
    def where_value(self) -> dict[str, str | None]:
        """The value the privacy/ SQL binds for `{where}` (None: every row names its person)."""
        return {"where_value": self.where[1] if self.where else None}


def _person_table(declared: Table) -> PersonTable:
    if declared.person is None or declared.partition is None:
        raise ValueError(f"{declared.name}: a table naming people is partitioned by day and names its columns")
    id_column, login_column = declared.person
    return PersonTable(
        declared.name,
        id_column,
        login_column,
        declared.partition,
        scoped="scope" in declared.grain,
        # A row keyed by the person's email (an identity-file line) is theirs alone: it goes.
        anonymize=id_column not in declared.grain and login_column not in declared.grain and declared.email is None,
        where=declared.person_where,
    )


PERSON_TABLES = tuple(_person_table(declared) for declared in tables(person=True))
# A person's user-level record of a day: what the aggregate report of that day counts them in.
USER_RECORDS = "core.user_daily_totals"


class ForgottenWithoutKey(Exception):
    """The warehouse holds erased people's hashes, and no key to test a fetched line against them."""


def load_forgotten(conn: duckdb.DuckDBPyConnection, key: str | None) -> Forgotten | None:
    """What a landing must drop: None when nobody was erased."""
    hashes = forgotten_hashes(conn)
    if not hashes:
        return None
    if not key:
        raise ForgottenWithoutKey(
            "this warehouse holds people erased by `metrics-etl forget`, and METRICS_PSEUDONYM_KEY is not set: "
            "set it to the key the erasure used, or a fetch would land them again"
        )
    return Forgotten(key.encode(), hashes)


def forgotten_hashes(conn: duckdb.DuckDBPyConnection) -> frozenset[str]:
    return frozenset(row[0] for row in run_sql(conn, "privacy/select_forgotten.sql"))


def remember(conn: duckdb.DuckDBPyConnection, key: bytes, person: Person) -> None:
    """Record the person's hashes (committed on its own: a crash later still knows them)."""
    run_sql(conn, "privacy/insert_forgotten.sql", hashes=sorted(person_hashes(key, person)))


def people_in(
    conn: duckdb.DuckDBPyConnection, forgotten: Forgotten, *, first_day: date, last_day: date
) -> list[Person]:
    """The erased people whose rows are in these days again (a fetch brought them back)."""
    found: dict[tuple[int | None, str | None], Person] = {}
    for person_table in PERSON_TABLES:
        rows = run_sql(
            conn,
            "privacy/select_people.sql",
            identifiers=person_table.identifiers,
            first_day=first_day,
            last_day=last_day,
            **person_table.where_value,
        )
        for user_id, login in rows:
            if forgotten.names(user_id, login):
                found[(user_id, login)] = Person(user_id, login.lower() if login else None)
    return list(found.values())


@dataclass(frozen=True)
class Erased:
    rows: dict[str, int]  # rows removed per table
    days: frozenset[ScopeDay]  # the scope days they were on: what refresh_derived computes again
    record_days: frozenset[ScopeDay]  # the scope days of their user-level records (USER_RECORDS, refused lines)


def erase_rows(
    conn: duckdb.DuckDBPyConnection, person: Person, *, first_day: date = FIRST_DAY, last_day: date = LAST_DAY
) -> Erased:
    """Remove the person's rows of these days from every table, inside the caller's transaction.

    Marks every lake partition they were in as changed; returns the rows removed per table, the
    scope days they were on, and those of their user-level records.
    """
    removed: dict[str, int] = {}
    days: set[ScopeDay] = set()
    record_days: set[ScopeDay] = set()
    for person_table in PERSON_TABLES:
        who = {
            "user_id": person.user_id,
            "login": person.login,
            "first_day": first_day,
            "last_day": last_day,
            **person_table.where_value,
        }
        if person_table.scoped:
            found = run_sql(conn, "privacy/select_person_days.sql", identifiers=person_table.identifiers, **who)
            days.update((scope, scope_name, day) for scope, scope_name, day in found)
            if person_table.name == USER_RECORDS:
                record_days.update((scope, scope_name, day) for scope, scope_name, day in found)
        sql = "privacy/anonymize_person_rows.sql" if person_table.anonymize else "privacy/delete_person_rows.sql"
        removed[person_table.name] = len(run_sql(conn, sql, identifiers=person_table.identifiers, **who))
    quarantined = run_sql(
        conn,
        "privacy/delete_person_quarantine.sql",
        pattern=person.report_line_pattern(),
        first_day=first_day,
        last_day=last_day,
    )
    removed["raw.quarantine"] = len(quarantined)
    if person.login is not None:  # a billing export's lines name people by their username alone
        removed["raw.quarantine"] += len(
            run_sql(
                conn,
                "privacy/delete_person_export_lines.sql",
                report_kind=EXPORT_KIND,
                pattern=export_line_pattern(person.login),
                first_day=first_day,
                last_day=last_day,
            )
        )
    for name, count in erase_vendor_rows(conn, person, first_day=first_day, last_day=last_day).items():
        removed[name] = removed.get(name, 0) + count
    # A refused user line of theirs was what explained their day's difference: now the erasure does.
    record_days.update((scope, scope_name, day) for scope, scope_name, day in quarantined if day is not None)
    return Erased({name: count for name, count in removed.items() if count}, frozenset(days), frozenset(record_days))


def record_erased_days(conn: duckdb.DuckDBPyConnection, erased: Iterable[Erased], *, on_ingest: bool) -> None:
    """Record in core.erased_user_days how many people left each scope day's user-level records
    (never whom), inside the caller's transaction: the aggregate report still counts them.

    An erasure's people are added to the day's count; `on_ingest`, the people a landing dropped
    (erased before, perhaps counted already as the day is fetched again) only raise it."""
    people: dict[ScopeDay, int] = {}
    for each in erased:
        for scope_day in each.record_days:
            people[scope_day] = people.get(scope_day, 0) + 1
    for (scope, scope_name, day), count in sorted(people.items()):
        run_sql(
            conn,
            "privacy/record_erased_user_days.sql",
            scope=scope,
            scope_name=scope_name,
            day=day,
            people=count,
            on_ingest=on_ingest,
        )


def archive_files(
    conn: duckdb.DuckDBPyConnection,
    *,
    first_day: date = FIRST_DAY,
    last_day: date = LAST_DAY,
    fetched_at: Iterable[object] = (),
) -> list[tuple[str, str]]:
    """(archive path, sha256) of the raw files of user-level reports overlapping these days
    (those fetched at `fetched_at` only, when given): the files that can name a person."""
    return [
        (path, sha)
        for path, sha in run_sql(
            conn,
            "privacy/select_person_archive_files.sql",
            first_day=first_day,
            last_day=last_day,
            fetched_at=list(fetched_at) or None,
        )
    ]


def record_rewrite(
    conn: duckdb.DuckDBPyConnection,
    *,
    previous: tuple[str, str],
    path: str,
    sha256: str,
    size: int,
    lines_removed: int,
    reason: str,
) -> None:
    """Point raw.report_files and raw.quarantine at an archive file written again; record its lineage."""
    run_sql(
        conn,
        "privacy/record_archive_rewrite.sql",
        previous_path=previous[0],
        previous_checksum=previous[1],
        path=path,
        checksum=sha256,
        size=size,
        lines_removed=lines_removed,
        reason=reason,
    )
