"""Erasing one person from the warehouse, and knowing whom a later fetch must drop (docs/privacy.md).

A person is named by their user id and login. What is kept of an erased person is two keyed
hashes (HMAC-SHA256 under METRICS_PSEUDONYM_KEY) in meta.forgotten_people, which name nobody
without the key. `Forgotten` matches a row's or a line's ids and logins against them, so a
fetch of the same days again drops the person's lines on ingest.

Every table that holds a person is listed once in `PERSON_TABLES`: its rows of the person go
(issues keep their row and lose the author), and the lake partitions they were in are marked
changed, so the next publish writes those partitions again without them.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

import duckdb

from pipelines.warehouse.sql import run_sql

__all__ = [
    "PERSON_TABLES", "Forgotten", "ForgottenWithoutKey", "Person", "PersonTable", "archive_files", "erase_rows",
    "find_person", "forgotten_hashes", "load_forgotten", "people_in", "person_hashes", "record_rewrite", "remember",
]

FIRST_DAY, LAST_DAY = date(1, 1, 1), date(9999, 12, 31)


@dataclass(frozen=True)
class PersonTable:
    name: str
    id_column: str
    login_column: str
    day_column: str
    anonymize: bool = False  # keep the row without the person (an issue stays, its author goes)


PERSON_TABLES: tuple[PersonTable, ...] = (
    PersonTable("core.user_daily_totals", "user_id", "user_login", "day"),
    PersonTable("core.breakdowns", "user_id", "user_login", "day"),
    PersonTable("core.agent_activity", "user_id", "user_login", "day"),
    PersonTable("core.cli_customizations", "user_id", "user_login", "day"),
    PersonTable("core.user_team_days", "user_id", "user_login", "day"),
    PersonTable("snapshots.seats", "user_id", "login", "snapshot_day"),
    PersonTable("snapshots.enterprise_seats", "user_id", "login", "snapshot_day"),
    PersonTable("snapshots.org_members", "member_id", "login", "snapshot_day"),
    PersonTable("snapshots.issues", "user_id", "user_login", "snapshot_day", anonymize=True),
)

# The JSON keys that name a person in report lines, listings and webhook payloads.
_ID_KEYS = ("id", "user_id", "member_id")
_LOGIN_KEYS = ("login", "user_login", "username", "name")
_CANDIDATE = re.compile(
    rb'"(' + b"|".join(k.encode() for k in _ID_KEYS + _LOGIN_KEYS) + rb')"\s*:\s*("(?:[^"\\]|\\.)*"|\d+)'
)


@dataclass(frozen=True)
class Person:
    user_id: int | None
    login: str | None

    def text_pattern(self) -> str:
        """An RE2 and Python pattern of JSON text naming the person (a payload, a line, a cached body)."""
        parts = []
        if self.user_id is not None:
            ids = "|".join(_ID_KEYS)
            parts.append(f'"({ids})"\\s*:\\s*{self.user_id}([^0-9]|$)')
        if self.login is not None:
            logins = "|".join(_LOGIN_KEYS)
            parts.append(f'(?i:"({logins})"\\s*:\\s*"{re.escape(self.login)}")')
        return "|".join(f"(?:{part})" for part in parts) or "$^"


def _hash(key: bytes, kind: str, value: str) -> str:
    return hmac.new(key, f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()


def person_hashes(key: bytes, person: Person) -> set[str]:
    hashes = set()
    if person.user_id is not None:
        hashes.add(_hash(key, "id", str(person.user_id)))
    if person.login is not None:
        hashes.add(_hash(key, "login", person.login.lower()))
    return hashes


@dataclass(frozen=True)
class Forgotten:
    """The erased people's hashes, and the key to test an id or a login against them."""

    key: bytes
    hashes: frozenset[str]

    def names(self, user_id: int | None, login: str | None) -> bool:
        return bool(person_hashes(self.key, Person(user_id, login)) & self.hashes)

    def names_line(self, line: bytes) -> bool:
        """True when a JSON line names an erased person under one of the keys that name people."""
        for match in _CANDIDATE.finditer(line):
            key, value = match.group(1).decode(), match.group(2)
            if value.startswith(b'"'):
                login = value[1:-1].decode(errors="replace").lower()
                if key in _LOGIN_KEYS and _hash(self.key, "login", login) in self.hashes:
                    return True
            elif key in _ID_KEYS and _hash(self.key, "id", value.decode()) in self.hashes:
                return True
        return False


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

    A number is a user id; anything else a login (matched in any case, as the service does).
    """
    user_id = int(who) if who.isdigit() else None
    login = None if user_id is not None else who.lower()
    for table in PERSON_TABLES:
        rows = run_sql(
            conn, "privacy/select_person.sql", identifiers=_identifiers(table), user_id=user_id, login=login
        )
        if rows:
            found_id, found_login = rows[0]
            return Person(
                user_id if user_id is not None else found_id,
                login if login is not None else (found_login.lower() if found_login else None),
            )
    return Person(user_id, login)


def people_in(
    conn: duckdb.DuckDBPyConnection, forgotten: Forgotten, *, first_day: date, last_day: date
) -> list[Person]:
    """The erased people whose rows are in these days again (a fetch brought them back)."""
    found: dict[tuple[int | None, str | None], Person] = {}
    for table in PERSON_TABLES:
        rows = run_sql(
            conn, "privacy/select_people.sql", identifiers=_identifiers(table), first_day=first_day, last_day=last_day
        )
        for user_id, login in rows:
            if forgotten.names(user_id, login):
                found[(user_id, login)] = Person(user_id, login.lower() if login else None)
    return list(found.values())


def erase_rows(
    conn: duckdb.DuckDBPyConnection, person: Person, *, first_day: date = FIRST_DAY, last_day: date = LAST_DAY
) -> dict[str, int]:
    """Remove the person's rows of these days from every table, inside the caller's transaction.

    Marks every lake partition they were in as changed; returns the rows removed per table.
    """
    removed: dict[str, int] = {}
    for table in PERSON_TABLES:
        sql = "privacy/anonymize_person_rows.sql" if table.anonymize else "privacy/delete_person_rows.sql"
        rows = run_sql(
            conn, sql, identifiers=_identifiers(table), user_id=person.user_id, login=person.login,
            first_day=first_day, last_day=last_day,
        )
        removed[table.name] = len(rows)
    pattern = person.text_pattern()
    removed["raw.quarantine"] = len(
        run_sql(conn, "privacy/delete_person_quarantine.sql", pattern=pattern, first_day=first_day, last_day=last_day)
    )
    removed["events.webhook_deliveries"] = len(run_sql(conn, "privacy/delete_person_deliveries.sql", pattern=pattern))
    removed["events.webhook_quarantine"] = len(
        run_sql(conn, "privacy/delete_person_delivery_quarantine.sql", pattern=pattern)
    )
    return {name: count for name, count in removed.items() if count}


def _identifiers(table: PersonTable) -> dict[str, str]:
    return {"table": table.name, "id": table.id_column, "login": table.login_column, "day": table.day_column}


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
