"""What every command shares: failures as one line on stderr, and the day option type."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pipelines._clock import parse_day

if TYPE_CHECKING:
    from pipelines.config import Settings


class Failed(click.ClickException):
    """An expected failure: one line on stderr, `<command>: <cause and what to do>`, exit 1."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        # The command that failed, taken when it raises: by the time the line is shown it has ended.
        ctx = click.get_current_context(silent=True)
        self.command_path = ctx.command_path if ctx else "metrics-etl"


class Refused(click.UsageError):
    """Arguments that make no sense (together): one line on stderr, exit 2, as for a usage error."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ctx=click.get_current_context(silent=True))


class _Day(click.ParamType[date, "str | date"]):
    name = "day"

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return "YYYY-MM-DD"

    def convert(self, value: str | date, param: click.Parameter | None, ctx: click.Context | None) -> date:
        if isinstance(value, date):
            return value
        try:
            return parse_day(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


DAY = _Day()


def home_option() -> Path | None:
    """The root's `--home`, when it was given."""
    ctx = click.get_current_context(silent=True)
    home = ctx.find_root().params.get("home") if ctx else None
    return Path(home) if home else None


def load_settings() -> Settings:
    """The settings of the environment and `.env`, in the root's `--home` if given; a bad one is one line."""
    from pipelines.config import Settings
    from pipelines.service.errors import ConfigError

    try:
        return Settings.from_env(home=home_option())
    except ConfigError as exc:
        raise Failed(f"configuration: {exc}") from None
