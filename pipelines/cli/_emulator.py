"""`metrics-etl emulator`: the platform's emulator on loopback until interrupted.

The options are those of `python -m emulator` (emulator/cli.py), which runs it the same way.
"""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path

import click

from emulator.config import REPORT_FILE_LEVELS
from pipelines.cli._base import DAY

_FILE = click.Path(dir_okay=False, path_type=Path)


@click.command()
@click.option("--port", type=int, default=0, help="Port on 127.0.0.1 (0: a free one).")
@click.option("--seed", type=int, default=1, help="Seed of everything generated: users, repositories, reports.")
@click.option("--users", type=int, default=50, help="Users of each organization.")
@click.option("--repos", type=int, default=8, help="Repositories of each organization.")
@click.option("--issues-per-repo", type=int, default=30, help="Issues of each repository.")
@click.option(
    "--dialect",
    type=click.Choice(["service", "github"]),
    default="service",
    help="Wire names: the service's, or GitHub's public ones (/copilot/, X-GitHub-Api-Version).",
)
@click.option("--today", type=DAY, help="The emulator's today (default: UTC today).")
@click.option("--org", default="acme", help="Organization name; a comma list serves several (acme,globex).")
@click.option("--enterprise", default="acme-corp", help="Enterprise name; a comma list serves several.")
@click.option("--history-days", type=int, default=60, help="Days of report history before today.")
@click.option("--user-lines-per-file", type=int, default=20_000, help="Lines per file of a user-level report.")
@click.option("--report-file", type=_FILE, help="Pre-generated user-level NDJSON served as the users-1-day report.")
@click.option("--report-file-day", type=DAY, help="The day --report-file is served for.")
@click.option(
    "--report-file-level",
    type=click.Choice(REPORT_FILE_LEVELS),
    default="user",
    show_default=True,
    help="Which 1-day report of the organization --report-file is served as.",
)
@click.option(
    "--second-enterprise-in-28-day",
    is_flag=True,
    help="The enterprise 28-day file also holds another enterprise's wrapper line.",
)
@click.option("--faults", default="", help="Faults on demand, e.g. error_rate=0.1,drop_rate=0.05.")
@click.option("--cloud-agent-from", type=DAY, help="The day coding-agent fields became cloud-agent fields.")
@click.option(
    "--record-drift",
    default="",
    help="Records a changed service sends, e.g. undeclared_field=totals_by_future_widget,mistyped_every=3.",
)
@click.option(
    "--unassigned-seats",
    type=int,
    default=0,
    help="Seats with a null assignee (a deleted or pending account) ending each seat listing.",
)
@click.option(
    "--billing-read",
    type=click.Choice(["on", "off"]),
    default="on",
    show_default=True,
    help="off: the owner's and installation's tokens lack billing read (billing answers 403).",
)
@click.option(
    "--vendors",
    default="claude,cursor",
    show_default=True,
    help="The vendors served beside the service: claude, cursor, a comma list, or none.",
)
@click.option("--credentials-out", type=_FILE, help="Write the credentials JSON here (the app key goes next to it).")
def emulator(**options: str | int | bool | date | Path | None) -> int:
    """Run the platform emulator on loopback."""
    from emulator.cli import run

    code: int = run(argparse.Namespace(**options))
    return code
