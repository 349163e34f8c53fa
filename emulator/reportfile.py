"""A large user-level report written to disk once, for the emulator to serve in benchmarks.

The file is generated while written (memory stays flat), hashed on the way, and described by
a sidecar JSON next to it. A second call with the same parameters finds the sidecar and the
file of the recorded size and returns at once.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from emulator.reportdata import ReportData

# Bump when the generator's output changes, so stale files are written again.
GENERATOR_VERSION = 5  # 5: the app, VS Code agent and adoption phase objects
_USERS_PER_CHUNK = 2_000
_WRITE_BUFFER = 1 << 20


def sidecar_path(path: Path) -> Path:
    """Where the parameters and sha256 of a report file are kept."""
    return path.with_name(path.name + ".meta.json")


def report_file_meta(path: Path) -> dict[str, Any]:
    """The sidecar of a written report file: its parameters, bytes, lines and sha256."""
    return json.loads(sidecar_path(Path(path)).read_text())


def write_report_file(
    path: Path,
    *,
    seed: int,
    users: int,
    day: date,
    days: int = 1,
    scope: str = "organization",
    org: str = "acme",
    enterprise: str = "acme-corp",
    first_day: date | None = None,
) -> Path:
    """Write the user-level NDJSON of `days` days from `day` (every user, every day), once.

    Lines come in chunks of 2,000 users, each chunk with all its days in order, so memory
    stays flat however many users there are.

    `first_day` is the emulated history's first day (it places the agent rename); by default
    60 days before `day`, as in the emulator's default history.
    """
    path = Path(path)
    params: dict[str, Any] = {
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "users": users,
        "day": day.isoformat(),
        "days": days,
        "scope": scope,
        "org": org,
        "enterprise": enterprise,
        "first_day": (first_day or day - timedelta(days=60)).isoformat(),
    }
    if _is_current(path, params):
        return path

    def generator() -> ReportData:
        return ReportData(
            seed=seed, users=users, org=org, enterprise=enterprise, first_day=date.fromisoformat(params["first_day"])
        )

    size = generator().user_count(scope=scope)
    day_list = [day + timedelta(days=i) for i in range(days)]
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    digest = hashlib.sha256()
    written = lines = 0
    with open(partial, "wb", buffering=_WRITE_BUFFER) as out:
        for start in range(0, size, _USERS_PER_CHUNK):
            stop = min(size, start + _USERS_PER_CHUNK)
            # A fresh generator per chunk keeps only that chunk's user profiles in memory.
            data = generator()
            for d in day_list:
                chunk = b"".join(
                    data.user_lines(scope=scope, days=[d], completeness_for=_final, start=start, stop=stop)
                )
                out.write(chunk)
                digest.update(chunk)
                written += len(chunk)
                lines += stop - start
    os.replace(partial, path)
    meta = {**params, "bytes": written, "lines": lines, "sha256": digest.hexdigest()}
    sidecar_path(path).write_text(json.dumps(meta, indent=2) + "\n")
    return path


def _final(_: date) -> float:
    return 1.0


def _is_current(path: Path, params: dict[str, Any]) -> bool:
    try:
        meta = json.loads(sidecar_path(path).read_text())
        size = path.stat().st_size
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and {k: meta.get(k) for k in params} == params and meta.get("bytes") == size
