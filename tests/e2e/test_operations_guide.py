"""docs/operations.md, followed block by block on a fresh clone, as a reader would on a new host.

What a test must change, and nothing else:

- the service is the emulator: its SERVICE_* values go into the settings file;
- /opt/metrics-etl, /var/lib/metrics-etl, /var/backups/metrics-etl and /etc/metrics-etl are
  moved into a temporary root (`_MAPPED`), in the blocks, the settings file and the units;
- PostgreSQL is a server this test starts (tests/e2e/_postgres.py), with the guide's role and
  database; its host and port go into the settings file;
- `REPO_URL` is this repository (its committed HEAD: commit before running this test);
- as the guide's header says: `# as root` blocks run as this test's user, without `install`'s
  ownership options (-o, -g); `# as metrics-etl` blocks run in a shell that reads the service
  user's ~/.profile (what `sudo -iu metrics-etl` does); the `# in /etc/metrics-etl/env` block
  names the values the test fills in; a `# not run by the guide test: <reason>` block is skipped;
- a block with `systemctl` is never run: `systemctl enable --now|start|stop UNIT…` start or
  stop each unit's ExecStart (from the clone's deploy/systemd, with its EnvironmentFile and
  Environment, in its WorkingDirectory, and systemd's own PATH), the UI's and the receiver's
  ports swapped for free ones.

Then the outcome: the backfill landed (the serving database has rows), the UI lists the CLI's
run, the daemon is healthy with every schedule and sensor RUNNING (METRICS_AUTOMATION=on), the
receiver answers /healthz, the backup is a file, `metrics-etl migrate` says up to date. Each
block's duration is printed (`-s`).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import stat
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest

from tests.e2e._postgres import Postgres
from tests.e2e.chaos import Emulator, free_port, start_emulator, stop
from tests.unit.test_systemd_units import parse_unit

ROOT = Path(__file__).resolve().parents[2]
GUIDE = "docs/operations.md"
_MAPPED = ("/opt/metrics-etl", "/var/lib/metrics-etl", "/var/backups/metrics-etl", "/etc/metrics-etl")
_MAPPED_RE = re.compile(r"(?<![\w.-])(" + "|".join(re.escape(p) for p in _MAPPED) + r")(?![\w.-])")
_FENCE = re.compile(r"^```sh\n(.*?)^```", re.M | re.S)
_NOT_RUN = "# not run by the guide test:"
_SYSTEMD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_UP_WAIT = 240  # bounds on waiting, not measured durations
_BLOCK_TIMEOUT = 900


@dataclass(frozen=True)
class Block:
    number: int
    who: str  # "root", "metrics-etl", "env", "elsewhere"
    skip: str | None
    text: str


def guide_blocks(text: str) -> list[Block]:
    found = []
    for number, body in enumerate(_FENCE.findall(text), start=1):
        lines = body.splitlines()
        head = lines[0] if lines else ""
        who = {
            "# as root": "root",
            "# as metrics-etl": "metrics-etl",
            "# in /etc/metrics-etl/env": "env",
            "# on your own machine": "elsewhere",
        }.get(head)
        assert who, f"{GUIDE} block {number} does not start with who runs it: {head!r}"
        skip = lines[1].removeprefix(_NOT_RUN).strip() if len(lines) > 1 and lines[1].startswith(_NOT_RUN) else None
        assert who != "elsewhere" or skip, f"block {number} runs elsewhere: it needs a `{_NOT_RUN}` line"
        found.append(Block(number=number, who=who, skip=skip, text=body))
    return found


@dataclass
class Host:
    """The temporary root the guide's directories are moved into, and what runs there."""

    root: Path
    base_env: dict[str, str]
    logs: Path
    fills: dict[str, str]  # the settings file's values the test sets
    units: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)
    outputs: dict[int, str] = field(default_factory=dict)
    starts: int = 0

    def path(self, guide_path: str) -> Path:
        return Path(self.map(guide_path))

    def map(self, text: str) -> str:
        return _MAPPED_RE.sub(lambda m: f"{self.root}{m.group(1)}", text)

    @property
    def clone(self) -> Path:
        return self.path("/opt/metrics-etl")

    @property
    def home(self) -> Path:
        return self.path("/var/lib/metrics-etl")


def _bash(host: Host, block: Block, script: str, env: dict[str, str]) -> str:
    log = host.logs / f"block-{block.number:02d}.log"
    started = time.monotonic()
    with log.open("w") as out:
        try:
            done = subprocess.run(
                ["bash", "-e", "-o", "pipefail", "-c", script],
                cwd=host.root,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=_BLOCK_TIMEOUT,
                start_new_session=True,
            )
        except subprocess.TimeoutExpired:
            tail = log.read_text()[-3000:]
            raise AssertionError(f"block {block.number} did not end in {_BLOCK_TIMEOUT}s:\n{tail}") from None
    output = log.read_text()
    first = block.text.splitlines()[1] if len(block.text.splitlines()) > 1 else ""
    print(f"block {block.number:2d} ({block.who}: {first[:60]}): {time.monotonic() - started:.1f}s")
    assert done.returncode == 0, f"block {block.number} failed ({done.returncode}):\n{script}\n---\n{output[-4000:]}"
    return output


def run_as_root(host: Host, block: Block) -> str:
    lines = []
    for line in host.map(block.text).splitlines():
        if line.startswith("install "):  # this test's user owns everything
            line = re.sub(r"\s-[og]\s+\S+", "", line)
        lines.append(line)
    return _bash(host, block, "\n".join(lines) + "\n", host.base_env)


def run_as_service_user(host: Host, block: Block) -> str:
    env = host.base_env | {"HOME": str(host.home)}
    return _bash(host, block, '. "$HOME/.profile"\n' + host.map(block.text), env)


def fill_settings(host: Host, block: Block, overrides: dict[str, str]) -> None:
    """The `# in /etc/metrics-etl/env` block: the values it asks for, then the test's own."""
    asked = {line.split("=", 1)[0] for line in block.text.splitlines()[1:] if "=" in line}
    assert asked == set(host.fills), f"the guide asks for {sorted(asked)}; the test fills {sorted(host.fills)}"
    env_file = host.path("/etc/metrics-etl/env")
    values = host.fills | overrides
    lines, seen = [], set()
    for line in env_file.read_text().splitlines():
        name = line.split("=", 1)[0]
        if not line.startswith("#") and "=" in line and name in values:
            line = f"{name}={values[name]}"
            seen.add(name)
        lines.append(host.map(line))
    assert seen == set(values), f"not in the settings file: {sorted(set(values) - seen)}"
    env_file.write_text("\n".join(lines) + "\n")


def read_environment_file(path: Path) -> dict[str, str]:
    found = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            found[name.strip()] = value.strip()
    return found


def start_unit(host: Host, name: str) -> None:
    unit_file = host.clone / "deploy" / "systemd" / name
    mapped = host.logs / f"{name}.mapped"
    mapped.write_text(host.map(unit_file.read_text()))
    service = {key: values[-1] for key, values in parse_unit(mapped)["Service"].items()}
    argv = shlex.split(service["ExecStart"])
    for option in ("-p", "--port"):  # the UI's and the receiver's ports: free ones here
        if option in argv:
            at = argv.index(option) + 1
            argv[at] = str(free_port())
            host.ports[name] = int(argv[at])
    env = {"PATH": _SYSTEMD_PATH, "HOME": str(host.home), "LANG": "C.UTF-8", "USER": "metrics-etl"}
    env |= read_environment_file(Path(service["EnvironmentFile"]))
    env |= dict(pair.split("=", 1) for pair in shlex.split(service.get("Environment", "")))
    with (host.logs / f"{name}.log").open("a") as out:
        host.units[name] = subprocess.Popen(
            argv,
            cwd=service["WorkingDirectory"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def stop_unit(host: Host, name: str) -> None:
    process = host.units.pop(name, None)
    if process is None:
        return
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=30)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # the daemon's code server and run workers
    process.wait()


def _unit_log(host: Host, name: str) -> str:
    log = host.logs / f"{name}.log"
    return log.read_text()[-3000:] if log.exists() else ""


def _wait_for(host: Host, name: str, url: str) -> float:
    started = time.monotonic()
    deadline = started + _UP_WAIT
    while time.monotonic() < deadline:
        process = host.units[name]
        assert process.poll() is None, f"{name} exited ({process.returncode}):\n{_unit_log(host, name)}"
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(url, timeout=5).status_code == 200:
                return time.monotonic() - started
        time.sleep(0.5)
    raise AssertionError(f"{name}: {url} did not answer within {_UP_WAIT}s:\n{_unit_log(host, name)}")


def graphql(host: Host, query: str) -> dict[str, Any]:
    port = host.ports["metrics-etl-webserver.service"]
    answer = httpx.post(f"http://127.0.0.1:{port}/graphql", json={"query": query}, timeout=60)
    answer.raise_for_status()
    body = answer.json()
    assert "errors" not in body, body
    return body["data"]


_DAEMONS = "{ instance { daemonHealth { allDaemonStatuses { daemonType healthy lastHeartbeatTime } } } }"
_RUNS = "{ runsOrError { __typename ... on Runs { results { runId jobName status } } } }"
_AUTOMATION = (
    "{ repositoriesOrError { __typename ... on RepositoryConnection { nodes { name "
    "schedules { name cronSchedule scheduleState { status } } sensors { name sensorState { status } } } } } }"
)


def _wait_for_daemon(host: Host, since: float) -> float:
    """Healthy by heartbeats of this daemon process (`since`: its start, epoch seconds), not of
    the one stopped before it."""
    started = time.monotonic()
    deadline = started + _UP_WAIT
    statuses: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        daemon = host.units["metrics-etl-daemon.service"]
        assert daemon.poll() is None, f"the daemon exited:\n{_unit_log(host, 'metrics-etl-daemon.service')}"
        statuses = graphql(host, _DAEMONS)["instance"]["daemonHealth"]["allDaemonStatuses"]
        healthy = {s["daemonType"] for s in statuses if s["healthy"] and (s["lastHeartbeatTime"] or 0) >= since}
        if {"SCHEDULER", "SENSOR"} <= healthy:
            return time.monotonic() - started
        time.sleep(1)
    raise AssertionError(f"daemon not healthy: {statuses}\n{_unit_log(host, 'metrics-etl-daemon.service')}")


def systemd_block(host: Host, block: Block) -> None:
    """`systemctl` lines only start and stop units; installing the files is not this test's."""
    for line in block.text.splitlines()[1:]:
        words = line.split()
        if not words or line.startswith("#") or (words[0] == "install" and words[-1] == "/etc/systemd/system/"):
            continue
        assert words[0] == "systemctl", f"block {block.number}: not a systemd step: {line!r}"
        action, names = words[1], [w if w.endswith(".service") else f"{w}.service" for w in words[2:]]
        if action == "daemon-reload":
            continue
        if action == "enable" and names[0] == "--now.service":
            action, names = "start", names[1:]
        assert action in {"start", "stop", "restart"}, f"block {block.number}: systemctl {action}"
        started, since = time.monotonic(), time.time()
        for name in names:
            stop_unit(host, name)
            if action != "stop":
                start_unit(host, name)
        if action != "stop":
            units_come_up(host, names, since)
        print(f"block {block.number:2d} (systemctl {action} {len(names)} units): {time.monotonic() - started:.1f}s")


def units_come_up(host: Host, names: list[str], since: float) -> None:
    host.starts += 1
    if "metrics-etl-webhooks.service" in names:
        port = host.ports["metrics-etl-webhooks.service"]
        took = _wait_for(host, "metrics-etl-webhooks.service", f"http://127.0.0.1:{port}/healthz")
        print(f"  receiver answers /healthz after {took:.1f}s")
    if "metrics-etl-webserver.service" in names:
        port = host.ports["metrics-etl-webserver.service"]
        took = _wait_for(host, "metrics-etl-webserver.service", f"http://127.0.0.1:{port}/server_info")
        print(f"  webserver answers /server_info after {took:.1f}s")
    if "metrics-etl-daemon.service" in names:
        print(f"  daemon's scheduler and sensor daemons healthy after {_wait_for_daemon(host, since):.1f}s")
    if host.starts == 1:
        the_ui_shows_the_cli_run_and_running_automation(host)


def the_ui_shows_the_cli_run_and_running_automation(host: Host) -> None:
    runs = graphql(host, _RUNS)["runsOrError"]["results"]
    assert any(r["jobName"] == "usage_daily_job" and r["status"] == "SUCCESS" for r in runs), runs
    (repository,) = graphql(host, _AUTOMATION)["repositoriesOrError"]["nodes"]
    schedules = {s["name"]: (s["cronSchedule"], s["scheduleState"]["status"]) for s in repository["schedules"]}
    assert schedules == {
        "billing_daily_schedule": ("0 7 * * *", "RUNNING"),
        "snapshots_daily_schedule": ("0 5 * * *", "RUNNING"),
        "usage_daily_schedule": ("0 6 * * *", "RUNNING"),
        "usage_latest_schedule": ("30 6 * * *", "RUNNING"),
        "vendors_daily_schedule": ("30 7 * * *", "RUNNING"),
        "warehouse_audit_schedule": ("0 3 * * 0", "RUNNING"),
    }
    sensors = {s["name"]: s["sensorState"]["status"] for s in repository["sensors"]}
    assert sensors and set(sensors.values()) == {"RUNNING"}, sensors
    print(f"  the UI lists {len(runs)} run(s) of the CLI; {len(schedules)} schedules, {len(sensors)} sensors RUNNING")


def readers_see_only_bi(host: Host) -> None:
    """The modes the guide sets: the BI group reads bi/ (the serving database, the lake) and
    nothing else of the home; others nothing at all. (This test runs as one user, so it checks
    the mode and group bits that decide what another user could read.)"""
    bi = host.home / "bi"
    assert bi.stat().st_mode & stat.S_ISGID, "bi/ must hand its group on to what is written in it"
    published = [bi / "serving.duckdb", *(bi / "lake").rglob("*")]
    assert len(published) > 10
    for path in published:
        mode = path.stat().st_mode
        assert path.stat().st_gid == bi.stat().st_gid and mode & stat.S_IRGRP, f"{path}: {oct(mode)}"
    private = [host.home / "warehouse.duckdb", *(host.home / "raw").rglob("*"), *(host.home / "logs").rglob("*")]
    for path in private:
        mode = path.stat().st_mode
        assert not mode & stat.S_IRWXO, f"{path} is open to others: {oct(mode)}"
        assert path.stat().st_gid != bi.stat().st_gid or not mode & stat.S_IRGRP, f"{path} is readable by BI readers"
    assert not (host.home / "serving.duckdb").exists() and not (host.home / "lake").exists()


def _bi_group() -> int | None:
    """A group for bi/ other than this test's own, standing in for metrics-etl-bi (the guide's
    `install -g`, which the test leaves out); None if this user can give none."""
    if os.geteuid() == 0:
        return 65534
    return next((gid for gid in os.getgroups() if gid != os.getgid()), None)


def after_block(host: Host, block: Block, output: str) -> None:
    """What each step of the guide promises, checked where it happens."""
    bi = host.home / "bi"
    if "install -d" in block.text and bi.is_dir() and (gid := _bi_group()) is not None:
        os.chown(bi, -1, gid)
    if "metrics-etl run --from" in block.text:
        serving = host.home / "bi" / "serving.duckdb"
        with duckdb.connect(str(serving), read_only=True) as conn:
            rows = conn.execute("SELECT count(*) FROM bi.assistant_activity_daily").fetchone()[0]
        assert rows > 0, output[-3000:]
        print(f"  the backfill landed: bi.assistant_activity_daily has {rows} rows")
        readers_see_only_bi(host)
    if "metrics-etl migrate" in block.text:
        assert "is up to date" in output, output[-3000:]
    if "metrics-etl backup" in block.text:
        copies = sorted(host.path("/var/backups/metrics-etl").glob("warehouse-*.duckdb"))
        assert copies and copies[-1].stat().st_size > 0, output[-3000:]
        print(f"  backup: {copies[-1].name} ({copies[-1].stat().st_size:,} bytes)")


@pytest.fixture(scope="module")
def emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    # The emulator's day is our yesterday: yesterday's report is not out yet, so the report
    # availability sensor the daemon runs requests nothing while the test looks.
    yesterday = (datetime.now(UTC).date() - timedelta(days=1)).isoformat()
    emu = start_emulator(
        workdir=tmp_path_factory.mktemp("emulator"),
        seed=19,
        extra=("--today", yesterday, "--users", "12", "--repos", "2", "--issues-per-repo", "2"),
    )
    try:
        yield emu
    finally:
        stop(emu.process)


def test_the_operations_guide_runs_from_a_fresh_clone(postgres: Postgres, emulator: Emulator, tmp_path: Path) -> None:
    blocks = guide_blocks((ROOT / GUIDE).read_text())
    pg_env = postgres.create_database("dagster")
    creds = emulator.credentials
    settings_prefixes = ("SERVICE_", "WEBHOOK_", "DAGSTER_", "METRICS_")
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(settings_prefixes)}
    base_env.pop("VIRTUAL_ENV", None)
    root = tmp_path / "host"
    for guide_path in _MAPPED:
        (root / guide_path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
    host = Host(
        root=root,
        base_env=base_env | {"REPO_URL": f"file://{ROOT}"},
        logs=tmp_path,
        fills={
            "SERVICE_ORG": creds["org"],
            "SERVICE_TOKEN": creds["token"],
            "DAGSTER_PG_PASSWORD": pg_env["DAGSTER_PG_PASSWORD"],
            "WEBHOOK_SECRET": creds["webhook_secret"],
            "METRICS_START_DAY": (datetime.now(UTC).date() - timedelta(days=4)).isoformat(),
        },
    )
    # The service is the emulator; PostgreSQL is this test's server, with the guide's role and database.
    overrides = {
        "SERVICE_BASE_URL": creds["base_url"],
        "SERVICE_GRAPHQL_URL": creds["graphql_url"],
        "SERVICE_DIALECT": creds["dialect"],
        "DAGSTER_PG_HOST": pg_env["DAGSTER_PG_HOST"],
        "DAGSTER_PG_PORT": pg_env["DAGSTER_PG_PORT"],
    }
    started = time.monotonic()
    skipped = []
    try:
        for block in blocks:
            if block.skip:
                skipped.append(f"block {block.number}: {block.skip}")
                continue
            if block.who == "env":
                fill_settings(host, block, overrides)
                continue
            if "systemctl" in block.text:
                systemd_block(host, block)
                continue
            output = run_as_root(host, block) if block.who == "root" else run_as_service_user(host, block)
            if "git clone" in block.text:
                committed = (host.clone / GUIDE).read_text()
                assert committed == (ROOT / GUIDE).read_text(), f"commit {GUIDE}: the test follows the clone's"
            after_block(host, block, output)
        assert host.starts == 2, "the guide starts the units, and again after an upgrade"
        # The example's role and database are the ones the guide creates.
        settings = read_environment_file(host.path("/etc/metrics-etl/env"))
        assert (settings["DAGSTER_PG_USER"], settings["DAGSTER_PG_DB"]) == (postgres.user, "dagster")
    finally:
        for name in list(host.units):
            stop_unit(host, name)
    print(f"the whole guide: {time.monotonic() - started:.1f}s; not run: " + "; ".join(skipped))
