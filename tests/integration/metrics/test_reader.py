"""The catalog's reader on a home of known numbers: its answers equal the views the page reads,
a gap is never zero, provisional days are named, a comparison makes the page's call, and every
mistake is one line naming what is accepted."""

from __future__ import annotations

import io
import re
from datetime import date, timedelta

import pytest

from pipelines.bi.summary import summarize
from pipelines.metrics import MetricsError, MetricsReader
from tests.integration.bi._warehouse import DAYS, LAST_DAY
from tests.integration.metrics.conftest import Home

PREVIOUS_END = LAST_DAY - timedelta(days=28)
EVERY_DAY = {"start": LAST_DAY - timedelta(days=DAYS - 1), "end": LAST_DAY}


def test_agent_adoption_of_the_latest_period_is_bi_agent_usage_periods(home: Home) -> None:
    with MetricsReader(home.config()) as reader:
        answer = reader.query("agent_adoption")
    with home.full() as full:
        view = dict(
            full.execute("SELECT agent_id, agent_users FROM bi.agent_usage_periods WHERE period_index = 0").fetchall()
        )
    shown = {r["agent"]: r["agent_adoption"] for r in answer.records() if not r["suppressed"]}
    hidden = {r["agent"] for r in answer.records() if r["suppressed"]}
    assert shown and shown == {agent: users for agent, users in view.items() if agent not in hidden}
    assert {r["period_end"] for r in answer.records()} == {LAST_DAY}
    # Bravo had no user in the latest period: a group of fewer than k, hidden and said so.
    assert hidden == {"b-2"} and answer.suppressed.count == 1
    assert answer.suppressed.to_dict()["groups"][0]["agent"] == "b-2"


def test_a_comparison_makes_the_page_s_call_for_every_app(home: Home) -> None:
    with MetricsReader(home.config()) as reader:
        comparison = reader.compare("agent_adoption", first=PREVIOUS_END, second=LAST_DAY)
    with home.full() as full:
        page = {
            agent: (change, low, high)
            for agent, change, low, high in full.execute(
                "SELECT agent_id, change, job_starts_per_day_change_low, job_starts_per_day_change_high"
                " FROM bi.agent_usage_periods WHERE period_index = 0"
            ).fetchall()
        }
    rows = {r["agent"]: r for r in comparison.records()}
    assert {a: r["call"] for a, r in rows.items()} == {a: c for a, (c, _, _) in page.items()}
    assert {a: r["call"] for a, r in rows.items()} == {"a-1": "grown", "b-2": "gone", "c-3": "new", "d-4": "shrunk"}
    for agent, (_, low, high) in page.items():
        assert rows[agent]["change_low"] == pytest.approx(low) and rows[agent]["change_high"] == pytest.approx(high)
    assert comparison.compared_by is not None and comparison.compared_by.name == "agent_job_starts"
    assert rows["a-1"]["said"].startswith("9.0 job starts a day against 4.0 in the first period: grown")


def test_the_run_summary_s_headline_is_the_catalog_s_job_starts(home: Home) -> None:
    out = io.StringIO()
    summarize(home.warehouse, serving=home.serving, out=out)
    found = re.search(
        r"headline, organization acme, last 28 days \(\S+ \.\. (\S+)\): ([\d,]+) agent job starts", out.getvalue()
    )
    assert found, out.getvalue()
    with MetricsReader(home.config()) as reader:
        days = reader.query("agent_job_starts", period=date.fromisoformat(found.group(1)))
    assert not days.suppressed.count
    assert sum(r["agent_job_starts"] or 0 for r in days.records()) == int(found.group(2).replace(",", "")) > 0


def test_a_day_without_the_agent_array_is_a_gap_never_zero(home: Home) -> None:
    with MetricsReader(home.config()) as reader:
        answer = reader.query("agent_job_starts", **EVERY_DAY)
    assert set(answer.gaps) == home.expected.gap_days
    by_day = {r["day"]: r["agent_job_starts"] for r in answer.records()}
    assert all(by_day[day] is None for day in home.expected.gap_days)
    assert 0 not in by_day.values()
    totals: dict[date, int] = {}
    for (day, _agent), starts in home.expected.job_starts.items():
        totals[day] = totals.get(day, 0) + starts
    assert {day: v for day, v in by_day.items() if v is not None} == totals


def test_interactions_are_the_top_level_count_and_never_hold_job_starts(home: Home) -> None:
    with MetricsReader(home.config()) as reader:
        answer = reader.query("interactions", **EVERY_DAY)
    values = {r["day"]: r["interactions"] for r in answer.records()}
    assert values == home.expected.top_level
    assert not set(values.values()) & home.expected.tempting_sums() - set(home.expected.top_level.values())
    assert answer.gaps == ()  # the aggregate report of every day landed


def test_provisional_days_are_named(home: Home) -> None:
    with MetricsReader(home.config()) as reader:
        answer = reader.query("active_users")
        period = reader.query("agent_job_starts_28d")
    assert set(answer.provisional) == home.expected.provisional_days
    assert set(period.provisional) == home.expected.provisional_days


def test_a_filter_takes_an_id_or_a_label_and_names_it_in_each_row(home: Home) -> None:
    with MetricsReader(home.config()) as reader:
        by_label = reader.query("agent_job_starts", filters={"agent": "Delta"}, **EVERY_DAY)
        by_id = reader.query("agent_job_starts", filters={"agent": "d-4"}, **EVERY_DAY)
    assert by_label.rows == by_id.rows
    rows = [r for r in by_id.records() if r["agent"] is not None]
    assert {r["agent"] for r in rows} == {"d-4"}
    expected = {day: v for (day, agent), v in home.expected.job_starts.items() if agent == "d-4"}
    assert {r["day"]: r["agent_job_starts"] for r in rows} == expected
    assert set(by_id.gaps) == home.expected.gap_days  # a filter does not make a day an app missed a gap


def test_the_row_limit_cuts_the_answer_and_says_so(home: Home) -> None:
    with MetricsReader(home.config(row_limit=5)) as reader:
        answer = reader.query("agent_users", **EVERY_DAY)
        whole = reader.query("agent_users", start=LAST_DAY, end=LAST_DAY)
    assert answer.truncated and len(answer.rows) == 5
    assert not whole.truncated


@pytest.mark.parametrize(
    ("ask", "said"),
    [
        ({"name": "nope"}, "unknown metric 'nope': accepted: acceptance_rate, acceptance_rate_28d, active_users,"),
        ({"name": "interactions", "group_by": ["colour"]}, "unknown dimension 'colour': accepted: agent, cost_center,"),
        (
            {"name": "interactions", "group_by": ["agent"]},
            "interactions cannot be grouped or filtered by agent: accepted: scope",
        ),
        (
            {"name": "agent_adoption", "filters": {"team": "web"}},
            "agent_adoption cannot be grouped or filtered by team",
        ),
        (
            {"name": "interactions", "start": date(2026, 3, 9), "end": date(2026, 3, 1)},
            "malformed range 2026-03-09..2026-03-01: the first day must not be after the last",
        ),
        (
            {"name": "interactions", "start": date(2026, 3, 1), "period": LAST_DAY},
            "malformed range: give a period or a range of days (start, end), not both",
        ),
        (
            {"name": "agent_adoption", "period": date(2026, 3, 20)},
            "no 28-day period of the tier ends on 2026-03-20: accepted: 2026-03-31, 2026-03-03",
        ),
        (
            {"name": "interactions", "scope": "enterprise:acme"},
            "unknown scope 'enterprise:acme': accepted: organization:acme",
        ),
        (
            {"name": "user_interactions"},
            "user_interactions is a per-person metric: per-user metrics need the "
            "pseudonymous tier: set METRICS_CATALOG_TIER=pseudonymous",
        ),
        ({"name": "interactions", "group_by": ["user"]}, "the dimension user is a person: per-user metrics need"),
    ],
)
def test_a_mistake_is_one_line_naming_what_is_accepted(home: Home, ask: dict, said: str) -> None:
    with MetricsReader(home.config()) as reader, pytest.raises(MetricsError) as refused:
        reader.query(**ask)
    assert str(refused.value).startswith(said)
    assert "\n" not in str(refused.value) and refused.value.usage


@pytest.mark.parametrize(
    ("ask", "said"),
    [
        (
            {"name": "acceptance_rate"},
            "acceptance_rate has no daily counts the page's change rule can weigh: accepted: active_users,",
        ),
        (
            {"name": "agent_adoption", "first": LAST_DAY - timedelta(days=10)},
            "malformed range: the periods ending 2026-03-21 and 2026-03-31 overlap",
        ),
        ({"name": "agent_adoption", "first": date(2026, 2, 20)}, "no 28-day period of the tier ends on 2026-02-20"),
    ],
)
def test_a_comparison_s_mistake_is_one_line_too(home: Home, ask: dict, said: str) -> None:
    with MetricsReader(home.config()) as reader, pytest.raises(MetricsError) as refused:
        reader.compare(**{"first": PREVIOUS_END, "second": LAST_DAY, **ask})
    assert str(refused.value).startswith(said)


def test_no_tier_yet_is_one_line_saying_how_to_make_it(tmp_path) -> None:
    from pipelines.config import Settings

    with pytest.raises(MetricsError) as refused, MetricsReader(Settings(home=tmp_path).metrics_config()):
        pass
    assert str(refused.value).startswith("no aggregate tier yet: ") and not refused.value.usage
    assert str(refused.value).endswith("(every publish writes it: run `metrics-etl run`)")


def test_a_filter_s_value_is_only_ever_a_value(home: Home) -> None:
    with MetricsReader(home.config()) as reader:
        answer = reader.query("agent_job_starts", filters={"agent": "a-1' OR '1'='1"}, **EVERY_DAY)
    assert [r for r in answer.records() if r["agent"] is not None] == []


def test_days_before_the_tiers_history_are_no_gaps_and_the_answer_names_where_it_begins(home: Home) -> None:
    first = EVERY_DAY["start"]
    with MetricsReader(home.config()) as reader:
        answer = reader.query("interactions", start=first - timedelta(days=400), end=LAST_DAY)
    assert answer.freshness.first_day == first and answer.freshness.newest_day == LAST_DAY
    assert answer.gaps == ()
    assert min(r["day"] for r in answer.records()) == first
