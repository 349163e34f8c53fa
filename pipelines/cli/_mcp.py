"""`metrics-etl mcp`: the metric catalog served to AI assistants over MCP (pipelines.mcp).

Over stdio, stdout is the protocol's alone: everything said to a person goes to stderr."""

from __future__ import annotations

import errno

import click

from pipelines.cli._base import Failed, load_settings
from pipelines.config import CATALOG_TIERS


@click.command()
@click.option(
    "--http",
    "port",
    type=click.IntRange(0, 65535),
    help="Serve streamable HTTP on 127.0.0.1 at this port (0: a free one; the URL is printed on "
    "stderr) instead of stdio.",
)
@click.option(
    "--tier",
    type=click.Choice(CATALOG_TIERS),
    help="What the tools may answer: aggregate (no person, no group under k) or pseudonymous "
    "(also per-user metrics, by pseudonym, never by login).  [default: METRICS_CATALOG_TIER, else aggregate]",
)
def mcp(port: int | None, tier: str | None) -> None:
    """Serve the metric catalog to AI assistants over MCP: stdio, or streamable HTTP on loopback.

    An assistant's client starts it (docs/assistants.md); it answers until the client leaves.
    """
    from pipelines.mcp import serve_http, serve_stdio
    from pipelines.metrics import MetricsError, MetricsReader

    config = load_settings().metrics_config(tier=tier)
    try:  # the tier's database must be there: one line now, not a refusal on every call
        with MetricsReader(config):
            pass
    except MetricsError as exc:
        raise Failed(str(exc)) from None
    if port is None:
        serve_stdio(config)
        return
    try:
        serve_http(config, port=port, announce=lambda url: click.echo(f"MCP over streamable HTTP: {url}", err=True))
    except OSError as exc:
        if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
            raise
        raise Failed(
            f"cannot listen on 127.0.0.1:{port}: {exc.strerror}: give another port, or 0 for a free one"
        ) from None
