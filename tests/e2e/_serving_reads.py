"""The reads a BI tool makes of the serving database, as plain JSON-ready values.

Run in-process under the project's DuckDB and as a script under DuckDB 1.x (an environment with
nothing but `duckdb`, hence the standard library only): `python _serving_reads.py SERVING`
prints `{"duckdb": version, "answers": {...}}`. Each bi view and each view of the aggregate
tier's database is read whole, rows sorted; each lake table view gives its row count; the
change-rule macros answer a grid of arguments.
"""

from __future__ import annotations

import json
import sys
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

import duckdb

# (total, squares, days, previous_total, previous_squares, previous_days) for the change-rule
# macros: too few days, nothing both times, new, gone, grown, shrunk, steady within the noise.
MACRO_ARGUMENTS = (
    "(NULL, NULL, NULL, 10, 20, 14), (5, 5, 13, 5, 5, 14), (0, 0, 14, 0, 0, 14), (50, 200, 14, 0, 0, 14),"
    " (0, 0, 14, 50, 200, 20), (600, 30000, 28, 100, 800, 28), (100, 800, 28, 600, 30000, 28),"
    " (300, 3500, 20, 290, 3300, 21)"
)
MACROS_SQL = (
    "SELECT t, s, d, pt, ps, pd, bi.min_compared_days(), bi.period_variance(t, s, d),"
    " bi.change_margin(t, s, d, pt, ps, pd), bi.change_call(t, s, d, pt, ps, pd),"
    " bi.change_low(t, s, d, pt, ps, pd), bi.change_high(t, s, d, pt, ps, pd)"
    f" FROM (VALUES {MACRO_ARGUMENTS}) AS a(t, s, d, pt, ps, pd)"
)


def plain(value: Any) -> Any:
    """A value as JSON holds it, the same from either DuckDB's Python client."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        # Two DuckDBs may add a column's doubles in another order: the last bits may differ.
        return float(f"{value:.12g}")
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, Decimal | timedelta):
        return str(value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return str(value)


def _rows(conn: duckdb.DuckDBPyConnection, sql: str) -> dict[str, Any]:
    cursor = conn.execute(sql)
    rows = [plain(list(row)) for row in cursor.fetchall()]
    return {
        "columns": [d[0] for d in cursor.description or ()],
        "rows": sorted(rows, key=lambda row: json.dumps(row, sort_keys=True)),
    }


def answers(conn: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """Every view's answer by `schema.view`, and the macros' under `bi.change_rule macros`."""
    conn.execute("SET TimeZone = 'UTC'")  # as the pipeline's own connections are
    views = conn.execute(
        "SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal ORDER BY schema_name, view_name"
    ).fetchall()
    out: dict[str, Any] = {}
    for schema, view in views:
        read = "*" if schema in ("bi", "aggregate") else "count(*)"
        out[f"{schema}.{view}"] = _rows(conn, f'SELECT {read} FROM "{schema}"."{view}"')
    if any(schema == "bi" for schema, _ in views):  # the aggregate tier's database has no macros
        out["bi.change_rule macros"] = _rows(conn, MACROS_SQL)
    return out


def main(serving: str) -> None:
    try:
        with duckdb.connect(serving, read_only=True) as conn:
            print(json.dumps({"duckdb": duckdb.__version__, "answers": answers(conn)}))
    except duckdb.Error as error:  # its first line names the cause; the rest is DuckDB's advice
        sys.exit(str(error).splitlines()[0])


if __name__ == "__main__":
    main(sys.argv[1])
