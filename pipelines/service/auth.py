"""Credentials: a personal/OAuth token, an app (JWT → installation token), the OAuth login.

An :class:`AppAuth` exchanges its JWT once and reuses the installation token until shortly
before ``expires_at``; the exchange itself is done by the client (it owns the HTTP session),
which passes a callable in, so this module stays free of retry and transport concerns.
"""

from __future__ import annotations

import hashlib
import http.server
import os
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import jwt

from pipelines.service._secret import Secret
from pipelines.service.errors import AuthenticationFailed, ConfigError, ServiceError

JWT_BACKDATE_SECONDS = 60
JWT_LIFETIME_SECONDS = 600
# Assumed lifetime when the exchange answer carries no expires_at (the public service: 1 hour).
_DEFAULT_TOKEN_LIFETIME = 3600.0

Exchange = Callable[[str], Mapping[str, Any]]


class Credentials(Protocol):
    @property
    def identity(self) -> str:
        """A stable hash naming who is asking (keys the ETag cache); never the secret."""
        ...

    def authorization(self, *, exchange: Exchange) -> str:
        """The value of the Authorization header for the next request."""
        ...


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


class TokenAuth:
    """A personal access token or an OAuth access token."""

    def __init__(self, *, token: Secret) -> None:
        self._token = token
        self.identity = _digest("token", token.reveal())

    def authorization(self, *, exchange: Exchange) -> str:
        return f"Bearer {self._token.reveal()}"

    def __repr__(self) -> str:
        return f"TokenAuth(identity={self.identity!r})"


class AppAuth:
    """An app installation: signs a JWT, exchanges it, caches the installation token."""

    def __init__(
        self,
        *,
        app_id: str,
        private_key: Secret,
        installation_id: str,
        clock: Callable[[], float] = time.time,
        renew_before: float = 300.0,
    ) -> None:
        self.app_id = app_id
        self.installation_id = installation_id
        self._private_key = private_key
        self._clock = clock
        self._renew_before = renew_before
        self._token: Secret | None = None
        self._expires_at = 0.0
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
        issued = int(self._clock()) - JWT_BACKDATE_SECONDS
        claims = {"iat": issued, "exp": issued + JWT_LIFETIME_SECONDS, "iss": self.app_id}
        try:
            return jwt.encode(claims, self._private_key.reveal(), algorithm="RS256")
        except (ValueError, TypeError, jwt.PyJWTError):
            # The library's message may quote the key material: say only what is wrong.
            raise ConfigError("the app private key is not a valid RSA PEM key") from None

    def authorization(self, *, exchange: Exchange) -> str:
        with self._lock:
            if self._token is None or self._clock() >= self._expires_at - self._renew_before:
                self._renew(exchange)
            assert self._token is not None
            return f"Bearer {self._token.reveal()}"

    def invalidate(self) -> bool:
        """Forget the installation token (the service refused it); True if one was cached."""
        with self._lock:
            had = self._token is not None
            self._token = None
            return had

    def _renew(self, exchange: Exchange) -> None:
        answer = exchange(self.make_jwt())
        token = answer.get("token")
        if not isinstance(token, str) or not token:
            raise ServiceError("the installation token answer carried no token")
        self._token = Secret(token)
        self._expires_at = _parse_expiry(answer.get("expires_at"), fallback=self._clock() + _DEFAULT_TOKEN_LIFETIME)
        self.exchanges += 1


def _parse_expiry(value: object, *, fallback: float) -> float:
    if not isinstance(value, str):
        return fallback
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return fallback


# --- OAuth authorization-code flow with a loopback redirect ---------------------------------


class _CallbackServer(http.server.HTTPServer):
    query: dict[str, list[str]] | None = None


class _CallbackHandler(http.server.BaseHTTPRequestHandler):
    server: _CallbackServer

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        parts = urlsplit(self.path)
        if parts.path != "/callback":
            self.send_error(404)
            return
        self.server.query = parse_qs(parts.query)
        body = b"metrics-etl: authorization received, you can close this window.\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        # The request line carries the authorization code: never log it.
        return


def oauth_login(
    *,
    oauth_url: str,
    client_id: str,
    client_secret: Secret,
    token_file: Path,
    open_browser: Callable[[str], object],
    timeout: float = 300.0,
    transport: httpx.BaseTransport | None = None,
) -> Path:
    """Run the authorization-code flow on a one-shot loopback server; store the token 0600.

    ``open_browser`` receives the authorize URL (the CLI opens a browser or prints it; tests
    follow it with httpx). Returns the token file's path; the token itself is never returned
    to the caller's output paths.
    """
    server = _CallbackServer(("127.0.0.1", 0), _CallbackHandler)
    server.timeout = timeout
    redirect_uri = f"http://127.0.0.1:{server.server_address[1]}/callback"
    state = secrets.token_urlsafe(16)
    authorize = f"{oauth_url.rstrip('/')}/login/oauth/authorize?" + urlencode(
        {"client_id": client_id, "redirect_uri": redirect_uri, "state": state}
    )
    waiter = threading.Thread(target=server.handle_request, name="oauth-callback", daemon=True)
    try:
        waiter.start()
        open_browser(authorize)
        waiter.join(timeout)
    finally:
        server.server_close()
    query = server.query or {}
    if query.get("state", [""])[0] != state or not query.get("code"):
        raise AuthenticationFailed(
            method="GET",
            url=redirect_uri,
            status=400,
            message="the authorization did not come back with a matching state and a code",
            advice="Run `metrics-etl login` again and approve the request in the browser.",
        )
    with httpx.Client(transport=transport, timeout=30.0) as http:
        response = http.post(
            f"{oauth_url.rstrip('/')}/login/oauth/access_token",
            json={
                "client_id": client_id,
                "client_secret": client_secret.reveal(),
                "code": query["code"][0],
                "redirect_uri": redirect_uri,
            },
            headers={"Accept": "application/json"},
        )
    body = response.json() if response.headers.get("content-type", "").startswith("application/json") else {}
    token = body.get("access_token") if isinstance(body, dict) else None
    if response.status_code != 200 or not isinstance(token, str) or not token:
        message = body.get("message") or body.get("error_description") or body.get("error") if isinstance(body, dict) else ""
        raise AuthenticationFailed(
            method="POST",
            url=response.request.url,
            status=response.status_code,
            message=str(message or "no access_token in the answer"),
            advice="Check SERVICE_CLIENT_ID and SERVICE_CLIENT_SECRET.",
        )
    _write_private(token_file, token)
    return token_file


def _write_private(path: Path, text: str) -> None:
    """Write owner-only (0600) from the first byte: the file never exists world-readable."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, text.encode())
    finally:
        os.close(fd)
    os.replace(tmp, path)
