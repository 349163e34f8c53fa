"""The record field declarations (pipelines/transform/schema.py) against the docs that show them."""

from __future__ import annotations

from pathlib import Path

from pipelines.transform.schema import RECORD_FIELDS, fields_markdown, totals_columns

ROOT = Path(__file__).resolve().parents[3]


def test_the_docs_field_table_is_the_declarations_rendered() -> None:
    text = (ROOT / "docs" / "ingest.md").read_text()
    block = text.split("<!-- fields -->\n")[1].split("\n<!-- /fields -->")[0]
    assert block == fields_markdown(), "paste pipelines.transform.schema.fields_markdown() between the markers"


def test_every_declared_field_lands_in_a_totals_table_of_a_level() -> None:
    landed = set(totals_columns("user")) | set(totals_columns("aggregate"))
    assert set(RECORD_FIELDS) <= landed
