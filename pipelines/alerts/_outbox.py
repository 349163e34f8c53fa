"""Alerts not delivered yet, kept in one small JSON file of the data home until they arrive.

What is kept is what the alert says (its title, lines and link, each already through the
redactor) and, for each target it has not reached, a key: a hash of the target's label and its
place among targets of the same label. No URL, key, password or address is kept; an alert names
no person (docs/privacy.md), so neither does the file.

The file is replaced whole and atomically (a synced temporary file renamed over it) under a lock
file, so a crash leaves the old file or the new one, and a run and the daemon's sensor never
lose each other's alerts. Sending is under a second lock, taken without waiting: alerts are
sent by one process at a time, and a process finding it held leaves them to the other.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import stat
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pipelines.alerts._config import Target
from pipelines.alerts._message import Alert

__all__ = ["OUTBOX_NAME", "Outbox", "Pending", "target_key"]

OUTBOX_NAME = "alerts-outbox.json"
_MAX_ALERTS = 100  # a channel down for long: the newest hundred are worth more than a backlog
_MAX_AGE = timedelta(days=7)  # older than a week, an alert tells of a state long changed
_VERSION = 1
# 100 alerts of a few KB each: a file larger than this is none of ours, and is never read whole.
_MAX_FILE_BYTES = 16 << 20


def target_key(targets: Sequence[Target], index: int) -> str:
    """The target's key in the outbox: its label and which of that label it is, hashed (an
    e-mail label names addresses)."""
    label = targets[index].label
    occurrence = sum(1 for target in targets[:index] if target.label == label)
    return hashlib.sha256(f"{label}#{occurrence}".encode()).hexdigest()[:16]


@dataclass
class Pending:
    id: str
    since: str  # when it was first tried, UTC to the second
    alert: Alert
    targets: list[str]  # keys of the targets not reached yet


@dataclass
class _Flush:
    """The kept alerts one sender works through; what arrived is settled, the rest stays."""

    alerts: list[Pending]
    settled: set[tuple[str, str]] = field(default_factory=set)
    tried: bool = False  # whether any was sent: what is still kept is worth a line only then

    def target(self, targets: Sequence[Target], key: str) -> Target | None:
        for index, target in enumerate(targets):
            if target_key(targets, index) == key:
                return target
        return None

    def settle(self, pending: Pending, key: str) -> None:
        self.settled.add((pending.id, key))


class Outbox:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._notes: list[str] = []
        # Keys of targets that let an alert's deadline pass (or were down) while this object
        # lived: later alerts to them are kept at once, so each costs a command one deadline.
        self.passed: set[str] = set()

    def keep(self, alert: Alert, targets: Sequence[str]) -> str | None:
        """Add the alert for these target keys; None, or why it could not be kept."""
        pending = Pending(uuid.uuid4().hex, _now(), alert, list(targets))
        try:
            with self._locked():
                self._write([*self._read(), pending])
        except OSError as exc:
            return f"not kept for a retry: {self.path} could not be written ({exc.strerror or exc})"
        return None

    @contextlib.contextmanager
    def flushing(self) -> Iterator[_Flush | None]:
        """The kept alerts to send, or None while another process sends them; on leaving, those
        settled are removed (alerts kept meanwhile stay)."""
        self._notes = []
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            sending = os.open(self.path.with_name(self.path.name + ".sending"), os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            self._notes.append(f"alerts kept in {self.path} cannot be sent now ({exc.strerror or exc})")
            yield None
            return
        try:
            try:
                fcntl.flock(sending, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield None
                return
            try:
                with self._locked():
                    flush = _Flush(self._read())
            except OSError as exc:
                self._notes.append(f"alerts kept in {self.path} cannot be read now ({exc.strerror or exc})")
                yield None
                return
            yield flush
            with self._locked():
                left = []
                for pending in self._read():
                    pending.targets = [key for key in pending.targets if (pending.id, key) not in flush.settled]
                    if pending.targets:
                        left.append(pending)
                self._write(left)
            if left and flush.tried:
                self._notes.append(
                    f"{len(left)} alert(s) not delivered yet, kept in {self.path}: tried again by the next run or "
                    "sensor tick"
                )
        except OSError as exc:
            self._notes.append(f"alerts kept in {self.path} could not be updated ({exc.strerror or exc})")
        finally:
            os.close(sending)

    def notes(self) -> list[str]:
        """Lines for a person about the last flush: what is still kept, what was dropped and why."""
        return list(self._notes)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = os.open(self.path.with_name(self.path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield
        finally:
            os.close(lock)

    def _read(self) -> list[Pending]:
        try:
            document = json.loads(self._contents())
            if not isinstance(document, dict) or document.get("version") != _VERSION:
                version = document.get("version") if isinstance(document, dict) else None
                raise _Unreadable(f"version {version}, not {_VERSION}")
            kept = [_pending(item) for item in document["alerts"]]
        except FileNotFoundError:
            return []
        except (ValueError, KeyError, TypeError, RecursionError, _Unreadable) as exc:
            # Not ours to guess at (a newer version's file is that version's to read): set it
            # aside whole, say where, and start again.
            why = str(exc) if isinstance(exc, _Unreadable) else type(exc).__name__
            aside = self.path.with_name(f"{self.path.name}.unreadable-{datetime.now(UTC):%Y%m%dT%H%M%SZ}")
            os.replace(self.path, aside)
            self._notes.append(f"{self.path} was unreadable ({why}): moved to {aside}")
            return []
        oldest = (datetime.now(UTC) - _MAX_AGE).isoformat(timespec="seconds")
        fresh = [pending for pending in kept if pending.since >= oldest][-_MAX_ALERTS:]
        if len(fresh) < len(kept):
            self._notes.append(
                f"{len(kept) - len(fresh)} alert(s) kept in {self.path} dropped undelivered: older than "
                f"{_MAX_AGE.days} days or beyond the newest {_MAX_ALERTS}"
            )
        return fresh

    def _contents(self) -> str:
        """The file's text, read only if it is a small regular file: a symlink is not followed,
        and a FIFO, a device or a huge file is never waited on or read whole."""
        try:
            descriptor = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _Unreadable("a symbolic link") from None
            raise
        try:
            status = os.fstat(descriptor)
            if not stat.S_ISREG(status.st_mode):
                raise _Unreadable("not a regular file")
            if status.st_size > _MAX_FILE_BYTES:
                raise _Unreadable(f"{status.st_size} bytes, over {_MAX_FILE_BYTES}")
            return os.read(descriptor, _MAX_FILE_BYTES + 1).decode("utf-8")
        finally:
            os.close(descriptor)

    def _write(self, kept: list[Pending]) -> None:
        if not kept:
            self.path.unlink(missing_ok=True)
            return
        document = {"version": _VERSION, "alerts": [_item(pending) for pending in kept[-_MAX_ALERTS:]]}
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as out:
                json.dump(document, out, ensure_ascii=False, indent=1)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        directory = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)  # the rename itself survives a crash
        finally:
            os.close(directory)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _item(pending: Pending) -> dict[str, Any]:
    # As sent: through the redactor, so no secret a cause quoted is written down.
    alert = pending.alert.cleaned()
    return {
        "id": pending.id,
        "since": pending.since,
        "targets": pending.targets,
        "title": alert.title,
        "lines": list(alert.lines),
        "link": alert.link,
    }


class _Unreadable(Exception):
    """The outbox file is not one this version wrote: why."""


def _pending(item: dict[str, Any]) -> Pending:
    """One kept alert, each field of the type written (a mistyped one would fail later, mid-send)."""
    texts = [item["id"], item["since"], item["title"], *item["lines"], *item["targets"]]
    if not all(isinstance(text, str) for text in texts) or not isinstance(item["link"], str | None):
        raise TypeError("a kept alert's field is mistyped")
    if not isinstance(item["lines"], list) or not isinstance(item["targets"], list):
        raise TypeError("a kept alert's lines or targets are no list")
    alert = Alert(item["title"], tuple(item["lines"]), item["link"])
    return Pending(item["id"], item["since"], alert, list(item["targets"]))
