"""A quarantined line a person clears (`metrics-etl quarantine clear`) stays cleared when the
emulator serves the same report again over loopback; a new bad line of it is open."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from emulator.reportfile import write_report_file
from pipelines.cli import main
from pipelines.ingest import ingest_report
from pipelines.service import ReportRef, ServiceClient
from pipelines.warehouse import migrate
from tests._emulator import settings_for
from tests.integration.ingest.conftest import FAST_RETRY, TODAY

YESTERDAY = TODAY - timedelta(days=1)
REF = ReportRef("organization", "acme", "1-day", "user", YESTERDAY)


def _served(tmp_path: Path, name: str, *, broken: dict[int, bytes]) -> Path:
    """The organization's user-level report of YESTERDAY with some lines (0-based) replaced."""
    path = write_report_file(tmp_path / name, seed=3, users=30, day=YESTERDAY)
    lines = path.read_bytes().splitlines()
    for index, text in broken.items():
        lines[index] = text
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def _ingest(served: Path, warehouse: Path, raw_dir: Path) -> int:
    """One fetch of the report from an emulator serving `served`; its count of quarantined lines."""
    config = EmulatorConfig(
        seed=3, users=30, today=TODAY, report_file=served, report_file_day=YESTERDAY, user_lines_per_file=12
    )
    with (
        running_emulator(config) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
        duckdb.connect(str(warehouse)) as conn,
    ):
        migrate(conn)
        return ingest_report(client=client, ref=REF, conn=conn, raw_dir=raw_dir).quarantined


def _quarantine(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    assert main(["quarantine", *args]) == 0
    return capsys.readouterr().out.strip().splitlines()


def test_a_cleared_line_stays_cleared_when_its_day_is_fetched_again(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    warehouse, raw_dir = tmp_path / "w.duckdb", tmp_path / "raw"
    monkeypatch.setenv("WAREHOUSE_PATH", str(warehouse))
    truncated = (
        write_report_file(tmp_path / "good.ndjson", seed=3, users=30, day=YESTERDAY).read_bytes().splitlines()[4][:-7]
    )
    same = _served(tmp_path, "same.ndjson", broken={4: truncated})

    assert _ingest(same, warehouse, raw_dir) == 1
    listed = _quarantine(capsys, "list")
    key = f"organization/acme/user/{YESTERDAY}/0000:5"  # line 5 is the first file's 5th (12 lines a file)
    assert listed[0].startswith(f"{key}  malformed JSON") and listed[-1].startswith("1 open line ")
    assert _quarantine(capsys, "clear", key, "--note", "the platform serves it cut; ticket PLAT-7")[0].startswith(
        "cleared 1 line."
    )

    # The platform still serves the same broken line: the fetch quarantines it again, and it stays cleared.
    assert _ingest(same, warehouse, raw_dir) == 1
    assert _quarantine(capsys, "list") == ["0 open lines"]
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        rows = conn.execute("SELECT line_number, cleared_note FROM raw.quarantine").fetchall()
    assert rows == [(5, "the platform serves it cut; ticket PLAT-7")]

    # A different bad line in a later fetch is open; the cleared one stays cleared.
    record = json.loads(
        write_report_file(tmp_path / "good.ndjson", seed=3, users=30, day=YESTERDAY).read_bytes().splitlines()[9]
    )
    missing_day = json.dumps({k: v for k, v in record.items() if k != "day"}).encode()
    assert _ingest(_served(tmp_path, "new.ndjson", broken={4: truncated, 9: missing_day}), warehouse, raw_dir) == 2
    listed = _quarantine(capsys, "list", "--all")
    assert [line.split()[:2] for line in listed[:2]] == [
        [key, "[cleared]"],
        [f"organization/acme/user/{YESTERDAY}/0000:10", "missing"],
    ]
    assert listed[-1].startswith("1 open line, 1 cleared")
    # Served again at its place in a file of other bytes: the cleared line points at that file,
    # the one it pointed at went with the row it replaced (pipelines/ingest/archive_files.py).
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        (archived,) = conn.execute("SELECT archive_path FROM raw.quarantine WHERE cleared_at IS NOT NULL").fetchone()
        files = {path for (path,) in conn.execute("SELECT archive_path FROM raw.report_files").fetchall()}
    assert archived in files and Path(archived).is_file()
    assert {str(p) for p in raw_dir.rglob("*.ndjson.zst")} == files
