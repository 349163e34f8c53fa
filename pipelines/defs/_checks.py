"""Checks as Dagster sees them: a spec per check, and one result per check from its outcomes.

A check is reported by the materialization that wrote its table (as `check_specs`), so a
blocking failure stops everything downstream of it in the same run, such as the serving
database. A non-blocking check that fails is a warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import dagster as dg

from pipelines.warehouse.checks import Check, CheckOutcome

_DETAIL_CHARS = 2000


def check_spec(check: Check, *, prefix: str = "", blocking: bool | None = None) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(
        prefix + check.name,
        asset=dg.AssetKey(list(check.table)),
        description=check.description,
        blocking=check.blocking if blocking is None else blocking,
    )


def check_specs(checks: Iterable[Check], *, prefix: str = "", blocking: bool | None = None) -> list[dg.AssetCheckSpec]:
    return [check_spec(check, prefix=prefix, blocking=blocking) for check in checks]


def check_results(
    checks: Iterable[Check], outcomes: Iterable[CheckOutcome], *, prefix: str = ""
) -> Iterator[dg.AssetCheckResult]:
    """One result per check: its outcomes (one per report slice the run wrote, or one) summed."""
    by_check: dict[Check, list[CheckOutcome]] = {}
    for outcome in outcomes:
        by_check.setdefault(outcome.check, []).append(outcome)
    for check in checks:
        found = by_check.get(check, [])
        details = [f"{o.where}: {o.detail}" if o.where else o.detail for o in found if o.detail]
        yield dg.AssetCheckResult(
            asset_key=dg.AssetKey(list(check.table)),
            check_name=prefix + check.name,
            passed=all(o.passed for o in found),
            severity=dg.AssetCheckSeverity.ERROR if check.blocking else dg.AssetCheckSeverity.WARN,
            metadata={
                "failures": sum(o.failures for o in found),
                "detail": "; ".join(details)[:_DETAIL_CHARS],
                "slices_checked": len(found),
            },
        )
