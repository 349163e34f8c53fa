"""The receiver: `POST /webhooks` verifies, spools durably, then answers; `GET /healthz`.

It never opens the warehouse, so it keeps accepting deliveries while the pipeline writes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from pipelines.config import Settings
from pipelines.service.dialect import DIALECTS
from pipelines.webhooks.errors import SpoolWriteError, WebhookConfigError
from pipelines.webhooks.spool import Spool, SpoolRecord
from pipelines.webhooks.verify import signature_matches

_log = logging.getLogger(__name__)

# Either dialect's headers are accepted, the spec's first: the receiver need not be told which.
_EVENT_HEADERS = tuple(d.event_header for d in DIALECTS.values())
_DELIVERY_HEADERS = tuple(d.delivery_header for d in DIALECTS.values())
_SIGNATURE_HEADER = DIALECTS["service"].signature_header
_FORM = "application/x-www-form-urlencoded"
_MAX_DELIVERY_ID = 200


@dataclass(frozen=True)
class ReceiverConfig:
    secret: bytes = field(repr=False)
    spool_dir: Path
    max_body_bytes: int = 25 * 1024 * 1024
    segment_bytes: int = 64 * 1024 * 1024

    @classmethod
    def from_settings(cls, settings: Settings) -> ReceiverConfig:
        if settings.webhook_secret is None:
            raise WebhookConfigError("WEBHOOK_SECRET is not set: the receiver cannot verify deliveries")
        return cls(secret=settings.webhook_secret.reveal().encode(), spool_dir=settings.webhook_spool_dir)


def _answer(status: int, message: str) -> Response:
    return JSONResponse({"message": message}, status_code=status)


def _first_header(request: Request, names: tuple[str, ...]) -> str | None:
    for name in names:
        value = request.headers.get(name)
        if value:
            return value
    return None


async def _read_limited(request: Request, limit: int) -> bytes | None:
    """The body, or None as soon as it is known to exceed `limit` (nothing past it is read)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


def _payload_document(content_type: str, body: bytes) -> bytes | None:
    """The payload JSON object's bytes (form bodies carry it in `payload=`), or None if it is not one."""
    if content_type.split(";", 1)[0].strip().lower() == _FORM:
        try:
            values = parse_qs(body.decode("utf-8"), strict_parsing=True).get("payload")
        except (UnicodeDecodeError, ValueError):
            return None
        if not values:
            return None
        document = values[0].encode("utf-8")
    else:
        document = body
    try:
        # Strict UTF-8 and standard JSON only (json.loads alone would take UTF-16 and NaN).
        parsed = json.loads(document.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError):
        return None
    return document if isinstance(parsed, dict) else None


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def create_app(*, config: ReceiverConfig, spool: Spool | None = None) -> Starlette:
    """The ASGI app; `spool` defaults to one writing under `config.spool_dir`."""
    the_spool = spool or Spool(directory=config.spool_dir, segment_bytes=config.segment_bytes)

    async def receive(request: Request) -> Response:
        body = await _read_limited(request, config.max_body_bytes)
        if body is None:
            return _answer(413, f"body larger than {config.max_body_bytes} bytes")
        if not signature_matches(secret=config.secret, body=body, header=request.headers.get(_SIGNATURE_HEADER)):
            _log.info("delivery refused: missing or non-matching %s", _SIGNATURE_HEADER)
            return _answer(401, "missing or non-matching signature")
        event = _first_header(request, _EVENT_HEADERS)
        delivery_id = _first_header(request, _DELIVERY_HEADERS)
        if not event or not delivery_id or len(delivery_id) > _MAX_DELIVERY_ID:
            return _answer(400, "missing event or delivery id header")
        document = _payload_document(request.headers.get("content-type", ""), body)
        if document is None:
            return _answer(400, "payload is not a JSON object")
        record = SpoolRecord(
            delivery_id=delivery_id,
            event=event,
            received_at=datetime.now(UTC).isoformat(),
            payload=document,
        )
        try:
            stored = await the_spool.append(record)
        except SpoolWriteError as exc:
            _log.error("delivery %s not stored: %s", delivery_id, exc)
            return _answer(500, "delivery could not be stored")
        return JSONResponse({"delivery": delivery_id, "stored": stored})

    async def healthz(request: Request) -> Response:
        if the_spool.ready():
            return JSONResponse({"status": "ok"})
        return _answer(503, "spool directory is not writable")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            the_spool.close()

    return Starlette(
        routes=[Route("/webhooks", receive, methods=["POST"]), Route("/healthz", healthz, methods=["GET"])],
        lifespan=lifespan,
    )


def serve(*, config: ReceiverConfig, host: str, port: int) -> None:
    """Run until interrupted (uvicorn picks uvloop and httptools when installed)."""
    uvicorn.run(create_app(config=config), host=host, port=port, access_log=False, log_level="info")


@contextlib.contextmanager
def running_receiver(*, config: ReceiverConfig, spool: Spool | None = None) -> Iterator[str]:
    """A receiver on a free 127.0.0.1 port in a background thread; yields its base URL."""
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(config=config, spool=spool),
            host="127.0.0.1",
            port=0,
            access_log=False,
            log_level="warning",
        )
    )
    thread = threading.Thread(target=server.run, name="webhook-receiver", daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise WebhookConfigError("the receiver did not start")
            time.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join()
