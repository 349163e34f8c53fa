"""The objects the GraphQL endpoint (emulator/graphql_api.py) resolves, in the public schema's
names: a repository with its issue, pull request and mentionable-user connections (cursor
paging, the public service's limits and errors), and the actors (a user or an app's bot)."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Any

from graphql import GraphQLError

from emulator.world_records import Issue, Repository

_MAX_FIRST = 100


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _cursor(offset: int) -> str:
    return base64.b64encode(f"cursor:v2:{offset}".encode()).decode()


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    try:
        return int(base64.b64decode(cursor).decode().rsplit(":", 1)[1]) + 1
    except (ValueError, IndexError) as exc:
        raise GraphQLError(f"`{cursor}` does not appear to be a valid cursor.") from exc


def _connection(
    items: list[Any], *, first: int | None, last: int | None, after: str | None, field: str
) -> dict[str, Any]:
    for name, value in (("first", first), ("last", last)):
        if value is not None and not 0 <= value <= _MAX_FIRST:
            raise GraphQLError(
                f"Requesting {value} records on the `{field}` connection exceeds "
                f"the `{name}` limit of {_MAX_FIRST} records."
            )
    start = _offset(after)
    if last is not None and first is None:
        start = max(start, len(items) - last)
    count = first if first is not None else (last if last is not None else _MAX_FIRST)
    window = items[start : start + count]
    end = start + len(window)
    return {
        "nodes": window,
        "totalCount": len(items),
        "pageInfo": {
            "hasNextPage": end < len(items),
            "hasPreviousPage": start > 0,
            "startCursor": _cursor(start) if window else None,
            "endCursor": _cursor(end - 1) if window else None,
        },
    }


def actor(base: str, *, login: str, path: str, database_id: int) -> dict[str, Any]:
    avatar = f"{base}/avatars/{login}"
    return {
        "__typename": "User",
        "login": login,
        "databaseId": database_id,
        "url": f"{base}{path}",
        "resourcePath": path,
        "avatarUrl": lambda info, size=None: avatar if size is None else f"{avatar}?s={size}",
    }


def user(base: str, account: Any) -> dict[str, Any]:
    """A User, or a Bot for an app's account (`__typename` picks the Actor's type)."""
    if account.type == "Bot":
        # The public schema's Bot login drops the REST login's "[bot]" suffix.
        slug = account.login.removesuffix("[bot]")
        return actor(base, login=slug, path=f"/apps/{slug}", database_id=account.id) | {
            "__typename": "Bot",
            "id": f"BOT_{account.id}",
        }
    return actor(base, login=account.login, path=f"/{account.login}", database_id=account.id)


def _issue(base: str, issue: Issue) -> dict[str, Any]:
    return {
        "id": f"I_{issue.id}",
        "databaseId": issue.id,
        "number": issue.number,
        "title": issue.title,
        "state": issue.state.upper(),
        "createdAt": iso(issue.created_at),
        "updatedAt": iso(issue.updated_at),
        "closedAt": iso(issue.closed_at) if issue.closed_at else None,
        "author": user(base, issue.user),
        "headRefName": issue.head,
        "baseRefName": issue.base,
    }


def _ordered(items: list[Issue], states: list[str] | None, order: dict[str, str] | None) -> list[Issue]:
    wanted = {s.lower() for s in states} if states else None
    chosen = [i for i in items if wanted is None or i.state in wanted]
    if order:
        attribute = "updated_at" if order["field"] == "UPDATED_AT" else "created_at"
        chosen.sort(key=lambda i: (getattr(i, attribute), i.number), reverse=order["direction"] == "DESC")
    return chosen


def repository(base: str, repo: Repository, members: list[Any]) -> dict[str, Any]:
    def issues(
        info: Any,
        first: int | None = None,
        last: int | None = None,
        after: str | None = None,
        states: list[str] | None = None,
        orderBy: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        chosen = _ordered([i for i in repo.issues if not i.is_pull], states, orderBy)
        page = _connection(chosen, first=first, last=last, after=after, field="issues")
        return page | {"nodes": [_issue(base, i) for i in page["nodes"]]}

    def pull_requests(
        info: Any,
        first: int | None = None,
        last: int | None = None,
        after: str | None = None,
        states: list[str] | None = None,
        orderBy: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        chosen = _ordered([i for i in repo.issues if i.is_pull], states, orderBy)
        page = _connection(chosen, first=first, last=last, after=after, field="pullRequests")
        return page | {"nodes": [_issue(base, i) for i in page["nodes"]]}

    def mentionable(info: Any, first: int | None = None, after: str | None = None) -> dict[str, Any]:
        people = members if repo.owner.type == "Organization" else [repo.owner]
        page = _connection(people, first=first, last=None, after=after, field="mentionableUsers")
        return page | {"nodes": [user(base, m) for m in page["nodes"]]}

    return {
        "id": f"R_{repo.id}",
        "databaseId": repo.id,
        "name": repo.name,
        "nameWithOwner": repo.full_name,
        "description": repo.description,
        "owner": {"login": repo.owner.login, "url": f"{base}/{repo.owner.login}"},
        "isPrivate": repo.private,
        "createdAt": iso(repo.created_at),
        "stargazerCount": repo.stargazers,
        "forkCount": repo.forks,
        "issues": issues,
        "pullRequests": pull_requests,
        "mentionableUsers": mentionable,
        "defaultBranchRef": {"name": "main"},
    }
