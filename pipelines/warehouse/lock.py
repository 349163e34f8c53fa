"""Opening the warehouse for writing while another process may hold it.

DuckDB lets one process write a database file; a second one fails at once with a lock error.
A run started while another run (or `dagster dev`, or a quarantine clear) writes waits for it,
saying so as a warning on its logger: whom it waits for (DuckDB names the holder's
PID), for how long so far, and how long it will wait before giving up.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import duckdb

from pipelines.warehouse.sql import connect, first_meaningful_line

__all__ = [
    "WarehouseLocked",
    "WarehouseUnavailable",
    "connect_for_reading",
    "connect_for_writing",
    "is_lock_error",
]

_LOG = logging.getLogger(__name__)
_LOCKED = re.compile(r"Could not set lock on file|Conflicting lock", re.IGNORECASE)
_HOLDER = re.compile(r"held in (?P<program>\S+) \(PID (?P<pid>\d+)\)")
_POLL = 0.5  # seconds between attempts: a run that ends is followed within half a second
_SAY_EVERY = 10.0  # seconds between "still waiting" lines


class WarehouseUnavailable(Exception):
    """The warehouse cannot be opened; the message is one line: the cause and what to do."""


class WarehouseLocked(WarehouseUnavailable):
    """The warehouse stayed held by another process for the whole wait."""


# Opening failures a person fixes, with what to do: (what DuckDB says, the advice).
_UNUSABLE = (
    (
        re.compile(r"not a valid DuckDB database file|database file with version number", re.IGNORECASE),
        "it is not a DuckDB warehouse this version reads: point WAREHOUSE_PATH at the warehouse, or move "
        "this file away and copy a backup in its place (`metrics-etl backup` makes them)",
    ),
    (
        re.compile(r"Read-only file system|Permission denied", re.IGNORECASE),
        "the data home must be readable and writable by this user: run as the user that owns it, or give "
        "another home (--home or METRICS_HOME)",
    ),
)


def _unusable(path: str | Path, exc: duckdb.Error) -> WarehouseUnavailable | None:
    line = first_meaningful_line(str(exc))
    for pattern, advice in _UNUSABLE:
        if pattern.search(line):
            return WarehouseUnavailable(f"cannot open the warehouse {path} ({line}): {advice}")
    return None


def is_lock_error(exc: BaseException) -> bool:
    return isinstance(exc, duckdb.Error) and bool(_LOCKED.search(str(exc)))


def _holder(exc: BaseException) -> str:
    found = _HOLDER.search(str(exc))
    if not found:
        return "another process"
    return f"process {found['pid']} ({Path(found['program']).name})"


def connect_for_writing(
    path: str | Path,
    *,
    config: Mapping[str, Any],
    wait: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> duckdb.DuckDBPyConnection:
    """A read-write connection, waiting up to `wait` seconds while another process holds the file.

    Raises WarehouseLocked (naming the holder and the wait) when it is still held after `wait`.
    """
    return _connect(path, read_only=False, config=config, wait=wait, clock=clock, sleep=sleep)


def connect_for_reading(
    path: str | Path,
    *,
    wait: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> duckdb.DuckDBPyConnection:
    """A read-only connection: a writer in another process holds the file against readers too,
    so this waits as `connect_for_writing` does."""
    return _connect(path, read_only=True, config={}, wait=wait, clock=clock, sleep=sleep)


def _connect(
    path: str | Path,
    *,
    read_only: bool,
    config: Mapping[str, Any],
    wait: float,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
) -> duckdb.DuckDBPyConnection:
    started = clock()
    said_at: float | None = None
    while True:
        try:
            conn = connect(path, read_only=read_only, config=config)
        except duckdb.Error as exc:
            if not is_lock_error(exc):
                unusable = _unusable(path, exc)
                if unusable is None:
                    raise
                raise unusable from None
            waited = clock() - started
            holder = _holder(exc)
            if waited >= wait:
                raise WarehouseLocked(
                    f"the warehouse {path} is held by {holder}, a running metrics-etl or dagster run: "
                    f"waited {waited:.0f} s (WAREHOUSE_LOCK_WAIT={wait:g}); run again when it ends"
                ) from None
            if said_at is None or clock() - said_at >= _SAY_EVERY:
                _LOG.warning(
                    "waiting for the warehouse: %s holds %s for writing (waited %.0f s, giving up after %g s)",
                    holder,
                    path,
                    waited,
                    wait,
                )
                said_at = clock()
            sleep(min(_POLL, max(wait - waited, 0.01)))
            continue
        if said_at is not None:
            _LOG.warning("got the warehouse after waiting %.0f s", clock() - started)
        return conn
