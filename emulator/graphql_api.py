"""GraphQL at /graphql: the public service's names for what the contract uses, built with graphql-core."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from typing import Any

from graphql import GraphQLError, build_schema, graphql_sync, parse
from graphql.language import FieldNode, OperationDefinitionNode
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from emulator.state import EmulatorState
from emulator.world_records import Issue, Repository

_SDL = """
scalar DateTime
scalar URI

enum IssueState { OPEN CLOSED }
enum PullRequestState { OPEN CLOSED MERGED }
enum IssueOrderField { CREATED_AT UPDATED_AT COMMENTS }
enum OrderDirection { ASC DESC }

input IssueOrder { field: IssueOrderField!  direction: OrderDirection! }

type PageInfo { hasNextPage: Boolean!  hasPreviousPage: Boolean!  endCursor: String  startCursor: String }

# `author` is the Actor interface, as in the public schema: a person or an app's bot.
interface Actor { avatarUrl(size: Int): URI!  login: String!  resourcePath: URI!  url: URI! }
type User implements Actor {
  avatarUrl(size: Int): URI!  databaseId: Int  login: String!  resourcePath: URI!  url: URI!
}
type Bot implements Actor {
  avatarUrl(size: Int): URI!  databaseId: Int  id: ID!  login: String!  resourcePath: URI!  url: URI!
}

type RepositoryOwner { login: String!  url: URI! }

type Issue {
  id: ID!  databaseId: Int  number: Int!  title: String!  state: IssueState!
  createdAt: DateTime!  updatedAt: DateTime!  closedAt: DateTime  author: Actor
}
type IssueConnection { nodes: [Issue]  totalCount: Int!  pageInfo: PageInfo! }

type PullRequest {
  id: ID!  databaseId: Int  number: Int!  title: String!  state: PullRequestState!
  createdAt: DateTime!  updatedAt: DateTime!  closedAt: DateTime  author: Actor
  headRefName: String!  baseRefName: String!
}
type PullRequestConnection { nodes: [PullRequest]  totalCount: Int!  pageInfo: PageInfo! }

type UserConnection { nodes: [User]  totalCount: Int!  pageInfo: PageInfo! }

type Ref { name: String! }

type Repository {
  id: ID!  databaseId: Int  name: String!  nameWithOwner: String!  description: String
  owner: RepositoryOwner!  isPrivate: Boolean!  createdAt: DateTime!
  stargazerCount: Int!  forkCount: Int!
  issues(first: Int, last: Int, after: String, states: [IssueState!], orderBy: IssueOrder): IssueConnection!
  pullRequests(first: Int, last: Int, after: String, states: [PullRequestState!],
               orderBy: IssueOrder): PullRequestConnection!
  mentionableUsers(first: Int, after: String): UserConnection!
  defaultBranchRef: Ref
}

type RateLimit { cost: Int!  limit: Int!  remaining: Int!  used: Int!  resetAt: DateTime! }

type Query {
  repository(owner: String!, name: String!): Repository
  viewer: User!
  rateLimit(dryRun: Boolean = false): RateLimit
}
"""

_MAX_FIRST = 100
SCHEMA = build_schema(_SDL)


def _iso(moment: datetime) -> str:
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


def _connection(items: list[Any], *, first: int | None, last: int | None, after: str | None,
                field: str) -> dict[str, Any]:
    for name, value in (("first", first), ("last", last)):
        if value is not None and not 0 <= value <= _MAX_FIRST:
            raise GraphQLError(f"Requesting {value} records on the `{field}` connection exceeds "
                               f"the `{name}` limit of {_MAX_FIRST} records.")
    start = _offset(after)
    if last is not None and first is None:
        start = max(start, len(items) - last)
    count = first if first is not None else (last if last is not None else _MAX_FIRST)
    window = items[start:start + count]
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


class GraphQLEndpoint:
    def __init__(self, state: EmulatorState) -> None:
        self.state = state

    async def handle(self, request: Request) -> Response:
        principal = request.scope["emulator.principal"]
        if principal.kind == "anonymous":
            return JSONResponse({"message": "This endpoint requires you to be authenticated."},
                                status_code=401)
        try:
            body = json.loads(await request.body())
            query = body["query"]
            variables = body.get("variables") or {}
            if not isinstance(query, str) or not isinstance(variables, dict):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"errors": [{"message": "Problems parsing JSON: the body needs "
                                                        "'query' (string) and 'variables' (object)"}]},
                                status_code=400)
        limit = self.state.faults.graphql_max_aliases
        if limit is not None and _repository_fields(query) > limit:
            self.state.count_fault("graphql_too_big")
            return JSONResponse({"message": "Bad Gateway: the query took too long"}, status_code=502)
        base = str(request.base_url).rstrip("/")
        root = {
            "repository": lambda info, owner, name: self._repository(base, owner, name),
            "viewer": lambda info: self._viewer(base, principal),
            "rateLimit": lambda info, dryRun=False: self._rate_limit(principal),
        }
        with self.state.world.lock:
            result = graphql_sync(SCHEMA, query, root_value=root, variable_values=variables)
        payload: dict[str, Any] = {}
        if result.errors:
            payload["errors"] = [_error(e) for e in result.errors]
        if result.data is not None or not result.errors:
            payload["data"] = result.data
        return JSONResponse(payload)

    def _viewer(self, base: str, principal: Any) -> dict[str, Any]:
        if principal.account is None:
            bot = self.state.bot
            return _actor(base, login=bot.login, path=f"/apps/{self.state.app_id}", database_id=bot.id)
        return _user(base, principal.account)

    def _rate_limit(self, principal: Any) -> dict[str, Any]:
        status = self.state.limit_status(principal, "graphql")
        return {"cost": 1, "limit": status.limit, "remaining": max(0, status.remaining - 1),
                "used": status.used + 1,
                "resetAt": _iso(datetime.fromtimestamp(status.reset, UTC))}

    def _repository(self, base: str, owner: str, name: str) -> dict[str, Any]:
        repo = self.state.world.repo(owner, name)
        if repo is None:
            raise GraphQLError(f"Could not resolve to a Repository with the name '{owner}/{name}'.",
                               extensions={"type": "NOT_FOUND"})
        self.state.count_resolved(f"repository {owner}/{name}")
        return _repository(base, repo, self.state.world.members)


def _actor(base: str, *, login: str, path: str, database_id: int) -> dict[str, Any]:
    avatar = f"{base}/avatars/{login}"
    return {
        "__typename": "User", "login": login, "databaseId": database_id, "url": f"{base}{path}",
        "resourcePath": path,
        "avatarUrl": lambda info, size=None: avatar if size is None else f"{avatar}?s={size}",
    }


def _user(base: str, account: Any) -> dict[str, Any]:
    """A User, or a Bot for an app's account (`__typename` picks the Actor's type)."""
    if account.type == "Bot":
        # The public schema's Bot login drops the REST login's "[bot]" suffix.
        slug = account.login.removesuffix("[bot]")
        return _actor(base, login=slug, path=f"/apps/{slug}", database_id=account.id) | {
            "__typename": "Bot", "id": f"BOT_{account.id}"}
    return _actor(base, login=account.login, path=f"/{account.login}", database_id=account.id)


def _issue(base: str, issue: Issue) -> dict[str, Any]:
    return {
        "id": f"I_{issue.id}", "databaseId": issue.id, "number": issue.number, "title": issue.title,
        "state": issue.state.upper(), "createdAt": _iso(issue.created_at),
        "updatedAt": _iso(issue.updated_at),
        "closedAt": _iso(issue.closed_at) if issue.closed_at else None,
        "author": _user(base, issue.user), "headRefName": issue.head, "baseRefName": issue.base,
    }


def _ordered(items: list[Issue], states: list[str] | None, order: dict[str, str] | None) -> list[Issue]:
    wanted = {s.lower() for s in states} if states else None
    chosen = [i for i in items if wanted is None or i.state in wanted]
    if order:
        attribute = "updated_at" if order["field"] == "UPDATED_AT" else "created_at"
        chosen.sort(key=lambda i: (getattr(i, attribute), i.number),
                    reverse=order["direction"] == "DESC")
    return chosen


def _repository(base: str, repo: Repository, members: list[Any]) -> dict[str, Any]:
    def issues(info: Any, first: int | None = None, last: int | None = None, after: str | None = None,
               states: list[str] | None = None, orderBy: dict[str, str] | None = None) -> dict[str, Any]:
        chosen = _ordered([i for i in repo.issues if not i.is_pull], states, orderBy)
        page = _connection(chosen, first=first, last=last, after=after, field="issues")
        return page | {"nodes": [_issue(base, i) for i in page["nodes"]]}

    def pull_requests(info: Any, first: int | None = None, last: int | None = None,
                      after: str | None = None, states: list[str] | None = None,
                      orderBy: dict[str, str] | None = None) -> dict[str, Any]:
        chosen = _ordered([i for i in repo.issues if i.is_pull], states, orderBy)
        page = _connection(chosen, first=first, last=last, after=after, field="pullRequests")
        return page | {"nodes": [_issue(base, i) for i in page["nodes"]]}

    def mentionable(info: Any, first: int | None = None, after: str | None = None) -> dict[str, Any]:
        people = members if repo.owner.type == "Organization" else [repo.owner]
        page = _connection(people, first=first, last=None, after=after, field="mentionableUsers")
        return page | {"nodes": [_user(base, m) for m in page["nodes"]]}

    return {
        "id": f"R_{repo.id}", "databaseId": repo.id, "name": repo.name,
        "nameWithOwner": repo.full_name, "description": repo.description,
        "owner": {"login": repo.owner.login, "url": f"{base}/{repo.owner.login}"},
        "isPrivate": repo.private, "createdAt": _iso(repo.created_at),
        "stargazerCount": repo.stargazers, "forkCount": repo.forks,
        "issues": issues, "pullRequests": pull_requests, "mentionableUsers": mentionable,
        "defaultBranchRef": {"name": "main"},
    }


def _error(error: GraphQLError) -> dict[str, Any]:
    out: dict[str, Any] = {"message": error.message}
    if error.path:
        out["path"] = list(error.path)
    if error.locations:
        out["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    if error.extensions and "type" in error.extensions:
        out["type"] = error.extensions["type"]
    return out


def _repository_fields(query: str) -> int:
    """How many `repository` fields (aliased or not) the query's operations ask for at the top."""
    try:
        document = parse(query)
    except GraphQLError:
        return 0
    return sum(
        1
        for definition in document.definitions
        if isinstance(definition, OperationDefinitionNode)
        for selection in definition.selection_set.selections
        if isinstance(selection, FieldNode) and selection.name.value == "repository"
    )
