"""The snapshot's partitions are the days a snapshot was asked for: what asks (the schedule, the
refresh sensor, `metrics-etl run`) adds its day, a home's earlier snapshot days stay partitions,
and no day that can never be taken is one (Dagster's UI would show it missing for ever)."""

from datetime import UTC, date, datetime, timedelta

import dagster as dg
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.config import Settings
from pipelines.definitions import build_definitions
from pipelines.defs._automation import Automation
from pipelines.defs.events.assets import DELIVERIES
from pipelines.defs.events.automation import build_events_automation
from pipelines.defs.snapshots.assets import SNAPSHOT_TABLES
from pipelines.defs.snapshots.automation import build_snapshot_automation
from pipelines.defs.snapshots.days import SNAPSHOT_DAYS, add_snapshot_day

_, snapshot_refresh_sensor = build_events_automation(Automation())
snapshots_daily_schedule = build_snapshot_automation(Automation())


def _taken_before(instance: dg.DagsterInstance, day: date) -> None:
    """What a home from before holds of a snapshot day: its tables materialized under that key."""
    for table in SNAPSHOT_TABLES:
        instance.report_runless_asset_event(dg.AssetMaterialization(["snapshots", table], partition=day.isoformat()))


def test_the_schedule_adds_its_day_and_that_days_snapshot_is_taken(emulator, pipeline_env, instance):
    now = datetime.now(UTC)
    with dg.build_schedule_context(instance=instance, scheduled_execution_time=now) as context:
        request = snapshots_daily_schedule(context)
    assert isinstance(request, dg.RunRequest) and request.partition_key == now.date().isoformat()
    assert instance.get_dynamic_partitions(SNAPSHOT_DAYS) == [request.partition_key]
    job = build_definitions(Settings.from_env()).resolve_job_def("snapshots_job")
    assert job.execute_in_process(instance=instance, partition_key=request.partition_key).success
    assert instance.get_materialized_partitions(dg.AssetKey(["snapshots", "seats"])) == {request.partition_key}


def test_a_tick_the_daemon_missed_on_an_earlier_day_is_skipped_without_a_partition(instance):
    yesterday = datetime.now(UTC) - timedelta(days=1)
    with dg.build_schedule_context(instance=instance, scheduled_execution_time=yesterday) as context:
        skipped = snapshots_daily_schedule(context)
    assert isinstance(skipped, dg.SkipReason)
    assert f"the snapshot of {yesterday.date()} can no longer be taken" in (skipped.skip_message or "")
    assert instance.get_dynamic_partitions(SNAPSHOT_DAYS) == []


def test_the_refresh_sensor_adds_today_before_asking_for_it(pipeline_env, instance):
    instance.report_runless_asset_event(dg.AssetMaterialization(DELIVERIES, metadata={"repositories": 2}))
    defs = build_definitions(Settings.from_env())
    with dg.build_sensor_context(instance=instance, repository_def=defs.get_repository_def()) as context:
        (refresh,) = snapshot_refresh_sensor(context).run_requests
    today = datetime.now(UTC).date().isoformat()
    assert refresh.partition_key == today
    assert instance.get_dynamic_partitions(SNAPSHOT_DAYS) == [today]


def test_a_home_whose_snapshots_had_daily_partitions_keeps_their_days(instance):
    today = datetime.now(UTC).date()
    earlier = [today - timedelta(days=9), today - timedelta(days=2)]
    for day in earlier:
        _taken_before(instance, day)
    add_snapshot_day(instance, today)
    assert instance.get_dynamic_partitions(SNAPSHOT_DAYS) == [day.isoformat() for day in [*earlier, today]]


_DAYS = st.dates(min_value=date(2026, 1, 1), max_value=date(2026, 12, 31))


@settings(max_examples=25, deadline=None)
@given(taken=st.sets(_DAYS, max_size=4), asked=st.lists(_DAYS, min_size=1, max_size=4))
def test_the_partitions_are_exactly_the_days_taken_or_asked_for_each_once(taken, asked):
    with dg.instance_for_test() as instance:
        for day in taken:
            _taken_before(instance, day)
        for day in asked:
            add_snapshot_day(instance, day)
        partitions = instance.get_dynamic_partitions(SNAPSHOT_DAYS)
    assert len(partitions) == len(set(partitions))
    assert set(partitions) == {day.isoformat() for day in taken | set(asked)}
    # A home's earlier days come before the day first asked for, in order.
    first = partitions.index(asked[0].isoformat())
    assert partitions[:first] == sorted(partitions[:first])
