"""What every command shares: failures as one line on stderr, and the day option type."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
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


class Group(click.Group):
    """Click's group, listing each command with its first sentence whole: click cuts it to the
    line with "...", and a cut description says less than the command does."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        commands = [(name, self.get_command(ctx, name)) for name in self.list_commands(ctx)]
        rows = [
            (name, command.get_short_help_str(limit=sys.maxsize))
            for name, command in commands
            if command is not None and not command.hidden
        ]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)  # wraps a long one under itself


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


def own_command(*, home: Path | None = None) -> str:
    """This `metrics-etl` as it runs when typed here, with `--home home` when given: the bare
    name when PATH finds this very program, else its path (relative to the working directory
    when inside it, e.g. `.venv/bin/metrics-etl` from the repository)."""
    script = Path(sys.executable).parent / "metrics-etl"  # the console script beside this interpreter
    if not script.is_file():
        command = f"{shlex.quote(sys.executable)} -m pipelines.cli"
    elif (found := shutil.which("metrics-etl")) and Path(found).resolve() == script.resolve():
        command = "metrics-etl"
    elif script.is_relative_to(Path.cwd()):
        command = shlex.quote(os.path.join(".", script.relative_to(Path.cwd())))  # ./ : a path, not a name
    else:
        command = shlex.quote(str(script))
    return f"{command} --home {shlex.quote(str(home))}" if home is not None else command
