"""GraphQL at /graphql: the public service's names for what the contract uses, built with graphql-core
(the schema and the endpoint here; emulator/graphql_objects.py builds the objects it resolves)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from graphql import GraphQLError, build_schema, graphql_sync, parse
from graphql.language import FieldNode, OperationDefinitionNode
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from emulator.graphql_objects import actor, iso, repository, user
from emulator.state import EmulatorState

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

SCHEMA = build_schema(_SDL)


class GraphQLEndpoint:
    def __init__(self, state: EmulatorState) -> None:
        self.state = state

    async def handle(self, request: Request) -> Response:
        principal = request.scope["emulator.principal"]
        if principal.kind == "anonymous":
            return JSONResponse({"message": "This endpoint requires you to be authenticated."}, status_code=401)
        try:
            body = json.loads(await request.body())
            query = body["query"]
            variables = body.get("variables") or {}
            if not isinstance(query, str) or not isinstance(variables, dict):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            return JSONResponse(
                {
                    "errors": [
                        {"message": "Problems parsing JSON: the body needs 'query' (string) and 'variables' (object)"}
                    ]
                },
                status_code=400,
            )
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
            return actor(base, login=bot.login, path=f"/apps/{self.state.app_id}", database_id=bot.id)
        return user(base, principal.account)

    def _rate_limit(self, principal: Any) -> dict[str, Any]:
        status = self.state.limit_status(principal, "graphql")
        return {
            "cost": 1,
            "limit": status.limit,
            "remaining": max(0, status.remaining - 1),
            "used": status.used + 1,
            "resetAt": iso(datetime.fromtimestamp(status.reset, UTC)),
        }

    def _repository(self, base: str, owner: str, name: str) -> dict[str, Any]:
        repo = self.state.world.repo(owner, name)
        if repo is None:
            raise GraphQLError(
                f"Could not resolve to a Repository with the name '{owner}/{name}'.", extensions={"type": "NOT_FOUND"}
            )
        self.state.count_resolved(f"repository {owner}/{name}")
        return repository(base, repo, self.state.world.members)


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
