"""The pseudonymous tier: per-user rows for analysis that needs a stable key and must not name
anyone (docs/privacy.md).

With METRICS_PSEUDONYM_KEY set, each publish writes beside SERVING_PATH, in a directory of its
own (`pseudonymous/`), `lake/user_daily/day=<day>/data.parquet` and `serving-pseudonymous.duckdb`,
a view over them: core.user_daily_totals' figures with `pseudonym` in place of the user id and
login, the hex HMAC-SHA256 of "pseudonym:<user id>" under the key. The same user has the same
pseudonym in every publish while the key stays; the label keeps it apart from the erased
people's hashes. The key is never written: the pseudonyms are computed here for the user ids of
the days written and handed to DuckDB as an in-memory table. A row is still about one person,
so the directory is for the readers docs/privacy.md names, never the aggregate tier.

Run after the lake's publish: a day is written again only when the lake's file of that day of
core.user_daily_totals (as meta.lake_files recorded it) is not the one it was made from, so a
daily run writes its few days, and an erasure or retention reaches the tier with the lake. Each
day's file is replaced by a rename. `_sources.json` records what each day was made from, under
a keyed fingerprint and the SQL's checksum: another key or definition writes every day again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
from datetime import date
from pathlib import Path

import duckdb
import pyarrow as pa

from pipelines._paths import SQL_DIR
from pipelines.publish._published import DATA_FILE
from pipelines.publish.aggregate import build_views, write_aside
from pipelines.warehouse.sql import run_sql

__all__ = ["PSEUDONYMOUS_TABLES", "pseudonym", "pseudonymous_lake", "pseudonymous_serving", "publish_pseudonymous"]

DIRECTORY = "pseudonymous"  # beside SERVING_PATH
SCHEMA = "pseudonymous"
PSEUDONYMOUS_TABLES = ("user_daily",)
_TABLE = "user_daily"
_VIEW = "pseudonyms"
_SOURCES = "_sources.json"
_EMPTY = "__HIVE_DEFAULT_PARTITION__"  # the partition that gives the view its columns with no day


def pseudonym(key: str, user_id: int) -> str:
    return hmac.new(key.encode(), f"pseudonym:{user_id}".encode(), hashlib.sha256).hexdigest()


def pseudonymous_lake(serving: Path) -> Path:
    return serving.parent / DIRECTORY / "lake"


def pseudonymous_serving(serving: Path) -> Path:
    return serving.parent / DIRECTORY / f"{serving.stem}-pseudonymous{serving.suffix}"


def _made_with(key: str) -> str:
    """What every day was made with: the key (by a keyed hash of a label, which tells nothing
    of it) and the definition."""
    definition = hashlib.sha256((SQL_DIR / "pseudonymous" / f"{_TABLE}.sql").read_bytes()).hexdigest()
    return hmac.new(key.encode(), b"pseudonymous sources", hashlib.sha256).hexdigest() + ":" + definition


def _recorded(root: Path, made_with: str) -> dict[str, str] | None:
    """Each day's source as the last write recorded it, for the days whose file is still there;
    None when the tier was made with another key or definition (or never)."""
    try:
        sources = json.loads((root / _SOURCES).read_text())
    except (FileNotFoundError, ValueError):
        return None
    if not isinstance(sources, dict) or sources.get("made_with") != made_with:
        return None
    days = sources.get("days", {})
    return {day: source for day, source in days.items() if (root / f"day={day}" / DATA_FILE).is_file()}


def _write_json(path: Path, value: object) -> None:
    staging = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    staging.write_text(json.dumps(value, sort_keys=True))
    os.replace(staging, path)


def _register_pseudonyms(conn: duckdb.DuckDBPyConnection, key: str, days: list[date]) -> None:
    user_ids = [user_id for (user_id,) in run_sql(conn, "pseudonymous/select_user_ids.sql", days=days)]
    conn.register(
        _VIEW,
        pa.table(
            {"user_id": pa.array(user_ids, pa.int64()), "pseudonym": [pseudonym(key, user_id) for user_id in user_ids]}
        ),
    )


def publish_pseudonymous(conn: duckdb.DuckDBPyConnection, *, serving: Path, key: str) -> Path:
    """Write the days of the pseudonymous tier whose lake file changed, remove the days the lake
    no longer has, and build its serving database beside `serving`."""
    root = pseudonymous_lake(serving) / _TABLE
    root.mkdir(parents=True, exist_ok=True)
    made_with = _made_with(key)
    sources: dict[str, str] = {}
    for path, size, mtime_ns in run_sql(conn, "pseudonymous/select_user_days.sql"):
        value = path.split("/")[1].split("=", 1)[1]
        if value != _EMPTY:
            sources[value] = f"{size}:{mtime_ns}"
    recorded = _recorded(root, made_with)
    stale = sorted(day for day, source in sources.items() if (recorded or {}).get(day) != source)
    columns_anew = recorded is None or not (root / f"day={_EMPTY}" / DATA_FILE).is_file()
    if stale or columns_anew:
        _register_pseudonyms(conn, key, [date.fromisoformat(day) for day in stale])
        try:
            if columns_anew:
                write_aside(conn.sql(_select(), params={"day": None}).to_arrow_table(), root / f"day={_EMPTY}")
            for day in stale:
                write_aside(
                    conn.sql(_select(), params={"day": date.fromisoformat(day)}).to_arrow_table(), root / f"day={day}"
                )
        finally:
            conn.unregister(_VIEW)
    for entry in os.scandir(root):
        value = entry.name.partition("=")[2]
        if entry.is_dir() and value not in sources and value != _EMPTY:
            # A day the lake no longer has (retention): out of the readers' glob in one rename.
            hidden = root.parent / f".removing-{entry.name}"
            shutil.rmtree(hidden, ignore_errors=True)  # what a crash in here left
            os.rename(entry.path, hidden)
            shutil.rmtree(hidden)
    _write_json(root / _SOURCES, {"made_with": made_with, "days": sources})
    return build_views(
        pseudonymous_lake(serving),
        pseudonymous_serving(serving),
        schema=SCHEMA,
        names=PSEUDONYMOUS_TABLES,
        partitioned={_TABLE: "day"},
    )


def _select() -> str:
    return (SQL_DIR / "pseudonymous" / f"{_TABLE}.sql").read_text()
