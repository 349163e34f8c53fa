"""The Dagster instance of the data home: opened safely by processes started together, and runs
left unfinished by a killed process do not block the runs after them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
from dagster._core.storage.dagster_run import DagsterRun

from pipelines.config import Settings
from pipelines.instance import open_instance, process_tags, release_orphaned_runs

POOL = "service_api"


def _settings(home: Path) -> Settings:
    return Settings.from_env(environ={"METRICS_HOME": str(home)})


def _dead_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(child.stdout)


def _started_run(instance: dg.DagsterInstance, tags: dict[str, str], *, claim: bool = True) -> str:
    run = DagsterRun(job_name="usage_daily_job", status=dg.DagsterRunStatus.STARTED, tags=tags)
    instance.add_run(run)
    if claim:
        assert instance.event_log_storage.claim_concurrency_slot(POOL, run.run_id, "fetch").is_claimed
    return run.run_id


def _status(instance: dg.DagsterInstance, run_id: str) -> dg.DagsterRunStatus:
    run = instance.get_run_by_id(run_id)
    assert run is not None
    return run.status


def test_a_killed_processes_run_is_marked_failed_and_its_slot_freed(tmp_path: Path) -> None:
    with open_instance(_settings(tmp_path)) as instance:
        instance.event_log_storage.set_concurrency_slots(POOL, 1)
        orphan = _started_run(instance, process_tags() | {"metrics-etl/pid": str(_dead_pid())})
        assert not instance.event_log_storage.claim_concurrency_slot(POOL, "next-run", "fetch").is_claimed

        (line,) = release_orphaned_runs(instance)

        assert orphan in line and "marked failed" in line
        assert _status(instance, orphan) == dg.DagsterRunStatus.FAILURE
        assert instance.event_log_storage.claim_concurrency_slot(POOL, "next-run", "fetch").is_claimed
        assert release_orphaned_runs(instance) == []  # once only


def test_a_live_processes_run_is_left_running(tmp_path: Path) -> None:
    with open_instance(_settings(tmp_path)) as instance:
        instance.event_log_storage.set_concurrency_slots(POOL, 1)
        mine = _started_run(instance, process_tags())

        assert release_orphaned_runs(instance) == []
        assert _status(instance, mine) == dg.DagsterRunStatus.STARTED


def test_a_pid_reused_by_another_process_does_not_keep_the_run_alive(tmp_path: Path) -> None:
    with open_instance(_settings(tmp_path)) as instance:
        instance.event_log_storage.set_concurrency_slots(POOL, 1)
        # Our PID, but a process that started at another moment: the one that ran is gone.
        reused = _started_run(instance, process_tags() | {"metrics-etl/process-started": "1"})

        assert len(release_orphaned_runs(instance)) == 1
        assert _status(instance, reused) == dg.DagsterRunStatus.FAILURE


def test_runs_of_other_hosts_and_of_the_daemon_are_not_ours_to_judge(tmp_path: Path) -> None:
    with open_instance(_settings(tmp_path)) as instance:
        dead = {"metrics-etl/host": "another-host", "metrics-etl/pid": str(_dead_pid())}
        elsewhere = _started_run(instance, process_tags() | dead, claim=False)
        launched = _started_run(instance, {}, claim=False)

        assert release_orphaned_runs(instance) == []
        assert _status(instance, elsewhere) == _status(instance, launched) == dg.DagsterRunStatus.STARTED


def test_processes_started_together_all_open_a_new_instance(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from pipelines.config import Settings; "
        "from pipelines.instance import open_instance; "
        "open_instance(Settings.from_env(environ={'METRICS_HOME': sys.argv[1]})).dispose()"
    )
    for attempt in range(2):
        home = tmp_path / f"home-{attempt}"
        children = [
            subprocess.Popen([sys.executable, "-c", code, str(home)], stderr=subprocess.PIPE, text=True, env=os.environ)
            for _ in range(4)
        ]
        errors = [child.communicate(timeout=120)[1] for child in children]
        assert [child.returncode for child in children] == [0, 0, 0, 0], "\n".join(errors)[-2000:]


def test_the_code_location_of_command_line_runs_is_the_one_workspace_yaml_and_pyproject_name() -> None:
    import tomllib

    import yaml

    from pipelines.instance import CODE_LOCATION, job_origin

    root = Path(__file__).resolve().parents[2]
    (entry,) = yaml.safe_load((root / "workspace.yaml").read_text())["load_from"]
    module = entry["python_module"]
    dagster = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["dagster"]
    origin = job_origin("snapshots_job")
    target = origin.repository_origin.code_location_origin.loadable_target_origin
    assert module["location_name"] == dagster["code_location_name"] == CODE_LOCATION == origin.location_name
    assert (module["module_name"], module["attribute"]) == (target.module_name, target.attribute)
    assert dagster["module_name"] == target.module_name and target.working_directory == str(root)
    assert origin.repository_origin.get_label() == f"__repository__@{CODE_LOCATION}"


def _made_by_an_earlier_version(instance: dg.DagsterInstance, tags: dict[str, str]) -> str:
    """A run as the command line made it before runs carried an origin: in process, tagged."""

    @dg.op
    def step() -> None: ...

    @dg.job(name="usage_daily_job")
    def job() -> None:
        step()

    result = job.execute_in_process(instance=instance, tags=tags)
    run = instance.get_run_by_id(result.run_id)
    assert run is not None and run.remote_job_origin is None
    return result.run_id


def test_runs_an_earlier_version_made_here_get_the_code_location_when_the_instance_is_opened(tmp_path: Path) -> None:
    from dagster._core.storage.tags import REPOSITORY_LABEL_TAG

    from pipelines.instance import CODE_LOCATION, ensure_instance

    settings = _settings(tmp_path)
    ensure_instance(settings)
    with dg.DagsterInstance.from_config(str(settings.dagster_home)) as before:
        ours = _made_by_an_earlier_version(before, process_tags())
        foreign = _made_by_an_earlier_version(before, {"someone": "else"})

    with open_instance(settings) as instance:
        label = f"__repository__@{CODE_LOCATION}"
        located = instance.get_runs(dg.RunsFilter(job_name="usage_daily_job", tags={REPOSITORY_LABEL_TAG: label}))
        assert [run.run_id for run in located] == [ours]
        origin = located[0].remote_job_origin
        assert origin is not None and origin.location_name == CODE_LOCATION
        assert _status(instance, ours) == dg.DagsterRunStatus.SUCCESS
        other = instance.get_run_by_id(foreign)
        assert other is not None and other.remote_job_origin is None
        # Once: a later open does not scan the history again.
        later = _made_by_an_earlier_version(instance, process_tags())
    with open_instance(settings) as instance:
        run = instance.get_run_by_id(later)
        assert run is not None and run.remote_job_origin is None
