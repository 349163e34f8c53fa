"""A usage answer's items as rows: declared fields in their columns as Decimal, the product word
canonical, a missing key '' and never NULL, and any other field kept in `extra` and told as drift."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.service.billing import parse_usage
from pipelines.service.billing_wire import Dialect
from pipelines.transform.billing_usage import UsageRows, usage_rows
from pipelines.warehouse.catalog import table

FETCHED = datetime(2026, 11, 20, 8, tzinfo=UTC)
ITEM = {
    "product": "copilot",
    "sku": "copilot_ai_credit",
    "model": "Auto: Claude Haiku 4.5",
    "unitType": "ai-credits",
    "pricePerUnit": 0.01,
    "grossQuantity": 1907,
    "grossAmount": 19.07,
    "discountQuantity": 300,
    "discountAmount": 3.0,
    "netQuantity": 1607,
    "netAmount": 16.07,
}
SNAKE = {
    "product": "assistant",
    "sku": "assistant_ai_credit",
    "model": "Auto: Claude Haiku 4.5",
    "unit_type": "ai-credits",
    "price_per_unit": 0.01,
    "gross_quantity": 1907,
    "gross_amount": 19.07,
    "discount_quantity": 300,
    "discount_amount": 3.0,
    "net_quantity": 1607,
    "net_amount": 16.07,
}


def _rows(body: dict[str, Any], dialect: Dialect, tablename: str = "billing.credit_usage") -> UsageRows:
    answer = parse_usage(json.dumps(body).encode(), dialect=dialect, url="/u")
    out = UsageRows(tablename)
    usage_rows(
        out,
        answer.items,
        dialect=dialect,
        day=date(2026, 11, 19),
        envelope=answer.envelope,
        fixed={"scope": "enterprise", "scope_name": "acme", "meter": "ai_credit"},
        grain=table(tablename).grain,
        fetched_at=FETCHED,
        month_closed=False,
    )
    return out


@pytest.mark.parametrize(
    ("dialect", "body"),
    [
        ("github", {"timePeriod": {"year": 2026}, "usageItems": [ITEM]}),
        ("service", {"time_period": {"year": 2026}, "usage_items": [SNAKE]}),
    ],
)
def test_both_dialects_land_the_same_row_with_decimal_money(dialect: Dialect, body: dict[str, Any]) -> None:
    frame = _rows(body, dialect).frame()
    row = frame.row(0, named=True)
    assert row["product"] == "assistant" and row["sku"] == "assistant_ai_credit"
    assert row["net_amount"] == Decimal("16.07") and row["gross_quantity"] == Decimal(1907)
    assert row["price_per_unit"] == Decimal("0.01") and row["extra"] is None
    assert row["day"] == date(2026, 11, 19) and row["month_closed"] is False


def test_an_undeclared_field_lands_in_extra_exactly_and_is_told_as_drift() -> None:
    out = _rows({"usageItems": [ITEM | {"carbonGrams": 0.123456789}], "newEnvelope": True}, "github")
    row = out.frame().row(0, named=True)
    assert json.loads(row["extra"]) == {"carbonGrams": "0.123456789"}
    assert out.drift.counts == {
        (date(2026, 11, 19), "usageItems[].carbonGrams", "undeclared"): 1,
        (date(2026, 11, 19), "newEnvelope", "undeclared"): 1,
    }


def test_a_billing_usage_line_without_a_repository_keys_on_an_empty_name() -> None:
    line = {
        "date": "2026-11-03",
        "product": "copilot",
        "sku": "copilot_ai_credit",
        "quantity": 12,
        "unitType": "ai-credits",
        "pricePerUnit": 0.01,
        "grossAmount": 0.12,
        "discountAmount": 0,
        "netAmount": 0.12,
        "organizationName": "acme",
    }
    answer = parse_usage(json.dumps({"usageItems": [line]}).encode(), dialect="github", url="/u")
    out = UsageRows("billing.product_usage")
    usage_rows(
        out,
        answer.items,
        dialect="github",
        day=None,
        envelope=answer.envelope,
        fixed={"scope": "organization", "scope_name": "acme"},
        grain=table("billing.product_usage").grain,
        fetched_at=FETCHED,
        month_closed=True,
    )
    row = out.frame().row(0, named=True)
    assert row["repository_name"] == "" and row["day"] == date(2026, 11, 3) and row["quantity"] == Decimal(12)


def _one_amount(net: object) -> tuple[UsageRows, int]:
    answer = parse_usage(json.dumps({"usageItems": [ITEM]}).encode(), dialect="github", url="/u")
    out = UsageRows("billing.credit_usage")
    unheld = usage_rows(
        out,
        [answer.items[0] | {"netAmount": net}],
        dialect="github",
        day=date(2026, 11, 19),
        envelope={},
        fixed={"scope": "enterprise", "scope_name": "acme", "meter": "ai_credit"},
        grain=table("billing.credit_usage").grain,
        fetched_at=FETCHED,
        month_closed=True,
    )
    return out, unheld


_HELD = st.decimals(min_value=Decimal(-(10**32) + 1), max_value=Decimal(10**32 - 1), places=6, allow_nan=False)


@given(net=_HELD, as_text=st.booleans())
def test_an_amount_a_money_column_holds_lands_exactly_whether_sent_as_a_number_or_a_decimal_string(
    net: Decimal, as_text: bool
) -> None:
    sent = format(net, "f") if as_text else net
    out, unheld = _one_amount(sent)
    row = out.frame().row(0, named=True)
    assert (row["net_amount"], row["extra"], unheld) == (net, None, 0)
    assert not [key for key in out.drift.counts if key[2] != "inconsistent"]


@pytest.mark.parametrize(
    ("sent", "drift"),
    [
        ("0.18 USD", "mistyped"),
        ("NaN", "mistyped"),
        (" 0.18", "mistyped"),
        (True, "mistyped"),
        ({"amount": 1}, "mistyped"),
        (Decimal(10) ** 32, "unheld"),
        ("1e40", "unheld"),
        (Decimal("0.1234567"), "unheld"),
    ],
)
def test_an_amount_no_money_column_holds_is_null_kept_in_extra_as_sent_told_as_drift_and_reopens_its_day(
    sent: object, drift: str
) -> None:
    out, unheld = _one_amount(sent)
    row = out.frame().row(0, named=True)
    assert row["net_amount"] is None and unheld == 1
    assert json.loads(row["extra"]) == {"netAmount": json.loads(json.dumps(sent, default=str))}
    assert out.drift.counts[(date(2026, 11, 19), "usageItems[].netAmount", drift)] == 1
    assert out.reopen(0) is False and out.frame()["month_closed"].to_list() == [False]


def test_two_items_of_one_key_in_an_answer_are_one_line_their_amounts_summed_and_told() -> None:
    twice = {"usageItems": [ITEM, ITEM | {"grossAmount": 1, "discountAmount": 0, "netAmount": 1}]}
    out = _rows(twice, "github")
    (row,) = out.frame().iter_rows(named=True)
    assert (row["gross_amount"], row["discount_amount"], row["net_amount"]) == (
        Decimal("20.07"),
        Decimal("3"),
        Decimal("17.07"),
    )
    assert row["gross_quantity"] == Decimal(1907 * 2) and row["price_per_unit"] == Decimal("0.01")
    assert out.drift.counts[(date(2026, 11, 19), "usageItems[]", "repeated")] == 1


def test_an_item_whose_gross_less_discount_is_not_its_net_lands_as_sent_and_is_told_naming_it() -> None:
    out = _rows({"usageItems": [ITEM | {"discountAmount": -0.04}]}, "github")
    row = out.frame().row(0, named=True)
    assert (row["discount_amount"], row["net_amount"]) == (Decimal("-0.04"), Decimal("16.07"))
    assert out.drift.counts[(date(2026, 11, 19), "usageItems[].netAmount", "inconsistent")] == 1
    (told,) = out.told
    assert told.startswith("2026-11-19 assistant assistant_ai_credit Auto: Claude Haiku 4.5: gross_amount 19.07")
    assert told.endswith("net_amount 16.07 (differs by -3.04)")


def test_two_items_of_one_key_keep_both_extras_and_a_sum_no_column_holds_is_kept_not_landed() -> None:
    big = ITEM | {"netAmount": 10**32 - 1, "carbonGrams": 1}
    out = _rows({"usageItems": [big, big | {"carbonGrams": 2}]}, "github")
    (row,) = out.frame().iter_rows(named=True)
    assert row["net_amount"] is None and row["gross_amount"] == Decimal("38.14")
    assert json.loads(row["extra"]) == {"carbonGrams": [1, 2], "netAmount": str(2 * (10**32 - 1))}
    assert out.drift.counts[(date(2026, 11, 19), "usageItems[].netAmount", "unheld")] == 1
