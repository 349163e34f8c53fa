"""`metrics-etl check` and `metrics-etl login`: credentials against the service."""

from __future__ import annotations

import sys
from collections.abc import Callable

import click


def _with_settings(run: Callable[..., int]) -> int:
    from pipelines.config import Settings
    from pipelines.service.errors import ConfigError

    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"configuration: {exc}")
        return 1
    return run(settings=settings, out=sys.stdout)


@click.command()
def check() -> int:
    """Verify credentials, permissions and policy against the service."""
    from pipelines.service.commands import run_check

    return _with_settings(run_check)


@click.command()
def login() -> int:
    """OAuth login on a loopback redirect; stores the token owner-only."""
    from pipelines.service.commands import run_login

    return _with_settings(run_login)
