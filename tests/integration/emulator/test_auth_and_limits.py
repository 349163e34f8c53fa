from __future__ import annotations

import time
from pathlib import Path

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from emulator import FaultSpec

REPORT = "/orgs/acme/assistant/metrics/reports/organization-28-day/latest"


def _app_jwt(emu, *, key=None, iat_offset=-60, lifetime=600, iss=None) -> str:
    key = key or Path(emu.credentials["app_private_key_path"]).read_text()
    now = int(time.time())
    claims = {
        "iat": now + iat_offset,
        "exp": now + iat_offset + lifetime,
        "iss": str(iss if iss is not None else emu.credentials["app_id"]),
    }
    return jwt.encode(claims, key, algorithm="RS256")


def _installation_url(emu) -> str:
    return f"{emu.base_url}/app/installations/{emu.credentials['installation_id']}/access_tokens"


def test_both_token_schemes_authenticate(emu):
    for scheme in ("token", "Bearer"):
        response = httpx.get(emu.base_url + "/user", headers={"Authorization": f"{scheme} {emu.credentials['token']}"})
        assert response.json()["login"] == "acme-admin"


def test_bad_token_answers_401_with_message(emu):
    response = httpx.get(emu.base_url + "/user", headers={"Authorization": "token nope"})
    assert response.status_code == 401 and response.json()["message"] == "Bad credentials"


def test_app_jwt_buys_an_installation_token_that_reads_reports(emu):
    response = httpx.post(_installation_url(emu), headers={"Authorization": f"Bearer {_app_jwt(emu)}"})
    assert response.status_code == 201
    body = response.json()
    expires_in = time.mktime(time.strptime(body["expires_at"], "%Y-%m-%dT%H:%M:%SZ")) - time.mktime(time.gmtime())
    assert 3500 < expires_in <= 3600
    meta = httpx.get(emu.base_url + REPORT, headers={"Authorization": f"token {body['token']}"})
    assert meta.status_code == 200 and meta.json()["download_links"]


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"key": rsa.generate_private_key(public_exponent=65537, key_size=2048)}, "signature"),
        ({"lifetime": 1200}, "too far"),
        ({"iat_offset": -1200}, "expired"),
        ({"iss": 999}, "iss"),
    ],
    ids=["bad_signature", "exp_too_far", "expired", "wrong_iss"],
)
def test_bad_app_jwt_answers_401_with_message(emu, kwargs, words):
    response = httpx.post(_installation_url(emu), headers={"Authorization": f"Bearer {_app_jwt(emu, **kwargs)}"})
    assert response.status_code == 401
    assert words in response.json()["message"]


def test_oauth_code_flow_gives_a_working_token(emu):
    c = emu.credentials
    redirect = "http://127.0.0.1:9/callback"
    authorize = httpx.get(
        f"{c['oauth_url']}/login/oauth/authorize",
        params={"client_id": c["client_id"], "redirect_uri": redirect, "state": "s1"},
    )
    assert authorize.status_code == 302
    location = httpx.URL(authorize.headers["location"])
    assert str(location).startswith(redirect) and location.params["state"] == "s1"
    token = httpx.post(
        f"{c['oauth_url']}/login/oauth/access_token",
        headers={"Accept": "application/json"},
        json={
            "client_id": c["client_id"],
            "client_secret": c["client_secret"],
            "code": location.params["code"],
            "redirect_uri": redirect,
        },
    ).json()
    user = httpx.get(emu.base_url + "/user", headers={"Authorization": f"token {token['access_token']}"})
    assert user.json()["login"] == "acme-admin"


def test_member_without_metrics_permission_gets_403_saying_why(emu):
    response = httpx.get(emu.base_url + REPORT, headers={"Authorization": f"token {emu.credentials['limited_token']}"})
    assert response.status_code == 403
    assert "owner" in response.json()["message"] and "metrics permission" in response.json()["message"]
    assert int(response.headers["x-ratelimit-remaining"]) > 0


def test_policy_off_gets_403_saying_so(fresh):
    fresh.set_policy(scope="organization", name="acme", enabled=False)
    response = httpx.get(fresh.base_url + REPORT, headers={"Authorization": f"token {fresh.credentials['token']}"})
    assert response.status_code == 403 and "policy is disabled" in response.json()["message"]


def test_unsupported_api_version_answers_400(emu):
    response = httpx.get(
        emu.base_url + "/user",
        headers={"Authorization": f"token {emu.credentials['token']}", "X-Service-Api-Version": "2020-01-01"},
    )
    assert response.status_code == 400 and "2026-03-10" in response.json()["message"]
    ok = httpx.get(
        emu.base_url + "/user",
        headers={
            "Authorization": f"token {emu.credentials['token']}",
            "X-Service-Api-Version": "2026-03-10",
            "Accept": "application/vnd.service.v3+json",
        },
    )
    assert ok.status_code == 200


def test_unsupported_accept_answers_415(emu):
    response = httpx.get(emu.base_url + "/user", headers={"Accept": "text/html"})
    assert response.status_code == 415


def test_rate_limit_headers_on_every_api_response_and_rate_limit_is_free(fresh):
    headers = {"Authorization": f"token {fresh.credentials['token']}"}
    first = httpx.get(fresh.base_url + "/user", headers=headers)
    assert {h: first.headers[h] for h in ("x-ratelimit-limit", "x-ratelimit-used")} == {
        "x-ratelimit-limit": "20",
        "x-ratelimit-used": "1",
    }
    body = httpx.get(fresh.base_url + "/rate_limit", headers=headers).json()
    again = httpx.get(fresh.base_url + "/rate_limit", headers=headers).json()
    assert body["resources"]["core"]["used"] == again["resources"]["core"]["used"] == 1
    assert body["rate"]["remaining"] == 19


def test_not_modified_answer_does_not_count(fresh):
    headers = {"Authorization": f"token {fresh.credentials['token']}"}
    first = httpx.get(fresh.base_url + "/repos/acme/atlas", headers=headers)
    second = httpx.get(fresh.base_url + "/repos/acme/atlas", headers=headers | {"If-None-Match": first.headers["etag"]})
    assert second.status_code == 304
    assert second.headers["x-ratelimit-used"] == first.headers["x-ratelimit-used"] == "1"


def test_spent_budget_answers_403_with_remaining_zero(fresh):
    headers = {"Authorization": f"token {fresh.credentials['token']}"}
    statuses = [httpx.get(fresh.base_url + "/user", headers=headers).status_code for _ in range(21)]
    assert statuses[:20] == [200] * 20
    last = httpx.get(fresh.base_url + "/user", headers=headers)
    assert last.status_code == 403 and last.headers["x-ratelimit-remaining"] == "0"
    assert int(last.headers["x-ratelimit-reset"]) > time.time()


def test_unauthenticated_calls_have_the_lower_limit(fresh):
    response = httpx.get(fresh.base_url + "/repos/acme/atlas")
    assert response.status_code == 200 and response.headers["x-ratelimit-limit"] == "5"
    assert httpx.get(fresh.base_url + REPORT).status_code == 401


def test_spend_rate_limit_fault_empties_every_budget(fresh):
    fresh.set_faults(FaultSpec(spend_rate_limit_for_seconds=120))
    response = httpx.get(fresh.base_url + "/user", headers={"Authorization": f"token {fresh.credentials['token']}"})
    assert response.status_code == 403 and response.headers["x-ratelimit-remaining"] == "0"
    assert int(response.headers["x-ratelimit-reset"]) >= time.time() + 100


def test_secondary_limit_answers_403_with_retry_after_and_budget_left(fresh):
    fresh.set_faults(FaultSpec(secondary_limit_rate=1.0))
    response = httpx.get(fresh.base_url + "/user", headers={"Authorization": f"token {fresh.credentials['token']}"})
    assert response.status_code == 403 and response.headers["retry-after"] == "60"
    assert response.headers["x-ratelimit-remaining"] != "0"
    assert "secondary" in response.json()["message"]
