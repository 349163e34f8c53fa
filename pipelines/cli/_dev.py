"""`metrics-etl dev-env`: the environment `make dev` (scripts/dev.sh) starts Dagster's UI in.

Its home is the demo's unless the root's --home names another (dev.sh passes METRICS_HOME so),
so `make dev` after `make demo` shows the demo's runs (those of earlier versions too: opening the
instance gives them their code location); its partitions start early enough to show every day
the home holds.
"""

from __future__ import annotations

import shlex
from datetime import date, timedelta
from pathlib import Path

import click

from pipelines._clock import utc_today
from pipelines.cli._base import Failed, home_option, load_settings
from pipelines.cli._run import DEMO_DAYS, demo_home


@click.command(name="dev-env", hidden=True)
def dev_env() -> None:
    """Print the `export` lines `make dev` runs Dagster's UI with: the data home (default: the
    demo's), its Dagster instance and the first partition day."""
    from pipelines.config import ConfigError, Settings
    from pipelines.instance import open_instance
    from pipelines.warehouse.lock import WarehouseUnavailable

    # The demo's home as the demo makes it (every path in it); a home given, as its settings say.
    settings = load_settings() if home_option() is not None else Settings(home=demo_home())
    try:
        start = first_partition_day(settings.warehouse_path, today=utc_today(), wait=settings.lock_wait)
        # Opening the instance gives the runs an earlier version made their code location, before the UI shows them.
        open_instance(settings).dispose()
    except (WarehouseUnavailable, ConfigError) as exc:
        raise Failed(str(exc)) from None
    exports = {"METRICS_HOME": settings.home, "DAGSTER_HOME": settings.dagster_home, "METRICS_START_DAY": start}
    for name, value in exports.items():
        click.echo(f"export {name}={shlex.quote(str(value))}")


def first_partition_day(warehouse: Path, *, today: date, wait: float) -> date:
    """The earliest day the warehouse holds a daily report of, or the first day a demo run today
    lands, whichever is earlier."""
    from pipelines.warehouse.lock import connect_for_reading
    from pipelines.warehouse.sql import run_sql

    window = today - timedelta(days=DEMO_DAYS)
    if not warehouse.is_file():
        return window
    with connect_for_reading(warehouse, wait=wait) as conn:
        ((first,),) = run_sql(conn, "metadata/select_first_report_day.sql")
    return min(first, window) if first is not None else window
