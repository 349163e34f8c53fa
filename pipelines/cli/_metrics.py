"""`metrics-etl metrics`: the metric catalog from the command line (list, describe, query,
compare), answered by pipelines.metrics from the aggregate tier (or, with the setting, the
pseudonymous one), as a table, CSV or JSON. A question the catalog cannot take is one line,
exit 2; a tier that cannot answer (not published yet, past the time limit), one line, exit 1."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import click

from pipelines.cli._base import Failed, Group, Refused, load_settings
from pipelines.cli._metrics_output import FORMATS, print_answer, print_catalog, print_metric

if TYPE_CHECKING:
    from pipelines.metrics import MetricsReader

_DIMENSIONS = ("scope", "agent", "team", "cost_center", "user")


@click.group(cls=Group)
def metrics() -> None:
    """The metric catalog: governed definitions, answered from the aggregate tier (docs/metrics.md)."""


def _format_option(command: Any) -> Any:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        help="table (for a person), csv (the rows; gaps, provisional days and hidden rows on stderr) or json "
        "(the whole answer).  [default: table on a terminal, else csv]",
    )(command)


def _tier_option(command: Any) -> Any:
    return click.option(
        "--tier",
        type=click.Choice(["aggregate", "pseudonymous"]),
        help="aggregate names nobody; pseudonymous adds per-person metrics by pseudonym.  "
        "[default: METRICS_CATALOG_TIER, else aggregate]",
    )(command)


@contextlib.contextmanager
def _reader(tier: str | None) -> Iterator[MetricsReader]:
    """The catalog's reader at the tier asked; a MetricsError, one line: exit 2 for a question the
    catalog cannot take, 1 for a tier that cannot answer."""
    from pipelines.metrics import MetricsError, MetricsReader
    from pipelines.service.errors import ConfigError

    settings = load_settings()
    try:
        with MetricsReader(settings.metrics_config(tier)) as reader:
            yield reader
    except MetricsError as exc:
        raise (Refused(str(exc)) if exc.usage else Failed(str(exc))) from None
    except ConfigError as exc:
        raise Failed(f"configuration: {exc}") from None


def _fmt(fmt: str | None) -> str:
    return fmt or ("table" if sys.stdout.isatty() else "csv")


@metrics.command(name="list")
@_format_option
@_tier_option
def list_metrics(fmt: str | None, tier: str | None) -> None:
    """Every metric of the tier: name, grain, unit, dimensions and definition; and the dimensions."""
    with _reader(tier) as reader:
        print_catalog(reader.metrics(), reader.dimensions(), fmt=_fmt(fmt))


@metrics.command()
@click.argument("name")
@_format_option
@_tier_option
def describe(name: str, fmt: str | None, tier: str | None) -> None:
    """One metric: its definition, unit, grain, dimensions, gap and finality rules, tier and SQL."""
    with _reader(tier) as reader:
        print_metric(reader.describe(name), fmt=_fmt(fmt))


def _question(command: Any) -> Any:
    options = (
        click.option(
            "--scope",
            metavar="SCOPE",
            help="organization:<slug>, enterprise:<slug> or a slug.  [default: every scope, each apart]",
        ),
        click.option(
            "--by",
            "group_by",
            multiple=True,
            type=click.Choice(_DIMENSIONS),
            help="Split the answer by a dimension (repeat for more).",
        ),
    )
    for option in reversed(options):
        command = option(command)
    return command


@metrics.command()
@click.argument("name")
@_question
@click.option("--from", "start", metavar="YYYY-MM-DD", help="First day (a day metric) or period end.")
@click.option("--to", "end", metavar="YYYY-MM-DD", help="Last day (a day metric) or period end.")
@click.option("--period", metavar="YYYY-MM-DD", help="One 28-day period, by its newest day (not with --from/--to).")
@click.option(
    "--where",
    "filters",
    multiple=True,
    metavar="DIMENSION=VALUE",
    help="Only rows of this id or label, e.g. agent=a-1 (repeat for more dimensions).",
)
@_format_option
@_tier_option
def query(
    name: str,
    scope: str | None,
    group_by: Sequence[str],
    start: str | None,
    end: str | None,
    period: str | None,
    filters: Sequence[str],
    fmt: str | None,
    tier: str | None,
) -> None:
    """One metric per scope and day or period: the latest 28 days or period unless a range or
    period is given, with the days that were gaps or provisional and the rows hidden under k."""
    from pipelines.metrics import MetricsError, parse_day

    try:
        days = {
            "start": parse_day(start, what="--from") if start else None,
            "end": parse_day(end, what="--to") if end else None,
            "period": parse_day(period, what="--period") if period else None,
        }
    except MetricsError as exc:
        raise Refused(str(exc)) from None
    where = {}
    for text in filters:
        dimension, equals, value = text.partition("=")
        if not equals or not dimension or not value:
            raise Refused(f"--where {text!r} is not DIMENSION=VALUE: accepted: e.g. agent=a-1, team=platform")
        where[dimension.strip()] = value.strip()
    with _reader(tier) as reader:
        answer = reader.query(name, scope=scope, group_by=group_by, filters=where, **days)
    print_answer(answer, fmt=_fmt(fmt))


@metrics.command()
@click.argument("name")
@_question
@click.option("--first", required=True, metavar="YYYY-MM-DD", help="The newest day of the first 28-day period.")
@click.option("--second", required=True, metavar="YYYY-MM-DD", help="The newest day of the second: its change is said.")
@_format_option
@_tier_option
def compare(
    name: str,
    scope: str | None,
    group_by: Sequence[str],
    first: str,
    second: str,
    fmt: str | None,
    tier: str | None,
) -> None:
    """Two 28-day periods of one metric: the second's rate a day against the first's, called by
    the page's change rule (grown or shrunk only beyond the day-to-day noise)."""
    from pipelines.metrics import MetricsError, parse_day

    try:
        periods = {"first": parse_day(first, what="--first"), "second": parse_day(second, what="--second")}
    except MetricsError as exc:
        raise Refused(str(exc)) from None
    with _reader(tier) as reader:
        comparison = reader.compare(name, scope=scope, group_by=group_by, **periods)
    print_answer(comparison, fmt=_fmt(fmt))
