"""A seat listing's archive file, written and read back (pipelines/ingest/seat_listings.py)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import zstandard

from pipelines.ingest.seat_listings import Listed, archive_listings, names_seat_line, read_listing
from pipelines.service.repos import seat_listing
from pipelines.warehouse.people import Person

DAY = date(2026, 11, 20)


def test_a_listing_with_a_lone_surrogate_is_archived_escaped_and_read_back_as_it_came(tmp_path):
    seats = json.loads('[{"assignee": {"id": 1, "login": "ann", "name": "An\\ud800n"}, "seat_color": "\\udc00"},'
                       ' {"assignee": {"id": 2, "login": "bo", "name": "Zoë"}}, {"assignee": null}]')
    listing = seat_listing({"total_seats": 3, "note": "kept"}, seats, source="http://127.0.0.1/orgs/acme/seats")
    files, _ = archive_listings([Listed("organization", "acme", listing, [])], raw_dir=tmp_path, day=DAY,
                                fetched_at=datetime.now(UTC), forgotten=None)
    path = tmp_path / files["archive_path"][0]
    text = zstandard.ZstdDecompressor().decompressobj().decompress(path.read_bytes()).decode()  # valid UTF-8
    assert "Zoë" in text and "\\ud800" in text
    assert read_listing(path, source=listing.source) == listing
    assert [names_seat_line(line.encode(), Person(None, "ann")) for line in text.splitlines()] == [
        False, True, False, False]
