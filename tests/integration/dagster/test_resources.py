"""The warehouse resource migrates a database once per process, on the first connection."""

import pipelines.defs.resources as resources
from pipelines.defs.resources import WarehouseResource


def test_the_warehouse_is_migrated_on_the_first_connection_only(tmp_path, monkeypatch):
    calls = []
    real = resources.migrate
    monkeypatch.setattr(resources, "migrate", lambda conn: calls.append(1) or real(conn))
    warehouse = WarehouseResource(database=str(tmp_path / "w.duckdb"))
    for _ in range(3):
        with warehouse.get_connection() as conn:
            assert conn.execute("SELECT count(*) FROM core.daily_totals").fetchone() == (0,)
    assert len(calls) == 1
