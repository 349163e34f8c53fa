"""`metrics-etl webhooks serve`: the webhook receiver."""

from __future__ import annotations

import click

from pipelines.cli._base import Refused, load_settings


@click.group()
def webhooks() -> None:
    """The webhook receiver."""


# The limits' defaults live in ReceiverConfig alone (docs/webhooks.md, "Limits"): an option not
# given stays None and is not passed on.
@webhooks.command()
@click.option("--host", default="127.0.0.1", help="Bind address (put HTTPS in front of it).")
@click.option("--port", type=int, default=8787, help="Port to listen on.")
@click.option("--max-body-bytes", type=int, help="Largest body accepted; larger ones get 413 unread.")
@click.option("--header-timeout", type=float, help="Seconds for a request's headers to arrive.")
@click.option("--body-timeout", type=float, help="Seconds for a request's body to arrive once its headers are in.")
@click.option("--max-connections", type=int, help="Connections held open at once; more are answered 503 and closed.")
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
