from datetime import date

import duckdb
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.transform import seats as seats_tf
from pipelines.transform import snapshots as tf
from pipelines.warehouse import migrate
from pipelines.warehouse.snapshots import SNAPSHOT_TABLES, SnapshotFrameError, replace_snapshot_day

DAY = date(2026, 11, 20)
OTHER = date(2026, 11, 19)


@pytest.fixture
def conn(tmp_path):
    connection = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(connection)
    yield connection
    connection.close()


def _frames(day: date, *, repo_name: str = "acme/api", issue_ids=(1, 2), seat_ids=(5, 6)) -> dict[str, pl.DataFrame]:
    repo = {"id": 11, "full_name": repo_name, "name": repo_name.split("/")[1], "owner": {"login": "acme", "id": 1}}
    return {
        "repositories": tf.repositories_frame(records=[repo], day=day),
        "repository_stats": tf.repository_stats_frame(nodes=[(11, repo_name, {"stargazerCount": 3})], day=day),
        "issues": tf.issues_frame(
            records=[{"id": i, "number": i, "labels": [{"name": "bug"}]} for i in issue_ids],
            day=day,
            repository_id=11,
            repository_full_name=repo_name,
        ),
        "org_members": tf.org_members_frame(records=[{"id": 5, "login": "ann"}], day=day, org="acme"),
        "seats": seats_tf.seats_frame(
            records=[
                {
                    "assignee": {"id": i, "login": f"u{i}"},
                    "plan_type": "business",
                    "last_activity_at": "2026-11-19T10:00:00Z",
                }
                for i in seat_ids
            ],
            day=day,
            org="acme",
        ).seats,
        "seat_totals": seats_tf.seat_totals_frame(totals={"acme": len(seat_ids) + 1}, day=day),
        "enterprise_seats": seats_tf.enterprise_seats_frame(
            records=[{"assignee": {"id": i}, "organization": {"login": o}} for i in seat_ids for o in ("acme", "labs")],
            day=day,
            enterprise="acme-corp",
        ).seats,
        "unassigned_seats": seats_tf.seats_frame(records=[{"assignee": None}], day=day, org="acme").unassigned,
        "enterprise_seat_totals": seats_tf.enterprise_seat_totals_frame(totals={"acme-corp": len(seat_ids)}, day=day),
        "warnings": tf.warnings_frame(
            warnings=[{"repository": "acme/gone", "endpoint": "repository", "status": 404, "message": "Not Found"}],
            day=day,
        ),
    }


def _dump(conn) -> dict[str, list[tuple]]:
    return {t: conn.sql(f"SELECT * FROM snapshots.{t} ORDER BY ALL").fetchall() for t in SNAPSHOT_TABLES}


def test_rerun_of_a_day_replaces_it_and_leaves_identical_tables(conn):
    replace_snapshot_day(conn, day=OTHER, frames=_frames(OTHER))
    replace_snapshot_day(conn, day=DAY, frames=_frames(DAY))
    first = _dump(conn)
    written = replace_snapshot_day(conn, day=DAY, frames=_frames(DAY))
    assert _dump(conn) == first
    assert written == {
        "repositories": 1,
        "repository_stats": 1,
        "issues": 2,
        "org_members": 1,
        "seats": 2,
        "seat_totals": 1,
        "enterprise_seats": 4,
        "enterprise_seat_totals": 1,
        "unassigned_seats": 1,
        "warnings": 1,
    }
    assert conn.execute("SELECT count(*) FROM snapshots.issues WHERE snapshot_day = ?", [OTHER]).fetchone() == (2,)


def test_rerun_drops_rows_no_longer_listed(conn):
    replace_snapshot_day(conn, day=DAY, frames=_frames(DAY, issue_ids=(1, 2, 3)))
    replace_snapshot_day(conn, day=DAY, frames=_frames(DAY, issue_ids=(2,)))
    assert conn.sql("SELECT issue_id FROM snapshots.issues").fetchall() == [(2,)]


def test_a_failing_table_rolls_back_the_whole_day(conn):
    replace_snapshot_day(conn, day=DAY, frames=_frames(DAY))
    before = _dump(conn)
    broken = _frames(DAY, repo_name="acme/renamed")
    # Two rows for one key break the primary key of the fourth table written.
    broken["org_members"] = pl.concat([broken["org_members"], broken["org_members"]])
    with pytest.raises(duckdb.ConstraintException):
        replace_snapshot_day(conn, day=DAY, frames=broken)
    assert _dump(conn) == before


def test_rerun_of_a_day_replaces_its_seats_and_total_and_leaves_other_days(conn):
    replace_snapshot_day(conn, day=OTHER, frames=_frames(OTHER, seat_ids=(1, 2, 3)))
    replace_snapshot_day(conn, day=DAY, frames=_frames(DAY, seat_ids=(5, 6, 7)))
    replace_snapshot_day(conn, day=DAY, frames=_frames(DAY, seat_ids=(6,)))
    seats = conn.sql("SELECT snapshot_day, user_id FROM snapshots.seats ORDER BY ALL").fetchall()
    assert seats == [(OTHER, 1), (OTHER, 2), (OTHER, 3), (DAY, 6)]
    totals = conn.sql("SELECT snapshot_day, total_seats FROM snapshots.seat_totals ORDER BY ALL").fetchall()
    assert totals == [(OTHER, 4), (DAY, 2)]  # with the day's unassigned seat
    changed = conn.sql("SELECT DISTINCT table_name FROM meta.lake_changes WHERE day = $d", params={"d": DAY}).fetchall()
    assert {"snapshots.seats", "snapshots.seat_totals"} <= {t for (t,) in changed}


def test_a_failing_seats_table_rolls_back_the_whole_day(conn):
    replace_snapshot_day(conn, day=DAY, frames=_frames(DAY))
    before = _dump(conn)
    broken = _frames(DAY, issue_ids=(9,), seat_ids=(8,))
    broken["seats"] = pl.concat([broken["seats"], broken["seats"]])  # one seat holder twice: the key breaks
    with pytest.raises(duckdb.ConstraintException):
        replace_snapshot_day(conn, day=DAY, frames=broken)
    assert _dump(conn) == before


def test_renamed_repository_is_one_id_with_two_names(conn):
    replace_snapshot_day(conn, day=OTHER, frames=_frames(OTHER, repo_name="acme/old"))
    replace_snapshot_day(conn, day=DAY, frames=_frames(DAY, repo_name="acme/new"))
    rows = conn.sql("SELECT repository_id, full_name FROM snapshots.repositories ORDER BY snapshot_day").fetchall()
    assert rows == [(11, "acme/old"), (11, "acme/new")]


def test_frames_of_another_day_are_refused(conn):
    frames = _frames(DAY)
    frames["issues"] = _frames(OTHER)["issues"]
    with pytest.raises(SnapshotFrameError, match=r"snapshots.issues"):
        replace_snapshot_day(conn, day=DAY, frames=frames)


def test_every_table_must_be_given(conn):
    frames = _frames(DAY)
    del frames["warnings"]
    with pytest.raises(SnapshotFrameError, match="warnings"):
        replace_snapshot_day(conn, day=DAY, frames=frames)


def test_labels_land_as_a_list_column(conn):
    replace_snapshot_day(conn, day=DAY, frames=_frames(DAY))
    assert conn.sql("SELECT DISTINCT labels FROM snapshots.issues").fetchall() == [(["bug"],)]


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([DAY, OTHER]), st.sets(st.integers(1, 40), max_size=8)), min_size=1, max_size=6)
)
def test_each_day_holds_exactly_its_latest_replacement(replacements):
    conn = duckdb.connect()
    migrate(conn)
    latest: dict[date, set[int]] = {}
    for day, issue_ids in replacements:
        replace_snapshot_day(conn, day=day, frames=_frames(day, issue_ids=sorted(issue_ids)))
        latest[day] = issue_ids
    for day, issue_ids in latest.items():
        landed = conn.execute("SELECT issue_id FROM snapshots.issues WHERE snapshot_day = ?", [day]).fetchall()
        assert {i for (i,) in landed} == issue_ids
        assert conn.execute("SELECT count(*) FROM snapshots.repositories WHERE snapshot_day = ?", [day]).fetchone() == (
            1,
        )
    conn.close()
