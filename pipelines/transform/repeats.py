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
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

import polars as pl

from pipelines.transform.records import Transformed
from pipelines.transform.schema import DAY_TOTALS_WRAPPER

__all__ = [
    "ENTRY_KEYS",
    "KeyedLines",
    "Place",
    "RefusedLine",
    "conflict_reason",
    "entries_listed_twice",
    "same_json",
    "same_records",
]

# (file index, line number) of a line in its report.
Place = tuple[int, int]


def _float(text: str) -> tuple[str, Decimal | str]:
    try:
        return ("number", Decimal(text))
    except InvalidOperation:  # pragma: no cover - json only hands on number literals
        return ("number", text)


def _pairs(pairs: list[tuple[str, Any]]) -> tuple[str, tuple[tuple[str, Any], ...]]:
    # A member named twice: the last one counts, as both parse paths land it (docs/ingest.md).
    return ("object", tuple(sorted(dict(pairs).items())))


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


def _key_records(line: bytes, day: str, user_id: int | None) -> list[object]:
    """The line's records of one key, as `_canonical` values: a flat line is its own record; a
    `day_totals` wrapper gives each of its records of that day, with the wrapper's members it
    lacks, as the parse paths land them (pipelines/ingest/_lines.py `_records_of`)."""
    value = _canonical(line)
    if not (isinstance(value, tuple) and value[0] == "object"):
        return [value]
    members = dict(value[1])
    inner = members.get(DAY_TOTALS_WRAPPER)
    if "day" in members or not isinstance(inner, list):
        return [value]
    header = {name: member for name, member in members.items() if name != DAY_TOTALS_WRAPPER}
    found: list[object] = []
    for record in inner:
        if not (isinstance(record, tuple) and record[0] == "object"):
            return [value]
        merged = header | dict(record[1])
        if merged.get("day") == day and (user_id is None or merged.get("user_id") == ("integer", user_id)):
            found.append(("object", tuple(sorted(merged.items()))))
    return found


def same_records(lines: Sequence[bytes], *, day: date, user_id: int | None) -> bool:
    """Whether the lines landed one key with one record: each holds exactly one record of the key
    (a wrapper listing the day twice holds two) and every such record is the same JSON value. A
    wrapper and a plain line, or two wrappers of other spans, agree when the key's records do."""
    if len(set(lines)) == 1 and len(lines) > 1 and b"day_totals" not in lines[0]:
        return True  # byte for byte: nothing to parse
    records = [_key_records(line, day.isoformat(), user_id) for line in lines]
    return all(len(found) == 1 for found in records) and all(found == records[0] for found in records[1:])


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
    distinct = sorted(set(places))
    if len(distinct) == 1:  # a wrapper listing one day twice
        file, line = distinct[0]
        return (
            f"line {line} of file {file} holds {what} more than once; none of them landed (clear it to accept "
            "the report without it, or fetch the report again once the service sends one)"
        )
    return (
        f"{_places(distinct)} hold {what} with different figures; none of them landed "
        "(clear them to accept the report without it, or fetch the report again once the service sends one line)"
    )


class RefusedLine(ValueError):
    """A line refused for what it holds after its key was read: still a line of that key."""

    def __init__(self, reason: str, key: Hashable) -> None:
        super().__init__(reason)
        self.key = key


@dataclass
class KeyedLines:
    """The lines of one report by key, in the order they come: `add` says whether a line's rows
    may land; once every line is in, `conflicts` holds the keys two different lines carried."""

    _first: dict[Hashable, tuple[Place, bytes]] = field(default_factory=dict)
    repeated: list[Place] = field(default_factory=list)  # copies of an earlier line, not landed
    conflicts: dict[Hashable, list[Place]] = field(default_factory=dict)  # key -> every line holding it
    _key_of: dict[Place, Hashable] = field(default_factory=dict)  # the key of each later line
    # key -> its lines refused for another reason (quarantined for that, so not in `conflicts`);
    # a key with one holds different lines, so none of its lines lands.
    refused: dict[Hashable, list[Place]] = field(default_factory=dict)

    def add(self, key: Hashable, place: Place, line: bytes) -> bool:
        """True: the first line of its key (its rows land unless a later line conflicts)."""
        first = self._first.get(key)
        if first is None:
            self._first[key] = (place, line)
            if key not in self.refused:
                return True
            self.conflicts[key] = [place]
        elif key in self.conflicts:
            self.conflicts[key].append(place)
        elif same_json(first[1], line):
            self.repeated.append(place)
        else:
            self._conflict(key, place)
        self._key_of[place] = key
        return False

    def refuse(self, key: Hashable, place: Place) -> None:
        """A line of `key` refused for what it holds (a value no column takes): still a line of the
        key, different from any other, so the key's other lines cannot land either."""
        self.refused.setdefault(key, []).append(place)
        if key in self._first and key not in self.conflicts:
            self._conflict(key)

    def _conflict(self, key: Hashable, *later: Place) -> None:
        # Copies of the first line already counted as repeats are in conflict too.
        copies = [p for p in self.repeated if self._key_of.get(p) == key]
        self.repeated = [p for p in self.repeated if p not in copies]
        self.conflicts[key] = [self._first[key][0], *copies, *later]

    def every_line(self, key: Hashable) -> list[Place]:
        """Every line of a conflicting key, the refused ones too (for the reason)."""
        return [*self.conflicts.get(key, []), *self.refused.get(key, [])]


# The key of one entry of a record's arrays, per table the record's rows land in (the table's
# grain without the report's scope and level: tests/unit/transform/test_repeats.py holds the two equal).
ENTRY_KEYS: dict[str, tuple[str, ...]] = {
    "breakdowns": ("day", "user_id", "kind", "ide", "feature", "language", "model"),
    "agent_activity": ("day", "user_id", "agent_id"),
    "cli_customizations": ("day", "user_id", "category", "name"),
    "adoption_phases": ("day", "phase_number"),
    "feature_engagement": ("day", "feature"),
    "comment_types": ("day", "comment_type"),
}


def entries_listed_twice(result: Transformed, *, level: str) -> tuple[Transformed, list[tuple[int, str]]]:
    """The batch without the records one of whose arrays lists an entry twice (its rows would
    break their table's grain), and (line, reason) for each such record's line.

    Only run when a report failed a grain check (report.py fetches it again with this on): a
    few milliseconds a batch that a report without such a record does not pay.
    """
    keys = ["day", "user_id"] if level == "user" else ["day"]
    found = []
    for table, entry in ENTRY_KEYS.items():
        frame: pl.DataFrame = getattr(result, table)
        twice = frame.filter(pl.struct(list(entry)).is_duplicated())
        if twice.height:
            label = "agent" if table == "agent_activity" else table.replace("_", " ").rstrip("s")
            kinds = twice.get_column("kind").unique().sort().to_list() if "kind" in twice.columns else [None]
            for kind in kinds:
                part = twice if kind is None else twice.filter(pl.col("kind") == kind)
                what = f"{kind} breakdown entry" if kind else f"{label} entry"
                found.append(
                    part.select(
                        *[pl.col(k) for k in keys],
                        pl.lit(f"one {what} is listed twice in the record, which did not land").alias("reason"),
                    ).unique(keys)
                )
    if not found:
        return result, []
    bad = pl.concat(found).unique(keys, keep="first")
    totals = result.totals.with_columns(result.lines.alias("_line"))
    lines = totals.join(bad, on=keys, how="inner", nulls_equal=True).select("_line", "reason").unique("_line")

    def kept(frame: pl.DataFrame) -> pl.DataFrame:
        on = keys if all(k in frame.columns for k in keys) else ["day"]
        return frame.join(bad.select(on).unique(), on=on, how="anti", nulls_equal=True)

    refused = totals.join(bad.select(keys), on=keys, how="semi", nulls_equal=True).select(
        "day",
        pl.col("user_id") if "user_id" in totals.columns else pl.lit(None, dtype=pl.Int64()).alias("user_id"),
        "_line",
    )
    totals = kept(totals)
    return replace(
        result,
        totals=totals.drop("_line"),
        lines=totals.get_column("_line"),
        rejected_keys=pl.concat([result.rejected_keys, refused]),
        **{table: kept(getattr(result, table)) for table in ENTRY_KEYS},
    ), sorted(lines.iter_rows())
