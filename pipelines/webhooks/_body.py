"""A request's body, read within the size cap and the memory budget, and the refusals the app answers.

A declared length is checked before anything is read; a body past its first `_UNBUDGETED_BYTES`
holds bytes of the budget (`slots.BodyBudget`), which the app releases once it has answered.
"""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from pipelines.webhooks.deliveries import DeliveryLine
from pipelines.webhooks.guard import Guard, connection_of

# A body up to this size never waits for the memory budget: it is no more than the read-ahead each
# connection may hold anyway (so the cap on connections bounds it), and bodies holding the whole
# budget at a pace that arrives in time cannot keep a usual delivery (a few KB) waiting.
_UNBUDGETED_BYTES = 64 * 1024
_BUDGET_RECHECK = 0.1  # seconds between looks for a body that cannot arrive in time, while one waits


def answer(status: int, message: str, *, close: bool = False) -> Response:
    # An answer given before the body is read closes the connection: the rest is never read.
    headers = {"connection": "close"} if close else None
    return JSONResponse({"message": message}, status_code=status, headers=headers)


class Refused(Exception):
    """A request refused: `outcome` for its delivery line, `answer` for its sender."""

    def __init__(self, outcome: str, answer: Response) -> None:
        self.outcome = outcome
        self.answer = answer


async def read_body(
    request: Request, *, limit: int, guard: Guard, held: list[int], delivery: DeliveryLine
) -> bytearray:
    """The body, within the size limit and the memory budget; `held[0]` is what it reserved.

    A declared length is checked before anything is read, and one over `_UNBUDGETED_BYTES`
    reserved (waiting, at most the body timeout, for the budget, which bodies that cannot arrive
    in time give up: see `Slots.free_budget`); any other body is counted and reserved as it
    arrives past its first `_UNBUDGETED_BYTES`. Raises `Refused` with the answer to give.
    """
    too_large = Refused("too_large", answer(413, f"body larger than {limit} bytes", close=True))
    busy = Refused("busy", answer(503, "receiver busy, retry later", close=True))
    declared = request.headers.get("content-length")
    if declared is not None:  # httptools has already refused a malformed one
        size = int(declared)
        if size > limit:
            delivery.body_bytes = size
            raise too_large
    if declared is not None and size > _UNBUDGETED_BYTES:
        connection = connection_of(request.scope)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + guard.body_timeout
        while not guard.budget.try_reserve(size):
            if connection is not None:  # bodies that cannot arrive in time let go of theirs
                connection.awaiting_budget = True
                guard.slots.free_budget(guard.budget, size, loop.time())
            if loop.time() >= deadline:
                delivery.body_bytes = size
                raise busy
            await guard.budget.changed(min(_BUDGET_RECHECK, deadline - loop.time()))
        held[0] = size
        if connection is not None:
            connection.hold(size)
    # A body reserved whole counts from its first byte; any other, past its first _UNBUDGETED_BYTES.
    unbudgeted = 0 if held[0] else _UNBUDGETED_BYTES
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        delivery.body_bytes = len(body)
        if len(body) > limit:
            raise too_large
        if len(body) - unbudgeted > held[0]:
            if not guard.budget.try_reserve(len(body) - unbudgeted - held[0]):
                raise busy
            held[0] = len(body) - unbudgeted
    return body
