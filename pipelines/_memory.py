"""Bound glibc's malloc for a process that starts many threads and passes large buffers.

Each report starts a downloader and a parser thread; glibc gives new threads their own malloc
arenas (up to 8 per core) and keeps what each arena once held. Measured over ten days of four
reports, each day on a fresh DuckDB connection (as each Dagster run opens one): RSS grew by
about 15 MB a day (256 -> 389 MB) with the default, and stayed at 240-270 MB with two arenas.
A year's backfill in one `metrics-etl run` would otherwise pass 1 GB.

A block over glibc's mmap threshold is a mapping of its own, returned to the system when it is
freed; but glibc raises that threshold to the largest block freed so far (up to 32 MB), after
which the ingest's segments and column buffers (1-15 MB each, PyArrow's system pool) come from
the heap and stay resident once freed. A fixed threshold of 1 MB (which stops the raising), and
a trim threshold to match, give them back as they are freed: the 500,000 user-day ingest's peak
RSS fell by about 10 MB (docs/benchmarks.md), its CPU the same.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache

# mallopt parameters, glibc's malloc.h
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
_ARENAS = 2
_LARGE = 2**20  # bytes: a block this large or larger is mapped alone, and freed back


@cache  # once per process: every report's ingest asks, the entry points too
def bound_malloc() -> None:
    """Set glibc's arena limit and its mmap and trim thresholds (a no-op where the C library
    is not glibc)."""
    name = ctypes.util.find_library("c")
    if not name:
        return
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return
    mallopt(_M_ARENA_MAX, _ARENAS)
    mallopt(_M_MMAP_THRESHOLD, _LARGE)
    mallopt(_M_TRIM_THRESHOLD, _LARGE)
