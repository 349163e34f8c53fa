"""docs/metrics.md is the generator's output from the declarations, word for word."""

from __future__ import annotations

from pathlib import Path

from pipelines.metrics.catalog import METRICS
from pipelines.metrics.docs import render

DOC = Path(__file__).resolve().parents[3] / "docs" / "metrics.md"


def test_docs_metrics_md_is_written_from_the_declarations() -> None:
    assert DOC.read_text() == render(), "write it again: python -m pipelines.metrics.docs > docs/metrics.md"


def test_the_page_names_every_metric_and_says_how_to_add_one() -> None:
    text = render()
    assert all(f"### `{name}`" in text for name in METRICS)
    assert "## How to add a metric: one declaration" in text


def test_the_page_sends_whoever_asks_from_an_assistant_to_docs_assistants_md() -> None:
    text = render()
    assert "To ask these from an AI assistant, see [assistants.md](assistants.md)" in text
    assert (DOC.parent / "assistants.md").is_file()
