"""A report's rows land straight into core inside ONE transaction that replaces its days.

The transaction opens by deleting the report's days, batches are inserted into core as they
are parsed (written once, no staging copy), and it commits only when every file is complete
and the report's slice passes the blocking checks: killed, failed or failing a check half-way,
the previous state stays. A file fetched again takes its rows back out by the (day, user) keys
recorded per file in a small temp table.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from pipelines.service.kinds import REPORT_KINDS
from pipelines.warehouse.catalog import TABLES, Table, table, tables
from pipelines.warehouse.checks import CheckOutcome, ChecksFailed, report_checks, run_checks, slice_params
from pipelines.warehouse.held import checkpoint_when_held
from pipelines.warehouse.report_slice import CarriedReport, ReportSlice
from pipelines.warehouse.rollups import end_of_landing_memory, refresh_rollups
from pipelines.warehouse.sql import _statements, rollback, run_sql

# What a report's landing inserts batch by batch: the catalog's, by writer.
LANDED_TABLES = tuple(t.table for t in tables(writer="report") if t.landing)
# The reports landed inside another's transaction (declared carried_by): each writes the
# catalog's tables whose writer is its level.
_CARRIED = tuple(k.level for k in REPORT_KINDS if k.carried_by is not None)

# One statement per way of landing a batch and of replacing a report's rows (Table.landing,
# Table.replaces), the table filled in: no table has SQL of its own.
LANDINGS = {
    "rows": "warehouse/insert_rows.sql",
    "days": "warehouse/insert_day_rows.sql",
    "keyed": "warehouse/insert_keyed_rows.sql",
    "upsert": "warehouse/upsert_rows.sql",
}
REPLACES = {
    "days": "warehouse/delete_report_days.sql",
    "level-days": "warehouse/delete_report_level_days.sql",
    "report": "warehouse/delete_report_rows.sql",
    "open-report": "warehouse/delete_open_report_rows.sql",
    "report-days": "warehouse/delete_report_kind_days.sql",
    "scope-days": "warehouse/delete_scope_days.sql",
    "partition-days": "warehouse/delete_partition_days.sql",
}
# The columns landed_keys records (begin_report_landing.sql): a file's rows are found again by
# those of them in a table's grain.
_LANDED_KEYS = ("level", "day", "user_id")
_REPORT_ROWS = ("report", "open-report")


def _replaced(level: str) -> list[Table]:
    """The tables whose rows a landing at `level` replaces, in catalog order: the report's (and
    the rows derived from them) at its level; for a carried report (user-teams, repos), the
    tables it writes and the report's own files and lines."""
    if level in _CARRIED:
        return [t for t in TABLES if (t.writer == level and t.replaces) or t.replaces in _REPORT_ROWS]
    return [t for t in TABLES if t.writer in ("report", "derived") and t.replaces and level in t.levels]


def _delete_replaced(conn: duckdb.DuckDBPyConnection, params: dict[str, Any]) -> None:
    for t in _replaced(params["level"]):
        rule = "level-days" if t.replaces == "days" and "level" in t.grain else t.replaces
        assert rule is not None
        run_sql(conn, REPLACES[rule], identifiers={"table": t.name}, **params)


def _land(conn: duckdb.DuckDBPyConnection, t: Table, batch: pa.Table, /, **params: Any) -> None:
    if t.landing is None:
        raise ValueError(f"no landing for table {t.name!r}")
    _run_on_batch(conn, LANDINGS[t.landing], batch, identifiers={"table": t.name}, **params)


def _run_on_batch(
    conn: duckdb.DuckDBPyConnection, name: str, batch: pa.Table, /, *, identifiers: dict[str, str], **params: Any
) -> None:
    """Run `sql/<name>` with `_land_batch` naming `batch`.

    The name is found by DuckDB's replacement scan of this frame's locals. Not register():
    with DuckDB 2.0 every registered Arrow table stays referenced after unregister, which
    grew the process by ~10 MB per batch (measured: 500 MB over a 700 MB report).
    """
    _land_batch = batch  # read by DuckDB, not by Python
    for body, names in _statements(name, tuple(sorted(identifiers.items()))):
        bound = {k: params[k] for k in names}
        conn.execute(body, bound) if bound else conn.execute(body)


def _params(report: ReportSlice) -> dict[str, Any]:
    ref = report.ref
    return {
        "scope": ref.scope,
        "scope_name": ref.scope_name,
        "report_kind": ref.kind,
        "level": ref.level,
        "start_day": report.start_day,
        "end_day": report.end_day,
    }


def _lake_tables(report: ReportSlice) -> list[str]:
    """The day-partitioned tables whose partitions of the report's days it rewrites: those the
    landing writes at the report's level, and the agent days refreshed from them."""
    written = [t.name for t in tables(writer="report", partitioned=True) if report.ref.level in t.levels]
    return [*written, *(t.name for t in tables(writer="derived", partitioned=True))]


class ReportLanding:
    """The open transaction of one report; made by `land_report`."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, report: ReportSlice, memory: ExitStack) -> None:
        self._conn = conn
        self._report = report
        self._memory = memory  # the end of the landing's raised limit, given back after the transaction
        self._memory_raised = False
        self.checks: list[CheckOutcome] = []  # the report's checks, once its rows are all in

    def _raise_memory(self) -> None:
        """Raise the memory limit for the rest of the transaction, once: from here on it replaces
        keyed rows, whose index entries DuckDB keeps pinned (never spilled) until the COMMIT merges
        them into the tables' indexes, the COMMIT too. The limit comes back once the transaction
        has ended (set inside a failed one, it would fail too)."""
        if not self._memory_raised:
            self._memory.enter_context(end_of_landing_memory(self._conn))
            self._memory_raised = True

    def insert(self, *, table: str, frame: pl.DataFrame, file_index: int) -> None:
        """Insert a batch into core/raw through DuckDB's Arrow scan (no Python rows)."""
        if table not in LANDED_TABLES:
            raise ValueError(f"no landing for table {table!r}")
        declared = next(t for t in tables(writer="report") if t.table == table)
        if frame.height == 0:
            return
        # Polars' own string views go across as they are: converting them to Arrow's classic
        # strings cost 0.4 s of CPU on 1.9 M breakdown rows (measured), DuckDB reads both.
        batch = frame.to_arrow(compat_level=pl.CompatLevel.newest())
        # The totals' files also record the batch's (day, user) keys under file_index.
        _land(self._conn, declared, batch, file_index=file_index, level=self._report.ref.level)

    def replace_carried(self, carried: CarriedReport) -> int:
        """Replace the report's days of the kind `carried` is with its rows (after the carrying
        report's rows are in, before its checks), refreshing what its declaration derives from
        them; the lines landed."""
        refresh = carried.ref.report.refresh
        days = self._days()
        self._raise_memory()
        if refresh is not None:
            run_sql(self._conn, refresh[0], **days)
        self._replace_carried(carried)
        if refresh is not None:
            run_sql(self._conn, refresh[1], **days)
        return carried.lines

    def _days(self) -> dict[str, Any]:
        report = self._report
        return {
            "scope": report.ref.scope,
            "scope_name": report.ref.scope_name,
            "start_day": report.start_day,
            "end_day": report.end_day,
        }

    def _replace_carried(self, carried: CarriedReport) -> None:
        """Delete what the carried report's kind replaces over the report's days, land its rows,
        files and lines, and mark its tables' partitions for the lake."""
        level = carried.ref.level
        params = _params(self._report) | {"level": level, "report_kind": carried.ref.kind}
        _delete_replaced(self._conn, params)
        frames = {**carried.rows, "raw.report_files": carried.files, "raw.quarantine": carried.quarantine}
        for name, frame in frames.items():
            if frame is not None and frame.height:
                _land(self._conn, table(name), frame.to_arrow())
        run_sql(self._conn, "warehouse/keep_cleared_quarantine.sql", **params)
        run_sql(
            self._conn,
            "warehouse/mark_lake_changes.sql",
            tables=[t.name for t in tables(writer=level, partitioned=True)],
            start_day=self._report.start_day,
            end_day=self._report.end_day,
        )

    def record_rejected_keys(self, keys: pl.DataFrame, *, file_index: int) -> None:
        """Record the keys (day, user_id, `_line`) of a batch's records a rule refused: lines of
        those keys too, though nothing of them landed."""
        if keys.height:
            _run_on_batch(
                self._conn,
                "warehouse/insert_rejected_keys.sql",
                keys.to_arrow(),
                identifiers={},
                file_index=file_index,
                level=self._report.ref.level,
            )

    def repeated_keys(self) -> list[tuple[Any, ...]]:
        """(day, user_id, file_index, line_number, rejected, orphaned) of every line of a key the
        report holds more than once or whose rows a file fetched again took out (user_id None at
        aggregate level), in key, file and line order; `rejected`: a rule refused the line,
        nothing of it landed; `orphaned`: its rows were taken out, to be landed again."""
        return run_sql(self._conn, "warehouse/select_repeated_keys.sql")

    def withdraw(self, keys: pl.DataFrame) -> None:
        """Take every row of these keys (columns day, user_id) back out of what the report
        landed; a line landed again afterwards records its keys anew."""
        batch = keys.select(
            pl.lit(self._report.ref.level).alias("level"), pl.col("day"), pl.col("user_id").cast(pl.Int64)
        ).to_arrow()
        params = _params(self._report)
        for t in _replaced(self._report.ref.level):
            if t.landing in ("keyed", "days"):
                columns = ", ".join(c for c in t.grain if c in _LANDED_KEYS)
                _run_on_batch(
                    self._conn,
                    "warehouse/withdraw_keys.sql",
                    batch,
                    identifiers={"table": t.name, "keys": columns},
                    **params,
                )
        _run_on_batch(self._conn, "warehouse/forget_withdrawn_keys.sql", batch, identifiers={})

    def discard_file(self, *, file_index: int) -> None:
        """Take back what one file landed (it is being fetched again).

        Rows go by key, so another file's rows of a key this file holds too (a repeated line)
        go with them: that line is marked orphaned and landed again from the archive before the
        checks (`repeated_keys`, pipelines/ingest/_repeats.py).
        """
        run_sql(self._conn, "warehouse/orphan_shared_keys.sql", file_index=file_index)
        params = _params(self._report)
        for t in _replaced(self._report.ref.level):
            if t.landing in ("keyed", "days"):
                keys = ", ".join(c for c in t.grain if c in _LANDED_KEYS)
                run_sql(
                    self._conn,
                    "warehouse/delete_landed_file.sql",
                    identifiers={"table": t.name, "keys": keys},
                    file_index=file_index,
                    **params,
                )
        run_sql(self._conn, "warehouse/forget_landed_file.sql", file_index=file_index)


@contextmanager
def land_report(conn: duckdb.DuckDBPyConnection, report: ReportSlice, /) -> Iterator[ReportLanding]:
    """Open the report's transaction; when the block ends normally, refresh the agent dimensions
    it touched and the rollups of its days, check the report's slice and commit. It rolls back if the block raises or a
    blocking check fails (ChecksFailed). Either all of the report lands or none."""
    with ExitStack() as memory:
        conn.execute("BEGIN TRANSACTION")
        try:
            run_sql(conn, "warehouse/begin_report_landing.sql", **_params(report))
            _delete_replaced(conn, _params(report))
            landing = ReportLanding(conn, report, memory)
            yield landing
            landing._raise_memory()  # everything after the batches
            _end(conn, report, landing)
        except BaseException:
            rollback(conn)
            raise
    checkpoint_when_held(conn)  # what the commit left in memory, before the next landing needs it


def _end(conn: duckdb.DuckDBPyConnection, report: ReportSlice, landing: ReportLanding) -> None:
    """Keep the cleared quarantine, refresh the agent dimensions and the rollups of the report's
    days, mark the lake's partitions, check and commit."""
    run_sql(conn, "warehouse/keep_cleared_quarantine.sql", **_params(report))
    run_sql(conn, "warehouse/refresh_agent_dimensions.sql", **_params(report))
    ref = report.ref
    refresh_rollups(
        conn, scope=ref.scope, scope_name=ref.scope_name, start_day=report.start_day, end_day=report.end_day
    )
    run_sql(
        conn,
        "warehouse/mark_lake_changes.sql",
        tables=_lake_tables(report),
        start_day=report.start_day,
        end_day=report.end_day,
    )
    landing.checks = _check(conn, report)
    run_sql(conn, "warehouse/drop_landed_keys.sql")
    conn.execute("COMMIT")


def _check(conn: duckdb.DuckDBPyConnection, report: ReportSlice) -> list[CheckOutcome]:
    """The report's slice against every check of its level, inside the open transaction."""
    ref = report.ref
    params = slice_params(
        scope=ref.scope, scope_name=ref.scope_name, level=ref.level, start_day=report.start_day, end_day=report.end_day
    )
    outcomes = run_checks(conn, report_checks(ref.level), where=report.describe(), **params)
    if any(not o.passed and o.check.blocking for o in outcomes):
        raise ChecksFailed(outcomes)
    return outcomes
