"""Sending an alert to every target: an incoming webhook by one HTTP POST, e-mail by SMTP.

Each exchange (connect, send, answer) has one deadline, `AlertConfig.timeout`, enforced around
the whole of it: a channel that answers a byte at a time, or never, costs a run that long and no
more. A delivery that fails is one warning line naming the target and the cause, and is returned
as such; it never raises, so an unreachable channel can never fail the run it reports on. What
may arrive later (the channel unreachable, busy or failing) is kept in the outbox, when one is
given, and tried again before the next alert and at each sensor tick; what was sent whole but
not answered in time is not sent again (it may have arrived).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import smtplib
import socket
import ssl
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

import httpx

from pipelines.alerts._config import AlertConfig, EmailTarget, Target, WebhookTarget
from pipelines.alerts._message import Alert
from pipelines.alerts._outbox import Outbox, target_key
from pipelines.service import redact_secrets

__all__ = ["Delivery", "deliver", "retry_kept"]

_log = logging.getLogger(__name__)
_BODY_CHARS = 120  # a refusal's body says why (Slack: `invalid_token`); more would be noise
_BODY_BYTES = 4096  # read of a refusal's body, at most
# A channel's answers that say "later": its other refusals (a wrong key, a removed hook) stay refusals.
_LATER = frozenset({408, 425, 429})
_GRACE = 2.0  # seconds an exchange cut at its deadline has to unwind


@dataclass(frozen=True)
class Delivery:
    target: str  # the target's label: kind and host, never its key
    problem: str | None = None  # why it did not arrive (or was not answered); None: it arrived
    sent: bool = False  # the message went out whole, and no answer came in time: it may have arrived
    kept: bool = False  # not delivered, kept in the outbox to be tried again

    @property
    def arrived(self) -> bool:
        return self.problem is None

    def line(self) -> str:
        """What happened, for a person: one line, beginning with the target."""
        if self.arrived:
            return f"{self.target}: arrived"
        if self.sent:
            return f"{self.target}: {self.problem} (it may have arrived; not sent again)"
        kept = "; kept, and tried again by the next run or sensor tick" if self.kept else ""
        return f"{self.target}: not delivered: {self.problem}{kept}; check METRICS_ALERTS"

    def log_line(self) -> str:
        """The same, as the warning a run's log and progress show."""
        if self.sent:
            return f"alert to {self.target}: {self.problem}: it may have arrived, not sent again"
        kept = ", kept and tried again by the next run or sensor tick" if self.kept else ""
        return f"alert not delivered to {self.target}: {self.problem}{kept}; check METRICS_ALERTS " \
               "(metrics-etl alerts test)"


class _Refused(Exception):
    """The channel answered, and not with success."""

    def __init__(self, message: str, *, later: bool) -> None:
        super().__init__(message)
        self.later = later


class _Unanswered(Exception):
    """The deadline passed: after the message went out whole (`sent`), or before."""

    def __init__(self, timeout: float, *, sent: bool) -> None:
        what = "sent; no answer" if sent else "no exchange completed"
        super().__init__(f"{what} within {timeout:g} s")
        self.sent = sent


def deliver(
    config: AlertConfig, alert: Alert, *, outbox: Outbox | None = None, log_failures: bool = True
) -> list[Delivery]:
    """Send `alert` to each target once; what happened at each, in the targets' order.

    With an `outbox`, alerts kept there are tried first (oldest first, so the channel reads them
    in order), and this one is kept for each target it may still reach. A caller that shows each
    delivery itself (`metrics-etl alerts test`) passes log_failures=False.
    """
    if outbox is not None:
        retry_kept(config, outbox)
    deliveries = []
    for index, target in enumerate(config.targets):
        key = target_key(config.targets, index)
        if outbox is not None and key in outbox.passed:
            # It just let an alert's deadline pass: this one waits in the outbox rather than
            # cost the run another, and goes first next time.
            deliveries.append(Delivery(target.label, "not tried: it did not take an earlier alert just now", kept=True))
            continue
        delivery = _attempt(target, alert, config.timeout, keep=outbox is not None)
        if outbox is not None and (delivery.kept or delivery.sent):
            outbox.passed.add(key)
        deliveries.append(delivery)
    missed = [target_key(config.targets, n) for n, d in enumerate(deliveries) if d.kept]
    if outbox is not None and missed:
        problem = outbox.keep(alert, missed)
        if problem is not None:  # not kept after all: say so rather than promise a retry
            deliveries = [Delivery(d.target, f"{d.problem}; {problem}") if d.kept else d for d in deliveries]
    if log_failures:
        for delivery in deliveries:
            if not delivery.arrived:
                _log.warning("%s", delivery.log_line())
    return deliveries


def retry_kept(config: AlertConfig, outbox: Outbox) -> None:
    """Try the alerts kept in the outbox again, each to the targets it has not reached.

    A target that does not take one (down, or past its deadline) is left alone for the rest of
    the outbox's life (`Outbox.passed`: a command, a sensor tick): a dead or slow channel costs
    it one deadline, however many alerts wait. One line says what is still kept.
    """
    gone = 0
    with outbox.flushing() as kept:
        if kept is None:  # another process is sending them now
            return
        for pending in kept.alerts:
            for key in pending.targets:
                target = kept.target(config.targets, key)
                if target is None:  # no longer in METRICS_ALERTS: nowhere to send it
                    kept.settle(pending, key)
                    gone += 1
                    continue
                if key in outbox.passed:
                    continue
                kept.tried = True
                delivery = _attempt(target, pending.alert, config.timeout, keep=True)
                if delivery.kept or delivery.sent:
                    outbox.passed.add(key)  # slow or down: the alerts behind this one wait for the next call
                if not delivery.kept:
                    kept.settle(pending, key)
                    if delivery.arrived:
                        _log.info("alert kept since %s delivered to %s", pending.since, delivery.target)
                    else:
                        _log.warning("kept since %s: %s", pending.since, delivery.log_line())
    if gone:
        _log.warning("%d kept alert(s) dropped: their target is no longer in METRICS_ALERTS", gone)
    for line in outbox.notes():
        _log.warning("%s", line)


def _attempt(target: Target, alert: Alert, timeout: float, *, keep: bool) -> Delivery:
    try:
        if isinstance(target, WebhookTarget):
            _run(_post(target, alert, timeout=timeout), timeout=timeout)
        else:
            _mail(target, alert, timeout=timeout)
        return Delivery(target.label)
    except _Unanswered as late:
        return Delivery(target.label, str(late), sent=late.sent, kept=keep and not late.sent)
    except _Refused as refused:
        return Delivery(target.label, str(refused), kept=keep and refused.later)
    # Whatever goes wrong with a channel (network, TLS, DNS) is the operator's to read, not the run's.
    except Exception as exc:
        problem = redact_secrets(f"{type(exc).__name__}: {' '.join(str(exc).split()) or 'no detail'}")
        return Delivery(target.label, problem, kept=keep)


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
        raise _Unanswered(timeout, sent=False)
    if failure:
        raise failure[0]


async def _post(target: WebhookTarget, alert: Alert, *, timeout: float) -> None:
    """One POST under one deadline: cancelled, connection and all, when it passes."""
    sent = False

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
                said = b""
                if not response.is_success:
                    async for chunk in response.aiter_raw():
                        said += chunk
                        if len(said) >= _BODY_BYTES:
                            break
            finally:
                await response.aclose()
    except (TimeoutError, httpx.TimeoutException):
        # The deadline, or httpx's own per-operation timeout inside it: the same outcome.
        raise _Unanswered(timeout, sent=sent) from None
    if not 200 <= status < 300:
        later = status in _LATER or status >= 500
        text = " ".join(said.decode("utf-8", errors="replace").split())
        raise _Refused(f"HTTP {status} {text[:_BODY_CHARS]}".rstrip(), later=later)


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


def _mail(target: EmailTarget, alert: Alert, *, timeout: float) -> None:
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
        raise _Unanswered(timeout, sent=watched.sent)
    if failure:
        raise failure[0]


def _smtp_exchange(target: EmailTarget, alert: Alert, *, timeout: float, watched: _Watched) -> None:
    message = EmailMessage()
    message["Subject"], message["From"], message["To"] = alert.subject, target.sender, ", ".join(target.recipients)
    message.set_content(alert.text())
    context = ssl.create_default_context()
    # Made without a host, so that nothing connects before the class that watches the socket.
    smtp = (
        _smtp_class(smtplib.SMTP_SSL, watched)(timeout=timeout, context=context)  # type: ignore[call-arg]
        if target.tls == "smtps" else _smtp_class(smtplib.SMTP, watched)(timeout=timeout)
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
                    raise _Refused(
                        "the server offers no STARTTLS: the password is not sent in clear; use smtps://", later=False
                    )
                smtp.login(target.user, target.password.reveal())
            smtp.send_message(message)
    except smtplib.SMTPResponseException as exc:
        # 4xx: the server says later; 5xx: it refuses (a wrong password, this message).
        said = exc.smtp_error.decode(errors="replace") if isinstance(exc.smtp_error, bytes) else str(exc.smtp_error)
        problem = f"SMTP {exc.smtp_code} {' '.join(said.split())[:_BODY_CHARS]}"
        raise _Refused(problem, later=exc.smtp_code < 500) from None
