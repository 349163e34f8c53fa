"""`metrics-etl report` and `metrics-etl export`: the read side, from the serving database."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from pipelines._words import counted
from pipelines.cli._base import Failed, load_settings
from pipelines.config import PAGE_TIERS

if TYPE_CHECKING:
    from pipelines.bi import BiSources, Format

_OUT = click.Path(dir_okay=False, path_type=Path)


def _sources() -> BiSources:
    from pipelines.bi import BiSources

    return BiSources.from_settings(load_settings())


@click.command()
@click.option("--out", type=_OUT, help="Where the page goes.  [default: report.html in the data home]")
@click.option("--tier", type=click.Choice(PAGE_TIERS),
              help="What the page may show: aggregate names nobody.  [default: METRICS_PAGE_TIER, else full]")
def report(out: Path | None, tier: str | None) -> None:
    """Write a self-contained HTML page of agent adoption; `forget` writes it again."""
    from pipelines.bi import BiError, BiSources
    from pipelines.page import write_page
    from pipelines.service.errors import ConfigError

    settings = load_settings()
    try:
        path = write_page(sources=BiSources.from_settings(settings), out=out or settings.home / "report.html",
                          tier=tier or settings.page_tier, home=settings.home)
    except (BiError, ConfigError) as exc:
        raise Failed(str(exc)) from None
    click.echo(f"report: {path.resolve()}")


@click.command()
@click.option("--view", required=True, help="A bi.* view name, e.g. agent_usage_daily.")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet"]), default="csv", help="The file's format.")
@click.option("--out", type=_OUT, required=True, help="The file to write; it appears once complete.")
def export(view: str, fmt: Format, out: Path) -> None:
    """Write one bi.* view to CSV or Parquet, from the serving database."""
    from pipelines.bi import BiError, export_view
    from pipelines.service.errors import ConfigError

    try:
        rows = export_view(sources=_sources(), view=view, fmt=fmt, out=out)
    except (BiError, ConfigError) as exc:
        raise Failed(str(exc)) from None
    click.echo(f"exported {counted(rows, 'row')} of bi.{view.removeprefix('bi.')} to {out.resolve()}")
