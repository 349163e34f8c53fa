import json
from datetime import timedelta
from pathlib import Path

import pytest

from emulator import EmulatorConfig, FaultSpec
from emulator.reportfile import write_report_file
from pipelines.ingest import DownloadGaveUp, ingest_report
from pipelines.service import ReportRef
from pipelines.service.kinds import REPORT_KINDS, carried_with
from pipelines.warehouse.catalog import tables
from tests._emulator import settings_for
from tests.integration.ingest.conftest import TODAY

YESTERDAY = TODAY - timedelta(days=1)
_TABLES = (
    "core.daily_totals",
    "core.user_daily_totals",
    "core.breakdowns",
    "core.agent_activity",
    "core.dim_agent",
    "core.agent_names",
    "raw.report_files",
    "raw.quarantine",
)


def _snapshot(conn) -> dict[str, list[tuple]]:
    out = {}
    for table in _TABLES:
        # fetched_at and the link (its path names the fetch) say when and how we fetched;
        # everything else must not move on a re-run.
        cols = [r[0] for r in conn.execute(f"DESCRIBE {table}").fetchall() if r[0] not in ("fetched_at", "link")]
        out[table] = sorted(conn.execute(f"SELECT {', '.join(cols)} FROM {table}").fetchall(), key=repr)
    return out


@pytest.mark.parametrize("scope,name", [("organization", "acme"), ("enterprise", "acme-corp")])
@pytest.mark.parametrize("report", [k for k in REPORT_KINDS if k.carried_by is None], ids=str)
def test_each_report_kind_and_scope_lands(client, conn, tmp_path, scope, name, report):
    level, kind = report.level, report.kind
    ref = ReportRef(scope, name, kind, level, YESTERDAY if kind == "1-day" else None)
    result = ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path / "raw")
    table = "core.user_daily_totals" if level == "user" else "core.daily_totals"
    days = 1 if kind == "1-day" else 28
    assert result.available and result.quarantined == 0
    assert conn.execute(f"SELECT count(DISTINCT day) FROM {table} WHERE scope = ?", [scope]).fetchone()[0] == days
    assert result.rows[table] == conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    files = conn.execute(
        "SELECT count(*), sum(records), bool_and(link NOT LIKE '%?%') FROM raw.report_files WHERE level = ?", [level]
    ).fetchone()
    assert files[0] == result.files and files[1] == result.rows[table] and files[2]
    # Each kind a report carries by its declaration (the day's user-teams report with the 1-day
    # user report, repos with the aggregate one) lands beside it, archived and counted; no other.
    assert set(result.carried) == set(carried_with(report))  # the emulator serves each of them
    for carried in (k for k in REPORT_KINDS if k.carried_by is not None):
        lines = conn.execute("SELECT sum(records) FROM raw.report_files WHERE level = ?", [carried.level]).fetchone()
        assert lines[0] == result.carried.get(carried)
        for t in tables(writer=carried.level):
            if carried in result.carried and t.name in result.rows:
                assert result.rows[t.name] == conn.execute(f"SELECT count(*) FROM {t.name}").fetchone()[0]
    sessions = conn.execute("SELECT count(session_count), count(*) FROM core.agent_activity").fetchone()
    if level == "user":
        assert sessions[0] == 0  # no session_count at user level: NULL, never 0
    else:
        assert sessions[0] == sessions[1]
    if kind == "28-day":
        assert sessions[1] > 0


def test_day_not_yet_available_is_not_a_failure(client, conn, tmp_path):
    for scope, name in (("organization", "acme"), ("enterprise", "acme-corp")):
        ref = ReportRef(scope, name, "1-day", "user", TODAY + timedelta(days=2))
        assert not ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path).available


def test_days_without_agent_array_have_no_agent_rows(client, conn, tmp_path):
    ingest_report(client=client, ref=ReportRef("organization", "acme", "28-day", "user"), conn=conn, raw_dir=tmp_path)
    absent, orphans = conn.execute(
        """SELECT count(*) FILTER (WHERE NOT agent_breakdown_present),
                  count(*) FILTER (WHERE NOT agent_breakdown_present AND EXISTS (
                      SELECT 1 FROM core.agent_activity a WHERE a.day = t.day AND a.user_id = t.user_id))
             FROM core.user_daily_totals t"""
    ).fetchone()
    assert absent > 0 and orphans == 0


def test_agent_rename_shows_new_label_and_keeps_both_names(client, conn, tmp_path):
    # The emulator renames the agent 30 days before today: the 28-day report is all after it.
    ingest_report(
        client=client, ref=ReportRef("organization", "acme", "28-day", "aggregate"), conn=conn, raw_dir=tmp_path
    )
    for back in range(31, 60):
        day = TODAY - timedelta(days=back)
        ingest_report(
            client=client, ref=ReportRef("organization", "acme", "1-day", "aggregate", day), conn=conn, raw_dir=tmp_path
        )
    assert conn.execute("SELECT agent_name FROM core.dim_agent WHERE agent_id = '1850471'").fetchall() == [
        ("Codex (OpenAI)",)
    ]
    names = conn.execute(
        "SELECT agent_name FROM core.agent_names WHERE agent_id = '1850471' ORDER BY first_seen_day"
    ).fetchall()
    assert names == [("Codex",), ("Codex (OpenAI)",)]


def test_late_finalizing_day_is_replaced_by_the_second_fetch(client, conn, tmp_path):
    ref = ReportRef("organization", "acme", "1-day", "aggregate", YESTERDAY)
    ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path)
    first = conn.execute("SELECT user_initiated_interaction_count FROM core.daily_totals").fetchall()
    ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path)
    second = conn.execute("SELECT user_initiated_interaction_count FROM core.daily_totals").fetchall()
    assert len(second) == 1 and second[0][0] > first[0][0]
    assert conn.execute("SELECT count(*) FROM raw.report_files WHERE level = 'aggregate'").fetchone()[0] == 1


def test_rerunning_a_report_three_times_leaves_identical_tables(client, conn, tmp_path):
    final_day = TODAY - timedelta(days=10)  # final: fetches return the same numbers
    refs = [ReportRef("organization", "acme", "1-day", level, final_day) for level in ("user", "aggregate")]
    states = []
    for _ in range(3):
        for ref in refs:
            ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path)
        states.append(_snapshot(conn))
    assert states[0] == states[1] == states[2]
    assert states[0]["core.user_daily_totals"]


def test_expired_links_are_refetched_and_nothing_lands_twice(emu, client, conn, tmp_path):
    ref = ReportRef("organization", "acme", "28-day", "user")
    # Links live 1 s; a slowed request answers after 2.1 s, so a slowed download meets an
    # expired link and the metadata must be fetched again for a fresh one.
    emu.set_faults(FaultSpec(link_ttl_seconds=1, slow_rate=0.3, slow_ms=2100, seed=4))
    result = ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path / "b")
    emu.set_faults(FaultSpec())
    assert result.restarts > 0
    total, distinct = conn.execute(
        "SELECT count(*), count(DISTINCT (day, user_id)) FROM core.user_daily_totals"
    ).fetchone()
    assert total == distinct == 28 * 12
    assert conn.execute("SELECT sum(records) FROM raw.report_files").fetchone()[0] == total


def test_truncated_downloads_are_fetched_again_never_half_landed(emu, client, conn, tmp_path):
    ref = ReportRef("organization", "acme", "28-day", "user")
    emu.set_faults(FaultSpec(truncate_rate=0.4, seed=3))
    result = ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path)
    assert result.restarts > 0
    emu.set_faults(FaultSpec())
    total, distinct = conn.execute(
        "SELECT count(*), count(DISTINCT (day, user_id)) FROM core.user_daily_totals"
    ).fetchone()
    assert total == distinct == 28 * 12
    assert conn.execute("SELECT sum(records) FROM raw.report_files").fetchone()[0] == total


def _archived(raw_dir: Path) -> set[str]:
    return {str(path) for path in raw_dir.rglob("*.ndjson.zst")}


def _named(conn) -> set[str]:
    return {path for (path,) in conn.execute("SELECT archive_path FROM raw.report_files").fetchall()}


def test_a_refetch_that_fails_keeps_the_files_the_rows_name_and_one_that_lands_removes_them(
    emu, client, conn, tmp_path
):
    ref = ReportRef("organization", "acme", "1-day", "user", YESTERDAY)  # grows on every fetch
    raw_dir = tmp_path / "raw"
    ingest_report(client=client, ref=ref, conn=conn, raw_dir=raw_dir)
    kept = _named(conn)
    assert kept and _archived(raw_dir) == kept
    emu.set_faults(FaultSpec(truncate_rate=1.0, seed=1))  # every download cut: the landing rolls back
    with pytest.raises(DownloadGaveUp):
        ingest_report(client=client, ref=ref, conn=conn, raw_dir=raw_dir)
    emu.set_faults(FaultSpec())
    assert _named(conn) == kept and _archived(raw_dir) == kept  # the only copy stays; nothing of its own
    ingest_report(client=client, ref=ref, conn=conn, raw_dir=raw_dir)
    assert _named(conn) != kept  # other bytes, other names
    assert _archived(raw_dir) == _named(conn)


@pytest.fixture
def bad_report_file(tmp_path: Path) -> Path:
    path = write_report_file(tmp_path / "report.ndjson", seed=3, users=30, day=YESTERDAY)
    lines = path.read_bytes().splitlines()
    record = json.loads(lines[4])
    lines[4] = lines[4][:-7]  # malformed JSON
    lines[9] = json.dumps({k: v for k, v in json.loads(lines[9]).items() if k != "day"}).encode()
    lines[14] = json.dumps(record | {"user_id": 9999, "loc_added_sum": -3}).encode()
    lines[19] = json.dumps(record | {"user_id": "9998"}).encode()  # a key of the wrong type
    lines[24] = json.dumps(record | {"user_id": 9997, "loc_added_sum": "many"}).encode()  # lands, NULL
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_malformed_lines_are_quarantined_and_good_lines_land(tmp_path, bad_report_file, conn):
    from emulator import running_emulator
    from pipelines.service import ServiceClient

    config = EmulatorConfig(
        seed=3, users=30, today=TODAY, report_file=bad_report_file, report_file_day=YESTERDAY, user_lines_per_file=12
    )
    with running_emulator(config) as emu, ServiceClient(config=settings_for(emu).service_config()) as client:
        result = ingest_report(
            client=client,
            ref=ReportRef("organization", "acme", "1-day", "user", YESTERDAY),
            conn=conn,
            raw_dir=tmp_path / "raw",
            batch_rows=8,
        )
    rows = conn.execute(
        "SELECT line_number, reason, file_index FROM raw.quarantine ORDER BY file_index, line_number"
    ).fetchall()
    assert [(r[2] * 12 + r[0]) for r in rows] == [5, 10, 15, 20]
    reasons = [r[1] for r in rows]
    assert reasons[0].startswith("malformed JSON") and reasons[1] == "missing day"
    assert reasons[2] == "negative count" and "field user_id" in reasons[3]
    assert result.quarantined == 4
    assert conn.execute("SELECT count(*) FROM core.user_daily_totals").fetchone()[0] == 30 - 4
    assert conn.execute("SELECT sum(quarantined) FROM raw.report_files").fetchone()[0] == 4
    # A count of the wrong type outside the key: the line lands, the count NULL, its value in extra.
    assert conn.execute(
        "SELECT loc_added_sum, extra->>'loc_added_sum' FROM core.user_daily_totals WHERE user_id = 9997"
    ).fetchall() == [(None, "many")]
    assert result.drift == {"loc_added_sum": ("mistyped", 1)}


def test_a_failure_while_parsing_rolls_back_to_the_previous_state(client, conn, tmp_path, monkeypatch):
    import threading

    import pipelines.ingest._pipeline as stages

    ref = ReportRef("organization", "acme", "28-day", "user")
    ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path)
    before = _snapshot(conn)
    calls = []

    def fail_on_the_second_segment(records, prov):
        calls.append(1)
        if len(calls) == 2:
            raise ValueError("transform broke")
        return transform(records, prov)

    transform = stages.transform_records
    monkeypatch.setattr(stages, "transform_records", fail_on_the_second_segment)
    with pytest.raises(ValueError, match="transform broke"):
        ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path, batch_rows=50)
    assert _snapshot(conn) == before
    assert before["core.user_daily_totals"]
    assert not [t for t in threading.enumerate() if t.name.startswith("report-")]


def test_a_stage_that_dies_without_a_word_fails_the_ingest_instead_of_hanging(client, conn, tmp_path, monkeypatch):
    import pipelines.ingest._pipeline as stages
    from pipelines.ingest import IngestError

    monkeypatch.setattr(stages._ParseWorker, "run", lambda self: None)
    with pytest.raises(IngestError, match="report-parse stage stopped without finishing"):
        ingest_report(
            client=client,
            ref=ReportRef("organization", "acme", "1-day", "user", YESTERDAY),
            conn=conn,
            raw_dir=tmp_path,
        )


def test_an_ingest_removes_part_files_of_killed_runs_and_keeps_those_of_live_ones(client, conn, tmp_path):
    import subprocess
    import sys

    raw_dir = tmp_path / "raw"
    killed = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as running:
        try:
            left = raw_dir / "organization" / "acme" / "user-1-day" / "2026-11-01_2026-11-01"
            left.mkdir(parents=True)
            dead_parts = [left / f".0000.{int(killed.stdout)}.part", left / f".0001.{int(killed.stdout)}.part"]
            live_part = left / f".0000.{running.pid}.part"
            for path in (*dead_parts, live_part):
                path.write_bytes(b"half an archive")
            ingest_report(
                client=client,
                ref=ReportRef("organization", "acme", "1-day", "user", YESTERDAY),
                conn=conn,
                raw_dir=raw_dir,
            )
            assert [p.exists() for p in dead_parts] == [False, False]
            assert live_part.read_bytes() == b"half an archive"
        finally:
            running.kill()
    assert not [p for p in raw_dir.rglob("*.part") if p != live_part]
