"""Conditional GETs: validators (ETag, Last-Modified) and bodies kept in SQLite, a 304 answered from them.

A request opts in by naming whose view it asks for in ``request.extensions[CACHE_IDENTITY]``
(a hash, never the credential): two tokens may see different bodies behind one URL. A 304 to
a request that sent validators comes back as a 200 with the stored body and the 304's headers
(its rate-limit budget is the current one), marked ``response.extensions[NOT_MODIFIED]``.

sqlite3 from the standard library: this package must not import DuckDB, and a small key-value
table with one writer at a time is what sqlite does well. One client is shared by download
threads, so every use of the connection holds a lock.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import httpx

__all__ = ["CACHE_IDENTITY", "NOT_MODIFIED", "CachingTransport", "forget_cached"]

CACHE_IDENTITY = "metrics_etl.cache_identity"
NOT_MODIFIED = "metrics_etl.not_modified"

_SQL = Path(__file__).parent / "sql"
# The body is stored decoded, so an answer rebuilt from it has no framing of its own.
_FRAMING = ("content-encoding", "content-length", "transfer-encoding")


@dataclass(frozen=True)
class _Entry:
    etag: str | None
    last_modified: str | None
    body: bytes


class CachingTransport(httpx.BaseTransport):
    def __init__(self, inner: httpx.BaseTransport, *, path: Path) -> None:
        self._inner = inner
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30.0)
        self._db.execute(_sql("create_conditional_cache"))
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        identity = request.extensions.get(CACHE_IDENTITY)
        if not isinstance(identity, str) or request.method != "GET":
            return self._inner.handle_request(request)
        key = _key(identity=identity, url=str(request.url))
        entry = self._get(key)
        if entry is not None:
            if entry.etag:
                request.headers["If-None-Match"] = entry.etag
            if entry.last_modified:
                request.headers["If-Modified-Since"] = entry.last_modified
        response = self._inner.handle_request(request)
        if response.status_code == 304 and entry is not None:
            response.close()
            return _rebuilt(response, status=200, body=entry.body, not_modified=True)
        etag, modified = response.headers.get("etag"), response.headers.get("last-modified")
        if response.status_code != 200 or not (etag or modified):
            return response
        body = response.read()
        self._put(key, _Entry(etag=etag, last_modified=modified, body=body))
        return _rebuilt(response, status=200, body=body, not_modified=False)

    def close(self) -> None:
        with self._lock:
            self._db.close()
        self._inner.close()

    def _get(self, key: str) -> _Entry | None:
        with self._lock:
            row = self._db.execute(_sql("select_conditional_entry"), (key,)).fetchone()
        return _Entry(etag=row[0], last_modified=row[1], body=bytes(row[2])) if row else None

    def _put(self, key: str, entry: _Entry) -> None:
        with self._lock:
            self._db.execute(_sql("upsert_conditional_entry"), (key, entry.etag, entry.last_modified, entry.body))


def forget_cached(path: Path, names: Callable[[bytes], bool]) -> int:
    """Remove every cached answer whose body `names` says names a person; how many went.

    A removed entry only costs the next request its validators: it is asked for whole again.
    Deleted pages are overwritten (secure_delete) and the file vacuumed, so no copy of a
    removed body is left in its free pages.
    """
    if not path.is_file():
        return 0
    db = sqlite3.connect(path, isolation_level=None, timeout=30.0)
    try:
        db.execute("PRAGMA secure_delete = ON")
        keys = [key for key, body in db.execute(_sql("select_conditional_bodies")) if names(bytes(body))]
        if keys:
            db.execute("BEGIN")
            db.executemany(_sql("delete_conditional_entry"), [(key,) for key in keys])
            db.execute("COMMIT")
            db.execute("VACUUM")
    finally:
        db.close()
    return len(keys)


def _key(*, identity: str, url: str) -> str:
    # The identity is already a hash; the key hides which URL was asked, too.
    return hashlib.sha256(f"{identity}\0{url}".encode()).hexdigest()


def _rebuilt(response: httpx.Response, *, status: int, body: bytes, not_modified: bool) -> httpx.Response:
    headers = [(name, value) for name, value in response.headers.multi_items() if name.lower() not in _FRAMING]
    extensions = {k: v for k, v in response.extensions.items() if k != "reason_phrase"}
    if not_modified:
        extensions[NOT_MODIFIED] = True
    return httpx.Response(status, headers=headers, content=body, extensions=extensions)


@cache
def _sql(name: str) -> str:
    return (_SQL / f"{name}.sql").read_text(encoding="utf-8")
