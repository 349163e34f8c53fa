"""A server that repeats the credentials it was sent, in every part of its answer it can.

Like a misconfigured proxy it echoes the Authorization header in the status line, a header and
the body (message, documentation URL, errors[], GraphQL errors), and the OAuth token endpoint
echoes the request body. No error text, log record, run log or Dagster storage may repeat them.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
import traceback
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from click.testing import CliRunner

from pipelines.cli import cli
from pipelines.service import (
    AppAuth,
    AuthenticationFailed,
    GraphQLError,
    PermissionDenied,
    Secret,
    ServerError,
    ServiceClient,
    ServiceConfig,
    ServiceError,
    TokenAuth,
    oauth_login,
)


class _EchoServer(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Echo)
        self.url = f"http://127.0.0.1:{self.server_port}"
        self.code = f"oauth-code-{secrets.token_hex(8)}"
        self.received: list[str] = []  # every Authorization header and request body, as sent


class _Echo(BaseHTTPRequestHandler):
    server: _EchoServer

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path == "/login/oauth/authorize":
            query = parse_qs(parts.query)
            back = urlencode({"code": self.server.code, "state": query["state"][0]})
            self._answer(302, b"", extra={"Location": f"{query['redirect_uri'][0]}?{back}"})
            return
        credential = self._credential()
        if parts.path == "/echo/403":
            # No JSON: the status line is what the client shows, so the echo goes there.
            self._answer(403, credential.encode(), reason=f"Forbidden for {credential}", kind="text/plain")
            return
        self._echo(500 if parts.path == "/echo/500" else 401, credential)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        credential = self._credential()
        self.server.received.append(body)
        if self.path == "/graphql":
            self._json(200, {"data": None, "errors": [{"message": f"no access for {credential}"}]})
        elif self.path == "/login/oauth/access_token":
            self._json(400, {"error": "bad_verification_code", "error_description": f"refused {body}"})
        else:  # the token exchange, with the app's JWT
            self._echo(401, credential)

    def _credential(self) -> str:
        credential = self.headers.get("Authorization") or ""
        self.server.received.append(credential)
        return credential

    def _echo(self, status: int, credential: str) -> None:
        self._json(
            status,
            {
                "message": f"Bad credentials: {credential}",
                "documentation_url": f"https://docs.example/auth#{credential}",
                "errors": [{"resource": "Header", "field": "Authorization", "message": credential}],
            },
            extra={"X-Echo-Authorization": credential},
        )

    def _json(self, status: int, body: dict[str, Any], extra: dict[str, str] | None = None) -> None:
        self._answer(status, json.dumps(body).encode(), extra=extra or {})

    def _answer(
        self,
        status: int,
        body: bytes,
        *,
        reason: str | None = None,
        kind: str = "application/json",
        extra: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status, reason)
        for name, value in {"Content-Type": kind, **(extra or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def echo() -> Iterator[_EchoServer]:
    server = _EchoServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    for name in ("httpx", "httpcore", "pipelines"):
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


def _shown(exc: BaseException) -> str:
    """What a console, a log or Dagster's storage can get of the error: str, repr, traceback."""
    return str(exc) + repr(exc) + repr(exc.args) + "".join(traceback.format_exception(exc))


def _raised(kind: type[ServiceError], call: Any) -> ServiceError:
    with pytest.raises(kind) as info:
        call()
    return info.value


def test_errors_and_log_records_never_repeat_a_token_the_server_echoed(echo, clock, logged) -> None:
    token = f"ghp_{secrets.token_hex(16)}"
    config = ServiceConfig(base_url=echo.url, api_version="2026-03-10", auth=TokenAuth(token=Secret(token)))
    with ServiceClient(config=config, clock=clock, sleep=clock.sleep) as client:
        errors = [
            _raised(AuthenticationFailed, lambda: client.get_json(path="/echo/401")),
            _raised(PermissionDenied, lambda: client.get_json(path="/echo/403")),
            _raised(ServerError, lambda: client.get_json(path="/echo/500")),
            _raised(GraphQLError, lambda: client.graphql(query="{ viewer { login } }")),
        ]
    assert f"Bearer {token}" in echo.received, "the server did get the token to echo"
    for exc in errors:
        assert token not in _shown(exc)
        assert "Bearer [redacted]" in str(exc)
    # The echoing response header was logged, without the token.
    assert "[redacted]" in logged.text and "X-Echo-Authorization" in logged.text
    assert token not in logged.text


def test_a_token_exchange_that_echoes_the_jwt_shows_neither_it_nor_the_key(echo, clock, logged, rsa_key_pem) -> None:
    auth = AppAuth(app_id="7", private_key=Secret(rsa_key_pem), installation_id="9", base_url=echo.url, clock=clock)
    config = ServiceConfig(base_url=echo.url, api_version="2026-03-10", auth=auth)
    with ServiceClient(config=config, clock=clock, sleep=clock.sleep) as client:
        exc = _raised(AuthenticationFailed, lambda: client.get_json(path="/orgs/acme/members"))
    jwt = next(sent for sent in echo.received if sent.startswith("Bearer ")).removeprefix("Bearer ")
    key_lines = [line for line in rsa_key_pem.splitlines() if "-----" not in line and len(line) >= 8]
    for secret in (jwt, *key_lines):
        assert secret not in _shown(exc)
        assert secret not in logged.text
    assert "Bearer [redacted]" in str(exc)


def test_a_token_endpoint_that_echoes_the_request_shows_neither_client_secret_nor_code(echo, tmp_path, logged) -> None:
    client_secret = secrets.token_hex(20)

    def browser(url: str) -> None:
        httpx.get(httpx.get(url).headers["location"])

    exc = _raised(
        AuthenticationFailed,
        lambda: oauth_login(
            oauth_url=echo.url,
            client_id="Iv1.echo",
            client_secret=Secret(client_secret),
            token_file=tmp_path / "token",
            open_browser=browser,
        ),
    )
    assert any(client_secret in sent and echo.code in sent for sent in echo.received)
    for secret in (client_secret, echo.code):
        assert secret not in _shown(exc)
        assert secret not in logged.text
    assert '"client_secret":"[redacted]"' in str(exc) and '"code":"[redacted]"' in str(exc)


def test_a_run_whose_server_echoes_the_token_keeps_it_out_of_failure_line_run_log_and_dagster(
    echo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = f"ghp_{secrets.token_hex(16)}"
    monkeypatch.chdir(tmp_path)  # no .env from the checkout
    for name in list(os.environ):
        if name.startswith(("SERVICE_", "WAREHOUSE_", "SERVING_", "METRICS_", "WEBHOOK_", "LAKE_", "RAW_", "DAGSTER_")):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    # Dagster's resources read the token from the environment (dg.EnvVar), as a deployment does.
    for name, value in {"SERVICE_BASE_URL": echo.url, "SERVICE_TOKEN": token, "SERVICE_ORG": "acme"}.items():
        monkeypatch.setenv(name, value)
    yesterday = (datetime.now(UTC) - timedelta(days=1)).date().isoformat()

    result = CliRunner().invoke(cli, ["--home", str(home), "run", "--day", yesterday, "--no-latest", "--no-snapshots"])

    assert result.exit_code == 1, result.output
    assert f"Bearer {token}" in echo.received
    failure_line = result.stderr.strip()
    assert failure_line.startswith("metrics-etl run: ") and "\n" not in failure_line
    assert "AuthenticationFailed" in failure_line and "Bad credentials: Bearer [redacted]" in failure_line
    assert token not in result.output
    # Every file of the run: its log under logs/ and Dagster's run storage (event log, runs).
    kept = {path: path.read_bytes() for path in home.rglob("*") if path.is_file()}
    assert [path for path in kept if path.parent.name == "logs" and b"Bearer [redacted]" in kept[path]]
    assert [path for path in kept if path.suffix == ".db" and b"Bearer [redacted]" in kept[path]]
    assert not [path for path, content in kept.items() if token.encode() in content]
