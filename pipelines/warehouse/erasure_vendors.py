"""Erasing one person from the vendors' tables (docs/privacy.md; docs/vendors.md, "Erasure").

A vendor names a person by an email (and Cursor by its own user id), never by the service's
login: the person's emails are those given to `metrics-etl forget`, and those the service's
tables show for them (a seat's assignee email, `Table.email` on a table of people); their vendor
user ids, those the vendors' tables hold beside these emails. Every vendor table declares the
columns (`Table.email`, `Table.vendor_id`): its rows of the person go, their lake partitions
marked, and so do the vendors' quarantined lines naming them. Nothing is derived from the
vendors' rows, so nothing is computed again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import date
from typing import Any

import duckdb

from pipelines.transform.emails import normal_email
from pipelines.transform.vendor_values import EMAIL_KEYS, ID_KEYS
from pipelines.warehouse.catalog import Table, tables
from pipelines.warehouse.people import Person
from pipelines.warehouse.sql import run_sql

__all__ = [
    "VENDOR_LEVEL",
    "VENDOR_TABLES",
    "erase_vendor_rows",
    "vendor_line_names",
    "vendor_line_pattern",
    "with_emails",
]

# The raw tables' level and scope of the vendors' archived files and quarantined lines.
VENDOR_LEVEL = "vendor"
VENDOR_TABLES: tuple[Table, ...] = tuple(tables(vendor_person=True))
# The tables of the service's people that show an email (the seats).
_EMAIL_TABLES: tuple[Table, ...] = tuple(t for t in tables(person=True) if t.email)
_FIRST, _LAST = date(1, 1, 1), date(9999, 12, 31)


def _identifiers(t: Table) -> dict[str, str]:
    assert t.email is not None and t.partition is not None
    return {"table": t.name, "email": t.email, "vendor_id": t.vendor_id or t.email, "day": t.partition}


def with_emails(conn: duckdb.DuckDBPyConnection, person: Person, email: str | None = None) -> Person:
    """The person with every email the warehouse shows for them (and `email`, when forget was
    given one: then their user id and login too, where a seat shows that email), and the vendor
    user ids held beside those emails."""
    emails = dict.fromkeys([*person.emails, *([normal_email(email)] if email else [])])
    for t in _EMAIL_TABLES:
        assert t.person is not None and t.email is not None
        names = {"table": t.name, "id": t.person[0], "login": t.person[1], "email": t.email}
        if email and person.user_id is None and person.login is None:
            found = run_sql(conn, "privacy/select_email_person.sql", identifiers=names, email=normal_email(email))
            if found:
                user_id, login = found[0]
                person = replace(person, user_id=user_id, login=login.lower() if login else None)
        if person.user_id is not None or person.login is not None:
            rows = run_sql(
                conn, "privacy/select_person_emails.sql", identifiers=names, user_id=person.user_id, login=person.login
            )
            emails.update(dict.fromkeys(found_email for (found_email,) in rows))
    vendor_ids = dict.fromkeys(person.vendor_ids)
    for t in VENDOR_TABLES:
        if t.vendor_id is not None and emails:
            rows = run_sql(conn, "privacy/select_vendor_ids.sql", identifiers=_identifiers(t), emails=list(emails))
            vendor_ids.update(dict.fromkeys(found_id for (found_id,) in rows))
    return replace(person, emails=tuple(emails), vendor_ids=tuple(vendor_ids))


def erase_vendor_rows(
    conn: duckdb.DuckDBPyConnection, person: Person, *, first_day: date = _FIRST, last_day: date = _LAST
) -> dict[str, int]:
    """Remove the person's rows of these days from every vendor table and their quarantined vendor
    lines, inside the caller's transaction; the rows removed per table."""
    if not person.emails and not person.vendor_ids:
        return {}
    removed: dict[str, int] = {}
    days: dict[str, Any] = {"first_day": first_day, "last_day": last_day}
    for t in VENDOR_TABLES:
        vendor_ids = list(person.vendor_ids) if t.vendor_id else []
        found = run_sql(
            conn,
            "privacy/delete_vendor_person_rows.sql",
            identifiers=_identifiers(t),
            emails=list(person.emails),
            vendor_ids=vendor_ids,
            **days,
        )
        removed[t.name] = len(found)
    lines = run_sql(
        conn, "privacy/delete_person_vendor_lines.sql", level=VENDOR_LEVEL, pattern=vendor_line_pattern(person), **days
    )
    removed["raw.quarantine"] = len(lines)
    return {name: count for name, count in removed.items() if count}


def _padding() -> str:
    """An RE2 and Python pattern of one character `normal_email` strips (every one Python calls
    whitespace, none past U+3000), as a vendor's text holds it or JSON escapes it."""
    forms: list[str] = []
    for c in map(chr, range(0x3001)):
        if c.isspace():
            forms += [f"\\x{ord(c):02x}" if c.isascii() else c, f"\\\\u{ord(c):04x}"]
    return "|".join([*forms, r"\\[tnrf]"])


_PAD = f"(?:{_padding()})*"


def vendor_line_pattern(person: Person) -> str:
    """An RE2 and Python pattern of a vendor's record naming the person: its email (in any case,
    with any whitespace around it) or its vendor user id, under any key a vendor's declaration
    names them by (vendor_values' EMAIL_KEYS, ID_KEYS: Claude Code's `email_address`, Cursor's
    `email`, `userId` and `id`)."""
    emails, ids = "|".join(sorted(EMAIL_KEYS)), "|".join(sorted(ID_KEYS))
    # An id a text, or a number (Cursor's daily records send userId so), but never a bare number
    # under `id`: a seat listing's `id` is the service's user id, another namespace.
    numbers = "|".join(sorted(ID_KEYS - {"id"})) or "$^"
    parts = [f'(?i:"({emails})"\\s*:\\s*"{_PAD}{re.escape(email)}{_PAD}")' for email in person.emails]
    for vendor_id in person.vendor_ids:
        text, number = re.escape(vendor_id), f'"({numbers})"\\s*:\\s*{re.escape(vendor_id)}[,}}\\s]'
        parts += [f'"({ids})"\\s*:\\s*"{text}"', number]
    return "|".join(f"(?:{part})" for part in parts) or "$^"


def vendor_line_names(person: Person) -> Callable[[bytes], bool]:
    """Whether an archived line (of any report) is a vendor's record naming the person."""
    if not person.emails and not person.vendor_ids:
        return lambda line: False
    pattern = re.compile(vendor_line_pattern(person).encode())
    return lambda line: pattern.search(line) is not None
