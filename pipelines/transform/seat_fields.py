"""A seat of a seat listing as this project knows it (the seats extension, docs/extensions.md):
its fields, their columns and types, in one place.

One line of SEAT_FIELDS declares a field: the seat tables take its column at the next `migrate`
(nullable; `declared_columns` in schema.py), the transform lands it, and drift stops naming it.
What a seat carries beyond the declarations lands in its row's `extra` (JSON, as it came) and is
told as drift (raw.field_drift, level `seats`), as the reports' fields are. The members of the
service's user, team and organization objects that only link or identify them for its own API
(FURNITURE: URLs, node ids) are known and left to the archived listing, which keeps every seat whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import polars as pl

from pipelines.service.people import SEAT_HOLDER

__all__ = [
    "FURNITURE",
    "HOLDER_COLUMNS",
    "LISTING_KIND",
    "LISTING_LEVEL",
    "MISTYPED",
    "SEAT_COLUMNS",
    "SEAT_FIELDS",
    "SEAT_TABLES",
    "UNDECLARED",
    "beyond",
    "json_text",
]

# A seat listing's level and report kind in raw.report_files and raw.field_drift, where its
# archived file and its drift are recorded as a report file's are.
LISTING_LEVEL = "seats"
LISTING_KIND = "snapshot"

TIMESTAMP = pl.Datetime("us", "UTC")

# Wire path -> (column, type). `assignee.id` is the holder's key (user_id); under
# SEAT_HOLDER's path, every field names the person holding the seat.
SEAT_FIELDS: dict[tuple[str, ...], tuple[str, pl.DataType]] = {
    ("assignee", "id"): ("user_id", pl.Int64()),
    ("assignee", "login"): ("login", pl.String()),
    ("assignee", "type"): ("assignee_type", pl.String()),
    ("assignee", "name"): ("assignee_name", pl.String()),
    ("assignee", "email"): ("assignee_email", pl.String()),
    ("organization", "id"): ("organization_id", pl.Int64()),
    ("organization", "login"): ("organization_login", pl.String()),
    ("assigning_team", "id"): ("assigning_team_id", pl.Int64()),
    ("assigning_team", "slug"): ("assigning_team_slug", pl.String()),
    ("assigning_team", "name"): ("assigning_team_name", pl.String()),
    ("assigning_team", "type"): ("assigning_team_type", pl.String()),
    ("assigning_team", "parent", "id"): ("assigning_team_parent_id", pl.Int64()),
    ("assigning_team", "parent", "slug"): ("assigning_team_parent_slug", pl.String()),
    ("assigning_team", "parent", "name"): ("assigning_team_parent_name", pl.String()),
    ("plan_type",): ("plan_type", pl.String()),  # business, enterprise, or unknown
    ("created_at",): ("created_at", TIMESTAMP),
    ("updated_at",): ("updated_at", TIMESTAMP),
    ("pending_cancellation_date",): ("pending_cancellation_date", pl.Date()),
    ("last_activity_at",): ("last_activity_at", TIMESTAMP),
    ("last_activity_editor",): ("last_activity_editor", pl.String()),
    ("last_authenticated_at",): ("last_authenticated_at", TIMESTAMP),
}

# Members of the service's objects (user, team, organization) that link to them or identify them
# to its own API: known, never drift, kept in the archive only.
FURNITURE: frozenset[str] = frozenset(
    {
        "node_id",
        "url",
        "html_url",
        "avatar_url",
        "gravatar_id",
        "site_admin",
        "user_view_type",
        "description",
        "privacy",
        "notification_setting",
        "permission",
        "group_id",
        "ldap_dn",
        "starred_at",
    }
)
_FURNITURE_SUFFIX = "_url"  # followers_url, members_url, repositories_url, …

_HOLDER = tuple(SEAT_HOLDER.path.split("."))
# The columns naming the holder: their id, login, and the name and email their seat shows.
HOLDER_COLUMNS: tuple[str, ...] = tuple(
    column for path, (column, _) in SEAT_FIELDS.items() if path[: len(_HOLDER)] == _HOLDER
)
# A seat's columns beside its row's key (the holder's user_id is a key column of its table).
SEAT_COLUMNS: dict[str, pl.DataType] = {column: dtype for column, dtype in SEAT_FIELDS.values() if column != "user_id"}
# The tables a seat lands in, and the declared columns each carries: an unassigned seat has no holder.
SEAT_TABLES: dict[str, dict[str, pl.DataType]] = {
    "snapshots.seats": SEAT_COLUMNS,
    "snapshots.enterprise_seats": SEAT_COLUMNS,
    "snapshots.unassigned_seats": {c: t for c, t in SEAT_COLUMNS.items() if c not in HOLDER_COLUMNS},
}

UNDECLARED = "undeclared"
MISTYPED = "mistyped"


def _tree() -> dict[str, Any]:
    """The declared paths as nested objects: a leaf is its column's name."""
    tree: dict[str, Any] = {}
    for path, (column, _) in SEAT_FIELDS.items():
        node = tree
        for step in path[:-1]:
            node = node.setdefault(step, {})
        node[path[-1]] = column
    return tree


_TREE = _tree()


def beyond(seat: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str, object]]]:
    """What the seat carries beyond the declarations: its `extra` (the members as they came, under
    their objects) and each drift as (dotted path, UNDECLARED or MISTYPED, value). An object the
    seat sent as something else (a string for `assigning_team`) is mistyped and kept whole."""
    found = list(_walk(seat, _TREE, ()))
    extra: dict[str, Any] = {}
    for path, _, value in found:
        node = extra
        for step in path[:-1]:
            node = node.setdefault(step, {})
        node[path[-1]] = value
    return extra, [(".".join(path), drift, value) for path, drift, value in found]


def _walk(
    obj: Mapping[str, Any], tree: Mapping[str, Any], at: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], str, object]]:
    for name, value in obj.items():
        node = tree.get(name)
        path = (*at, name)
        if node is None:
            if at and (name in FURNITURE or name.endswith(_FURNITURE_SUFFIX)):
                continue
            yield path, UNDECLARED, value
        elif isinstance(node, dict) and value is not None:
            if isinstance(value, Mapping):
                yield from _walk(value, node, path)
            else:
                yield path, MISTYPED, value


def json_text(value: object) -> str:
    """`value` as compact JSON text (a seat's `extra`, a line of its archived listing): UTF-8 as
    it came, but a lone surrogate the service sent, which stays an escape (no UTF-8 holds it)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode()
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":"))
    return text
