"""The Dagster instance under the data home: where every run's history and logs are kept.

`metrics-etl run`, `dagster dev`, the webserver and the daemon all open the instance of
DAGSTER_HOME (default `<METRICS_HOME>/dagster`), so a run made from the command line shows in
the UI beside the scheduled ones. Its `dagster.yaml` is written once, from a template shipped
with the package (SQLite on one machine, PostgreSQL for a team); an existing one is never
overwritten, since an operator may have edited it.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Literal

import dagster as dg

from pipelines.config import Settings

__all__ = ["InstanceKind", "ensure_instance", "instance_template", "open_instance"]

InstanceKind = Literal["local", "postgres"]


def instance_template(kind: InstanceKind) -> str:
    """The `dagster.yaml` of `kind`, as shipped."""
    return files("pipelines").joinpath("_instance", f"{kind}.yaml").read_text(encoding="utf-8")


def ensure_instance(settings: Settings, *, kind: InstanceKind = "local") -> Path:
    """DAGSTER_HOME with a `dagster.yaml` (written from `kind`'s template if there is none)."""
    settings.dagster_home.mkdir(parents=True, exist_ok=True)
    config = settings.dagster_home / "dagster.yaml"
    if not config.exists():
        config.write_text(instance_template(kind), encoding="utf-8")
    return config


def open_instance(settings: Settings) -> dg.DagsterInstance:
    """The instance at the settings' DAGSTER_HOME, set up as a local one if it is new."""
    ensure_instance(settings)
    return dg.DagsterInstance.from_config(str(settings.dagster_home))
