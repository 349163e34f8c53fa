"""The operator's identity file: each bad line is one line naming the file and the line, and no
good line is lost; emails are compared trimmed and in lower case; a file that cannot be read
changes nothing landed; an erased person's line never lands."""

from __future__ import annotations

import tempfile
from datetime import date
from pathlib import Path

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.ingest.identities import IdentityFile, land_operator_identities, read_identity_file
from pipelines.warehouse import migrate
from pipelines.warehouse.people import Forgotten, Person, person_hashes

DAY = date(2026, 11, 20)


@pytest.fixture
def conn(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    c = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(c)
    return c


def test_each_bad_line_is_one_line_naming_file_and_line_and_every_good_line_is_read(tmp_path: Path) -> None:
    path = tmp_path / "identities.csv"
    path.write_text(
        "email,login\n"
        "ada@people.example,dev-00001\n"
        "not-an-email,dev-00002\n"
        "# a comment\n"
        "\n"
        "  Bruno@People.Example  , dev-00003 \n"
        "chioma@people.example,dev-00004,extra\n"
        "ada@people.example,dev-00009\n"
        "ada@people.example,DEV-00001\n"
        "elif@people.example,not a login\n"
    )
    read = read_identity_file(path)
    assert [(line.email, line.login, line.line_number) for line in read.lines] == [
        ("ada@people.example", "dev-00001", 2),
        ("bruno@people.example", "dev-00003", 6),
    ]
    assert read.errors == (
        f"{path} line 3: 'not-an-email' is not an email: write the line as email,login",
        f"{path} line 7: 'chioma@people.example,dev-00004,extra' has 3 fields, not 2: write it as email,login",
        f"{path} line 8: ada@people.example is mapped to dev-00001 on line 2 already: keep one line for it",
        f"{path} line 10: 'not a login' is not a service login: write the line as email,login",
    )
    assert all("\n" not in error for error in read.errors)


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 50)), max_size=20))
def test_a_bad_line_never_costs_a_good_one(lines: list[tuple[bool, int]]) -> None:
    text = "".join(f"p{n}@x.example,dev-{n}\n" if good else f"p{n} at x,dev-{n}\n" for good, n in lines)
    read = _read(text)
    goods = {n for good, n in lines if good}
    assert {line.email for line in read.lines} == {f"p{n}@x.example" for n in goods}
    assert len(read.errors) == sum(1 for good, _ in lines if not good)


def _read(text: str) -> IdentityFile:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "identities.csv"
        path.write_text(text)
        return read_identity_file(path)


def test_the_file_lands_whole_and_an_unreadable_one_keeps_what_was_read(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    path = tmp_path / "identities.csv"
    path.write_text("ada@people.example,dev-00001\nbruno@people.example,dev-00003\n")
    land_operator_identities(conn, path, read_day=DAY, forgotten=None)
    path.write_text("ada@people.example,dev-00001\n")
    land_operator_identities(conn, path, read_day=DAY, forgotten=None)
    landed = "SELECT email, login, line_number FROM vendors.operator_identities"
    assert conn.execute(landed).fetchall() == [("ada@people.example", "dev-00001", 1)]
    path.unlink()
    read = land_operator_identities(conn, path, read_day=DAY, forgotten=None)
    assert read.errors == (f"{path} cannot be read (No such file or directory): the identities last read from it stay",)
    assert conn.execute(landed).fetchall() == [("ada@people.example", "dev-00001", 1)]
    assert conn.execute("SELECT email, login, source FROM bi.assistant_identities").fetchall() == [
        ("ada@people.example", "dev-00001", "operator")
    ]


def test_an_erased_persons_line_never_lands(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    key = b"k"
    forgotten = Forgotten(key, frozenset(person_hashes(key, Person(None, "dev-00001"))))
    path = tmp_path / "identities.csv"
    path.write_text("ada@people.example,dev-00001\nbruno@people.example,dev-00003\n")
    land_operator_identities(conn, path, read_day=DAY, forgotten=forgotten)
    assert conn.execute("SELECT login FROM vendors.operator_identities").fetchall() == [("dev-00003",)]
