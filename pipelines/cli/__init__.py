"""The `metrics-etl` command: one root group, one private module per family of commands.

Each command imports what it needs when it runs, so `metrics-etl emulator` starts without
loading Dagster. A command returns None, or the exit code when it reports its own outcome
(`check`, `login`); an expected failure is one line on stderr, never a traceback.
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from pipelines.cli._access import check, login
from pipelines.cli._alerts import alerts
from pipelines.cli._base import Group, Refused
from pipelines.cli._dev import dev_env
from pipelines.cli._emulator import emulator
from pipelines.cli._fields import fields
from pipelines.cli._home import backup, init, migrate, publish
from pipelines.cli._mcp import mcp
from pipelines.cli._metrics import metrics
from pipelines.cli._page import export, report
from pipelines.cli._privacy import forget
from pipelines.cli._quarantine import quarantine
from pipelines.cli._run import demo, run
from pipelines.cli._sql import sql
from pipelines.cli._webhooks import webhooks

__all__ = ["cli", "main"]

_INTERRUPTED = 130  # the shell's code for a process ended by Ctrl-C


class _Root(Group):
    """Click's group, with every error shown as one line and the exit code returned (or exited with)."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            result = super().main(args, prog_name or self.name, complete_var, standalone_mode=False, **extra)
            code = result if isinstance(result, int) else 0
        except click.UsageError as exc:
            code = _say(_usage_line(exc), exc.exit_code)
        except click.ClickException as exc:
            path = getattr(exc, "command_path", self.name)
            code = _say(f"{path}: {exc.format_message()}", exc.exit_code)
        except click.Abort:
            code = _say(f"{self.name}: interrupted", _INTERRUPTED)
        except OSError as exc:
            if exc.errno not in _UNWRITABLE:
                raise
            code = _say(f"{self.name}: {_unwritable_line(exc)}", 1)
        if standalone_mode:
            sys.exit(code)
        return code


# A file the command must write cannot be: the whole data home is read-only, another user's, or full.
_UNWRITABLE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT})


def _unwritable_line(exc: OSError) -> str:
    where = f" {exc.filename}" if exc.filename else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"cannot write{where}: {exc.strerror}: free space in the data home, then run again"
    return (
        f"cannot write{where}: {exc.strerror}: this user must be able to write there (for the data home: run "
        "as the user that owns it, or give another home with --home or METRICS_HOME)"
    )


def _usage_line(exc: click.UsageError) -> str:
    path = exc.ctx.command_path if exc.ctx else "metrics-etl"
    message = " ".join(exc.format_message().split())  # click's own messages may hold a newline
    if isinstance(exc, Refused):
        return f"{path}: {message}"
    return f"{path}: {message} (`{path} --help` lists what it takes)"


def _say(line: str, code: int) -> int:
    click.echo(line, err=True)
    return code


@click.group(
    name="metrics-etl",
    cls=_Root,
    no_args_is_help=False,
    # A fixed width: help reads the same in any terminal, and the docs test reads it whole.
    context_settings={"help_option_names": ["-h", "--help"], "terminal_width": 100, "show_default": True},
)
# The installed distribution's version (importlib.metadata), so it is the one pip or uv put there.
@click.version_option(package_name="metrics-etl", message="%(prog)s %(version)s", help="Show the version and exit.")
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    help="The data home: warehouse, lake, serving database, raw files, spool, logs and the Dagster "
    "instance.  [default: METRICS_HOME, else ~/.local/share/metrics-etl]",
)
def cli(home: Path | None) -> None:
    """Land a code-hosting platform's AI-assistant usage reports, repositories, issues and members
    in a DuckDB warehouse, through Dagster."""
    from dotenv import load_dotenv

    from pipelines._memory import bound_malloc

    bound_malloc()
    # As `dagster dev` does: secrets kept in .env reach the Dagster runs through their variables
    # (`dg.EnvVar`); a variable already set wins.
    load_dotenv(Path(".env"), override=False)


for _command in (
    demo,
    init,
    run,
    check,
    login,
    migrate,
    backup,
    publish,
    forget,
    report,
    export,
    sql,
    metrics,
    mcp,
    fields,
    quarantine,
    webhooks,
    alerts,
    emulator,
    dev_env,
):
    cli.add_command(_command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run `metrics-etl` with `argv` (default: the process's arguments); returns the exit code."""
    code: int = cli.main(args=argv, prog_name="metrics-etl", standalone_mode=False)
    return code
