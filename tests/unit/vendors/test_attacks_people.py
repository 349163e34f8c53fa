"""Attacks on the vendor guarantees from docs/vendors.md about people and figures: an email's
spellings and look-alikes, a vendor id equal to a service id, `forget` and a later fetch, a
provisional day replaced, figures served against figures landed, retention. A strict xfail is a
break still open; an unmarked test is an attack that held."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest
import zstandard

from pipelines.ingest.vendors import VendorResult, ingest_vendor
from pipelines.privacy import apply_retention
from pipelines.privacy.forget import Places, forget
from pipelines.warehouse import migrate
from pipelines.warehouse.erasure import load_forgotten
from tests.unit.vendors._answers import CLAUDE_RECORD, CURSOR_DAY, CURSOR_MEMBERS, CURSOR_SPEND, answer, client

KEY = "a-test-pseudonym-key-of-some-length"
DAY = date(2024, 3, 18)
ALEX = "developer@company.com"
PROVISIONAL = "Tue, 19 Mar 2024 10:00:00 GMT"
FINAL = "Fri, 22 Mar 2024 10:00:00 GMT"
VENDOR_TABLES = ("claude_code_days", "claude_code_models", "cursor_days", "cursor_spend", "cursor_members")


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(c)
    yield c
    c.close()


def _claude(email: str, **core: int) -> dict[str, Any]:
    metrics = {**CLAUDE_RECORD["core_metrics"], **core}
    return {
        **CLAUDE_RECORD,
        "date": "2024-03-18T00:00:00Z",
        "actor": {"type": "user_actor", "email_address": email},
        "core_metrics": metrics,
    }


def _land_claude(
    conn: duckdb.DuckDBPyConnection, raw: Path, pages: list[dict[str, Any]], served: str = PROVISIONAL
) -> VendorResult:
    by_cursor = {None if i == 0 else f"page_{i}": page for i, page in enumerate(pages)}
    handler = lambda r: answer(by_cursor[r.url.params.get("page")], headers={"date": served})  # noqa: E731
    with client("claude_code", handler) as c:
        forgotten = load_forgotten(conn, KEY)
        return ingest_vendor(c, conn, days=[DAY], raw_dir=raw, forgotten=forgotten, refetch=True, say=pytest.fail)


def _page(records: list[dict[str, Any]], after: str | None = None) -> dict[str, Any]:
    return {"data": records, "has_more": after is not None, "next_page": after}


def _land_cursor(conn: duckdb.DuckDBPyConnection, raw: Path, days: list[dict[str, Any]]) -> VendorResult:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/teams/members"):
            return answer(CURSOR_MEMBERS)
        if request.url.path.endswith("/teams/daily-usage-data"):
            return answer({"data": days, "period": json.loads(request.content)})
        return answer(CURSOR_SPEND)

    with client("cursor", handler) as c:
        forgotten = load_forgotten(conn, KEY)
        return ingest_vendor(c, conn, days=[DAY], raw_dir=raw, forgotten=forgotten, refetch=True, say=pytest.fail)


def _places(tmp_path: Path) -> Places:
    return Places(tmp_path / "raw", tmp_path / "spool", None, tmp_path / "lake", tmp_path / "serving.duckdb", 5)


def _archived(conn: duckdb.DuckDBPyConnection) -> str:
    out = b""
    for (path,) in conn.execute("SELECT archive_path FROM raw.report_files ORDER BY 1").fetchall():
        out += zstandard.ZstdDecompressor().decompressobj().decompress(Path(path).read_bytes())
    # each record as text, unicode unescaped: a look-alike is archived as \u0435
    return "\n".join(json.dumps(json.loads(line), ensure_ascii=False) for line in out.decode().splitlines())


def _rows_naming(conn: duckdb.DuckDBPyConnection, text: str) -> int:
    """Rows of every vendor table with `text` in any column, whatever its case and spaces."""
    total = 0
    for table in VENDOR_TABLES:
        sql = f"SELECT count(*) FROM vendors.{table} AS t WHERE lower(CAST(t AS VARCHAR)) LIKE ?"
        total += conn.execute(sql, [f"%{text.lower()}%"]).fetchone()[0]  # type: ignore[index]
    return total


@pytest.mark.parametrize(
    "spelling",
    [
        "Dev@Example.COM",
        " dev@example.com ",
        "dev@example.com\t",
    ],
)
def test_a_claude_code_email_of_any_case_or_spaces_lands_as_its_lower_case_person(
    spelling: str, conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    _land_claude(conn, tmp_path / "raw", [_page([_claude(spelling)])])
    assert conn.execute("SELECT actor FROM vendors.claude_code_days").fetchall() == [("dev@example.com",)]


def test_two_spellings_of_one_claude_code_email_on_a_day_are_one_row_and_a_repeat_in_quarantine(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    result = _land_claude(conn, tmp_path / "raw", [_page([_claude("dev@example.com"), _claude("DEV@example.com")])])
    assert conn.execute("SELECT count(*) FROM vendors.claude_code_days").fetchone() == (1,)
    assert result.quarantined == 1


@pytest.mark.parametrize(
    "spelling",
    [
        "Developer@Company.COM",
        " developer@company.com",
    ],
)
def test_forget_by_email_reaches_every_spelling_of_it_in_every_vendor(
    spelling: str, conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    _land_cursor(conn, tmp_path / "raw", [{**CURSOR_DAY, "day": "2024-03-18", "email": spelling}])
    _land_claude(conn, tmp_path / "raw", [_page([_claude(spelling)])])
    forget(conn, ALEX, key=KEY, places=_places(tmp_path))
    assert _rows_naming(conn, ALEX) == 0
    assert ALEX not in _archived(conn).lower()


@pytest.mark.parametrize(
    "spelling",
    [
        "DEVELOPER@company.com",
        " developer@company.com\t",
    ],
)
def test_a_forgotten_email_under_another_spelling_is_left_out_of_later_fetches(
    spelling: str, conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    forget(conn, ALEX, key=KEY, places=_places(tmp_path))
    result = _land_claude(conn, tmp_path / "raw", [_page([_claude(spelling), _claude("admin@company.com")])])
    assert result.left_out == 1 and _rows_naming(conn, ALEX) == 0
    assert ALEX not in _archived(conn).lower()


@pytest.mark.parametrize(
    "other",
    ["d\u0435v@example.com", "adev@example.com", "dev@example.com.au", "dev+ops@example.com", "dev@examplexcom"],
)
def test_forget_by_email_leaves_a_look_alike_a_longer_or_a_tagged_address(
    other: str, conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    _land_claude(conn, tmp_path / "raw", [_page([_claude("dev@example.com"), _claude(other)])])
    forget(conn, "dev@example.com", key=KEY, places=_places(tmp_path))
    assert conn.execute("SELECT actor FROM vendors.claude_code_days").fetchall() == [(other,)]
    assert other in _archived(conn)
    again = _land_claude(conn, tmp_path / "raw", [_page([_claude(other)])])
    assert again.left_out == 0


def test_forget_of_a_service_user_id_leaves_the_cursor_user_of_the_same_number(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    conn.execute(
        "INSERT INTO snapshots.seats (snapshot_day, org_login, user_id, login, assignee_email)"
        " VALUES (?, 'acme', 12345, 'someone', 'someone@company.com')",
        [DAY],
    )
    _land_cursor(conn, tmp_path / "raw", [{**CURSOR_DAY, "day": "2024-03-18"}])  # userId 12345: Alex
    forget(conn, "12345", key=KEY, places=_places(tmp_path))
    assert conn.execute("SELECT email, user_id FROM vendors.cursor_days").fetchall() == [(ALEX, "12345")]
    assert '"userId":12345' in _archived(conn).replace(" ", "")
    assert _land_cursor(conn, tmp_path / "raw", [{**CURSOR_DAY, "day": "2024-03-18"}]).left_out == 0


def test_forget_by_login_reaches_the_person_in_both_vendors_under_their_seat_email_s_other_case(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    conn.execute(
        "INSERT INTO snapshots.seats (snapshot_day, org_login, user_id, login, assignee_email)"
        " VALUES (?, 'acme', 41, 'alex-dev', 'Developer@Company.com')",
        [DAY],
    )
    _land_cursor(conn, tmp_path / "raw", [{**CURSOR_DAY, "day": "2024-03-18", "email": "DEVELOPER@company.com"}])
    _land_claude(conn, tmp_path / "raw", [_page([_claude("developer@COMPANY.com")])])
    forget(conn, "alex-dev", key=KEY, places=_places(tmp_path))
    assert _rows_naming(conn, ALEX) == 0 and _rows_naming(conn, "PDSPmvukpYgZEDXsoNirw3CFhy") == 0
    assert _rows_naming(conn, "admin@company.com") > 0  # Sam's members and spend rows stay


def test_every_page_served_lands_and_the_figures_agree(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    pages = [_page([_claude(f"u{p}-{i}@example.com", num_sessions=p * 10 + i) for i in range(3)]) for p in range(3)]
    pages = [
        {**page, "has_more": i < 2, "next_page": f"page_{i + 1}" if i < 2 else None} for i, page in enumerate(pages)
    ]
    _land_claude(conn, tmp_path / "raw", pages)
    served = sum(r["core_metrics"]["num_sessions"] for page in pages for r in page["data"])
    assert conn.execute("SELECT count(*), sum(num_sessions) FROM vendors.claude_code_days").fetchone() == (9, served)


def test_a_page_that_says_more_without_a_cursor_never_lands_as_the_whole_day(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    handler = lambda r: answer(_page([_claude(ALEX)]) | {"has_more": True}, headers={"date": FINAL})  # noqa: E731
    with client("claude_code", handler) as c:
        result = ingest_vendor(c, conn, days=[DAY], raw_dir=tmp_path, say=lambda line: None)
    assert result.status == "failed" and result.final_days == 0


def test_a_person_gone_from_a_re_fetched_day_leaves_no_row_of_it(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    _land_claude(conn, tmp_path / "raw", [_page([_claude(ALEX), _claude("admin@company.com")])])
    _land_claude(conn, tmp_path / "raw", [_page([_claude("admin@company.com", num_sessions=40)])], FINAL)
    assert conn.execute("SELECT actor, num_sessions, is_final FROM vendors.claude_code_days").fetchall() == [
        ("admin@company.com", 40, True)
    ]
    assert conn.execute("SELECT DISTINCT actor FROM vendors.claude_code_models").fetchall() == [("admin@company.com",)]


def test_a_cursor_user_id_past_64_bits_lands_as_the_number_served(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    _land_cursor(conn, tmp_path / "raw", [{**CURSOR_DAY, "day": "2024-03-18", "userId": 2**64 + 1}])
    assert conn.execute("SELECT user_id FROM vendors.cursor_days").fetchall() == [(str(2**64 + 1),)]


def test_a_count_past_64_bits_costs_only_its_own_record(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    result = _land_claude(conn, tmp_path / "raw", [_page([_claude(ALEX, num_sessions=2**70), _claude("a@b.example")])])
    assert result.status == "ok"
    assert conn.execute("SELECT num_sessions FROM vendors.claude_code_days WHERE actor = 'a@b.example'").fetchone() == (
        15,
    )


def test_retention_empties_every_vendor_table_and_archive_of_expired_days(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    _land_cursor(conn, tmp_path / "raw", [{**CURSOR_DAY, "day": "2024-03-18"}])
    _land_claude(conn, tmp_path / "raw", [_page([_claude(ALEX), {**_claude(ALEX), "actor": {}}])])
    apply_retention(conn, days=30, today=date(2027, 6, 1), raw_dir=tmp_path / "raw")
    assert _rows_naming(conn, "") == 0
    assert conn.execute("SELECT count(*) FROM raw.quarantine WHERE level = 'vendor'").fetchone() == (0,)
    assert [p for p in (tmp_path / "raw").rglob("*") if p.is_file()] == []
