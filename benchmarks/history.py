"""A daily run on a warehouse with a year of history vs the same day on an empty one (issue 15).

    .venv/bin/python -m benchmarks.history [--days 365] [--users 10000] [--checkpoints 30,90,180,365]
                                           [--chunk-days 365] [--keep DIR] [--seed 1]
    quick: .venv/bin/python -m benchmarks.history --days 20 --users 200 --checkpoints 10,20
    again, on a kept history: .venv/bin/python -m benchmarks.history --probe-home DIR [--days N]

Everything runs as a user would: the venv's `metrics-etl run` against the emulator (organization
`acme` of --users users and enterprise `acme-corp` of 1.5 times as many, both levels), each
command a child process reaped with wait4 for its own peak RSS. The emulator's today is the
machine's and the probe day P is five days before it, so every day is final and serves the same bytes on
every fetch. The history is the --days days before P, built oldest first in commands of at most
--chunk-days days into one home (warehouse, lake, serving database, raw archive, ETag cache, Dagster
storage of the local instance, telemetry off; LAKE_PATH too); at each checkpoint `run --day P` runs twice
and the faster counts. The baseline is the same two runs of P in a fresh home, two rounds
before the history and one after (the machine's load drifts: min and median are printed;
ratios use the median). From the second run on, P is
re-landed (its rows replaced), as the daily schedule re-lands the trailing days; the baseline's
best-of-two is the same mix, so the ratio compares like with like.

Prints each build command (days, seconds, peak RSS), and per checkpoint the probe's wall time,
its landing step (`usage_reports_daily`) and publish step (`serving__warehouse_copy`) from
Dagster's run storage, the ratios of wall time and landing step to the baseline, peak RSS, and
the warehouse's size (bytes per user-day row of core.user_daily_totals), the raw archive's and
the lake's and the serving database's. Targets at 365 days x 10,000 users: ratio <= 1.3, peak RSS < 1 GB for every
command. Figures, not asserts; the load average is printed. The emulator serves from this
process, so its CPU competes with the pipeline's on the machine's cores (printed per probe). A
command that fails stops the benchmark (exit 1) with its days and the end of its stderr, and
the history home is kept (its logs/ holds the failed run's full log).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from benchmarks.summary import record
from pipelines.instance import instance_template

# The emulator's today is the machine's (UTC): `run` refuses days after it.
TODAY = datetime.now(UTC).date()
PROBE_DAY = TODAY - timedelta(days=5)
LANDING_STEP = "usage_reports_daily"
PUBLISH_STEP = "serving__warehouse_copy"
TARGET_RATIO = 1.3
TARGET_RSS_MB = 1024
METRICS_ETL = Path(sys.executable).parent / "metrics-etl"
# Variables of the pipeline's configuration: only the benchmark's own reach the commands.
_PIPELINE_VARS = (
    "SERVICE_",
    "METRICS_",
    "WEBHOOK_",
    "WAREHOUSE_PATH",
    "SERVING_PATH",
    "LAKE_PATH",
    "RAW_DIR",
    "DAGSTER_HOME",
)


class CommandFailed(Exception):
    """A `metrics-etl` command exited non-zero; the message names it and ends with its stderr."""


@dataclass(frozen=True)
class Home:
    """Everything one installation keeps: the commands run with this as their working directory."""

    root: Path

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse.duckdb"

    @property
    def serving(self) -> Path:
        return self.root / "serving.duckdb"

    @property
    def raw(self) -> Path:
        return self.root / "raw"

    @property
    def dagster(self) -> Path:
        return self.root / "dagster"

    def create(self) -> Home:
        # The instance of one machine (SQLite; the production one needs a PostgreSQL server) with
        # the production concurrency settings; telemetry off, so nothing leaves the loopback.
        self.dagster.mkdir(parents=True)
        (self.dagster / "dagster.yaml").write_text(instance_template("local"))
        return self

    def environment(self, creds: dict[str, str], *, start: date) -> dict[str, str]:
        env = {name: value for name, value in os.environ.items() if not name.startswith(_PIPELINE_VARS)}
        env.update(
            {
                "SERVICE_BASE_URL": creds["base_url"],
                "SERVICE_GRAPHQL_URL": creds["graphql_url"],
                "SERVICE_OAUTH_URL": creds["oauth_url"],
                "SERVICE_TOKEN": creds["token"],
                "SERVICE_ORG": creds["org"],
                "SERVICE_ENTERPRISE": creds["enterprise"],
                "SERVICE_DIALECT": creds["dialect"],
                "SERVICE_ETAG_CACHE": str(self.root / "http-cache.sqlite3"),
                "WAREHOUSE_PATH": str(self.warehouse),
                "SERVING_PATH": str(self.serving),
                "LAKE_PATH": str(self.root / "lake"),
                "RAW_DIR": str(self.raw),
                "WEBHOOK_SPOOL_DIR": str(self.root / "spool"),
                "DAGSTER_HOME": str(self.dagster),
                # The same partitions in every home, so the baseline's Dagster does the same work.
                "METRICS_START_DAY": start.isoformat(),
            }
        )
        return env


@dataclass(frozen=True)
class Command:
    seconds: float
    rss_mb: float
    emulator_cpu: float  # this process's CPU meanwhile: the emulator serving the command


@dataclass(frozen=True)
class Probe:
    """The faster of two `run --day P`: its command and its two steps as Dagster recorded them."""

    command: Command
    landing: float
    publish: float
    rss_mb: float  # the peak of both runs: every command counts towards the RSS target


@dataclass(frozen=True)
class Sizes:
    warehouse: int
    user_days: int
    raw: int
    serving: int
    lake: int

    @property
    def per_user_day(self) -> float:
        return self.warehouse / self.user_days if self.user_days else 0.0


@dataclass(frozen=True)
class Checkpoint:
    days: int
    probe: Probe
    sizes: Sizes


def _metrics_etl(home: Home, env: dict[str, str], *args: str) -> Command:
    """Run one command; wait4 reaps it, so its rusage is its own peak RSS."""
    logs = home.root / "logs"
    logs.mkdir(exist_ok=True)
    stem = logs / f"bench-{time.time_ns()}"
    cpu, started = time.process_time(), time.perf_counter()
    with open(f"{stem}.out", "wb") as out, open(f"{stem}.err", "wb") as err:
        proc = subprocess.Popen([str(METRICS_ETL), *args], cwd=home.root, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, so Popen never waits for it
    if proc.returncode != 0:
        tail = Path(f"{stem}.err").read_text(errors="replace").splitlines()[-15:]
        raise CommandFailed(
            f"metrics-etl {' '.join(args)} exited {proc.returncode} after {seconds:.0f} s:\n  " + "\n  ".join(tail)
        )
    return Command(seconds=seconds, rss_mb=usage.ru_maxrss / 1024, emulator_cpu=cpu)


def _latest_steps(home: Home) -> dict[str, float]:
    """Seconds per step of the home's newest Dagster run that landed reports (the billing job's
    run follows it in every `metrics-etl run`)."""
    import dagster as dg

    with dg.DagsterInstance.from_config(str(home.dagster)) as instance:
        for record in instance.get_run_records(limit=5):
            stats = instance.get_run_step_stats(record.dagster_run.run_id)
            steps = {s.step_key: s.end_time - s.start_time for s in stats if s.start_time and s.end_time}
            if LANDING_STEP in steps:
                return steps
    raise RuntimeError(f"no run of the last five landed reports (step {LANDING_STEP})")


def _probe(home: Home, env: dict[str, str]) -> Probe:
    """`run --day P` twice; the faster run counts (the machine is shared)."""
    runs = []
    for _ in range(2):
        command = _metrics_etl(home, env, "run", "--day", PROBE_DAY.isoformat(), "--no-latest", "--no-snapshots")
        runs.append((command, _latest_steps(home)))
    command, steps = min(runs, key=lambda run: run[0].seconds)
    return Probe(
        command=command, landing=steps[LANDING_STEP], publish=steps[PUBLISH_STEP], rss_mb=max(c.rss_mb for c, _ in runs)
    )


def _sizes(home: Home) -> Sizes:
    import duckdb

    wal = home.warehouse.with_name(home.warehouse.name + ".wal")
    with duckdb.connect(str(home.warehouse), read_only=True) as conn:
        user_days = conn.execute("SELECT count(*) FROM core.user_daily_totals").fetchone()[0]
    return Sizes(
        warehouse=home.warehouse.stat().st_size + (wal.stat().st_size if wal.exists() else 0),
        user_days=user_days,
        raw=sum(f.stat().st_size for f in home.raw.rglob("*") if f.is_file()),
        serving=home.serving.stat().st_size if home.serving.exists() else 0,
        # The newest version: a superseded one kept for its readers is mostly links to the same files.
        lake=sum(f.stat().st_size for f in (home.root / "lake" / "current").rglob("*.parquet")),
    )


def _baseline(creds: dict[str, str], *, start: date, round_: int) -> Probe:
    with tempfile.TemporaryDirectory(prefix="bench-history-empty-") as tmp:
        home = Home(Path(tmp)).create()
        try:
            probe = _probe(home, home.environment(creds, start=start))
        except CommandFailed as exc:
            raise CommandFailed(f"baseline round {round_} (empty warehouse): {exc}") from None
    print(f"baseline round {round_}: {_probe_text(probe)}   (load average {os.getloadavg()[0]:.1f})")
    return probe


def _probe_text(probe: Probe) -> str:
    c = probe.command
    return (
        f"run --day {PROBE_DAY}  {c.seconds:.1f} s (landing {probe.landing:.1f} s, publish {probe.publish:.1f} s)"
        f"   peak RSS {probe.rss_mb:.0f} MB   emulator CPU {c.emulator_cpu:.1f} s"
    )


def _checkpoints(text: str, *, days: int) -> list[int]:
    """The asked history lengths, clipped to --days, which is always the last."""
    asked = {min(int(part), days) for part in text.split(",") if part.strip()}
    return sorted(n for n in asked | {days} if n > 0)


def _build(home: Home, env: dict[str, str], *, first: date, last: date, built: int) -> Command:
    try:
        command = _metrics_etl(
            home, env, "run", "--from", first.isoformat(), "--to", last.isoformat(), "--no-latest", "--no-snapshots"
        )
    except CommandFailed as exc:
        raise CommandFailed(f"building {first} .. {last} onto {built} days of history: {exc}") from None
    days = (last - first).days + 1
    print(
        f"  build {first} .. {last} ({days:>3} days)  {command.seconds:7.1f} s  {command.seconds / days:5.1f} s/day"
        f"   peak RSS {command.rss_mb:5.0f} MB"
    )
    return command


def _history(
    home: Home,
    env: dict[str, str],
    *,
    start: date,
    checkpoints: Sequence[int],
    chunk_days: int,
    baseline: Sequence[Probe],
    built: int = 0,
) -> tuple[list[Checkpoint], list[Command]]:
    """Build the history oldest first (from `built` days on), probing P at each checkpoint (ratios
    to the baseline so far)."""
    results: list[Checkpoint] = []
    builds: list[Command] = []
    for days in checkpoints:
        while built < days:
            size = min(chunk_days, days - built)
            first = start + timedelta(days=built)
            builds.append(_build(home, env, first=first, last=first + timedelta(days=size - 1), built=built))
            built += size
        try:
            probe = _probe(home, env)
        except CommandFailed as exc:
            raise CommandFailed(f"probe after {days} days of history: {exc}") from None
        sizes = _sizes(home)
        results.append(Checkpoint(days=days, probe=probe, sizes=sizes))
        print(f"after {days} days: {_probe_text(probe)}   (load average {os.getloadavg()[0]:.1f})")
        print(
            f"  ratio to the baseline so far: wall {probe.command.seconds / _median_wall(baseline):.2f},"
            f" landing {probe.landing / _median_landing(baseline):.2f}"
        )
        print(
            f"  warehouse {sizes.warehouse / 1e6:.1f} MB ({sizes.per_user_day:.0f} bytes per user-day,"
            f" {sizes.user_days:,} rows)   raw archive {sizes.raw / 1e6:.1f} MB   lake {sizes.lake / 1e6:.1f} MB"
            f"   serving database {sizes.serving / 1e6:.1f} MB"
        )
    return results, builds


def _median_wall(baseline: Sequence[Probe]) -> float:
    return statistics.median(p.command.seconds for p in baseline)


def _median_landing(baseline: Sequence[Probe]) -> float:
    return statistics.median(p.landing for p in baseline)


def _report(
    results: Sequence[Checkpoint], baseline: Sequence[Probe], builds: Sequence[Command], *, days: int, users: int
) -> None:
    base_wall, base_landing = _median_wall(baseline), _median_landing(baseline)
    walls = [p.command.seconds for p in baseline]
    print(
        f"\nbaseline (empty warehouse, {len(baseline)} rounds): wall min {min(walls):.1f} s median {base_wall:.1f} s,"
        f" landing median {base_landing:.1f} s, publish median {statistics.median(p.publish for p in baseline):.1f} s"
    )
    print(
        f"{'history':>8} {'user-days':>12} {'wh MB':>8} {'B/user-day':>11} {'wall s':>7} {'ratio':>6}"
        f" {'landing s':>10} {'ratio':>6} {'publish s':>10} {'RSS MB':>7}"
    )
    for r in results:
        p = r.probe
        print(
            f"{r.days:>8} {r.sizes.user_days:>12,} {r.sizes.warehouse / 1e6:>8.1f} {r.sizes.per_user_day:>11.0f}"
            f" {p.command.seconds:>7.1f} {p.command.seconds / base_wall:>6.2f} {p.landing:>10.1f}"
            f" {p.landing / base_landing:>6.2f} {p.publish:>10.1f} {p.rss_mb:>7.0f}"
        )
    peak = max(c.rss_mb for c in [*builds, *(r.probe for r in results), *baseline])
    commands = len(builds) + 2 * (len(results) + len(baseline))
    last = results[-1].probe
    print(
        f"build: {len(builds)} commands, {sum(c.seconds for c in builds) / 60:.1f} min;"
        f" peak RSS of all {commands} commands {peak:.0f} MB"
    )
    checks = [
        (
            f"wall ratio after {results[-1].days} days {last.command.seconds / base_wall:.2f} <= {TARGET_RATIO}",
            last.command.seconds / base_wall <= TARGET_RATIO,
        ),
        (
            f"landing ratio after {results[-1].days} days {last.landing / base_landing:.2f} <= {TARGET_RATIO}",
            last.landing / base_landing <= TARGET_RATIO,
        ),
        (f"peak RSS of every command {peak:.0f} MB < {TARGET_RSS_MB} MB", peak < TARGET_RSS_MB),
    ]
    print(f"targets (set for 365 days x 10,000 users; this run: {days} days x {users:,} users):")
    for text, ok in checks:
        print(f"  {'ok    ' if ok else 'MISSED'}  {text}")
        record("history", f"{text} ({days} days)", "as stated", ok)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365, help="days of history before the probe day")
    parser.add_argument("--users", type=int, default=10_000, help="organization users (the enterprise has 1.5x)")
    parser.add_argument("--checkpoints", default="30,90,180,365", help="history lengths to probe at (comma list)")
    parser.add_argument(
        "--chunk-days", type=int, default=365, help="most days per build command (default: one per checkpoint)"
    )
    parser.add_argument("--keep", type=Path, metavar="DIR", help="build the history home here and keep it")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--probe-home",
        type=Path,
        metavar="DIR",
        help="a home kept by an earlier run (--keep) holding --days of history: probe it again, no build",
    )
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # progress of a run of hours, also through tee
    if args.keep and args.keep.exists() and any(args.keep.iterdir()):
        parser.error(f"--keep {args.keep}: not empty")

    from emulator import EmulatorConfig, running_emulator

    start = PROBE_DAY - timedelta(days=args.days)
    checkpoints = _checkpoints(args.checkpoints, days=args.days)
    config = EmulatorConfig(
        seed=args.seed, users=args.users, today=TODAY, history_days=args.days + 10, org="acme", enterprise="acme-corp"
    )
    print(
        f"{args.days} days ({start} .. {PROBE_DAY - timedelta(days=1)}) of {args.users:,} organization users"
        f" (+ enterprise {args.users + args.users // 2:,}), probe day {PROBE_DAY}, checkpoints {checkpoints},"
        f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    if args.probe_home:
        root = args.probe_home.resolve()
    else:
        root = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="bench-history-"))
    keep = args.keep is not None or args.probe_home is not None
    try:
        with running_emulator(config) as emu:
            creds = emu.credentials
            baseline = [_baseline(creds, start=start, round_=n) for n in (1, 2)]
            if args.probe_home:  # the same history re-measured after a change, without building it again
                home = Home(root)
                results, builds = _history(
                    home,
                    home.environment(creds, start=start),
                    start=start,
                    checkpoints=[args.days],
                    chunk_days=args.days,
                    baseline=baseline,
                    built=args.days,
                )
            else:
                home = Home(root).create()
                results, builds = _history(
                    home,
                    home.environment(creds, start=start),
                    start=start,
                    checkpoints=checkpoints,
                    chunk_days=args.chunk_days,
                    baseline=baseline,
                )
            baseline.append(_baseline(creds, start=start, round_=3))
    except CommandFailed as exc:
        keep = True  # for inspection: its logs/ holds the failed run's full log
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        if keep:
            print(f"history home kept: {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    _report(results, baseline, builds, days=args.days, users=args.users)
    return 0


if __name__ == "__main__":
    sys.exit(main())
