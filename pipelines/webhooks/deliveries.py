"""One log line per request to `POST /webhooks` (docs/webhooks.md, "The delivery log").

`delivery id=<id> event=<event> outcome=<outcome> status=<status> bytes=<n> ms=<ms>` at INFO on
this module's logger, `pipelines.webhooks.deliveries`. A line holds two header values made safe
and numbers: never the body, the payload, the signature or the secret. `serving_log_config`
sends it to stderr when the receiver is served.
"""

from __future__ import annotations

import copy
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any

from uvicorn.config import LOGGING_CONFIG

_log = logging.getLogger(__name__)

# Event names are short words; a longer header is cut in the line, never repeated whole.
_MAX_EVENT = 64
# Printable ASCII but space and backslash: anything else in a header value is escaped.
_UNSAFE = re.compile(r"[^!-\[\]-~]")


def log_field(value: str | None, *, limit: int) -> str:
    """A header value as one token of a line: `-` when absent, at most `limit` characters of it
    (then `...`), spaces, control and non-ASCII characters and backslashes escaped (`\\x0a`), so
    a hostile header can neither split the line nor fill the log."""
    if not value:
        return "-"
    text = _UNSAFE.sub(lambda match: _escaped(match.group()), value[:limit])
    return text + "..." if len(value) > limit else text


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else char.encode("unicode_escape").decode("ascii")


@dataclass
class DeliveryLine:
    """What one request did, filled in as the handler goes, logged once when it answers."""

    id: str
    event: str
    started: float = field(default_factory=time.perf_counter)
    # Bytes of the body read, or its declared length when it was refused before being read.
    body_bytes: int = 0
    # What the handler decided; `error` stays only if it raised (Starlette then answers 500).
    outcome: str = "error"

    @classmethod
    def start(cls, *, delivery_id: str | None, event: str | None, max_id: int) -> DeliveryLine:
        # An id the receiver refuses as too long is no id: `-`, like a missing one.
        valid = delivery_id if delivery_id and len(delivery_id) <= max_id else None
        return cls(id=log_field(valid, limit=max_id), event=log_field(event, limit=_MAX_EVENT))

    def log(self, status: int) -> None:
        _log.info(
            "delivery id=%s event=%s outcome=%s status=%d bytes=%d ms=%.1f",
            self.id,
            self.event,
            self.outcome,
            status,
            self.body_bytes,
            (time.perf_counter() - self.started) * 1000,
        )


def serving_log_config() -> dict[str, Any]:
    """uvicorn's logging, with the receiver's loggers on its stderr handler: delivery lines are
    INFO, which nothing would print otherwise (Python's last resort shows WARNING and above)."""
    log_config = copy.deepcopy(LOGGING_CONFIG)
    log_config["loggers"]["pipelines.webhooks"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return log_config
