"""The reader's connection: an in-memory DuckDB that attaches its tier's serving database(s)
read-only, and nothing else. Each question opens its own, so an answer reads the tiers as the
last publish (or `forget`, or retention) left them, and no figure outlives them in the reader.

Once the views of sql/metrics/ are made, DuckDB may open no file but the tiers' own lakes (what
their views read), attach nothing more, and its settings are locked; past the time limit a
question is stopped, whatever it is doing then (`deadline`).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from pipelines.config import ENV_VARS, MetricsConfig
from pipelines.metrics._model import MetricsError
from pipelines.publish.lake import glob_literal
from pipelines.warehouse.sql import connect, first_meaningful_line, run_sql

# Each tier's database and the schema its views are in.
_ALIASES = {"aggregate": "aggregate_tier", "pseudonymous": "pseudonymous_tier"}


def tier_paths(config: MetricsConfig) -> dict[str, Path]:
    """The databases the reader may open: the aggregate tier's, and the pseudonymous tier's at that tier."""
    paths = {"aggregate": config.aggregate_path}
    if config.tier == "pseudonymous":
        if config.pseudonymous_path is None:
            raise MetricsError("the pseudonymous tier was asked for without its database's path", usage=False)
        paths["pseudonymous"] = config.pseudonymous_path
    return paths


def check_tiers(config: MetricsConfig) -> None:
    for tier, path in tier_paths(config).items():
        if not path.is_file():
            how = (
                f"every publish writes it when {ENV_VARS['pseudonym_key']} is set"
                if tier == "pseudonymous"
                else "every publish writes it: run `metrics-etl run`"
            )
            raise MetricsError(f"no {tier} tier yet: {path} does not exist ({how})", usage=False)


def published_at(path: Path) -> str | None:
    """When the tier's serving database was published (each publish renames a new one into place)."""
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat(timespec="seconds")
    except OSError:
        return None


@contextlib.contextmanager
def open_tiers(config: MetricsConfig, groups: list[str]) -> Iterator[duckdb.DuckDBPyConnection]:
    """A fenced connection holding the tiers' views and the views of sql/metrics/<group>.sql."""
    check_tiers(config)
    paths = tier_paths(config)
    with connect(":memory:") as conn:
        try:
            for tier, path in paths.items():
                # ATTACH takes no parameter: the path is a quoted literal.
                quoted = str(path).replace("'", "''")
                conn.execute(f"ATTACH '{quoted}' AS {_ALIASES[tier]} (READ_ONLY)")
        except duckdb.Error as exc:
            raise MetricsError(
                f"cannot open {path} read-only: {first_meaningful_line(str(exc))}", usage=False
            ) from None
        schemas = ",".join(f"{_ALIASES[tier]}.{tier}" for tier in paths)
        conn.execute("SET search_path = $path", {"path": f"memory.main,{schemas}"})
        # The page's change rule, as it is: its macros in a schema `bi` of this connection's own.
        conn.execute("CREATE SCHEMA bi")
        run_sql(conn, "views/_change_rule.sql")
        for name in ["_calendar", *groups]:
            run_sql(conn, f"metrics/{name}.sql")
        _fence(conn, [path.parent / "lake" for path in paths.values()])
        yield conn


def _fence(conn: duckdb.DuckDBPyConnection, lakes: list[Path]) -> None:
    """Files: the tiers' lakes only (as their views name them: resolved, a `[` escaped); nothing spills."""
    roots = {str(lake.absolute()) for lake in lakes} | {str(lake.resolve()) for lake in lakes}
    allowed = sorted({f"{root}{os.sep}" for root in roots} | {f"{glob_literal(root)}{os.sep}" for root in roots})
    conn.execute("SET allowed_directories = $dirs", {"dirs": allowed})
    conn.execute("SET temp_directory = ''")
    for statement in (
        "SET enable_progress_bar = false",
        "SET allow_persistent_secrets = false",
        "SET python_enable_replacements = false",
        "SET enable_external_access = false",
        "SET autoinstall_known_extensions = false",
        "SET autoload_known_extensions = false",
        "SET lock_configuration = true",
    ):
        conn.execute(statement)


# DuckDB's interrupt reaches only the statement running when it comes: past the limit it is sent
# again this often until the question ends, so a statement that started just as the limit passed
# is stopped too.
_AGAIN_S = 0.01


class Question:
    """A question's statements on its connection, none started once its time limit has passed."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, config: MetricsConfig) -> None:
        self.conn = conn
        self.config = config
        self.passed = threading.Event()  # set once the time limit has passed

    def run(
        self, name: str, /, *, identifiers: Mapping[str, str] | None = None, **params: Any
    ) -> list[tuple[Any, ...]]:
        """The rows of sql/<name> (one statement, as every file of sql/metrics/ is)."""
        if self.passed.is_set():
            raise _past_limit(self.config)
        return run_sql(self.conn, name, identifiers=identifiers, **params)


@contextlib.contextmanager
def deadline(conn: duckdb.DuckDBPyConnection, config: MetricsConfig) -> Iterator[Question]:
    """Stops the question on `conn` once the time limit has passed, whatever it is doing then: one
    line naming the setting. The statement running is interrupted (and any started later, until the
    block ends), and the question's next statement is refused."""
    question = Question(conn, config)
    ended = threading.Event()

    def stop() -> None:
        question.passed.set()
        while True:
            conn.interrupt()
            if ended.wait(_AGAIN_S):
                return

    timer = threading.Timer(config.time_limit_s, stop)
    timer.daemon = True
    timer.start()
    try:
        yield question
    except duckdb.Error as exc:
        if question.passed.is_set() or isinstance(exc, duckdb.InterruptException):
            raise _past_limit(config) from None
        if isinstance(exc, duckdb.OutOfMemoryException):
            raise MetricsError(
                "the question needed more memory than DuckDB may take: ask for fewer days or groups", usage=False
            ) from None
        # A tier published by an older version lacks what this one reads, or a file went missing.
        raise MetricsError(
            f"the tier could not answer: {first_meaningful_line(str(exc))} (`metrics-etl publish` writes it again)",
            usage=False,
        ) from None
    finally:
        ended.set()
        timer.cancel()
        timer.join()


def _past_limit(config: MetricsConfig) -> MetricsError:
    return MetricsError(
        f"the question ran past the time limit of {config.time_limit_s:g} s "
        f"({ENV_VARS['catalog_timeout']}): ask for fewer days or groups, or raise the limit",
        usage=False,
    )
