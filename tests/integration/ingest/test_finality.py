"""Finality over loopback: a provisional day grows between fetches, every fetch is recorded, and
the day is final once the service's clock is more than three full UTC days past it."""

from datetime import timedelta
from email.utils import parsedate_to_datetime

import httpx
import pytest

from emulator import EmulatorConfig
from pipelines.defs.usage.checks import RUN_CHECKS
from pipelines.ingest import ingest_report
from pipelines.service import ReportRef
from pipelines.warehouse.checks import run_checks
from tests.integration.ingest.conftest import TODAY

YESTERDAY = TODAY - timedelta(days=1)


@pytest.fixture(params=["service", "github"])
def emulator_config(request) -> EmulatorConfig:
    """Both dialects: the Date header and the growth of a provisional day are the service's, in either."""
    return EmulatorConfig(seed=11, users=12, today=TODAY, user_lines_per_file=100, dialect=request.param)


def test_answers_carry_the_emulated_clock_in_their_date_header(emu):
    token = emu.credentials["token"]
    answer = httpx.get(f"{emu.base_url}/rate_limit", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200
    served = parsedate_to_datetime(answer.headers["date"])
    assert served.date() == TODAY  # the emulated day, not this machine's
    assert len(answer.headers.get_list("date")) == 1


@pytest.mark.parametrize("level", ["aggregate", "user"])
def test_late_data_grows_a_provisional_day_between_two_fetches(client, conn, tmp_path, emu, level):
    ref = ReportRef("organization", "acme", "1-day", level, YESTERDAY)
    for _ in range(2):
        ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path / "raw")
    fetches = conn.execute(
        "SELECT fetched_at, is_final, records, user_initiated_interaction_count, active_users, agent_job_starts"
        " FROM raw.report_fetches WHERE level = ? AND day = ? ORDER BY fetched_at",
        [level, YESTERDAY],
    ).fetchall()
    assert len(fetches) == 2
    (first_at, first_final, *_, first_count, _, _), (second_at, second_final, *_, second_count, _, _) = fetches
    # Judged on the service's clock (its Date header), the emulated TODAY: by this machine's
    # clock the day may long be final.
    assert second_at > first_at
    assert not first_final and not second_final
    assert second_count > first_count  # late data arrived between the fetches

    table = "core.user_daily_totals" if level == "user" else "core.daily_totals"
    landed = conn.execute(
        f"SELECT sum(user_initiated_interaction_count), bool_or(is_final), max(fetched_at) FROM {table}"
    ).fetchone()
    assert landed == (second_count, False, second_at)  # the newest fetch, marked provisional
    for detail in ("core.agent_activity", "core.breakdowns"):
        assert conn.execute(f"SELECT count(*) FROM {detail} WHERE is_final IS DISTINCT FROM FALSE").fetchone() == (0,)

    drift = conn.execute(
        "SELECT fetches, provisional_fetches, first_value, last_value, change, is_final FROM bi.report_drift"
        " WHERE level = ? AND day = ? AND measure = 'user_initiated_interaction_count'",
        [level, YESTERDAY],
    ).fetchone()
    assert drift == (2, 2, first_count, second_count, second_count - first_count, False)

    # Three full UTC days after the day ended, the day is final and has stopped growing.
    emu.state.set_today(YESTERDAY + timedelta(days=4))
    ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path / "raw")
    final = conn.execute(f"SELECT sum(user_initiated_interaction_count), bool_and(is_final) FROM {table}").fetchone()
    assert final[1] is True and final[0] >= second_count
    drift = conn.execute(
        "SELECT fetches, provisional_fetches, last_value, is_final FROM bi.report_drift"
        " WHERE level = ? AND day = ? AND measure = 'user_initiated_interaction_count'",
        [level, YESTERDAY],
    ).fetchone()
    assert drift == (3, 2, final[0], True)


def test_a_28_day_report_marks_only_its_last_three_days_provisional(client, conn, tmp_path):
    ref = ReportRef("organization", "acme", "28-day", "aggregate")
    ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path / "raw")
    provisional = [
        day for (day,) in conn.execute("SELECT day FROM core.daily_totals WHERE NOT is_final ORDER BY day").fetchall()
    ]
    assert provisional == [TODAY - timedelta(days=n) for n in (3, 2, 1)]
    recorded = conn.execute(
        "SELECT count(*), count(*) FILTER (WHERE NOT is_final), count(DISTINCT fetched_at) FROM raw.report_fetches"
    ).fetchone()
    assert recorded == (28, 3, 1)


def test_a_day_left_provisional_past_its_finality_is_named_by_the_warning_check(client, conn, tmp_path, emu):
    check = next(c for c in RUN_CHECKS if c.name == "provisional_days_fetched_again")
    ref = ReportRef("organization", "acme", "1-day", "aggregate", YESTERDAY)
    ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path / "raw")  # provisional
    (fresh,) = run_checks(conn, [check], available_day=YESTERDAY)
    assert fresh.passed  # still within its three days
    (late,) = run_checks(conn, [check], available_day=YESTERDAY + timedelta(days=4))
    assert not late.passed and not check.blocking
    assert late.detail == f"organization acme aggregate {YESTERDAY}"
    emu.state.set_today(YESTERDAY + timedelta(days=4))  # fetched again once final: the warning clears
    ingest_report(client=client, ref=ref, conn=conn, raw_dir=tmp_path / "raw")
    (again,) = run_checks(conn, [check], available_day=YESTERDAY + timedelta(days=4))
    assert again.passed
