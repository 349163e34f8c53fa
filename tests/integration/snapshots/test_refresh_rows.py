"""A webhook refresh's rows in a real DuckDB warehouse: the named repositories' rows replaced, the
day's others kept, all or nothing."""

from datetime import date

import duckdb
import polars as pl
import pytest

from pipelines.transform import snapshots as tf
from pipelines.warehouse import migrate
from pipelines.warehouse.snapshots import (
    SNAPSHOT_TABLES,
    refresh_snapshot_repositories,
    replace_snapshot_day,
)

DAY = date(2026, 11, 20)


@pytest.fixture
def conn(tmp_path):
    connection = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(connection)
    yield connection
    connection.close()


def _repository_frames(
    repos: dict[int, str], *, issues: dict[int, list[int]], title: str = "t", warnings: tuple[str, ...] = ()
) -> dict[str, pl.DataFrame]:
    """The rows of `repos` (id → owner/name) and their issues (repository id → issue ids)."""
    records = [
        {"id": i, "full_name": n, "name": n.split("/")[1], "owner": {"login": "acme", "id": 1}}
        for i, n in repos.items()
    ]
    return {
        "repositories": tf.repositories_frame(records=records, day=DAY),
        "repository_stats": tf.repository_stats_frame(
            nodes=[(i, n, {"stargazerCount": 3}) for i, n in repos.items()], day=DAY
        ),
        "issues": tf.concat_frames(
            frames=[
                tf.issues_frame(
                    records=[{"id": issue, "number": issue, "title": title, "labels": []} for issue in ids],
                    day=DAY,
                    repository_id=i,
                    repository_full_name=repos[i],
                )
                for i, ids in issues.items()
            ],
            schema=tf.ISSUES_SCHEMA,
            key="issue_id",
        ),
        "warnings": tf.warnings_frame(
            warnings=[
                {"repository": r, "endpoint": "repository", "status": 404, "message": "Not Found"} for r in warnings
            ],
            day=DAY,
        ),
    }


def _whole_day() -> dict[str, pl.DataFrame]:
    frames = _repository_frames(
        {11: "acme/api", 12: "acme/web", 13: "acme/gone"}, issues={11: [1, 2], 12: [3], 13: [4]}, warnings=("acme/old",)
    )
    return frames | {"org_members": tf.org_members_frame(records=[{"id": 5, "login": "ann"}], day=DAY, org="acme")}


def _dump(conn, query: str) -> list[tuple]:
    return conn.sql(query).fetchall()


def _others(conn) -> dict[str, list[tuple]]:
    return {
        "repositories": _dump(conn, "SELECT * FROM snapshots.repositories WHERE repository_id = 12"),
        "repository_stats": _dump(conn, "SELECT * FROM snapshots.repository_stats WHERE repository_id = 12"),
        "issues": _dump(conn, "SELECT * FROM snapshots.issues WHERE repository_id = 12"),
        "org_members": _dump(conn, "SELECT * FROM snapshots.org_members"),
        "warnings": _dump(conn, "SELECT * FROM snapshots.warnings WHERE repository = 'acme/old'"),
    }


def _land_whole_day(conn) -> None:
    # The seat tables land empty, as a snapshot without seats does.
    empty = {t: conn.sql(f"SELECT * FROM snapshots.{t}").pl() for t in SNAPSHOT_TABLES}
    replace_snapshot_day(conn, day=DAY, frames=empty | _whole_day())


def test_a_refresh_replaces_the_named_repositories_rows_and_keeps_the_day_s_others(conn):
    _land_whole_day(conn)
    kept = _others(conn)
    # acme/api renamed acme/core (same id) with a new issue; acme/gone answers 404 now.
    refresh = _repository_frames({11: "acme/core"}, issues={11: [1, 2, 9]}, title="new", warnings=("acme/gone",))
    refresh_snapshot_repositories(conn, day=DAY, frames=refresh, names=["acme/core", "acme/gone"])

    assert _others(conn) == kept
    assert _dump(conn, "SELECT repository_id, full_name FROM snapshots.repositories ORDER BY 1") == [
        (11, "acme/core"),
        (12, "acme/web"),
    ]
    assert _dump(conn, "SELECT issue_id, repository_full_name, title FROM snapshots.issues ORDER BY 1") == [
        (1, "acme/core", "new"),
        (2, "acme/core", "new"),
        (3, "acme/web", "t"),
        (9, "acme/core", "new"),
    ]
    assert _dump(conn, "SELECT repository FROM snapshots.warnings ORDER BY 1") == [("acme/gone",), ("acme/old",)]
    # The same refresh again: the same day.
    before = {t: _dump(conn, f"SELECT * FROM snapshots.{t} ORDER BY ALL") for t in SNAPSHOT_TABLES}
    refresh_snapshot_repositories(conn, day=DAY, frames=refresh, names=["acme/core", "acme/gone"])
    assert {t: _dump(conn, f"SELECT * FROM snapshots.{t} ORDER BY ALL") for t in SNAPSHOT_TABLES} == before


def test_a_refresh_that_fails_midway_leaves_the_day_as_it_was(conn):
    _land_whole_day(conn)
    before = {t: _dump(conn, f"SELECT * FROM snapshots.{t} ORDER BY ALL") for t in SNAPSHOT_TABLES}
    refresh = _repository_frames({11: "acme/api"}, issues={11: [1]}, title="new")
    # Issue 3 belongs to acme/web, which this refresh keeps: its insert breaks the key after the
    # deletes and the repositories' inserts ran.
    clash = refresh["issues"].with_columns(pl.lit(3, dtype=pl.Int64).alias("issue_id"))
    refresh["issues"] = pl.concat([refresh["issues"], clash])
    with pytest.raises(duckdb.ConstraintException):
        refresh_snapshot_repositories(conn, day=DAY, frames=refresh, names=["acme/api"])
    assert {t: _dump(conn, f"SELECT * FROM snapshots.{t} ORDER BY ALL") for t in SNAPSHOT_TABLES} == before
