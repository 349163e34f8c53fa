"""The operator's identity file (IDENTITY_MAP_PATH, docs/vendors.md "One person and one agent"):
a CSV of `email,login` lines naming the service login of an email a vendor sends.

Read whole by each vendors run into vendors.operator_identities, where a line wins over a seat's
public email (bi.assistant_identities). Emails are compared trimmed and in lower case. A bad line
is one line naming the file and the line, and is left out alone: every good line lands. A file
that cannot be read leaves the lines last read in place. An erased person's line is left out
(their email or login among the erased people's hashes), so the file cannot bring them back.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import duckdb

from pipelines.transform.emails import normal_email
from pipelines.warehouse.people import Forgotten
from pipelines.warehouse.sql import rollback, run_sql

__all__ = ["IdentityFile", "IdentityLine", "land_operator_identities", "read_identity_file", "unmapped_notes"]

_EMAIL = re.compile(r"[^@\s,]+@[^@\s,]+\.[^@\s,]+")
# A service login: letters, digits and single hyphens (an enterprise-managed one ends `_shortcode`).
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}(?:_[A-Za-z0-9]+)?")
_HEADER = ["email", "login"]


@dataclass(frozen=True)
class IdentityLine:
    email: str  # trimmed, lower case
    login: str
    line_number: int


@dataclass(frozen=True)
class IdentityFile:
    lines: tuple[IdentityLine, ...]
    errors: tuple[str, ...]  # one line each: the file, the line, what is wrong and what to do
    readable: bool = True


def _line_error(path: Path, number: int, fields: list[str]) -> str | None:
    shown = ",".join(fields)
    if len(fields) != 2:
        return f"{path} line {number}: {shown!r} has {len(fields)} fields, not 2: write it as email,login"
    email, login = (field.strip() for field in fields)
    if not _EMAIL.fullmatch(email):
        return f"{path} line {number}: {email!r} is not an email: write the line as email,login"
    if not _LOGIN.fullmatch(login):
        return f"{path} line {number}: {login!r} is not a service login: write the line as email,login"
    return None


def read_identity_file(path: Path) -> IdentityFile:
    """Every good line of the file, and one error line for each bad one."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "it is not UTF-8 text"
        return IdentityFile((), (f"{path} cannot be read ({why}): the identities last read from it stay",), False)
    good: dict[str, IdentityLine] = {}
    errors: list[str] = []
    for number, fields in enumerate(csv.reader(text.splitlines()), start=1):
        if not fields or not "".join(fields).strip() or fields[0].lstrip().startswith("#"):
            continue
        if number == 1 and [f.strip().lower() for f in fields] == _HEADER:
            continue
        error = _line_error(path, number, fields)
        if error is not None:
            errors.append(error)
            continue
        email, login = normal_email(fields[0]), fields[1].strip()
        earlier = good.get(email)
        if earlier is not None and earlier.login.lower() != login.lower():
            errors.append(
                f"{path} line {number}: {email} is mapped to {earlier.login} on line {earlier.line_number} already: "
                "keep one line for it"
            )
        elif earlier is None:
            good[email] = IdentityLine(email, login, number)
    return IdentityFile(tuple(good.values()), tuple(errors))


def land_operator_identities(
    conn: duckdb.DuckDBPyConnection, path: Path, *, read_day: date, forgotten: Forgotten | None
) -> IdentityFile:
    """The file's good lines as vendors.operator_identities, whole, in one transaction (a file
    that cannot be read changes nothing); what was read."""
    read = read_identity_file(path)
    if not read.readable:
        return read
    kept = [
        line
        for line in read.lines
        if forgotten is None or not (forgotten.names(None, line.login) or forgotten.names_vendor_user(line.email, None))
    ]
    conn.execute("BEGIN TRANSACTION")
    try:
        run_sql(conn, "identities/delete_operator_identities.sql", read_day=read_day)
        for line in kept:
            run_sql(
                conn,
                "identities/insert_operator_identity.sql",
                read_day=read_day,
                email=line.email,
                login=line.login,
                line_number=line.line_number,
            )
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    return read


def unmapped_notes(conn: duckdb.DuckDBPyConnection, *, first_day: date, last_day: date) -> list[str]:
    """A line per vendor whose people of these days include some no service login is known for."""
    return [
        f"{vendor}: {people} {'person' if people == 1 else 'people'} of {first} .. {last} have no service login "
        "(counted under their email in bi.assistant_usage_daily; bi.assistant_unmapped_people): "
        "add email,login lines to IDENTITY_MAP_PATH to map them"
        for vendor, first, last, people in run_sql(
            conn, "identities/select_unmapped_people.sql", first_day=first_day, last_day=last_day
        )
    ]
