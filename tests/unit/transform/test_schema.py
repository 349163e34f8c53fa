"""The record field declarations (pipelines/transform/schema.py) against the docs that show them."""

from __future__ import annotations

from pathlib import Path

from pipelines.transform._columns_billing import BILLING
from pipelines.transform._columns_core import CORE
from pipelines.transform.schema import RECORD_FIELDS, fields_markdown, totals_columns

ROOT = Path(__file__).resolve().parents[3]


def test_the_docs_field_table_is_the_declarations_rendered() -> None:
    text = (ROOT / "docs" / "ingest.md").read_text()
    block = text.split("<!-- fields -->\n")[1].split("\n<!-- /fields -->")[0]
    assert block == fields_markdown(), "paste pipelines.transform.schema.fields_markdown() between the markers"


def test_every_declared_field_lands_in_a_totals_table_of_a_level() -> None:
    landed = set(totals_columns("user")) | set(totals_columns("aggregate"))
    assert set(RECORD_FIELDS) <= landed


def test_no_credit_or_money_column_is_a_float() -> None:
    """Credits and money are summed across people and days: a DOUBLE sum depends on the order the
    rows are added in, so a re-landed day could change a total with no credit changed."""
    money = ("credit", "amount", "cost", "price")
    floats = [
        f"{table}.{column}"
        for table, columns in (CORE | BILLING).items()
        for column, kind in (c.split(" ", 1) for c in columns)
        if any(word in column for word in money) and kind.split()[0] in {"DOUBLE", "FLOAT", "REAL"}
    ]
    assert floats == []
