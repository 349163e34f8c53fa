"""ingest_report: report metadata -> files (archived, parsed, transformed) -> one transaction.

The download and parse threads (`_pipeline.run_stages`) hand over parsed rows, file
completions and restarts; the calling thread inserts the rows into core inside the report's
one open transaction (which began by deleting the report's days), so every row is written
once. A file fetched again first has the rows it landed taken back out. The transaction
commits only when every file is complete; any failure rolls it back, leaving the previous state.

Long because one report's landing is one piece: its stages, its transaction, the repeated
lines settled across files and the archive files swept after the commit share its state. No
report kind is named here: the reports a landing carries are their declarations'
(pipelines/service/kinds.py, pipelines/ingest/kinds.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import polars as pl

from pipelines._memory import bound_malloc
from pipelines.ingest._carried import fetch_carried
from pipelines.ingest._download import archive_dir
from pipelines.ingest._pipeline import FileDone, Parsed, Restart, run_stages
from pipelines.ingest._repeats import landed_frames, settle_repeats
from pipelines.ingest._resources import landing_resources
from pipelines.ingest._rows import file_row, quarantine_frame
from pipelines.ingest.archive import remove_dead_parts, report_dir
from pipelines.ingest.archive_files import remove_unrecorded
from pipelines.ingest.drift import DriftTally
from pipelines.ingest.errors import IngestError
from pipelines.ingest.forgotten import drop_forgotten
from pipelines.ingest.kinds import ROWS
from pipelines.ingest.parse import Reject
from pipelines.service import ReportMetadata, ReportRef, ServiceClient, fetch_report_metadata
from pipelines.service.kinds import ReportKind, carried_with
from pipelines.transform import Provenance, Transformed
from pipelines.transform.fetches import day_tallies, fetch_rows
from pipelines.transform.repeats import ENTRY_KEYS
from pipelines.warehouse import ReportLanding, ReportSlice, land_report
from pipelines.warehouse.checks import CheckOutcome, ChecksFailed
from pipelines.warehouse.erasure import Forgotten
from pipelines.warehouse.sql import run_sql

DEFAULT_BATCH_ROWS = 10_000


@dataclass(frozen=True)
class IngestResult:
    available: bool
    rows: dict[str, int] = field(default_factory=dict)
    files: int = 0
    bytes: int = 0
    quarantined: int = 0
    days: tuple[date, ...] = ()
    agents: tuple[str, ...] = ()
    restarts: int = 0
    checks: tuple[CheckOutcome, ...] = ()
    # The lines landed of each report the landing carried (pipelines/service/kinds.py); a kind
    # absent: the platform served none of it for the day.
    carried: dict[ReportKind, int] = field(default_factory=dict)
    # What the records carried beyond the schema: path -> (drift, records carrying it).
    drift: dict[str, tuple[str, int]] = field(default_factory=dict)
    # Lines that repeated an earlier line of their key, landed once (raw.report_files.repeated_lines).
    repeated: int = 0


@dataclass
class _FileTally:
    records: int = 0
    breakdowns: int = 0
    agent_activity: int = 0
    quarantined: int = 0
    repeated: int = 0


class _Lander:
    """The calling thread's side: land parsed rows in the open transaction, keep the tallies."""

    def __init__(self, *, landing: ReportLanding, prov: Provenance) -> None:
        self._landing = landing
        self._prov = prov
        self.tallies: dict[int, _FileTally] = {}
        self.days: dict[int, set[date]] = {}
        self.agents: dict[int, set[str]] = {}
        self.done: dict[int, FileDone] = {}
        self.restarts = 0
        # What each file carried per day, for raw.report_fetches.
        self._fetched: dict[int, list[pl.DataFrame]] = {}
        # Quarantine rows wait for the file's archive path, known when the file completes.
        self._rejects: dict[int, list[Reject]] = {}
        # What each file's records carried beyond the schema, for raw.field_drift.
        self._drift: dict[int, DriftTally] = {}

    def restart(self, file_index: int) -> None:
        self.restarts += 1
        self._landing.discard_file(file_index=file_index)
        for book in (self.tallies, self.days, self.agents, self._rejects, self._fetched, self._drift):
            book.pop(file_index, None)

    def land(self, parsed: Parsed) -> None:
        file_index, result = parsed.file_index, parsed.result
        for table, frame in landed_frames(result, level=self._prov.ref.level).items():
            self._landing.insert(table=table, frame=frame, file_index=file_index)
        self._landing.record_rejected_keys(result.rejected_keys, file_index=file_index)
        self._count(file_index, result)
        self.tallies[file_index].quarantined += len(parsed.rejects)
        self._rejects.setdefault(file_index, []).extend(parsed.rejects)
        self.days.setdefault(file_index, set()).update(result.totals["day"].unique().to_list())
        self.agents.setdefault(file_index, set()).update(result.agent_activity["agent_id"].unique().to_list())

    def _count(self, file_index: int, result: Transformed, *, sign: int = 1) -> None:
        """Add a batch's rows to the file's tallies (sign -1: take rows no longer landed out)."""
        tally = self.tallies.setdefault(file_index, _FileTally())
        tally.records += sign * result.totals.height
        tally.breakdowns += sign * result.breakdowns.height
        tally.agent_activity += sign * result.agent_activity.height
        fetched = day_tallies(totals=result.totals, agent_activity=result.agent_activity, level=self._prov.ref.level)
        self._fetched.setdefault(file_index, []).append(
            fetched if sign == 1 else fetched.with_columns(pl.exclude("day") * sign)
        )
        self._drift.setdefault(file_index, DriftTally(self._prov.dialect)).add(result.totals, sign=sign)

    def file_done(self, done: FileDone) -> None:
        """The file is complete; its raw rows land once every file is in (`finish`)."""
        self.done[done.file_index] = done
        self.tallies.setdefault(done.file_index, _FileTally())

    def settle_repeats(self) -> None:
        """Land a repeated line's key once and quarantine the lines of a key that differ."""
        archives = {index: done.archived.path for index, done in self.done.items()}
        settled = settle_repeats(self._landing, prov=self._prov, archives=archives)
        if settled is None:
            return
        for file_index, result in settled.dropped:
            self._count(file_index, result, sign=-1)
        for file_index, rejects in settled.rejects.items():
            self.tallies[file_index].quarantined += len(rejects)
            self._rejects.setdefault(file_index, []).extend(rejects)
        for file_index, copies in settled.repeated.items():
            self.tallies[file_index].repeated += copies

    def finish(self) -> None:
        """Each file's quarantined lines and its raw.report_files row."""
        for file_index, done in sorted(self.done.items()):
            tally = self.tallies[file_index]
            rejects = self._rejects.pop(file_index, [])
            if rejects:
                frame = quarantine_frame(
                    self._prov, rejects, file_index=file_index, archive_path=str(done.archived.path), link=done.link
                )
                self._landing.insert(table="quarantine", frame=frame, file_index=file_index)
            row = file_row(
                self._prov,
                done.archived,
                file_index=file_index,
                records=tally.records,
                quarantined=tally.quarantined,
                repeated=tally.repeated,
                link=done.link,
            )
            self._landing.insert(table="report_files", frame=row, file_index=file_index)

    def record_drift(self) -> pl.DataFrame:
        """The report's raw.field_drift rows, once every file is in (landed; also returned)."""
        tally = DriftTally(self._prov.dialect)
        for part in self._drift.values():
            tally.records.update(part.records)
            tally.types = part.types | tally.types
        ref = self._prov.ref
        rows = tally.frame().with_columns(
            pl.lit(ref.scope).alias("scope"),
            pl.lit(ref.scope_name).alias("scope_name"),
            pl.lit(ref.level).alias("level"),
            pl.lit(ref.kind).alias("report_kind"),
            pl.lit(self._prov.fetched_at).alias("fetched_at"),
        )
        self._landing.insert(table="field_drift", frame=rows, file_index=-1)
        return rows

    def record_fetch(self) -> int:
        """The fetch's row per day it carried, once every file is in; how many."""
        tallies = [frame for frames in self._fetched.values() for frame in frames]
        rows = fetch_rows(tallies, self._prov)
        self._landing.insert(table="report_fetches", frame=rows, file_index=-1)
        return rows.height


def ingest_report(
    *,
    client: ServiceClient,
    ref: ReportRef,
    conn: duckdb.DuckDBPyConnection,
    raw_dir: Path,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    forgotten: Forgotten | None = None,
) -> IngestResult:
    """Fetch, archive, parse and land one report; its days are replaced in one transaction.

    Returns `available=False` (nothing written) when the platform has no report for the day yet.
    People erased by `metrics-etl forget` (`forgotten`) are dropped before it commits.

    A record whose array lists one entry twice (two `totals_by_ide` entries for one IDE) breaks
    its rows' grain: the report rolls back on that check and is fetched once more looking for
    such records, which are quarantined while the rest lands (only such a report pays).
    """
    bound_malloc()  # its threads and large buffers (pipelines/_memory.py)
    with landing_resources(conn):
        try:
            return _ingest(
                client=client,
                ref=ref,
                conn=conn,
                raw_dir=raw_dir,
                batch_rows=batch_rows,
                forgotten=forgotten,
                screen_entries=False,
            )
        except ChecksFailed as exc:
            if not any(
                o.check.name == "grain_is_unique" and o.check.table[1] in ENTRY_KEYS and not o.passed
                for o in exc.outcomes
            ):
                raise
        return _ingest(
            client=client,
            ref=ref,
            conn=conn,
            raw_dir=raw_dir,
            batch_rows=batch_rows,
            forgotten=forgotten,
            screen_entries=True,
        )


def _ingest(
    *,
    client: ServiceClient,
    ref: ReportRef,
    conn: duckdb.DuckDBPyConnection,
    raw_dir: Path,
    batch_rows: int,
    forgotten: Forgotten | None,
    screen_entries: bool,
) -> IngestResult:
    metadata = fetch_report_metadata(client, ref)
    if metadata is None:
        return IngestResult(available=False)
    # Looked up before the report's days are replaced, so a re-run keeps the id it had.
    known = run_sql(conn, "ingest/select_scope_entity_id.sql", scope=ref.scope, scope_name=ref.scope_name) or run_sql(
        conn, "ingest/select_scope_entity_id_from_users.sql", scope=ref.scope, scope_name=ref.scope_name
    )
    prov = Provenance(
        ref=ref,
        start_day=metadata.start_day,
        end_day=metadata.end_day,
        fetched_at=datetime.now(UTC),
        served_at=metadata.served_at,  # the service's clock decides whether a day was final
        dialect=client.dialect.name,
        entity_id=known[0][0] if known else None,
    )
    raw_dir.mkdir(parents=True, exist_ok=True)
    remove_dead_parts(raw_dir)
    report = ReportSlice(ref, metadata.start_day, metadata.end_day)
    fetched = [
        fetch_carried(client, ref, kind, prov=prov, raw_dir=raw_dir, parse=ROWS[kind])
        for kind in carried_with(ref.report)
    ]
    carried = [rows for rows in fetched if rows is not None]
    landed: dict[ReportKind, int] = {}
    with (
        _removing_unrecorded(conn, _archive_dirs(raw_dir, metadata)),
        land_report(conn, report) as landing,
        run_stages(
            client=client,
            metadata=metadata,
            raw_dir=raw_dir,
            prov=prov,
            batch_rows=batch_rows,
            screen_entries=screen_entries,
        ) as items,
    ):
        lander = _Lander(landing=landing, prov=prov)
        for item in items:
            if isinstance(item, Parsed):
                lander.land(item)
            elif isinstance(item, Restart):
                lander.restart(item.file_index)
            else:
                lander.file_done(item)
            del item  # landed: not held while the next batch is awaited
        if len(lander.done) != len(metadata.links):
            raise IngestError(f"{len(lander.done)} of {len(metadata.links)} report files completed")
        lander.settle_repeats()
        lander.finish()
        fetch_rows_landed = lander.record_fetch()
        drift = lander.record_drift()
        for rows in carried:
            landed[rows.ref.report] = landing.replace_carried(rows)
        if forgotten is not None:
            drop_forgotten(
                conn, forgotten, first_day=metadata.start_day, last_day=metadata.end_day, fetched_at=prov.fetched_at
            )
    tallies = lander.tallies.values()
    totals_table = "core.user_daily_totals" if ref.level == "user" else "core.daily_totals"
    quarantined = sum(t.quarantined for t in tallies)
    return IngestResult(
        available=True,
        rows={
            totals_table: sum(t.records for t in tallies),
            "core.breakdowns": sum(t.breakdowns for t in tallies),
            "core.agent_activity": sum(t.agent_activity for t in tallies),
            "raw.quarantine": quarantined,
            "raw.report_fetches": fetch_rows_landed,
            "raw.field_drift": drift.height,
            **{name: frame.height for rows in carried for name, frame in rows.rows.items()},
        },
        files=len(lander.done),
        bytes=sum(d.archived.bytes for d in lander.done.values()),
        quarantined=quarantined,
        repeated=sum(t.repeated for t in tallies),
        days=tuple(sorted(set[date]().union(*lander.days.values()))),
        agents=tuple(sorted(set[str]().union(*lander.agents.values()))),
        restarts=lander.restarts,
        checks=tuple(landing.checks),
        carried=landed,
        drift={
            path: (kind, records)
            for path, kind, records in drift.group_by("path", "drift").agg(pl.col("records").sum()).iter_rows()
        },
    )


def _archive_dirs(raw_dir: Path, metadata: ReportMetadata) -> list[Path]:
    """The directories the report's files are archived in, with those of the report it carries."""
    ref = metadata.ref
    return [
        archive_dir(raw_dir, metadata),
        *(
            report_dir(
                raw_dir,
                scope=ref.scope,
                scope_name=ref.scope_name,
                level=kind.level,
                kind=kind.kind,
                start_day=metadata.start_day,
                end_day=metadata.end_day,
            )
            for kind in carried_with(ref.report)
        ),
    ]


@contextmanager
def _removing_unrecorded(conn: duckdb.DuckDBPyConnection, directories: Iterable[Path]) -> Iterator[None]:
    """Once the landing has committed (or rolled back), the report's archive files no row names
    go: the files it replaced (another fetch's bytes), a failed landing's own, and those a run
    killed before this point left (pipelines/ingest/archive_files.py). Never before the commit,
    so a landing that fails keeps the files its rows name."""
    try:
        yield
    except BaseException:
        # The landing's failure is what is said; the next fetch of the report removes them.
        with suppress(Exception):
            remove_unrecorded(conn, directories)
        raise
    remove_unrecorded(conn, directories)
