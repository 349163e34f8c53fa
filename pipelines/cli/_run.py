"""`metrics-etl run` and `metrics-etl demo`: the Dagster jobs in-process, with progress."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pipelines.cli._base import DAY, Failed, Refused

if TYPE_CHECKING:
    from pipelines.config import Settings

_DEMO_DAYS = 35
_DEMO_DATA = Path("data/demo")  # the demo's own files: its HTTP cache and the emulator's token


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
        return (f"{first} is in the future: a day's report exists once the day has ended (UTC); "
                f"the newest is {yesterday}")
    return first, min(last, yesterday)


@click.command()
@click.option("--day", type=DAY, help="One report day (default: yesterday, UTC).")
@click.option("--from", "start", type=DAY, help="First day of a range.")
@click.option("--to", "end", type=DAY, help="Last day of a range, with --from (default: yesterday).")
@click.option("--latest/--no-latest", default=True, show_default=False,
              help="Fetch the latest 28-day report, or skip it.")
@click.option("--snapshots/--no-snapshots", default=True, show_default=False,
              help="Take today's repository, issue and member snapshot, or skip it.")
def run(day: date | None, start: date | None, end: date | None, latest: bool, snapshots: bool) -> None:
    """Run the jobs against the configured service, through Dagster."""
    from pipelines.config import Settings
    from pipelines.runs import RunFailed, RunPlan, run_plan, summarize
    from pipelines.service.errors import ServiceError

    today = datetime.now(UTC).date()
    days = _run_days(day=day, start=start, end=end, today=today)
    if isinstance(days, str):
        raise Refused(days)
    first, last = days
    try:
        settings = Settings.from_env()
        settings.require_base_url()
        if settings.metrics_start_day and first < settings.metrics_start_day:
            raise Refused(f"{first} is before METRICS_START_DAY {settings.metrics_start_day}")
        asked_last = day or end
        if asked_last is not None and asked_last >= today:
            # Today has not ended (UTC): no report of it can exist yet, so it is not asked for.
            click.echo(f"usage reports: {today} not available yet: a day's report exists once the day has ended (UTC)")
        plan = RunPlan(first_day=first, last_day=last, latest_28_day=latest, snapshots=snapshots)
        # A day before the default start widens the partitions to include it.
        start_day = min(first, settings.start_day(today=today))
        run_plan(plan, settings=settings, start_day=start_day, out=sys.stdout)
    except (RunFailed, ServiceError) as exc:
        raise Failed(str(exc)) from None
    summarize(settings.warehouse_path, serving=settings.serving_path, out=sys.stdout)


@click.command()
@click.option("--days", type=int, default=_DEMO_DAYS, help="Days of reports to land, up to yesterday.")
@click.option("--users", type=int, default=300, help="Users of the emulated organization.")
@click.option("--repos", type=int, default=12, help="Repositories of the emulated organization.")
@click.option("--seed", type=int, default=42, help="Seed of everything the emulator generates.")
def demo(days: int, users: int, repos: int, seed: int) -> None:
    """Start the emulator and run every asset for the last 35 days."""
    from emulator import EmulatorConfig, running_emulator
    from pipelines.bi import BiSources
    from pipelines.page import write_page
    from pipelines.runs import RunFailed, RunPlan, run_plan, summarize
    from pipelines.service.errors import ConfigError

    today = date.today()
    plan = RunPlan(first_day=today - timedelta(days=days), last_day=today - timedelta(days=1))
    config = EmulatorConfig(seed=seed, users=users, repos=repos, history_days=max(60, days + 5))
    with running_emulator(config) as emu:
        click.echo(f"emulator: {emu.base_url} (seed {seed}, {users} users, {repos} repositories)")
        try:
            settings = _demo_settings(emu.credentials, first_day=plan.first_day)
            run_plan(plan, settings=settings, start_day=plan.first_day, out=sys.stdout)
        except (RunFailed, ConfigError) as exc:
            raise Failed(str(exc)) from None
    summarize(settings.warehouse_path, serving=settings.serving_path, out=sys.stdout)
    page = write_page(sources=BiSources.from_settings(settings), out=Path("data/report.html"))
    click.echo(f"\nreport: {page.resolve()}  (agent adoption at a glance; `metrics-etl report` rewrites it)")


def _demo_settings(creds: Mapping[str, str], *, first_day: date) -> Settings:
    """The emulator as the service; the storage paths the user has set, or their defaults.

    The emulator's token goes through the token file, never the environment: the runs read it
    there as they read a token `metrics-etl login` stored.
    """
    from pipelines.config import Settings

    storage = Settings.from_env()
    token_file = _DEMO_DATA / "token"
    _write_owner_only(token_file, creds["token"])
    return Settings(
        base_url=creds["base_url"],
        graphql_url=creds["graphql_url"],
        oauth_url=creds["oauth_url"],
        token_file=token_file,
        orgs=(creds["org"],),
        enterprises=(creds["enterprise"],),
        etag_cache=_DEMO_DATA / "http-cache.sqlite3",
        warehouse_path=storage.warehouse_path,
        serving_path=storage.serving_path,
        lake_path=storage.lake_path,
        raw_dir=storage.raw_dir,
        webhook_spool_dir=storage.webhook_spool_dir,
        metrics_start_day=first_day,
    )


def _write_owner_only(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        os.fchmod(fd, 0o600)  # a file left from an earlier demo keeps its mode through O_CREAT
        handle.write(text)
