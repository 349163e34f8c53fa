"""How `metrics-etl sql` prints an answer: DuckDB's table within the terminal (every column, in
bands when too wide), or every row and column as tab- or comma-separated values or JSON lines,
each value the text DuckDB writes for it."""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

import click

from pipelines.cli._sql_bands import banded_table, display_width, duckdb_errors

if TYPE_CHECKING:
    import duckdb

__all__ = ["TABLE_ROWS", "UNBOUNDED", "Format", "print_rows"]

Format = Literal["table", "tsv", "csv", "json"]
TABLE_ROWS = 10_000  # DuckDB's table shows no more, whatever it is asked
UNBOUNDED = 2**31 - 1  # a table's width when no terminal limits it
_BATCH_ROWS = 10_000
# DuckDB's footer when it left rows or columns out: "1000 rows (40 shown)", "8 columns (6 shown)".
_ROWS_LEFT_OUT = re.compile(r"rows \(\d+ shown\)")
_COLUMNS_LEFT_OUT = re.compile(r"columns \(\d+ shown\)")
_LINE_OR_QUOTE = re.compile(r'["\r\n]')
# DuckDB's JSON writes a double past JSON bare (NaN, Infinity): outside a string, it becomes one.
_NOT_JSON = re.compile(r'"(?:[^"\\]|\\.)*"|-?Infinity|NaN')
# Characters JSON allows bare in a string that a reader splitting on line breaks (Python's
# splitlines) takes for the end of the line: escaped, one object stays one line.
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def print_rows(relation: duckdb.DuckDBPyRelation, *, fmt: Format, max_rows: int, width: int) -> None:
    """The relation's rows on stdout in `fmt`; a table `width` columns wide showing `max_rows`."""
    if fmt == "table":
        _print_table(relation, max_rows=max_rows, width=width)
        return
    # DuckDB writes each value as text (JSON text for json): a value no Python or Arrow type
    # holds as it is (`infinity`, year 5877642, a UHUGEINT's every digit) prints as DuckDB has it.
    text = "to_json({})" if fmt == "json" else "CAST({} AS VARCHAR)"
    texts = relation.project(", ".join(text.format(f"#{at}") for at in range(1, len(relation.columns) + 1)))
    # Batch by batch: memory stays at one batch whatever the number of rows.
    batches = duckdb_errors(texts.to_arrow_reader(_BATCH_ROWS))
    if fmt == "json":
        keys = [json.dumps(name) + ": " for name in _unique(relation.columns)]
        printed = 0
        for batch in batches:
            printed += batch.num_rows
            sys.stdout.writelines(
                "{" + ", ".join(key + _strict_json(value) for key, value in zip(keys, row, strict=True)) + "}\n"
                for row in zip(*(column.to_pylist() for column in batch.columns), strict=True)
            )
        if not printed:  # no line of JSON: say there is no row rather than nothing
            click.echo("(no rows)", err=True)
        return
    delimiter = "\t" if fmt == "tsv" else ","
    sys.stdout.write(_delimited(relation.columns, delimiter))
    for batch in batches:
        rows = zip(*(column.to_pylist() for column in batch.columns), strict=True)
        sys.stdout.writelines(_delimited(row, delimiter) for row in rows)


def _delimited(values: Iterable[str | None], delimiter: str) -> str:
    """One line of values (NULL empty), a value quoted when it holds the delimiter, a quote or a line
    break: `\r` too, which Python's csv module leaves bare when lines end with `\n`."""
    fields = [
        ""
        if value is None
        else f'"{value.replace(chr(34), chr(34) * 2)}"'
        if delimiter in value or _LINE_OR_QUOTE.search(value)
        else value
        for value in values
    ]
    return (delimiter.join(fields) if fields != [""] else '""') + "\n"  # a lone empty value is not a blank line


def _unique(names: list[str]) -> list[str]:
    """The column names as JSON keys, a repeated one numbered (`a`, `a_1`) so no value is lost."""
    taken: set[str] = set()
    keys = []
    for name in names:
        key, number = name, 0
        while key in taken:
            number += 1
            key = f"{name}_{number}"
        taken.add(key)
        keys.append(key)
    return keys


def _strict_json(value: str | None) -> str:
    if value is None:
        return "null"
    value = value.translate(_LINE_BREAKS)
    if "Infinity" not in value and "NaN" not in value:
        return value
    return _NOT_JSON.sub(lambda found: found[0] if found[0].startswith('"') else f'"{found[0]}"', value)


def _print_table(relation: duckdb.DuckDBPyRelation, *, max_rows: int, width: int) -> None:
    """DuckDB's table, as wide as the terminal (COLUMNS wins, as in a shell); when DuckDB would
    leave columns out to fit, every column in bands that begin with the key columns
    (`_sql_bands`). Rows left out are said on stderr, with how to see everything."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):  # DuckDB prints it through Python's sys.stdout
        relation.show(max_width=width, max_rows=max_rows)
    table = buffer.getvalue()
    lines = table.rstrip().splitlines()
    # DuckDB draws two columns wider than a narrow terminal rather than drop one: banded, they fit.
    if lines and (_COLUMNS_LEFT_OUT.search(lines[-1]) or max(map(display_width, lines)) > width):
        table = banded_table(relation, max_rows=max_rows, width=width)
    sys.stdout.write(table)
    if _ROWS_LEFT_OUT.search(table.rstrip().rsplit("\n", 1)[-1]):
        click.echo("(--max-rows shows more rows; piped or with --format csv, every row)", err=True)  # fits 80
