"""`metrics-etl fields`: the record fields the schema declares, and those the service sent beyond it."""

from __future__ import annotations

import click

from pipelines.cli._base import Failed, load_settings


@click.command()
@click.option(
    "--dialect",
    type=click.Choice(["service", "github"]),
    default=None,
    help="Whose wire names to list.  [default: SERVICE_DIALECT]",
)
@click.option("--drift-only", is_flag=True, help="Only the fields the records carried beyond the schema.")
def fields(dialect: str | None, drift_only: bool) -> None:
    """List the declared record fields (wire name, type) and, from the warehouse, each field the
    service sent that the schema does not declare or in another type, with its share of records.

    Such values never cost a line: they land in each row's `extra` (a mistyped field's column is
    NULL there). bi.field_drift has them per scope, report and day.
    """
    from pipelines.bi import BiError, BiSources, open_bi
    from pipelines.ingest.drift import declared_paths
    from pipelines.warehouse.sql import run_sql

    settings = load_settings()
    wire = dialect or settings.dialect
    if not drift_only:
        declared = declared_paths(wire)
        click.echo(f"declared record fields ({len(declared)}, {wire} wire names):")
        width = max(len(path) for path, _ in declared)
        for path, dtype in declared:
            click.echo(f"  {path:{width}}  {dtype}")
        click.echo()
    try:
        with open_bi(sources=BiSources.from_settings(settings)) as conn:
            beyond = run_sql(conn, "metadata/select_field_shares.sql")
    except BiError as exc:
        raise Failed(str(exc)) from None
    if not beyond:
        click.echo("beyond the schema: nothing; every field the records carried is declared, in its type")
        return
    click.echo(f"beyond the schema ({len(beyond)} paths; values in each row's extra; bi.field_drift per day):")
    width = max(len(row[0]) for row in beyond)
    for path, drift, json_type, records, of_records, first, last in beyond:
        share = f"{records / of_records:.1%} of records" if of_records else "share unknown"
        click.echo(f"  {path:{width}}  {drift:10}  {json_type:7}  {records:>10,} records ({share})  {first}..{last}")
