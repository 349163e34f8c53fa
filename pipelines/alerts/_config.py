"""Where alerts go: the targets of one setting, parsed once into a frozen config.

Every part of a target that grants access is a Secret from the moment it is parsed (an incoming
webhook's whole URL, its path and query, an SMTP password), so no log line or error can show it;
a target is shown by its label, which names only its kind and host.
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import ip_address
from typing import Literal
from urllib.parse import parse_qs, unquote, urlsplit

from pipelines.service import Secret, register_secrets

__all__ = ["AlertConfig", "EmailTarget", "Target", "WebhookTarget", "parse_targets"]

_SHORTEST_REGISTERED = 8  # shorter path or query parts (`/`, `v=1`) are no keys, and would cut words


@dataclass(frozen=True)
class WebhookTarget:
    """An incoming webhook taking Slack's JSON (`{"text": ...}`): Slack, Teams, Mattermost."""

    url: Secret

    @property
    def label(self) -> str:
        # The host only: the path and query are the webhook's key.
        return f"webhook {urlsplit(self.url.reveal()).hostname}"


@dataclass(frozen=True)
class EmailTarget:
    """E-mail through an SMTP server: `smtps` is TLS from the start, `smtp` upgrades with STARTTLS
    when the server offers it."""

    host: str
    port: int
    recipients: tuple[str, ...]
    sender: str
    tls: Literal["smtps", "starttls"]
    user: str | None = None
    password: Secret | None = None

    @property
    def label(self) -> str:
        return f"e-mail to {', '.join(self.recipients)} via {self.host}:{self.port}"

    @property
    def on_loopback(self) -> bool:
        try:
            return ip_address(self.host).is_loopback
        except ValueError:
            return self.host == "localhost"


Target = WebhookTarget | EmailTarget


@dataclass(frozen=True)
class AlertConfig:
    """The targets, the Dagster UI's address (for links to a run) and each delivery's time bound."""

    targets: tuple[Target, ...] = ()
    webserver_url: str | None = None
    timeout: float = 10.0

    def run_url(self, run_id: str) -> str | None:
        return f"{self.webserver_url.rstrip('/')}/runs/{run_id}" if self.webserver_url else None


def parse_targets(text: str) -> tuple[Target, ...]:
    """Comma-separated targets: `https://…` webhooks and `smtp://` or `smtps://` e-mail, e.g.
    `smtp://user:pass@host:587?to=a@example.org&to=b@example.org&from=metrics@example.org`.

    Raises ValueError naming the target by its position and kind, never by its text.
    """
    targets: list[Target] = []
    for number, item in enumerate((part.strip() for part in text.split(",")), start=1):
        if not item:
            continue
        parts = urlsplit(item)
        if parts.scheme in ("http", "https") and parts.hostname:
            secret = Secret(item)  # registered with the redactor as it is made
            register_secrets(*(Secret(p) for p in _access_parts(parts.path, parts.query)))
            targets.append(WebhookTarget(url=secret))
        elif parts.scheme in ("smtp", "smtps"):
            targets.append(_email(number, parts.scheme, item))
        else:
            raise ValueError(
                f"target {number} is neither an https:// incoming-webhook URL nor smtp:// or smtps:// e-mail"
            )
    return tuple(targets)


def _access_parts(path: str, query: str) -> list[str]:
    values = [path, *(v for values in parse_qs(query).values() for v in values)]
    return [v for v in values if len(v) >= _SHORTEST_REGISTERED]


def _email(number: int, scheme: str, item: str) -> EmailTarget:
    parts = urlsplit(item)
    password = Secret(unquote(parts.password)) if parts.password else None  # registered before any check
    query = parse_qs(parts.query)
    recipients = tuple(query.get("to", ()))
    if not parts.hostname or not recipients:
        raise ValueError(f"target {number} (e-mail) needs a host and at least one ?to=address")
    try:
        port = parts.port or (465 if scheme == "smtps" else 587)
    except ValueError:
        raise ValueError(f"target {number} (e-mail) has a port that is not a number") from None
    return EmailTarget(
        host=parts.hostname,
        port=port,
        recipients=recipients,
        sender=query.get("from", [f"metrics-etl@{parts.hostname}"])[0],
        tls="smtps" if scheme == "smtps" else "starttls",
        user=unquote(parts.username) if parts.username else None,
        password=password,
    )
