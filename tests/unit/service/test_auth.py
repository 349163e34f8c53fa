import subprocess
import sys

import httpx
import jwt
import pytest

from pipelines.service import AppAuth, ConfigError, Secret, TokenAuth

BASE = "http://127.0.0.1:9"


def test_app_jwt_has_the_spec_claims(clock, rsa_pem) -> None:
    private, public = rsa_pem
    auth = AppAuth(app_id="42", private_key=Secret(private), installation_id="7", base_url=BASE, clock=clock)
    claims = jwt.decode(
        auth.make_jwt(), public, algorithms=["RS256"], options={"verify_exp": False, "verify_iat": False}
    )
    now = int(clock())
    assert claims == {"iat": now - 60, "exp": now - 60 + 600, "iss": "42"}
    assert jwt.get_unverified_header(auth.make_jwt())["alg"] == "RS256"


def test_installation_token_is_exchanged_once_and_renewed_before_expiry(clock, rsa_pem) -> None:
    private, _ = rsa_pem
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/app/installations/7/access_tokens":
            seen.append(request.headers["Authorization"])
            return httpx.Response(201, json={"token": f"inst-{len(seen)}", "expires_at": _iso(clock() + 3600)})
        return httpx.Response(200, json={"used": request.headers["Authorization"]})

    auth = AppAuth(
        app_id="42", private_key=Secret(private), installation_id="7", base_url=BASE, clock=clock, renew_before=300
    )
    with httpx.Client(transport=httpx.MockTransport(handler), auth=auth) as http:

        def header() -> str:
            return http.get(f"{BASE}/user").json()["used"]

        assert {header() for _ in range(50)} == {"Bearer inst-1"} and auth.exchanges == 1
        clock.now += 3600 - 301
        assert header() == "Bearer inst-1"
        clock.now += 2
        assert header() == "Bearer inst-2"
    assert auth.exchanges == 2
    assert all(value.startswith("Bearer ey") for value in seen), "the exchange is authorized by the app's JWT"


def test_token_auth_sets_the_authorization_header() -> None:
    flow = TokenAuth(token=Secret("tok-1")).sync_auth_flow(httpx.Request("GET", f"{BASE}/user"))
    assert next(flow).headers["Authorization"] == "Bearer tok-1"


def test_identity_is_a_hash_not_the_token() -> None:
    auth = TokenAuth(token=Secret("ghp_secret_value"))
    assert "ghp_secret_value" not in auth.identity + repr(auth)
    assert auth.identity == TokenAuth(token=Secret("ghp_secret_value")).identity
    assert auth.identity != TokenAuth(token=Secret("other")).identity


def test_a_bad_private_key_says_so_without_quoting_it(clock) -> None:
    auth = AppAuth(
        app_id="1", private_key=Secret("not-a-key-SECRETBYTES"), installation_id="2", base_url=BASE, clock=clock
    )
    with pytest.raises(ConfigError) as info:
        auth.make_jwt()
    assert "SECRETBYTES" not in str(info.value)


def _iso(epoch: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(epoch, tz=UTC).isoformat().replace("+00:00", "Z")


def test_a_report_s_ingest_on_a_token_never_loads_the_app_token_library() -> None:
    # PyJWT brings the cryptography library (~10 MB resident), which only an app's token needs:
    # every ingest process on a token would carry it into its peak RSS (docs/benchmarks.md).
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; import pipelines.config, pipelines.ingest, pipelines.warehouse; "
            "print(sorted({'jwt', 'cryptography'} & set(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert loaded == "[]"
