"""docs/emulator.md shows the documented values as pipelines/transform/values.py declares them."""

from pathlib import Path

from pipelines.transform.values import values_markdown

ROOT = Path(__file__).resolve().parents[3]


def test_the_emulator_docs_table_is_the_declared_documented_values() -> None:
    text = (ROOT / "docs" / "emulator.md").read_text()
    table = text.split("<!-- values -->\n")[1].split("\n<!-- /values -->")[0]
    assert table == values_markdown(), "paste values_markdown() between the markers of docs/emulator.md"
