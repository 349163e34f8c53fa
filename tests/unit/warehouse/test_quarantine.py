"""`metrics-etl quarantine list | show | clear` in-process, on a real DuckDB file whose
quarantined lines were landed the way the ingest lands them (land_report)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import polars as pl
import pytest
import zstandard

from pipelines.cli import main
from pipelines.service import ReportRef
from pipelines.warehouse import ReportSlice, land_report, migrate

NOV_1 = date(2026, 11, 1)
NOV_2 = date(2026, 11, 2)
ORG_USER_NOV_1 = ReportSlice(ReportRef("organization", "acme", "1-day", "user", NOV_1), NOV_1, NOV_1)
ORG_AGGREGATE_NOV_2 = ReportSlice(ReportRef("organization", "acme", "1-day", "aggregate", NOV_2), NOV_2, NOV_2)
ORG_28_DAYS = ReportSlice(ReportRef("organization", "acme", "28-day", "user"), date(2026, 10, 6), NOV_2)
ENTERPRISE_NOV_1 = ReportSlice(ReportRef("enterprise", "acme-corp", "1-day", "user", NOV_1), NOV_1, NOV_1)
LONG_REASON = "field loc_added_sum: expected Int64, got str 'many' " + "x" * 200


def _rejects(
    key: ReportSlice, *, file_index: int, archive: Path, lines: list[tuple[int, str, str | None]]
) -> pl.DataFrame:
    n = len(lines)
    return pl.DataFrame(
        {
            "scope": [key.ref.scope] * n,
            "scope_name": [key.ref.scope_name] * n,
            "report_kind": [key.ref.kind] * n,
            "level": [key.ref.level] * n,
            "report_start_day": [key.start_day] * n,
            "report_end_day": [key.end_day] * n,
            "file_index": [file_index] * n,
            "archive_path": [str(archive)] * n,
            "link": ["https://files.example/report/0003.ndjson"] * n,
            "line_number": [line for line, _, _ in lines],
            "reason": [reason for _, reason, _ in lines],
            "line_text": [text for _, _, text in lines],
            "fetched_at": [datetime(2026, 11, 3, 6, 0, tzinfo=UTC)] * n,
        },
        schema_overrides={
            "file_index": pl.Int32(),
            "line_number": pl.Int64(),
            "line_text": pl.String(),
            "fetched_at": pl.Datetime("us", "UTC"),
        },
    )


def _archive(path: Path, lines: list[str]) -> Path:
    """A zstd archive of a report file, as the ingest keeps it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(zstandard.ZstdCompressor().compress("".join(line + "\n" for line in lines).encode()))
    return path


def _land(path: Path, key: ReportSlice, *, file_index: int = 0, lines: list[tuple[int, str, str | None]]) -> None:
    archive = (
        path.parent
        / "raw"
        / key.ref.scope
        / key.ref.level
        / f"{key.start_day}_{key.end_day}"
        / f"{file_index:04d}-abc.ndjson.zst"
    )
    texts = {line: text or "" for line, _, text in lines}
    _archive(archive, [texts.get(n, '{"good": true}') for n in range(1, max(texts, default=0) + 2)])
    with duckdb.connect(str(path)) as conn:
        migrate(conn)
        with land_report(conn, key) as landing:
            landing.insert(
                table="quarantine",
                frame=_rejects(key, file_index=file_index, archive=archive, lines=lines),
                file_index=file_index,
            )


@pytest.fixture
def warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A warehouse with five open lines in four reports of two scopes; WAREHOUSE_PATH names it."""
    monkeypatch.chdir(tmp_path)  # no stray .env
    path = tmp_path / "w.duckdb"
    monkeypatch.setenv("WAREHOUSE_PATH", str(path))
    _land(
        path,
        ORG_USER_NOV_1,
        file_index=3,
        lines=[
            (5, "malformed JSON: unexpected end", '{"day": "2026-11-01", "us'),
            (9, LONG_REASON, '{"loc_added_sum": "many"}'),
        ],
    )
    _land(path, ORG_AGGREGATE_NOV_2, lines=[(1, "missing day", "{}")])
    _land(path, ORG_28_DAYS, lines=[(2, "enterprise_id 7 is not acme's", '{"enterprise_id": 7}')])
    _land(path, ENTERPRISE_NOV_1, lines=[(4, "the file is gzip-compressed", None)])
    return path


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], list[str]]:
    code = main(["quarantine", *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return code, captured.out.strip().splitlines(), captured.err.strip().splitlines()


def _keys(out: list[str]) -> list[str]:
    return [line.split()[0] for line in out[:-1]]


def test_list_shows_open_lines_newest_reports_first_with_a_key_a_short_reason_and_a_count(warehouse, capsys):
    code, out, err = _cli(capsys, "list")
    assert code == 0 and err == []
    assert _keys(out) == [
        "organization/acme/aggregate/2026-11-02/0000:1",
        "organization/acme/user/2026-10-06..2026-11-02/0000:2",
        "enterprise/acme-corp/user/2026-11-01/0000:4",
        "organization/acme/user/2026-11-01/0003:5",
        "organization/acme/user/2026-11-01/0003:9",
    ]
    assert out[0].endswith("  missing day")
    assert max(len(line) for line in out[:-1]) < 160 and out[-2].endswith("…")  # the long reason is cut
    assert out[-1].startswith("5 open lines")


def test_list_by_day_takes_the_reports_covering_it_and_by_scope_name_one_scope(warehouse, capsys):
    assert _keys(_cli(capsys, "list", "--day", "2026-10-20")[1]) == [
        "organization/acme/user/2026-10-06..2026-11-02/0000:2"
    ]
    _, out, _ = _cli(capsys, "list", "--day", "2026-11-01", "--scope-name", "ACME")
    assert _keys(out) == [
        "organization/acme/user/2026-10-06..2026-11-02/0000:2",
        "organization/acme/user/2026-11-01/0003:5",
        "organization/acme/user/2026-11-01/0003:9",
    ]
    _, out, _ = _cli(capsys, "list", "--from", "2026-11-02", "--to", "2026-11-30")
    assert len(_keys(out)) == 2 and out[-1].startswith("2 open lines")
    code, out, _ = _cli(capsys, "list", "--day", "2026-09-01")
    assert code == 0 and out == ["0 open lines"]


def test_show_prints_every_field_the_stored_text_and_a_command_that_prints_the_whole_line(warehouse, capsys):
    code, out, _ = _cli(capsys, "show", "organization/acme/user/2026-11-01/0003:5")
    assert code == 0
    text = "\n".join(out)
    for expected in (
        "status       open",
        "report       organization acme, user level, 1-day report of 2026-11-01",
        "file         0003, fetched 2026-11-03 06:00:00 UTC from https://files.example/report/0003.ndjson",
        "line         5",
        "reason       malformed JSON: unexpected end",
        "0003-abc.ndjson.zst",
    ):
        assert expected in text, expected
    assert out[-1] == '{"day": "2026-11-01", "us'
    (command,) = [line.removeprefix("whole line").strip() for line in out if line.startswith("whole line")]
    assert command.startswith("zstd -dc ") and command.endswith(" | sed -n '5p'")
    if shutil.which("zstd"):
        printed = subprocess.run(command, shell=True, capture_output=True, text=True, check=True).stdout
        assert printed == '{"day": "2026-11-01", "us\n'


def test_show_of_a_line_without_text_points_at_the_archive(warehouse, capsys):
    code, out, _ = _cli(capsys, "show", "enterprise/acme-corp/user/2026-11-01/0000:4")
    assert code == 0 and out[-1].startswith("text         not kept")


def test_show_escapes_control_characters_of_the_line_so_a_terminal_never_acts_on_them(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WAREHOUSE_PATH", str(tmp_path / "w.duckdb"))
    _land(tmp_path / "w.duckdb", ORG_USER_NOV_1, lines=[(2, "malformed JSON", '{"note": "\x1b[2J\x07"')])
    code, out, _ = _cli(capsys, "show", "organization/acme/user/2026-11-01/0000:2")
    assert code == 0 and out[-1] == '{"note": "\\x1b[2J\\x07"'


def test_clear_by_key_records_the_note_and_list_all_marks_the_line_cleared(warehouse, capsys):
    key = "organization/acme/user/2026-11-01/0003:5"
    code, out, _ = _cli(capsys, "clear", key, "--note", "platform bug PLAT-42, accepted")
    assert code == 0 and out[0].startswith("cleared 1 line.")
    assert key not in _keys(_cli(capsys, "list")[1])
    _, out, _ = _cli(capsys, "list", "--all")
    (line,) = [line for line in out if line.startswith(key)]
    assert "[cleared] malformed JSON" in line and out[-1].startswith("4 open lines, 1 cleared")
    _, out, _ = _cli(capsys, "show", key)
    (status,) = [line for line in out if line.startswith("status")]
    assert status.startswith("status       cleared 20") and status.endswith(" UTC: platform bug PLAT-42, accepted")
    code, out, _ = _cli(capsys, "clear", key, "--note", "again")
    assert code == 0 and out[0].startswith("cleared 0 lines; 1 cleared before, left as they were")


def test_clear_by_day_clears_what_list_shows_with_the_same_options(warehouse, capsys):
    _, listed, _ = _cli(capsys, "list", "--day", "2026-11-01", "--scope-name", "acme")
    code, out, _ = _cli(capsys, "clear", "--day", "2026-11-01", "--scope-name", "acme", "--note", "known bad export")
    assert code == 0 and out[0].startswith(f"cleared {len(listed) - 1} lines.")
    assert _keys(_cli(capsys, "list")[1]) == [
        "organization/acme/aggregate/2026-11-02/0000:1",
        "enterprise/acme-corp/user/2026-11-01/0000:4",
    ]
    code, _, err = _cli(capsys, "clear", "--day", "2026-09-01", "--note", "nothing there")
    assert code == 1 and err[0].startswith("metrics-etl quarantine clear: no quarantined line in that selection")


@pytest.mark.parametrize(
    "args, says",
    [
        (["--note", "why"], "name the lines to clear"),
        (["--scope-name", "acme", "--note", "why"], "name the lines to clear"),
        (["organization/acme/user/2026-11-01/0003:5"], "--note TEXT is required"),
        (["organization/acme/user/2026-11-01/0003:5", "--note", "  "], "--note TEXT is required"),
        (["organization/acme/user/2026-11-01/0003:5", "--day", "2026-11-01", "--note", "why"], "not both"),
        (["--to", "2026-11-01", "--note", "why"], "--to needs --from"),
        (["--from", "2026-11-02", "--to", "2026-11-01", "--note", "why"], "is after --to"),
        (["acme/2026-11-01:5", "--note", "why"], "is not a quarantine key"),
    ],
)
def test_clear_refuses_in_one_line_without_a_selection_or_a_note(warehouse, capsys, args, says):
    code, out, err = _cli(capsys, "clear", *args)
    assert code == 2 and out == []
    (line,) = err
    assert line.startswith("metrics-etl quarantine clear: ") and says in line
    assert _cli(capsys, "list")[1][-1].startswith("5 open lines")


def test_a_key_that_matches_nothing_fails_naming_it_and_clears_nothing(warehouse, capsys):
    good, typo = "organization/acme/user/2026-11-01/0003:5", "organization/acme/user/2026-11-01/0003:6"
    code, _, err = _cli(capsys, "clear", good, typo, "--note", "accepted")
    assert code == 1 and len(err) == 1 and typo in err[0] and good not in err[0] and "nothing cleared" in err[0]
    assert good in _keys(_cli(capsys, "list")[1])
    code, _, err = _cli(capsys, "show", typo)
    assert code == 1 and len(err) == 1
    assert err[0] == (
        f"metrics-etl quarantine show: no quarantined line has key {typo}"
        " (`metrics-etl quarantine list --all` prints the keys)"
    )


@pytest.mark.parametrize(
    "args",
    [["list"], ["show", "organization/acme/user/2026-11-01/0003:5"], ["clear", "--day", "2026-11-01", "--note", "why"]],
)
def test_a_missing_warehouse_says_nothing_landed_yet_and_is_not_created(tmp_path, monkeypatch, capsys, args):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "data" / "warehouse.duckdb"
    monkeypatch.setenv("WAREHOUSE_PATH", str(path))
    code, out, err = _cli(capsys, *args)
    assert code == 1 and out == []
    assert err == [f"metrics-etl quarantine {args[0]}: nothing landed yet ({path} does not exist)"]
    assert not path.exists()


def test_a_warehouse_held_by_a_running_pipeline_says_to_retry_when_the_run_ends(warehouse, capsys):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb, time; c = duckdb.connect({str(warehouse)!r}); print('held', flush=True); time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        results = [_cli(capsys, "list"), _cli(capsys, "clear", "--day", "2026-11-01", "--note", "why")]
    finally:
        holder.kill()
        holder.wait()
    for (code, out, err), command in zip(results, ("list", "clear"), strict=True):
        assert code == 1 and out == [] and len(err) == 1
        assert err[0].startswith(
            f"metrics-etl quarantine {command}: another process holds the warehouse open for writing"
        )
        assert "retry when that run ends" in err[0]


def test_a_warehouse_from_before_the_review_columns_lists_every_line_open_and_clear_migrates_it(warehouse, capsys):
    with duckdb.connect(str(warehouse)) as conn:
        conn.execute("ALTER TABLE raw.quarantine DROP COLUMN cleared_at")
        conn.execute("ALTER TABLE raw.quarantine DROP COLUMN cleared_note")
        conn.execute("DELETE FROM meta.schema_migrations WHERE version = 27")
    code, out, _ = _cli(capsys, "list", "--all")
    assert code == 0 and out[-1].startswith("5 open lines, 0 cleared")
    with duckdb.connect(str(warehouse), read_only=True) as conn:  # list changed nothing
        assert "cleared_at" not in {r[0] for r in conn.execute("DESCRIBE raw.quarantine").fetchall()}
    code, out, _ = _cli(capsys, "clear", "enterprise/acme-corp/user/2026-11-01/0000:4", "--note", "gzip by mistake")
    assert code == 0 and out[0].startswith("cleared 1 line.")
    assert _cli(capsys, "list")[1][-1].startswith("4 open lines")
