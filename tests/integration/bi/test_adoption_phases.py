"""bi.adoption_phases over reports the emulator served, in both dialects: the phases as the
aggregate report gave them, their averages weighing back to the day's totals, the 28-day
population from the 28-day report, and the user rows' phases beside them."""

import re
from datetime import timedelta

import pytest

from pipelines._paths import SQL_DIR
from pipelines.service import ReportRef
from tests.integration.bi._landed import landed_warehouse
from tests.integration.ingest.conftest import TODAY

DAY = TODAY - timedelta(days=8)


@pytest.fixture(scope="module", params=["service", "github"])
def conn(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    refs = [
        *(ReportRef("organization", "acme", "1-day", level, DAY) for level in ("aggregate", "user")),
        ReportRef("enterprise", "acme-corp", "28-day", "aggregate"),
    ]
    c = landed_warehouse(tmp_path_factory, "phases", seed=75, users=150, dialect=request.param, refs=refs)
    yield c
    c.close()


def test_phases_land_with_no_drift_and_their_averages_weigh_back_to_the_day_s_totals(conn):
    assert conn.execute("SELECT count(*) FROM raw.field_drift").fetchone() == (0,)
    phases = conn.execute(
        "SELECT phase_number, phase, engaged_users, avg_user_initiated_interactions, avg_loc_added"
        " FROM bi.adoption_phases WHERE scope = 'organization' AND day = ? ORDER BY phase_number",
        [DAY],
    ).fetchall()
    assert [p[0] for p in phases]
    # The emulator's phases hold the users active in an IDE that day (its user lines with an IDE
    # entry), not those active only in the app or by server-side telemetry alone.
    engaged, interactions, loc_added = conn.execute(
        "SELECT count(*), sum(user_initiated_interaction_count), sum(loc_added_sum) FROM core.user_daily_totals AS u"
        " WHERE scope = 'organization' AND day = ? AND (user_initiated_interaction_count > 0"
        "  OR code_generation_activity_count > 0) AND EXISTS (SELECT 1 FROM core.breakdowns AS b WHERE b.kind = 'ide'"
        "  AND b.level = 'user' AND b.scope = u.scope AND b.day = u.day AND b.user_id = u.user_id)",
        [DAY],
    ).fetchone()
    assert sum(p[2] for p in phases) == engaged
    # Averages per engaged user, rounded to cents by the service: weighed back, the day's totals.
    assert abs(sum(p[2] * p[3] for p in phases) - interactions) <= 0.01 * engaged
    assert abs(sum(p[2] * p[4] for p in phases) - loc_added) <= 0.01 * engaged


def test_each_phase_carries_the_service_s_label_no_cohort_for_phase_0(conn):
    labels = conn.execute(
        "SELECT DISTINCT phase_number, phase FROM bi.adoption_phases ORDER BY phase_number"
    ).fetchall()
    assert labels == [(0, "No Cohort"), (1, "Phase 1"), (2, "Phase 2"), (3, "Phase 3")]
    assert conn.execute("SELECT phase_number, phase FROM bi.adoption_phase_labels ORDER BY 1").fetchall() == labels


def test_no_sql_file_builds_a_phase_label_from_its_number():
    built = [p.name for p in SQL_DIR.rglob("*.sql") if re.search(r"'Phase '\s*\|\|", p.read_text())]
    assert built == []


def test_the_user_rows_phases_are_beside_the_aggregate_s(conn):
    rows = conn.execute(
        "SELECT phase_number, users_in_user_report FROM bi.adoption_phases"
        " WHERE scope = 'organization' AND day = ? ORDER BY phase_number",
        [DAY],
    ).fetchall()
    listed = conn.execute(
        "SELECT ai_adoption_phase_phase_number, count(*) FROM core.user_daily_totals WHERE day = ?"
        " GROUP BY 1 ORDER BY 1",
        [DAY],
    ).fetchall()
    assert rows == listed


def test_the_28_day_report_gives_each_phase_s_population_and_its_share(conn):
    days = conn.execute(
        "SELECT day, sum(population_share), bool_and(population_28d >= engaged_users)"
        " FROM bi.adoption_phases WHERE scope = 'enterprise' GROUP BY day"
    ).fetchall()
    assert len(days) == 28
    assert all(abs(share - 1) < 1e-9 and covers for _, share, covers in days)
    # 1-day reports carry no 28-day population: NULL, never 0.
    assert conn.execute(
        "SELECT count(population_28d) FROM bi.adoption_phases WHERE scope = 'organization'"
    ).fetchone() == (0,)


def test_the_28_day_report_s_feature_engagement_lands_once_on_its_last_day(conn):
    rows = conn.execute(
        "SELECT day, feature, engaged_user_count, active_user_count FROM core.feature_engagement"
    ).fetchall()
    (last,) = conn.execute("SELECT max(day) FROM core.daily_totals WHERE scope = 'enterprise'").fetchone()
    assert {r[0] for r in rows} == {last}
    features = [r[1] for r in rows]
    assert len(features) == len(set(features)) and "code_completion" in features
    # A user engages with several features: each count is within the active users, never summed to them.
    assert all(0 <= engaged <= active for _, _, engaged, active in rows)
