"""Every Python example of docs/bi.md runs, from a data home holding serving.duckdb and
lake/, and gives the last 28 days' agent job starts that bi.agent_usage_periods gives."""

from __future__ import annotations

import re

import duckdb
import pytest

from pipelines.publish.lake import publish
from pipelines.warehouse import migrate
from tests.integration.bi._docs import REPO, Block, period_0_totals, python_blocks, run_block
from tests.integration.bi._warehouse import build_warehouse

BLOCKS = python_blocks()
HERE = [b for b in BLOCKS if b.runs_in is None]
ELSEWHERE = [b for b in BLOCKS if b.runs_in is not None]


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """The known warehouse published as the pipeline publishes it: a data home with lake/ and serving.duckdb."""
    root = tmp_path_factory.mktemp("bi-docs")
    data = root
    build_warehouse(data / "warehouse.duckdb")
    with duckdb.connect(str(data / "warehouse.duckdb")) as conn:
        publish(conn, lake=data / "lake", serving=data / "serving.duckdb")
    return root


def test_the_docs_have_examples_for_each_engine_that_runs_here():
    assert {b.heading for b in HERE} >= {
        "DuckDB from Python",
        "SQLAlchemy (duckdb-engine; Superset and others use it)",
        "Polars",
        "PyArrow",
    }


@pytest.mark.parametrize("block", HERE, ids=lambda b: f"line {b.line}: {b.heading}")
def test_a_python_example_of_the_bi_docs_gives_the_last_28_days_of_bi_agent_usage_periods(block: Block, published):
    want = period_0_totals(published / "serving.duckdb")
    # The known warehouse: Alpha, Charlie and Delta in the last 28 days; Bravo only before them.
    assert {agent for _, _, agent in want} == {"a-1", "c-3", "d-4"}
    assert run_block(block, cwd=published) == want


@pytest.mark.parametrize("block", ELSEWHERE, ids=lambda b: f"line {b.line}: {b.heading}")
def test_an_example_not_run_here_is_run_by_the_test_it_names(block: Block):
    runner = REPO / str(block.runs_in)
    assert runner.is_file(), f"docs/bi.md line {block.line} names {block.runs_in}, which does not exist"
    assert "python_blocks" in runner.read_text(), f"{block.runs_in} does not run the docs' blocks"


def test_the_views_table_of_the_bi_docs_lists_every_bi_view_a_migrated_warehouse_has(tmp_path):
    with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as conn:
        migrate(conn)
        views = {
            name
            for (name,) in conn.execute(
                "SELECT 'bi.' || view_name FROM duckdb_views() WHERE schema_name = 'bi'"
            ).fetchall()
        }
    listed = re.findall(r"^\| `(bi\.\w+)`", (REPO / "docs" / "bi.md").read_text(), re.M)
    assert len(listed) == len(set(listed)), "a view is listed twice"
    assert set(listed) == views and views
