"""bi.seat_utilization and bi.inactive_seats (extension) on the hand-built warehouse's seats,
counted by hand from tests/integration/bi/_warehouse.py's SEATS and OLDER_SEATS."""

import re
from datetime import UTC, date, datetime, timedelta

import duckdb
import pytest

from tests.integration.bi._docs import BI_DOCS
from tests.integration.bi._warehouse import OLDER_SEAT_DAY, SEAT_DAY, build_warehouse

COUNTS = ("seats", "active_7d", "active_30d", "inactive_30d", "never_active", "pending_cancellation")
START = datetime.combine(SEAT_DAY, datetime.min.time(), UTC)


@pytest.fixture(scope="module")
def conn(tmp_path_factory):
    path = tmp_path_factory.mktemp("bi-seats") / "warehouse.duckdb"
    build_warehouse(path)
    with duckdb.connect(str(path), read_only=True) as connection:
        yield connection


def _rows(conn, sql, *params):
    cursor = conn.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def test_seat_utilization_counts_each_plan_and_team_group_of_the_day(conn):
    rows = _rows(conn, "SELECT * FROM bi.seat_utilization WHERE snapshot_day = ? AND org_login = 'acme'", SEAT_DAY)
    got = {
        (r["plan_type"], r["assignment"], r["assigning_team_id"], r["assigning_team_slug"]): tuple(r[c] for c in COUNTS)
        for r in rows
    }
    assert got == {
        # 101 (active 7 days before: the edge counts), 102 (10 days), 106 (30 days and an hour: out), 106 pending
        ("business", "team", 1, "platform"): (3, 1, 2, 1, 0, 1),
        ("business", "team", 2, "web"): (1, 0, 0, 1, 1, 0),  # 105, never active
        ("business", "direct", None, None): (1, 0, 0, 1, 0, 1),  # 103: 45 days, pending
        ("enterprise", "direct", None, None): (1, 0, 0, 1, 1, 0),  # 104, never active
    }


def test_seat_utilization_sums_across_groups_to_the_organization(conn):
    (total,) = _rows(
        conn,
        "SELECT sum(seats) AS seats, sum(active_7d) AS active_7d, sum(active_30d) AS active_30d,"
        " sum(inactive_30d) AS inactive_30d, sum(never_active) AS never_active,"
        " sum(pending_cancellation) AS pending_cancellation"
        " FROM bi.seat_utilization WHERE snapshot_day = ? AND org_login = 'acme'",
        SEAT_DAY,
    )
    assert tuple(total[c] for c in COUNTS) == (6, 1, 2, 4, 2, 2)
    (seat_total,) = conn.execute(
        "SELECT total_seats FROM snapshots.seat_totals WHERE snapshot_day = ? AND org_login = 'acme'", [SEAT_DAY]
    ).fetchone()
    assert total["seats"] == seat_total
    assert total["active_30d"] + total["inactive_30d"] == total["seats"]


def test_seat_utilization_keeps_older_days_as_their_own_rows(conn):
    rows = _rows(conn, "SELECT org_login, seats FROM bi.seat_utilization WHERE snapshot_day = ?", OLDER_SEAT_DAY)
    assert sorted((r["org_login"], r["seats"]) for r in rows) == [("acme", 2), ("globex", 1)]


def test_inactive_seats_are_the_newest_day_s_seats_without_activity_in_30_days(conn):
    rows = _rows(conn, "SELECT * FROM bi.inactive_seats ORDER BY user_id")
    got = {
        r["user_id"]: (r["snapshot_day"], r["inactive_since"], r["days_inactive"], r["pending_cancellation_date"])
        for r in rows
    }
    assert got == {
        103: (SEAT_DAY, START - timedelta(days=45), 45, date(2026, 4, 5)),
        104: (SEAT_DAY, START - timedelta(days=100), 100, None),  # never active: since the seat's creation
        105: (SEAT_DAY, START - timedelta(days=5), 5, None),
        106: (SEAT_DAY, START - timedelta(days=30, hours=1), 31, date(2026, 4, 3)),
    }
    # 107 held a seat only on the older day; globex's newest listing had no seat at all.
    assert {r["org_login"] for r in rows} == {"acme"}
    never = {r["user_id"]: (r["last_activity_at"], r["created_at"]) for r in rows if r["last_activity_at"] is None}
    assert never == {104: (None, START - timedelta(days=100)), 105: (None, START - timedelta(days=5))}
    assert {r["user_id"]: (r["assigning_team_id"], r["assigning_team_slug"]) for r in rows} == {
        103: (None, None),
        104: (None, None),
        105: (2, "web"),
        106: (1, "platform"),
    }


def test_inactive_seats_agree_with_seat_utilization_s_inactive_30d(conn):
    (inactive,) = conn.execute("SELECT count(*) FROM bi.inactive_seats WHERE org_login = 'acme'").fetchone()
    (counted,) = conn.execute(
        "SELECT sum(inactive_30d) FROM bi.seat_utilization WHERE org_login = 'acme' AND snapshot_day = ?", [SEAT_DAY]
    ).fetchone()
    assert inactive == counted == 4


def test_the_seat_views_are_marked_as_extensions(conn):
    comments = dict(
        conn.execute(
            "SELECT view_name, comment FROM duckdb_views() WHERE schema_name = 'bi'"
            " AND view_name IN ('seat_utilization', 'inactive_seats')"
        ).fetchall()
    )
    assert len(comments) == 2 and all(c.startswith("Extension.") for c in comments.values())


def test_the_seat_views_measure_days_in_utc_whatever_the_session_time_zone(tmp_path):
    path = tmp_path / "warehouse.duckdb"
    build_warehouse(path)
    answers = []
    for zone in ("UTC", "Pacific/Kiritimati", "America/Denver"):
        with duckdb.connect(str(path), read_only=True) as conn:
            conn.execute(f"SET TimeZone = '{zone}'")  # a constant of this test, not a value from input
            answers.append(
                (
                    conn.execute("SELECT * FROM bi.seat_utilization ORDER BY ALL").fetchall(),
                    conn.execute("SELECT user_id, days_inactive FROM bi.inactive_seats ORDER BY ALL").fetchall(),
                )
            )
    assert answers[1] == answers[0] and answers[2] == answers[0]


def test_the_seat_example_of_the_bi_docs_gives_the_share_of_seats_used_in_30_days(conn):
    blocks = re.findall(r"^```sql\n(.*?)^```", BI_DOCS.read_text(), re.M | re.S)
    (example,) = [b for b in blocks if "bi.seat_utilization" in b]
    # acme's newest day: 6 seats, 101 and 102 active in the last 30 days.
    assert conn.execute(example).fetchall() == [("acme", 6, 2, 0.33)]
