"""The lake's versions: each publish makes a whole one, and readers take the newest whose time has come.

A version is a directory `LAKE/publish=<N>/` holding every table's files (most of them hard
links to the previous version's: the partitions a run did not change) and a marker file,
`_published`. It is built under a name no reader's glob matches (`.publishing-<pid>`) and made
visible by one rename, so a reader never meets half of one.

N counts down: COUNTDOWN minus the microsecond since the epoch from which the version is the one
readers take (`visible_from`). So the newest version sorts first, and DuckDB, which takes a
glob's columns from its first file, takes them from the newest: after a migration adds a
column, the new views would otherwise fail on the old version's files until it is removed.

The serving database's views read every version's files and keep the newest version visible
when the reader's transaction began (DuckDB's current_timestamp, one per transaction), so every
table of a query reads the same version even when a publish renames a new one in between their
globs: a version is renamed in before its time (MARGIN_US), and a publish returns only once
that time has passed, so the caller's next query sees it.

A superseded version is removed by a later publish once GRACE has passed since it was superseded
(a query still reading it has that long); the newest never. `LAKE/current` links to the newest,
for engines that read plain paths (Spark, Polars, PyArrow, Trino).
"""

from __future__ import annotations

import itertools
import os
import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

KEY = "publish"  # the hive column of a version's directory
COUNTDOWN = 9_999_999_999_999_999  # N = COUNTDOWN - visible_from: 16 digits (so sorted as numbers) until the year 2255
MARKER = "_published"  # one per version: the views list versions by it (DuckDB's glob lists files only)
CURRENT = "current"
# How long a superseded version stays for the queries still reading it.
GRACE = timedelta(minutes=10)
# Between the rename and the moment a version is taken: a rename takes microseconds, so only a
# stalled process (swapped out, paused) finishes it later, and a publish then says so.
MARGIN_US = 500_000
_STAGING = ".publishing-"
_REMOVING = ".removing-"
_LINKING = f".{CURRENT}."  # the next `current`, before it replaces the last


@dataclass(frozen=True)
class Version:
    path: Path
    visible_from: int  # microseconds since the epoch


def now_us() -> int:
    return time.time_ns() // 1000


def versions(lake: Path) -> list[Version]:
    """The lake's versions, newest first."""
    found: list[Version] = []
    try:
        entries = list(os.scandir(lake))
    except FileNotFoundError:
        return []
    for entry in entries:
        key, _, number = entry.name.partition("=")
        if key == KEY and number.isdigit() and os.path.isfile(os.path.join(entry.path, MARKER)):
            found.append(Version(Path(entry.path), COUNTDOWN - int(number)))
    return sorted(found, key=lambda v: v.visible_from, reverse=True)


class ClockSetBack(Exception):
    """The newest version is dated far ahead of the clock: the next could not be visible before it."""


def start(lake: Path, newest: Version | None) -> Path:
    """An empty directory for the next version, under a name no reader's glob matches.

    What a publish that crashed left is removed first: one publish at a time writes a lake, since
    it holds the warehouse's only writing connection.
    """
    if newest is not None and newest.visible_from > now_us() + GRACE // timedelta(microseconds=1):
        since = datetime.fromtimestamp(newest.visible_from / 1_000_000, UTC).isoformat(timespec="seconds")
        raise ClockSetBack(
            f"the lake's newest version {newest.path} is visible only from {since}, later than this machine's "
            "clock: the clock was set back since it was published; remove that directory and publish again"
        )
    lake.mkdir(parents=True, exist_ok=True)
    for entry in os.scandir(lake):
        if entry.name.startswith(_LINKING):
            os.unlink(entry.path)
        elif entry.name.startswith((_STAGING, _REMOVING)):
            shutil.rmtree(entry.path, ignore_errors=True)
    staging = lake / f"{_STAGING}{os.getpid()}"
    staging.mkdir()
    return staging


def make_visible(staging: Path, previous: Version | None, *, margin_us: int = MARGIN_US) -> tuple[Version, int]:
    """Rename the built version into place and point `current` at it: the version, and by how
    many microseconds the rename finished after the version's time (0 when in time)."""
    (staging / MARKER).touch()
    visible = max(now_us() + margin_us, previous.visible_from + 1 if previous is not None else 0)
    target = staging.parent / f"{KEY}={COUNTDOWN - visible}"
    os.rename(staging, target)
    late = max(0, now_us() - visible)
    link = staging.parent / f"{_LINKING}{os.getpid()}"
    link.symlink_to(target.name)  # relative: the lake can move with its data home
    os.replace(link, staging.parent / CURRENT)
    return Version(target, visible), late


def wait_until(visible_from: int) -> None:
    """Return once the version is the one readers take."""
    while (left := visible_from - now_us()) > 0:
        time.sleep(left / 1_000_000)


def remove_superseded(lake: Path, *, legacy: list[str], grace: timedelta = GRACE) -> None:
    """Remove the versions superseded more than `grace` ago, and the tables' directories of a lake
    published before versions (`legacy`: superseded by the oldest version)."""
    found = versions(lake)
    cutoff = now_us() - grace // timedelta(microseconds=1)
    for newer, older in itertools.pairwise(found):
        if newer.visible_from <= cutoff:
            _remove(older.path)
    if found and found[-1].visible_from <= cutoff:
        for name in legacy:
            if (lake / name).is_dir():
                _remove(lake / name)


def _remove(path: Path) -> None:
    # Out of every glob in one rename, then deleted at leisure.
    hidden = path.with_name(f"{_REMOVING}{path.name}")
    os.rename(path, hidden)
    shutil.rmtree(hidden)
