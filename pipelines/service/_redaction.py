"""Redaction: signed queries and codes out of URLs, and the configured secrets out of any text.

The secrets are the process's own (a token, an installation token once minted, the app's key
and its JWTs, the OAuth client secret, and whatever the application registers, e.g. the webhook
secret): the auth flows register theirs as they receive them, and :func:`redact_secrets` is
the one redactor that every ServiceError's text and every log record of the HTTP stack pass
through. A server or proxy that repeats the Authorization header therefore echoes nothing.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["install_log_redaction", "redact_secrets", "redact_url", "register_secrets"]

_REDACTED = "[redacted]"

# Query parameters whose values grant access: signed links, OAuth codes, tokens.
_SENSITIVE_PARAMS = frozenset(
    {
        "signature",
        "sig",
        "expires",
        "token",
        "access_token",
        "code",
        "state",
        "client_secret",
        "x-amz-signature",
        "x-amz-credential",
        "x-amz-security-token",
        "se",
        "sp",
        "sv",
        "st",
        "skoid",
        "sktid",
    }
)

# A shorter secret is replaced only as the credential of "Bearer <x>" or "token <x>": replaced
# everywhere, a value like "abc1" would also cut words and numbers out of unrelated text.
_MIN_SECRET_LENGTH = 8
# Characters that may continue a credential: a short secret followed by one is another value.
_CREDENTIAL_END = r"(?![\w.~+/=-])"

_LOGGERS = (
    "httpx",
    "httpcore",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "pipelines.service.client",
)


def redact_url(url: object, *, keep_query: bool = True) -> str:
    """The URL without credentials: sensitive query values dropped, or the whole query.

    Download links are signed in their query, so callers pass ``keep_query=False`` for them;
    for API URLs the harmless parameters (``page``, ``day``) stay, which helps debugging.
    """
    parts = urlsplit(str(url))
    netloc = parts.netloc.rsplit("@", 1)[-1]
    if not keep_query or not parts.query:
        query = ""
    else:
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        kept = [(k, v) for k, v in pairs if k.lower() not in _SENSITIVE_PARAMS]
        query = urlencode(kept)
        if len(kept) != len(pairs):
            query = f"{query}&{_REDACTED}" if query else _REDACTED
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


class _Secrets:
    """The registered secret values, as the two patterns that find them in a text."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Kept for the life of the process: a renewed installation token may still be in
        # flight on another thread, or in a record logged late.
        self._values: set[str] = set()
        self._anywhere: re.Pattern[str] | None = None
        self._as_credential: re.Pattern[str] | None = None

    def add(self, value: str) -> None:
        # A PEM key is also found line by line: an echo may cut it, or quote one line of it.
        found = {value.strip()} | {line.strip() for line in value.splitlines() if "-----" not in line}
        found.discard("")
        with self._lock:
            if found <= self._values:
                return
            self._values |= found
            # Longest first, so a secret that contains another is replaced whole.
            ordered = sorted(self._values, key=len, reverse=True)
            long = [re.escape(v) for v in ordered if len(v) >= _MIN_SECRET_LENGTH]
            short = [re.escape(v) for v in ordered if len(v) < _MIN_SECRET_LENGTH]
            self._anywhere = re.compile("|".join(long)) if long else None
            self._as_credential = (
                re.compile(rf"(?i:\b(bearer|token)\s+)(?:{'|'.join(short)}){_CREDENTIAL_END}") if short else None
            )

    def redact(self, text: str) -> str:
        anywhere, as_credential = self._anywhere, self._as_credential
        if anywhere is not None:
            text = anywhere.sub(_REDACTED, text)
        if as_credential is not None:
            text = as_credential.sub(lambda m: f"{m.group(1)} {_REDACTED}", text)
        return text


_SECRETS = _Secrets()


class _Revealing(Protocol):
    """A credential as `_secret.Secret` holds it: named by its shape, so `_secret` (which
    registers each Secret here as it is made) is the one of the two that imports the other."""

    def reveal(self) -> str: ...


def register_secrets(*secrets: _Revealing | None) -> None:
    """Have every later error text and log record of the service layer hide these values.

    The auth flows register the credentials they hold; the application registers the secrets
    the service layer never sees (the webhook secret). None is skipped, so settings pass as is.
    """
    for secret in secrets:
        if secret is not None:
            _SECRETS.add(secret.reveal())


def redact_secrets(text: str) -> str:
    """The text with every registered secret replaced (short ones only as a credential)."""
    return _SECRETS.redact(text)


class _RedactingFilter(logging.Filter):
    """Strips signed queries, codes and tokens from the URLs in a record's message, and secrets from all of it."""

    _URL = re.compile(r"https?://[^\s\"'<>]+")

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        cleaned = redact_secrets(self._URL.sub(lambda m: redact_url(m.group(0)), text))
        if cleaned != text:
            record.msg, record.args = cleaned, None
        return True


_REDACTION = _RedactingFilter()


def install_log_redaction() -> None:
    """Idempotent; called by every client, so no caller can forget it."""
    # Filters do not inherit: each logger that emits records needs its own.
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        if _REDACTION not in logger.filters:
            logger.addFilter(_REDACTION)
