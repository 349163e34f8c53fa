"""The conditional-request cache as a transport: validators sent, a 304 answered from the store."""

import gzip
import json

import httpx

from pipelines.service import Secret, ServiceClient, ServiceConfig, TokenAuth

BASE = "http://127.0.0.1:9"


def _config(tmp_path, token: str = "t") -> ServiceConfig:
    return ServiceConfig(
        base_url=BASE, api_version="2026-03-10", auth=TokenAuth(token=Secret(token)), etag_cache=tmp_path / "c.sqlite3"
    )


def test_a_compressed_answer_is_stored_decoded_and_a_304_serves_it(tmp_path) -> None:
    body = [{"login": "octo"}]
    seen: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("If-None-Match"))
        if request.headers.get("If-None-Match") == '"v1"':
            return httpx.Response(304, headers={"ETag": '"v1"', "x-ratelimit-remaining": "41"})
        packed = gzip.compress(json.dumps(body).encode())
        return httpx.Response(200, content=packed, headers={"ETag": '"v1"', "Content-Encoding": "gzip"})

    for _ in range(2):
        with ServiceClient(config=_config(tmp_path), transport=httpx.MockTransport(handler)) as client:
            assert client.get_json(path="/orgs/acme/members") == body
    assert seen == [None, '"v1"']
    assert client.stats.not_modified == 1 and client.budgets["core"].remaining == 41


def test_unconditional_gets_and_writes_neither_send_validators_nor_fill_the_store(tmp_path) -> None:
    seen: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("If-None-Match"))
        return httpx.Response(200, json={"ok": True}, headers={"ETag": '"v1"'})

    with ServiceClient(config=_config(tmp_path), transport=httpx.MockTransport(handler)) as client:
        for _ in range(2):
            client.get_json(path="/rate_limit", conditional=False)
            client.post_json(path="/user/repos", json={"name": "r"})
        client.get_json(path="/user")
        client.get_json(path="/user")
    with ServiceClient(config=_config(tmp_path, token="other"), transport=httpx.MockTransport(handler)) as other:
        other.get_json(path="/user")
    assert seen == [None, None, None, None, None, '"v1"', None]
