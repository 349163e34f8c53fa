from pipelines._paths import SQL_DIR


def test_sql_dir_holds_schema_views_and_queries():
    assert {p.name for p in SQL_DIR.iterdir() if p.is_dir()} >= {"schema", "views", "queries"}
