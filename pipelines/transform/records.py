"""Parsed report records -> core.daily_totals / user_daily_totals, breakdowns, agent_activity,
and the tables of the record's other arrays (CLI customizations, adoption phases, feature
engagement, comment types).

Input is a frame of `schema.record_dtype()` columns plus `_line` (the record's line number in
its file) and `_extra` (JSON text of the fields the schema does not know, or null). Records
that break a rule of the data (`rules.py`) are returned as rejects (line, reason) and produce
no rows: one of another entity than the scope's (a 28-day file can hold a second enterprise's
wrapper) is one, so it never lands under this scope's key.

Long because it is the one place a record becomes rows: every table a record fills has its
frame here, beside the context and finality columns they all share.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipelines.transform.finality import finality_columns
from pipelines.transform.provenance import Provenance
from pipelines.transform.rules import entity_rule, reasons
from pipelines.transform.schema import (
    ACTIVITY_COUNTS,
    ADOPTION_PHASE_ENTRY,
    ADOPTION_PHASE_FIELD,
    AGENT_FIELD,
    BREAKDOWN_ARRAYS,
    BREAKDOWN_COUNTS,
    BREAKDOWN_KEYS,
    CLI_COUNTS,
    CLI_FIELD,
    CLI_TOKEN_USAGE,
    COMMENT_TYPE_ENTRY,
    COMMENT_TYPES_FIELD,
    CUSTOMIZATION_ARRAYS,
    FEATURE_ENGAGEMENT_FIELD,
    TIMESTAMP_COLUMNS,
    TIMESTAMP_FORMAT,
    VERSION_COLUMNS,
    VERSION_SOURCES,
    object_columns,
    record_dtype,
    totals_columns,
)

LINE = "_line"
EXTRA = "_extra"


@dataclass(frozen=True)
class Transformed:
    totals: pl.DataFrame  # core.daily_totals (aggregate) or core.user_daily_totals (user)
    breakdowns: pl.DataFrame
    agent_activity: pl.DataFrame
    cli_customizations: pl.DataFrame
    adoption_phases: pl.DataFrame  # aggregate reports only: none at user level
    feature_engagement: pl.DataFrame  # 28-day aggregate reports only
    comment_types: pl.DataFrame  # aggregate reports only
    rejects: pl.DataFrame  # line_number, reason
    lines: pl.Series  # the line of each totals row in its file (`_line`), in the same order
    # day, user_id and `_line` of each rejected record that holds its key: still a line of that
    # key, so the key's other lines cannot land either (pipelines/ingest/_repeats.py).
    rejected_keys: pl.DataFrame


def empty_rejected_keys() -> pl.DataFrame:
    """A zero-row frame of rejected records' keys (`Transformed.rejected_keys`)."""
    return pl.DataFrame(schema={"day": pl.Date(), "user_id": pl.Int64(), LINE: pl.Int64()})


def _rejected_keys(rejected: pl.DataFrame, prov: Provenance) -> pl.DataFrame:
    user_id = pl.col("user_id") if prov.ref.level == "user" else pl.lit(None, dtype=pl.Int64()).alias("user_id")
    keys = rejected.select(pl.col("day"), user_id, pl.col(LINE)).filter(pl.col("day").is_not_null())
    if prov.ref.level == "user":
        keys = keys.filter(pl.col("user_id").is_not_null())
    # A rejected record of another day or entity holds another key than the report's.
    in_range = pl.col("day").is_between(pl.lit(prov.start_day), pl.lit(prov.end_day))
    return keys.filter(in_range).unique(maintain_order=True)


def empty_records() -> pl.DataFrame:
    """A zero-row frame in the parsed-record shape."""
    return pl.DataFrame(schema={**record_dtype(), LINE: pl.Int64(), EXTRA: pl.String()})


def _timestamp(text: pl.Expr) -> pl.Expr:
    return text.str.to_datetime(TIMESTAMP_FORMAT, time_unit="us", time_zone="UTC", strict=False)


def _context_columns(prov: Provenance, *, with_level: bool) -> list[pl.Expr]:
    cols = [pl.lit(prov.ref.scope).alias("scope"), pl.lit(prov.ref.scope_name).alias("scope_name")]
    if with_level:
        cols.append(pl.lit(prov.ref.level).alias("level"))
    return cols


def _user_columns(prov: Provenance) -> list[pl.Expr]:
    if prov.ref.level == "user":
        return [pl.col("user_id"), pl.col("user_login")]
    return [pl.lit(None, dtype=pl.Int64()).alias("user_id"), pl.lit(None, dtype=pl.String()).alias("user_login")]


def _totals(records: pl.DataFrame, prov: Provenance) -> pl.DataFrame:
    # Every declared column of the level's table (schema.totals_columns): a scalar as it is, an
    # object's member flattened. A field declared there lands; nothing is listed twice.
    columns = [_member(path).alias(column) for column, path in _column_sources(prov.ref.level)]
    return records.select(
        *_context_columns(prov, with_level=False),
        pl.lit(prov.ref.kind).alias("report_kind"),
        *columns,
        pl.col(AGENT_FIELD).is_not_null().alias("agent_breakdown_present"),
        pl.col(EXTRA).alias("extra"),
        *finality_columns(fetched_at=prov.fetched_at, served_at=prov.served_at),
    )


def _column_sources(level: str) -> list[tuple[str, tuple[str, ...]]]:
    """(column, its path in the record) of each totals column of `level`, in table order."""
    objects = object_columns(level)
    return [(column, objects[column][0] if column in objects else (column,)) for column in totals_columns(level)]


def _member(path: tuple[str, ...]) -> pl.Expr:
    expr = pl.col(path[0])
    for member in path[1:]:
        expr = expr.struct.field(member)
    return expr


def _breakdown_frame(
    records: pl.DataFrame, prov: Provenance, kind: str, field: str, keys: tuple[str, ...]
) -> pl.DataFrame:
    exploded = records.select(pl.col("day"), *_user_columns(prov), pl.col(field)).explode(field).drop_nulls(field)
    return exploded.select(
        *_context_columns(prov, with_level=True),
        pl.col("day"),
        pl.col("user_id"),
        pl.col("user_login"),
        pl.lit(kind).alias("kind"),
        *[
            (pl.col(field).struct.field(k) if k in keys else pl.lit(None, dtype=pl.String())).alias(k)
            for k in BREAKDOWN_KEYS
        ],
        *[pl.col(field).struct.field(c).alias(c) for c in ACTIVITY_COUNTS],
        *[pl.lit(None, dtype=pl.Int64()).alias(c) for c in CLI_COUNTS],
        *[pl.lit(None, dtype=dtype).alias(f"token_usage_{k}") for k, dtype in CLI_TOKEN_USAGE.items()],
        *_version_columns(pl.col(field), "totals_by_ide" if kind == "ide" else None),
    )


def _version_columns(source: pl.Expr, field: str | None) -> list[pl.Expr]:
    """The version columns of a breakdown row: those `field` carries, typed; the others null."""
    out = []
    for column in VERSION_COLUMNS:
        src_field, obj, member = VERSION_SOURCES[column]
        if src_field == field:
            value = source.struct.field(obj).struct.field(member)
            out.append((_timestamp(value) if column in TIMESTAMP_COLUMNS else value).alias(column))
        elif column in TIMESTAMP_COLUMNS:
            out.append(pl.lit(None, dtype=pl.Datetime("us", "UTC")).alias(column))
        else:
            out.append(pl.lit(None, dtype=pl.String()).alias(column))
    return out


def _cli_frame(records: pl.DataFrame, prov: Provenance) -> pl.DataFrame:
    cli = pl.col(CLI_FIELD)
    return records.filter(cli.is_not_null()).select(
        *_context_columns(prov, with_level=True),
        pl.col("day"),
        *_user_columns(prov),
        pl.lit("cli").alias("kind"),
        *[pl.lit(None, dtype=pl.String()).alias(k) for k in BREAKDOWN_KEYS],
        *[pl.lit(None, dtype=pl.Int64()).alias(c) for c in ACTIVITY_COUNTS],
        *[cli.struct.field(c).alias(c) for c in CLI_COUNTS],
        *[cli.struct.field("token_usage").struct.field(k).alias(f"token_usage_{k}") for k in CLI_TOKEN_USAGE],
        *_version_columns(cli, CLI_FIELD),
    )


def _breakdowns(records: pl.DataFrame, prov: Provenance) -> pl.DataFrame:
    frames = [_breakdown_frame(records, prov, kind, field, keys) for kind, (field, keys) in BREAKDOWN_ARRAYS.items()]
    frames.append(_cli_frame(records, prov))
    combined = pl.concat(frames, how="vertical")
    counts = combined.columns[-len(BREAKDOWN_COUNTS) - len(VERSION_COLUMNS) : -len(VERSION_COLUMNS)]
    assert counts == list(BREAKDOWN_COUNTS)
    return combined.with_columns(finality_columns(fetched_at=prov.fetched_at, served_at=prov.served_at))


def _agent_activity(records: pl.DataFrame, prov: Provenance) -> pl.DataFrame:
    # Rule 1: an omitted array gives no rows (explode + drop_nulls), never a zero row.
    entries = (
        records.select(pl.col("day"), *_user_columns(prov), pl.col(AGENT_FIELD))
        .explode(AGENT_FIELD)
        .drop_nulls(AGENT_FIELD)
    )
    entry = pl.col(AGENT_FIELD)
    session = (
        entry.struct.field("session_count")
        if prov.ref.level == "aggregate"
        # Rule 3: user-level entries have no session count; NULL, never 0.
        else pl.lit(None, dtype=pl.Int64())
    )
    return entries.select(
        *_context_columns(prov, with_level=True),
        pl.col("day"),
        pl.col("user_id"),
        pl.col("user_login"),
        entry.struct.field("agent_id").alias("agent_id"),
        entry.struct.field("agent_name").alias("agent_name"),
        # Rule 2: the nested count is agent job starts, a measure of its own.
        entry.struct.field("user_initiated_interaction_count").alias("agent_job_starts"),
        session.alias("session_count"),
        *finality_columns(fetched_at=prov.fetched_at, served_at=prov.served_at),
    )


def _cli_customizations(records: pl.DataFrame, prov: Provenance) -> pl.DataFrame:
    """Each category's entries in long form; an omitted array gives no rows, never a zero row."""
    frames = []
    for category, field in CUSTOMIZATION_ARRAYS.items():
        entries = records.select(pl.col("day"), *_user_columns(prov), pl.col(field)).explode(field).drop_nulls(field)
        entry = pl.col(field)
        frames.append(
            entries.select(
                *_context_columns(prov, with_level=True),
                pl.col("day"),
                pl.col("user_id"),
                pl.col("user_login"),
                pl.lit(category).alias("category"),
                entry.struct.field(category).alias("name"),
                entry.struct.field("interaction_count").alias("interaction_count"),
                *finality_columns(fetched_at=prov.fetched_at, served_at=prov.served_at),
            )
        )
    return pl.concat(frames)


def _adoption_phases(records: pl.DataFrame, prov: Provenance) -> pl.DataFrame:
    """One row per phase entry of an aggregate record, its members as columns."""
    entries = (
        records.select(pl.col("day"), pl.col(ADOPTION_PHASE_FIELD))
        .explode(ADOPTION_PHASE_FIELD)
        .drop_nulls(ADOPTION_PHASE_FIELD)
    )
    entry = pl.col(ADOPTION_PHASE_FIELD)
    return entries.select(
        *_context_columns(prov, with_level=False),
        pl.col("day"),
        *[entry.struct.field(member).alias(member) for member in ADOPTION_PHASE_ENTRY],
        pl.lit(prov.ref.kind).alias("report_kind"),
        *finality_columns(fetched_at=prov.fetched_at, served_at=prov.served_at),
    )


def _feature_engagement(records: pl.DataFrame, prov: Provenance) -> pl.DataFrame:
    """The 28-day report's engagement per feature, once: from its last day's record (every day
    of the report carries the same wrapper field)."""
    last = records.filter(pl.col("day") == pl.lit(prov.end_day)).select(
        pl.col("day"),
        pl.col(FEATURE_ENGAGEMENT_FIELD).struct.field("active_user_count").alias("active_user_count"),
        pl.col(FEATURE_ENGAGEMENT_FIELD).struct.field("totals_by_feature").alias("entry"),
    )
    entries = last.explode("entry").drop_nulls("entry")
    return entries.select(
        *_context_columns(prov, with_level=True),
        pl.lit(prov.ref.kind).alias("report_kind"),
        pl.col("day"),
        pl.col("entry").struct.field("feature").alias("feature"),
        pl.col("entry").struct.field("engaged_user_count").alias("engaged_user_count"),
        pl.col("active_user_count"),
        *finality_columns(fetched_at=prov.fetched_at, served_at=prov.served_at),
    )


def _comment_types(records: pl.DataFrame, prov: Provenance) -> pl.DataFrame:
    """The pull requests' suggestions per comment type, one row per entry (aggregate records)."""
    entries = (
        records.select(pl.col("day"), pl.col("pull_requests").struct.field(COMMENT_TYPES_FIELD).alias("entry"))
        .explode("entry")
        .drop_nulls("entry")
    )
    return entries.select(
        *_context_columns(prov, with_level=False),
        pl.col("day"),
        *[pl.col("entry").struct.field(member).alias(member) for member in COMMENT_TYPE_ENTRY],
        pl.lit(prov.ref.kind).alias("report_kind"),
        *finality_columns(fetched_at=prov.fetched_at, served_at=prov.served_at),
    )


def transform_records(records: pl.DataFrame, prov: Provenance) -> Transformed:
    """Split a batch of parsed records into the warehouse frames, rejecting rule breakers."""
    checked = records.with_columns(reasons(prov).alias("_reason"))
    # A 28-day wrapper's records share its line: one reject per line and reason.
    rejects = (
        checked.filter(pl.col("_reason").is_not_null())
        .select(pl.col(LINE).alias("line_number"), pl.col("_reason").alias("reason"))
        .unique(maintain_order=True)
    )
    good = checked.filter(pl.col("_reason").is_null())
    entity = entity_rule(prov)
    keyed = checked.filter(pl.col("_reason").is_not_null())
    if entity is not None:
        keyed = keyed.filter(~entity[0].fill_null(False))
    return Transformed(
        totals=_totals(good, prov),
        breakdowns=_breakdowns(good, prov),
        agent_activity=_agent_activity(good, prov),
        cli_customizations=_cli_customizations(good, prov),
        adoption_phases=_adoption_phases(good, prov),
        feature_engagement=_feature_engagement(good, prov),
        comment_types=_comment_types(good, prov),
        rejects=rejects,
        lines=good.get_column(LINE),
        rejected_keys=_rejected_keys(keyed, prov),
    )
