"""The page's tables: one shape for every section, so a phone reads each the same way.

Every cell carries its column's heading (data-label): on a narrow screen the style sheet lays a
row out as a small block of "heading value" pairs instead of columns, so no column is cut off
or pushed off-screen and a row is as tall as its values, not as its narrowest column.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

# A cell: its HTML and its class ("num" right-aligns a figure; "" a text cell).
Cell = tuple[str, str]


def table(
    *, headings: Sequence[str], rows: Sequence[tuple[str, Sequence[Cell]]], caption: str = "", css: str = "periods"
) -> str:
    """`rows` are (the tr's attributes, its cells); headings are plain text, cells HTML."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headings)
    body = "".join(
        f"<tr {attrs}>"
        + "".join(
            f'<td{f" class={chr(34)}{cls}{chr(34)}" if cls else ""} data-label="{escape(h)}">{html}</td>'
            for h, (html, cls) in zip(headings, cells, strict=True)
        )
        + "</tr>"
        for attrs, cells in rows
    )
    cap = f"<caption>{caption}</caption>" if caption else ""
    return f'<table class="{css}">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
