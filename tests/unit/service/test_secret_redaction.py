"""The secrets redactor: what it replaces, where, and what it leaves alone.

The registry is the process's, so each test registers values of its own that no other text
of the suite can hold.
"""

import logging
import pickle
import secrets
import traceback

import httpx
import pytest

from pipelines.service import (
    AppAuth,
    ErrorDetail,
    GraphQLError,
    GraphQLNotFound,
    PermissionDenied,
    RequestFailed,
    Secret,
    ServiceClient,
    ServiceConfig,
    ServiceError,
    TokenAuth,
    TransportFailed,
    register_secrets,
)
from pipelines.service._redaction import install_log_redaction, redact_secrets

BASE = "http://127.0.0.1:9"


def _unique(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(8)}"


def _client(handler, *, auth: TokenAuth | AppAuth, clock) -> ServiceClient:
    config = ServiceConfig(base_url=BASE, api_version="2026-03-10", auth=auth)
    return ServiceClient(config=config, clock=clock, sleep=clock.sleep, transport=httpx.MockTransport(handler))


def _everything_shown(exc: BaseException) -> str:
    """Every way the error is read: str, repr, args, a traceback, and its pickle (what crosses processes)."""
    return "\n".join(
        [str(exc), repr(exc), repr(exc.args), "".join(traceback.format_exception(exc)), str(pickle.dumps(exc))]
    )


def test_a_registered_secret_is_replaced_in_every_text_an_error_holds() -> None:
    secret = _unique("the-token")
    register_secrets(Secret(secret))
    echo = f"Authorization: Bearer {secret}"
    failed = RequestFailed(
        method="GET",
        url=f"http://h/x?page=1&q={secret}",
        status=401,
        message=f"refused {echo}",
        advice=echo,
        documentation_url=f"https://docs.example/{secret}",
        details=(ErrorDetail(resource=secret, field=secret, code=secret, message=echo),),
    )
    graphql = GraphQLNotFound(url="http://h/graphql", messages=(echo,), data={"a": None}, not_found={("a",): echo})
    errors: list[ServiceError] = [
        failed,
        graphql,
        GraphQLError(url="http://h/graphql", messages=(echo,)),
        TransportFailed(method="GET", url="http://h/x", reason=echo),
        ServiceError(f"GET http://h/x did not answer a JSON array: {echo}"),
    ]
    failed.advise(f"later advice quoting {secret}")
    for exc in errors:
        assert secret not in _everything_shown(exc)
        assert "[redacted]" in str(exc)
    held = [
        failed.message,
        failed.advice,
        failed.url,
        failed.documentation_url or "",
        *map(str, failed.details),
        *graphql.messages,
        *graphql.not_found.values(),
    ]
    assert not [text for text in held if secret in text]
    assert "Bearer [redacted]" in failed.message


def test_a_secret_shorter_than_eight_characters_is_replaced_only_as_a_credential() -> None:
    register_secrets(Secret("k7Q"))
    assert redact_secrets("Authorization: Bearer k7Q") == "Authorization: Bearer [redacted]"
    assert redact_secrets('{"header": "token k7Q"}') == '{"header": "token [redacted]"}'
    # Elsewhere it is an ordinary piece of text, and a longer credential is another value.
    assert redact_secrets("page k7Q of 9, token k7Qx") == "page k7Q of 9, token k7Qx"


def test_every_line_of_a_registered_pem_key_is_replaced_but_not_its_armor(rsa_pem) -> None:
    pem = rsa_pem[0]
    register_secrets(Secret(pem))
    body = [line for line in pem.splitlines() if "-----" not in line]
    assert redact_secrets(pem).split() == ["[redacted]"]
    for line in body[1:-1]:
        assert redact_secrets(f"the proxy saw {line}!") == "the proxy saw [redacted]!"
    assert redact_secrets("-----BEGIN PRIVATE KEY-----") == "-----BEGIN PRIVATE KEY-----"


def test_the_application_registers_secrets_the_client_never_sees_and_unset_ones_are_skipped() -> None:
    # A webhook secret is any text: characters that mean something to a regular expression too.
    webhook = _unique("wh+s3cret/.*(=")
    register_secrets(None, Secret(webhook), None)
    exc = ServiceError(f"the server repeated {webhook}")
    assert str(exc) == "the server repeated [redacted]"


def test_the_http_stack_log_records_lose_registered_secrets(caplog: pytest.LogCaptureFixture) -> None:
    secret = _unique("logged-token")
    register_secrets(Secret(secret))
    install_log_redaction()
    caplog.set_level(logging.DEBUG, logger="httpcore.http11")
    logging.getLogger("httpcore.http11").debug(
        "receive_response_headers.complete return_value=%r", [(b"X-Echo", f"Bearer {secret}".encode())]
    )
    assert caplog.records and "[redacted]" in caplog.records[0].getMessage()
    assert secret not in caplog.text


def test_token_auth_registers_its_token_so_an_echo_of_it_is_never_shown(clock) -> None:
    token = _unique("ghp")

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"message": f"Bad credentials: {request.headers['Authorization']}"})

    auth = TokenAuth(token=Secret(token))
    with _client(handler, auth=auth, clock=clock) as client, pytest.raises(ServiceError) as info:
        client.get_json(path="/user")
    assert token not in _everything_shown(info.value)
    assert "Bad credentials: Bearer [redacted]" in str(info.value)


def test_app_auth_registers_the_installation_token_it_receives(clock, rsa_pem) -> None:
    installation_token = _unique("ghs")

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/access_tokens"):
            return httpx.Response(201, json={"token": installation_token, "expires_at": "2099-01-01T00:00:00Z"})
        return httpx.Response(403, json={"message": f"denied to {request.headers['Authorization']}"})

    auth = AppAuth(app_id="1", private_key=Secret(rsa_pem[0]), installation_id="9", base_url=BASE, clock=clock)
    with _client(handler, auth=auth, clock=clock) as client, pytest.raises(PermissionDenied) as info:
        client.get_json(path="/orgs/acme/members")
    assert installation_token not in _everything_shown(info.value)
    assert "denied to Bearer [redacted]" in str(info.value)
