"""A seat listing's archive file, written and read back (pipelines/ingest/seat_listings.py)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import zstandard

from pipelines.ingest.seat_listings import Listed, archive_listings, read_listing, seat_line_without
from pipelines.service.repos import seat_listing
from pipelines.transform.columns import polars_types
from pipelines.warehouse.people import Person

DAY = date(2026, 11, 20)


def test_a_listing_with_a_lone_surrogate_is_archived_escaped_and_read_back_as_it_came(tmp_path):
    seats = json.loads(
        '[{"assignee": {"id": 1, "login": "ann", "name": "An\\ud800n"}, "seat_color": "\\udc00"},'
        ' {"assignee": {"id": 2, "login": "bo", "name": "Zoë"}}, {"assignee": null}]'
    )
    listing = seat_listing({"total_seats": 3, "note": "kept"}, seats, source="http://127.0.0.1/orgs/acme/seats")
    files, _ = archive_listings(
        [Listed("organization", "acme", listing, [])],
        raw_dir=tmp_path,
        day=DAY,
        fetched_at=datetime.now(UTC),
        forgotten=None,
    )
    path = tmp_path / files["archive_path"][0]
    text = zstandard.ZstdDecompressor().decompressobj().decompress(path.read_bytes()).decode()  # valid UTF-8
    assert "Zoë" in text and "\\ud800" in text
    assert read_listing(path, source=listing.source) == listing
    lines = [line.encode() + b"\n" for line in text.splitlines()]
    assert [seat_line_without(line, Person(None, "ann")) for line in lines] == [lines[0], None, lines[2], lines[3]]


def test_a_seat_line_loses_an_erased_persons_login_from_its_text_but_keeps_names_of_teams_and_others():
    seat = {
        "assignee": {"id": 2, "login": "bo", "name": "Bo"},
        "assigning_team": {"id": 9, "slug": "ann", "name": "ann", "description": "Ask @ann or ann, not anne"},
    }
    line = json.dumps(seat).encode() + b"\n"
    kept = json.loads(seat_line_without(line, Person(1, "ann")))
    assert kept["assigning_team"] == {
        "id": 9,
        "slug": "ann",
        "name": "ann",
        "description": "Ask @[erased] or [erased], not anne",
    }
    assert kept["assignee"] == seat["assignee"]
    assert seat_line_without(line, Person(2, None)) is None  # their own seat goes whole


def test_a_listing_s_file_rows_have_raw_report_files_declared_columns_and_types_in_order(tmp_path):
    listing = seat_listing(
        {"total_seats": 1}, [{"assignee": {"id": 1, "login": "ann"}}], source="http://127.0.0.1/orgs/acme/seats"
    )
    for raw_dir in (tmp_path, None):  # a file archived, and none
        files, _ = archive_listings(
            [Listed("organization", "acme", listing, [])],
            raw_dir=raw_dir,
            day=DAY,
            fetched_at=datetime.now(UTC),
            forgotten=None,
        )
        assert list(files.schema.items()) == list(polars_types("raw.report_files").items())
