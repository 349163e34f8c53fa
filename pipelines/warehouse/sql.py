"""The one way the project runs its .sql files: named parameters, bound per statement.

A name is relative to the repository's `sql/`; a `Path` is read as given (a Dagster concern's
private SQL sits in its own folder). A template's `{placeholders}` are filled with identifiers
from code (tables, columns), never with values: values are always bound parameters. An error's
first meaningful line is what a one-line failure shows of it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import Any

import duckdb

from pipelines._paths import SQL_DIR

_PARAM = re.compile(r"\$([a-z_]+)")
# Lines of a DuckDB error text that explain nothing on their own: DuckDB's caret markers and
# pointers to its docs, blank lines.
_NOISE = re.compile(r"^\s*(\^+|LINE \d+:.*|See also .*|Possible solutions:.*)?\s*$")


@cache
def _statements(
    name: str | Path, identifiers: tuple[tuple[str, str], ...] = ()
) -> tuple[tuple[str, frozenset[str]], ...]:
    lines = (name if isinstance(name, Path) else SQL_DIR / name).read_text().splitlines()
    text = "\n".join(line for line in lines if not line.lstrip().startswith("--"))
    if identifiers:
        text = text.format_map(dict(identifiers))
    out = []
    # Our SQL files hold no ';' inside literals, so a split on ';' is exact for them.
    for raw in text.split(";"):
        body = raw.strip()
        if body:
            out.append((body, frozenset(_PARAM.findall(body))))
    return tuple(out)


def connect(
    path: str | Path, *, read_only: bool = False, config: Mapping[str, Any] | None = None
) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection on UTC: `now()` stored into a TIMESTAMP column and every date DuckDB
    derives are UTC, as the partitions are, whatever the host's time zone."""
    conn = duckdb.connect(str(path), read_only=read_only, config=dict(config or {}))
    # A setting, not connect-time config: DuckDB accepts TimeZone only once ICU is loaded.
    conn.execute("SET TimeZone = 'UTC'")
    return conn


def run_sql(
    conn: duckdb.DuckDBPyConnection,
    name: str | Path,
    /,
    *,
    identifiers: Mapping[str, str] | None = None,
    **params: Any,
) -> list[tuple[Any, ...]]:
    """Run every statement of `sql/<name>` (or of the file `name`), each with the parameters it names.

    `identifiers` fill a template's `{placeholders}`. Returns the rows of the last statement.
    """
    rows: list[tuple[Any, ...]] = []
    for body, names in _statements(name, tuple(sorted((identifiers or {}).items()))):
        bound = {k: params[k] for k in names}
        rows = conn.execute(body, bound).fetchall() if bound else conn.execute(body).fetchall()
    return rows


def sql_relation(conn: duckdb.DuckDBPyConnection, name: str, /, **params: Any) -> duckdb.DuckDBPyRelation:
    """The one query of `sql/<name>` as a relation, for a caller that prints its rows as they stream."""
    ((body, names),) = _statements(name)
    return conn.sql(body, params={k: params[k] for k in names} or None)


def rollback(conn: duckdb.DuckDBPyConnection) -> None:
    """Roll back the open transaction, if DuckDB still has one.

    A COMMIT that failed (disk full, out of memory) has already ended the transaction, and a
    second error from ROLLBACK would hide the first: the caller re-raises the real cause.
    """
    with suppress(duckdb.Error):
        conn.execute("ROLLBACK")


def first_meaningful_line(text: str) -> str:
    """The first line of an error text that says something (not DuckDB's `^^^` or its doc link)."""
    for line in text.splitlines():
        if not _NOISE.match(line):
            return line.strip()
    return text.strip()
