"""`metrics-etl alerts test`: one message to every target of METRICS_ALERTS."""

from __future__ import annotations

import click

from pipelines.cli._base import Failed, Group, load_settings


@click.group(cls=Group)
def alerts() -> None:
    """Where failures, stale data and warnings are sent (METRICS_ALERTS)."""


@alerts.command(name="test")
def test_targets() -> int:
    """Send one test message to every target of METRICS_ALERTS.

    One line per target says whether it arrived; exit 1 when one did not. A test message is
    never kept to be sent again.
    """
    from pipelines.alerts import deliver, test_alert

    settings = load_settings()
    config = settings.alerts
    if not config.targets:
        raise Failed(
            "METRICS_ALERTS names no target: set it to an incoming-webhook URL or smtp://… e-mail "
            "(docs/operations.md, Alerts)"
        )
    deliveries = deliver(config, test_alert(scopes=settings.scopes, link=config.webserver_url), log_failures=False)
    for delivery in deliveries:
        click.echo(delivery.line())
    return 0 if all(delivery.arrived for delivery in deliveries) else 1
