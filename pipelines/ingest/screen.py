"""Lines no parser may see: found on the raw bytes of a segment, before PyArrow or json.

The download thread screens each segment as it is cut (archive.py), so this work sits on the
stage with time to spare rather than on the parser's.

PyArrow's JSON reader recurses once per nesting level (about 20,000 levels, a 120 KB line,
overflow the C stack: the process dies with SIGSEGV and prints nothing) and Python's `json`
and our own walks of the types raise RecursionError from about 700. PyArrow refuses a lone
surrogate escape (`"\\ud800"`), and `json` accepts it into a string that cannot be encoded
as UTF-8 again (UnicodeEncodeError when it lands). PyArrow takes invalid UTF-8 into strings
as it comes. So each segment is screened first, and such a line is quarantined with a reason
naming what is wrong with it; the lines around it are parsed as usual.

The screen costs little on ordinary data: a line cannot be nested deeper than the number of
`{` and `[` it holds, so one C pass keeps only those bytes and the line breaks, and only
lines with more than MAX_DEPTH of them are walked exactly. Ordinary user lines hold at most
about 50; aggregate lines (a few a day) hold thousands and are walked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import accumulate

# Real records are about 5 levels deep (record, breakdown array, element, version object);
# 64 leaves room for any unknown nested field and stays far below what a parser survives.
MAX_DEPTH = 64

_NOT_OPENER_OR_NEWLINE = bytes(b for b in range(256) if b not in b"{[\n")
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'{}[]"')
_STRING = re.compile(rb'"[^"]*"')
_STEP = {ord("{"): 1, ord("["): 1, ord("}"): -1, ord("]"): -1}
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# Every backslash in a JSON string starts an escape; read left to right they pair up exactly,
# so a surrogate pair (high then low) is told apart from a lone half and from `\\ud800` (an
# escaped backslash followed by text).
_ESCAPE = re.compile(
    rb"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|(u[dD][89a-fA-F][0-9a-fA-F]{2})|.)", re.DOTALL
)


def nesting_depth(line: bytes) -> int:
    """How deep a parser reading `line` would nest; never less than the real depth.

    Escaped backslashes and quotes are taken out, then strings (their brackets are text);
    what is left of a string no quote closes is text up to the line's end, where a parser stops.
    """
    if b"\\" in line:
        line = line.replace(b"\\\\", b"").replace(b'\\"', b"")
    structure = _STRING.sub(b"", line.translate(None, _NOT_STRUCTURE)).split(b'"', 1)[0]
    return max(accumulate(map(_STEP.__getitem__, structure)), default=0)


def lone_surrogate(line: bytes) -> str | None:
    """The first escape in `line` that is half a surrogate pair, or None."""
    for escape in _ESCAPE.finditer(line):
        if escape.group(1):
            return escape.group(0).decode("ascii")
    return None


def line_spans(data: bytes) -> Iterator[tuple[int, int]]:
    """(start, end) of each line of `data`, its newline left out."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        if end == -1:
            end = len(data)
        yield start, end
        start = end + 1


def _utf8_problem(line: bytes) -> str | None:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"invalid UTF-8: byte 0x{line[exc.start]:02x} at byte {exc.start + 1} of the line ({exc.reason})"
    return None


def line_problems(data: bytes) -> dict[int, str]:
    """Index (from 0) of each line of `data` no parser may see -> why."""
    found: dict[int, str] = {}
    # Most segments are ASCII (checked at memory speed); others are decoded once, and line by
    # line only when that fails.
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            for index, (start, end) in enumerate(line_spans(data)):
                problem = _utf8_problem(data[start:end])
                if problem:
                    found[index] = problem
    # One byte is searched at memory speed; `\\u` would be ten times slower (JSON is full of u).
    if b"\\" in data and _SURROGATE_ESCAPE.search(data):
        for index, (start, end) in enumerate(line_spans(data)):
            line = data[start:end]
            if index not in found and _SURROGATE_ESCAPE.search(line) and (escape := lone_surrogate(line)):
                found[index] = (
                    f"invalid Unicode: lone surrogate escape {escape} (half of a UTF-16 pair, not a character)"
                )
    openers = data.translate(None, _NOT_OPENER_OR_NEWLINE).split(b"\n")
    if max(map(len, openers)) > MAX_DEPTH:
        # Not strict: after a final newline `split` has one more (empty) piece than there are lines.
        for index, (line_openers, (start, end)) in enumerate(zip(openers, line_spans(data), strict=False)):
            if len(line_openers) <= MAX_DEPTH or index in found:
                continue
            if (depth := nesting_depth(data[start:end])) > MAX_DEPTH:
                found[index] = f"nested deeper than {MAX_DEPTH} levels ({depth} brackets open at once); not parsed"
    return found
