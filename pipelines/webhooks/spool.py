"""Append-only, checksummed spool of accepted deliveries, with group commit.

A spool directory holds segment files; each receiver process writes its own segment (a new one
per start, rotated by size, and after any failed write), so a segment is only ever appended to
by one writer and a torn record can only be its last one. The record format and reading
segments back are in `segments.py`. Concurrent deliveries share one write and one fdatasync;
each is acknowledged only after the fdatasync covering its bytes has returned.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pipelines.webhooks.errors import SpoolWriteError
from pipelines.webhooks.segments import SEGMENT_SUFFIX, SpoolRecord, encode_record

_log = logging.getLogger(__name__)

# What the health check writes and syncs after a failed write, to see whether writing works again.
_PROBE_BYTES = 64 * 1024


class _RecentIds:
    """Bounded memory of delivery ids already made durable by this process."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._ids: OrderedDict[str, None] = OrderedDict()

    def __contains__(self, delivery_id: str) -> bool:
        return delivery_id in self._ids

    def add(self, delivery_id: str) -> None:
        self._ids[delivery_id] = None
        if len(self._ids) > self._capacity:
            self._ids.popitem(last=False)


class Spool:
    """The writing side, used from one asyncio event loop."""

    def __init__(
        self,
        *,
        directory: Path,
        segment_bytes: int = 64 << 20,
        recent_ids: int = 100_000,
        min_free_bytes: int = 25 << 20,
    ) -> None:
        self.directory = directory
        self._segment_bytes = segment_bytes
        self._min_free_bytes = min_free_bytes
        self._write_failed = False
        self._fd: int | None = None
        self._path: Path | None = None
        self._segment_size = 0
        self._sequence = 0
        self._queue: list[tuple[bytes, asyncio.Future[None]]] = []
        self._flushing = False
        self._inflight: dict[str, asyncio.Future[None]] = {}
        self._recent = _RecentIds(recent_ids)
        self.records_written = 0
        self.flushes = 0
        # One thread: writes stay ordered, and the event loop keeps serving while one fsyncs.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spool-writer")

    def ready(self) -> bool:
        """True when a delivery can be made durable now: blocking (it may write a probe file).

        Not ready when the directory cannot be created or written, when its file system has
        less free space than one delivery at the size cap, or when the last write failed and a
        probe write still fails (a successful write or probe clears that).
        """
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            usage = os.statvfs(self.directory)
        except OSError:
            return False
        if not (self.directory.is_dir() and os.access(self.directory, os.W_OK | os.X_OK)):
            return False
        if usage.f_bavail * usage.f_frsize < self._min_free_bytes:
            return False
        if self._write_failed:
            self._write_failed = not self._probe()
        return not self._write_failed

    def _probe(self) -> bool:
        probe = self.directory / f".probe-{os.getpid()}"
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                view = memoryview(bytes(_PROBE_BYTES))
                while view:  # a short write is not success: the next one says why it stopped
                    view = view[os.write(fd, view) :]
                os.fdatasync(fd)
            finally:
                os.close(fd)
        except OSError:
            return False
        finally:
            probe.unlink(missing_ok=True)
        return True

    async def append(self, record: SpoolRecord) -> bool:
        """Make `record` durable; False when this process already stored that delivery id."""
        pending = self._inflight.get(record.delivery_id)
        if pending is not None:
            await asyncio.shield(pending)
            return False
        if record.delivery_id in self._recent:
            return False
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._inflight[record.delivery_id] = future
        self._queue.append((encode_record(record), future))
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().create_task(self._flush_loop())
        try:
            # Shielded: a sender hanging up must not cancel the write others share.
            await asyncio.shield(future)
        finally:
            del self._inflight[record.delivery_id]
        self._recent.add(record.delivery_id)
        return True

    async def _flush_loop(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                blob = b"".join(data for data, _ in batch)
                try:
                    await loop.run_in_executor(self._executor, self._write_durably, blob)
                except Exception as exc:  # any failure must answer the waiting requests, never hang them
                    self._write_failed = True
                    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
                    error = SpoolWriteError(f"spool write failed in {self.directory}: {reason}")
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(error)
                else:
                    self._write_failed = False
                    self.records_written += len(batch)
                    self.flushes += 1
                    for _, future in batch:
                        if not future.done():
                            future.set_result(None)
        finally:
            self._flushing = False

    def _write_durably(self, blob: bytes) -> None:
        if self._fd is not None and self._segment_size and self._segment_size + len(blob) > self._segment_bytes:
            self._close_segment()
        if self._fd is None:
            self._open_segment()
        assert self._fd is not None
        start = self._segment_size
        try:
            view = memoryview(blob)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
                self._segment_size += written
            os.fdatasync(self._fd)
        except Exception:
            # None of this batch was acknowledged: cut it off (a segment left empty goes), and
            # never append to this segment again in case the cut failed too.
            self._discard_from(start)
            raise

    def _open_segment(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._sequence += 1
        final = self.directory / f"{time.time_ns():020d}-{os.getpid()}-{self._sequence:04d}{SEGMENT_SUFFIX}"
        staging = final.with_name(final.name + ".new")
        fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        try:
            # Locked before it is visible under its segment name: pruning never takes a live segment.
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.rename(staging, final)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        self._path = final
        self._segment_size = 0
        # The new name must survive a crash too, not only the bytes written under it.
        dir_fd = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def _discard_from(self, start: int) -> None:
        assert self._fd is not None and self._path is not None
        try:
            if start == 0:
                self._path.unlink()
            else:
                os.ftruncate(self._fd, start)
        except OSError:
            pass  # a torn last record is skipped by the loader and its sender retries
        self._close_segment()

    def _close_segment(self) -> None:
        self._path = None
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                os.close(fd)

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        self._close_segment()
        _log.info("spool closed: %d records in %d fdatasyncs", self.records_written, self.flushes)
