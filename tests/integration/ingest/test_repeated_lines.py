"""Two lines of one report with the same key, served by the emulator over loopback and landed by
the real ingest: a repeated line lands once and is counted, two different lines are both
quarantined naming their line numbers (never the person), and the rest of the report lands.
Every level with a grain, in both dialects."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import duckdb
import httpx
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.cli import main
from pipelines.ingest import IngestResult, ingest_report
from pipelines.service import ReportRef, ServiceClient, fetch_report_metadata
from pipelines.warehouse import migrate
from tests._emulator import settings_for
from tests.integration.ingest.conftest import FAST_RETRY, TODAY

DAY = TODAY - timedelta(days=5)  # final: the served report does not grow between fetches
USERS = 30


@dataclass(frozen=True)
class Kind:
    """A report kind served from a file: the level the emulator serves it as, the report the
    ingest fetches (a carried report comes with its carrier), and its landed facts."""

    served_level: str
    ingested_level: str
    key: Callable[[dict[str, object]], tuple[object, ...]]  # a line's key, as the test reads it
    tables: tuple[str, ...]  # the tables a line of it lands in


USER = Kind(
    "user",
    "user",
    lambda r: (r["day"], r["user_id"]),
    ("core.user_daily_totals", "core.breakdowns", "core.agent_activity", "core.cli_customizations"),
)
AGGREGATE = Kind(
    "aggregate",
    "aggregate",
    lambda r: (r["day"],),
    (
        "core.daily_totals",
        "core.breakdowns",
        "core.agent_activity",
        "core.adoption_phases",
        "core.comment_types",
        "core.cli_customizations",
    ),
)


def _ref(level: str) -> ReportRef:
    return ReportRef("organization", "acme", "1-day", level, DAY)  # type: ignore[arg-type]


def _config(dialect: str, **more: object) -> EmulatorConfig:
    return EmulatorConfig(
        seed=3,
        users=USERS,
        today=TODAY,
        dialect=dialect,
        user_lines_per_file=12,  # type: ignore[arg-type]
        **more,
    )  # type: ignore[arg-type]


def _served_lines(level: str, dialect: str) -> list[bytes]:
    """The lines the emulator itself serves for the organization's `level` report of DAY."""
    with (
        running_emulator(_config(dialect)) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        metadata = fetch_report_metadata(client, _ref(level))
        assert metadata is not None
        return [line for link in metadata.links for line in httpx.get(link).content.splitlines() if line]


@dataclass
class Landed:
    result: IngestResult
    warehouse: Path


def _ingest(tmp_path: Path, name: str, lines: list[bytes], kind: Kind, dialect: str) -> Landed:
    """One fetch of the report from an emulator serving `lines` as the `kind` report of DAY."""
    served = tmp_path / f"{name}.ndjson"
    served.write_bytes(b"".join(line + b"\n" for line in lines))
    warehouse = tmp_path / f"{name}.duckdb"
    config = _config(dialect, report_file=served, report_file_day=DAY, report_file_level=kind.served_level)
    with (
        running_emulator(config) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
        duckdb.connect(str(warehouse)) as conn,
    ):
        migrate(conn)
        result = ingest_report(client=client, ref=_ref(kind.ingested_level), conn=conn, raw_dir=tmp_path / "raw")
    return Landed(result, warehouse)


def _rows(warehouse: Path, table: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        return conn.execute(f"SELECT * EXCLUDE (fetched_at) FROM {table} ORDER BY ALL").fetchall()


def _one(warehouse: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        return conn.execute(sql).fetchall()


@pytest.fixture(scope="module", params=["service", "github"])
def dialect(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def user_lines(dialect: str) -> list[bytes]:
    return _served_lines("user", dialect)


@pytest.fixture(scope="module")
def aggregate_lines(dialect: str) -> list[bytes]:
    return _served_lines("aggregate", dialect)


def _respaced(line: bytes) -> bytes:
    """The same record written another way: members in reverse order, with spaces."""
    record = json.loads(line)
    return json.dumps(dict(reversed(list(record.items())))).encode()


def test_a_user_line_repeated_byte_for_byte_lands_once_and_is_counted(
    tmp_path, dialect, user_lines, monkeypatch, capsys
):
    clean = _ingest(tmp_path, "clean", user_lines, USER, dialect)
    repeated = _ingest(tmp_path, "repeated", [user_lines[0], *user_lines], USER, dialect)

    assert repeated.result.quarantined == 0 and repeated.result.repeated == 1
    for table in (*USER.tables, "raw.field_drift"):
        assert _rows(repeated.warehouse, table) == _rows(clean.warehouse, table), table
    # The fetch records the records that landed, each once.
    fetches = "SELECT records, active_users, user_initiated_interaction_count FROM raw.report_fetches"
    assert _one(repeated.warehouse, fetches) == _one(clean.warehouse, fetches)
    files = "SELECT sum(records), sum(repeated_lines), sum(quarantined) FROM raw.report_files WHERE level = 'user'"
    assert _one(repeated.warehouse, files) == [(USERS, 1, 0)]
    # Where a person looks at what a report could not land: said, and nothing to clear.
    monkeypatch.setenv("WAREHOUSE_PATH", str(repeated.warehouse))
    assert main(["quarantine", "list"]) == 0
    assert capsys.readouterr().out.strip().splitlines() == [
        f"organization/acme/user/{DAY}  1 repeated line landed once (the same line twice: not quarantined)",
        "0 open lines",
    ]


def test_a_user_line_repeated_in_another_spelling_and_another_file_lands_once(tmp_path, dialect, user_lines):
    """Member order and spacing differ, and the copy is in the report's third file (12 lines a file)."""
    clean = _ingest(tmp_path, "clean", user_lines, USER, dialect)
    lines = [*user_lines, _respaced(user_lines[3]), user_lines[3]]
    repeated = _ingest(tmp_path, "repeated", lines, USER, dialect)

    assert repeated.result.quarantined == 0 and repeated.result.repeated == 2
    for table in USER.tables:
        assert _rows(repeated.warehouse, table) == _rows(clean.warehouse, table), table


def _changed(line: bytes) -> bytes:
    record = json.loads(line)
    record["code_generation_activity_count"] = int(record.get("code_generation_activity_count") or 0) + 5
    return json.dumps(record, separators=(",", ":")).encode()


def test_two_different_user_lines_of_one_key_are_quarantined_by_line_number_and_the_rest_lands(
    tmp_path, dialect, user_lines, monkeypatch, capsys
):
    first = json.loads(user_lines[0])
    lines = [*user_lines[:6], _changed(user_lines[0]), *user_lines[6:]]  # line 7 differs from line 1
    landed = _ingest(tmp_path, "conflict", lines, USER, dialect)

    assert landed.result.quarantined == 2 and landed.result.repeated == 0
    users = [row[0] for row in _one(landed.warehouse, "SELECT user_id FROM core.user_daily_totals ORDER BY 1")]
    assert users == sorted(json.loads(line)["user_id"] for line in user_lines[1:])  # every other user landed
    for table in USER.tables:
        assert _one(landed.warehouse, f"SELECT count(*) FROM {table} WHERE user_id = {first['user_id']}") == [(0,)]
    quarantined = _one(
        landed.warehouse, "SELECT file_index, line_number, reason, line_text FROM raw.quarantine ORDER BY ALL"
    )
    assert [(f, n) for f, n, _, _ in quarantined] == [(0, 1), (0, 7)]
    for _, _, reason, text in quarantined:
        assert reason.startswith(f"lines 1 and 7 of file 0 hold one user's record of {DAY} with different figures")
        # The reason names lines, never the person; the row keeps the line itself for a look.
        assert str(first["user_id"]) not in reason and first["user_login"] not in reason
        assert str(first["user_id"]) in text
    files = "SELECT sum(records), sum(quarantined), sum(repeated_lines) FROM raw.report_files WHERE level = 'user'"
    assert _one(landed.warehouse, files) == [(USERS - 1, 2, 0)]

    # Clearing the pair accepts the day without that user: the lines stay out, nothing is open,
    # and fetching the same report again keeps them cleared.
    monkeypatch.setenv("WAREHOUSE_PATH", str(landed.warehouse))
    assert main(["quarantine", "clear", "--day", DAY.isoformat(), "--note", "the service sent two; ticket 7"]) == 0
    assert main(["quarantine", "list"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "0 open lines"
    again = _ingest(tmp_path, "conflict", lines, USER, dialect)
    assert again.result.quarantined == 2
    assert main(["quarantine", "list"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "0 open lines"
    assert _one(
        landed.warehouse, f"SELECT count(*) FROM core.user_daily_totals WHERE user_id = {first['user_id']}"
    ) == [(0,)]


def test_a_copy_then_a_different_line_quarantines_all_three(tmp_path, dialect, user_lines):
    lines = [*user_lines, user_lines[2], _changed(user_lines[2])]
    landed = _ingest(tmp_path, "three", lines, USER, dialect)
    assert landed.result.quarantined == 3 and landed.result.repeated == 0
    numbers = _one(landed.warehouse, "SELECT file_index, line_number FROM raw.quarantine ORDER BY ALL")
    assert numbers == [(0, 3), (2, 7), (2, 8)]
    reason = _one(landed.warehouse, "SELECT DISTINCT reason FROM raw.quarantine")
    assert reason[0][0].startswith("line 3 of file 0, line 7 of file 2 and line 8 of file 2 hold one user's record")


def test_an_aggregate_line_repeated_lands_once_and_two_different_ones_land_neither(tmp_path, dialect, aggregate_lines):
    (line,) = aggregate_lines
    clean = _ingest(tmp_path, "clean", [line], AGGREGATE, dialect)
    repeated = _ingest(tmp_path, "repeated", [line, line], AGGREGATE, dialect)
    assert repeated.result.repeated == 1 and repeated.result.quarantined == 0
    for table in AGGREGATE.tables:
        assert _rows(repeated.warehouse, table) == _rows(clean.warehouse, table), table

    conflict = _ingest(tmp_path, "conflict", [line, _changed(line)], AGGREGATE, dialect)
    assert conflict.result.quarantined == 2
    for table in AGGREGATE.tables:
        assert _rows(conflict.warehouse, table) == [], table
    reasons = _one(conflict.warehouse, "SELECT line_number, reason FROM raw.quarantine ORDER BY 1")
    assert [n for n, _ in reasons] == [1, 2]
    assert all(
        r.startswith(f"lines 1 and 2 of file 0 hold the record of {DAY} with different figures") for _, r in reasons
    )


TEAMS = Kind("user-teams", "user", lambda r: (r["user_id"], r["team_id"]), ("core.user_team_days",))
REPOS = Kind(
    "repos",
    "aggregate",
    lambda r: (r["repo_id"],),
    ("core.repository_days", "core.repository_review_times", "core.repository_comment_types"),
)


def _changed_carried(line: bytes) -> bytes:
    record = json.loads(line)
    if "slug" in record:
        record["slug"] += "-renamed"
    else:
        pulls = record.setdefault("pull_requests", {})
        pulls["total_created"] = int(pulls.get("total_created") or 0) + 3
    return json.dumps(record, separators=(",", ":")).encode()


@pytest.mark.parametrize("kind", [TEAMS, REPOS], ids=["user-teams", "repos"])
def test_carried_reports_land_a_repeated_line_once_and_quarantine_different_lines_of_one_key(tmp_path, dialect, kind):
    served = _served_lines(kind.served_level, dialect)
    assert len(served) >= 3
    clean = _ingest(tmp_path, "clean", served, kind, dialect)
    # The copy lands in another file of the report (12 lines a file) when there is one.
    repeated = _ingest(tmp_path, "repeated", [*served, served[0]], kind, dialect)
    for table in kind.tables:
        assert _rows(repeated.warehouse, table) == _rows(clean.warehouse, table), table
    files = f"SELECT sum(repeated_lines), sum(quarantined) FROM raw.report_files WHERE level = '{kind.served_level}'"
    assert _one(repeated.warehouse, files) == [(1, 0)]

    conflict = _ingest(
        tmp_path, "conflict", [served[0], served[1], _changed_carried(served[0]), *served[2:]], kind, dialect
    )
    first = kind.key(json.loads(served[0]))
    key_columns = " AND ".join(
        f"{c} = {v}" for c, v in zip(("user_id", "team_id") if kind is TEAMS else ("repo_id",), first, strict=True)
    )
    for table in kind.tables:
        assert _one(conflict.warehouse, f"SELECT count(*) FROM {table} WHERE {key_columns}") == [(0,)], table
        others = _one(conflict.warehouse, f"SELECT count(*) FROM {table}")[0][0]
        assert others == len(_rows(clean.warehouse, table)) - len(
            _one(clean.warehouse, f"SELECT * FROM {table} WHERE {key_columns}")
        ), table
    quarantined = _one(
        conflict.warehouse,
        f"SELECT line_number, reason FROM raw.quarantine WHERE level = '{kind.served_level}' ORDER BY 1",
    )
    assert [n for n, _ in quarantined] == [1, 3]
    for _, reason in quarantined:
        assert reason.startswith("lines 1 and 3 of file 0 hold one ") and "with different figures" in reason
        assert all(str(part) not in reason for part in first)  # no user, team or repository id
    assert _one(conflict.warehouse, files) == [(0, 2)]


def test_a_record_listing_one_entry_twice_is_quarantined_and_the_rest_lands(tmp_path, dialect, user_lines):
    """Two `totals_by_ide` entries for one IDE inside one line broke the breakdowns' grain and
    rolled the whole report back; now that line alone is quarantined."""
    at = next(i for i, line in enumerate(user_lines) if json.loads(line).get("totals_by_ide"))
    record = json.loads(user_lines[at])
    record["totals_by_ide"] = [*record["totals_by_ide"], record["totals_by_ide"][0]]
    lines = [*user_lines[:at], json.dumps(record).encode(), *user_lines[at + 1 :]]
    landed = _ingest(tmp_path, "entries", lines, USER, dialect)

    assert landed.result.quarantined == 1
    (quarantined,) = _one(
        landed.warehouse, "SELECT file_index, line_number, reason FROM raw.quarantine WHERE level = 'user'"
    )
    # 12 lines a file (`_config`): the line's file and its number in it.
    assert quarantined == (
        at // 12,
        at % 12 + 1,
        "one ide breakdown entry is listed twice in the record, which did not land",
    )
    users = [row[0] for row in _one(landed.warehouse, "SELECT user_id FROM core.user_daily_totals ORDER BY 1")]
    assert users == sorted(json.loads(line)["user_id"] for i, line in enumerate(user_lines) if i != at)
