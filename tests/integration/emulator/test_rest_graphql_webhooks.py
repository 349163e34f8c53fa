from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import httpx
import pytest

from emulator import FaultSpec
from emulator.crypto import webhook_signature

# The public service's published example (its "Validating webhook deliveries" page), and digests
# of the usual mistakes: a trailing newline on the body, key and body swapped, SHA-1.
VECTOR = {
    "secret": "It's a Secret to Everybody",
    "payload": "Hello, World!",
    "X-Hub-Signature-256": "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
    "negative_cases": {
        "trailing_newline": "8fde2e970f9163923fb1cb61bb945626ff2b4091d87e622ee3ad600160592325",
        "key_msg_swapped": "fbbb3050757eb201dfe71ce11bc9eed4418c7d6ff080b10192186a7cef7d4560",
        "sha1_header_algo": "01dc10d0c83e72ed246219cdd91669667fe2ca59",
    },
}


def test_signature_matches_the_public_vector():
    signature = webhook_signature(secret=VECTOR["secret"], body=VECTOR["payload"].encode())
    assert signature == VECTOR["X-Hub-Signature-256"]
    assert signature.removeprefix("sha256=") not in VECTOR["negative_cases"].values()


def test_repository_record_carries_public_fields(owner):
    repo = owner.get("/repos/acme/atlas").json()
    assert repo["full_name"] == "acme/atlas" and repo["owner"]["login"] == "acme"
    assert {"id", "name", "description", "stargazers_count", "forks_count", "default_branch"} <= set(repo)


def test_unknown_repository_answers_404_with_message(owner):
    response = owner.get("/repos/acme/nope")
    assert response.status_code == 404 and response.json() == {"message": "Not Found"}


def test_issue_pages_follow_link_headers_to_an_empty_page(owner):
    seen, url = [], "/repos/acme/atlas/issues?state=all&per_page=7&page=1"
    while url:
        response = owner.get(url)
        seen += response.json()
        url = httpx.Response(200, headers={"link": response.headers.get("link", "")}).links.get("next", {}).get("url")
    assert len(seen) == 30 and len({i["number"] for i in seen}) == 30
    assert owner.get("/repos/acme/atlas/issues", params={"state": "all", "page": 99}).json() == []
    assert any("pull_request" in i for i in seen) and any("pull_request" not in i for i in seen)


def test_state_filter_defaults_to_open(owner):
    open_ = owner.get("/repos/acme/atlas/issues", params={"per_page": 100}).json()
    closed = owner.get("/repos/acme/atlas/issues", params={"per_page": 100, "state": "closed"}).json()
    assert {i["state"] for i in open_} == {"open"} and {i["state"] for i in closed} == {"closed"}
    assert len(open_) + len(closed) == 30
    assert all(i["closed_at"] for i in closed)


def test_org_members_and_repos_are_listed(owner, emu):
    assert len(owner.get("/orgs/acme/members", params={"per_page": 100}).json()) == 40
    names = [r["name"] for r in owner.get("/orgs/acme/repos").json()]
    assert len(names) == 6 and "atlas" in names


def test_graphql_aliased_repositories_and_connections(owner):
    query = """query($o: String!) {
      a: repository(owner: $o, name: "atlas") { name stargazerCount forkCount
        issues(first: 3, states: [OPEN], orderBy: {field: CREATED_AT, direction: DESC}) {
          totalCount nodes { number state } pageInfo { hasNextPage endCursor } }
        pullRequests(first: 1) { totalCount }
        mentionableUsers { totalCount } defaultBranchRef { name } }
      b: repository(owner: $o, name: "beacon") { name }
      viewer { login } rateLimit { cost remaining resetAt } }"""
    body = owner.post("/graphql", json={"query": query, "variables": {"o": "acme"}}).json()
    assert "errors" not in body
    data = body["data"]
    assert (data["a"]["name"], data["b"]["name"]) == ("atlas", "beacon")
    rest_open = owner.get("/repos/acme/atlas/issues", params={"per_page": 100}).json()
    assert data["a"]["issues"]["totalCount"] == sum(1 for i in rest_open if "pull_request" not in i)
    assert {n["state"] for n in data["a"]["issues"]["nodes"]} == {"OPEN"}
    assert data["a"]["mentionableUsers"]["totalCount"] == 40
    assert data["viewer"]["login"] == "acme-admin" and data["rateLimit"]["cost"] == 1
    cursor = data["a"]["issues"]["pageInfo"]["endCursor"]
    after = owner.post(
        "/graphql",
        json={
            "query": '{ repository(owner: "acme", name: "atlas") '
            f'{{ issues(first: 3, after: "{cursor}", states: [OPEN], orderBy: '
            "{field: CREATED_AT, direction: DESC}) { nodes { number } } } }"
        },
    ).json()
    first_numbers = {n["number"] for n in data["a"]["issues"]["nodes"]}
    assert not first_numbers & {n["number"] for n in after["data"]["repository"]["issues"]["nodes"]}


def test_graphql_failures_answer_an_errors_array(owner):
    missing = owner.post("/graphql", json={"query": '{ repository(owner: "acme", name: "nope") { name } }'})
    assert "Could not resolve" in missing.json()["errors"][0]["message"]
    invalid = owner.post("/graphql", json={"query": "{ repository { nosuchfield } }"})
    assert invalid.json()["errors"] and all("message" in e for e in invalid.json()["errors"])


def test_graphql_schema_is_introspectable(owner):
    body = owner.post("/graphql", json={"query": '{ __type(name: "Repository") { fields { name } } }'}).json()
    names = {f["name"] for f in body["data"]["__type"]["fields"]}
    assert {"stargazerCount", "forkCount", "issues", "pullRequests", "mentionableUsers"} <= names


def test_graphql_too_many_repositories_answers_502(fresh):
    fresh.set_faults(FaultSpec(graphql_max_aliases=2))
    headers = {"Authorization": f"bearer {fresh.credentials['token']}"}
    aliases = " ".join(f'r{i}: repository(owner: "acme", name: "atlas") {{ name }}' for i in range(3))
    assert (
        httpx.post(fresh.base_url + "/graphql", headers=headers, json={"query": f"{{ {aliases} }}"}).status_code == 502
    )
    two = " ".join(f'r{i}: repository(owner: "acme", name: "atlas") {{ name }}' for i in range(2))
    assert httpx.post(fresh.base_url + "/graphql", headers=headers, json={"query": f"{{ {two} }}"}).status_code == 200


class _Receiver(BaseHTTPRequestHandler):
    received: list[tuple[dict[str, str], bytes]]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        self.server.received.append(({k.lower(): v for k, v in self.headers.items()}, body))  # type: ignore[attr-defined]
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    server.received = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _wait_for(fresh, count: int) -> list[dict]:
    for _ in range(200):
        log = fresh.stats()["deliveries"]
        if len(log) >= count:
            return log
        threading.Event().wait(0.05)
    raise AssertionError(f"only {len(fresh.stats()['deliveries'])} of {count} deliveries arrived")


def test_creations_deliver_signed_events(fresh, receiver):
    url = f"http://127.0.0.1:{receiver.server_address[1]}/hook"
    fresh.add_hook(url=url, secret="s3cret", content_type="json")
    fresh.add_hook(url=url, secret="other", content_type="form", events=("issues",))
    client = httpx.Client(base_url=fresh.base_url, headers={"Authorization": f"token {fresh.credentials['token']}"})
    issue = client.post("/repos/acme/atlas/issues", json={"title": "t", "body": "b", "labels": ["bug"]})
    pull = client.post("/repos/acme/atlas/pulls", json={"title": "p", "head": "f", "base": "main", "body": ""})
    repo = client.post("/user/repos", json={"name": "fresh-repo", "auto_init": True})
    assert (issue.status_code, pull.status_code, repo.status_code) == (201, 201, 201)
    _wait_for(fresh, 4)
    by_kind = {}
    for headers, body in receiver.received:
        secret = "s3cret" if headers["content-type"] == "application/json" else "other"
        assert headers["x-hub-signature-256"] == webhook_signature(secret=secret, body=body)
        assert headers["x-service-delivery"]
        payload = json.loads(parse_qs(body.decode())["payload"][0]) if secret == "other" else json.loads(body)
        by_kind.setdefault(headers["x-service-event"], []).append(payload)
    assert {p["issue"]["number"] for p in by_kind["issues"]} == {issue.json()["number"]}
    assert len(by_kind["issues"]) == 2
    assert by_kind["pull_request"][0]["pull_request"]["number"] == pull.json()["number"]
    assert by_kind["push"][0]["repository"]["full_name"] == "acme-admin/fresh-repo"
    assert by_kind["push"][0]["commits"]
