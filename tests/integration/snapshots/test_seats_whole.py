"""Seats kept whole and archived (issue 43, point 4), over loopback against the emulator: every
documented seat field lands typed, in both dialects and both listings; a field the service adds
lands in `extra` and is told as drift; each listing is archived as a report file is, and the
seat tables derived again from the archive equal the landed ones; a seat without an assignee
loses nothing else."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import polars as pl
import pytest
import zstandard

from emulator import EmulatorConfig
from pipelines.defs.snapshots.checks import SNAPSHOT_CHECKS
from pipelines.ingest.seat_listings import read_listing
from pipelines.ingest.snapshots import SnapshotSettings, run_snapshot
from pipelines.publish.lake import publish
from pipelines.service import ServiceClient
from pipelines.transform import seats as seats_tf
from pipelines.transform.seat_fields import SEAT_FIELDS
from pipelines.warehouse.checks import run_checks
from tests._emulator import settings_for
from tests.integration.snapshots.conftest import FAST_RETRY
from tests.integration.snapshots.test_seats import _served

DAY = date(2026, 11, 20)

_BOTH_DIALECTS = pytest.mark.parametrize(
    "emulator_config",
    [
        EmulatorConfig(seed=7, users=140, repos=1, issues_per_repo=1, dialect=d, unassigned_seats=2)
        for d in ("service", "github")
    ],
    ids=["service", "github"],
)


def _wire(seat: dict, path: tuple[str, ...]) -> object:
    value: object = seat
    for step in path:
        value = value.get(step) if isinstance(value, dict) else None
    return value


def _typed(value: object, dtype: pl.DataType) -> object:
    """A served value as its column holds it: a timestamp as an instant, a day as a date."""
    if isinstance(value, str) and isinstance(dtype, pl.Date):
        return date.fromisoformat(value)
    if isinstance(value, str) and isinstance(dtype, pl.Datetime):
        return datetime.fromisoformat(value).astimezone(UTC)
    return value


def _expected(seat: dict, *, holder: bool = True) -> dict[str, object]:
    return {
        column: _typed(_wire(seat, path), dtype)
        for path, (column, dtype) in SEAT_FIELDS.items()
        if holder or path[0] != "assignee"
    }


@_BOTH_DIALECTS
@pytest.mark.parametrize("scope", ["orgs", "enterprises"])
def test_every_documented_seat_field_lands_typed_with_nothing_left_over(
    emu, make_client, warehouse, emulator_config, scope, tmp_path
):
    org, enterprise = emu.credentials["org"], emu.credentials["enterprise"]
    settings = SnapshotSettings(orgs=(org,), enterprises=(enterprise,))
    run_snapshot(make_client(), warehouse, settings=settings, day=DAY, raw_dir=tmp_path / "raw")
    _, served = _served(emu, emulator_config.dialect, scope=scope)
    table = "seats" if scope == "orgs" else "enterprise_seats"
    landed = warehouse.sql(f"SELECT * FROM snapshots.{table}").pl()
    by_grant = {
        (row["user_id"], row["organization_login"], row["assigning_team_id"]): row
        for row in landed.iter_rows(named=True)
    }
    held = [s for s in served if s["assignee"] is not None]
    assert len(by_grant) == len(held)
    for seat in held:
        row = by_grant[
            seat["assignee"]["id"], (seat["organization"] or {}).get("login"), (seat["assigning_team"] or {}).get("id")
        ]
        assert {column: row[column] for _, (column, _) in SEAT_FIELDS.items()} == _expected(seat), seat["assignee"]
        assert row["extra"] is None  # every field the emulator serves is declared
    # The values the service documents are all there: a null name and email, a team's parent or
    # none, the plan `unknown`.
    assert landed["assignee_type"].unique().to_list() == ["User"]
    assert landed["assignee_name"].null_count() and landed["assignee_name"].drop_nulls().len()
    assert landed["assignee_email"].null_count() and landed["assignee_email"].drop_nulls().len()
    assert set(landed["plan_type"]) >= {"business", "enterprise", "unknown"}
    if scope == "orgs":
        assert landed["assigning_team_parent_slug"].drop_nulls().unique().to_list() == ["platform-guild"]
        assert landed["assigning_team_name"].drop_nulls().len() and landed["assigning_team_parent_id"].null_count()
    assert warehouse.execute("SELECT count(*) FROM raw.field_drift").fetchone() == (0,)


def test_a_seat_without_an_assignee_loses_nothing_else(emu, make_client, warehouse, tmp_path):
    org = emu.credentials["org"]
    run_snapshot(make_client(), warehouse, settings=SnapshotSettings(orgs=(org,)), day=DAY, raw_dir=tmp_path / "raw")
    unassigned = [s for s in _served(emu, "service")[1] if s["assignee"] is None]
    rows = warehouse.sql("SELECT * FROM snapshots.unassigned_seats ORDER BY seat_number").pl()
    assert len(unassigned) == rows.height == 2
    for seat, row in zip(unassigned, rows.iter_rows(named=True), strict=True):
        assert {
            column: row[column]
            for column in row
            if column in seats_tf.UNASSIGNED_SEATS_SCHEMA
            and column not in ("snapshot_day", "scope", "scope_name", "seat_number", "extra")
        } == _expected(seat, holder=False)
        assert row["organization_login"] == org and row["organization_id"] and row["created_at"]


@pytest.fixture
def emulator_config() -> EmulatorConfig:
    return EmulatorConfig(seed=7, users=140, repos=1, issues_per_repo=1, unassigned_seats=2)


# A service that added fields: every seat carries `seat_color`, its holder `pronouns`, and every
# fifth seat's team (by its place in the listing) is sent as its slug (text where an object goes).
def _changed(seat: dict, index: int) -> dict:
    seat = {**seat, "seat_color": "teal"}
    if seat["assignee"] is not None:
        seat["assignee"] = {**seat["assignee"], "pronouns": "they"}
    if index % 5 == 0 and seat["assigning_team"] is not None:
        seat["assigning_team"] = seat["assigning_team"]["slug"]
    return seat


def _half_a_pair(seat: dict, index: int) -> dict:
    """The third seat's holder named with half of a UTF-16 pair (`\\ud800`), as JSON can escape it."""
    if index == 2:
        seat = {**seat, "assignee": {**seat["assignee"], "name": "Bo\ud800b"}}
    return seat


@pytest.mark.parametrize("changed_service", [_changed], indirect=True)
def test_a_field_the_service_adds_lands_in_extra_and_is_told_as_drift(emu, changed_service, warehouse, tmp_path):
    settings = settings_for(emu, base_url=changed_service, etag_cache=tmp_path / "cache.sqlite3")
    org = emu.credentials["org"]
    with ServiceClient(config=settings.service_config(), retry=FAST_RETRY) as client:
        result = run_snapshot(
            client, warehouse, settings=SnapshotSettings(orgs=(org,)), day=DAY, raw_dir=tmp_path / "raw"
        )
    seats = warehouse.sql("SELECT user_id, assigning_team_id, extra FROM snapshots.seats ORDER BY user_id").pl()
    assert seats.height == 140 and result.warnings == ()  # nothing refused
    extras = [json.loads(text) for text in seats["extra"]]
    assert all(e["seat_color"] == "teal" and e["assignee"] == {"pronouns": "they"} for e in extras)
    as_text = [e for e in extras if "assigning_team" in e]
    assert as_text and all(isinstance(e["assigning_team"], str) for e in as_text)  # kept as it came
    unassigned = warehouse.execute("SELECT extra FROM snapshots.unassigned_seats").fetchall()
    assert [json.loads(text) for (text,) in unassigned] == [{"seat_color": "teal"}] * 2
    drift = warehouse.execute(
        "SELECT scope, scope_name, level, day, path, drift, records, json_type FROM raw.field_drift ORDER BY path"
    ).fetchall()
    assert drift == [
        ("organization", org, "seats", DAY, "seats[].assignee.pronouns", "undeclared", 140, "string"),
        ("organization", org, "seats", DAY, "seats[].assigning_team", "mistyped", len(as_text), "string"),
        ("organization", org, "seats", DAY, "seats[].seat_color", "undeclared", 142, "string"),
    ]
    declared = {o.check.name: o for o in run_checks(warehouse, SNAPSHOT_CHECKS)}["seat_fields_are_declared"]
    assert declared.failures == 3 and "seats[].seat_color (undeclared, 142 seats of organization" in declared.detail
    # The serving copy tells it too, as it tells the reports' drift.
    publish(warehouse, lake=tmp_path / "lake", serving=tmp_path / "serving.duckdb")
    with duckdb.connect(str(tmp_path / "serving.duckdb"), read_only=True) as serving:
        assert serving.execute("SELECT level, path, drift, records FROM bi.field_drift ORDER BY path").fetchall() == [
            ("seats", "seats[].assignee.pronouns", "undeclared", 140),
            ("seats", "seats[].assigning_team", "mistyped", len(as_text)),
            ("seats", "seats[].seat_color", "undeclared", 142),
        ]


@_BOTH_DIALECTS
def test_each_listing_is_archived_as_a_report_file_and_the_seat_tables_derive_again_from_it(
    emu, make_client, warehouse, emulator_config, tmp_path
):
    org, enterprise = emu.credentials["org"], emu.credentials["enterprise"]
    raw = tmp_path / "raw"
    settings = SnapshotSettings(orgs=(org,), enterprises=(enterprise,))
    run_snapshot(make_client(), warehouse, settings=settings, day=DAY, raw_dir=raw)
    files = warehouse.sql(
        "SELECT scope, scope_name, report_kind, report_start_day, report_end_day, archive_path, sha256, bytes,"
        " records, link FROM raw.report_files WHERE level = 'seats' ORDER BY scope"
    ).pl()
    assert files.select("scope", "scope_name", "report_kind").rows() == [
        ("enterprise", enterprise, "snapshot"),
        ("organization", org, "snapshot"),
    ]
    frames = {}
    for row in files.iter_rows(named=True):
        path = Path(row["archive_path"])
        assert path.is_relative_to(raw / row["scope"] / row["scope_name"] / "seats-snapshot" / f"{DAY}_{DAY}")
        unpacked = zstandard.ZstdDecompressor().decompressobj().decompress(path.read_bytes())
        # The integrity a report file has: its sha256 and size, the hash's head in its name.
        assert hashlib.sha256(unpacked).hexdigest() == row["sha256"] and len(unpacked) == row["bytes"]
        assert path.name == f"0000-{row['sha256'][:16]}.ndjson.zst"
        listing = read_listing(path, source=row["link"])
        scope = "orgs" if row["scope"] == "organization" else "enterprises"
        assert (listing.total_seats, listing.seats) == _served(emu, emulator_config.dialect, scope=scope)
        assert row["records"] == len(listing.seats)
        if row["scope"] == "organization":
            rows = seats_tf.seats_frame(records=listing.seats, day=DAY, org=org)
            frames["seats"] = rows.seats
            frames["seat_totals"] = seats_tf.seat_totals_frame(totals={org: listing.total_seats}, day=DAY)
        else:
            rows = seats_tf.enterprise_seats_frame(records=listing.seats, day=DAY, enterprise=enterprise)
            frames["enterprise_seats"] = rows.seats
            frames["enterprise_seat_totals"] = seats_tf.enterprise_seat_totals_frame(
                totals={enterprise: listing.total_seats}, day=DAY
            )
        frames.setdefault("unassigned_seats", []).append(rows.unassigned)
    frames["unassigned_seats"] = pl.concat(frames["unassigned_seats"])
    for table, frame in frames.items():
        landed = warehouse.sql(f"SELECT * FROM snapshots.{table}").pl()
        columns = [c for c in frame.columns if c in landed.columns]
        assert sorted(landed.select(columns).rows()) == sorted(frame.select(columns).rows()), table

    # The day taken again: one file per listing still, the same rows.
    listed = "SELECT * EXCLUDE (fetched_at) FROM raw.report_files WHERE level = 'seats' ORDER BY ALL"
    before = warehouse.sql(listed).fetchall()
    run_snapshot(make_client(), warehouse, settings=settings, day=DAY, raw_dir=raw)
    assert len(list(raw.rglob("*.zst"))) == 2
    assert warehouse.sql(listed).fetchall() == before


@pytest.mark.parametrize("changed_service", [_half_a_pair], indirect=True)
def test_a_seat_no_text_column_takes_is_left_out_alone_and_kept_escaped_in_the_archive(
    emu, changed_service, warehouse, tmp_path
):
    """Half of a UTF-16 pair in a holder's name failed the whole listing (UnicodeEncodeError
    building its frame); now that seat is left out alone, named by its place, and the archive
    keeps it as the service sent it."""
    settings = settings_for(emu, base_url=changed_service, etag_cache=tmp_path / "cache.sqlite3")
    org = emu.credentials["org"]
    with ServiceClient(config=settings.service_config(), retry=FAST_RETRY) as client:
        result = run_snapshot(
            client, warehouse, settings=SnapshotSettings(orgs=(org,)), day=DAY, raw_dir=tmp_path / "raw"
        )
    (warning,) = [w for w in result.warnings if w.endpoint == "seat_records"]
    assert warning.message == f"1 left out: seat 2 of organization '{org}': assignee_name is not text"
    assert warehouse.execute("SELECT count(*), sum(left_out_seats) FROM snapshots.seat_totals").fetchone() == (1, 1)
    assert warehouse.execute("SELECT count(*) FROM snapshots.seats").fetchone() == (139,)
    (path,) = [p for (p,) in warehouse.execute("SELECT archive_path FROM raw.report_files").fetchall()]
    listing = read_listing(Path(path), source="")
    assert listing.seats[2]["assignee"]["name"] == "Bo\ud800b" and len(listing.seats) == 142
