"""The Dagster instance under the data home: where every run's history and logs are kept.

`metrics-etl run`, `dagster dev`, the webserver and the daemon all open the instance of
DAGSTER_HOME (default `<METRICS_HOME>/dagster`), so a run made from the command line shows in
the UI beside the scheduled ones. Its `dagster.yaml` is written once, from a template shipped
with the package (SQLite on one machine, PostgreSQL for a team); an existing one is never
overwritten, since an operator may have edited it.

A run of `metrics-etl` is made in this process but recorded as the workspace's code location's
(`execute_in_code_location`), as the UI records the runs it launches: Dagster's Overview and job
pages list only runs that carry a code-location origin.

A run of `metrics-etl` is tagged with the process that makes it. A process killed mid-run
(SIGKILL, OOM, a reboot) leaves its run STARTED and its slot in the `service_api` pool taken,
so every later run would wait for that slot for ever; the next run on the same host finds such
runs, marks them failed and gives their slots back (`release_orphaned_runs`).
"""

from __future__ import annotations

import fcntl
import os
import re
import socket
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

import dagster as dg
from dagster._core.definitions.job_base import InMemoryJob
from dagster._core.definitions.repository_definition.valid_definitions import SINGLETON_REPOSITORY_NAME
from dagster._core.execution.api import ExecuteRunWithPlanIterable, create_execution_plan, job_execution_iterator
from dagster._core.execution.context_creation_job import (
    PlanOrchestrationContextManager,
    orchestration_context_event_generator,
)
from dagster._core.execution.execute_in_process import merge_run_tags
from dagster._core.remote_origin import (
    ManagedGrpcPythonEnvCodeLocationOrigin,
    RemoteJobOrigin,
    RemoteRepositoryOrigin,
)
from dagster._core.storage.tags import REPOSITORY_LABEL_TAG
from dagster._core.types.loadable_target_origin import LoadableTargetOrigin

from pipelines._process import pid_alive
from pipelines.config import ConfigError, Settings

__all__ = [
    "CODE_LOCATION",
    "InstanceKind",
    "ensure_instance",
    "execute_in_code_location",
    "instance_template",
    "open_instance",
    "process_tags",
    "release_orphaned_runs",
]

InstanceKind = Literal["local", "postgres"]

_HOST_TAG = "metrics-etl/host"
_PID_TAG = "metrics-etl/pid"
_STARTED_TAG = "metrics-etl/process-started"  # tells a reused PID from the process that ran
# The code location workspace.yaml (and pyproject's [tool.dagster]) names, loading `defs` of
# pipelines.definitions; tests/unit/test_instance.py holds them equal.
CODE_LOCATION = "metrics_etl"
_DEFINITIONS = LoadableTargetOrigin(
    executable_path=sys.executable,
    module_name="pipelines.definitions",
    attribute="defs",
    working_directory=str(Path(__file__).resolve().parents[1]),
)
_UNFINISHED = [dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING]


def instance_template(kind: InstanceKind) -> str:
    """The `dagster.yaml` of `kind`, as shipped."""
    return files("pipelines").joinpath("_instance", f"{kind}.yaml").read_text(encoding="utf-8")


def ensure_instance(settings: Settings, *, kind: InstanceKind = "local") -> Path:
    """DAGSTER_HOME with a `dagster.yaml` (written from `kind`'s template if there is none)."""
    settings.dagster_home.mkdir(parents=True, exist_ok=True)
    config = settings.dagster_home / "dagster.yaml"
    if not config.exists():
        # Written whole then renamed: a second process never reads half a file.
        partial = config.with_name(f".dagster.yaml.{os.getpid()}")
        partial.write_text(instance_template(kind), encoding="utf-8")
        partial.replace(config)
    return config


# Dagster names its SQLite files by URL (sqlite:///<path>): a `?` ends the path there, and a
# `%` with two hex digits is read as an escaped character, so the files land elsewhere.
_NOT_IN_A_SQLITE_URL = re.compile(r"\?|%[0-9A-Fa-f]{2}")
_POSTGRES_STORAGE = re.compile(r"^storage:\s*\n(?:\s*#.*\n)*\s+postgres:", re.MULTILINE)


def _refuse_unusable_sqlite_path(config: Path) -> None:
    if _POSTGRES_STORAGE.search(config.read_text(encoding="utf-8")) or not _NOT_IN_A_SQLITE_URL.search(
        str(config.parent)
    ):
        return
    raise ConfigError(
        f"DAGSTER_HOME {config.parent} has a '?' or a '%' and two hex digits in its path, which Dagster's "
        "SQLite storage cannot take: choose a data home without them (METRICS_HOME or --home), set "
        "DAGSTER_HOME elsewhere, or use the PostgreSQL instance (metrics-etl init --instance postgres)"
    )


@contextmanager
def _opening(dagster_home: Path) -> Iterator[None]:
    """One process at a time creates the instance's storage: two first runs started together
    would otherwise both create the same SQLite tables, and one would fail."""
    with (dagster_home / ".opening.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def open_instance(settings: Settings) -> dg.DagsterInstance:
    """The instance at the settings' DAGSTER_HOME, set up as a local one if it is new."""
    config = ensure_instance(settings)
    _refuse_unusable_sqlite_path(config)
    with _opening(settings.dagster_home):
        # Opening creates and migrates the storage when it is new.
        instance = dg.DagsterInstance.from_config(str(settings.dagster_home))
        _locate_earlier_runs(instance, settings.dagster_home)
        return instance


# Written once the runs of earlier versions were given their code location: later opens skip the scan.
_LOCATED = ".cli-runs-located"


def _locate_earlier_runs(instance: dg.DagsterInstance, dagster_home: Path) -> None:
    """The command line's runs made before runs carried an origin get the code location's, once,
    so a home's history shows in the Overview and the job pages too (as `dagster run
    migrate-repository` moves a run's history, for runs that had no location)."""
    marker = dagster_home / _LOCATED
    if marker.exists():
        return
    for record in instance.get_run_records(dg.RunsFilter(tags={_HOST_TAG: socket.gethostname()})):
        run = record.dagster_run
        if run.remote_job_origin is None:
            origin = job_origin(run.job_name)
            instance.add_run_tags(run.run_id, {REPOSITORY_LABEL_TAG: origin.repository_origin.get_label()})
            instance.run_storage.replace_job_origin(run, origin)
    marker.touch()


def _process_started(pid: int) -> str:
    """When process `pid` started, in clock ticks since boot ("" where /proc cannot say)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    # The command name (field 2) may hold spaces and parentheses: count from its end.
    return stat[stat.rindex(")") + 2 :].split()[19]


def process_tags() -> dict[str, str]:
    """The tags that tie a run to this process, so a later run can tell if it died."""
    pid = os.getpid()
    return {_HOST_TAG: socket.gethostname(), _PID_TAG: str(pid), _STARTED_TAG: _process_started(pid)}


def _alive(pid: int, started: str) -> bool:
    """The process that ran: alive, and not another one that was given its PID since."""
    return pid_alive(pid) and (not started or _process_started(pid) in ("", started))


def release_orphaned_runs(instance: dg.DagsterInstance) -> list[str]:
    """Mark failed the unfinished runs of dead `metrics-etl` processes on this host and free
    their concurrency slots; one line per run released."""
    host = socket.gethostname()
    released = []
    for record in instance.get_run_records(dg.RunsFilter(statuses=_UNFINISHED, tags={_HOST_TAG: host})):
        run = record.dagster_run
        pid = int(run.tags.get(_PID_TAG, "0"))
        if pid <= 0 or _alive(pid, run.tags.get(_STARTED_TAG, "")):
            continue
        message = (
            f"the process that ran it (PID {pid} on {host}) ended without finishing it "
            f"(killed or out of memory); marked failed by PID {os.getpid()}"
        )
        instance.report_run_failed(run, message=message)
        instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
        line = f"run {run.run_id} ({run.job_name}) was left unfinished by PID {pid}: marked failed, its slot freed"
        released.append(line)
    return released


def job_origin(job_name: str) -> RemoteJobOrigin:
    """Where the webserver and the daemon find `job_name`: the workspace's code location."""
    location = ManagedGrpcPythonEnvCodeLocationOrigin(_DEFINITIONS, CODE_LOCATION)
    return RemoteRepositoryOrigin(location, SINGLETON_REPOSITORY_NAME).get_job_origin(job_name)


def execute_in_code_location(
    job: dg.JobDefinition,
    *,
    instance: dg.DagsterInstance,
    run_config: Mapping[str, Any],
    tags: Mapping[str, str],
    partition_key: str | None = None,
    asset_selection: Sequence[dg.AssetKey] | None = None,
) -> dg.ExecuteInProcessResult:
    """`job.execute_in_process(raise_on_error=False)`, its run recorded with the origin of the
    workspace's code location: the Overview and the job's page list it as one the UI launched.

    Dagster's in-process execution takes no origin, so its steps are the same here, the run
    created with one; the run's cost is that of execute_in_process (no code server, no subprocess).
    """
    selection = list(asset_selection or [])
    ephemeral = job.as_ephemeral_job(resource_defs={}, input_values={}, asset_selection=selection)
    run_tags = merge_run_tags(
        job_def=job,
        partition_key=partition_key,
        tags=tags,
        asset_selection=selection,
        instance=instance,
        run_config=run_config,
    )
    in_memory = InMemoryJob(ephemeral)
    plan = create_execution_plan(
        in_memory, run_config=run_config, instance_ref=instance.get_ref() if instance.is_persistent else None
    )
    run = instance.create_run_for_job(
        job_def=ephemeral,
        execution_plan=plan,
        run_config=run_config,
        tags={**ephemeral.run_tags, **run_tags},
        asset_selection=frozenset(selection),
        remote_job_origin=job_origin(job.name),
    )
    events = list(
        ExecuteRunWithPlanIterable(
            execution_plan=plan,
            iterator=job_execution_iterator,
            execution_context_manager=PlanOrchestrationContextManager(
                context_event_generator=orchestration_context_event_generator,
                job=in_memory,
                execution_plan=plan,
                dagster_run=run,
                instance=instance,
                run_config=run_config,
                executor_defs=None,
                output_capture={},
                raise_on_error=False,
            ),
        )
    )
    finished = instance.get_run_by_id(run.run_id)
    assert finished is not None  # the run was added above
    return dg.ExecuteInProcessResult(job_def=ephemeral, event_list=events, dagster_run=finished, output_capture={})
