"""The enterprise's cost centers and budgets (docs/emulator.md, "Billing").

Cost centers (resources as the service lists them: `User`, `Team` an enterprise team's slug,
`Organization`):
- "Platform Engineering": the first two engineering enterprise teams (emulator/teams.py), drawing
  from the AI-credit pool;
- "Product": users (organization users with u % 5 == 2, and the first quiet account);
- "Labs Research": the organization `{org}-labs`;
- "Legacy Tools": deleted, holding nothing.
A line is charged to the cost center naming its user, else the one naming the user's enterprise
team that day, else the one naming its organization, else to none: each line has one or none,
so the answers per cost center and `none` add up to the unfiltered answer.

Budgets: the enterprise's, one per active cost center, a multi-user budget over every user
(its user states: each user's month-to-date net amount against the target), and user budgets
(organization users with u % 9 == 4) overriding it; `prevent_further_usage` on some, so users
whose consumption reached their target are blocked.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from emulator.billing_world import BillingBook, Line, meter_of, month_start

PRODUCT_EVERY, PRODUCT_AT = 5, 2
USER_BUDGET_EVERY, USER_BUDGET_AT = 9, 4
PLATFORM_TEAMS = 2
USER_TARGET = Decimal(1)  # dollars a month per user under the multi-user budget
USER_BUDGET = Decimal(3)
AI_CREDITS_SKU = "ai_credits"


def uuid_of(*parts: object) -> str:
    h = hashlib.sha256(repr(parts).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


@dataclass(frozen=True)
class CostCenter:
    id: str
    name: str
    state: str
    users: frozenset[int]
    team_ids: frozenset[int]
    orgs: frozenset[str]
    pool: bool

    def record(self, book: BillingBook, today: date) -> dict[str, Any]:
        rename_day = book.data.rename_day
        teams = [t for t in book.data.teams.teams("enterprise") if t.team_id in self.team_ids]
        resources = [
            {"type": "User", "name": book.identity(u)[0]} for u in sorted(self.users, key=lambda u: (u < 0, u))
        ]
        resources += [{"type": "Team", "name": t.slug_on(today, rename_day)} for t in teams]
        resources += [{"type": "Organization", "name": org} for org in sorted(self.orgs)]
        out: dict[str, Any] = {"id": self.id, "name": self.name, "state": self.state}
        if self.pool:
            out["azure_subscription"] = uuid_of("azure", self.id)
        out["resources"] = resources
        out["ai_credit_pool_enabled"] = self.pool
        return out


class Centers:
    """The cost centers and budgets of a billing book's enterprise."""

    def __init__(self, book: BillingBook, enterprise: str) -> None:
        self.book = book
        # The month to date of the clock's day, worked out once: every budgets and user-states
        # page reads it (a 15,000-user enterprise's user states took minutes, page after page).
        self._month: tuple[date | None, list[Line]] = (None, [])
        data = book.data
        seed = data.seed
        engineering = [t for t in data.teams.teams("enterprise") if t.kind == "engineering"]
        self.centers = (
            CostCenter(
                uuid_of(seed, enterprise, "platform"),
                "Platform Engineering",
                "active",
                frozenset(),
                frozenset(t.team_id for t in engineering[:PLATFORM_TEAMS]),
                frozenset(),
                True,
            ),
            CostCenter(
                uuid_of(seed, enterprise, "product"),
                "Product",
                "active",
                frozenset([*(u for u in range(data.users) if u % PRODUCT_EVERY == PRODUCT_AT), -1]),
                frozenset(),
                frozenset(),
                False,
            ),
            CostCenter(
                uuid_of(seed, enterprise, "labs"),
                "Labs Research",
                "active",
                frozenset(),
                frozenset(),
                frozenset([data.second_org]),
                False,
            ),
            CostCenter(
                uuid_of(seed, enterprise, "legacy"),
                "Legacy Tools",
                "deleted",
                frozenset(),
                frozenset(),
                frozenset(),
                False,
            ),
        )
        self.by_id = {c.id: c for c in self.centers}

    def center_of(self, line: Line) -> CostCenter | None:
        for center in self.centers:
            if line.user in center.users:
                return center
        if line.user >= 0:
            team = self.book.data.teams.enterprise_team_of(line.user, line.day).team_id
            for center in self.centers:
                if team in center.team_ids:
                    return center
        return next((c for c in self.centers if line.org in c.orgs), None)

    def month_to_date(self, today: date) -> list[Line]:
        if self._month[0] != today:
            self._month = (today, self.book.lines(month_start(today), today - timedelta(days=1), today))
        return self._month[1]

    def pool_state(self, center: CostCenter, today: date) -> dict[str, Any]:
        lines = [line for line in self.month_to_date(today) if self.center_of(line) is center]
        members = {line.user for line in lines}
        return {
            "target_amount": Decimal(len(members)) * meter_of(today).allowance,
            "current_amount": sum((line.gross for line in lines), Decimal(0)),
        }

    def center_records(self, today: date, state: str | None) -> list[dict[str, Any]]:
        out = []
        for center in self.centers:
            if state is not None and center.state != state:
                continue
            record = center.record(self.book, today)
            if center.pool:
                record["ai_credit_pool_state"] = self.pool_state(center, today)
            out.append(record)
        return out

    # ----- budgets ------------------------------------------------------------------------------

    def _previous_net(self, today: date) -> tuple[Decimal, dict[str, Decimal]]:
        """Last month's net amount, in all and per cost center id: what the budgets are sized by."""
        first = month_start(month_start(today) - timedelta(days=1))
        total, per = Decimal(0), dict.fromkeys(self.by_id, Decimal(0))
        for line in self.book.lines(first, month_start(today) - timedelta(days=1), today):
            net = line.amounts()[2]
            total += net
            center = self.center_of(line)
            if center is not None:
                per[center.id] += net
        return total, per

    def budgets(self, today: date, enterprise: str) -> list[dict[str, Any]]:
        lines = self.month_to_date(today)
        now = sum((line.amounts()[2] for line in lines), Decimal(0))
        total, per = self._previous_net(today)
        alerting = {"will_alert": True, "alert_recipients": ["enterprise-admin", "billing-manager"]}
        out = [self._budget("enterprise", enterprise, 2 * total, now, True, alerting)]
        factors = {"Platform Engineering": Decimal("0.6"), "Product": Decimal(2), "Labs Research": Decimal("1.2")}
        for center in self.centers:
            if center.state != "active":
                continue
            spent = sum((line.amounts()[2] for line in lines if self.center_of(line) is center), Decimal(0))
            cap = factors[center.name] * per[center.id]
            out.append(self._budget("cost_center", center.name, cap, spent, center.name != "Product", alerting))
        everyone = self._budget("multi_user_customer", enterprise, USER_TARGET, Decimal(0), True, alerting)
        everyone.pop("consumed_amount")
        out.append(everyone)
        net_of = self.user_net(today)
        for u in range(self.book.data.users):
            if u % USER_BUDGET_EVERY == USER_BUDGET_AT:
                login = self.book.identity(u)[0]
                budget = self._budget("user", login, USER_BUDGET, net_of.get(login, Decimal(0)), u % 2 == 0, alerting)
                out.append(budget | {"user": login})
        return out

    def _budget(
        self, scope: str, entity: str, amount: Decimal, consumed: Decimal, prevent: bool, alerting: dict[str, Any]
    ) -> dict[str, Any]:
        return {
            "id": uuid_of(self.book.seed, "budget", scope, entity),
            "budget_type": "BundlePricing",
            "budget_amount": max(1, int(amount)),
            "prevent_further_usage": prevent,
            "budget_scope": scope,
            "budget_entity_name": entity,
            "consumed_amount": consumed,
            "budget_product_sku": AI_CREDITS_SKU,
            "budget_alerting": alerting,
        }

    def user_net(self, today: date) -> dict[str, Decimal]:
        out: dict[str, Decimal] = {}
        for line in self.month_to_date(today):
            out[line.login] = out.get(line.login, Decimal(0)) + line.amounts()[2]
        return out

    def user_states(self, today: date, enterprise: str) -> list[dict[str, Any]]:
        """The multi-user budget's states: every billed user, by login."""
        overrides = {b["user"]: b for b in self.budgets(today, enterprise) if b["budget_scope"] == "user"}
        net_of = self.user_net(today)
        out = []
        for user in self.book.users("enterprise"):
            login = self.book.identity(user)[0]
            state: dict[str, Any] = {"user": login, "consumed_amount": net_of.get(login, Decimal(0))}
            override = overrides.get(login)
            state["target_amount"] = override["budget_amount"] if override else int(USER_TARGET)
            if override:
                state["override_budget_id"] = override["id"]
            out.append(state)
        return sorted(out, key=lambda s: s["user"])
