"""Where a statement typed at `metrics-etl sql`'s prompt ends: a `;` outside quotes and comments."""

from __future__ import annotations


def statement_ends(text: str) -> bool:
    """Whether `text` ends with a `;` outside quotes and comments: a statement typed in full."""
    last, complete = _last_char(text)
    return complete and last >= 0 and text[last] == ";"


def without_terminator(statement: str) -> str:
    """The statement without its closing `;` (DuckDB's table rendering wraps the text in a query)."""
    last, _ = _last_char(statement)
    return statement[:last] if last >= 0 and statement[last] == ";" else statement


def _last_char(text: str) -> tuple[int, bool]:
    """Where the last character outside comments is (-1: none), and whether no quote or comment is open."""
    last, quote, at = -1, "", 0
    while at < len(text):
        char = text[at]
        if quote:
            last = at
            quote = "" if char == quote else quote  # '' inside a literal closes and reopens it
        elif text.startswith("--", at):
            newline = text.find("\n", at)
            at = len(text) if newline < 0 else newline
            continue
        elif text.startswith("/*", at):
            close = text.find("*/", at + 2)
            if close < 0:
                return last, False
            at = close + 2
            continue
        elif char in "'\"":
            quote, last = char, at
        elif not char.isspace():
            last = at
        at += 1
    return last, not quote
