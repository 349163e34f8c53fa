"""A vendor's fetches through the archive into its tables, on the documented examples: finality
on the vendor's clock, a day fetched again replaced, a final day never asked again, a refused
key one line, erased people left out, lines that cannot land in quarantine."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest
import zstandard

from pipelines.ingest.vendors import ingest_vendor
from pipelines.warehouse import migrate
from pipelines.warehouse.erasure import Forgotten
from pipelines.warehouse.people import Person, person_hashes
from tests.unit.vendors._answers import CLAUDE_RECORD, CURSOR_DAY, CURSOR_MEMBERS, CURSOR_SPEND, answer, client

DAY = date(2025, 8, 8)
PROVISIONAL = "Sat, 09 Aug 2025 10:00:00 GMT"  # the day after: the day still grows
FINAL = "Mon, 11 Aug 2025 10:00:00 GMT"


@pytest.fixture
def conn(tmp_path: Path):
    c = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(c)
    yield c
    c.close()


def _claude(records: list[dict[str, Any]], served: str, asked: list[str] | None = None):
    def handler(request: httpx.Request) -> httpx.Response:
        if asked is not None:
            asked.append(request.url.params["starting_at"])
        return answer({"data": records, "has_more": False, "next_page": None}, headers={"date": served})

    return client("claude_code", handler)


def _one(conn: duckdb.DuckDBPyConnection, sql: str) -> Any:
    return conn.execute(sql).fetchall()


def test_a_claude_code_day_lands_archived_provisional_then_replaced_when_final(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    raw = tmp_path / "raw"
    with _claude([CLAUDE_RECORD], PROVISIONAL) as c:
        first = ingest_vendor(c, conn, days=[DAY], raw_dir=raw, say=pytest.fail)
    assert first.rows == {"vendors.claude_code_days": 1, "vendors.claude_code_models": 2} and first.final_days == 0
    assert _one(conn, "SELECT num_sessions, is_final FROM vendors.claude_code_days") == [(15, False)]
    ((path, records),) = _one(conn, "SELECT archive_path, records FROM raw.report_files WHERE level = 'vendor'")
    archived = zstandard.ZstdDecompressor().decompressobj().decompress(Path(path).read_bytes())
    assert json.loads(archived) == CLAUDE_RECORD and records == 1

    grown = {**CLAUDE_RECORD, "core_metrics": {**CLAUDE_RECORD["core_metrics"], "num_sessions": 17}}
    with _claude([grown], FINAL) as c:
        again = ingest_vendor(c, conn, days=[DAY], raw_dir=raw, say=pytest.fail)
    assert again.final_days == 1
    assert _one(conn, "SELECT num_sessions, is_final FROM vendors.claude_code_days") == [(17, True)]
    assert _one(conn, "SELECT count(*) FROM vendors.claude_code_models") == [(2,)]
    ((new_path,),) = _one(conn, "SELECT archive_path FROM raw.report_files WHERE level = 'vendor'")
    assert not Path(path).exists() and Path(new_path).exists()  # the superseded file went

    asked: list[str] = []
    with _claude([grown], FINAL, asked) as c:
        ingest_vendor(c, conn, days=[DAY], raw_dir=raw, say=pytest.fail)
    assert asked == []  # a final day is never asked again
    with _claude([grown], FINAL, asked) as c:
        ingest_vendor(c, conn, days=[DAY], raw_dir=raw, refetch=True, say=pytest.fail)
    assert asked == ["2025-08-08"]
    assert _one(conn, "SELECT count(*) FROM vendors.claude_code_days") == [(1,)]  # re-run: the same rows


def test_an_answer_without_a_date_leaves_its_day_open(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    handler = lambda r: httpx.Response(200, json={"data": [CLAUDE_RECORD], "has_more": False})  # noqa: E731
    with client("claude_code", handler) as c:
        ingest_vendor(c, conn, days=[DAY], raw_dir=tmp_path, say=pytest.fail)
    assert _one(conn, "SELECT is_final FROM vendors.claude_code_days") == [(False,)]


def test_a_refused_key_is_one_line_recorded_denied_and_lands_nothing(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    said: list[str] = []
    refusal = answer({"error": "Unauthorized", "message": "Invalid API key"}, 401)
    with client("cursor", lambda r: refusal) as c:
        result = ingest_vendor(c, conn, days=[DAY], raw_dir=tmp_path, say=said.append)
    assert result.status == "denied" and said == [result.line]
    assert said[0].startswith("Cursor (Cursor Admin API): the key in CURSOR_KEY was refused (401 Invalid API key)")
    assert _one(conn, "SELECT vendor, endpoint, status FROM vendors.fetches") == [("cursor", "*", "denied")]
    assert _one(conn, "SELECT count(*) FROM vendors.cursor_days") == [(0,)]


def test_cursor_lands_members_daily_usage_and_spend(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    day = date(2024, 3, 18)

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/teams/members"):
            return answer(CURSOR_MEMBERS)
        if path.endswith("/teams/daily-usage-data"):
            return answer({"data": [CURSOR_DAY], "period": json.loads(request.content)})
        return answer(CURSOR_SPEND)

    with client("cursor", handler) as c:
        result = ingest_vendor(c, conn, days=[day], raw_dir=tmp_path, say=pytest.fail)
    assert result.rows == {"vendors.cursor_members": 2, "vendors.cursor_days": 1, "vendors.cursor_spend": 2}
    assert _one(conn, "SELECT day, email, user_id FROM vendors.cursor_days") == [
        (day, "developer@company.com", "12345")
    ]
    assert _one(conn, "SELECT DISTINCT cycle_start FROM vendors.cursor_spend") == [(date(2024, 2, 27),)]
    assert _one(conn, "SELECT count(*) FROM raw.field_drift WHERE level = 'vendor'") == [(0,)]


def test_erased_people_are_left_out_and_lines_that_cannot_land_are_quarantined(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    key = b"k"
    forgotten = Forgotten(key, frozenset(person_hashes(key, Person(None, None, ("user@emaildomain.com",)))))
    other = {**CLAUDE_RECORD, "actor": {"type": "user_actor", "email_address": "dev@example.com"}, "new_field": 1}
    nobody = {**CLAUDE_RECORD, "actor": {"type": "user_actor"}}
    with _claude([CLAUDE_RECORD, other, nobody], PROVISIONAL) as c:
        result = ingest_vendor(c, conn, days=[DAY], raw_dir=tmp_path, forgotten=forgotten, say=pytest.fail)
    assert (result.left_out, result.quarantined, result.drift) == (1, 1, ["claude_code: new_field"])
    assert _one(conn, "SELECT actor FROM vendors.claude_code_days") == [("dev@example.com",)]
    ((number, reason),) = _one(conn, "SELECT line_number, reason FROM raw.quarantine")
    assert (number, reason) == (2, "no actor.email_address nor actor.api_key_name: it names no one")
    ((path,),) = _one(conn, "SELECT archive_path FROM raw.report_files")
    assert b"user@emaildomain.com" not in zstandard.ZstdDecompressor().decompressobj().decompress(
        Path(path).read_bytes()
    )
    assert _one(conn, "SELECT path, drift FROM raw.field_drift") == [("new_field", "undeclared")]
