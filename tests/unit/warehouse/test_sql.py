"""The SQL runner's helpers: the line of a DuckDB error worth showing."""

import pytest

from pipelines.warehouse.sql import first_meaningful_line


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("\n\nfirst\nsecond", "first"),
        ("  ^^^^\nSee also https://x\nLINE 1: SELECT\nreal", "real"),
        ("", ""),
    ],
)
def test_first_meaningful_line_skips_blank_and_marker_lines(text, line):
    assert first_meaningful_line(text) == line
