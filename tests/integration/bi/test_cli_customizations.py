"""bi.cli_customizations_daily over reports the emulator served, in both dialects: the scope's
top five as the aggregate report gave them, users as the user rows name them, the distinct
counts beside them, and plugin counts inside skill counts."""

from datetime import timedelta

import pytest

from pipelines.service import ReportRef
from tests.integration.bi._landed import landed_warehouse
from tests.integration.ingest.conftest import TODAY

DAY = TODAY - timedelta(days=8)


@pytest.fixture(scope="module", params=["service", "github"])
def conn(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    refs = [ReportRef("organization", "acme", "1-day", level, DAY) for level in ("aggregate", "user")]
    c = landed_warehouse(tmp_path_factory, "customizations", seed=74, users=150, dialect=request.param, refs=refs)
    yield c
    c.close()


def test_every_category_lands_with_no_drift(conn):
    categories = {c for (c,) in conn.execute("SELECT DISTINCT category FROM core.cli_customizations").fetchall()}
    assert categories == {"skill", "custom_agent", "mcp", "slash_cmd", "plugin"}
    assert conn.execute("SELECT count(*) FROM raw.field_drift").fetchone() == (0,)


def test_the_view_s_users_are_the_user_rows_naming_it_and_its_counts_the_aggregate_s(conn):
    view = {
        (c, n): (count, users, distinct)
        for c, n, count, users, distinct in conn.execute(
            "SELECT category, name, interaction_count, users, distinct_in_scope FROM bi.cli_customizations_daily"
        ).fetchall()
    }
    users = dict(
        ((c, n), u)
        for c, n, u in conn.execute(
            "SELECT category, name, count(DISTINCT user_id) FROM core.cli_customizations"
            " WHERE level = 'user' GROUP BY ALL"
        ).fetchall()
    )
    top = dict(
        ((c, n), k)
        for c, n, k in conn.execute(
            "SELECT category, name, interaction_count FROM core.cli_customizations WHERE level = 'aggregate'"
        ).fetchall()
    )
    assert {key: row[1] for key, row in view.items() if row[1]} == users
    assert {key: row[0] for key, row in view.items() if row[0] is not None} == top
    # The scope's top five are at most five a category, and the distinct count covers them.
    for category in ("skill", "custom_agent", "mcp", "slash_cmd", "plugin"):
        names = [key for key in top if key[0] == category]
        assert len(names) <= 5
        distinct = {row[2] for key, row in view.items() if key[0] == category}
        assert all(d is not None and d >= len(names) for d in distinct), category
    # Names a customer defined are grouped, and said to be.
    grouped = {n for (n,) in conn.execute("SELECT name FROM bi.cli_customizations_daily WHERE grouped").fetchall()}
    assert grouped <= {"other", "custom"} and grouped


def test_a_plugin_s_count_is_inside_the_skill_counts(conn):
    (plugins, skills) = conn.execute(
        "SELECT sum(interaction_count) FILTER (WHERE category = 'plugin'),"
        " sum(interaction_count) FILTER (WHERE category = 'skill')"
        " FROM core.cli_customizations WHERE level = 'user'"
    ).fetchone()
    assert 0 < plugins <= skills
