"""Usage-report ingestion end to end vs what a user would write instead, in DuckDB SQL.

    .venv/bin/python -m benchmarks.ingest [--scale 2] [--users N] [--repeat 3] [--bad-every N] [--profile]

The emulator serves a generated user-level report (made once under benchmarks/.cache/); the
pipeline's ingest_report (HTTP, archive, screen, parse, transform, land, checks) runs in a
child process and reports its own peak RSS. Two baselines run just before it, each in a child
of its own on the local file: the hand-written SQL a user would write to land the same tables
(`hand_sql`), and DuckDB's bare read_ndjson into a table. Prints time, CPU, peak RSS and the
pipeline's ratio to each for every round, then the spread; the last round's figures go to the
`make bench` summary (benchmarks/summary.py). `--profile` adds the pipeline's CPU per stage.
Figures, not asserts; the machine's load average is printed too.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import queue
import resource
import shutil
import statistics
import tempfile
import threading
import time
from collections import defaultdict
from contextlib import suppress
from datetime import date, timedelta
from pathlib import Path

from benchmarks.summary import record

CACHE = Path(__file__).parent / ".cache"
DAY = date(2026, 11, 19)
USERS = 500_000
# The targets of issue 33, each against its baseline in the same run.
HAND_SQL_TARGET = 1.5
BARE_READ_TARGET = 2.5
RSS_TARGET_MB = 400


class _StageClock:
    """CPU seconds per stage of the pipeline (--profile), each read on the thread running it.

    A stage's function is wrapped in place; a stage inside another (the screen inside the
    download) is counted as itself only, so the stages add up to the CPU they cover.
    """

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self._local = threading.local()

    def _enter(self) -> list[float]:
        stack = self._local.__dict__.setdefault("stack", [])
        frame = [time.thread_time(), 0.0]  # started, CPU of the stages inside it
        stack.append(frame)
        return frame

    def _leave(self, stage: str) -> None:
        stack = self._local.stack
        started, inner = stack.pop()
        spent = time.thread_time() - started
        self.cpu[stage] += spent - inner
        if stack:
            stack[-1][1] += spent

    def wrap(self, owner, name: str, stage: str) -> None:
        inner = getattr(owner, name)

        def timed(*args, **kwargs):
            self._enter()
            try:
                return inner(*args, **kwargs)
            finally:
                self._leave(stage)

        setattr(owner, name, timed)

    def wrap_iter(self, owner, name: str, stage: str) -> None:
        """A generator function: each step is timed, not the consumer's work between steps."""
        inner = getattr(owner, name)

        def timed(*args, **kwargs):
            items = inner(*args, **kwargs)
            while True:
                self._enter()
                try:
                    item = next(items)
                except StopIteration:
                    return
                finally:
                    self._leave(stage)
                yield item

        setattr(owner, name, timed)


_POOLS = "library thread pools (Polars, DuckDB, PyArrow)"


def _pool_cpu() -> float:
    """CPU of the threads other than this one still alive: the libraries' own pools (the
    pipeline's stage threads are joined by now). Linux's /proc, in clock ticks."""
    ticks = os.sysconf("SC_CLK_TCK")
    spent = 0
    for task in Path("/proc/self/task").iterdir():
        if int(task.name) != threading.get_native_id():
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            spent += int(fields[11]) + int(fields[12])  # utime, stime
    return spent / ticks


def _stage_clock() -> _StageClock:
    """Timers on the pipeline's stages, in this (child) process only."""
    from pipelines.ingest import _pipeline, report
    from pipelines.ingest import archive as archive_module
    from pipelines.warehouse import replace

    clock = _StageClock()
    clock.wrap(_pipeline, "download_report", "download + archive (sha256, zstd, segments)")
    clock.wrap(archive_module, "line_problems", "screen (lines no parser may see)")
    clock.wrap_iter(_pipeline, "read_segment", "parse (strict reader, known columns, extra)")
    clock.wrap_iter(_pipeline, "read_lines", "parse (strict reader, known columns, extra)")
    clock.wrap(_pipeline, "transform_records", "transform (rules, long form)")
    clock.wrap(replace.ReportLanding, "insert", "landing (DuckDB inserts)")
    clock.wrap(replace, "_check", "checks (the report's slice)")
    clock.wrap(replace, "refresh_rollups", "rollups (the bi views' daily rollups of the report's days)")
    for method in ("land", "file_done", "record_fetch", "record_drift"):
        clock.wrap(report._Lander, method, "tally (days, agents, fetches, drift)")
    clock.wrap(report, "fetch_carried", "carried reports (user-teams)")
    return clock


def _mark_stages(stage) -> None:
    """Name the stage the main thread is in (streaming, inserting, rollups, checks) in `stage`, a
    shared array the parent reads beside this process's RSS (--profile)."""
    from pipelines.warehouse import replace

    def mark(owner, name: str, label: str) -> None:
        inner = getattr(owner, name)

        def marked(*args, **kwargs):
            before = stage.value
            stage.value = label.encode()
            try:
                return inner(*args, **kwargs)
            finally:
                stage.value = before

        setattr(owner, name, marked)

    mark(replace.ReportLanding, "insert", "landing (inserts)")
    mark(replace, "refresh_rollups", "rollups")
    mark(replace, "_check", "checks")
    mark(replace, "checkpoint_when_held", "checkpoint")
    stage.value = b"streaming"


def _ingest(base_url: str, token: str, dialect: str, work: str, profile: bool, out, stage=None) -> None:
    import duckdb

    from pipelines.config import Secret, Settings
    from pipelines.ingest import ingest_report
    from pipelines.service import ReportRef, ServiceClient
    from pipelines.warehouse import migrate

    # Every file in the benchmark's work directory, none in the person's data home.
    settings = Settings(base_url=base_url, token=Secret(token), orgs=("acme",), dialect=dialect, home=Path(work))
    conn = duckdb.connect(str(Path(work) / "warehouse.duckdb"))
    migrate(conn)  # before the clock starts: the Dagster resource migrates once per process
    clock = _stage_clock() if profile else None
    if stage is not None:
        _mark_stages(stage)
    pools = _pool_cpu() if profile else 0.0  # what migrate's pools spent is not the ingest's
    with ServiceClient(config=settings.service_config()) as client:
        started, cpu = time.perf_counter(), time.process_time()
        result = ingest_report(
            client=client,
            ref=ReportRef("organization", "acme", "1-day", "user", DAY),
            conn=conn,
            raw_dir=Path(work) / "raw",
        )
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    conn.close()
    out.put(
        {
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "seconds": elapsed,
            "cpu": cpu,
            "records": sum(v for k, v in result.rows.items() if k.endswith("totals")),
            "bytes": result.bytes,
            "files": result.files,
            "rows": result.rows,
            "stages": {**clock.cpu, _POOLS: _pool_cpu() - pools} if clock else {},
        }
    )


def _baseline(path: str, work: str, out) -> None:
    import duckdb

    conn = duckdb.connect(str(Path(work) / "baseline.duckdb"))
    started, cpu = time.perf_counter(), time.process_time()
    conn.execute("CREATE TABLE t AS SELECT * FROM read_ndjson(?)", [path])
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    out.put({"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "seconds": elapsed, "cpu": cpu})


def _hand(path: str, dialect: str, work: str, out) -> None:
    import duckdb

    conn = duckdb.connect(str(Path(work) / "hand.duckdb"))
    statements = hand_sql(path, dialect)
    started, cpu = time.perf_counter(), time.process_time()
    for statement in statements:
        conn.execute(statement)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    conn.close()
    out.put({"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "seconds": elapsed, "cpu": cpu})


def _sql_type(dtype) -> str:
    """The DuckDB type a user would declare for a record field."""
    import polars as pl

    from pipelines.transform.schema import duckdb_type

    if isinstance(dtype, pl.Struct):
        return "STRUCT(" + ", ".join(f'"{f.name}" {_sql_type(f.dtype)}' for f in dtype.fields) + ")"
    if isinstance(dtype, pl.List):
        return _sql_type(dtype.inner) + "[]"
    return duckdb_type(dtype)


def hand_sql(path: str, dialect: str) -> list[str]:
    """What a user would write instead of the pipeline: DuckDB SQL landing the user totals, the
    breakdowns in long form and the third-party agent rows from the local file.

    The columns come from pipelines/transform/schema.py, so it lands the same ones; it reads
    the file once into a staging table with the declared types (DuckDB's casts, lenient) and
    has no archive, screen, quarantine, finality or checks.
    """
    from pipelines.transform.schema import (
        ACTIVITY_COUNTS,
        AGENT_FIELD,
        BREAKDOWN_ARRAYS,
        BREAKDOWN_KEYS,
        CLI_COUNTS,
        CLI_FIELD,
        CLI_TOKEN_USAGE,
        TIMESTAMP_COLUMNS,
        USER,
        VERSION_COLUMNS,
        VERSION_SOURCES,
        WIRE_NAMES,
        object_columns,
        record_dtype,
        totals_columns,
    )

    wire = WIRE_NAMES[dialect]
    quoted = path.replace("'", "''")
    columns = ", ".join(f"'{name}': '{_sql_type(dtype)}'" for name, dtype in record_dtype(dialect).items())
    objects = object_columns(USER)

    def totals_source(column: str) -> str:
        if column in objects:
            obj, member, *rest = objects[column][0]
            path = [wire.get((obj,), obj), wire.get((obj, member), member), *rest]
            return ".".join(f'"{part}"' for part in path) + f' AS "{column}"'
        return f'"{wire.get((column,), column)}" AS "{column}"'

    def versions(element: str, field: str | None) -> list[str]:
        out = []
        for column in VERSION_COLUMNS:
            src_field, obj, member = VERSION_SOURCES[column]
            value = f"{element}.{obj}.{member}" if src_field == field else "NULL"
            out.append(f"{value}::{'TIMESTAMPTZ' if column in TIMESTAMP_COLUMNS else 'VARCHAR'} AS {column}")
        return out

    context = "'organization' AS scope, 'acme' AS scope_name, 'user' AS level, day, user_id, user_login"
    parts = []
    for kind, (field, keys) in BREAKDOWN_ARRAYS.items():
        select = [
            context,
            f"'{kind}' AS kind",
            *(f"{'e.' + k if k in keys else 'NULL::VARCHAR'} AS {k}" for k in BREAKDOWN_KEYS),
            *(f"e.{c} AS {c}" for c in ACTIVITY_COUNTS),
            *(f"NULL::BIGINT AS {c}" for c in CLI_COUNTS),
            *(f"NULL::{_sql_type(t)} AS token_usage_{k}" for k, t in CLI_TOKEN_USAGE.items()),
            *versions("e", field if kind == "ide" else None),
        ]
        parts.append(
            f"SELECT {', '.join(select)} FROM (SELECT day, user_id, user_login, UNNEST({field}) AS e FROM records)"
        )
    cli = [
        context,
        "'cli' AS kind",
        *(f"NULL::VARCHAR AS {k}" for k in BREAKDOWN_KEYS),
        *(f"NULL::BIGINT AS {c}" for c in ACTIVITY_COUNTS),
        *(f"{CLI_FIELD}.{c} AS {c}" for c in CLI_COUNTS),
        *(f"{CLI_FIELD}.token_usage.{k} AS token_usage_{k}" for k in CLI_TOKEN_USAGE),
        *versions(CLI_FIELD, CLI_FIELD),
    ]
    parts.append(f"SELECT {', '.join(cli)} FROM records WHERE {CLI_FIELD} IS NOT NULL")
    return [
        "BEGIN",
        f"CREATE TEMP TABLE records AS SELECT * FROM read_ndjson('{quoted}', columns = {{{columns}}})",
        "CREATE TABLE user_daily_totals AS SELECT 'organization' AS scope, 'acme' AS scope_name, "
        f"'1-day' AS report_kind, {', '.join(totals_source(c) for c in totals_columns(USER))} FROM records",
        "CREATE TABLE breakdowns AS " + " UNION ALL ".join(parts),
        f"CREATE TABLE agent_activity AS SELECT {context}, e.agent_id, e.agent_name, "
        "e.user_initiated_interaction_count AS agent_job_starts, NULL::BIGINT AS session_count "
        f"FROM (SELECT day, user_id, user_login, UNNEST({AGENT_FIELD}) AS e FROM records)",
        "COMMIT",
    ]


def _with_bad_lines(report: Path, *, every: int) -> Path:
    """A copy of the report (made once) whose every Nth line has a boolean written as text."""
    bad = report.with_name(f"{report.stem}-bad{every}.ndjson")
    if not bad.exists() or bad.stat().st_mtime < report.stat().st_mtime:
        part = bad.with_name(bad.name + ".part")
        with report.open("rb") as source, part.open("wb") as out:
            for number, line in enumerate(source, start=1):
                if number % every == 0:
                    line = line.replace(b'"used_agent":false', b'"used_agent":"no"').replace(
                        b'"used_agent":true', b'"used_agent":"yes"'
                    )
                out.write(line)
        part.replace(bad)
    return bad


def _child(target, *args, stages: bool = False) -> dict:
    """Run `target` in a spawned child; its figures. With `stages`, the child is also passed a
    shared stage name, and its RSS is sampled every 2 ms beside it: figures["rss_by_stage"]."""
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    stage = ctx.Array("c", 40) if stages else None
    proc = ctx.Process(target=target, args=(*args, out, stage) if stages else (*args, out))
    proc.start()
    peaks: dict[str, float] = {}
    page_mb = os.sysconf("SC_PAGE_SIZE") / 2**20
    # A child that dies (an error in its SQL, the OOM killer) puts nothing: say so, never wait.
    while True:
        try:
            figures = out.get(timeout=0.002 if stages else 1.0)
            break
        except queue.Empty:
            if not proc.is_alive():
                step = target.__name__
                raise SystemExit(f"benchmark step {step} ended ({proc.exitcode}) without its figures") from None
            if stage is not None:
                with suppress(OSError, ValueError):
                    rss = int(Path(f"/proc/{proc.pid}/statm").read_text().split()[1]) * page_mb
                    name = stage.value.decode() or "starting"
                    peaks[name] = max(peaks.get(name, 0.0), rss)
    proc.join()
    if stages:
        figures["rss_by_stage"] = peaks
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=1, help="report size multiple (N times the users of one day)")
    parser.add_argument("--users", type=int, default=USERS)
    parser.add_argument(
        "--repeat", type=int, default=1, help="rounds of baseline + pipeline (shared machine: report the spread)"
    )
    parser.add_argument(
        "--bad-every",
        type=int,
        default=0,
        metavar="N",
        help="make every Nth line a wrong-type line (quarantined): the cost of sparse bad input",
    )
    parser.add_argument("--profile", action="store_true", help="print the pipeline's CPU per stage")
    args = parser.parse_args()

    from emulator import EmulatorConfig, running_emulator
    from emulator.reportfile import write_report_file

    # --scale N: N times the users on the report's one day (a file of several days served as a
    # 1-day report would send every other day's records to quarantine as out of range).
    users = args.users * args.scale
    report = write_report_file(CACHE / f"users-{users}-x1.ndjson", seed=1, users=users, day=DAY, days=1)
    if args.bad_every:
        report = _with_bad_lines(report, every=args.bad_every)
    size_mb = report.stat().st_size / 1e6
    config = EmulatorConfig(seed=1, users=50, today=DAY + timedelta(days=1), report_file=report, report_file_day=DAY)
    to_hand, to_bare, rss = [], [], []
    with running_emulator(config) as emu:
        creds = emu.credentials
        for round_ in range(1, args.repeat + 1):
            work = Path(tempfile.mkdtemp(prefix="bench-ingest-"))
            try:
                load = os.getloadavg()[0]
                bare = _child(_baseline, str(report), str(work))
                hand = _child(_hand, str(report), creds["dialect"], str(work))
                # The emulator serves from this process: its CPU is part of the pipeline's cost.
                serving_cpu = time.process_time()
                ingest = _child(
                    _ingest,
                    creds["base_url"],
                    creds["token"],
                    creds["dialect"],
                    str(work),
                    args.profile,
                    stages=args.profile,
                )
                serving_cpu = time.process_time() - serving_cpu
            finally:
                shutil.rmtree(work, ignore_errors=True)
            to_hand.append(ingest["seconds"] / hand["seconds"])
            to_bare.append(ingest["seconds"] / bare["seconds"])
            rss.append(ingest["rss_mb"])
            if round_ == 1:
                print(json.dumps({"file_mb": round(size_mb, 1), "files": ingest["files"], "rows": ingest["rows"]}))
            print(f"round {round_} (load average {load:.1f} on {os.cpu_count()} cores)")
            for name, figures in (
                ("bare read_ndjson -> table", bare),
                ("hand-written SQL landing", hand),
                ("pipeline ingest_report", ingest),
            ):
                print(
                    f"  {name:<26} {figures['seconds']:6.2f} s   CPU {figures['cpu']:6.2f} s"
                    f"   peak RSS {figures['rss_mb']:4.0f} MB"
                )
            print(
                f"  (+{serving_cpu:.2f} s CPU serving)   {ingest['records'] / ingest['seconds']:,.0f} records/s"
                f"   {size_mb / ingest['seconds']:.0f} MB/s"
            )
            print(
                f"  pipeline / hand SQL {to_hand[-1]:.2f}x (target <= {HAND_SQL_TARGET}x)   pipeline / bare read "
                f"{to_bare[-1]:.2f}x (target <= {BARE_READ_TARGET}x)   peak RSS target < {RSS_TARGET_MB} MB"
            )
            if ingest["stages"]:
                _print_stages(ingest["stages"], ingest["cpu"])
            if ingest.get("rss_by_stage"):
                peaks = ", ".join(f"{name} {mb:.0f} MB" for name, mb in ingest["rss_by_stage"].items())
                print(f"  pipeline peak RSS per stage of its main thread (--profile): {peaks}")
    if len(to_hand) > 1:
        for name, ratios in (("hand SQL", to_hand), ("bare read", to_bare)):
            print(
                f"pipeline / {name} over {len(ratios)} rounds: min {min(ratios):.2f}x"
                f"  median {statistics.median(ratios):.2f}x  max {max(ratios):.2f}x"
            )
    what = f"{users:,} user-days"
    hand_ratio, bare_ratio = statistics.median(to_hand), statistics.median(to_bare)
    record(
        "ingest",
        f"pipeline / hand SQL, {what}: {hand_ratio:.2f}x",
        f"<= {HAND_SQL_TARGET}x",
        hand_ratio <= HAND_SQL_TARGET,
    )
    record(
        "ingest",
        f"pipeline / bare read_ndjson, {what}: {bare_ratio:.2f}x",
        f"<= {BARE_READ_TARGET}x",
        bare_ratio <= BARE_READ_TARGET,
    )
    record("ingest", f"pipeline peak RSS, {what}: {max(rss):.0f} MB", f"< {RSS_TARGET_MB} MB", max(rss) < RSS_TARGET_MB)


def _print_stages(stages: dict[str, float], cpu: float) -> None:
    """CPU per stage (threads overlap: the stages add up to CPU, not to wall time)."""
    print("  pipeline CPU per stage (--profile):")
    for stage, seconds in sorted(stages.items(), key=lambda item: -item[1]):
        print(f"    {seconds:6.2f} s  {stage}")
    print(f"    {cpu - sum(stages.values()):6.2f} s  the rest (metadata, begin and commit, dimensions)")


if __name__ == "__main__":
    main()
