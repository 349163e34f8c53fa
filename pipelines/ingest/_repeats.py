"""Two lines of one report with the same key, settled before the report's checks.

Lines land batch by batch as they stream, so a key's second line is only known once every file
is in: the landing records each key's file and line (landed_keys), and one GROUP BY over it
finds the keys landed twice (none, in a normal report: that query is all it costs). Only those
lines are read again from the archive and compared (pipelines/transform/repeats.py): a repeated
line's key is landed again from one copy, and the copies are counted; the lines of a key that
differ are quarantined with a reason naming their line numbers, and none of the key's rows stay.
The rest of the report is left as it landed.
"""

from __future__ import annotations

import io
from collections import Counter, defaultdict
from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import polars as pl
import zstandard

from pipelines.ingest._lines import Reject, read_lines, truncate_line
from pipelines.ingest.archive import MAX_LINE_BYTES
from pipelines.transform import Provenance, Transformed, empty_records, transform_records
from pipelines.transform.repeats import Place, conflict_reason, same_records
from pipelines.warehouse import ReportLanding

__all__ = ["Settled", "landed_frames", "settle_repeats"]

_KEY_COLUMNS = ("day", "user_id")


def landed_frames(result: Transformed, *, level: str) -> dict[str, pl.DataFrame]:
    """The tables a batch of records lands in, each with its rows (the totals with `_line`)."""
    totals = "user_daily_totals" if level == "user" else "daily_totals"
    return {
        totals: result.totals.with_columns(result.lines.alias("_line")),
        "breakdowns": result.breakdowns,
        "agent_activity": result.agent_activity,
        "cli_customizations": result.cli_customizations,
        "adoption_phases": result.adoption_phases,
        "feature_engagement": result.feature_engagement,
        "comment_types": result.comment_types,
    }


@dataclass
class Settled:
    """What settling changed, for the report's tallies and raw rows."""

    # Rows no longer landed, by file: the copies of repeated lines and the conflicting lines.
    dropped: list[tuple[int, Transformed]] = field(default_factory=list)
    rejects: dict[int, list[Reject]] = field(default_factory=lambda: defaultdict(list))
    repeated: Counter[int] = field(default_factory=Counter)  # copies not landed, per file


def _what(key: tuple[date, int | None]) -> str:
    day, user_id = key
    return f"the record of {day}" if user_id is None else f"one user's record of {day}"


def _keyed(frame: pl.DataFrame, keys: pl.DataFrame, *, level: str) -> pl.DataFrame:
    """The rows of `frame` under `keys` (a wrapper line's other days are not touched)."""
    on = list(_KEY_COLUMNS) if level == "user" and "user_id" in frame.columns else ["day"]
    return frame.join(keys.select(on).unique(), on=on, how="semi", nulls_equal=True)


def _rows_of(line: bytes, number: int, keys: set[Hashable], prov: Provenance) -> Transformed:
    """The line's rows under `keys`, parsed and transformed again as the report's were."""
    frames = [frame for frame, _ in read_lines([line], first_line=number, batch_rows=1_000, dialect=prov.dialect)]
    records = pl.concat(frames, how="vertical") if frames else empty_records()
    result = transform_records(records, prov)
    key_frame = pl.DataFrame(sorted(keys, key=str), schema={"day": pl.Date(), "user_id": pl.Int64()}, orient="row")
    level = prov.ref.level
    lines = result.totals.with_columns(result.lines.alias("_line"))
    lines = _keyed(lines, key_frame, level=level)
    return Transformed(
        totals=lines.drop("_line"),
        breakdowns=_keyed(result.breakdowns, key_frame, level=level),
        agent_activity=_keyed(result.agent_activity, key_frame, level=level),
        cli_customizations=_keyed(result.cli_customizations, key_frame, level=level),
        adoption_phases=_keyed(result.adoption_phases, key_frame, level=level),
        feature_engagement=_keyed(result.feature_engagement, key_frame, level=level),
        comment_types=_keyed(result.comment_types, key_frame, level=level),
        rejects=result.rejects.clear(),
        lines=lines.get_column("_line"),
        rejected_keys=result.rejected_keys.clear(),
    )


def archived_lines(path: Path, numbers: set[int]) -> dict[int, bytes]:
    """Lines of an archived file by number (1 is its first line), without their line ends.

    Read again only when a report's lines need a second look (two lines of one key). The file
    streams through the decompressor and a line is read at most MAX_LINE_BYTES at a time (a
    longer one never landed, so it is never asked for): memory stays bounded.
    """
    found: dict[int, bytes] = {}
    if not numbers:
        return found
    last = max(numbers)
    with path.open("rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw) as unpacked:
        reader = io.BufferedReader(unpacked, 1 << 20)
        for number in range(1, last + 1):
            line = reader.readline(MAX_LINE_BYTES + 1)
            if not line:
                break
            if number in numbers:
                found[number] = line.rstrip(b"\r\n")
            while not line.endswith(b"\n"):  # the rest of a line over the limit, let go as it comes
                line = reader.readline(MAX_LINE_BYTES + 1)
                if not line:
                    break
    return found


def settle_repeats(landing: ReportLanding, *, prov: Provenance, archives: dict[int, Path]) -> Settled | None:
    """Settle the keys the open report landed more than once; None when there are none."""
    groups: dict[tuple[date, int | None], list[Place]] = defaultdict(list)
    # Per key, its lines a rule refused: quarantined already, nothing of the key landed from them
    # (a 28-day wrapper line may be refused for one day and land its others).
    refused: dict[tuple[date, int | None], set[Place]] = defaultdict(set)
    orphaned: set[tuple[date, int | None]] = set()  # keys whose rows a file fetched again took out
    for day, user_id, file_index, line_number, rejected, orphan in landing.repeated_keys():
        groups[day, user_id].append((file_index, line_number))
        if rejected:
            refused[day, user_id].add((file_index, line_number))
        if orphan:
            orphaned.add((day, user_id))
    # A hash collision is no repeat; refused lines alone are quarantined by their rule already.
    groups = {
        key: places
        for key, places in groups.items()
        if (len(places) > 1 or key in orphaned) and not refused[key].issuperset(places)
    }
    if not groups:
        return None
    wanted: dict[int, set[int]] = defaultdict(set)
    for key, places in groups.items():
        for file_index, number in places:
            if (file_index, number) not in refused[key]:
                wanted[file_index].add(number)
    texts = {
        (file_index, number): text
        for file_index, numbers in wanted.items()
        for number, text in archived_lines(archives[file_index], numbers).items()
    }
    landing.withdraw(pl.DataFrame(list(groups), schema={"day": pl.Date(), "user_id": pl.Int64()}, orient="row"))

    settled = Settled()
    relanded: dict[Place, set[Hashable]] = defaultdict(set)
    dropped: dict[Place, set[Hashable]] = defaultdict(set)
    for key, places in groups.items():
        if refused[key] or not same_records([texts.get(place, b"") for place in places], day=key[0], user_id=key[1]):
            reason = conflict_reason(places, _what(key))
            for place in (p for p in places if p not in refused[key]):  # a refused line keeps its rule's reason
                dropped[place].add(key)
                settled.rejects[place[0]].append(Reject(place[1], reason, truncate_line(texts.get(place, b""))))
        else:
            relanded[places[0]].add(key)
            for place in places[1:]:
                dropped[place].add(key)
                settled.repeated[place[0]] += 1
    for (file_index, number), keys in relanded.items():
        result = _rows_of(texts[file_index, number], number, keys, prov)
        for table, frame in landed_frames(result, level=prov.ref.level).items():
            landing.insert(table=table, frame=frame, file_index=file_index)
    settled.dropped = [
        (file_index, _rows_of(texts.get((file_index, number), b""), number, keys, prov))
        for (file_index, number), keys in dropped.items()
    ]
    # A line quarantined for two keys (a wrapper holding two conflicting days) is one row.
    for file_index, rejects in settled.rejects.items():
        settled.rejects[file_index] = list({r.line_number: r for r in rejects}.values())
    return settled
