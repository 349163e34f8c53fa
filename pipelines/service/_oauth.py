"""The OAuth authorization-code flow with a loopback redirect (``oauth_login``)."""

from __future__ import annotations

import http.server
import os
import secrets
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from pipelines.service._redaction import register_secrets
from pipelines.service._secret import Secret
from pipelines.service.errors import AuthenticationFailed

__all__ = ["oauth_login"]


class _CallbackServer(http.server.HTTPServer):
    query: dict[str, list[str]] | None = None


class _CallbackHandler(http.server.BaseHTTPRequestHandler):
    server: _CallbackServer

    def do_GET(self) -> None:
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

    def log_message(self, format: str, *args: Any) -> None:
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
    # The token endpoint may echo the secret it was sent.
    register_secrets(client_secret)
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
    # Good for one exchange, which a refusing server may quote back.
    register_secrets(Secret(query["code"][0]))
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
        message: object = ""
        if isinstance(body, dict):
            message = body.get("message") or body.get("error_description") or body.get("error")
        raise AuthenticationFailed(
            method="POST",
            url=response.request.url,
            status=response.status_code,
            message=str(message or "no access_token in the answer"),
            advice="Check SERVICE_CLIENT_ID and SERVICE_CLIENT_SECRET.",
        )
    # A credential too: nothing this process shows later may repeat it.
    register_secrets(Secret(token))
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
