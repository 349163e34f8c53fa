"""GraphQL partial answers and the Actor interface, over loopback in both dialects."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import jwt
import pytest

from emulator import EmulatorConfig, RunningEmulator, running_emulator

BATCH = """query {
  r0: repository(owner: "acme", name: "atlas") { name }
  r1: repository(owner: "acme", name: "ghost") { name }
  r2: repository(owner: "acme", name: "beacon") { name }
}"""

AUTHORS = """query($n: String!) { repository(owner: "acme", name: $n) {
  issues(first: 100) { nodes { number author { __typename login url resourcePath avatarUrl(size: 40)
    ... on User { databaseId } ... on Bot { id databaseId } } } }
  pullRequests(first: 100) { nodes { number author { login ... on Bot { id } } } }
} }"""


@pytest.fixture(params=["service", "github"])
def emu(request) -> Iterator[RunningEmulator]:
    with running_emulator(
        EmulatorConfig(seed=3, users=4, repos=3, issues_per_repo=2, dialect=request.param)
    ) as running:
        yield running


def _client(emu: RunningEmulator, token: str) -> httpx.Client:
    return httpx.Client(base_url=emu.base_url, headers={"Authorization": f"Bearer {token}"})


def _installation_token(emu: RunningEmulator) -> str:
    now = int(time.time())
    claims = {"iat": now - 60, "exp": now + 540, "iss": str(emu.credentials["app_id"])}
    app_jwt = jwt.encode(claims, Path(emu.credentials["app_private_key_path"]).read_text(), algorithm="RS256")
    url = f"{emu.base_url}/app/installations/{emu.credentials['installation_id']}/access_tokens"
    response = httpx.post(url, headers={"Authorization": f"Bearer {app_jwt}"})
    assert response.status_code == 201
    return response.json()["token"]


def test_a_missing_repository_in_a_batch_is_null_with_a_not_found_error_while_the_others_resolve(emu):
    with _client(emu, emu.credentials["token"]) as owner:
        response = owner.post("/graphql", json={"query": BATCH})

    assert response.status_code == 200
    body = response.json()
    assert body["data"] == {"r0": {"name": "atlas"}, "r1": None, "r2": {"name": "beacon"}}
    assert body["errors"] == [
        {
            "type": "NOT_FOUND",
            "path": ["r1"],
            "locations": [{"line": 3, "column": 3}],
            "message": "Could not resolve to a Repository with the name 'acme/ghost'.",
        }
    ]


def test_a_deleted_repository_answers_404_on_rest_and_not_found_in_graphql(emu):
    assert emu.delete_repository(full_name="acme/beacon")["full_name"] == "acme/beacon"
    with _client(emu, emu.credentials["token"]) as owner:
        rest = owner.get("/repos/acme/beacon")
        names = [r["name"] for r in owner.get("/orgs/acme/repos").json()]
        body = owner.post("/graphql", json={"query": BATCH}).json()

    assert rest.status_code == 404 and "beacon" not in names
    assert body["data"]["r0"] == {"name": "atlas"} and body["data"]["r2"] is None
    assert [(e["type"], e["path"]) for e in body["errors"]] == [("NOT_FOUND", ["r1"]), ("NOT_FOUND", ["r2"])]
    with pytest.raises(httpx.HTTPStatusError):
        emu.delete_repository(full_name="acme/beacon")


def test_authors_are_actors_a_user_or_an_apps_bot_told_apart_by_inline_fragments(emu):
    with _client(emu, _installation_token(emu)) as installation:
        opened = installation.post(
            "/repos/acme/atlas/pulls", json={"title": "Bump deps", "head": "deps", "base": "main"}
        )
    assert opened.status_code == 201
    assert (opened.json()["user"]["login"], opened.json()["user"]["type"]) == (
        f"app-{emu.credentials['app_id']}[bot]",
        "Bot",
    )

    with _client(emu, emu.credentials["token"]) as owner:
        body = owner.post("/graphql", json={"query": AUTHORS, "variables": {"n": "atlas"}}).json()

    assert "errors" not in body
    repo = body["data"]["repository"]
    people = [n["author"] for n in repo["issues"]["nodes"]]
    assert people and all(a["__typename"] == "User" and isinstance(a["databaseId"], int) for a in people)
    assert all(a["url"] == f"{emu.base_url}/{a['login']}" and a["avatarUrl"].endswith("?s=40") for a in people)
    bot_login = f"app-{emu.credentials['app_id']}"
    bots = [n["author"] for n in repo["pullRequests"]["nodes"] if n["number"] == opened.json()["number"]]
    assert bots == [{"login": bot_login, "id": f"BOT_{emu.credentials['app_id']}"}]
