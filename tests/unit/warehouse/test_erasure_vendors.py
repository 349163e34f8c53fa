"""Erasure and retention of a person in the vendors' tables: found by the email given, or by the
one their seat shows for their login, and by the vendor ids beside it; every vendor table, the
archived records and quarantined lines lose them, and anyone else's rows stay."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import duckdb
import httpx
import pytest
import zstandard
from hypothesis import given
from hypothesis import strategies as st

from pipelines.ingest.vendors import ingest_vendor
from pipelines.privacy import apply_retention
from pipelines.privacy.forget import Places, forget
from pipelines.warehouse.erasure import load_forgotten
from pipelines.warehouse.erasure_person import find_person
from pipelines.warehouse.erasure_vendors import VENDOR_TABLES
from tests.unit.vendors._answers import CLAUDE_RECORD, CURSOR_DAY, CURSOR_MEMBERS, CURSOR_SPEND, answer, client

KEY = "a-test-pseudonym-key-of-some-length"
ALEX = "developer@company.com"  # on every Cursor endpoint, and on Claude Code below
DAY = date(2024, 3, 18)


def _land(conn: duckdb.DuckDBPyConnection, raw: Path, *, refetch: bool = False) -> None:
    def cursor(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/teams/members"):
            return answer(CURSOR_MEMBERS)
        if path.endswith("/teams/daily-usage-data"):
            other = {**CURSOR_DAY, "email": "admin@company.com", "userId": 12346}
            return answer({"data": [CURSOR_DAY, other]})
        return answer(CURSOR_SPEND)

    alex = {**CLAUDE_RECORD, "date": "2024-03-18T00:00:00Z", "actor": {"type": "user_actor", "email_address": ALEX}}
    sam = {**alex, "actor": {"type": "user_actor", "email_address": "admin@company.com"}}
    nobody = {**alex, "actor": {"type": "user_actor"}}  # quarantined: names no one, yet holds Alex's email
    nobody["terminal_type"] = ALEX

    def claude(request: httpx.Request) -> httpx.Response:
        return answer({"data": [alex, sam, {**nobody, "actor": {"type": "user_actor", "email": ALEX}}]})

    for name, handler in (("cursor", cursor), ("claude_code", claude)):
        with client(name, handler) as c:
            forgotten = load_forgotten(conn, KEY)
            ingest_vendor(c, conn, days=[DAY], raw_dir=raw, forgotten=forgotten, refetch=refetch, say=pytest.fail)


def _seat(conn: duckdb.DuckDBPyConnection, login: str, user_id: int, email: str) -> None:
    conn.execute(
        "INSERT INTO snapshots.seats (snapshot_day, org_login, user_id, login, assignee_email)"
        " VALUES (?, 'acme', ?, ?, ?)",
        [DAY, user_id, login, email],
    )


def _counts(conn: duckdb.DuckDBPyConnection, email: str) -> dict[str, int]:
    return {
        t.name: conn.execute(f'SELECT count(*) FROM {t.name} WHERE lower("{t.email}") = ?', [email]).fetchone()[0]  # type: ignore[index]
        for t in VENDOR_TABLES
    }


def _places(tmp_path: Path) -> Places:
    return Places(
        raw_dir=tmp_path / "raw",
        spool_dir=tmp_path / "spool",
        etag_cache=None,
        lake=tmp_path / "lake",
        serving=tmp_path / "serving.duckdb",
        aggregate_k=5,
    )


def _archived(conn: duckdb.DuckDBPyConnection) -> bytes:
    out = b""
    for (path,) in conn.execute("SELECT archive_path FROM raw.report_files ORDER BY 1").fetchall():
        out += zstandard.ZstdDecompressor().decompressobj().decompress(Path(path).read_bytes())
    return out


def test_a_login_s_seat_email_finds_their_vendor_rows_and_ids(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    _land(conn, tmp_path / "raw")
    _seat(conn, "alex-dev", 41, "Developer@Company.com")
    person = find_person(conn, "alex-dev")
    assert (person.user_id, person.login, person.emails) == (41, "alex-dev", (ALEX,))
    assert set(person.vendor_ids) == {"12345", "user_PDSPmvukpYgZEDXsoNirw3CFhy"}
    assert find_person(conn, ALEX.upper()) == person  # the email finds the seat's person too


def test_forget_by_login_removes_them_from_every_vendor_table_and_archive(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    _land(conn, tmp_path / "raw")
    _seat(conn, "alex-dev", 41, ALEX)
    assert all(_counts(conn, ALEX).values())
    assert conn.execute("SELECT count(*) FROM raw.quarantine WHERE level = 'vendor'").fetchone() == (1,)
    result = forget(conn, "alex-dev", key=KEY, places=_places(tmp_path))
    assert result.person_known
    assert _counts(conn, ALEX) == dict.fromkeys((t.name for t in VENDOR_TABLES), 0)
    assert all(_counts(conn, "admin@company.com").values())  # anyone else's stay
    assert conn.execute("SELECT count(*) FROM raw.quarantine WHERE level = 'vendor'").fetchone() == (0,)
    archived = _archived(conn)
    assert ALEX.encode() not in archived and b"PDSPmvukpYgZEDXsoNirw3CFhy" not in archived
    assert b"admin@company.com" in archived


def test_forget_by_an_email_no_seat_shows_removes_the_vendor_user(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    _land(conn, tmp_path / "raw")
    result = forget(conn, ALEX, key=KEY, places=_places(tmp_path))
    assert result.person_known and result.stores["warehouse"][0] > 0
    assert _counts(conn, ALEX) == dict.fromkeys((t.name for t in VENDOR_TABLES), 0)
    assert ALEX.encode() not in _archived(conn)
    # A later fetch of the same days drops them on ingest: their hashes are kept.
    _land(conn, tmp_path / "raw", refetch=True)
    assert conn.execute("SELECT count(*) FROM vendors.cursor_days").fetchone() == (1,)
    assert _counts(conn, ALEX) == dict.fromkeys((t.name for t in VENDOR_TABLES), 0)


def test_retention_removes_the_vendor_rows_of_expired_days(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    _land(conn, tmp_path / "raw")
    result = apply_retention(conn, days=30, today=date(2024, 6, 1), raw_dir=tmp_path / "raw")
    assert result.rows["vendors.cursor_days"] == 2 and result.rows["vendors.claude_code_days"] == 2
    assert conn.execute("SELECT count(*) FROM vendors.claude_code_models").fetchone() == (0,)
    assert result.files >= 1


def test_a_vendor_id_never_matches_the_service_s_number_under_id_nor_a_longer_id() -> None:
    from pipelines.warehouse.erasure_vendors import vendor_line_names
    from pipelines.warehouse.people import Person

    names = vendor_line_names(Person(None, None, ("a@b.com",), ("12345", "user_X")))
    assert names(b'{"userId":12345,"isActive":true}') and names(b'{"id":"user_X"}') and names(b'{"email":"A@B.COM"}')
    # A seat listing's `id` is the service's user id: another person's, though the digits agree.
    assert not names(b'{"id":12345,"login":"someone-else"}')
    assert not names(b'{"userId":123456}') and not names(b'{"id":"user_XY"}') and not names(b'{"email":"xa@b.com"}')


_WHITESPACE = st.text(alphabet=st.characters(categories=["Zs", "Zl", "Zp", "Cc"]).filter(str.isspace), max_size=3)


@given(before=_WHITESPACE, after=_WHITESPACE, upper=st.booleans(), escaped=st.booleans())
def test_a_record_s_email_with_whitespace_around_it_names_the_person_in_python_and_in_re2(
    before: str, after: str, upper: bool, escaped: bool
) -> None:
    from pipelines.warehouse.erasure_vendors import vendor_line_names, vendor_line_pattern
    from pipelines.warehouse.people import Person

    person = Person(None, None, ("a@b.com",), ())
    email = before + ("A@B.COM" if upper else "a@b.com") + after
    line = json.dumps({"email": email}, ensure_ascii=escaped)
    assert vendor_line_names(person)(line.encode())
    matched = duckdb.execute("SELECT regexp_matches($1, $2)", [line, vendor_line_pattern(person)]).fetchall()
    assert matched == [(True,)]
    for other in ("xa@b.com", "a@b.comx", "a\u0435@b.com"):
        assert not vendor_line_names(person)(json.dumps({"email": before + other + after}).encode())
