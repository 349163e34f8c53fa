"""A scope whose token cannot read its billing, told once per run (docs/billing.md).

The billed usage, the billing state and the exports each find it refused on their own; each
asset records what it could not read in its metadata (`billing_not_read`: scope, name, what and
the service's answer), and the run's notes merge them: one line per scope naming every kind of
billing data refused, the answers, and who may read that scope's billing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pipelines.service.billing_wire import BILLING_ROLES

__all__ = ["NOT_READ", "not_read", "not_read_lines"]

NOT_READ = "billing_not_read"  # the materialization metadata key
_ROLES: dict[str, str] = {str(scope): roles for scope, roles in BILLING_ROLES.items()}


def not_read(scope: str, name: str, what: str, answer: str) -> dict[str, str]:
    """One kind of `scope` `name`'s billing data refused (`what`: usage, cost centers, exports…),
    with the service's answer ("403 Must have admin rights…")."""
    return {"scope": scope, "name": name, "what": what, "answer": answer}


def not_read_lines(entries: Iterable[object]) -> list[str]:
    """One line per scope of every entry `not_read` made, in the order the scopes came, what was
    refused in alphabetical order (the assets run in any order)."""
    scopes: dict[tuple[str, str], dict[str, list[str]]] = {}  # (scope, name) -> answer -> whats
    for entry in entries:
        if not isinstance(entry, Mapping) or entry.get("scope") not in _ROLES:
            continue
        answers = scopes.setdefault((str(entry["scope"]), str(entry.get("name"))), {})
        whats = answers.setdefault(str(entry.get("answer")), [])
        if (what := str(entry.get("what"))) not in whats:
            whats.append(what)
    return [
        f"billing of {scope} {name!r} not read ("
        + "; ".join(f"{', '.join(sorted(whats))}: {answer}" for answer, whats in answers.items())
        + f"): the token needs {_ROLES[scope]}; the cost views stay without it"
        for (scope, name), answers in scopes.items()
    ]
