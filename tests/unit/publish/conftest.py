from pathlib import Path

import duckdb
import pytest

from pipelines.warehouse import migrate


@pytest.fixture
def conn(tmp_path: Path):
    """A migrated warehouse file of the test's own."""
    c = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(c)
    yield c
    c.close()
