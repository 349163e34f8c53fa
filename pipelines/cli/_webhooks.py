"""`metrics-etl webhooks serve` and `metrics-etl webhooks load`: the receiver, and its spool into the warehouse."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from pipelines._words import counted
from pipelines.cli._base import Failed, Group, Refused, load_settings

if TYPE_CHECKING:
    import dagster as dg

# A load has no days to choose (the run's advice is fewer days at once); its memory is the
# loader's own bound (docs/webhooks.md, "Loader memory"), so its failure line says what applies.
_LOAD_MEMORY_ADVICE = (
    "DuckDB ran out of memory loading webhook deliveries: free memory (a load takes up to {limit} for DuckDB, "
    "docs/webhooks.md), then run again; deliveries not loaded yet stay in the spool"
)


@click.group(cls=Group)
def webhooks() -> None:
    """The webhook receiver and its spool."""


# The limits' defaults live in ReceiverConfig alone (docs/webhooks.md, "Limits"): an option not
# given stays None and is not passed on.
@webhooks.command()
@click.option("--host", default="127.0.0.1", help="Bind address (put HTTPS in front of it).")
@click.option("--port", type=int, default=8787, help="Port to listen on.")
@click.option("--max-body-bytes", type=int, help="Largest body accepted; larger ones get 413 unread.")
@click.option("--header-timeout", type=float, help="Seconds for a request's headers to arrive.")
@click.option("--body-timeout", type=float, help="Seconds for a request's body to arrive once its headers are in.")
@click.option(
    "--max-connections",
    type=int,
    help="Connections held open at once; at the cap the oldest "
    "connection without a request under way is closed for a new one, else the new one gets 503.",
)
@click.option(
    "--max-waiting-per-client",
    type=int,
    help="Connections without a request under way one client address holds; one more closes its oldest.",
)
@click.option("--max-header-bytes", type=int, help="Largest request head; larger ones get 431.")
@click.option("--max-body-memory-bytes", type=int, help="Request bodies held in memory at once, all requests together.")
@click.option("--refusal-log-interval", type=float, help="Seconds between log lines counting one kind of refusal.")
def serve(host: str, port: int, **limits: float | None) -> None:
    """Accept deliveries at POST /webhooks into the spool."""
    from pipelines.service.errors import ConfigError
    from pipelines.webhooks.app import ReceiverConfig
    from pipelines.webhooks.app import serve as serve_receiver
    from pipelines.webhooks.errors import WebhookConfigError

    given = {name: value for name, value in limits.items() if value is not None}
    try:
        config = ReceiverConfig.from_settings(load_settings(), **given)
    except (ConfigError, WebhookConfigError) as exc:
        raise Refused(str(exc)) from None
    serve_receiver(config=config, host=host, port=port)


@webhooks.command()
def load() -> None:
    """Load the spool into the warehouse once, through Dagster.

    Runs webhook_events_job, as its sensor does: deliveries not loaded yet land in
    events.webhook_deliveries, each once however often this runs, and the serving database is
    republished.
    """
    from pipelines.config import ENV_VARS
    from pipelines.defs.events.automation import EVENTS_JOB
    from pipelines.runs import RunFailed, run_job
    from pipelines.service.errors import ConfigError
    from pipelines.webhooks.load import LOAD_MEMORY_LIMIT
    from pipelines.webhooks.segments import segments

    try:
        settings = load_settings()
        spool = settings.webhook_spool_dir
        if not spool.is_dir():
            state = "is not a directory" if spool.exists() else "does not exist"
            raise Failed(
                f"{ENV_VARS['webhook_spool_dir']} {spool} {state}: "
                "point it at the spool the receiver (metrics-etl webhooks serve) writes deliveries to"
            )
        if not segments(spool):
            click.echo(f"spool empty: nothing to load ({spool.resolve()})")
            return
        click.echo(f"webhook deliveries from {spool.resolve()}")
        advice = _LOAD_MEMORY_ADVICE.format(limit=LOAD_MEMORY_LIMIT.replace("MB", " MB"))
        result = run_job(EVENTS_JOB, settings=settings, out=sys.stdout, memory_advice=advice)
    except (RunFailed, ConfigError) as exc:
        raise Failed(str(exc)) from None
    click.echo(_loaded(result))
    click.echo(f"serving database for BI tools: {settings.serving_path.resolve()}")


def _loaded(result: dg.ExecuteInProcessResult) -> str:
    """What the load did, from the counts the deliveries asset reports with its materialization."""
    from pipelines.defs.events.assets import DELIVERIES

    (materialization,) = [
        event.materialization for event in result.get_asset_materialization_events() if event.asset_key == DELIVERIES
    ]
    count = {name: value.value for name, value in materialization.metadata.items() if isinstance(value.value, int)}
    loaded, skipped, quarantined = (count.get(name, 0) for name in ("loaded", "redeliveries_skipped", "quarantined"))
    if not (loaded or skipped or quarantined):
        return "nothing new in the spool: every delivery in it was loaded before"
    line = f"loaded {counted(loaded, 'delivery', 'deliveries')} into events.webhook_deliveries "
    line += f"({counted(skipped, 'redelivery', 'redeliveries')} skipped"
    if quarantined:
        line += f", {quarantined} set aside in events.webhook_quarantine"
    return line + ")"
