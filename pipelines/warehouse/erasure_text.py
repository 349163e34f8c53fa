"""A person out of what names them beyond their rows (docs/privacy.md, "Erasing one person").

Webhook deliveries a person field of their kind names them in go; their login in other
people's deliveries and in the catalog's free-text columns (`Table.text`: issue titles,
quarantined lines, ...) is replaced by a placeholder, it leaves the catalog's list columns of
logins (`Table.login_lists`: a budget's alert recipients), and the lake partitions changed are
marked. The candidates are found in SQL by the login or the id anywhere in the text, then
tested field by field and word by word (pipelines/warehouse/people.py), so a repository whose
id is the user id, or a longer login, is never touched.
"""

from __future__ import annotations

import duckdb

from pipelines.warehouse.catalog import tables
from pipelines.warehouse.people import Person, redact_text, screen_payload
from pipelines.warehouse.sql import run_sql

__all__ = ["erase_from_text"]


def erase_from_text(conn: duckdb.DuckDBPyConnection, person: Person) -> dict[str, int]:
    """What names the person beyond their rows, inside the caller's transaction: the webhook
    deliveries a person field of their kind names them in go; their login in other deliveries'
    text and in the catalog's free-text columns is replaced, and leaves its lists of logins. Rows
    removed per table. (A landing needs none of it: the loader and a snapshot screen what they
    land.)"""
    removed = _erase_deliveries(conn, person)
    _redact_texts(conn, person)
    _drop_from_lists(conn, person)
    return {name: count for name, count in removed.items() if count}


# Per table of deliveries: its candidates, how those naming the person go, how the others' text changes.
_DELIVERY_TABLES = (
    (
        "events.webhook_deliveries",
        "privacy/select_person_deliveries.sql",
        "privacy/delete_person_deliveries.sql",
        "privacy/update_delivery_payloads.sql",
    ),
    (
        "events.webhook_quarantine",
        "privacy/select_person_delivery_quarantine.sql",
        "privacy/delete_person_delivery_quarantine.sql",
        "privacy/update_delivery_quarantine_texts.sql",
    ),
)


def _erase_deliveries(conn: duckdb.DuckDBPyConnection, person: Person) -> dict[str, int]:
    """Deliveries naming the person in a person field of their kind go; in the others, their
    login in text is replaced. Rows removed per table."""
    removed = {}
    user_id = None if person.user_id is None else str(person.user_id)
    for table, select, delete, update in _DELIVERY_TABLES:
        gone, changed = [], {}
        for delivery_id, event, payload in run_sql(conn, select, login=person.login, user_id=user_id):
            kept = screen_payload(event, payload, person)
            if kept is None:
                gone.append(delivery_id)
            elif kept is not payload:
                changed[delivery_id] = kept
        removed[table] = len(run_sql(conn, delete, delivery_ids=gone)) if gone else 0
        if changed:
            run_sql(conn, update, delivery_ids=list(changed), payloads=list(changed.values()))
    return removed


def _redact_texts(conn: duckdb.DuckDBPyConnection, person: Person) -> None:
    """The person's login out of every free-text column the catalog declares (Table.text), their
    lake partitions marked."""
    if person.login is None:
        return
    for declared in tables():
        for column in declared.text:
            identifiers = {"table": declared.name, "column": column, "day": declared.partition or ""}
            found = run_sql(conn, "privacy/select_text_naming.sql", identifiers=identifiers, login=person.login)
            changed = {rowid: new for rowid, text in found if (new := redact_text(text, person)) != text}
            if not changed:
                continue
            if declared.partition is not None:
                run_sql(conn, "privacy/mark_text_rows.sql", identifiers=identifiers, rowids=list(changed))
            run_sql(
                conn,
                "privacy/update_texts.sql",
                identifiers=identifiers,
                rowids=list(changed),
                texts=list(changed.values()),
            )


def _drop_from_lists(conn: duckdb.DuckDBPyConnection, person: Person) -> None:
    """The person's login out of every list column of logins the catalog declares
    (Table.login_lists), in any case, the rest of each list kept; their lake partitions marked."""
    if person.login is None:
        return
    for declared in tables():
        for column in declared.login_lists:
            identifiers = {"table": declared.name, "column": column, "day": declared.partition or ""}
            rowids = [
                rowid
                for (rowid,) in run_sql(
                    conn, "privacy/select_list_naming.sql", identifiers=identifiers, login=person.login
                )
            ]
            if not rowids:
                continue
            if declared.partition is not None:
                run_sql(conn, "privacy/mark_text_rows.sql", identifiers=identifiers, rowids=rowids)
            run_sql(conn, "privacy/update_list_without.sql", identifiers=identifiers, rowids=rowids, login=person.login)
