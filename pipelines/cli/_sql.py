"""`metrics-etl sql`: ad-hoc SQL on the serving database, read-only.

Three ways in: the QUERY argument; SQL on stdin (`metrics-etl sql < sql/queries/x.sql`); or,
from a terminal, a prompt where a statement ends with `;` and may span lines. The serving
database's views name the lake by absolute path, so it answers from any directory.

Read-only means more than opening the file read-only: DuckDB can write any file (COPY), attach
the warehouse read-write, read any file the user can (the token) and fetch extensions. So the
shell runs only statements whose plan reads (`_statements.refusal`: EXPLAIN ANALYZE runs what it
wraps) on a connection fenced and bounded by `_sql_bounds`.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pipelines.cli._base import Failed, load_settings
from pipelines.cli._sql_bounds import connect_bounded, deadline, limit_hit
from pipelines.cli._sql_output import TABLE_ROWS, UNBOUNDED, Format, print_rows
from pipelines.cli._statements import first_word, refusal, statement_ends, statement_kind, without_terminator, words

if TYPE_CHECKING:
    import duckdb

    from pipelines.config import Settings

PROMPT = "metrics> "
_MORE = "    ...> "  # a statement's further lines, until its `;`
_QUIT = (".quit", ".exit")
# Statement types whose rows are the answer (MULTI: a PIVOT without IN); SET (a variable,
# settings are locked) prints a line saying it is done. `refusal` says which statements may run at all.
_ANSWERS = frozenset({"SELECT", "CALL", "EXPLAIN", "MULTI"})
# What DuckDB says when the lock below stops a statement: a file outside the lake, a setting,
# an extension, a write into the read-only database.
_REFUSED = re.compile(
    r"Permission Error|configuration has been locked|read-only mode|base table|is not an? table"
    r"|disabled (by|through) configuration"
)
# DuckDB's words when a reader other than Parquet's fails on a file.
_NOT_PARQUET_READER = re.compile(r"read_text|read_blob|sniffing|CSV|JSON", re.IGNORECASE)
# DuckDB's words for a view or table no schema on its search path has: most are in `bi`.
_NO_TABLE = re.compile(r"Catalog Error: Table with name (.+?) does not exist")
_READ_ONLY = "the SQL shell is read-only: it reads the bi views and the lake's tables, nothing else"


class _SqlCommand(click.Command):
    """Click's command, taking a QUERY that begins with a comment (`-- why`) as the query it is,
    not as an option: an option holds no space or line break."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        at = next((at for at, arg in enumerate(args) if arg.startswith("-") and any(map(str.isspace, arg))), None)
        if at is not None and "--" not in args[:at]:
            args = [*args[:at], "--", *args[at:]]
        return super().parse_args(ctx, args)


@click.command(cls=_SqlCommand)
@click.argument("query", required=False)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "tsv", "csv", "json"]),
    show_default=False,
    help="How rows are printed: a table as wide as the terminal (too wide, in bands that each begin "
    "with the key columns), tab- or comma-separated values with a header, or JSON lines (an object per "
    "row); tsv, csv and json print every row and column.  "
    "[default: table on a terminal, else tsv]",
)
@click.option(
    "--max-rows",
    type=click.IntRange(min=1, max=TABLE_ROWS),
    default=40,
    help="Rows a table shows (the first and the last ones).",
)
def sql(query: str | None, fmt: Format | None, max_rows: int) -> None:
    """Run read-only SQL on the serving database: QUERY, else SQL from stdin, else a prompt.

    At the prompt a statement ends with `;` and may span lines; `.quit` or Ctrl-D leaves.
    Piped or redirected, rows are tab-separated values: every row and column, nothing cut.
    """
    # A terminal is read by a person (a table that fits it); a pipe or a file by a program or
    # later (every row and column, streamed).
    fmt = fmt or ("table" if _stdout_is_terminal() else "tsv")
    path = _serving_path()
    settings = load_settings()
    with connect_bounded(path, settings) as conn:
        shell = _Shell(conn, fmt=fmt, max_rows=max_rows, settings=settings)
        if query is not None:
            shell.run_or_fail(query)
        elif _stdin_is_terminal():
            shell.prompt(path)
        else:
            shell.run_or_fail(sys.stdin.read())


def _stdin_is_terminal() -> bool:
    return sys.stdin.isatty()


def _stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def _serving_path() -> Path:
    path = load_settings().serving_path
    if not path.is_file():
        raise Failed(
            f"no serving database yet: {path} does not exist (run `metrics-etl run` first; "
            "after `make demo`, give the demo's home: `metrics-etl --home ~/.local/share/metrics-etl-demo sql`)"
        )
    return path


class _Failure(Exception):
    """A statement failed; the message is the one line to show."""


class _Shell:
    """Runs statements on one connection and prints their rows."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, *, fmt: Format, max_rows: int, settings: Settings) -> None:
        self.conn, self.fmt, self.max_rows, self.settings = conn, fmt, max_rows, settings

    def run_or_fail(self, text: str) -> None:
        """Every statement of `text` in turn; the first that fails ends the command (exit 1)."""
        try:
            self.run(text)
        except _Failure as exc:
            raise Failed(str(exc)) from None
        except BrokenPipeError:  # the reader had enough (`| head`): stop, and say nothing more
            _silence_stdout()

    def run(self, text: str) -> None:
        """Every statement of `text` in turn, printing the rows of those that answer."""
        import duckdb

        with deadline(self.conn, self.settings) as passed:  # parsing a long text takes time and memory too
            try:
                statements = duckdb.extract_statements(text)
            except (duckdb.Error, MemoryError) as exc:
                raise _Failure(limit_hit(self.settings, exc, timed_out=passed.is_set()) or _describe(exc)) from None
        if not statements:  # said, not silent: a quoting slip can leave nothing to run
            raise _Failure("no statement to run: the SQL holds only comments or ;")
        for statement in statements:
            with deadline(self.conn, self.settings) as passed:
                try:
                    self._run(statement)
                except (duckdb.Error, MemoryError) as exc:  # MemoryError: Python's share, past the bound
                    raise _Failure(
                        limit_hit(self.settings, exc, timed_out=passed.is_set()) or _describe(exc, self.conn)
                    ) from None

    def _run(self, statement: duckdb.Statement) -> None:
        from pipelines.warehouse.sql import sql_relation

        # DuckDB's SHOW TABLES lists main, empty here. Tokenizing takes seconds on a huge statement
        # (and the GIL, so no time limit can end it meanwhile): only one that says TABLES is.
        if "TABLES" in statement.query.upper() and words(without_terminator(statement.query)) == ["SHOW", "TABLES"]:
            self._print(sql_relation(self.conn, "metadata/select_shell_tables.sql"))
            return
        reason = refusal(self.conn, statement)
        if reason is not None:
            raise _Failure(f"{_READ_ONLY} ({reason})")
        if statement_kind(statement) in _ANSWERS:
            self._print(self.conn.sql(without_terminator(statement.query)))
        else:  # SET or RESET: no rows to print, so a line on stderr says it ran
            self.conn.execute(statement.query)
            click.echo(f"({first_word(statement.query)} done)", err=True)

    def prompt(self, path: Path) -> None:
        """Statements typed at `metrics> ` until `.quit` or Ctrl-D; a failure is one line, then the prompt."""
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  (line editing and history for input())
        click.echo(f"{path} (read-only). End a statement with ;  {_QUIT[0]} or Ctrl-D leaves.")
        lines: list[str] = []
        while True:
            try:
                line = input(_MORE if lines else PROMPT)
            except EOFError:
                click.echo()
                return
            except KeyboardInterrupt:  # drops the statement being typed, as a shell does
                click.echo()
                lines = []
                continue
            if not lines and not line.strip():
                continue
            if not lines and line.strip().rstrip(";") in _QUIT:
                return
            if not lines and line.strip().startswith("."):
                click.echo(f"unknown command {line.strip()}: {_QUIT[0]} leaves", err=True)
                continue
            lines.append(line)
            text = "\n".join(lines)
            if not statement_ends(text):
                continue
            lines = []
            try:
                self.run(text)
            except _Failure as exc:
                click.echo(str(exc), err=True)
            except KeyboardInterrupt:
                click.echo("interrupted", err=True)

    def _print(self, relation: duckdb.DuckDBPyRelation) -> None:
        width = shutil.get_terminal_size().columns if _stdout_is_terminal() else UNBOUNDED
        print_rows(relation, fmt=self.fmt, max_rows=self.max_rows, width=width)


def _silence_stdout() -> None:
    # What is left in stdout's buffer would fail again when Python flushes it on exit.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _describe(exc: Exception, conn: duckdb.DuckDBPyConnection | None = None) -> str:
    """DuckDB's first meaningful line, after what it means when the lock-down refused it, or
    where a name it has not is."""
    from pipelines.publish.lake import unreadable_lake_file
    from pipelines.warehouse.sql import first_meaningful_line

    line = first_meaningful_line(str(exc))
    if conn is not None and (missing := _NO_TABLE.match(line)):
        named = _named_like(conn, missing[1].strip('"').rsplit(".", 1)[-1])  # `"foo.agents"`: a wrong schema
        return f"{line} Did you mean {' or '.join(named)}?" if named else f"{line} SHOW TABLES lists every view"
    if _REFUSED.search(line):
        return f"{_READ_ONLY} ({line})"
    if _NOT_PARQUET_READER.search(line):  # a whole Parquet file read as text, CSV or JSON: not damaged
        return line
    return unreadable_lake_file(line) or line


def _named_like(conn: duckdb.DuckDBPyConnection, name: str) -> list[str]:
    """The views named `name` in a schema, or a typo or two away. DuckDB's own guess (the line
    after its error) may be a system table: "pg_am" for AGENT_USAGE_DAILY."""
    import duckdb

    from pipelines.warehouse.sql import run_sql

    try:
        return [named for (named,) in run_sql(conn, "metadata/select_named_like.sql", name=name)]
    except duckdb.Error:  # interrupted at the time limit: the error's own line is enough
        return []
