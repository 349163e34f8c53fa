"""An export's CSV lines → billing.user_usage rows: amounts as Decimal from their text; a line
that cannot land refused alone with its reason, the others landed; an unknown column kept in
`extra`; the product word the service's."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.transform.billing_exports import ExportLines, export_frame, export_rows
from pipelines.transform.columns import polars_types

HEADER = (
    "date,username,product,sku,model,quantity,unit_type,applied_cost_per_quantity,gross_amount,"
    "discount_amount,net_amount,exceeds_quota,total_monthly_quota,organization,cost_center_name"
)
SOURCE = ExportLines("big", date(2026, 10, 1), date(2026, 10, 31), datetime(2026, 11, 5, tzinfo=UTC), True, "github")


def _line(day: str = "2026-10-02", user: str = "ann", net: str = "0.12", **over: str) -> str:
    values = {
        "date": day,
        "username": user,
        "product": "copilot",
        "sku": "copilot_ai_credit",
        "model": "Auto: Claude Haiku 4.5",
        "quantity": "12",
        "unit_type": "ai-credits",
        "applied_cost_per_quantity": "0.01",
        "gross_amount": "0.12",
        "discount_amount": "0",
        "net_amount": net,
        "exceeds_quota": "False",
        "total_monthly_quota": "3000",
        "organization": "acme",
        "cost_center_name": "Platform",
    } | over
    return ",".join(f'"{v}"' if "," in v or ":" in v else v for v in values.values())


def _numbered(*lines: str) -> list[tuple[int, str]]:
    return list(enumerate((HEADER, *lines), start=1))


def test_a_line_lands_typed_with_the_service_s_product_word():
    rows = export_rows(_numbered(_line()), SOURCE)
    assert rows.refused == []
    frame = export_frame(rows.rows)
    assert frame.schema == polars_types("billing.user_usage")
    row = frame.row(0, named=True)
    assert (row["product"], row["sku"], row["model"]) == ("assistant", "assistant_ai_credit", "Auto: Claude Haiku 4.5")
    assert (row["net_amount"], row["exceeds_quota"], row["month_closed"]) == (Decimal("0.12"), False, True)


def test_each_line_that_cannot_land_is_refused_alone_with_its_reason():
    rows = export_rows(
        _numbered(
            _line(user="ann"),
            _line(day="2026-13-01"),
            _line(day="2026-11-01"),
            _line(net="twelve"),
            _line(user=""),
            "2026-10-02,bob",
            _line(user="ann"),
            _line(user="cyd"),
        ),
        SOURCE,
    )
    assert [row["user_login"] for row in rows.rows] == ["ann", "cyd"]
    reasons = {number: reason for number, reason, _ in rows.refused}
    assert sorted(reasons) == [3, 4, 5, 6, 7, 8]
    assert "not a date" in reasons[3] and "outside the export's period" in reasons[4]
    assert "not an amount" in reasons[5] and "no username" in reasons[6]
    assert "fields where the header names" in reasons[7] and "repeats line 2" in reasons[8]


def test_a_header_without_the_user_column_makes_the_file_unreadable_and_says_why():
    rows = export_rows([(1, "date,product,sku,quantity,gross_amount,discount_amount,net_amount")], SOURCE)
    assert (rows.rows, rows.refused, rows.unreadable) == ([], [], "its header names no username column")


@pytest.mark.parametrize("amount", ["quantity", "gross_amount", "discount_amount", "net_amount"])
def test_a_header_without_an_amount_the_views_need_makes_the_file_unreadable_not_null_money(amount):
    header = ",".join(name for name in HEADER.split(",") if name != amount)
    line = ",".join(value for name, value in zip(HEADER.split(","), _line().split(","), strict=False) if name != amount)
    rows = export_rows([(1, header), (2, line)], SOURCE)
    assert (rows.rows, rows.unreadable) == ([], f"its header names no {amount} column")


def test_a_file_without_a_header_line_is_unreadable():
    assert export_rows([(1, "  ")], SOURCE).unreadable == "it holds no header line"


@given(st.lists(st.sampled_from(["ann", "bob", "cyd", "dee"]), unique=True, min_size=1))
def test_a_utf8_byte_order_mark_before_the_header_is_read_as_the_encoding_mark(users: list[str]):
    lines = _numbered(*(_line(user=user) for user in users))
    marked = [(1, "\ufeff" + lines[0][1]), *lines[1:]]
    plain, with_mark = export_rows(lines, SOURCE), export_rows(marked, SOURCE)
    assert with_mark.unreadable is None and with_mark.refused == []
    assert with_mark.rows == plain.rows and [row["user_login"] for row in plain.rows] == users


def test_a_column_the_header_adds_is_kept_in_extra():
    rows = export_rows([(1, HEADER + ",repository"), (2, _line() + ",acme/api")], SOURCE)
    assert json.loads(rows.rows[0]["extra"]) == {"repository": "acme/api"}


@given(st.decimals(min_value=-(10**11), max_value=10**11, places=6, allow_nan=False, allow_infinity=False))
def test_any_amount_of_six_places_lands_exactly(amount: Decimal):
    rows = export_rows(_numbered(_line(net=str(amount))), SOURCE)
    assert export_frame(rows.rows)["net_amount"].to_list() == [amount]
