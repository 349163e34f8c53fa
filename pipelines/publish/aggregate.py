"""The aggregate tier: numbers without people, for a BI tool a wide audience reads (docs/privacy.md).

Each publish computes its tables from the warehouse with SQL (`sql/aggregate/`), writes them
whole as a new version of a lake of their own (`aggregate/lake/publish=<N>/<table>/data.parquet`
beside SERVING_PATH, made visible by one rename as the lake's versions are: `_versions`) and
builds a serving database of views over them (`aggregate/serving-aggregate.duckdb`), renamed
into place as the full one is. A query reads every table from one publish, and a reader holding
the database open reads the newest on its next query. One directory holds the whole tier, so
one permission on it opens the tier to its audience and nothing else. It holds no login, no
user id, and no figure about fewer than k people: such a row stays, marked `suppressed`, with
every figure NULL. Which rows are shown is worked out first, by the files of `sql/aggregate/`
whose names start with `_` (each a temp table `aggregate_<name>`): a row is hidden by the people
behind its figures, and by what the difference of it and another shown row would leave (an
organization and its enterprise, a team and a scope, a team and another team, a period and a
day), or an enterprise minus all its shown organizations, a period minus all its shown days, a
scope or a team minus shown teams within it that do not overlap (teams/uncovered_teams.sql). A
few rows per scope and day, from the rollups, so writing them whole costs little; which teams
lie within others is worked out from user rows, each day's read once, only for the days a
publish changed. Cost is two tables, per 28-day period: a cost center's net (shown where the
usage export's per-user lines add up to it and k or more people are behind it) and a team's net
charged back (shown where its team period is, k or more members paid it, and no shown cost center
or team of another scope shares its payers): never the whole bill, what is unallocated, or anyone's.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipelines._paths import SQL_DIR
from pipelines.publish._published import DATA_FILE
from pipelines.publish._serving import STORAGE_VERSION, glob_literal, newest_visible
from pipelines.publish._versions import GRACE, KEY, make_visible, remove_superseded, start, versions, wait_until
from pipelines.warehouse.sql import connect, run_sql

__all__ = [
    "AGGREGATE_TABLES",
    "DEFAULT_K",
    "aggregate_lake",
    "aggregate_serving",
    "build_views",
    "publish_aggregate",
    "write_aside",
]

DIRECTORY = "aggregate"  # beside SERVING_PATH

# Beside SERVING_PATH, outside the tier's directory: which team-days are nearly another team's
# tells of groups under k, so only the full tier's readers may read it.
NESTED = ".aggregate-nested-teams"
_NESTED_TABLE = "aggregate_nested_teams"
_SOURCES = "_sources.json"
# Beside it: the team-days hidden where teams add up to a scope or another team, and what each
# day's were worked out from (its user rows and memberships, and which teams were shown before).
_UNCOVERED = "uncovered"
# People of the days worked out at once (teams/select_runs.sql): 37 bytes each, in memory.
_CHUNK_PEOPLE = 1_000_000
_BOTH = (False, True)  # the definitions of the people behind figures: counts, then sums
# Temp tables of one publish (teams/active_members.sql, teams/uncovered_teams.sql).
_WORK_TABLES = (
    "aggregate_cost_center_people",
    "aggregate_active_users",
    "aggregate_active_members",
    "aggregate_uncovered_shown",
    "aggregate_uncovered_hidden",
    "aggregate_uncovered_round",
    "aggregate_vendor_costs",  # vendor_daily.sql, read by vendor_periods.sql
)

DEFAULT_K = 5
SCHEMA = "aggregate"
AGGREGATE_TABLES = tuple(sorted(p.stem for p in (SQL_DIR / "aggregate").glob("*.sql") if not p.stem.startswith("_")))
# Which rows each table shows, in an order where each reads only those before it.
_STATUS = tuple(sorted(p.stem for p in (SQL_DIR / "aggregate").glob("_*.sql")))


def aggregate_lake(serving: Path) -> Path:
    return serving.parent / DIRECTORY / "lake"


def aggregate_serving(serving: Path) -> Path:
    return serving.parent / DIRECTORY / f"{serving.stem}-aggregate{serving.suffix}"


def publish_aggregate(
    conn: duckdb.DuckDBPyConnection, *, serving: Path, k: int = DEFAULT_K, grace: timedelta = GRACE
) -> Path:
    """The aggregate tables (once the lake's publish computed billing.team_chargeback) as a new version
    of the tier's lake, with its serving database, beside `serving`; versions superseded over `grace` ago go."""
    root = aggregate_lake(serving)
    found = versions(root)
    staging = start(root, found[0] if found else None)
    nested = _nested_teams(conn, serving, k)
    conn.register(_NESTED_TABLE, nested)
    try:
        for status in _STATUS:
            run_sql(conn, f"aggregate/{status}.sql", k=k)
        _hide_uncovered_teams(conn, serving, k)
        # In name order, each kept to the end: a table may read those before it (the cost of a
        # team period is shown only where aggregate_team_periods shows the period).
        for name in AGGREGATE_TABLES:
            run_sql(conn, f"aggregate/{name}.sql", k=k)
            write_aside(conn.sql(f"SELECT * FROM aggregate_{name}").to_arrow_table(), staging / name)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        tables = (*(f"aggregate_{name}" for name in AGGREGATE_TABLES), *(f"aggregate{s}" for s in _STATUS))
        for table in (*tables, *_WORK_TABLES):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute("RESET preserve_insertion_order")  # vendor_daily.sql's, were it to fail before its own RESET
        conn.unregister(_NESTED_TABLE)
    version, _ = make_visible(staging, found[0] if found else None)
    target = build_views(
        root,
        aggregate_serving(serving),
        schema=SCHEMA,
        names=AGGREGATE_TABLES,
        versioned=True,
        not_before=version.visible_from,
    )
    # The tables' directories of a tier written before versions go once the first version is old.
    remove_superseded(root, legacy=list(AGGREGATE_TABLES), grace=grace)
    return target


def _nested_teams(conn: duckdb.DuckDBPyConnection, serving: Path, k: int) -> pa.Table:
    """The team-days nearly another team's (sql/aggregate/teams/nested_teams.sql, by both
    definitions of a team's people: its active members and those behind its sums), from user
    rows, worked out again only for the days whose user rows or memberships changed in the lake,
    so a daily publish reads its few days of them whatever the history; the rest is kept beside
    the serving database with what each day was made from (another k or definition: every day again)."""
    root = serving.parent / NESTED
    sql = SQL_DIR / "aggregate" / "teams"
    made_with = _made_with(k, "active_members.sql", "nested_teams.sql")
    sources = {day: source for day, source in run_sql(conn, "aggregate/teams/select_sources.sql")}
    kept, done = _kept(root, made_with)
    stale = sorted(day for day, source in sources.items() if done.get(day) != source)
    if kept is not None and not stale and len(sources) == len(done):
        return kept
    fresh = pa.concat_tables(
        [
            conn.sql((sql / "nested_teams.sql").read_text(), params={"k": k, "sums": sums}).to_arrow_table()
            for _ in _load_active(conn, stale)
            for sums in (False, True)
        ]
    )
    if kept is not None:
        unchanged = pa.array([date.fromisoformat(day) for day in sources if day not in stale], pa.date32())
        fresh = pa.concat_tables([kept.filter(pc.is_in(kept["day"], unchanged)), fresh])
    _keep(root, fresh, made_with, sources)
    return fresh


def _hide_uncovered_teams(conn: duckdb.DuckDBPyConnection, serving: Path, k: int) -> None:
    """Hide in aggregate_team_day_status the team-days teams/uncovered_teams.sql hides, round after
    round until one hides none, working out again only the days whose user rows or memberships
    changed or whose teams shown so far did (the rest kept beside the nested teams)."""
    root = serving.parent / NESTED / _UNCOVERED
    made_with = _made_with(k, "active_members.sql", "uncovered_teams.sql")
    users = {day: source for day, source in run_sql(conn, "aggregate/teams/select_sources.sql")}
    shown = {day: teams for day, teams in run_sql(conn, "aggregate/teams/select_shown.sql")}
    # A day with no team shown hides none: nothing to work out or keep.
    sources = {day: f"{users.get(day)}|{teams}" for day, teams in shown.items()}
    kept, done = _kept(root, made_with)
    stale = sorted(day for day, source in sources.items() if done.get(day) != source)
    if kept is None or stale or len(sources) != len(done):
        run_sql(conn, "aggregate/teams/start_uncovered.sql")
        for days in _load_active(conn, stale):
            run_sql(conn, "aggregate/teams/shown_so_far.sql", days=days)
            # Rounds until neither definition hides any, of the days the last rounds hid some on.
            working = days
            while working:
                hid = (run_sql(conn, "aggregate/teams/uncovered_teams.sql", k=k, sums=s, days=working) for s in _BOTH)
                working = sorted({day for rows in hid for (day,) in rows})
        fresh = conn.table("aggregate_uncovered_hidden").to_arrow_table()
        if kept is not None:
            unchanged = pa.array([date.fromisoformat(day) for day in sources if day not in stale], pa.date32())
            fresh = pa.concat_tables([kept.filter(pc.is_in(kept["day"], unchanged)), fresh])
        _keep(root, fresh, made_with, sources)
        kept = fresh
    conn.register("aggregate_uncovered_kept", kept)
    try:
        run_sql(conn, "aggregate/teams/apply_uncovered.sql")
    finally:
        conn.unregister("aggregate_uncovered_kept")


def _load_active(conn: duckdb.DuckDBPyConnection, stale: list[str]) -> Iterator[list[date]]:
    """Each run of `stale` of about _CHUNK_PEOPLE people, once teams/active_members.sql holds them
    (one at a time: a year's would not fit the memory limit). At least one run, maybe of none."""
    days = [date.fromisoformat(day) for day in stale]
    runs: dict[int, list[date]] = {0: []}
    for day, run in run_sql(conn, "aggregate/teams/select_runs.sql", days=days, people=_CHUNK_PEOPLE):
        runs.setdefault(run, []).append(day)
    for chunk in runs.values():
        run_sql(
            conn,
            "aggregate/teams/active_members.sql",
            days=chunk,
            first=min(chunk, default=None),
            last=max(chunk, default=None),
        )
        yield chunk


def _made_with(k: int, *files: str) -> str:
    """What kept rows were made with: k and the SQL files of sql/aggregate/teams that made them."""
    sql = SQL_DIR / "aggregate" / "teams"
    return f"{k}:" + hashlib.sha256(b"".join((sql / name).read_bytes() for name in files)).hexdigest()


def _kept(root: Path, made_with: str) -> tuple[pa.Table | None, dict[str, str]]:
    """What `root` keeps and the source of each day it was made from, if made the same way."""
    try:
        recorded = json.loads((root / _SOURCES).read_text())
        kept = pq.read_table(root / DATA_FILE) if recorded.get("made_with") == made_with else None
    except (FileNotFoundError, ValueError):
        return None, {}
    return kept, recorded.get("days", {}) if kept is not None else {}


def _keep(root: Path, rows: pa.Table, made_with: str, sources: dict[str, str]) -> None:
    write_aside(rows, root)
    staging = root / f".{_SOURCES}.{os.getpid()}.tmp"
    staging.write_text(json.dumps({"made_with": made_with, "days": sources}, sort_keys=True))
    os.replace(staging, root / _SOURCES)


def build_views(
    root: Path,
    target: Path,
    *,
    schema: str,
    names: tuple[str, ...],
    partitioned: dict[str, str] | None = None,
    versioned: bool = False,
    not_before: int = 0,
) -> Path:
    """A database of one view per table over its file under `root`, in `schema`, renamed into
    place (as _serving.build_serving) once `not_before` (microseconds since the epoch) has come.
    A table of `partitioned` is one file per value of its column
    (`<table>/<column>=<value>/data.parquet`), a DATE read from the directory's name. With
    `versioned`, `root` holds versions (`publish=<N>/<table>/data.parquet`) and each view reads
    the newest visible when the reader's transaction began, as the serving database's do."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{target.name}.next")
    staging.unlink(missing_ok=True)
    with connect(":memory:") as serving:
        # Readable by the DuckDB 1.x that BI drivers embed, as the serving database is.
        quoted = str(staging).replace("'", "''")
        serving.execute(f"ATTACH '{quoted}' AS tier (STORAGE_VERSION '{STORAGE_VERSION}')")
        serving.execute("USE tier")
        serving.execute(f'CREATE SCHEMA "{schema}"')
        every_version = f"{glob_literal(str(root.resolve()))}/{KEY}=*"
        for name in names:
            # A view's DDL holds no parameters: the path is a quoted literal, as in _serving.
            column = (partitioned or {}).get(name)
            directory = every_version if versioned else glob_literal(str(root.resolve()))
            files = f"{directory}/{name}" + (f"/*/{DATA_FILE}" if column else f"/{DATA_FILE}")
            source = "'" + files.replace("'", "''") + "'"
            columns, where = "*", ""
            if column:
                source += f", hive_partitioning = true, hive_types = {{'{column}': 'DATE'}}"
                columns = f'"{column}", * EXCLUDE ("{column}")'  # first, where the files' order would put it last
            elif versioned:
                source += f", hive_partitioning = true, hive_types = {{'{KEY}': 'BIGINT'}}"
                columns = f'* EXCLUDE ("{KEY}")'
                where = f' WHERE "{KEY}" = {newest_visible(every_version)}'
            serving.execute(f'CREATE VIEW "{schema}"."{name}" AS SELECT {columns} FROM read_parquet({source}){where}')
        serving.execute("CHECKPOINT")
    with staging.open("rb") as handle:
        os.fsync(handle.fileno())
    wait_until(not_before)
    os.replace(staging, target)
    return target


def write_aside(rows: pa.Table, directory: Path) -> None:
    """`directory`/data.parquet replaced whole: written under a name no reader's glob matches,
    fsync'd, then renamed over the last one, so a reader sees the old file or the new one."""
    directory.mkdir(parents=True, exist_ok=True)
    staging = directory / f".{DATA_FILE}.{os.getpid()}.tmp"
    pq.write_table(rows, staging, compression="zstd")
    with staging.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(staging, directory / DATA_FILE)
