"""The billing state's answers → typed frames: money as DECIMAL, never a float; what no
column declares, or a value that does not fit its column, kept in `extra`; a User resource's
login in its person column, other resources none."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from pipelines.transform import billing_state as tf
from pipelines.transform.columns import polars_types

DAY = date(2026, 11, 27)
AT = datetime(2026, 11, 27, 6, tzinfo=UTC)


def test_cost_centers_keep_their_amounts_exact_and_list_each_resource():
    centers, resources = tf.cost_center_frames(
        [
            {
                "id": "cc-1",
                "name": "Platform",
                "state": "active",
                "ai_credit_pool_enabled": True,
                "ai_credit_pool_state": {"target_amount": 21000, "current_amount": Decimal("7250.5")},
                "resources": [
                    {"type": "User", "name": "dev-00018"},
                    {"type": "Team", "name": "platform"},
                    {"type": "Organization", "name": "acme"},
                ],
            }
        ],
        day=DAY,
        enterprise="big",
        fetched_at=AT,
    )
    assert centers.schema == polars_types("billing.cost_centers")
    row = centers.row(0, named=True)
    assert row["ai_credit_pool_target_amount"] == Decimal("21000")
    assert row["ai_credit_pool_current_amount"] == Decimal("7250.5")
    assert row["extra"] is None
    assert resources.select("resource_type", "resource_name").rows() == [
        ("User", "dev-00018"),
        ("Team", "platform"),
        ("Organization", "acme"),
    ]


def test_a_mistyped_amount_lands_null_and_is_kept_in_extra():
    frame = tf.budgets_frame(
        [
            {
                "id": "b-1",
                "budget_type": "SkuPricing",
                "budget_amount": "lots",
                "prevent_further_usage": True,
                "budget_scope": "enterprise",
                "budget_product_sku": "copilot_ai_credit",
                "budget_alerting": {"will_alert": True, "alert_recipients": ["mona"]},
                "new_field": 3,
            }
        ],
        day=DAY,
        enterprise="big",
        fetched_at=AT,
    )
    row = frame.row(0, named=True)
    assert row["budget_amount"] is None
    assert row["will_alert"] is True
    assert json.loads(row["extra"]) == {"budget_amount": "lots", "new_field": 3}


def test_a_budget_alerting_member_no_column_declares_keeps_the_object_in_extra():
    frame = tf.budgets_frame(
        [{"id": "b", "budget_alerting": {"will_alert": False, "alert_recipients": [], "channel": "mail"}}],
        day=DAY,
        enterprise="big",
        fetched_at=AT,
    )
    assert json.loads(frame["extra"][0]) == {
        "budget_alerting": {"will_alert": False, "alert_recipients": [], "channel": "mail"}
    }


def test_user_states_are_one_row_per_budget_and_user():
    frame = tf.budget_user_states_frame(
        {
            "b-1": [
                {"user": "octocat", "consumed_amount": Decimal("50.5"), "target_amount": 1000},
                {"user": "monalisa", "consumed_amount": 250, "target_amount": 1000, "override_budget_id": "b-2"},
            ],
            "b-2": [],
        },
        day=DAY,
        enterprise="big",
        fetched_at=AT,
    )
    assert frame.select("budget_id", "user_login", "consumed_amount", "override_budget_id").rows() == [
        ("b-1", "octocat", Decimal("50.5"), None),
        ("b-1", "monalisa", Decimal("250"), "b-2"),
    ]


def test_seat_breakdown_is_one_row_per_organization_with_its_policies():
    frame = tf.seat_breakdown_frame(
        {
            "acme": {
                "seat_breakdown": {"total": 12, "added_this_cycle": 9, "active_this_cycle": 12},
                "seat_management_setting": "assign_selected",
                "plan_type": "business",
            }
        },
        day=DAY,
        fetched_at=AT,
    )
    row = frame.row(0, named=True)
    assert (row["org_login"], row["total"], row["pending_invitation"], row["plan_type"]) == (
        "acme",
        12,
        None,
        "business",
    )


_AMOUNTS = st.decimals(min_value=-(10**11), max_value=10**11, places=6, allow_nan=False, allow_infinity=False)


@given(consumed=_AMOUNTS, target=_AMOUNTS)
def test_any_amount_of_six_places_lands_exactly(consumed: Decimal, target: Decimal):
    frame = tf.budget_user_states_frame(
        {"b": [{"user": "u", "consumed_amount": consumed, "target_amount": target}]},
        day=DAY,
        enterprise="big",
        fetched_at=AT,
    )
    assert frame.select("consumed_amount", "target_amount").row(0) == (consumed, target)
    assert frame.schema["consumed_amount"] == pl.Decimal(18, 6)
