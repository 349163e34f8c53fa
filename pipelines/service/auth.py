"""Credentials as ``httpx.Auth`` flows: a personal/OAuth token, or an app installation.

An :class:`AppAuth` signs a JWT with the app's key and exchanges it for an installation token
from inside its own auth flow (the exchange request is yielded like any other), reuses that
token until shortly before ``expires_at``, and exchanges anew, once, when the service refuses
it with a 401 (a token can be revoked before its expiry). A failed exchange ends the flow with
the exchange's own answer, so the client maps it to an error like any other answer.

Each flow registers every credential it holds or makes (token, key, JWT, installation token)
with the redactor before sending it, so no error text or log record can repeat it.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Generator
from datetime import datetime

import httpx

from pipelines.service._redaction import register_secrets
from pipelines.service._secret import Secret
from pipelines.service.errors import ConfigError, MalformedResponse, ServiceError, redact_url

__all__ = ["AppAuth", "TokenAuth"]

JWT_BACKDATE_SECONDS = 60
JWT_LIFETIME_SECONDS = 600
# Assumed lifetime when the exchange answer carries no expires_at (the public service: 1 hour).
_DEFAULT_TOKEN_LIFETIME = 3600.0

_Flow = Generator[httpx.Request, httpx.Response, None]


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


class TokenAuth(httpx.Auth):
    """A personal access token or an OAuth access token."""

    def __init__(self, *, token: Secret) -> None:
        self._token = token
        register_secrets(token)
        # A stable hash naming who is asking (keys the ETag cache); never the secret.
        self.identity = _digest("token", token.reveal())

    def auth_flow(self, request: httpx.Request) -> _Flow:
        request.headers["Authorization"] = f"Bearer {self._token.reveal()}"
        yield request

    def __repr__(self) -> str:
        return f"TokenAuth(identity={self.identity!r})"


class AppAuth(httpx.Auth):
    """An app installation: signs a JWT, exchanges it at ``base_url``, caches the installation token."""

    def __init__(
        self,
        *,
        app_id: str,
        private_key: Secret,
        installation_id: str,
        base_url: str,
        clock: Callable[[], float] = time.time,
        renew_before: float = 300.0,
    ) -> None:
        self.app_id = app_id
        self.installation_id = installation_id
        self._private_key = private_key
        register_secrets(private_key)
        self._exchange_url = f"{base_url.rstrip('/')}/app/installations/{installation_id}/access_tokens"
        self._clock = clock
        self._renew_before = renew_before
        self._token: Secret | None = None
        self._expires_at = 0.0
        # Held across the exchange, so threads sharing a client wait for one exchange, not start many.
        self._lock = threading.Lock()
        self.exchanges = 0
        self.identity = _digest("app", app_id, installation_id)

    def __repr__(self) -> str:
        return f"AppAuth(app_id={self.app_id!r}, installation_id={self.installation_id!r})"

    def make_jwt(self) -> str:
        """RS256 JWT: ``iat`` 60 s in the past, ``exp`` 10 minutes after ``iat``, ``iss`` the app id.

        Counting the 10 minutes from ``iat`` (not from now) keeps ``exp - iat`` within the limit
        however strictly a server reads "10 minutes after issue".
        """
        # Imported here: PyJWT loads the cryptography library (~10 MB resident), which only an
        # app's token needs; a process on a personal or OAuth token (every report's ingest) goes
        # without it.
        import jwt

        issued = int(self._clock()) - JWT_BACKDATE_SECONDS
        claims = {"iat": issued, "exp": issued + JWT_LIFETIME_SECONDS, "iss": self.app_id}
        try:
            token = jwt.encode(claims, self._private_key.reveal(), algorithm="RS256")
        except (ValueError, TypeError, jwt.PyJWTError):
            # The library's message may quote the key material: say only what is wrong.
            raise ConfigError("the app private key is not a valid RSA PEM key") from None
        # A credential for its 10 minutes: an exchange that echoes it must not show it.
        register_secrets(Secret(token))
        return token

    def sync_auth_flow(self, request: httpx.Request) -> _Flow:
        # Overridden whole (not auth_flow) so httpx closes this very generator, releasing the lock.
        for attempt in (1, 2):
            with self._lock:
                if self._token is None or self._clock() >= self._expires_at - self._renew_before:
                    answer = yield self._exchange_request(like=request)
                    answer.read()
                    if answer.status_code >= 400:
                        return
                    self._accept(answer)
                used = self._token
                assert used is not None
            request.headers["Authorization"] = f"Bearer {used.reveal()}"
            response = yield request
            if response.status_code != 401 or attempt == 2:
                return
            with self._lock:
                # Unless another thread has exchanged meanwhile, the next round exchanges anew.
                if self._token is used:
                    self._token = None

    def _exchange_request(self, *, like: httpx.Request) -> httpx.Request:
        # The exchange speaks the dialect and API version of the request it authenticates.
        headers = {
            name: value
            for name, value in like.headers.items()
            if name in ("accept", "user-agent") or name.endswith("-api-version")
        }
        headers["Authorization"] = f"Bearer {self.make_jwt()}"
        return httpx.Request("POST", self._exchange_url, headers=headers)

    def _accept(self, answer: httpx.Response) -> None:
        where = f"POST {redact_url(self._exchange_url)}"
        try:
            body = answer.json()
        except ValueError:
            raise MalformedResponse(
                method="POST",
                url=self._exchange_url,
                status=answer.status_code,
                message="the installation token answer is not JSON",
                advice="Check SERVICE_BASE_URL: a proxy or login page may be answering instead of the API.",
            ) from None
        token = body.get("token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token:
            raise ServiceError(f"{where}: the installation token answer carried no token")
        self._token = Secret(token)
        register_secrets(self._token)
        self._expires_at = _parse_expiry(body.get("expires_at"), fallback=self._clock() + _DEFAULT_TOKEN_LIFETIME)
        self.exchanges += 1


def _parse_expiry(value: object, *, fallback: float) -> float:
    if not isinstance(value, str):
        return fallback
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return fallback
