"""`metrics-etl report` and `metrics-etl export`: the read side, from the serving database."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from pipelines._words import counted
from pipelines.cli._base import Failed, load_settings
from pipelines.config import PAGE_TIERS

if TYPE_CHECKING:
    from pipelines.bi import Format
    from pipelines.config import Settings

_OUT = click.Path(dir_okay=False, path_type=Path)


@click.command()
@click.option("--out", type=_OUT, help="Where the page goes.  [default: report.html in the data home]")
@click.option(
    "--tier",
    type=click.Choice(PAGE_TIERS),
    help="What the page may show: aggregate names nobody.  [default: METRICS_PAGE_TIER, else full]",
)
def report(out: Path | None, tier: str | None) -> None:
    """Write a self-contained HTML page of agent adoption; `forget` writes it again."""
    from pipelines.bi import BiError, BiSources
    from pipelines.page import write_page
    from pipelines.service.errors import ConfigError

    settings = load_settings()
    tier = tier or settings.page_tier
    out = out or settings.home / "report.html"
    refusal = _refused(out, tier=tier, settings=settings)
    if refusal:
        raise Failed(refusal)
    try:
        path = write_page(sources=BiSources.from_settings(settings), out=out, tier=tier, home=settings.home)
    except (BiError, ConfigError) as exc:
        raise Failed(str(exc)) from None
    click.echo(f"report: {path.resolve()}")


def _refused(out: Path, *, tier: str, settings: Settings) -> str | None:
    """Why the page may not go to `out`: over or inside what the pipeline keeps (the warehouse and
    its `.wal`, a serving database, a lake, the archive, …), or, at the full tier, inside the
    aggregate or pseudonymous tier's directory, whose readers may not see names (docs/privacy.md)."""
    from pipelines.publish.aggregate import aggregate_serving
    from pipelines.publish.pseudonymous import pseudonymous_serving

    target = out.resolve()
    tiers = [aggregate_serving(settings.serving_path), pseudonymous_serving(settings.serving_path)]
    kept = [
        settings.warehouse_path,
        settings.serving_path,
        settings.lake_path,
        settings.raw_dir,
        settings.webhook_spool_dir,
        settings.etag_cache,
        settings.token_file,
        settings.dagster_home,
        settings.logs_dir,
        *tiers,
        *(serving.parent / "lake" for serving in tiers),
    ]
    for path in (p.resolve() for p in kept if p is not None):
        if target.is_relative_to(path) or (target.parent == path.parent and target.name.startswith(f"{path.name}.")):
            return f"--out {out} would write over {path}, which the pipeline keeps: write the page elsewhere"
    for serving in tiers:
        if tier == "full" and target.is_relative_to(serving.parent.resolve()):
            return (
                f"--out {out} is inside {serving.parent}, whose readers may not see names, and "
                "the full tier names people: give --tier aggregate or write the page elsewhere"
            )
    return None


@click.command()
@click.option("--view", required=True, help="A bi.* view name, e.g. agent_usage_daily.")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet"]), default="csv", help="The file's format.")
@click.option("--out", type=_OUT, required=True, help="The file to write; it appears once complete.")
def export(view: str, fmt: Format, out: Path) -> None:
    """Write one bi.* view to CSV or Parquet, from the serving database."""
    from pipelines.bi import BiError, BiSources, export_view
    from pipelines.service.errors import ConfigError

    settings = load_settings()
    refusal = _refused(out, tier="full", settings=settings)  # a view of the full tier
    if refusal:
        raise Failed(refusal)
    try:
        rows = export_view(sources=BiSources.from_settings(settings), view=view, fmt=fmt, out=out, home=settings.home)
    except (BiError, ConfigError) as exc:
        raise Failed(str(exc)) from None
    click.echo(f"exported {counted(rows, 'row')} of bi.{view.removeprefix('bi.')} to {out.resolve()}")
