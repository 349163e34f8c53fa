"""The rules of the data: the first one each parsed record breaks, as one vectorized expression.

A record that breaks one becomes a reject (line, reason) and produces no rows; `records.py`
applies the rules and shapes the good records into the warehouse frames.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from pipelines.transform.schema import (
    ACTIVITY_COUNTS,
    AGENT_FIELD,
    BREAKDOWN_ARRAYS,
    CLI_COUNTS,
    CLI_FIELD,
    ENTITY_ID_FIELDS,
    TIMESTAMP_COLUMNS,
    TIMESTAMP_FORMAT,
    VERSION_SOURCES,
)

if TYPE_CHECKING:
    from pipelines.transform.provenance import Provenance


def _any_negative(columns: list[pl.Expr]) -> pl.Expr:
    return pl.any_horizontal([c < 0 for c in columns]).fill_null(False)


def _element_negative(field: str, counts: tuple[str, ...]) -> pl.Expr:
    return (
        pl.col(field)
        .list.eval(pl.any_horizontal([pl.element().struct.field(c) < 0 for c in counts]).fill_null(False))
        .list.any()
        .fill_null(False)
    )


def _bad_timestamp(text: pl.Expr) -> pl.Expr:
    return text.is_not_null() & text.str.to_datetime(TIMESTAMP_FORMAT, time_zone="UTC", strict=False).is_null()


def _version_member(column: str) -> pl.Expr:
    field, obj, member = VERSION_SOURCES[column]
    source = pl.element() if field == "totals_by_ide" else pl.col(field)
    return source.struct.field(obj).struct.field(member)


def entity_rule(prov: Provenance) -> tuple[pl.Expr, pl.Expr] | None:
    """(condition, reason) of a record of another entity than the scope's; None until known."""
    if prov.entity_id is None:
        return None
    field = ENTITY_ID_FIELDS[prov.ref.scope]
    other = pl.col(field).is_not_null() & (pl.col(field) != prov.entity_id)
    owner = f"{prov.ref.scope} {prov.ref.scope_name}'s ({field} {prov.entity_id})"
    reason = pl.format(f"{field} {{}} is not {owner}", pl.col(field))
    return other, reason


def reasons(prov: Provenance) -> pl.Expr:
    """First rule each record breaks, or null. Vectorized; one expression per rule."""
    rules: list[tuple[pl.Expr, str | pl.Expr]] = [
        (pl.col("day").is_null(), "missing day"),
        (
            ~pl.col("day").is_between(pl.lit(prov.start_day), pl.lit(prov.end_day)),
            f"day outside the report's range {prov.start_day}..{prov.end_day}",
        ),
    ]
    if prov.ref.level == "user":
        rules.append((pl.col("user_id").is_null(), "missing user_id at user level"))
    entity = entity_rule(prov)
    if entity is not None:
        rules.append(entity)
    rules.append((_any_negative([pl.col(c) for c in ACTIVITY_COUNTS]), "negative count"))
    for field, _keys in BREAKDOWN_ARRAYS.values():
        rules.append((_element_negative(field, ACTIVITY_COUNTS), f"negative count in {field}"))
    rules.append(
        (_any_negative([pl.col(CLI_FIELD).struct.field(c) for c in CLI_COUNTS]), f"negative count in {CLI_FIELD}")
    )
    rules.append(
        (
            pl.col(AGENT_FIELD).list.eval(pl.element().struct.field("agent_id").is_null()).list.any().fill_null(False),
            f"{AGENT_FIELD} entry without agent_id",
        )
    )
    rules.append(
        (
            _element_negative(AGENT_FIELD, ("user_initiated_interaction_count", "session_count")),
            f"negative count in {AGENT_FIELD}",
        )
    )
    for column in sorted(TIMESTAMP_COLUMNS):
        field, obj, member = VERSION_SOURCES[column]
        if field == "totals_by_ide":
            bad = pl.col(field).list.eval(_bad_timestamp(_version_member(column))).list.any()
            where = f"{field}[].{obj}.{member}"
        else:
            bad = _bad_timestamp(_version_member(column))
            where = f"{field}.{obj}.{member}"
        rules.append((bad, f"field {where}: not an ISO 8601 timestamp with a zone"))
    expr = pl.lit(None, dtype=pl.String())
    for condition, reason in reversed(rules):
        text = pl.lit(reason) if isinstance(reason, str) else reason
        expr = pl.when(condition.fill_null(False)).then(text).otherwise(expr)
    return expr
