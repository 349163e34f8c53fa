"""raw.report_fetches: what one fetch of a report carried for each of its days.

A batch's totals and agent rows are tallied per day as they are parsed (`day_tallies`), and the
fetch's rows are the sum of its files' tallies (`fetch_rows`). The tally counts every day the
fetch carried, including a day the landing keeps from an earlier report: it records the fetch.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pipelines.transform.finality import finality_columns
from pipelines.transform.provenance import Provenance
from pipelines.transform.schema import ACTIVITY_COUNTS

__all__ = ["COUNTERS", "day_tallies", "fetch_rows"]

# The counters summed per day: the scalar counts of both levels' records.
COUNTERS = ACTIVITY_COUNTS
_TALLY_SCHEMA: dict[str, pl.DataType] = {
    "day": pl.Date(),
    "records": pl.Int64(),
    "agent_array_records": pl.Int64(),
    **{name: pl.Int64() for name in COUNTERS},
    "active_users": pl.Int64(),
    "agent_job_starts": pl.Int64(),
}


def _active_users(level: str) -> pl.Expr:
    if level == "aggregate":
        return pl.col("daily_active_users").sum()
    # How far a provisional day moved between fetches, not who is active: user rows with IDE
    # interactions or code generation, the same count in every fetch since the first. Who is
    # active on any surface is core.active_on_any_surface; bi.reconciliation compares that
    # with the service's daily_active_users.
    active = (pl.col("user_initiated_interaction_count") > 0) | (pl.col("code_generation_activity_count") > 0)
    return active.fill_null(False).sum()


def day_tallies(*, totals: pl.DataFrame, agent_activity: pl.DataFrame, level: str) -> pl.DataFrame:
    """Per day of one batch: records, records with the agent array, counter sums, active users
    and agent job starts (0 here when the batch had no agent row; `fetch_rows` makes it NULL
    when no record of the day carried the array)."""
    counted = totals.group_by("day").agg(
        pl.len().cast(pl.Int64).alias("records"),
        pl.col("agent_breakdown_present").sum().cast(pl.Int64).alias("agent_array_records"),
        *[pl.col(name).sum().cast(pl.Int64).alias(name) for name in COUNTERS],
        _active_users(level).cast(pl.Int64).alias("active_users"),
    )
    jobs = agent_activity.group_by("day").agg(pl.col("agent_job_starts").sum().cast(pl.Int64))
    return (
        counted.join(jobs, on="day", how="full", coalesce=True)
        .with_columns(pl.col(c).fill_null(0) for c in ("records", "agent_array_records", "agent_job_starts"))
        .select(list(_TALLY_SCHEMA))
        .cast(_TALLY_SCHEMA)  # type: ignore[arg-type]
    )


def fetch_rows(tallies: Sequence[pl.DataFrame], prov: Provenance) -> pl.DataFrame:
    """The fetch's raw.report_fetches rows: its files' tallies summed per day."""
    frame = pl.concat([pl.DataFrame(schema=_TALLY_SCHEMA), *tallies], how="vertical")
    summed = frame.group_by("day").agg(pl.all().sum())
    return summed.select(
        pl.lit(prov.ref.scope).alias("scope"),
        pl.lit(prov.ref.scope_name).alias("scope_name"),
        pl.lit(prov.ref.level).alias("level"),
        pl.lit(prov.ref.kind).alias("report_kind"),
        pl.col("day"),
        *finality_columns(fetched_at=prov.fetched_at, served_at=prov.served_at),
        pl.lit(prov.start_day).alias("report_start_day"),
        pl.lit(prov.end_day).alias("report_end_day"),
        pl.col("records"),
        pl.col("agent_array_records"),
        *[pl.col(name) for name in COUNTERS],
        pl.col("active_users"),
        # An omitted agent array is a gap, not zero (docs/service-contract.md §2).
        pl.when(pl.col("agent_array_records") > 0).then(pl.col("agent_job_starts")).alias("agent_job_starts"),
    ).sort("day")
