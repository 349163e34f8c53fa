"""Persistent store of validators (ETag, Last-Modified) and bodies for conditional GETs.

sqlite3 from the standard library: this package must not import DuckDB, and a small
key-value table with one writer at a time is what sqlite does well.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pipelines._paths import SQL_DIR


@cache
def _sql(name: str) -> str:
    return (SQL_DIR / "http_cache" / f"{name}.sql").read_text(encoding="utf-8")


@dataclass(frozen=True)
class CachedEntry:
    etag: str | None
    last_modified: str | None
    body: bytes


class ConditionalCache:
    def __init__(self, *, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30.0)
        self._db.execute(_sql("create_conditional_cache"))
        self._lock = threading.Lock()

    @staticmethod
    def key(*, identity: str, url: str) -> str:
        # The identity is already a hash; the key hides which URL was asked, too.
        return hashlib.sha256(f"{identity}\0{url}".encode()).hexdigest()

    def get(self, *, key: str) -> CachedEntry | None:
        with self._lock:
            row = self._db.execute(_sql("select_conditional_entry"), (key,)).fetchone()
        return CachedEntry(etag=row[0], last_modified=row[1], body=bytes(row[2])) if row else None

    def put(self, *, key: str, entry: CachedEntry) -> None:
        with self._lock:
            self._db.execute(
                _sql("upsert_conditional_entry"), (key, entry.etag, entry.last_modified, entry.body)
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()
