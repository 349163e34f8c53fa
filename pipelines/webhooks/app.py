"""The receiver: `POST /webhooks` verifies, spools durably, then answers; `GET /healthz`.

It never opens the warehouse, so it keeps accepting deliveries while the pipeline writes.
Every request that reaches `POST /webhooks` is logged as one line (`deliveries.py`); its body is
read within the size cap and the memory budget (`_body.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from uvicorn.config import LOGGING_CONFIG

from pipelines.config import Settings
from pipelines.service.dialect import DIALECTS
from pipelines.webhooks._body import Refused, answer, read_body
from pipelines.webhooks.deliveries import DeliveryLine, serving_log_config
from pipelines.webhooks.errors import SpoolWriteError, WebhookConfigError
from pipelines.webhooks.guard import Guard, GuardedHttpToolsProtocol, ensure_fd_limit
from pipelines.webhooks.payload import PAYLOAD_RULES, PayloadRefused, payload_document
from pipelines.webhooks.segments import SpoolRecord
from pipelines.webhooks.spool import Spool
from pipelines.webhooks.verify import signature_matches

# Either dialect's headers are accepted, the service dialect's first: the receiver need not be told which.
_EVENT_HEADERS = tuple(d.event_header for d in DIALECTS.values())
_DELIVERY_HEADERS = tuple(d.delivery_header for d in DIALECTS.values())
_SIGNATURE_HEADER = DIALECTS["service"].signature_header
_MAX_DELIVERY_ID = 200


@dataclass(frozen=True)
class ReceiverConfig:
    """The receiver's settings; the limits bound what one client, or many, can hold (docs/webhooks.md)."""

    secret: bytes = field(repr=False)
    spool_dir: Path
    # The public service's payload cap: larger deliveries are never sent, so refuse them unread.
    max_body_bytes: int = 25 * 1024 * 1024
    segment_bytes: int = 64 * 1024 * 1024
    # A sender's headers arrive in one packet; ten seconds is generous even through a proxy.
    header_timeout: float = 10.0
    # Total time for a body once its headers are in: 25 MB at about 4 Mbit/s.
    body_timeout: float = 60.0
    max_connections: int = 1000
    # Connections without a request under way one client (source address) holds; behind a proxy
    # every client is the proxy, and its newest connections still get in, its oldest waiting closed.
    max_waiting_per_client: int = 256
    max_header_bytes: int = 64 * 1024
    # Request bodies held in memory at once, all requests together, counted before the
    # signature is checked: room for four deliveries at the size cap.
    max_body_memory_bytes: int = 100 * 1024 * 1024
    refusal_log_interval: float = 10.0

    def __post_init__(self) -> None:
        if self.max_body_memory_bytes < self.max_body_bytes:
            raise WebhookConfigError("--max-body-memory-bytes must be at least --max-body-bytes")
        if (
            min(self.header_timeout, self.body_timeout, self.refusal_log_interval) <= 0
            or min(self.max_connections, self.max_waiting_per_client) < 1
        ):
            raise WebhookConfigError(
                "timeouts, the log interval, --max-connections and --max-waiting-per-client must be positive"
            )

    @classmethod
    def from_settings(cls, settings: Settings, **limits: Any) -> ReceiverConfig:
        if settings.webhook_secret is None:
            raise WebhookConfigError("WEBHOOK_SECRET is not set: the receiver cannot verify deliveries")
        return cls(secret=settings.webhook_secret.reveal().encode(), spool_dir=settings.webhook_spool_dir, **limits)

    def guard(self) -> Guard:
        return Guard(
            header_timeout=self.header_timeout,
            body_timeout=self.body_timeout,
            max_connections=self.max_connections,
            max_waiting_per_client=self.max_waiting_per_client,
            max_header_bytes=self.max_header_bytes,
            max_body_memory_bytes=self.max_body_memory_bytes,
            log_interval=self.refusal_log_interval,
        )


def _first_header(request: Request, names: tuple[str, ...]) -> str | None:
    for name in names:
        value = request.headers.get(name)
        if value:
            return value
    return None


def _payload_document(content_type: str, body: bytes | bytearray) -> bytes | None:
    """The payload JSON object's bytes, or None if it is not one; `Refused` (400) where the
    reason is worth naming (`payload.py`)."""
    try:
        return payload_document(content_type, body)
    except PayloadRefused as refused:
        raise Refused("bad_request", answer(400, str(refused))) from None


def create_app(*, config: ReceiverConfig, spool: Spool | None = None, guard: Guard | None = None) -> Starlette:
    """The ASGI app; `spool` defaults to one writing under `config.spool_dir`, `guard` to the config's."""
    the_spool = spool or Spool(
        directory=config.spool_dir, segment_bytes=config.segment_bytes, min_free_bytes=config.max_body_bytes
    )
    the_guard = guard or config.guard()

    async def receive(request: Request) -> Response:
        delivery = DeliveryLine.start(
            delivery_id=_first_header(request, _DELIVERY_HEADERS),
            event=_first_header(request, _EVENT_HEADERS),
            max_id=_MAX_DELIVERY_ID,
        )
        held = [0]
        status = 500  # what Starlette answers if the handler raises
        try:
            response = await _handle(request, delivery, held)
            status = response.status_code
            return response
        finally:
            the_guard.budget.release(held[0])
            delivery.log(status)

    async def _handle(request: Request, delivery: DeliveryLine, held: list[int]) -> Response:
        try:
            body = await read_body(request, limit=config.max_body_bytes, guard=the_guard, held=held, delivery=delivery)
            return await _store(request, body, delivery)
        except Refused as refused:
            delivery.outcome = refused.outcome
            return refused.answer
        except ClientDisconnect:
            # The sender hung up, or the body timeout closed the connection: nobody reads this.
            delivery.outcome = "disconnected"
            return Response(status_code=400)

    async def _store(request: Request, body: bytearray, delivery: DeliveryLine) -> Response:
        if not signature_matches(secret=config.secret, body=body, header=request.headers.get(_SIGNATURE_HEADER)):
            raise Refused("bad_signature", answer(401, "missing or non-matching signature"))
        event = _first_header(request, _EVENT_HEADERS)
        delivery_id = _first_header(request, _DELIVERY_HEADERS)
        if not event or not delivery_id or len(delivery_id) > _MAX_DELIVERY_ID:
            raise Refused("bad_request", answer(400, "missing event or delivery id header"))
        document = _payload_document(request.headers.get("content-type", ""), body)
        if document is None:
            raise Refused("bad_request", answer(400, "payload is not a JSON object"))
        record = SpoolRecord(
            delivery_id=delivery_id,
            event=event,
            received_at=datetime.now(UTC).isoformat(),
            payload=document,
            rules=PAYLOAD_RULES,
        )
        try:
            stored = await the_spool.append(record)
        except SpoolWriteError as exc:
            # The OS reason goes in a counted line: a full disk fails every delivery, and the
            # delivery lines stay one token per field. It names the directory, never the content.
            the_guard.refusals.refused(f"not stored (500): {exc}")
            raise Refused("spool_error", answer(500, "delivery could not be stored")) from None
        delivery.outcome = "spooled" if stored else "duplicate"
        return JSONResponse({"delivery": delivery_id, "stored": stored})

    async def healthz(request: Request) -> Response:
        # In a thread: the check may write and sync a probe file.
        if await asyncio.to_thread(the_spool.ready):
            return JSONResponse({"status": "ok"})
        return answer(503, "spool directory is not writable")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            the_guard.refusals.flush_all()
            the_spool.close()

    app = Starlette(
        routes=[Route("/webhooks", receive, methods=["POST"]), Route("/healthz", healthz, methods=["GET"])],
        lifespan=lifespan,
    )
    app.state.guard = the_guard
    return app


def _server_config(
    app: Starlette, *, host: str, port: int, log_level: str, log_config: dict[str, Any] = LOGGING_CONFIG
) -> uvicorn.Config:
    """uvicorn with the guarded protocol: header/body deadlines, header and connection caps."""
    guard: Guard = app.state.guard
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        access_log=False,
        log_level=log_level,
        log_config=log_config,
        http=functools.partial(GuardedHttpToolsProtocol, guard=guard),  # type: ignore[arg-type]
    )


def serve(*, config: ReceiverConfig, host: str, port: int) -> None:
    """Run until interrupted (uvloop when installed; httptools, which the guard extends)."""
    ensure_fd_limit(config.max_connections)
    server_config = _server_config(
        create_app(config=config), host=host, port=port, log_level="info", log_config=serving_log_config()
    )
    uvicorn.Server(server_config).run()


@contextlib.contextmanager
def running_receiver(*, config: ReceiverConfig, spool: Spool | None = None) -> Iterator[str]:
    """A receiver on a free 127.0.0.1 port in a background thread; yields its base URL."""
    server = uvicorn.Server(
        _server_config(create_app(config=config, spool=spool), host="127.0.0.1", port=0, log_level="warning")
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
