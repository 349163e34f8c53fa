"""The receiver over real HTTP on 127.0.0.1: verification, encodings, limits, durability."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest

from pipelines.webhooks.app import ReceiverConfig, running_receiver
from pipelines.webhooks.load import load_spool
from pipelines.webhooks.segments import read_segment, segments
from pipelines.webhooks.spool import Spool
from pipelines.webhooks.verify import sign

from .conftest import REFERENCE, SECRET, deliver

ISSUE = {"action": "opened", "issue": {"number": 7}, "repository": {"full_name": "acme/widgets"}}


def _spooled_ids(spool_dir: Path) -> list[str]:
    return [s.record.delivery_id for seg in segments(spool_dir) for s in read_segment(seg)]


def _post(client: httpx.Client, body: bytes, signature: str | None, delivery_id: str = "d-1") -> httpx.Response:
    headers = {"content-type": "application/json", "x-service-event": "issues", "x-service-delivery": delivery_id}
    if signature is not None:
        headers["x-hub-signature-256"] = signature
    return client.post("/webhooks", content=body, headers=headers)


def test_valid_delivery_is_spooled_before_200(client, spool_dir):
    response = deliver(client, ISSUE, delivery_id="d-1")
    assert response.status_code == 200
    assert _spooled_ids(spool_dir) == ["d-1"]


def test_documented_signature_vector_is_accepted_and_its_negatives_refused(spool_dir):
    vector = json.loads((REFERENCE / "signature-vector.json").read_text())
    config = ReceiverConfig(secret=vector["secret"].encode(), spool_dir=spool_dir)
    body = json.dumps({"message": vector["payload"]}).encode()
    with running_receiver(config=config) as url, httpx.Client(base_url=url) as client:
        for name, digest in vector["negative_cases"].items():
            prefix = "sha1=" if name.startswith("sha1") else "sha256="
            assert _post(client, body, prefix + digest, f"neg-{name}").status_code == 401, name
        assert _spooled_ids(spool_dir) == []
        # The vector's body is not a JSON object; its signature still verifies, so the refusal is 400, not 401.
        raw = vector["payload"].encode()
        assert _post(client, raw, vector["X-Hub-Signature-256"]).status_code == 400
        assert _post(client, raw, "sha256=" + vector["negative_cases"]["trailing_newline"]).status_code == 401


def test_one_tampered_byte_is_refused_and_nothing_stored(client, spool_dir):
    body = json.dumps(ISSUE).encode()
    signature = sign(secret=SECRET, body=body)
    tampered = body.replace(b"widgets", b"widgetz")
    assert _post(client, tampered, signature).status_code == 401
    assert _spooled_ids(spool_dir) == []


def test_missing_signature_is_refused(client, spool_dir):
    assert _post(client, json.dumps(ISSUE).encode(), None).status_code == 401
    assert _spooled_ids(spool_dir) == []


def test_sha1_prefix_is_refused_even_with_the_right_digest(client, spool_dir):
    body = json.dumps(ISSUE).encode()
    digest = sign(secret=SECRET, body=body).removeprefix("sha256=")
    assert _post(client, body, "sha1=" + digest).status_code == 401
    assert _spooled_ids(spool_dir) == []


def test_wrong_secret_is_refused(client, spool_dir):
    assert deliver(client, ISSUE, delivery_id="d-1", secret=b"other").status_code == 401
    assert _spooled_ids(spool_dir) == []


def test_form_encoded_delivery_is_verified_over_the_raw_body(client, spool_dir, warehouse):
    body = urlencode({"payload": json.dumps(ISSUE)}).encode()
    headers = {
        "content-type": "application/x-www-form-urlencoded",
        "x-github-event": "issues",
        "x-github-delivery": "form-1",
        "x-hub-signature-256": sign(secret=SECRET, body=body),
    }
    assert client.post("/webhooks", content=body, headers=headers).status_code == 200
    # Signed over the decoded JSON instead of the raw form body: refused.
    headers["x-hub-signature-256"] = sign(secret=SECRET, body=json.dumps(ISSUE).encode())
    headers["x-github-delivery"] = "form-2"
    assert client.post("/webhooks", content=body, headers=headers).status_code == 401
    load_spool(warehouse, spool_dir, batch_size=10)
    rows = warehouse.execute(
        "SELECT delivery_id, event, action, repository_full_name, payload->>'$.issue.number' "
        "FROM events.webhook_deliveries"
    ).fetchall()
    assert rows == [("form-1", "issues", "opened", "acme/widgets", "7")]


def test_redelivery_is_stored_once(client, spool_dir, warehouse):
    first = deliver(client, ISSUE, delivery_id="again")
    second = deliver(client, ISSUE, delivery_id="again")
    assert (first.status_code, second.status_code) == (200, 200)
    assert (first.json()["stored"], second.json()["stored"]) == (True, False)
    assert _spooled_ids(spool_dir) == ["again"]
    assert load_spool(warehouse, spool_dir, batch_size=10).loaded == 1
    assert warehouse.execute("SELECT count(*) FROM events.webhook_deliveries").fetchone() == (1,)


def test_concurrent_redeliveries_share_one_write(client, config, spool_dir):
    body = json.dumps(ISSUE).encode()
    headers = {
        "content-type": "application/json",
        "x-service-event": "issues",
        "x-service-delivery": "same",
        "x-hub-signature-256": sign(secret=SECRET, body=body),
    }

    async def burst() -> list[int]:
        async with httpx.AsyncClient(base_url=str(client.base_url)) as http:
            answers = await asyncio.gather(*(http.post("/webhooks", content=body, headers=headers) for _ in range(20)))
        return [a.status_code for a in answers]

    assert asyncio.run(burst()) == [200] * 20
    assert _spooled_ids(spool_dir) == ["same"]


def test_oversize_body_is_refused_with_413(client, config, spool_dir):
    body = json.dumps({"action": "opened", "blob": "x" * config.max_body_bytes}).encode()
    response = _post(client, body, sign(secret=SECRET, body=body))
    assert response.status_code == 413
    assert _spooled_ids(spool_dir) == []


def test_oversize_chunked_body_without_length_is_refused_with_413(client, config, spool_dir):
    chunk = b"x" * 8192

    def chunks():
        for _ in range(config.max_body_bytes // len(chunk) + 2):
            yield chunk

    headers = {"x-service-event": "issues", "x-service-delivery": "big", "x-hub-signature-256": "sha256=00"}
    response = client.post("/webhooks", content=chunks(), headers=headers)
    assert response.status_code == 413
    assert _spooled_ids(spool_dir) == []


def test_missing_delivery_id_is_a_bad_request(client, spool_dir):
    body = json.dumps(ISSUE).encode()
    headers = {"x-service-event": "issues", "x-hub-signature-256": sign(secret=SECRET, body=body)}
    assert client.post("/webhooks", content=body, headers=headers).status_code == 400
    assert _spooled_ids(spool_dir) == []


class _FullDiskSpool(Spool):
    def _write_durably(self, blob: bytes) -> None:
        raise OSError(28, "No space left on device")


class _BrokenSpool(Spool):
    def _write_durably(self, blob: bytes) -> None:
        raise RuntimeError("unexpected")


@pytest.mark.parametrize("spool_class", [_FullDiskSpool, _BrokenSpool])
def test_spool_write_failure_answers_500_and_a_retry_succeeds_later(tmp_path, config, spool_class):
    failing = spool_class(directory=tmp_path / "full")
    with running_receiver(config=config, spool=failing) as url, httpx.Client(base_url=url) as client:
        response = deliver(client, ISSUE, delivery_id="retry-me")
        assert response.status_code == 500
        assert "No space" not in response.text and "unexpected" not in response.text
        assert SECRET.decode() not in response.text
    with running_receiver(config=config) as url, httpx.Client(base_url=url) as client:
        assert deliver(client, ISSUE, delivery_id="retry-me").status_code == 200
    assert _spooled_ids(config.spool_dir) == ["retry-me"]


def test_unusable_spool_dir_answers_500_and_healthz_503(tmp_path):
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the spool directory should be")
    config = ReceiverConfig(secret=SECRET, spool_dir=blocked)
    with running_receiver(config=config) as url, httpx.Client(base_url=url) as client:
        assert client.get("/healthz").status_code == 503
        assert deliver(client, ISSUE, delivery_id="nowhere").status_code == 500


def test_healthz_is_ready_with_a_writable_spool(client):
    assert client.get("/healthz").status_code == 200


@pytest.mark.parametrize(
    ("name", "event", "action"),
    [("push", "push", None), ("issues.opened", "issues", "opened"), ("pull_request.opened", "pull_request", "opened")],
)
def test_real_payload_lands_with_event_action_and_repository(client, spool_dir, warehouse, name, event, action):
    body = (REFERENCE / f"{name}.json").read_bytes()
    assert deliver(client, body, delivery_id=f"real-{name}", event=event).status_code == 200
    result = load_spool(warehouse, spool_dir, batch_size=10)
    assert result.repositories == {"Codertocat/Hello-World"}
    row = warehouse.execute(
        "SELECT event, action, repository_full_name, payload = CAST(? AS JSON) FROM events.webhook_deliveries",
        [body.decode()],
    ).fetchone()
    assert row == (event, action, "Codertocat/Hello-World", True)


def test_secret_never_appears_in_config_repr(config):
    assert SECRET.decode() not in repr(config)


def test_a_signed_delivery_repeating_a_key_is_refused_400_with_the_reason_and_never_spooled(client, spool_dir):
    # Python would keep the last login, DuckDB's JSON the first: the receiver and the warehouse
    # would disagree about who sent it.
    body = (
        b'{"action": "opened", "repository": {"full_name": "acme/widgets"}, '
        b'"sender": {"login": "dev-00001", "id": 1, "login": "dev-00002"}}'
    )
    response = _post(client, body, sign(secret=SECRET, body=body), "dup-1")
    assert (response.status_code, response.json()) == (
        400,
        {"message": 'duplicate key "login" at $.sender: send each key once'},
    )
    form = urlencode({"payload": body.decode()}).encode()
    response = client.post(
        "/webhooks",
        content=form,
        headers={
            "content-type": "application/x-www-form-urlencoded",
            "x-service-event": "issues",
            "x-service-delivery": "dup-2",
            "x-hub-signature-256": sign(secret=SECRET, body=form),
        },
    )
    assert response.status_code == 400 and response.json()["message"].startswith('duplicate key "login" at $.sender')
    assert deliver(client, ISSUE, delivery_id="after").status_code == 200
    assert _spooled_ids(spool_dir) == ["after"]
