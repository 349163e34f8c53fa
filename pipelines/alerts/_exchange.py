"""One exchange with one channel under one deadline: an incoming webhook's POST, or an SMTP
conversation. Each raises `Unanswered` when the deadline passes (saying whether the message had
gone out whole), `Refused` when the channel answers no, and whatever the network raises else.
"""

from __future__ import annotations

import asyncio
import contextlib
import smtplib
import socket
import ssl
import threading
from collections.abc import Coroutine
from email.message import EmailMessage
from typing import Any

import httpx

from pipelines.alerts._config import EmailTarget, WebhookTarget
from pipelines.alerts._message import Alert

__all__ = ["Refused", "Unanswered", "mail", "post"]

_BODY_CHARS = 120  # a refusal's body says why (Slack: `invalid_token`); more would be noise
_BODY_BYTES = 4096  # read of a refusal's body, at most
# A channel's answers that say "later": its other refusals (a wrong key, a removed hook) stay refusals.
_LATER = frozenset({408, 425, 429})
_GRACE = 2.0  # seconds an exchange cut at its deadline has to unwind


class Refused(Exception):
    """The channel answered, and not with success."""

    def __init__(self, message: str, *, later: bool) -> None:
        super().__init__(message)
        self.later = later


class Unanswered(Exception):
    """The deadline passed, or the channel hung up, before its answer: after the message went
    out whole (`sent`: it may have arrived, so it is not sent again), or before."""

    def __init__(self, timeout: float, *, sent: bool, hung_up: bool = False) -> None:
        what = "sent; no answer" if sent else "no exchange completed"
        super().__init__(f"{what}: the channel hung up" if hung_up else f"{what} within {timeout:g} s")
        self.sent = sent


def post(target: WebhookTarget, alert: Alert, *, timeout: float) -> None:
    """The alert to an incoming webhook, within `timeout` seconds in all."""
    _run(_post(target, alert, timeout=timeout), timeout=timeout)


def _run(exchange: Coroutine[Any, Any, None], *, timeout: float) -> None:
    """Run the exchange on an event loop of its own, in a daemon thread waited for at most
    `timeout` and a grace: what the loop's own deadline cannot cancel (a host name resolved in a
    worker thread, which closing the loop would wait for) cannot hold the caller either."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(exchange)
        except BaseException as exc:  # handed to the caller's thread, which decides
            failure.append(exc)

    worker = threading.Thread(target=run, name="alert-webhook", daemon=True)
    worker.start()
    worker.join(timeout + _GRACE)
    if worker.is_alive():
        raise Unanswered(timeout, sent=False)
    if failure:
        raise failure[0]


async def _post(target: WebhookTarget, alert: Alert, *, timeout: float) -> None:
    """One POST under one deadline: cancelled, connection and all, when it passes."""
    sent = False
    status: int | None = None
    said = b""

    async def trace(event: str, info: dict[str, Any]) -> None:
        nonlocal sent
        if event == "http11.send_request_body.complete":
            sent = True

    try:
        async with asyncio.timeout(timeout), httpx.AsyncClient(timeout=timeout) as client:
            request = client.build_request(
                "POST", target.url.reveal(), json={"text": alert.text()}, extensions={"trace": trace}
            )
            response = await client.send(request, stream=True)
            try:
                status = response.status_code
                # The start of a refusal's body is all it says; an endless one is never read whole.
                if not response.is_success:
                    async for chunk in response.aiter_raw():
                        said += chunk
                        if len(said) >= _BODY_BYTES:
                            break
            finally:
                await response.aclose()
    except (TimeoutError, httpx.TimeoutException):
        # The deadline, or httpx's own per-operation timeout inside it: the same outcome, unless
        # the answer's status came (a refusal whose body trickles is a refusal).
        if status is None:
            raise Unanswered(timeout, sent=sent) from None
    except httpx.TransportError:
        # Hung up (or reset) after taking the alert whole: it may have arrived; sent again, it
        # would arrive twice. Hung up in a refusal's body: a refusal.
        if status is None and sent:
            raise Unanswered(timeout, sent=True, hung_up=True) from None
        if status is None:
            raise
    if status is not None and not 200 <= status < 300:
        later = status in _LATER or status >= 500
        text = " ".join(said.decode("utf-8", errors="replace").split())
        raise Refused(f"HTTP {status} {text[:_BODY_CHARS]}".rstrip(), later=later)


class _Watched:
    """What the SMTP worker thread exposes to the deadline: the raw socket, and whether the
    message went out whole."""

    def __init__(self) -> None:
        self.sock: socket.socket | None = None
        self.sent = False


def _smtp_class(base: type[smtplib.SMTP], watched: _Watched) -> type[smtplib.SMTP]:
    class Watched(base):  # type: ignore[valid-type,misc]
        def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
            # The plain socket, before any TLS: shutting it down ends every read of the exchange.
            watched.sock = socket.create_connection((host, port), timeout, self.source_address)
            if isinstance(self, smtplib.SMTP_SSL):
                wrapped: socket.socket = self.context.wrap_socket(watched.sock, server_hostname=self._host)
                return wrapped
            return watched.sock

        def send(self, s: bytes | str) -> None:
            super().send(s)
            if isinstance(s, bytes) and s.endswith(b"\r\n.\r\n"):  # the message's last line
                watched.sent = True

    return Watched


def mail(target: EmailTarget, alert: Alert, *, timeout: float) -> None:
    """The SMTP exchange in a thread of its own; at the deadline its socket is shut down, which
    ends whatever read or write it waits in."""
    watched = _Watched()
    failure: list[BaseException] = []

    def exchange() -> None:
        try:
            _smtp_exchange(target, alert, timeout=timeout, watched=watched)
        except BaseException as exc:  # handed to the caller's thread, which decides
            failure.append(exc)

    worker = threading.Thread(target=exchange, name="alert-smtp", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        if watched.sock is not None:
            with contextlib.suppress(OSError):  # already closed: the worker is ending on its own
                watched.sock.shutdown(socket.SHUT_RDWR)
        worker.join(_GRACE)
        raise Unanswered(timeout, sent=watched.sent)
    if failure:
        if watched.sent and isinstance(failure[0], (smtplib.SMTPServerDisconnected, OSError)):
            # The message went out whole and the server hung up before its answer: it may have
            # arrived; sent again, it would arrive twice.
            raise Unanswered(timeout, sent=True, hung_up=True)
        raise failure[0]


def _smtp_exchange(target: EmailTarget, alert: Alert, *, timeout: float, watched: _Watched) -> None:
    message = EmailMessage()
    message["Subject"], message["From"], message["To"] = alert.subject, target.sender, ", ".join(target.recipients)
    message.set_content(alert.text())
    context = ssl.create_default_context()
    # Made without a host, so that nothing connects before the class that watches the socket.
    smtp = (
        _smtp_class(smtplib.SMTP_SSL, watched)(timeout=timeout, context=context)  # type: ignore[call-arg]
        if target.tls == "smtps"
        else _smtp_class(smtplib.SMTP, watched)(timeout=timeout)
    )
    try:
        smtp.connect(target.host, target.port)
        with smtp:
            smtp.ehlo()
            secure = target.tls == "smtps"
            if not secure and smtp.has_extn("starttls"):
                smtp.starttls(context=context)
                smtp.ehlo()
                secure = True
            if target.user is not None and target.password is not None:
                if not secure and not target.on_loopback:
                    raise Refused(
                        "the server offers no STARTTLS: the password is not sent in clear; use smtps://", later=False
                    )
                smtp.login(target.user, target.password.reveal())
            smtp.send_message(message)
    except smtplib.SMTPResponseException as exc:
        # 4xx: the server says later; 5xx: it refuses (a wrong password, this message).
        said = exc.smtp_error.decode(errors="replace") if isinstance(exc.smtp_error, bytes) else str(exc.smtp_error)
        problem = f"SMTP {exc.smtp_code} {' '.join(said.split())[:_BODY_CHARS]}"
        raise Refused(problem, later=exc.smtp_code < 500) from None
