"""Erasing one person from the warehouse, and knowing whom a later fetch must drop (docs/privacy.md).

A person is named by their user id and login; what is kept of an erased person is two keyed
hashes in meta.forgotten_people (pipelines/warehouse/people.py says how each is matched).

Every table that holds a person declares its columns naming them in the catalog
(`Table.person`; `PERSON_TABLES` here): its rows of the person go (issues keep their row and
lose the author), and the lake partitions they were in are marked changed, so the next
publish writes those partitions again without them. A webhook delivery goes when a person field
of its kind names them; their login in kept text (`Table.text`, other people's deliveries) is
replaced. What the landings derive from user rows (agent and team days, the rollups) is
computed again for the days rows left (`refresh_derived`), so every view equals what the
remaining rows say. The aggregate report, which the service computes, still counts the person:
the days their user-level records left are recorded with how many people, never whom
(`record_erased_days`, core.erased_user_days), and bi.reconciliation explains the difference.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import duckdb

from pipelines.service.people import payload_people
from pipelines.transform.schema import USER
from pipelines.warehouse.catalog import Table, tables
from pipelines.warehouse.people import Forgotten, Person, person_hashes
from pipelines.warehouse.rollups import refresh_rollups
from pipelines.warehouse.sql import run_sql

__all__ = [
    "PERSON_TABLES", "Erased", "Forgotten", "ForgottenWithoutKey", "Person", "PersonTable", "ScopeDay",
    "archive_files", "erase_rows", "find_person", "forgotten_hashes", "load_forgotten", "people_in", "person_hashes",
    "record_erased_days", "record_rewrite", "refresh_derived", "refresh_team_days", "remember",
]

FIRST_DAY, LAST_DAY = date(1, 1, 1), date(9999, 12, 31)
# Days of a scope this close are refreshed as one run: a reach rollup is computed again for the
# 27 days after a run anyway.
_RUN_GAP = 28

ScopeDay = tuple[str, str, date]  # scope, scope_name, day


@dataclass(frozen=True)
class PersonTable:
    """A table naming people, as the catalog declares it (Table.person)."""

    name: str
    id_column: str
    login_column: str
    day_column: str  # its partition day: what retention and a landing's days select by
    scoped: bool  # its rows are a scope's (what the landings derive things from)
    anonymize: bool  # the id is not in its grain: the row stays without the person (an issue, its author)


def _person_table(declared: Table) -> PersonTable:
    if declared.person is None or declared.partition is None:
        raise ValueError(f"{declared.name}: a table naming people is partitioned by day and names its columns")
    id_column, login_column = declared.person
    return PersonTable(
        declared.name, id_column, login_column, declared.partition, scoped="scope" in declared.grain,
        anonymize=id_column not in declared.grain,
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


def find_person(conn: duckdb.DuckDBPyConnection, who: str) -> Person:
    """The person a LOGIN or USER_ID names, with the other half when the warehouse knows it.

    A number is a user id; anything else a login (matched in any case, as the service does; an
    `@` before it, as in a mention, is not part of it).
    """
    who = who.removeprefix("@")
    user_id = int(who) if who.isascii() and who.isdigit() else None
    login = None if user_id is not None else who.lower()
    for person_table in PERSON_TABLES:
        rows = run_sql(
            conn, "privacy/select_person.sql", identifiers=_identifiers(person_table), user_id=user_id, login=login
        )
        if rows:
            found_id, found_login = rows[0]
            return Person(
                user_id if user_id is not None else found_id,
                login if login is not None else (found_login.lower() if found_login else None),
            )
    if user_id is not None:
        # Known only from quarantined lines (every line of theirs failed): a line tells the login.
        pattern = Person(user_id, None).report_line_pattern()
        for (line,) in run_sql(conn, "privacy/select_person_quarantined_lines.sql", pattern=pattern):
            if (found_login := _line_login(line, user_id)) is not None:
                return Person(user_id, found_login.lower())
        # Known only from webhook deliveries: their person fields tell the login, so text naming it goes too.
        for _, event, payload in run_sql(
            conn, "privacy/select_person_deliveries.sql", login=None, user_id=str(user_id)
        ):
            for found_id, found_login in _payload_people(event, payload):
                if found_id == user_id and found_login:
                    return Person(user_id, found_login.lower())
    return Person(user_id, login)


def _line_login(line: str | None, user_id: int) -> str | None:
    """The user_login of a report line whose user_id is this one (a number or a string of it)."""
    try:
        record = json.loads(line or "")
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    found_id, login = record.get("user_id"), record.get("user_login")
    if isinstance(found_id, str) and found_id.isascii() and found_id.isdigit():
        found_id = int(found_id)
    return login if found_id == user_id and not isinstance(found_id, bool) and isinstance(login, str) else None


def _payload_people(event: str, payload: str) -> list[tuple[int | None, str | None]]:
    try:
        return list(payload_people(event, json.loads(payload)))
    except (ValueError, RecursionError):
        return []


def people_in(
    conn: duckdb.DuckDBPyConnection, forgotten: Forgotten, *, first_day: date, last_day: date
) -> list[Person]:
    """The erased people whose rows are in these days again (a fetch brought them back)."""
    found: dict[tuple[int | None, str | None], Person] = {}
    for person_table in PERSON_TABLES:
        rows = run_sql(
            conn, "privacy/select_people.sql", identifiers=_identifiers(person_table), first_day=first_day,
            last_day=last_day,
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
        who = {"user_id": person.user_id, "login": person.login, "first_day": first_day, "last_day": last_day}
        if person_table.scoped:
            found = run_sql(conn, "privacy/select_person_days.sql", identifiers=_identifiers(person_table), **who)
            days.update((scope, scope_name, day) for scope, scope_name, day in found)
            if person_table.name == USER_RECORDS:
                record_days.update((scope, scope_name, day) for scope, scope_name, day in found)
        sql = "privacy/anonymize_person_rows.sql" if person_table.anonymize else "privacy/delete_person_rows.sql"
        removed[person_table.name] = len(run_sql(conn, sql, identifiers=_identifiers(person_table), **who))
    quarantined = run_sql(
        conn, "privacy/delete_person_quarantine.sql", pattern=person.report_line_pattern(), first_day=first_day,
        last_day=last_day,
    )
    removed["raw.quarantine"] = len(quarantined)
    # A refused user line of theirs was what explained their day's difference: now the erasure does.
    record_days.update((scope, scope_name, day) for scope, scope_name, day in quarantined if day is not None)
    return Erased({name: count for name, count in removed.items() if count}, frozenset(days), frozenset(record_days))


def record_erased_days(
    conn: duckdb.DuckDBPyConnection, erased: Iterable[Erased], *, on_ingest: bool
) -> None:
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
            conn, "privacy/record_erased_user_days.sql", scope=scope, scope_name=scope_name, day=day, people=count,
            on_ingest=on_ingest,
        )


def refresh_derived(conn: duckdb.DuckDBPyConnection, days: Iterable[ScopeDay]) -> None:
    """What the landings derive from user rows, computed again for the scope days rows left (an
    erasure, retention), inside the caller's transaction: core.agent_days' user level with the
    agent dimensions, core.team_days with the team dimension, and every rollup; their lake
    partitions are marked changed."""
    for scope, scope_name, start_day, end_day in _runs(days):
        span: dict[str, Any] = {"scope": scope, "scope_name": scope_name, "start_day": start_day, "end_day": end_day}
        run_sql(conn, "privacy/begin_agent_days_refresh.sql", level=USER, **span)
        run_sql(conn, "warehouse/refresh_agent_dimensions.sql", level=USER, **span)
        run_sql(conn, "privacy/end_agent_days_refresh.sql")
        refresh_team_days(conn, **span)
        refresh_rollups(conn, **span)
        run_sql(conn, "warehouse/mark_lake_changes.sql", tables=["core.agent_days"], **span)


def refresh_team_days(
    conn: duckdb.DuckDBPyConnection, *, scope: str, scope_name: str, start_day: date, end_day: date
) -> None:
    """core.team_days (members per listed team) and core.dim_team counted again from the
    memberships left on a scope's days, inside the caller's transaction; their partitions marked."""
    span: dict[str, Any] = {"scope": scope, "scope_name": scope_name, "start_day": start_day, "end_day": end_day}
    run_sql(conn, "warehouse/begin_user_teams.sql", **span)
    run_sql(conn, "privacy/delete_team_days.sql", **span)
    run_sql(conn, "warehouse/refresh_team_dimensions.sql", **span)
    run_sql(conn, "warehouse/mark_lake_changes.sql", tables=["core.team_days"], **span)


def _runs(days: Iterable[ScopeDay]) -> list[tuple[str, str, date, date]]:
    """Each scope's days as runs of days: (scope, scope_name, first day, last day)."""
    runs: list[tuple[str, str, date, date]] = []
    for scope, scope_name, day in sorted(set(days)):
        if runs and runs[-1][:2] == (scope, scope_name) and day - runs[-1][3] <= timedelta(days=_RUN_GAP):
            runs[-1] = (scope, scope_name, runs[-1][2], day)
        else:
            runs.append((scope, scope_name, day, day))
    return runs


def _identifiers(person_table: PersonTable) -> dict[str, str]:
    return {
        "table": person_table.name, "id": person_table.id_column, "login": person_table.login_column,
        "day": person_table.day_column,
    }


def archive_files(
    conn: duckdb.DuckDBPyConnection, *, first_day: date = FIRST_DAY, last_day: date = LAST_DAY,
    fetched_at: Iterable[object] = (),
) -> list[tuple[str, str]]:
    """(archive path, sha256) of the raw files of user-level reports overlapping these days
    (those fetched at `fetched_at` only, when given): the files that can name a person."""
    return [
        (path, sha)
        for path, sha in run_sql(
            conn, "privacy/select_person_archive_files.sql", first_day=first_day, last_day=last_day,
            fetched_at=list(fetched_at) or None,
        )
    ]


def record_rewrite(
    conn: duckdb.DuckDBPyConnection, *, previous: tuple[str, str], path: str, sha256: str, size: int,
    lines_removed: int, reason: str,
) -> None:
    """Point raw.report_files and raw.quarantine at an archive file written again; record its lineage."""
    run_sql(
        conn, "privacy/record_archive_rewrite.sql", previous_path=previous[0], previous_checksum=previous[1],
        path=path, checksum=sha256, size=size, lines_removed=lines_removed, reason=reason,
    )
