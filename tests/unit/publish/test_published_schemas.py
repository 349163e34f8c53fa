"""The lake publishes every table of the catalog's schemas: a schema the catalog gains is published
with no list of schemas to edit (pipelines/publish/_serving.py derives them)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# The catalog given a table in a schema of its own, then a warehouse holding it published, in a
# fresh interpreter: the publishing modules read the catalog on import.
_PUBLISH_A_GAINED_SCHEMA = """
import sys
from pathlib import Path
import duckdb
import pipelines.warehouse.catalog as catalog
catalog.TABLES = (*catalog.TABLES, catalog.Table("gained", "table_of_its_own", ("id",), "A table in a new schema."))
from pipelines.publish.lake import publish
from pipelines.warehouse import migrate
home = Path(sys.argv[1])
conn = duckdb.connect(str(home / "warehouse.duckdb"))
migrate(conn)
conn.execute("CREATE SCHEMA gained; CREATE TABLE gained.table_of_its_own (id BIGINT)")
conn.execute("INSERT INTO gained.table_of_its_own VALUES (7)")
publish(conn, lake=home / "lake", serving=home / "serving.duckdb")
with duckdb.connect(str(home / "serving.duckdb"), read_only=True) as serving:
    print(serving.execute("SELECT id FROM gained.table_of_its_own").fetchall())
"""


def test_a_table_in_a_schema_the_catalog_gains_is_published_to_the_lake_and_the_serving_database(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", _PUBLISH_A_GAINED_SCHEMA, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[(7,)]"
