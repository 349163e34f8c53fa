"""The pseudonymous tier: per-user rows for analysis that needs a stable key and must not name
anyone (docs/privacy.md).

With METRICS_PSEUDONYM_KEY set, each publish writes beside SERVING_PATH, in a directory of its
own (`pseudonymous/`), `lake/user_daily/data.parquet` and `serving-pseudonymous.duckdb`, a view
over it: core.user_daily_totals' figures with `pseudonym` in place of the user id and login,
the hex HMAC-SHA256 of "pseudonym:<user id>" under the key. The same user has the same
pseudonym in every publish while the key stays; the label keeps it apart from the erased
people's hashes. The key is never written: the pseudonyms are computed here for the distinct
user ids and handed to DuckDB as an in-memory table. A row is still about one person, so the
directory is for the readers docs/privacy.md names, never the aggregate tier. Written whole,
like the aggregate tier, so an erasure or retention reaches it at the next publish.
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import duckdb
import pyarrow as pa

from pipelines.warehouse.aggregate import build_views, write_aside
from pipelines.warehouse.sql import run_sql

__all__ = ["PSEUDONYMOUS_TABLES", "pseudonym", "pseudonymous_lake", "pseudonymous_serving", "publish_pseudonymous"]

DIRECTORY = "pseudonymous"  # beside SERVING_PATH
SCHEMA = "pseudonymous"
PSEUDONYMOUS_TABLES = ("user_daily",)
_VIEW = "pseudonyms"


def pseudonym(key: str, user_id: int) -> str:
    return hmac.new(key.encode(), f"pseudonym:{user_id}".encode(), hashlib.sha256).hexdigest()


def pseudonymous_lake(serving: Path) -> Path:
    return serving.parent / DIRECTORY / "lake"


def pseudonymous_serving(serving: Path) -> Path:
    return serving.parent / DIRECTORY / f"{serving.stem}-pseudonymous{serving.suffix}"


def publish_pseudonymous(conn: duckdb.DuckDBPyConnection, *, serving: Path, key: str) -> Path:
    """Write the pseudonymous tables and their serving database into the directory beside `serving`."""
    user_ids = [user_id for (user_id,) in run_sql(conn, "pseudonymous/select_user_ids.sql")]
    conn.register(_VIEW, pa.table({"user_id": pa.array(user_ids, pa.int64()),
                                   "pseudonym": [pseudonym(key, user_id) for user_id in user_ids]}))
    try:
        root = pseudonymous_lake(serving)
        for name in PSEUDONYMOUS_TABLES:
            run_sql(conn, f"pseudonymous/{name}.sql")
            write_aside(conn.sql(f"SELECT * FROM pseudonymous_{name}").to_arrow_table(), root / name)
            conn.execute(f"DROP TABLE pseudonymous_{name}")
    finally:
        conn.unregister(_VIEW)
    return build_views(root, pseudonymous_serving(serving), schema=SCHEMA, names=PSEUDONYMOUS_TABLES)
