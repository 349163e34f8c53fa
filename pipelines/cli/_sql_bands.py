"""An answer too wide for the terminal, as `metrics-etl sql` prints it: every column kept, in
bands as wide as the terminal, each band beginning with the row's key columns (its leading
columns that are not numbers: scope, scope_name, a slug, a day), so a row reads across bands.

DuckDB's own table drops middle columns to fit, which hides the very column a reader asked for
(a team's slug, a person's login); psql goes vertical, which spreads 40 rows over a thousand lines.
"""

from __future__ import annotations

import textwrap
import unicodedata
from collections import deque
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from pipelines._words import counted

if TYPE_CHECKING:
    import duckdb
    import pyarrow

_NUMBERS = (
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
    "UHUGEINT",
    "FLOAT",
    "DOUBLE",
    "DECIMAL",
)
# Control characters written as DuckDB's table writes them (`\n`, `\e`): a row stays one line,
# and a value cannot move the cursor or recolour the terminal.
_NAMED = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 27: "\\e"}
_ESCAPES = {code: _NAMED.get(code, f"\\x{code:02x}") for code in (*range(32), *range(127, 160))}
_BATCH_ROWS = 10_000
Row = list[str]


def banded_table(relation: duckdb.DuckDBPyRelation, *, max_rows: int, width: int) -> str:
    """The relation as boxed tables no wider than `width`, the key columns in each, and a footer."""
    names = list(relation.columns)
    types = [str(kind) for kind in relation.types]
    head, tail, total = _shown_rows(relation, max_rows=max_rows)
    cells = [[_cell(name) for name in names], [kind.lower() for kind in types], *head, *tail]
    widths = [max(display_width(row[at]) for row in cells) for at in range(len(names))]
    keys = _keys(types, widths, width=width)
    # The key columns keep one width in every band: cut (if at all) to leave room for the widest
    # other column, never cut in one band and whole in the next.
    others = widths[len(keys) :]
    key_widths = _shrunk([*(widths[at] for at in keys), *([max(others)] if others else [])], width)[: len(keys)]
    beside_keys = width - sum(key_widths) - 3 * len(key_widths)
    room = max(width - _table_width(key_widths), 0)
    bands: list[list[int]] = [[]]
    for at in range(len(keys), len(names)):
        if bands[-1] and _table_width([widths[c] for c in bands[-1]] + [widths[at]]) - 1 > room:
            bands.append([])
        bands[-1].append(at)
    right = [kind.startswith(_NUMBERS) for kind in types]
    cut_after = 2 + len(head) if total > len(head) + len(tail) else None  # where the rows left out were
    text = "".join(
        _box(
            cells,
            [*keys, *band],
            [*key_widths, *(_shrunk([widths[at] for at in band], beside_keys) if band else [])],
            right,
            cut_after=cut_after,
        )
        for band in bands
    )
    shown = f" ({len(head) + len(tail)} shown)" if cut_after else ""
    banded = f" in {len(bands)} bands" if len(bands) > 1 else ""
    footer = f"{counted(total, 'row')}{shown}, {counted(len(names), 'column')}{banded}"
    return text + "".join(
        f"{line}\n" for line in textwrap.wrap(footer, width, initial_indent="  ", subsequent_indent="  ")
    )


def duckdb_errors(reader: pyarrow.RecordBatchReader) -> Iterator[pyarrow.RecordBatch]:
    """The reader's batches; DuckDB's error (an interrupt, out of memory) as the duckdb.Error it is,
    which Arrow hands on as an OSError or ArrowException."""
    import duckdb
    import pyarrow

    try:
        yield from reader
    except (OSError, pyarrow.ArrowException) as exc:
        raise duckdb.Error(str(exc)) from None


def _shown_rows(relation: duckdb.DuckDBPyRelation, *, max_rows: int) -> tuple[list[Row], list[Row], int]:
    """The first and the last rows (as DuckDB's table shows them) as DuckDB writes each value, and
    how many rows there are: streamed, so memory holds `max_rows` rows whatever the answer's size."""
    texts = relation.project(", ".join(f"CAST(#{at} AS VARCHAR)" for at in range(1, len(relation.columns) + 1)))
    head: list[Row] = []
    tail: deque[Row] = deque(maxlen=max_rows // 2)
    total = 0
    for batch in duckdb_errors(texts.to_arrow_reader(_BATCH_ROWS)):
        for row in _rows(batch):
            total += 1
            if len(head) < max_rows - max_rows // 2:
                head.append(row)
            else:
                tail.append(row)
    return head, list(tail), total


def _rows(batch: pyarrow.RecordBatch) -> list[Row]:
    columns = [column.to_pylist() for column in batch.columns]
    return [["NULL" if value is None else _cell(value) for value in row] for row in zip(*columns, strict=True)]


def _cell(value: str) -> str:
    return value.translate(_ESCAPES)


def _keys(types: Sequence[str], widths: Sequence[int], *, width: int) -> list[int]:
    """The leading columns that are not numbers, as many as leave room for any other column
    beside them; at least the first."""
    keys: list[int] = []
    for at, kind in enumerate(types[:-1]):
        beside = max(widths[at + 1 :]) + 3  # the widest column after it, in a band of its own
        if kind.startswith(_NUMBERS) or _table_width([widths[c] for c in [*keys, at]]) + beside > width:
            break
        keys.append(at)
    return keys or [0]


def _table_width(widths: Sequence[int]) -> int:
    return sum(widths) + 3 * len(widths) + 1  # "│ " before each cell, " " after it, the last "│"


def display_width(text: str) -> int:
    """Terminal columns: a wide (CJK, emoji) character takes two, a combining one none."""
    return sum(
        0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text
    )


def _shrunk(widths: list[int], width: int) -> list[int]:
    """Widths within `width`, the widest cut first: a value wider than a terminal ends in "…"."""
    while (excess := _table_width(widths) - width) > 0 and max(widths) > 1:
        at = widths.index(max(widths))
        others = sorted(widths)[-2] if len(widths) > 1 else 1
        widths[at] = max(widths[at] - excess, others, 1) if widths[at] > others else widths[at] - 1
    return widths


def _fit(text: str, width: int, *, right: bool) -> str:
    if display_width(text) > width:
        while display_width(text) > width - 1:
            text = text[:-1]
        text += "…"
    pad = " " * (width - display_width(text))
    return pad + text if right else text + pad


def _box(cells: list[Row], columns: list[int], widths: list[int], right: list[bool], *, cut_after: int | None) -> str:
    def line(left: str, middle: str, end: str) -> str:
        return left + middle.join("─" * (w + 2) for w in widths) + end + "\n"

    def row(values: Row, *, header: bool = False) -> str:
        return (
            "│"
            + "│".join(
                f" {_fit(values[c], w, right=right[c] and not header)} " for c, w in zip(columns, widths, strict=True)
            )
            + "│\n"
        )

    text = line("┌", "┬", "┐") + row(cells[0], header=True) + row(cells[1], header=True) + line("├", "┼", "┤")
    for at, values in enumerate(cells[2:], start=2):
        if at == cut_after:  # the rows left out between the first and the last
            text += row(["·"] * len(values), header=True)
        text += row(values)
    return text + line("└", "┴", "┘")
