"""The snapshot's partitions: one for each day a snapshot was asked for, never a day that cannot be taken.

A snapshot records the service's state as it is now, so only today's can be taken. A daily
partition per calendar day would show every earlier day as missing for ever; here a day becomes
a partition when its snapshot is asked for (the schedule, the refresh sensor, `metrics-etl run`).
A data home from before kept its snapshots under daily partitions: the days they were taken on
become partitions at the next request, so its history stays in view.
"""

from datetime import date

import dagster as dg

from pipelines.defs.snapshots.assets import SNAPSHOT_KEYS

SNAPSHOT_DAYS = "snapshot_days"
snapshot_days = dg.DynamicPartitionsDefinition(name=SNAPSHOT_DAYS)

# Every snapshot materializes each of its tables: one of them tells the days taken.
_TAKEN = next(iter(SNAPSHOT_KEYS.values()))


def add_snapshot_day(instance: dg.DagsterInstance, day: date) -> None:
    """`day`'s partition, and those of the days a snapshot was taken on that have none yet."""
    known = set(instance.get_dynamic_partitions(SNAPSHOT_DAYS))
    missing = (instance.get_materialized_partitions(_TAKEN) | {day.isoformat()}) - known
    if missing:
        instance.add_dynamic_partitions(SNAPSHOT_DAYS, sorted(missing))
