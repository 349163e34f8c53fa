"""A snapshot day of the billing state lands whole or not at all; a re-run replaces it; an owner
not fetched again keeps what it had."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from pipelines.transform import billing_state as tf
from pipelines.warehouse.billing_state import STATE_TABLES, replace_state_day

DAY = date(2026, 11, 27)
AT = datetime(2026, 11, 27, 6, tzinfo=UTC)


def _frames(enterprise: str, centers: int, org: str = "acme") -> dict:
    records = [
        {"id": f"cc-{i}", "name": f"C{i}", "resources": [{"type": "User", "name": f"dev-{i}"}]} for i in range(centers)
    ]
    cost_centers, resources = tf.cost_center_frames(records, day=DAY, enterprise=enterprise, fetched_at=AT)
    return {
        "billing.cost_centers": cost_centers,
        "billing.cost_center_resources": resources,
        "billing.budgets": tf.budgets_frame([{"id": "b-1"}], day=DAY, enterprise=enterprise, fetched_at=AT),
        "billing.budget_user_states": tf.budget_user_states_frame(
            {"b-1": [{"user": "dev-0", "consumed_amount": 1, "target_amount": 2}]},
            day=DAY,
            enterprise=enterprise,
            fetched_at=AT,
        ),
        "billing.seat_breakdown": tf.seat_breakdown_frame(
            {org: {"seat_breakdown": {"total": 3}}}, day=DAY, fetched_at=AT
        ),
    }


def _counts(conn) -> dict[str, int]:
    return {t.name: conn.sql(f"SELECT count(*) FROM {t.name}").fetchall()[0][0] for t in STATE_TABLES}


def test_a_re_run_of_the_day_replaces_it(conn):
    replace_state_day(conn, day=DAY, frames=_frames("big", 3), owners=("big", "acme"))
    replace_state_day(conn, day=DAY, frames=_frames("big", 2), owners=("big", "acme"))
    assert _counts(conn) == {
        "billing.cost_centers": 2,
        "billing.cost_center_resources": 2,
        "billing.budgets": 1,
        "billing.budget_user_states": 1,
        "billing.seat_breakdown": 1,
    }


def test_an_owner_not_read_again_keeps_its_rows_of_the_day(conn):
    replace_state_day(conn, day=DAY, frames=_frames("big", 3), owners=("big", "acme"))
    empty = {name: frame.clear() for name, frame in _frames("other", 0).items()}
    replace_state_day(conn, day=DAY, frames=empty, owners=())
    assert _counts(conn)["billing.cost_centers"] == 3


def test_a_failing_table_leaves_the_day_as_it_was(conn):
    replace_state_day(conn, day=DAY, frames=_frames("big", 3), owners=("big", "acme"))
    frames = _frames("big", 1)
    # Two rows of one key: the primary key refuses the last table's insert, after the others ran.
    frames["billing.seat_breakdown"] = frames["billing.seat_breakdown"].vstack(frames["billing.seat_breakdown"])
    with pytest.raises(Exception, match=r"(?i)constraint|duplicate"):
        replace_state_day(conn, day=DAY, frames=frames, owners=("big", "acme"))
    assert _counts(conn)["billing.cost_centers"] == 3


def test_frames_of_another_day_are_refused(conn):
    frames = _frames("big", 1)
    with pytest.raises(ValueError, match="other than"):
        replace_state_day(conn, day=date(2026, 11, 26), frames=frames, owners=("big",))
