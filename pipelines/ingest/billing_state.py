"""One snapshot day of the billing state: each enterprise's cost centers with their resources,
budgets and every budget's user states, and each organization's seat breakdown and policies,
fetched now and landed as the day's rows (docs/billing.md).

A scope whose billing answers 403 (the token is no enterprise administrator or billing
manager, or an app without billing read) or 404 is refused alone: it is told in one line, and
whatever the day held of it stays; the other scopes land. A budgets or user-states listing the
service pages inconsistently (an item repeated, pages past its count: ListingRefused) is
refused the same way, recorded `failed`: the day keeps those tables' rows of the enterprise,
and the rest of its state lands. People erased by `metrics-etl forget` are left out before
anything lands.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

import polars as pl

from pipelines.ingest.forgotten import without_forgotten
from pipelines.service import billing_state as api
from pipelines.service import canonical_scopes
from pipelines.service.errors import NotFound, PermissionDenied
from pipelines.transform import billing_state as tf
from pipelines.transform.columns import polars_types
from pipelines.warehouse.billing_state import replace_state_day

if TYPE_CHECKING:
    import duckdb

    from pipelines.service import ServiceClient
    from pipelines.warehouse.erasure import Forgotten

__all__ = ["ENDPOINT", "StateRefused", "StateResult", "collect_billing_state", "run_billing_state"]

ENDPOINT = "billing_state"  # billing.fetches' name of a scope's state fetch

# Who can read what the state is fetched from, as a refusal says it.
ENTERPRISE_ROLES = "an enterprise administrator or billing manager, or an app with enterprise billing read"
ORGANIZATION_ROLES = "an organization owner (a token with manage_billing or read:org), or an app with billing read"


@dataclass(frozen=True)
class StateRefused:
    scope: str  # "enterprise" | "organization"
    name: str
    what: str  # what could not be read
    status: int | None  # None: a listing refused for what it answered, not for its status
    message: str
    kept: tuple[str, ...] = ()  # a listing refused: the tables whose day's rows of the scope stay

    def line(self) -> str:
        if self.status is None:
            return (
                f"billing state of {self.scope} {self.name!r}: its {self.what} refused ({self.message}); "
                f"its rows of the day in {' and '.join(self.kept)} stay as they were, the rest of its state "
                "landed; the next run asks again"
            )
        roles = ENTERPRISE_ROLES if self.scope == "enterprise" else ORGANIZATION_ROLES
        return (
            f"billing state of {self.scope} {self.name!r} not read ({self.what}: {self.status} {self.message}): "
            f"the token needs {roles}; its cost centers, budgets and seat breakdown stay as last landed"
        )


@dataclass(frozen=True)
class StateResult:
    day: date
    frames: dict[str, pl.DataFrame]
    owners: tuple[str, ...]  # the enterprises and organizations whose state was read
    refused: tuple[StateRefused, ...] = field(default=())
    fetches: pl.DataFrame | None = None  # billing.fetches: a row per scope (endpoint `billing_state`)


def collect_billing_state(
    client: ServiceClient, *, enterprises: tuple[str, ...], orgs: tuple[str, ...], day: date, fetched_at: datetime
) -> StateResult:
    """Fetch the state of every enterprise and organization now, one frame per state table."""
    scopes = canonical_scopes(
        client, [*(("enterprise", name) for name in enterprises), *(("organization", org) for org in orgs)]
    )
    refused: list[StateRefused] = []
    owners: list[str] = []
    centers: list[pl.DataFrame] = []
    resources: list[pl.DataFrame] = []
    budgets: list[pl.DataFrame] = []
    states: list[pl.DataFrame] = []
    seat_answers: dict[str, object] = {}
    fetches: list[dict[str, Any]] = []
    for scope, name in scopes:
        what = "cost centers"
        requests_before = client.stats.requests
        fetch = {"scope": scope, "scope_name": name, "endpoint": ENDPOINT, "day": day, "fetched_at": fetched_at}
        fetch |= {"month_closed": False, "status": "ok", "rows": 0, "message": None}
        fetches.append(fetch)
        budget_records: list[dict[str, Any]] | None = None  # None: refused, the day's rows kept
        user_states: dict[str, list[dict[str, Any]]] | None = None
        try:
            if scope == "enterprise":
                listed = api.list_cost_centers(client, enterprise=name)
                what = "budgets"
                budget_records = api.list_budgets(client, enterprise=name)
                what = "budget user states"
                user_states = _user_states(client, name, budget_records)
            else:
                what = "seat breakdown"
                seat_answers[name] = api.get_org_billing(client, org=name)
        except (PermissionDenied, NotFound) as exc:
            refused.append(StateRefused(scope, name, what, exc.status, exc.message))
            status = "denied" if isinstance(exc, PermissionDenied) else "failed"
            fetch |= {"status": status, "message": exc.message, "calls": client.stats.requests - requests_before}
            continue
        except api.ListingRefused as exc:
            stale = _STATE_OF[what]
            refused.append(StateRefused(scope, name, what, None, str(exc), stale))
            fetch |= {"status": "failed", "message": str(exc)}
        fetch["calls"] = client.stats.requests - requests_before
        owners.append(name)
        if scope == "enterprise":
            center_frame, resource_frame = tf.cost_center_frames(
                listed, day=day, enterprise=name, fetched_at=fetched_at
            )
            landed = [
                center_frame,
                resource_frame,
                tf.budgets_frame(budget_records or [], day=day, enterprise=name, fetched_at=fetched_at),
                tf.budget_user_states_frame(user_states or {}, day=day, enterprise=name, fetched_at=fetched_at),
            ]
            for frames_of, frame in zip((centers, resources, budgets, states), landed, strict=True):
                frames_of.append(frame)
            fetch["rows"] = sum(frame.height for frame in landed)
        else:
            fetch["rows"] = 1
    empty_centers, empty_resources = tf.cost_center_frames([], day=day, enterprise="", fetched_at=fetched_at)
    frames = {
        "billing.cost_centers": pl.concat([empty_centers, *centers]),
        "billing.cost_center_resources": pl.concat([empty_resources, *resources]),
        "billing.budgets": pl.concat([tf.budgets_frame([], day=day, enterprise="", fetched_at=fetched_at), *budgets]),
        "billing.budget_user_states": pl.concat(
            [tf.budget_user_states_frame({}, day=day, enterprise="", fetched_at=fetched_at), *states]
        ),
        "billing.seat_breakdown": tf.seat_breakdown_frame(
            {org: answer for org, answer in seat_answers.items() if isinstance(answer, dict)},
            day=day,
            fetched_at=fetched_at,
        ),
    }
    return StateResult(
        day=day,
        frames=frames,
        owners=tuple(owners),
        refused=tuple(refused),
        fetches=pl.DataFrame(fetches, schema=polars_types("billing.fetches")),
    )


# A listing refused: the tables it leaves as the day held them (the budgets' refusal leaves their
# user states unasked).
_STATE_OF: Mapping[str, tuple[str, ...]] = {
    "budgets": ("billing.budgets", "billing.budget_user_states"),
    "budget user states": ("billing.budget_user_states",),
}


def _kept(refused: tuple[StateRefused, ...]) -> dict[str, list[str]]:
    """Each state table's owners whose day's rows stay (their listing refused)."""
    kept: dict[str, list[str]] = {}
    for refusal in refused:
        for name in refusal.kept:
            kept.setdefault(name, []).append(refusal.name)
    return kept


# The budgets the service keeps per-user states of: those spread over many users.
MULTI_USER_SCOPES = frozenset({"multi_user_customer", "multi_user_cost_center"})


def _user_states(
    client: ServiceClient, enterprise: str, budgets: list[dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """Each multi-user budget's user states; a budget answering 404 (deleted since the listing,
    or holding none) has none."""
    states: dict[str, list[dict[str, Any]]] = {}
    for record in budgets:
        budget_id = record.get("id") if isinstance(record, dict) else None
        if not isinstance(budget_id, str) or record.get("budget_scope") not in MULTI_USER_SCOPES:
            continue
        try:
            states[budget_id] = api.list_budget_user_states(client, enterprise=enterprise, budget_id=budget_id)
        except NotFound:
            states[budget_id] = []
    return states


def run_billing_state(
    client: ServiceClient,
    conn: duckdb.DuckDBPyConnection,
    *,
    enterprises: tuple[str, ...],
    orgs: tuple[str, ...],
    day: date,
    forgotten: Forgotten | None = None,
) -> StateResult:
    """Collect `day`'s billing state and replace the day's rows of the scopes read, in one transaction."""
    result = collect_billing_state(client, enterprises=enterprises, orgs=orgs, day=day, fetched_at=datetime.now(UTC))
    frames = result.frames
    if forgotten is not None:
        kept = without_forgotten(
            {name.removeprefix("billing."): frame for name, frame in frames.items()}, forgotten, schema="billing"
        )
        frames = {f"billing.{name}": frame for name, frame in kept.items()}
    replace_state_day(
        conn, day=day, frames=frames, owners=result.owners, kept=_kept(result.refused), fetches=result.fetches
    )
    return StateResult(day=day, frames=frames, owners=result.owners, refused=result.refused, fetches=result.fetches)
