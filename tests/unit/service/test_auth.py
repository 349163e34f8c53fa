from collections.abc import Mapping
from typing import Any

import jwt
import pytest

from pipelines.config import Secret
from pipelines.service.auth import AppAuth, TokenAuth
from pipelines.service.errors import ConfigError


def test_app_jwt_has_the_spec_claims(clock, rsa_pem) -> None:
    private, public = rsa_pem
    auth = AppAuth(app_id="42", private_key=Secret(private), installation_id="7", clock=clock)
    claims = jwt.decode(auth.make_jwt(), public, algorithms=["RS256"], options={"verify_exp": False, "verify_iat": False})
    now = int(clock())
    assert claims == {"iat": now - 60, "exp": now - 60 + 600, "iss": "42"}
    assert jwt.get_unverified_header(auth.make_jwt())["alg"] == "RS256"


def test_installation_token_is_exchanged_once_and_renewed_before_expiry(clock, rsa_pem) -> None:
    private, _ = rsa_pem
    seen: list[str] = []

    def exchange(app_jwt: str) -> Mapping[str, Any]:
        seen.append(app_jwt)
        return {"token": f"inst-{len(seen)}", "expires_at": _iso(clock() + 3600)}

    auth = AppAuth(app_id="42", private_key=Secret(private), installation_id="7", clock=clock, renew_before=300)
    headers = {auth.authorization(exchange=exchange) for _ in range(50)}
    assert headers == {"Bearer inst-1"} and auth.exchanges == 1
    clock.now += 3600 - 301
    assert auth.authorization(exchange=exchange) == "Bearer inst-1"
    clock.now += 2
    assert auth.authorization(exchange=exchange) == "Bearer inst-2"
    assert auth.exchanges == 2


def test_identity_is_a_hash_not_the_token() -> None:
    auth = TokenAuth(token=Secret("ghp_secret_value"))
    assert "ghp_secret_value" not in auth.identity + repr(auth)
    assert auth.identity == TokenAuth(token=Secret("ghp_secret_value")).identity
    assert auth.identity != TokenAuth(token=Secret("other")).identity


def test_a_bad_private_key_says_so_without_quoting_it(clock) -> None:
    auth = AppAuth(app_id="1", private_key=Secret("not-a-key-SECRETBYTES"), installation_id="2", clock=clock)
    with pytest.raises(ConfigError) as info:
        auth.make_jwt()
    assert "SECRETBYTES" not in str(info.value)


def _iso(epoch: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(epoch, tz=UTC).isoformat().replace("+00:00", "Z")
