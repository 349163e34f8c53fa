"""`metrics-etl run` and `metrics-etl demo`: the Dagster jobs in-process, with progress."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pipelines._clock import utc_today
from pipelines.cli._base import DAY, Failed, Refused, home_option, load_settings, own_command

if TYPE_CHECKING:
    from pipelines.config import Settings

DEMO_DAYS = 56  # two whole 28-day periods: enough final days with agent data to compare them
_DEMO_HOME = "metrics-etl-demo"  # beside the default data home, never inside a deployment's
# The README's first query too; its columns fit an 80-column terminal.
_FIRST_QUERY = (
    "SELECT scope_name, agent_name, agent_job_starts, agent_users, change FROM bi.agent_usage_periods "
    "WHERE period_index = 0 ORDER BY scope_name, agent_job_starts DESC"
)


def _run_days(*, day: date | None, start: date | None, end: date | None, today: date) -> tuple[date, date] | str:
    """The run's first and last day, or why the options make no sense (one line)."""
    yesterday = today - timedelta(days=1)
    if day and start:
        return "give --day (one day) or --from (a range), not both"
    if end and day:
        return "--to goes with --from, not with --day (--day runs one day)"
    if end and not start:
        return "--to needs --from (for one day use --day)"
    first = day or start or yesterday
    last = day or end or yesterday
    if first > last:
        return f"--from {first} is after --to {last}"
    if first > today:
        return (
            f"{first} is in the future: a day's report exists once the day has ended (UTC); the newest is {yesterday}"
        )
    return first, min(last, yesterday)


@click.command()
@click.option("--day", type=DAY, help="One report day (default: yesterday, UTC).")
@click.option("--from", "start", type=DAY, help="First day of a range.")
@click.option("--to", "end", type=DAY, help="Last day of a range, with --from (default: yesterday).")
@click.option(
    "--latest/--no-latest", default=True, show_default=False, help="Fetch the latest 28-day report, or skip it."
)
@click.option(
    "--snapshots/--no-snapshots",
    default=True,
    show_default=False,
    help="Take today's repository, issue and member snapshot, or skip it.",
)
@click.option(
    "--refetch",
    is_flag=True,
    help="Fetch the billed usage of closed months, and the vendors' final days, again too (a run fetches what "
    "may still change only).",
)
def run(day: date | None, start: date | None, end: date | None, latest: bool, snapshots: bool, refetch: bool) -> int:
    """Run the jobs against the configured service, through Dagster.

    Every missing or bad setting is named, one line each, before any run starts (exit 1).
    """
    from pipelines.bi.summary import summarize
    from pipelines.cli._access import configuration_problems
    from pipelines.runs import RunFailed, RunPlan, run_plan
    from pipelines.service.errors import ServiceError
    from pipelines.warehouse.lock import WarehouseUnavailable

    today = utc_today()
    days = _run_days(day=day, start=start, end=end, today=today)
    if isinstance(days, str):
        raise Refused(days)
    first, last = days
    settings = load_settings()
    if problems := configuration_problems(settings):
        ctx = click.get_current_context()
        for problem in problems:
            click.echo(f"{ctx.command_path}: {problem}", err=True)
        return 1
    try:
        if settings.metrics_start_day and first < settings.metrics_start_day:
            raise Refused(f"{first} is before METRICS_START_DAY {settings.metrics_start_day}")
        asked_last = day or end
        if asked_last is not None and asked_last >= today:
            # Today has not ended (UTC): no report of it can exist yet, so it is not asked for.
            click.echo(f"usage reports: {today} not available yet: a day's report exists once the day has ended (UTC)")
        plan = RunPlan(
            first_day=first, last_day=last, latest_28_day=latest, snapshots=snapshots, refetch_billing=refetch
        )
        # A day before the default start widens the partitions to include it.
        start_day = min(first, settings.start_day(today=today))
        run_plan(plan, settings=settings, start_day=start_day, out=sys.stdout)
    except (RunFailed, ServiceError) as exc:
        raise Failed(str(exc)) from None
    try:
        summarize(
            settings.warehouse_path,
            serving=settings.serving_path,
            out=sys.stdout,
            lock_wait=settings.lock_wait,
            command=own_command(home=home_option()),
        )
    except WarehouseUnavailable as exc:
        raise Failed(f"the run landed; its summary could not be read: {exc}") from None
    return 0


@click.command()
@click.option("--days", type=int, default=DEMO_DAYS, help="Days of reports to land, up to yesterday.")
@click.option("--users", type=int, default=300, help="Users of the emulated organization.")
@click.option("--repos", type=int, default=12, help="Repositories of the emulated organization.")
@click.option("--seed", type=int, default=42, help="Seed of everything the emulator generates.")
def demo(days: int, users: int, repos: int, seed: int) -> None:
    """Start the emulator and run every asset for the last 56 days, in the demo's own data home.

    The demo's home is ~/.local/share/metrics-etl-demo (or the root's --home): never the
    deployment's METRICS_HOME, so demo data cannot mix with real data.
    """
    from emulator import EmulatorConfig, running_emulator
    from pipelines.bi import BiSources
    from pipelines.bi.summary import summarize
    from pipelines.page import write_page
    from pipelines.runs import RunFailed, RunPlan, run_plan
    from pipelines.service.errors import ConfigError

    home = (home_option() or demo_home()).expanduser().absolute()
    if home == load_settings().home and home_option() is None:
        raise Refused(f"the demo's home {home} is METRICS_HOME: give the demo another one with --home")
    today = utc_today()
    plan = RunPlan(first_day=today - timedelta(days=days), last_day=today - timedelta(days=1))
    config = EmulatorConfig(seed=seed, users=users, repos=repos, history_days=max(60, days + 5))
    with running_emulator(config) as emu:
        click.echo(f"emulator: {emu.base_url} (seed {seed}, {users} users, {repos} repositories)")
        click.echo(f"demo data home: {home}")
        try:
            settings = _demo_settings(
                emu.credentials,
                home=home,
                first_day=plan.first_day,
                billing_months=_demo_billing_months(plan.first_day),
            )
            run_plan(plan, settings=settings, start_day=plan.first_day, out=sys.stdout)
        except (RunFailed, ConfigError) as exc:
            raise Failed(str(exc)) from None
    command = own_command(home=home)
    summarize(settings.warehouse_path, serving=settings.serving_path, out=sys.stdout, command=command)
    page = write_page(
        sources=BiSources.from_settings(settings), out=home / "report.html", tier=settings.page_tier, home=home
    )
    for line in _next_steps(command, page=page, home=home):
        click.echo(line)


def demo_home() -> Path:
    """The demo's data home when no --home names another: beside the default data home."""
    from pipelines.config import default_data_dir

    return default_data_dir() / _DEMO_HOME


def _next_steps(command: str, *, page: Path, home: Path) -> list[str]:
    """The demo's last lines: what to do next, as commands that run as printed where it ran."""
    lines = [
        f"\nreport: {page}  (agent adoption at a glance; `{command} report` rewrites it)",
        f'query it: {command} sql "{_FIRST_QUERY}"',
    ]
    if Path("scripts/dev.sh").is_file():  # in the repository, where `make dev` runs
        where = "" if home == demo_home() else f"METRICS_HOME={shlex.quote(str(home))} "
        lines.append(f"its runs and partitions in Dagster's UI: {where}make dev  (then http://127.0.0.1:3000)")
    return lines


def _demo_billing_months(first_day: date) -> int:
    """The months of bill the demo lands: those its days fall in (not the 24 a deployment
    backfills), unless the operator sets BILLING_MONTHS."""
    from pipelines.config import ENV_VARS

    if ENV_VARS["billing_months"] in os.environ:
        return load_settings().billing_months
    today = utc_today()
    return (today.year - first_day.year) * 12 + today.month - first_day.month + 1


def _demo_settings(creds: Mapping[str, str], *, home: Path, first_day: date, billing_months: int) -> Settings:
    """The emulator as the service, every file in the demo's home (none from the environment).

    The emulator's token goes through the token file, never the environment: the runs read it
    there as they read a token `metrics-etl login` stored.
    """
    from pipelines.config import ENV_VARS, VENDOR_FIELDS, Secret, Settings

    settings = Settings(
        base_url=creds["base_url"],
        graphql_url=creds["graphql_url"],
        oauth_url=creds["oauth_url"],
        home=home,
        orgs=(creds["org"],),
        enterprises=(creds["enterprise"],),
        metrics_start_day=first_day,
        billing_months=billing_months,
    )
    _write_owner_only(settings.token_file, creds["token"])
    # The vendors the emulator serves (its credentials name each key and address as the Settings
    # fields do): the keys in this process's environment, where Dagster reads secrets (its runs
    # are this process's), never on disk.
    served: dict[str, Any] = {}
    for key_field, url_field in VENDOR_FIELDS.values():
        if key := creds.get(key_field):
            os.environ[ENV_VARS[key_field]] = key
            served |= {key_field: Secret(key), url_field: creds.get(url_field)}
    return replace(settings, **served)


def _write_owner_only(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        os.fchmod(fd, 0o600)  # a file left from an earlier demo keeps its mode through O_CREAT
        handle.write(text)
