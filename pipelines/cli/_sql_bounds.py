"""How `metrics-etl sql`'s connection is fenced and bounded: DuckDB may open the lake's files
and a private spill directory only, within a memory and a spill limit (and the process within
the memory limit and a margin), its settings locked; a timer interrupts a statement past the
time limit. Each bound hit is one line naming its setting.

DuckDB cannot allow a directory for reading only (`allowed_directories` lets COPY write there
too): what keeps the lake unwritten is `_statements.refusal`, before any statement runs.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pipelines.cli._base import Failed

if TYPE_CHECKING:
    import duckdb

    from pipelines.config import Settings


@contextlib.contextmanager
def connect_bounded(path: Path, settings: Settings) -> Iterator[duckdb.DuckDBPyConnection]:
    """The serving database, read-only, its connection fenced and bounded (`_lock_down`)."""
    import duckdb

    from pipelines.warehouse.sql import connect, first_meaningful_line

    # DuckDB's default spill directory is beside the database, in the data home: a private one
    # instead, removed with everything in it when the shell ends.
    with contextlib.ExitStack() as stack:
        spill = stack.enter_context(_spill_directory()) if settings.sql_spill_limit else ""
        if spill:
            _SPILLS.add(spill)
            stack.callback(_SPILLS.discard, spill)
            stack.enter_context(_ended_by_signal())
        try:
            conn = stack.enter_context(connect(path, read_only=True))
        except duckdb.Error as exc:
            raise Failed(f"cannot open {path} read-only: {first_meaningful_line(str(exc))}") from None
        _lock_down(conn, settings, spill=spill)
        stack.enter_context(_growth_bound(settings.sql_memory_limit))
        yield conn


@contextlib.contextmanager
def _ended_by_signal() -> Iterator[None]:
    """SIGHUP (the terminal closed) and SIGTERM end the shell as leaving it does, so its spill
    directory is removed: by default they end the process on the spot, leaving it behind."""

    def leave(number: int, _frame: object) -> None:
        raise SystemExit(128 + number)

    if threading.current_thread() is not threading.main_thread():  # only the main thread may handle signals
        yield
        return
    previous = {number: signal.signal(number, leave) for number in (signal.SIGHUP, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@contextlib.contextmanager
def _growth_bound(memory: int) -> Iterator[None]:
    """A backstop under DuckDB's memory_limit, which governs its buffer pool only: a value one
    scalar function builds (`repeat('x', 10^9)`) is allocated outside it. While the shell runs
    the process may grow by the limit and a margin, no more (Linux's RLIMIT_DATA): past it an
    allocation fails, and DuckDB says Out of Memory."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:  # not Linux: DuckDB's own limit only
        yield
        return
    used = next(int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmData:"))
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    bound = used + memory + memory // 4 + 256 * 1024**2  # the margin: Python, Arrow batches, the table
    for limit in (soft, hard):
        if limit != resource.RLIM_INFINITY:
            bound = min(bound, limit)
    resource.setrlimit(resource.RLIMIT_DATA, (bound, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


def _spill_directory() -> tempfile.TemporaryDirectory[str]:
    from pipelines.config import ENV_VARS

    try:
        return tempfile.TemporaryDirectory(prefix="metrics-etl-sql-")
    except OSError as exc:
        raise Failed(
            f"cannot make a spill directory in {tempfile.gettempdir()}: {exc.strerror} (set TMPDIR to a "
            f"writable directory, or {ENV_VARS['sql_spill_limit']}=0 for no spill)"
        ) from None


def _lock_down(conn: duckdb.DuckDBPyConnection, settings: Settings, *, spill: str) -> None:
    """Files: the lake's only (statements that write are refused: DuckDB would let them write
    there) and the spill directory; bounded memory and spill; no extension; locked."""
    from pipelines.publish.lake import glob_literal

    # The views name the lake by its resolved path, as a file pattern (a `[` in it escaped); a
    # symlinked LAKE_PATH is allowed as given too.
    lake = settings.lake_path
    roots = {str(lake.absolute()), str(lake.resolve())}
    lakes = sorted({f"{root}{os.sep}" for root in roots} | {f"{glob_literal(root)}{os.sep}" for root in roots})
    conn.execute("SET allowed_directories = $dirs", {"dirs": lakes})
    conn.execute("SET memory_limit = $bytes", {"bytes": f"{settings.sql_memory_limit} bytes"})
    conn.execute("SET temp_directory = $dir", {"dir": spill})  # '': nothing spills
    conn.execute("SET max_temp_directory_size = $bytes", {"bytes": f"{settings.sql_spill_limit} bytes"})
    for statement in (
        "SET explain_output = 'physical_only'",  # the plan `refusal` reads
        "SET enable_progress_bar = false",  # DuckDB draws it on stdout, inside the rows of a slow answer
        "SET allow_persistent_secrets = false",
        "SET python_enable_replacements = false",  # no Python object of this process is a table
        "SET enable_external_access = false",
        "SET autoinstall_known_extensions = false",
        "SET autoload_known_extensions = false",
        "SET lock_configuration = true",
    ):
        conn.execute(statement)


# After the interrupt, how long DuckDB may take to stop before the shell's process ends instead.
_GRACE = 2.0
_SPILLS: set[str] = set()  # the spill directories of this process, removed by a hard stop too


@contextlib.contextmanager
def deadline(conn: duckdb.DuckDBPyConnection, settings: Settings) -> Iterator[threading.Event]:
    """Interrupts what `conn` runs once the time limit has passed (DuckDB stops at its next check
    and the statement fails); the event yielded says whether that happened. No interrupt reaches
    DuckDB's parser or planner (600,000 columns take a minute): still running `_GRACE` seconds
    later, the process ends with the time limit's line, its spill directory removed."""
    passed = threading.Event()

    def stop() -> None:
        passed.set()
        conn.interrupt()

    def end() -> None:
        sys.stderr.write(f"metrics-etl sql: {_past_time_limit(settings)}\n")
        sys.stderr.flush()
        for spill in _SPILLS:
            shutil.rmtree(spill, ignore_errors=True)
        os._exit(1)  # the thread DuckDB holds cannot be stopped; the process can

    timers = [threading.Timer(settings.sql_timeout, stop), threading.Timer(settings.sql_timeout + _GRACE, end)]
    for timer in timers:
        timer.daemon = True
        timer.start()
    try:
        yield passed
    finally:
        for timer in timers:
            timer.cancel()
            timer.join()  # gone before the interpreter may end: a live timer would hold the connection


def limit_hit(settings: Settings, exc: Exception, *, timed_out: bool) -> str | None:
    """The line for a statement stopped by one of the shell's bounds, or None."""
    from pipelines.config import ENV_VARS

    if timed_out:
        return _past_time_limit(settings)
    if isinstance(exc, MemoryError) or "Out of Memory Error" in str(exc):
        return (
            f"the query needed more than the SQL shell's memory limit of {_size(settings.sql_memory_limit)} "
            f"({ENV_VARS['sql_memory_limit']}) with its spill limit of {_size(settings.sql_spill_limit)} "
            f"({ENV_VARS['sql_spill_limit']}): narrow it, or raise a limit"
        )
    return None


def _past_time_limit(settings: Settings) -> str:
    from pipelines.config import ENV_VARS

    return (
        f"the query ran past the SQL shell's time limit of {settings.sql_timeout:g} s "
        f"({ENV_VARS['sql_timeout']}): narrow it, or raise the limit"
    )


def _size(size: int) -> str:
    for unit, name in ((1024**3, "GiB"), (1024**2, "MiB"), (1024, "KiB")):
        if size >= unit:
            return f"{size / unit:.3g} {name}"
    return f"{size} bytes"
