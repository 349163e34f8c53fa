"""Bytes per user-day of a warehouse, table by table, and what narrowing core.breakdowns would save.

    .venv/bin/python -m benchmarks.storage --warehouse PATH [--lake DIR]

Each table is copied alone into a fresh DuckDB file (DuckDB compresses per column and row
group, so a table's own file is its honest size); sizes are divided by the user-days of
core.user_daily_totals. core.breakdowns is measured three ways: as landed; without
user_login; and with (scope, scope_name, level, day, user_id, user_login) replaced by one
BIGINT record key, the narrowest long form (BI would then join to read it). With --lake, the
lake's Parquet bytes per table too. Figures, not asserts; read-only on the warehouse.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import duckdb

_TABLES = ("daily_totals", "user_daily_totals", "breakdowns", "agent_activity", "agent_days")
_BREAKDOWN_VARIANTS = {
    "breakdowns without user_login": "SELECT * EXCLUDE (user_login) FROM src.core.breakdowns",
    "breakdowns keyed by one record id": (
        "SELECT dense_rank() OVER (ORDER BY scope, scope_name, level, day, user_id) AS record_id, "
        "* EXCLUDE (scope, scope_name, level, day, user_id, user_login) FROM src.core.breakdowns "
        "ORDER BY record_id"
    ),
}


def _size_alone(con: duckdb.DuckDBPyConnection, query: str, work: Path, name: str) -> int:
    """The file size of a fresh database holding only the query's rows."""
    path = work / f"{name.replace(' ', '_')}.duckdb"
    con.execute("ATTACH ? AS alone", [str(path)])
    try:
        # The query text is ours (the constants above); nothing from input is formatted in.
        con.execute(f"CREATE TABLE alone.t AS {query}")
    finally:
        con.execute("DETACH alone")
    return path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--warehouse", type=Path, required=True, help="a warehouse (opened read-only)")
    parser.add_argument("--lake", type=Path, help="the lake directory (LAKE_PATH), for its Parquet bytes per table")
    args = parser.parse_args()
    con = duckdb.connect()
    con.execute("ATTACH ? AS src (READ_ONLY)", [str(args.warehouse)])
    user_days = con.execute("SELECT count(*) FROM src.core.user_daily_totals").fetchone()[0]
    total = args.warehouse.stat().st_size
    print(
        f"warehouse {total / 1e6:,.1f} MB, {user_days:,} user-days: {total / max(user_days, 1):.1f} bytes per user-day"
    )
    with tempfile.TemporaryDirectory(prefix="bench-storage-") as tmp:
        work = Path(tmp)
        print(f"{'table alone':40} {'MB':>9} {'B/user-day':>11} {'rows':>12}")
        for table in _TABLES:
            rows = con.execute(f"SELECT count(*) FROM src.core.{table}").fetchone()[0]
            size = _size_alone(con, f"SELECT * FROM src.core.{table}", work, table)
            print(f"{'core.' + table:40} {size / 1e6:9.1f} {size / max(user_days, 1):11.1f} {rows:12,}")
        for name, query in _BREAKDOWN_VARIANTS.items():
            size = _size_alone(con, query, work, name)
            print(f"{name:40} {size / 1e6:9.1f} {size / max(user_days, 1):11.1f}")
    if args.lake:
        print(f"\n{'lake (zstd Parquet)':40} {'MB':>9} {'B/user-day':>11} {'files':>12}")
        newest = (args.lake / "current").resolve()  # the newest version: the others are mostly links to it
        for directory in sorted(p for p in newest.iterdir() if p.is_dir()):
            files = list(directory.rglob("*.parquet"))
            size = sum(f.stat().st_size for f in files)
            print(f"{directory.name:40} {size / 1e6:9.1f} {size / max(user_days, 1):11.1f} {len(files):12,}")


if __name__ == "__main__":
    main()
