"""The emulator's usage-report data: deterministic, valid, reconcilable, realistic."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.errors import EmulatorError
from emulator.reportdata import (
    AGENT_APPS,
    COUNT_FIELDS,
    RENAMED_AGENT_ID,
    RENAMED_AGENT_NEW_NAME,
    RENAMED_AGENT_OLD_NAME,
    UNRECOGNIZED_APPS,
    ReportData,
    completeness,
)

FIRST_DAY = date(2026, 9, 1)
HISTORY = [FIRST_DAY + timedelta(days=i) for i in range(60)]


def _final(_: date) -> float:
    return 1.0


def _data(users: int = 40, seed: int = 7) -> ReportData:
    return ReportData(seed=seed, users=users, org="acme", enterprise="acme-corp", first_day=FIRST_DAY)


def _records(data: ReportData, *, scope: str, days: list[date], c: float = 1.0) -> list[dict]:
    size = data.user_count(scope=scope)
    lines = data.user_lines(scope=scope, days=days, completeness_for=lambda _: c, start=0, stop=size)
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="module")
def data() -> ReportData:
    return _data()


@pytest.fixture(scope="module")
def history_records(data: ReportData) -> list[dict]:
    return _records(data, scope="organization", days=HISTORY)


@pytest.fixture(scope="module")
def history_aggregates(data: ReportData) -> list[dict]:
    return [data.aggregate_record(scope="organization", day=d, completeness=1.0) for d in HISTORY]


def test_same_arguments_give_same_bytes() -> None:
    first = b"".join(
        _data().user_lines(scope="enterprise", days=HISTORY[:3], completeness_for=_final, start=0, stop=60)
    )
    second = b"".join(
        _data().user_lines(scope="enterprise", days=HISTORY[:3], completeness_for=_final, start=0, stop=60)
    )
    assert first == second
    assert _data().aggregate_record(scope="enterprise", day=HISTORY[5], completeness=0.7) == _data().aggregate_record(
        scope="enterprise", day=HISTORY[5], completeness=0.7
    )


def test_different_seeds_give_different_data() -> None:
    one = b"".join(
        _data(seed=1).user_lines(scope="organization", days=HISTORY[:1], completeness_for=_final, start=0, stop=40)
    )
    two = b"".join(
        _data(seed=2).user_lines(scope="organization", days=HISTORY[:1], completeness_for=_final, start=0, stop=40)
    )
    assert one != two


@settings(max_examples=25, deadline=None)
@given(split=st.integers(min_value=0, max_value=60), scope=st.sampled_from(["organization", "enterprise"]))
def test_user_ranges_compose_at_any_split_point(split: int, scope: str) -> None:
    data = _data()
    stop = data.user_count(scope=scope)
    split = min(split, stop)
    days = HISTORY[10:12]

    def lines(start: int, end: int) -> list[bytes]:
        return list(data.user_lines(scope=scope, days=days, completeness_for=_final, start=start, stop=end))

    whole = lines(0, stop)
    for i, day in enumerate(days):
        per_day = whole[i * stop : (i + 1) * stop]
        left = list(data.user_lines(scope=scope, days=[day], completeness_for=_final, start=0, stop=split))
        right = list(data.user_lines(scope=scope, days=[day], completeness_for=_final, start=split, stop=stop))
        assert left + right == per_day


def test_every_line_is_one_json_object_ending_in_newline(data: ReportData) -> None:
    lines = list(
        data.user_lines(
            scope="enterprise",
            days=HISTORY[:5],
            completeness_for=lambda _: 0.6,
            start=0,
            stop=data.user_count(scope="enterprise"),
        )
    )
    assert len(lines) == 5 * data.user_count(scope="enterprise")
    for line in lines:
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert isinstance(json.loads(line), dict)


def test_user_records_carry_identity_flags_and_counts(history_records: list[dict]) -> None:
    record = history_records[0]
    assert isinstance(record["user_id"], int)
    assert isinstance(record["user_login"], str)
    assert isinstance(record["organization_id"], str)
    assert record["day"] == HISTORY[0].isoformat()
    for flag in ("used_agent", "used_chat", "used_cli"):
        assert all(isinstance(r[flag], bool) for r in history_records)
    for field in COUNT_FIELDS:
        assert all(isinstance(r[field], int) and r[field] >= 0 for r in history_records)


def test_enterprise_holds_the_org_users_plus_a_second_org(data: ReportData) -> None:
    org = _records(data, scope="organization", days=[HISTORY[3]])
    ent = _records(data, scope="enterprise", days=[HISTORY[3]])
    assert len(ent) > len(org)
    assert all("enterprise_id" in r and "organization_id" not in r for r in ent)
    # The organization is in the enterprise: its lines name both, as the service documents.
    assert {(r["organization_id"], r["enterprise_id"]) for r in org} == {(data.organization_id, data.enterprise_id)}
    assert ent[: len(org)] == [{k: v for k, v in r.items() if k != "organization_id"} for r in org]


def test_rename_is_visible_across_the_rename_day(
    data: ReportData, history_records: list[dict], history_aggregates: list[dict]
) -> None:
    names: dict[bool, set[str]] = {False: set(), True: set()}
    for record in history_records + history_aggregates:
        after = date.fromisoformat(record["day"]) >= data.rename_day
        for entry in record.get("totals_by_3rd_party_agent", []):
            if entry["agent_id"] == RENAMED_AGENT_ID:
                names[after].add(entry["agent_name"])
    assert names == {False: {RENAMED_AGENT_OLD_NAME}, True: {RENAMED_AGENT_NEW_NAME}}
    assert HISTORY[0] < data.rename_day <= HISTORY[-1]


def test_agent_array_is_omitted_not_empty_when_there_is_no_activity(
    data: ReportData, history_records: list[dict], history_aggregates: list[dict]
) -> None:
    records = history_records + history_aggregates
    assert any("totals_by_3rd_party_agent" not in r for r in history_records)
    assert any("totals_by_3rd_party_agent" in r for r in history_records)
    for record in records:
        assert record.get("totals_by_3rd_party_agent", ["absent"]) != []
    quiet = [d for d in HISTORY if not data.has_agent_activity(day=d)]
    assert 0 < len(quiet) < len(HISTORY) // 2
    for record in records:
        if date.fromisoformat(record["day"]) in quiet:
            assert "totals_by_3rd_party_agent" not in record


def test_session_count_only_in_aggregate_agent_entries(
    history_records: list[dict], history_aggregates: list[dict]
) -> None:
    user_entries = [e for r in history_records for e in r.get("totals_by_3rd_party_agent", [])]
    aggregate_entries = [e for r in history_aggregates for e in r.get("totals_by_3rd_party_agent", [])]
    assert user_entries and aggregate_entries
    assert all(set(e) == {"agent_id", "agent_name", "user_initiated_interaction_count"} for e in user_entries)
    assert all(
        set(e) == {"agent_id", "agent_name", "user_initiated_interaction_count", "session_count"}
        for e in aggregate_entries
    )


def test_agent_ids_are_recognized_numeric_strings_one_entry_each(history_records: list[dict]) -> None:
    recognized = {agent for _, agent in AGENT_APPS if agent is not None}
    for record in history_records:
        entries = record.get("totals_by_3rd_party_agent", [])
        ids = [e["agent_id"] for e in entries]
        assert len(ids) == len(set(ids))
        assert set(ids) <= recognized
        assert all(i.isdigit() for i in ids)
        assert all(e["user_initiated_interaction_count"] > 0 for e in entries)


@pytest.mark.parametrize("scope", ["organization", "enterprise"])
@pytest.mark.parametrize("c", [1.0, 0.6])
def test_aggregate_is_the_sum_of_user_records(data: ReportData, scope: str, c: float) -> None:
    seen_server_side = 0
    for day in HISTORY[28:34]:
        users = _records(data, scope=scope, days=[day], c=c)
        aggregate = data.aggregate_record(scope=scope, day=day, completeness=c)
        for field in COUNT_FIELDS:
            assert aggregate[field] == sum(r[field] for r in users), field
        jobs: dict[str, int] = {}
        for r in users:
            for e in r.get("totals_by_3rd_party_agent", []):
                jobs[e["agent_id"]] = jobs.get(e["agent_id"], 0) + e["user_initiated_interaction_count"]
        assert {
            e["agent_id"]: e["user_initiated_interaction_count"] for e in aggregate.get("totals_by_3rd_party_agent", [])
        } == jobs
        # The service's daily_active_users is IDE-based: a line active in the CLI alone (no IDE
        # entry, one copilot_cli feature entry) is not counted; daily_active_cli_users counts it.
        cli_only = [r for r in users if not r["totals_by_ide"] and r["used_cli"]]
        assert all({e["feature"] for e in r["totals_by_feature"]} == {"copilot_cli"} for r in cli_only)
        assert aggregate["daily_active_cli_users"] == sum(r["used_cli"] for r in users)
        active = sum(
            1
            for r in users
            if (r["user_initiated_interaction_count"] or r["code_generation_activity_count"]) and r not in cli_only
        )
        # Users the service confirmed by its own telemetry only count too; their lines show nothing.
        server_side = data.server_side_only(scope=scope, day=day)
        seen_server_side += len(server_side)
        assert all(
            not r["code_generation_activity_count"] and not r["totals_by_ide"]
            for r in users
            if r["user_id"] in server_side
        )
        assert aggregate["daily_active_users"] == active + len(server_side)
    assert seen_server_side


def test_nested_job_starts_differ_from_top_level_interactions(
    history_records: list[dict], history_aggregates: list[dict]
) -> None:
    with_agents = [r for r in history_records + history_aggregates if "totals_by_3rd_party_agent" in r]
    assert with_agents
    for record in with_agents:
        jobs = sum(e["user_initiated_interaction_count"] for e in record["totals_by_3rd_party_agent"])
        assert record["user_initiated_interaction_count"] > jobs


def test_completeness_is_final_after_three_days_and_grows_with_fetches() -> None:
    today = date(2026, 10, 20)
    for age in range(4, 10):
        assert completeness(day=today - timedelta(days=age), today=today, fetch_no=1) == 1.0
    for age in range(0, 4):
        values = [completeness(day=today - timedelta(days=age), today=today, fetch_no=n) for n in range(1, 8)]
        assert all(0 < v < 1 for v in values)
        assert values == sorted(values) and len(set(values)) == len(values)


@settings(max_examples=30, deadline=None)
@given(
    low=st.floats(min_value=0.0, max_value=1.0),
    high=st.floats(min_value=0.0, max_value=1.0),
    day_index=st.integers(min_value=0, max_value=59),
)
def test_counts_are_monotone_in_completeness_and_never_negative(low: float, high: float, day_index: int) -> None:
    low, high = sorted((low, high))
    data = _data(users=12)
    day = HISTORY[day_index]
    small = data.aggregate_record(scope="enterprise", day=day, completeness=low)
    big = data.aggregate_record(scope="enterprise", day=day, completeness=high)
    for field in (*COUNT_FIELDS, "daily_active_users"):
        assert 0 <= small[field] <= big[field]
    small_users = _records(data, scope="enterprise", days=[day], c=low)
    big_users = _records(data, scope="enterprise", days=[day], c=high)
    for s, b in zip(small_users, big_users, strict=False):
        for field in COUNT_FIELDS:
            assert 0 <= s[field] <= b[field]


def test_partial_day_has_smaller_counts_than_the_final_day(data: ReportData) -> None:
    day = HISTORY[30]
    partial = data.aggregate_record(scope="organization", day=day, completeness=0.6)
    final = data.aggregate_record(scope="organization", day=day, completeness=1.0)
    assert partial["code_generation_activity_count"] < final["code_generation_activity_count"]


def test_28_day_wrapper_has_the_report_shape(data: ReportData) -> None:
    end = HISTORY[-1]
    report = data.aggregate_28_day(scope="enterprise", end_day=end, completeness_for=_final)
    assert set(report) == {
        "report_start_day",
        "report_end_day",
        "enterprise_id",
        "created_at",
        "day_totals",
        "assistant_feature_engagement",
    }
    engagement = report["assistant_feature_engagement"]
    assert all(f["engaged_user_count"] <= engagement["active_user_count"] for f in engagement["totals_by_feature"])
    assert report["report_end_day"] == end.isoformat()
    assert report["report_start_day"] == (end - timedelta(days=27)).isoformat()
    assert [d["day"] for d in report["day_totals"]] == [(end - timedelta(days=27 - i)).isoformat() for i in range(28)]
    # A day of the 28-day report is the day's 1-day record, its phases with their 28-day population.
    day = report["day_totals"][-1]
    populations = [entry.pop("users_in_phase_28d") for entry in day["totals_by_ai_adoption_phase"]]
    assert day == data.aggregate_record(scope="enterprise", day=end, completeness=1.0)
    assert all(p >= 0 for p in populations)
    json.dumps(report)


def test_aggregate_records_carry_the_real_fields(history_aggregates: list[dict]) -> None:
    record = history_aggregates[20]
    for field in (
        "daily_active_users",
        "weekly_active_users",
        "monthly_active_users",
        "monthly_active_chat_users",
        "monthly_active_agent_users",
        "pull_requests",
        "totals_by_ide",
        "totals_by_feature",
        "totals_by_language_feature",
        "totals_by_language_model",
        "totals_by_model_feature",
        *COUNT_FIELDS,
    ):
        assert field in record, field
    assert record["daily_active_users"] <= record["weekly_active_users"] <= record["monthly_active_users"]
    assert {"total_created", "total_merged", "median_minutes_to_merge"} <= set(record["pull_requests"])
    assert any("totals_by_cli" in r for r in history_aggregates)
    assert any("etl_id" in r and "day_partition" in r for r in history_aggregates)
    assert any("etl_id" not in r for r in history_aggregates)


def _sums(entries: list[dict], *, where=lambda e: True) -> list[int]:
    return [sum(e.get(field, 0) for e in entries if where(e)) for field in COUNT_FIELDS]


@pytest.mark.parametrize("level", ["user", "aggregate"])
def test_breakdowns_reconcile_with_the_totals_as_the_docs_shape_them(
    history_records: list[dict], history_aggregates: list[dict], level: str
) -> None:
    """totals_by_feature adds up to the counts; the IDE and language arrays to them without the
    desktop app's and the CLI's entries; the model arrays to the chat features' entries only;
    totals_by_language_feature carries no interaction count."""
    surfaces = {"copilot_app", "copilot_cli"}
    no_model = surfaces | {"code_completion", "others", "unknown"}
    for record in history_records if level == "user" else history_aggregates:
        features = record["totals_by_feature"]
        assert _sums(features) == [record[field] for field in COUNT_FIELDS]
        ide_share = _sums(features, where=lambda e: e["feature"] not in surfaces)
        assert _sums(record["totals_by_ide"]) == ide_share
        assert _sums(record["totals_by_language_feature"])[1:] == ide_share[1:]
        assert not any("user_initiated_interaction_count" in e for e in record["totals_by_language_feature"])
        chat = _sums(features, where=lambda e: e["feature"] not in no_model)
        assert _sums(record["totals_by_language_model"]) == chat
        assert _sums(record["totals_by_model_feature"]) == chat
        assert not {e["feature"] for e in record["totals_by_model_feature"]} & no_model


def test_returned_aggregate_can_be_changed_without_affecting_later_calls(data: ReportData) -> None:
    record = data.aggregate_record(scope="organization", day=HISTORY[2], completeness=1.0)
    record["totals_by_ide"].clear()
    assert data.aggregate_record(scope="organization", day=HISTORY[2], completeness=1.0)["totals_by_ide"]


def test_unknown_scope_and_bad_range_are_refused(data: ReportData) -> None:
    with pytest.raises(EmulatorError, match="scope"):
        data.user_count(scope="team")
    with pytest.raises(EmulatorError, match="range"):
        list(data.user_lines(scope="organization", days=[HISTORY[0]], completeness_for=_final, start=0, stop=41))


def test_unrecognized_agents_never_appear(history_records: list[dict], history_aggregates: list[dict]) -> None:
    text = json.dumps(history_records + history_aggregates)
    for app in UNRECOGNIZED_APPS + tuple(app for app, _ in AGENT_APPS):
        assert app not in text


def test_several_apps_of_one_agent_are_merged_into_one_entry(data: ReportData) -> None:
    merged_users = [
        u
        for u in range(data.user_count(scope="organization"))
        if len({AGENT_APPS[a][1] for a in data._profile(u).apps}) < len(data._profile(u).apps)
    ]
    assert merged_users
    for record in _records(data, scope="organization", days=HISTORY[:20]):
        ids = [e["agent_id"] for e in record.get("totals_by_3rd_party_agent", [])]
        assert len(ids) == len(set(ids))


def test_cli_totals_appear_only_with_cli_use(history_records: list[dict], history_aggregates: list[dict]) -> None:
    assert any(r["used_cli"] for r in history_records)
    for record in history_records:
        assert ("totals_by_cli" in record) == record["used_cli"]
    for aggregate in history_aggregates:
        day_users = [r for r in history_records if r["day"] == aggregate["day"]]
        assert ("totals_by_cli" in aggregate) == any(r["used_cli"] for r in day_users)
        if "totals_by_cli" in aggregate:
            cli = aggregate["totals_by_cli"]
            assert cli["request_count"] == sum(
                r["totals_by_cli"]["request_count"] for r in day_users if "totals_by_cli" in r
            )
            assert set(cli["token_usage"]) == {"output_tokens_sum", "prompt_tokens_sum", "avg_tokens_per_request"}


def test_internal_fields_appear_on_some_days_only(history_records: list[dict]) -> None:
    with_internal = {r["day"] for r in history_records if "day_partition" in r}
    assert 0 < len(with_internal) < len(HISTORY)
    for record in history_records:
        if "day_partition" in record:
            assert record["day_partition"] == record["day"]


def test_breakdowns_use_realistic_keys_including_unknown(history_aggregates: list[dict]) -> None:
    ides = {e["ide"] for r in history_aggregates for e in r["totals_by_ide"]}
    features = {e["feature"] for r in history_aggregates for e in r["totals_by_feature"]}
    languages = {e["language"] for r in history_aggregates for e in r["totals_by_language_feature"]}
    models = {e["model"] for r in history_aggregates for e in r["totals_by_model_feature"]}
    assert {"vscode", "intellij"} <= ides
    assert {"code_completion", "chat_panel_agent_mode"} <= features
    assert "unknown" in languages | models
    assert len(languages) > 5 and len(models) > 2


def test_user_logins_and_ids_follow_the_emulated_org(history_records: list[dict]) -> None:
    first_day = [r for r in history_records if r["day"] == HISTORY[0].isoformat()]
    assert [r["user_login"] for r in first_day[:3]] == ["acme-admin", "acme-member", "dev-00000"]
    assert len({r["user_id"] for r in first_day}) == len(first_day)
