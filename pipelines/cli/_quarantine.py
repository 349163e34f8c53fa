"""`metrics-etl quarantine list|show|clear`: review the report lines that could not land."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from pipelines._words import counted
from pipelines.cli._base import DAY, Failed, Group, Refused, load_settings

if TYPE_CHECKING:
    from pipelines.warehouse.quarantine import QuarantinedLine, Selection

_REASON_WIDTH = 100
# Control characters of the platform's bytes, shown escaped: a quarantined line may hold
# anything, and a terminal must not act on it.
_CONTROLS = {code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0)) if code != 0x09}

_F = TypeVar("_F", bound=Callable[..., object])


def _day_selection(command: _F) -> _F:
    """The options naming reports by day and scope, shared by `list` and `clear`."""
    options = (
        click.option("--day", type=DAY, help="Lines of the reports that cover this day (28-day reports too)."),
        click.option("--from", "start", type=DAY, help="First day of a range."),
        click.option("--to", "end", type=DAY, help="Last day of a range, with --from."),
        click.option("--scope-name", metavar="NAME", help="One organization or enterprise, e.g. acme."),
    )
    for option in reversed(options):
        command = option(command)
    return command


@click.group(cls=Group)
def quarantine() -> None:
    """List, show and clear quarantined report lines."""


@quarantine.command(name="list")
@_day_selection
@click.option("--all", "include_cleared", is_flag=True, help="Cleared lines too, marked [cleared].")
def list_lines(
    day: date | None, start: date | None, end: date | None, scope_name: str | None, include_cleared: bool
) -> None:
    """Open quarantined lines, newest reports first, one a line."""
    from pipelines.service.errors import ConfigError
    from pipelines.warehouse.quarantine import QuarantineError, list_lines, open_warehouse, repeated_lines

    selection = _selection(day=day, start=start, end=end, scope_name=scope_name)
    try:
        with open_warehouse(_warehouse_path(), write=False) as conn:
            lines = list_lines(conn, selection, include_cleared=include_cleared)
            repeated = repeated_lines(conn, selection)
    except (QuarantineError, ConfigError) as exc:
        raise Failed(str(exc)) from None
    # Repeated lines are not quarantined (each landed once): said before the count, so the
    # count stays the last line.
    said = [
        f"{report}  {counted(report.lines, 'repeated line')} landed once (the same line twice: not quarantined)"
        for report in repeated
    ]
    out = _format_list(lines, include_cleared=include_cleared)
    click.echo("\n".join([*out[:-1], *said, out[-1]]))


@quarantine.command()
@click.argument("key")
def show(key: str) -> None:
    """Every field of one line (KEY as `quarantine list` prints it) and how to read it whole."""
    from pipelines.service.errors import ConfigError
    from pipelines.warehouse.quarantine import BadKey, LineKey, QuarantineError, find_lines, open_warehouse

    try:
        parsed = LineKey.parse(key)
    except BadKey as exc:
        raise Refused(str(exc)) from None
    try:
        with open_warehouse(_warehouse_path(), write=False) as conn:
            lines = find_lines(conn, parsed)
    except (QuarantineError, ConfigError) as exc:
        raise Failed(str(exc)) from None
    if not lines:
        raise Failed(f"no quarantined line has key {parsed} (`metrics-etl quarantine list --all` prints the keys)")
    click.echo("\n\n".join("\n".join(_format_show(line)) for line in lines))


@quarantine.command()
@click.argument("keys", nargs=-1, metavar="[KEY]...")
@_day_selection
@click.option("--note", metavar="TEXT", help="Why the lines are accepted (required, kept with them).")
def clear(
    keys: Sequence[str],
    day: date | None,
    start: date | None,
    end: date | None,
    scope_name: str | None,
    note: str | None,
) -> None:
    """Accept lines the platform keeps serving (KEYs, or a day selection); they stay cleared on re-fetch."""
    from pipelines.service.errors import ConfigError
    from pipelines.warehouse.quarantine import (
        BadKey,
        LineKey,
        QuarantineError,
        clear_keys,
        clear_selection,
        open_warehouse,
    )

    has_days = bool(day or start or end)
    if not keys and not has_days:
        raise Refused(
            "name the lines to clear: KEYs as `metrics-etl quarantine list` prints them, "
            "or --day D / --from D --to D (with --scope-name NAME)"
        )
    if keys and (has_days or scope_name):
        raise Refused("give KEYs or a day selection (--day, --from/--to, --scope-name), not both")
    if not note or not note.strip():
        raise Refused("--note TEXT is required and not empty: say why the lines are accepted (it is kept with them)")
    selection = _selection(day=day, start=start, end=end, scope_name=scope_name)
    try:
        parsed = [LineKey.parse(text) for text in keys]
    except BadKey as exc:
        raise Refused(str(exc)) from None
    try:
        with open_warehouse(_warehouse_path(), write=True) as conn:
            done = clear_keys(conn, parsed, note=note) if parsed else clear_selection(conn, selection, note=note)
    except (QuarantineError, ConfigError) as exc:
        raise Failed(str(exc)) from None
    if done.cleared == done.already == 0:
        raise Failed(
            "no quarantined line in that selection (`metrics-etl quarantine list --all` "
            "with the same options shows what it holds)"
        )
    already = f"; {done.already} cleared before, left as they were" if done.already else ""
    click.echo(
        f"cleared {counted(done.cleared, 'line')}{already}. "
        "A cleared line stays cleared when its report is fetched again and still holds it."
    )


def _selection(*, day: date | None, start: date | None, end: date | None, scope_name: str | None) -> Selection:
    """The Selection the day options name; refused (one line) when they make no sense."""
    from pipelines.warehouse.quarantine import Selection

    if day and start:
        raise Refused("give --day (one day) or --from (a range), not both")
    if end and not start:
        raise Refused("--to needs --from (for one day use --day)")
    first = day or start
    last = day or end
    if first and last and first > last:
        raise Refused(f"--from {first} is after --to {last}")
    return Selection(first_day=first, last_day=last, scope_name=scope_name)


def _warehouse_path() -> Path:
    return load_settings().warehouse_path


def _utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _printable(text: str) -> str:
    return text.translate(_CONTROLS)


def _short(text: str, width: int = _REASON_WIDTH) -> str:
    """The first line of a reason, cut to `width` characters: one line per quarantined line."""
    line = " ".join(text.splitlines()[0].split()) if text.strip() else ""
    line = _printable(line)
    return line if len(line) <= width else line[: width - 1] + "…"


def _format_list(lines: list[QuarantinedLine], *, include_cleared: bool) -> list[str]:
    width = max((len(str(line.key)) for line in lines), default=0)
    out = [f"{line.key!s:{width}}  {'' if line.is_open else '[cleared] '}{_short(line.reason)}" for line in lines]
    opened = sum(1 for line in lines if line.is_open)
    count = f"{opened} open line{'s' if opened != 1 else ''}"
    if include_cleared:
        count += f", {len(lines) - opened} cleared"
    if lines:
        count += " (`metrics-etl quarantine show KEY` prints one whole)"
    return [*out, count]


def _format_show(line: QuarantinedLine) -> list[str]:
    key = line.key
    days = str(key.start_day) if key.start_day == key.end_day else f"{key.start_day} to {key.end_day}"
    status = (
        "open: it needs a look (a pipeline fix and a re-run of the day, or `clear --note`)"
        if line.cleared_at is None
        else f"cleared {_utc(line.cleared_at)}: {_printable(line.cleared_note or '')}"
    )
    archive = shlex.quote(line.archive_path)
    out = [
        f"key          {key}",
        f"status       {status}",
        f"report       {key.scope} {key.scope_name}, {key.level} level, {line.report_kind} report of {days}",
        f"file         {key.file_index:04d}, fetched {_utc(line.fetched_at)} from {_printable(line.link)}",
        f"line         {key.line_number}",
        f"reason       {_printable(line.reason)}",
        f"archive      {line.archive_path}",
        f"whole line   zstd -dc {archive} | sed -n '{key.line_number}p'",
    ]
    if not Path(line.archive_path).is_absolute():
        out.append("             (the archive path is relative to the directory the pipeline runs in)")
    elif not Path(line.archive_path).exists():
        out.append(
            "             (that file is no longer kept: the report was fetched again with other bytes, "
            "or retention removed it; the text below is what was kept of the line)"
        )
    if line.line_text is None:
        out.append("text         not kept: the command above prints the line from the archive")
    else:
        out.append(
            "text         as stored (a line's first 2,000 bytes, control characters as \\xNN; "
            "the archive keeps it whole):"
        )
        out.append(_printable(line.line_text))
    return out
