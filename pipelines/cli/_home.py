"""`metrics-etl init`, `migrate`, `backup` and `publish`: setting up and keeping the data home."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pipelines._words import counted
from pipelines.cli._base import Failed, load_settings


@click.command()
@click.option(
    "--instance",
    type=click.Choice(["local", "postgres"]),
    default="local",
    help="The Dagster instance to write when DAGSTER_HOME has no dagster.yaml: SQLite files in "
    "DAGSTER_HOME (one machine), or PostgreSQL (a team; reads DAGSTER_PG_* from the environment).",
)
def init(instance: str) -> None:
    """Create the data home and the Dagster instance's dagster.yaml; print where everything is."""
    from pipelines.instance import InstanceKind, ensure_instance

    settings = load_settings()
    kind: InstanceKind = "postgres" if instance == "postgres" else "local"
    for directory in (settings.home, settings.logs_dir, settings.raw_dir, settings.webhook_spool_dir):
        directory.mkdir(parents=True, exist_ok=True)
    existed = (settings.dagster_home / "dagster.yaml").exists()
    config = ensure_instance(settings, kind=kind)
    click.echo(f"data home:        {settings.home}")
    click.echo(f"warehouse:        {settings.warehouse_path}")
    click.echo(f"serving database: {settings.serving_path}")
    click.echo(f"lake:             {settings.lake_path}")
    click.echo(f"run logs:         {settings.logs_dir}")
    state = "kept as it was" if existed else f"written ({kind})"
    click.echo(f"dagster instance: {config} ({state})")
    click.echo(f"Dagster's own commands (dagster-webserver, dagster-daemon) need: DAGSTER_HOME={settings.dagster_home}")


@click.command()
def migrate() -> None:
    """Bring the warehouse's schema and views up to this version (after an upgrade).

    Runs do this on their own before their first write; this applies it at a moment you choose,
    waiting for a run in progress (WAREHOUSE_LOCK_WAIT).
    """
    from pipelines.warehouse import migrate as apply_migrations
    from pipelines.warehouse.lock import WarehouseUnavailable, connect_for_writing

    settings = load_settings()
    settings.warehouse_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = connect_for_writing(settings.warehouse_path, config={}, wait=settings.lock_wait)
    except WarehouseUnavailable as exc:
        raise Failed(str(exc)) from None
    try:
        applied = apply_migrations(conn)
    finally:
        conn.close()
    if applied:
        click.echo(f"applied {counted(len(applied), 'migration')} to {settings.warehouse_path}: {', '.join(applied)}")
    else:
        click.echo(f"{settings.warehouse_path} is up to date")


@click.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
def backup(directory: Path) -> None:
    """Copy the warehouse, whole and consistent, into DIRECTORY (warehouse-<UTC time>.duckdb).

    Waits for a run in progress (WAREHOUSE_LOCK_WAIT); runs wait for the copy.
    """
    from pipelines.warehouse.backup import back_up
    from pipelines.warehouse.lock import WarehouseUnavailable

    settings = load_settings()
    try:
        copy = back_up(settings.warehouse_path, into=directory, wait=settings.lock_wait)
    except (WarehouseUnavailable, FileNotFoundError) as exc:
        raise Failed(str(exc)) from None
    except OSError as exc:
        raise Failed(f"cannot write the backup into {directory}: {exc.strerror}") from None
    click.echo(f"backup: {copy} ({copy.stat().st_size:,} bytes)")


@click.command()
@click.option(
    "--full",
    is_flag=True,
    help="Write every partition of the lake again from the warehouse, not only "
    "the changed ones and those not as the last publish left them.",
)
def publish(full: bool) -> None:
    """Publish the lake and the serving database from the warehouse now, through Dagster.

    Every run does this at its end; run it after repairing or restoring the warehouse by hand.
    A publish already writes again any lake file that is not as this warehouse last published
    it (a restored backup, a damaged file), and says so.
    """
    from pipelines.defs.serving.assets import PUBLISH_JOB, SERVING_OP
    from pipelines.publish.lake import CURRENT
    from pipelines.runs import RunFailed, run_job
    from pipelines.service.errors import ConfigError

    settings = load_settings()
    if not settings.warehouse_path.is_file():
        raise Failed(f"nothing to publish: {settings.warehouse_path} does not exist (run `metrics-etl run` first)")
    try:
        run_job(PUBLISH_JOB, settings=settings, out=sys.stdout, ops={SERVING_OP: {"config": {"full": full}}})
    except (RunFailed, ConfigError) as exc:
        raise Failed(str(exc)) from None
    click.echo(f"serving database for BI tools: {settings.serving_path.resolve()}")
    click.echo(f"Parquet lake, its newest version for other engines: {settings.lake_path.resolve() / CURRENT}")
