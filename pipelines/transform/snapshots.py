"""Snapshot records (REST and GraphQL JSON) → typed Polars frames, one row per day and entity id.

Pure functions, no I/O. Records are the service's JSON objects; fields the tables do not keep
are ignored, and missing optional fields become NULL rather than failing the day. A record that
cannot land (not an object, no id, a value its column cannot hold) is left out alone: its place
in the listing and why go to `refused`, never its text (it may name a person), and the others land.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from typing import Any

import polars as pl

from pipelines.transform.columns import polars_types

# Each table's frame: its declaration's columns and types (pipelines/transform/columns.py).
REPOSITORIES_SCHEMA = polars_types("snapshots.repositories")
REPOSITORY_STATS_SCHEMA = polars_types("snapshots.repository_stats")
ISSUES_SCHEMA = polars_types("snapshots.issues")
ORG_MEMBERS_SCHEMA = polars_types("snapshots.org_members")
WARNINGS_SCHEMA = polars_types("snapshots.warnings")

_TIMESTAMP_COLUMNS = ("created_at", "updated_at", "pushed_at", "closed_at")


def repositories_frame(
    *, records: Iterable[Mapping[str, Any]], day: date, refused: list[str] | None = None
) -> pl.DataFrame:
    """REST repository records → `snapshots.repositories` rows (last record wins per id)."""

    def row(rec: Mapping[str, Any]) -> dict[str, Any]:
        owner = rec.get("owner") or {}
        return {
            "repository_id": rec["id"],
            "node_id": rec.get("node_id"),
            "full_name": rec["full_name"],
            "name": rec["name"],
            "owner_login": owner.get("login"),
            "owner_id": owner.get("id"),
            "description": rec.get("description"),
            "visibility": rec.get("visibility")
            or (None if rec.get("private") is None else ("private" if rec["private"] else "public")),
            "private": rec.get("private"),
            "fork": rec.get("fork"),
            "archived": rec.get("archived"),
            "default_branch": rec.get("default_branch"),
            "language": rec.get("language"),
            "size_kb": rec.get("size"),
            "stargazers_count": rec.get("stargazers_count"),
            "watchers_count": rec.get("watchers_count"),
            "forks_count": rec.get("forks_count"),
            "open_issues_count": rec.get("open_issues_count"),
            "created_at": rec.get("created_at"),
            "updated_at": rec.get("updated_at"),
            "pushed_at": rec.get("pushed_at"),
        }

    rows = _rows(records, row, what="repository", refused=refused)
    return _finish(rows, schema=REPOSITORIES_SCHEMA, day=day, key="repository_id", what="repository", refused=refused)


def issues_frame(
    *,
    records: Iterable[Mapping[str, Any]],
    day: date,
    repository_id: int,
    repository_full_name: str,
    refused: list[str] | None = None,
) -> pl.DataFrame:
    """One repository's REST issue list (issues and pull requests) → `snapshots.issues` rows."""

    def row(rec: Mapping[str, Any]) -> dict[str, Any]:
        user = rec.get("user") or {}
        return {
            "issue_id": rec["id"],
            "repository_id": repository_id,
            "repository_full_name": repository_full_name,
            "number": rec["number"],
            "title": rec.get("title"),
            "is_pull_request": rec.get("pull_request") is not None,
            "state": rec.get("state"),
            "state_reason": rec.get("state_reason"),
            "labels": _label_names(rec.get("labels")),
            "user_login": user.get("login"),
            "user_id": user.get("id"),
            "comments": rec.get("comments"),
            "created_at": rec.get("created_at"),
            "updated_at": rec.get("updated_at"),
            "closed_at": rec.get("closed_at"),
        }

    what = f"issue of {repository_full_name}"
    rows = _rows(records, row, what=what, refused=refused)
    return _finish(rows, schema=ISSUES_SCHEMA, day=day, key="issue_id", what=what, refused=refused)


def org_members_frame(
    *, records: Iterable[Mapping[str, Any]], day: date, org: str, refused: list[str] | None = None
) -> pl.DataFrame:
    """`GET /orgs/{org}/members` records → `snapshots.org_members` rows."""

    def row(rec: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "org_login": org,
            "member_id": rec["id"],
            "login": rec["login"],
            "type": rec.get("type"),
            "site_admin": rec.get("site_admin"),
        }

    what = f"member of {org}"
    rows = _rows(records, row, what=what, refused=refused)
    return _finish(rows, schema=ORG_MEMBERS_SCHEMA, day=day, key="member_id", what=what, refused=refused)


def repository_stats_frame(*, nodes: Iterable[tuple[int, str, Mapping[str, Any]]], day: date) -> pl.DataFrame:
    """(repository_id, full_name, GraphQL repository node) → `snapshots.repository_stats` rows.

    The node carries the aliased counts of `queries/repository_stats.graphql`.
    """
    rows = [
        {
            "repository_id": repository_id,
            "full_name": full_name,
            "stargazer_count": node.get("stargazerCount"),
            "fork_count": node.get("forkCount"),
            "open_issue_count": _total(node, "openIssues"),
            "issue_count": _total(node, "issues"),
            "open_pull_request_count": _total(node, "openPullRequests"),
            "pull_request_count": _total(node, "pullRequests"),
            "mentionable_user_count": _total(node, "mentionableUsers"),
            "default_branch_name": (node.get("defaultBranchRef") or {}).get("name"),
        }
        for repository_id, full_name, node in nodes
    ]
    return _finish(list(enumerate(rows)), schema=REPOSITORY_STATS_SCHEMA, day=day, key="repository_id")


def warnings_frame(*, warnings: Iterable[Mapping[str, Any]], day: date) -> pl.DataFrame:
    """Skipped repositories (repository, endpoint, status, message) → `snapshots.warnings` rows."""
    rows = [
        {
            "repository": w["repository"],
            "endpoint": w["endpoint"],
            "status": w["status"],
            "message": w["message"],
        }
        for w in warnings
    ]
    frame = _finish(list(enumerate(rows)), schema=WARNINGS_SCHEMA, day=day, key=None)
    return frame.unique(subset=["repository", "endpoint"], keep="last", maintain_order=True).sort(
        "repository", "endpoint"
    )


def concat_frames(*, frames: Sequence[pl.DataFrame], schema: Mapping[str, pl.DataType], key: str) -> pl.DataFrame:
    """Per-repository frames → one frame, still one row per entity id."""
    if not frames:
        return pl.DataFrame(schema=dict(schema))
    return pl.concat(frames, how="vertical").unique(subset=[key], keep="last", maintain_order=True).sort(key)


def _rows(
    records: Iterable[Mapping[str, Any]],
    row: Callable[[Mapping[str, Any]], dict[str, Any]],
    *,
    what: str,
    refused: list[str] | None,
) -> list[tuple[int, dict[str, Any]]]:
    """(place in the listing, row) of each record that has the fields its row needs."""
    rows = []
    for index, rec in enumerate(records):
        try:
            rows.append((index, row(rec)))
        except (KeyError, TypeError, AttributeError) as exc:
            # The record's text is not repeated: it may name a person.
            missing = f"has no {exc.args[0]!r}" if isinstance(exc, KeyError) else "is not an object of the listing"
            _refuse(refused, f"{what} {index} {missing}")
    return rows


def _refuse(refused: list[str] | None, reason: str) -> None:
    if refused is not None:
        refused.append(reason)


def _finish(
    rows: list[tuple[int, dict[str, Any]]],
    *,
    schema: Mapping[str, pl.DataType],
    day: date,
    key: str | None,
    what: str = "record",
    refused: list[str] | None = None,
) -> pl.DataFrame:
    """The rows as the table's frame; should one hold a value its column cannot, each row is
    tried alone and those that fail are left out (a rare path: the listing is whole otherwise).
    A record whose id is null has no key in its table: left out too."""
    if key is not None:
        for index, r in rows:
            if r[key] is None:
                _refuse(refused, f"{what} {index} has a null id")
        rows = [(index, r) for index, r in rows if r[key] is not None]
    try:
        return _frame([r for _, r in rows], schema=schema, day=day, key=key)
    except (pl.exceptions.PolarsError, TypeError, ValueError, OverflowError):
        kept = []
        for index, r in rows:
            try:
                _frame([r], schema=schema, day=day, key=key)
            except (pl.exceptions.PolarsError, TypeError, ValueError, OverflowError) as exc:
                _refuse(refused, f"{what} {index} holds a value its table cannot ({type(exc).__name__})")
                continue
            kept.append(r)
        return _frame(kept, schema=schema, day=day, key=key)


def _frame(
    rows: list[dict[str, Any]], *, schema: Mapping[str, pl.DataType], day: date, key: str | None
) -> pl.DataFrame:
    raw_schema = {
        name: (pl.String() if name in _TIMESTAMP_COLUMNS else dtype)
        for name, dtype in schema.items()
        if name != "snapshot_day"
    }
    frame = pl.DataFrame(rows, schema=raw_schema)
    frame = frame.with_columns(
        [pl.lit(day, dtype=pl.Date()).alias("snapshot_day")]
        + [_parse_timestamp(name) for name in _TIMESTAMP_COLUMNS if name in schema]
    ).select(list(schema))
    if key is None:
        return frame
    # A listing walked page by page can see an entity twice when it moves between pages.
    return frame.unique(subset=[key], keep="last", maintain_order=True).sort(key)


def _parse_timestamp(name: str) -> pl.Expr:
    return pl.col(name).str.to_datetime(time_unit="us", time_zone="UTC", strict=True).alias(name)


def _label_names(labels: Any) -> list[str]:
    # The REST schema allows a label to be a bare string or an object with a name.
    names = []
    for label in labels or ():
        name = label if isinstance(label, str) else (label or {}).get("name")
        if name is not None:
            names.append(name)
    return names


def _total(node: Mapping[str, Any], field: str) -> int | None:
    connection = node.get(field)
    return None if connection is None else connection.get("totalCount")
