"""Every catalog table's columns: name, DuckDB type, NOT NULL and DEFAULT, written as DDL says
them, per schema (`_columns_<schema>.py`); the table's keys, partition, person columns and
landing are the catalog's (`pipelines/warehouse/catalog.py`), never repeated here. They live
below the warehouse so a transform builds its frames from them (`polars_types`), and the
warehouse creates a new table from them (`table_ddl`, `migrate`).

The fields the platform's records and seat listings carry are declared where they are parsed
(`pipelines/transform/schema.py`, `seat_fields.py`); `migrate` adds each to its table, nullable,
so a table's columns are its declaration here and those. `tests/unit/warehouse/test_columns.py`
holds a freshly migrated warehouse equal to the declarations, column by column and type by type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import polars as pl

from pipelines.transform._columns_billing import BILLING
from pipelines.transform._columns_core import CORE
from pipelines.transform._columns_events import EVENTS
from pipelines.transform._columns_raw import RAW
from pipelines.transform._columns_snapshots import SNAPSHOTS
from pipelines.transform._columns_vendors import VENDORS
from pipelines.transform.schema import declared_columns, duckdb_type

__all__ = ["Column", "polars_types", "table_columns", "table_ddl"]

_DECLARATIONS = {**RAW, **CORE, **SNAPSHOTS, **EVENTS, **BILLING, **VENDORS}
# A frame's type of each warehouse type a transform writes (JSON: the text DuckDB parses on insert).
_POLARS: dict[str, pl.DataType] = {
    "VARCHAR": pl.String(),
    "JSON": pl.String(),
    "BIGINT": pl.Int64(),
    "DOUBLE": pl.Float64(),
    "BOOLEAN": pl.Boolean(),
    "DATE": pl.Date(),
    "TIMESTAMP WITH TIME ZONE": pl.Datetime("us", "UTC"),
    "INTEGER": pl.Int32(),
    "VARCHAR[]": pl.List(pl.String()),
    "DECIMAL(18,6)": pl.Decimal(18, 6),
    "DECIMAL(38,6)": pl.Decimal(38, 6),
}
_DDL = re.compile(r"^(?P<name>\w+) (?P<type>.+?)(?P<not_null> NOT NULL)?(?: DEFAULT (?P<default>.+))?$")


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # as DuckDB's information_schema spells it
    not_null: bool = False
    default: str | None = None

    @property
    def ddl(self) -> str:
        null = " NOT NULL" if self.not_null else ""
        return f'"{self.name}" {self.type}{null}' + (f" DEFAULT {self.default}" if self.default is not None else "")


def _parse(text: str) -> Column:
    match = _DDL.match(text)
    if match is None:
        raise ValueError(f"not a column declaration: {text!r}")
    return Column(match["name"], match["type"], match["not_null"] is not None, match["default"])


@cache
def table_columns(name: str) -> tuple[Column, ...]:
    """The columns of table `schema.table`, in order: its declaration, then the declared fields
    `migrate` adds to it."""
    if name not in _DECLARATIONS:
        raise KeyError(f"no columns declared for table {name!r} (pipelines/transform/_columns_<schema>.py)")
    own = tuple(_parse(text) for text in _DECLARATIONS[name])
    names = {c.name for c in own}
    added = tuple(
        Column(column, duckdb_type(dtype))
        for column, dtype in declared_columns().get(name, {}).items()
        if column not in names
    )
    return own + added


def polars_types(name: str, *, leave_out: frozenset[str] = frozenset()) -> dict[str, pl.DataType]:
    """The table's columns but `leave_out`, in order, as a transform's frame types them."""
    return {c.name: _POLARS[c.type] for c in table_columns(name) if c.name not in leave_out}


def table_ddl(name: str, primary_key: tuple[str, ...]) -> str:
    """What a CREATE TABLE of the table holds in its parentheses (sql/migrations/create_declared_table.sql):
    its columns, and its primary key (the catalog's `primary_key`: its grain unless it is unkeyed)."""
    parts = [c.ddl for c in table_columns(name)]
    if primary_key:
        key = ", ".join(f'"{c}"' for c in primary_key)
        parts.append(f"PRIMARY KEY ({key})")
    return ", ".join(parts)
