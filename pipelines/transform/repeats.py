"""Two lines of one report holding the same key (user and day, a day, a user on a team, a
repository): one repeated line lands once, different ones land neither.

A line the service repeats is the same record twice: landing it once is right, and the copy is
counted (raw.report_files.repeated_lines). Two lines that differ under one key are two answers to
one question and the pipeline cannot know which is true: both are quarantined, the reason naming
their line numbers (never the person of the key), and the rest of the report lands.

"The same line" is the same JSON value: byte for byte, or written another way (spacing, member
order, `1.0` for `1.00`). Numbers keep their kind, so `1` and `1.0` differ (one lands in an integer
column, the other in `extra`), and so do text and a number.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["KeyedLines", "Place", "conflict_reason", "same_json"]

# (file index, line number) of a line in its report.
Place = tuple[int, int]


def _float(text: str) -> tuple[str, Decimal | str]:
    try:
        return ("number", Decimal(text))
    except InvalidOperation:  # pragma: no cover - json only hands on number literals
        return ("number", text)


def _pairs(pairs: list[tuple[str, Any]]) -> tuple[str, tuple[tuple[str, Any], ...]]:
    # Sorted by name only: a member named twice keeps its order, so duplicates compare as sent.
    return ("object", tuple(sorted(pairs, key=lambda pair: pair[0])))


def _canonical(line: bytes) -> object:
    """The line's JSON value in a form where equal means the same record; the bytes if not JSON."""
    try:
        return json.loads(
            line,
            object_pairs_hook=_pairs,
            parse_int=lambda text: ("integer", int(text)),
            parse_float=_float,
            parse_constant=lambda text: ("constant", text),
        )
    except (ValueError, RecursionError):
        return ("bytes", line.strip())


def same_json(first: bytes, second: bytes) -> bool:
    """Whether two lines hold the same JSON value."""
    return first.strip() == second.strip() or _canonical(first) == _canonical(second)


def _places(places: Sequence[Place]) -> str:
    if len({file for file, _ in places}) == 1:
        numbers = [str(line) for _, line in places]
        named = ", ".join(numbers[:-1]) + f" and {numbers[-1]}"
        return f"lines {named} of file {places[0][0]}"
    named_places = [f"line {line} of file {file}" for file, line in places]
    return ", ".join(named_places[:-1]) + f" and {named_places[-1]}"


def conflict_reason(places: Sequence[Place], what: str) -> str:
    """The quarantine reason of each line of a conflicting group: where, never who.

    `what` says what the key is in words that name no person ("one user's record of 2026-11-20").
    """
    return (
        f"{_places(sorted(places))} hold {what} with different figures; none of them landed "
        "(clear them to accept the report without it, or fetch the report again once the service sends one line)"
    )


@dataclass
class KeyedLines:
    """The lines of one report by key, in the order they come: `add` says whether a line's rows
    may land; once every line is in, `conflicts` holds the keys two different lines carried."""

    _first: dict[Hashable, tuple[Place, bytes]] = field(default_factory=dict)
    repeated: list[Place] = field(default_factory=list)  # copies of an earlier line, not landed
    conflicts: dict[Hashable, list[Place]] = field(default_factory=dict)  # key -> every line holding it
    _key_of: dict[Place, Hashable] = field(default_factory=dict)  # the key of each later line

    def add(self, key: Hashable, place: Place, line: bytes) -> bool:
        """True: the first line of its key (its rows land unless a later line conflicts)."""
        first = self._first.get(key)
        if first is None:
            self._first[key] = (place, line)
            return True
        if key in self.conflicts:
            self.conflicts[key].append(place)
        elif same_json(first[1], line):
            self.repeated.append(place)
        else:
            # Copies of the first line already counted as repeats are in conflict too.
            copies = [p for p in self.repeated if self._key_of.get(p) == key]
            self.repeated = [p for p in self.repeated if p not in copies]
            self.conflicts[key] = [first[0], *copies, place]
        self._key_of[place] = key
        return False
