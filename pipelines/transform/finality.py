"""Whether a day was final when fetched: the service says a day's data typically finalizes
within three full UTC days, and files exported before then lag (they grow on later fetches)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import polars as pl

__all__ = ["FINAL_AFTER_DAYS", "finality_columns", "is_final"]

FINAL_AFTER_DAYS = 3  # full UTC days after the day ends


def is_final(day: date, fetched_at: datetime) -> bool:
    """True when more than three full UTC days had passed since `day` ended at `fetched_at`
    (the day is more than three UTC days before the fetch's own UTC day)."""
    return (fetched_at.astimezone(UTC).date() - day).days > FINAL_AFTER_DAYS


def finality_columns(*, fetched_at: datetime, served_at: datetime | None) -> list[pl.Expr]:
    """`fetched_at` and `is_final` for rows with a `day` column, all of one fetch.

    Finality is judged on the service's clock at the fetch (`served_at`, the Date header of
    its answer) when it gave one: a host whose clock is off, or a service whose day is not
    ours, must not mark a day final before the service finalized it. `fetched_at` stays our
    own clock's, precise enough to order two fetches within one second.
    """
    judged_at = served_at or fetched_at
    first_provisional = judged_at.astimezone(UTC).date() - timedelta(days=FINAL_AFTER_DAYS)
    return [
        pl.lit(fetched_at, dtype=pl.Datetime("us", "UTC")).alias("fetched_at"),
        (pl.col("day") < pl.lit(first_provisional, dtype=pl.Date())).alias("is_final"),
    ]
