from datetime import UTC, date, datetime, timedelta, timezone

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.transform import seats as tf
from pipelines.transform.columns import polars_types

DAY = date(2026, 11, 20)


def _seat(user_id: int, **extra):
    return {"assignee": {"id": user_id, "login": f"u{user_id}", "type": "User"}, "plan_type": "business", **extra}


def test_a_seat_maps_to_typed_columns_with_timestamps_in_utc():
    frame = tf.seats_frame(
        records=[
            _seat(
                7,
                assigning_team={"id": 42, "slug": "platform", "name": "Platform"},
                created_at="2021-08-03T18:00:00-06:00",
                updated_at="2026-11-01T10:00:00Z",
                pending_cancellation_date="2026-12-01",
                last_activity_at="2026-11-19T23:30:00+02:00",
                last_activity_editor="vscode/1.104.0/assistant-chat/0.31.0",
                last_authenticated_at="2026-11-19T08:00:00Z",
                unknown_field=True,
            )
        ],
        day=DAY,
        org="acme",
    ).seats
    assert frame.schema == pl.Schema(tf.SEATS_SCHEMA)
    assert frame.row(0, named=True) == {
        "snapshot_day": DAY,
        "org_login": "acme",
        "user_id": 7,
        "login": "u7",
        "assigning_team_id": 42,
        "assigning_team_slug": "platform",
        "plan_type": "business",
        "created_at": datetime(2021, 8, 4, 0, 0, tzinfo=UTC),
        "updated_at": datetime(2026, 11, 1, 10, 0, tzinfo=UTC),
        "pending_cancellation_date": date(2026, 12, 1),
        "last_activity_at": datetime(2026, 11, 19, 21, 30, tzinfo=UTC),
        "last_activity_editor": "vscode/1.104.0/assistant-chat/0.31.0",
        "last_authenticated_at": datetime(2026, 11, 19, 8, 0, tzinfo=UTC),
        "organization_login": None,
        "assigning_team_type": None,
        # Fields fetched and dropped before: the holder's type, the team's name; a field no
        # declaration names is kept in `extra` as it came.
        "assignee_type": "User",
        "assignee_name": None,
        "assignee_email": None,
        "organization_id": None,
        "assigning_team_name": "Platform",
        "assigning_team_parent_id": None,
        "assigning_team_parent_slug": None,
        "assigning_team_parent_name": None,
        "extra": '{"unknown_field":true}',
    }


def test_a_direct_seat_has_no_team_and_a_never_active_one_null_activity():
    row = tf.seats_frame(records=[_seat(1, assigning_team=None, last_activity_at=None)], day=DAY, org="acme").seats.row(
        0, named=True
    )
    assert (row["assigning_team_id"], row["assigning_team_slug"], row["last_activity_at"]) == (None, None, None)
    assert row["pending_cancellation_date"] is None


def test_no_seats_is_an_empty_frame_of_the_table_s_schema():
    empty = tf.seats_frame(records=[], day=DAY, org="acme")
    assert empty.seats.schema == pl.Schema(tf.SEATS_SCHEMA)
    assert empty.unassigned.schema == pl.Schema(tf.UNASSIGNED_SEATS_SCHEMA) and not empty.refused
    assert tf.seat_totals_frame(totals={}, day=DAY).schema == pl.Schema(tf.SEAT_TOTALS_SCHEMA)


def test_totals_are_one_row_per_organization_zero_included():
    frame = tf.seat_totals_frame(totals={"globex": 0, "acme": 3}, day=DAY, left_out={"acme": 1})
    assert frame.rows() == [(DAY, "acme", 3, 1), (DAY, "globex", 0, 0)]


@pytest.mark.parametrize(
    "unassigned", [{"plan_type": "business"}, {**_seat(0), "assignee": None}], ids=["no_assignee", "null_assignee"]
)
def test_a_seat_whose_assignee_is_null_is_an_unassigned_seat_beside_the_others(unassigned):
    """The service documents `assignee` as nullable (a deleted or pending account)."""
    rows = tf.seats_frame(records=[_seat(1), _seat(2), unassigned, _seat(4), unassigned], day=DAY, org="acme")
    assert rows.seats["user_id"].to_list() == [1, 2, 4] and not rows.refused
    assert rows.unassigned.schema == pl.Schema(tf.UNASSIGNED_SEATS_SCHEMA)
    assert rows.unassigned.select("scope", "scope_name", "seat_number").rows() == [
        ("organization", "acme", 1),
        ("organization", "acme", 2),
    ]
    assert rows.unassigned["plan_type"].to_list() == ["business", "business"]


@pytest.mark.parametrize(
    "bad",
    [{"assignee": {"login": "ann"}}, {"assignee": {"id": "7", "login": "ann"}}, {"assignee": "ann"}, "ann"],
    ids=["no_id", "id_not_a_number", "assignee_not_an_object", "seat_not_an_object"],
)
def test_a_seat_that_cannot_land_is_left_out_alone_naming_its_place_never_its_holder(bad):
    rows = tf.seats_frame(records=[_seat(1), _seat(2), bad, _seat(4)], day=DAY, org="acme")
    assert rows.seats["user_id"].to_list() == [1, 2, 4] and rows.unassigned.is_empty()
    (reason,) = rows.refused
    assert reason.startswith("seat 2 of organization 'acme' ") and "ann" not in reason


def test_a_timestamp_that_is_not_one_leaves_that_seat_out_naming_the_org_the_seat_and_the_field():
    rows = tf.seats_frame(records=[_seat(1), _seat(2, last_activity_at="yesterday")], day=DAY, org="acme")
    assert rows.seats["user_id"].to_list() == [1]
    assert rows.refused == ["seat 1 of organization 'acme': last_activity_at 'yesterday' is not a timestamp"]


_offsets = st.integers(-12 * 60, 14 * 60).map(lambda m: timezone(timedelta(minutes=m)))
_instants = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 1, 1), timezones=_offsets)
_teams = st.none() | st.tuples(st.integers(1, 5), st.text(max_size=8))


@given(
    seats=st.lists(
        st.tuples(st.integers(1, 30), st.none() | _instants, _teams),
        max_size=25,
    )
)
def test_one_row_per_assignee_as_last_listed_with_the_same_instants(seats):
    records = [
        _seat(
            user_id,
            last_activity_at=None if at is None else at.isoformat(),
            assigning_team=None if team is None else {"id": team[0], "slug": team[1]},
        )
        for user_id, at, team in seats
    ]
    frame = tf.seats_frame(records=records, day=DAY, org="acme").seats
    last = {user_id: (at, team) for user_id, at, team in seats}
    assert frame["user_id"].to_list() == sorted(last)
    for row in frame.iter_rows(named=True):
        at, team = last[row["user_id"]]
        assert row["last_activity_at"] == at  # the same instant, now in UTC
        assert row["last_activity_at"] is None or row["last_activity_at"].tzinfo is not None
        assert (row["assigning_team_id"], row["assigning_team_slug"]) == (team if team else (None, None))


def test_an_organization_seat_keeps_its_organization_and_the_assigning_team_s_type():
    team = {"id": 4, "slug": "a", "type": "enterprise"}
    seat = _seat(7, organization={"login": "acme", "id": 9}, assigning_team=team)
    row = tf.seats_frame(records=[seat], day=DAY, org="acme").seats.row(0, named=True)
    assert (row["organization_login"], row["assigning_team_type"]) == ("acme", "enterprise")


def test_an_enterprise_seat_is_keyed_by_holder_and_grant_so_two_organizations_give_two_rows():
    squad = {"id": 4, "slug": "sq", "type": "organization"}
    eng = {"id": 1_000_000_003, "slug": "eng-atlas", "type": "enterprise"}
    frame = tf.enterprise_seats_frame(
        records=[
            _seat(7, organization={"login": "acme", "id": 9}, assigning_team=squad),
            _seat(7, organization={"login": "acme-labs", "id": 10}, assigning_team=None),
            _seat(7, organization=None, assigning_team=eng),
            _seat(8, organization=None, assigning_team=None),
            _seat(7, organization={"login": "acme-labs", "id": 10}, assigning_team=None),  # read twice across pages
        ],
        day=DAY,
        enterprise="acme-corp",
    ).seats
    assert frame.schema == pl.Schema(tf.ENTERPRISE_SEATS_SCHEMA)
    keyed = frame.select("user_id", "granted_through", "granted_by", "organization_id", "assigning_team_type")
    assert keyed.rows() == [
        (7, "enterprise_team", "eng-atlas", None, "enterprise"),
        (7, "organization", "acme", 9, "organization"),
        (7, "organization", "acme-labs", 10, None),
        (8, "enterprise", "acme-corp", None, None),
    ]
    empty = tf.enterprise_seats_frame(records=[], day=DAY, enterprise="e").seats
    assert empty.schema == pl.Schema(tf.ENTERPRISE_SEATS_SCHEMA)
    totals = tf.enterprise_seat_totals_frame(totals={"acme-corp": 2}, day=DAY)
    assert totals.rows() == [(DAY, "acme-corp", 2, 0)]


def test_an_enterprise_seat_of_a_team_without_a_slug_is_left_out_naming_the_enterprise_and_the_seat():
    bad = _seat(3, organization=None, assigning_team={"id": 5})
    unassigned = {**_seat(0), "assignee": None}
    rows = tf.enterprise_seats_frame(records=[_seat(1), bad, unassigned], day=DAY, enterprise="acme-corp")
    assert rows.seats["user_id"].to_list() == [1]
    assert rows.unassigned.select("scope", "scope_name", "seat_number").rows() == [("enterprise", "acme-corp", 1)]
    (reason,) = rows.refused
    assert reason.startswith("seat 1 of enterprise 'acme-corp' names neither")


def test_each_seat_frame_has_its_table_s_declared_columns_and_types_in_order():
    # The frames' columns are the table declarations (pipelines/transform/columns.py); the totals
    # leave out what erasure counts.
    seat = {"assignee": {"id": 5, "login": "ann"}, "organization": {"login": "acme"}, "plan_type": "business"}
    org = tf.seats_frame(records=[seat, {"assignee": None}], day=DAY, org="acme")
    frames = {
        "snapshots.seats": (org.seats, frozenset()),
        "snapshots.unassigned_seats": (org.unassigned, frozenset()),
        "snapshots.enterprise_seats": (
            tf.enterprise_seats_frame(records=[seat], day=DAY, enterprise="corp").seats,
            frozenset(),
        ),
        "snapshots.seat_totals": (tf.seat_totals_frame(totals={"acme": 2}, day=DAY), frozenset({"erased_seats"})),
        "snapshots.enterprise_seat_totals": (
            tf.enterprise_seat_totals_frame(totals={"corp": 1}, day=DAY),
            frozenset({"erased_holders"}),
        ),
    }
    for table, (frame, left_out) in frames.items():
        assert frame.height > 0, table
        assert list(frame.schema.items()) == list(polars_types(table, leave_out=left_out).items()), table
