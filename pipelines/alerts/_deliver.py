"""Sending an alert to every target: an incoming webhook by one HTTP POST, e-mail by SMTP.

A delivery that fails is one warning line naming the target and the cause, and is returned as
such; it never raises, so an unreachable channel can never fail the run it reports on.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage

import httpx

from pipelines.alerts._config import AlertConfig, EmailTarget, Target, WebhookTarget
from pipelines.alerts._message import Alert
from pipelines.service import redact_secrets

__all__ = ["Delivery", "deliver"]

_log = logging.getLogger(__name__)
_BODY_CHARS = 120  # a refusal's body says why (Slack: `invalid_token`); more would be noise


@dataclass(frozen=True)
class Delivery:
    target: str  # the target's label: kind and host, never its key
    problem: str | None = None  # why it did not arrive; None: it arrived

    @property
    def arrived(self) -> bool:
        return self.problem is None


def deliver(config: AlertConfig, alert: Alert, *, log_failures: bool = True) -> list[Delivery]:
    """Send `alert` to each target once; what happened at each, in the targets' order.

    A caller that shows each delivery itself (`metrics-etl alerts test`) passes log_failures=False.
    """
    deliveries = []
    for target in config.targets:
        try:
            _send(target, alert, timeout=config.timeout)
            deliveries.append(Delivery(target.label))
        # Whatever goes wrong with a channel (network, TLS, a refusal) is the operator's to read, not the run's.
        except Exception as exc:
            problem = redact_secrets(f"{type(exc).__name__}: {' '.join(str(exc).split()) or 'no detail'}")
            if log_failures:
                _log.warning("alert not delivered to %s: %s; check METRICS_ALERTS (metrics-etl alerts test)",
                             target.label, problem)
            deliveries.append(Delivery(target.label, problem))
    return deliveries


def _send(target: Target, alert: Alert, *, timeout: float) -> None:
    if isinstance(target, WebhookTarget):
        _post(target, alert, timeout=timeout)
    else:
        _mail(target, alert, timeout=timeout)


class _Refused(Exception):
    """The channel answered, and not with success."""


def _post(target: WebhookTarget, alert: Alert, *, timeout: float) -> None:
    response = httpx.post(target.url.reveal(), json={"text": alert.text()}, timeout=timeout)
    if not response.is_success:
        raise _Refused(f"HTTP {response.status_code} {response.text[:_BODY_CHARS]}")


def _mail(target: EmailTarget, alert: Alert, *, timeout: float) -> None:
    message = EmailMessage()
    message["Subject"], message["From"], message["To"] = alert.subject, target.sender, ", ".join(target.recipients)
    message.set_content(alert.text())
    context = ssl.create_default_context()
    smtp = (
        smtplib.SMTP_SSL(target.host, target.port, timeout=timeout, context=context)
        if target.tls == "smtps" else smtplib.SMTP(target.host, target.port, timeout=timeout)
    )
    with smtp:
        smtp.ehlo()
        secure = target.tls == "smtps"
        if not secure and smtp.has_extn("starttls"):
            smtp.starttls(context=context)
            smtp.ehlo()
            secure = True
        if target.user is not None and target.password is not None:
            if not secure and not target.on_loopback:
                raise _Refused("the server offers no STARTTLS: the password is not sent in clear; use smtps://")
            smtp.login(target.user, target.password.reveal())
        smtp.send_message(message)
