"""The refusal log: a flood of refused requests costs one log line per kind per interval."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter

_log = logging.getLogger("pipelines.webhooks")


class RefusalLog:
    """One log line per refusal class per interval, with how many were refused in it.

    The first refusal of a class is logged at once; the ones that follow within `interval`
    are summed into one line when it ends, so a flood costs a line per class per interval.
    Lines name the class and count only: never a body, a header value or a signature.
    """

    def __init__(self, interval: float) -> None:
        self._interval = interval
        self._pending: Counter[str] = Counter()
        self._last_logged: dict[str, float] = {}
        self._flush_scheduled: set[str] = set()
        self.totals: Counter[str] = Counter()

    def refused(self, kind: str) -> None:
        self.totals[kind] += 1
        self._pending[kind] += 1
        if kind in self._flush_scheduled:
            return
        wait = self._last_logged.get(kind, -self._interval) + self._interval - time.monotonic()
        if wait <= 0:
            self._flush(kind)
        else:
            self._flush_scheduled.add(kind)
            asyncio.get_running_loop().call_later(wait, self._flush, kind)

    def _flush(self, kind: str) -> None:
        self._flush_scheduled.discard(kind)
        count = self._pending.pop(kind, 0)
        if count:
            self._last_logged[kind] = time.monotonic()
            _log.warning(
                "webhooks: refused %d request(s): %s (one line per kind per %g s)", count, kind, self._interval
            )

    def flush_all(self) -> None:
        for kind in list(self._pending):
            self._flush(kind)
