"""An enterprise's cost centers, budgets and budget user states, and an organization's seat
breakdown and policies, as fetched now → one frame per billing state table (docs/billing.md).

Pure functions, no I/O. Each frame is typed by its table's declaration (`polars_types`); money
arrives as `Decimal` (the client never parses a float) and lands DECIMAL(18,6). A field no column
declares, or a value of the wrong type (a text where an amount goes), stays in the row's
`extra` as it came, its column NULL, so nothing sent is lost and nothing mistyped lands.
A cost center's resources are one row each (`User`, `Team`, `Organization`, …); a User
resource's name is its login, which erasure acts on (the catalog's person columns, on the rows
of type User only), the other resources naming no person.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import polars as pl

from pipelines.transform.columns import polars_types
from pipelines.transform.json_values import dumps

__all__ = [
    "budget_user_states_frame",
    "budgets_frame",
    "cost_center_frames",
    "seat_breakdown_frame",
]

Record = Mapping[str, Any]
_Cast = Callable[[object], object]
_WRONG = object()  # a value its column cannot hold: NULL there, kept in extra


def _text(value: object) -> object:
    return value if isinstance(value, str) else _WRONG


def _flag(value: object) -> object:
    return value if isinstance(value, bool) else _WRONG


def _count(value: object) -> object:
    return value if isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63 else _WRONG


def _money(value: object) -> object:
    if isinstance(value, bool):
        return _WRONG
    if isinstance(value, int):
        value = Decimal(value)
    if isinstance(value, Decimal) and value.is_finite() and abs(value) < Decimal(10) ** 12:
        return value.quantize(Decimal("0.000001"))
    return _WRONG


def _texts(value: object) -> object:
    return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else _WRONG


def _json_safe(value: object) -> object:
    """`extra` is JSON text: an amount the declarations do not name is written as a number."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Mapping):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    return value


def _row(record: Record, fields: Mapping[str, tuple[str, _Cast]], *, base: dict[str, Any]) -> dict[str, Any]:
    """`base` plus each declared wire field (`a.b`: member b of object a) cast into its column;
    in `extra`, every field not declared, and whole, an object with a member not declared or a
    value that does not fit its column (the column is NULL)."""
    row = dict(base)
    heads = {path.partition(".")[0] for path in fields}
    extra = {key: value for key, value in record.items() if key not in heads}
    for path, (column, cast) in fields.items():
        head, _, member = path.partition(".")
        holder = record.get(head) if member else record
        value = holder.get(member or head) if isinstance(holder, Mapping) else None
        cast_value = None if value is None else cast(value)
        if cast_value is _WRONG:
            extra[head] = record[head]
            cast_value = None
        row[column] = cast_value
    for head in heads:
        holder = record.get(head)
        members = {path.partition(".")[2] for path in fields if path.startswith(f"{head}.")}
        if members and holder is not None and (not isinstance(holder, Mapping) or set(holder) - members):
            extra[head] = holder
    row["extra"] = dumps(_json_safe(extra)) if extra else None
    return row


def _frame(table: str, rows: Iterable[dict[str, Any]]) -> pl.DataFrame:
    schema = polars_types(table)
    return pl.DataFrame([{column: row.get(column) for column in schema} for row in rows], schema=schema, orient="row")


_COST_CENTER: dict[str, tuple[str, _Cast]] = {
    "id": ("cost_center_id", _text),
    "name": ("name", _text),
    "state": ("state", _text),
    "azure_subscription": ("azure_subscription", _text),
    "ai_credit_pool_enabled": ("ai_credit_pool_enabled", _flag),
    "ai_credit_pool_state.target_amount": ("ai_credit_pool_target_amount", _money),
    "ai_credit_pool_state.current_amount": ("ai_credit_pool_current_amount", _money),
}


def cost_center_frames(
    records: Iterable[Record], *, day: date, enterprise: str, fetched_at: datetime
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """billing.cost_centers and billing.cost_center_resources of one enterprise's listing. A cost
    center without an id, or a resource without a type and name, cannot be keyed: left out."""
    base = {"snapshot_day": day, "enterprise": enterprise, "fetched_at": fetched_at}
    centers, resources = [], []
    for record in records:
        if not isinstance(record, Mapping) or not isinstance(record.get("id"), str):
            continue
        listed = record.get("resources")
        shown = {key: value for key, value in record.items() if key != "resources"}
        centers.append(_row(shown, _COST_CENTER, base=base))
        seen: set[tuple[str, str]] = set()
        for resource in listed if isinstance(listed, list) else []:
            kind, name = (resource.get("type"), resource.get("name")) if isinstance(resource, Mapping) else (None, None)
            if not isinstance(kind, str) or not isinstance(name, str) or (kind, name) in seen:
                continue
            seen.add((kind, name))
            resources.append(
                {
                    **base,
                    "cost_center_id": record["id"],
                    "resource_type": kind,
                    "resource_name": name,
                    "user_id": None,  # the service names a User resource by its login only
                }
            )
    return _frame("billing.cost_centers", centers), _frame("billing.cost_center_resources", resources)


_BUDGET: dict[str, tuple[str, _Cast]] = {
    "id": ("budget_id", _text),
    "budget_type": ("budget_type", _text),
    "budget_amount": ("budget_amount", _money),
    "prevent_further_usage": ("prevent_further_usage", _flag),
    "budget_scope": ("budget_scope", _text),
    "budget_entity_name": ("budget_entity_name", _text),
    "user": ("user_login", _text),
    "consumed_amount": ("consumed_amount", _money),
    "budget_product_sku": ("budget_product_sku", _text),
    "budget_alerting.will_alert": ("will_alert", _flag),
    "budget_alerting.alert_recipients": ("alert_recipients", _texts),
}


def budgets_frame(records: Iterable[Record], *, day: date, enterprise: str, fetched_at: datetime) -> pl.DataFrame:
    """billing.budgets of one enterprise (a budget without an id is left out)."""
    base = {"snapshot_day": day, "enterprise": enterprise, "fetched_at": fetched_at}
    rows = [
        _row(record, _BUDGET, base=base)
        for record in records
        if isinstance(record, Mapping) and isinstance(record.get("id"), str)
    ]
    return _frame("billing.budgets", rows)


_USER_STATE: dict[str, tuple[str, _Cast]] = {
    "user": ("user_login", _text),
    "consumed_amount": ("consumed_amount", _money),
    "target_amount": ("target_amount", _money),
    "override_budget_id": ("override_budget_id", _text),
}


def budget_user_states_frame(
    states: Mapping[str, Iterable[Record]], *, day: date, enterprise: str, fetched_at: datetime
) -> pl.DataFrame:
    """billing.budget_user_states of one enterprise: each budget's (id → its states) user states."""
    rows = [
        _row(state, _USER_STATE, base={"snapshot_day": day, "enterprise": enterprise, "budget_id": budget_id})
        | {"fetched_at": fetched_at}
        for budget_id, listed in states.items()
        for state in listed
        if isinstance(state, Mapping)
    ]
    return _frame("billing.budget_user_states", rows)


_SEAT_BREAKDOWN: dict[str, tuple[str, _Cast]] = {
    **{
        f"seat_breakdown.{member}": (member, _count)
        for member in (
            "total",
            "added_this_cycle",
            "pending_cancellation",
            "pending_invitation",
            "active_this_cycle",
            "inactive_this_cycle",
        )
    },
    **{
        policy: (policy, _text)
        for policy in ("public_code_suggestions", "ide_chat", "platform_chat", "cli", "seat_management_setting")
    },
    "plan_type": ("plan_type", _text),
}


def seat_breakdown_frame(answers: Mapping[str, Record], *, day: date, fetched_at: datetime) -> pl.DataFrame:
    """billing.seat_breakdown: one row per organization (org → its billing answer)."""
    rows = [
        _row(answer, _SEAT_BREAKDOWN, base={"snapshot_day": day, "org_login": org, "fetched_at": fetched_at})
        for org, answer in answers.items()
    ]
    return _frame("billing.seat_breakdown", rows)
