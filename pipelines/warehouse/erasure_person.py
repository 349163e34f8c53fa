"""Whom a LOGIN or USER_ID given to `metrics-etl forget` names: the person to erase, with the other
half of their name where the warehouse knows it (their rows, quarantined lines, webhook deliveries).
"""

from __future__ import annotations

import json

import duckdb

from pipelines.service.people import payload_people
from pipelines.warehouse.erasure import PERSON_TABLES
from pipelines.warehouse.erasure_vendors import with_emails
from pipelines.warehouse.people import Person
from pipelines.warehouse.sql import run_sql

__all__ = ["find_person"]


def find_person(conn: duckdb.DuckDBPyConnection, who: str) -> Person:
    """The person a LOGIN, USER_ID or EMAIL names, with the other half when the warehouse knows
    it, and the emails and vendor user ids naming them in the vendors' tables.

    A number is a user id; a word with an `@` inside an email; anything else a login (matched in
    any case, as the service does; an `@` before it, as in a mention, is not part of it).
    """
    who = who.removeprefix("@")
    if "@" in who:
        return with_emails(conn, Person(None, None), who)
    return with_emails(conn, _service_person(conn, who))


def _service_person(conn: duckdb.DuckDBPyConnection, who: str) -> Person:
    user_id = int(who) if who.isascii() and who.isdigit() else None
    login = None if user_id is not None else who.lower()
    for person_table in PERSON_TABLES:
        rows = run_sql(
            conn,
            "privacy/select_person.sql",
            identifiers=person_table.identifiers,
            user_id=user_id,
            login=login,
            **person_table.where_value,
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
