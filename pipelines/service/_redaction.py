"""Log redaction: httpx and httpcore log every URL, and some carry signatures, codes or tokens."""

from __future__ import annotations

import logging
import re

from pipelines.service.errors import redact_url

_LOGGERS = (
    "httpx",
    "httpcore",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
)


class _RedactingFilter(logging.Filter):
    """Strips signed queries, codes and tokens from the URLs in a record's message."""

    _URL = re.compile(r"https?://[^\s\"'<>]+")

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        cleaned = self._URL.sub(lambda m: redact_url(m.group(0)), text)
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
