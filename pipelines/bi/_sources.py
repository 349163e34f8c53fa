"""Where BI reads from, opened read-only, and the bi.* views it may read."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipelines.config import Settings
from pipelines.publish.lake import unreadable_lake_file
from pipelines.warehouse.sql import connect, run_sql


class BiError(Exception):
    """A BI command cannot proceed; the message says what is missing or wrong in one line."""


class NoWarehouse(BiError):
    """Neither the serving database nor the warehouse exists yet."""


class UnknownView(BiError):
    """The view asked for is not one of the bi.* views."""


@dataclass(frozen=True)
class BiSources:
    """Where BI reads from: the serving database first, the warehouse while there is none yet."""

    serving_path: Path
    warehouse_path: Path

    @classmethod
    def from_settings(cls, settings: Settings) -> BiSources:
        return cls(serving_path=settings.serving_path, warehouse_path=settings.warehouse_path)

    def path(self) -> Path:
        for candidate in (self.serving_path, self.warehouse_path):
            if candidate.is_file():
                return candidate
        raise NoWarehouse(
            f"no warehouse yet: neither {self.serving_path} nor {self.warehouse_path} exists "
            "(run `metrics-etl demo` or `metrics-etl run` first, or set SERVING_PATH)"
        )


@contextmanager
def open_bi(*, sources: BiSources) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to the serving database (or the warehouse if there is no copy yet)."""
    path = sources.path()
    try:
        conn = connect(path, read_only=True)
    except duckdb.IOException as exc:
        raise BiError(f"cannot open {path} read-only: {str(exc).splitlines()[0]}") from None
    try:
        yield conn
    except duckdb.Error as exc:
        damaged = unreadable_lake_file(str(exc))
        if damaged is None:
            raise
        raise BiError(damaged) from None
    finally:
        conn.close()


def known_views(conn: duckdb.DuckDBPyConnection) -> list[str]:
    """Names of the bi.* views, sorted."""
    return [row[0] for row in run_sql(conn, "bi/select_views.sql")]
