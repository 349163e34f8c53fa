"""The cost views (sql/views/create_cost_*.sql and the others of issue 45) on bills built by hand,
with every expected figure worked out here: the bill line by line, cost centers named from the
newest snapshot, the chargeback rule (and, for random worlds, its sum to the bill to the
millionth of a dollar), cost per active user, budget burn, the credit reconciliation's calls and
the billing model names the declared map lacks."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.transform.billing_models import BILLING_MODELS
from pipelines.warehouse import migrate
from pipelines.warehouse.rollups import rebuild_rollups
from pipelines.warehouse.sql import run_sql
from tests.integration.bi._docs import BI_DOCS

DAY = date(2026, 11, 10)
FETCHED = datetime(2026, 11, 12, tzinfo=UTC)
ENTERPRISE, ORG = "globex", "acme"
# The tables a world writes: each test starts from none of their rows.
WORLD_TABLES = (
    "billing.credit_usage",
    "billing.cost_center_usage",
    "billing.user_usage",
    "billing.cost_centers",
    "billing.cost_center_resources",
    "billing.budgets",
    "billing.budget_user_states",
    "core.user_daily_totals",
    "core.user_team_days",
    "core.team_days",
    "core.dim_team",
    "core.daily_totals",
    "core.user_report_days",
)


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    conn = duckdb.connect(str(tmp_path_factory.mktemp("cost") / "warehouse.duckdb"))
    migrate(conn)
    yield conn
    conn.close()


@pytest.fixture
def conn(warehouse: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    for table in WORLD_TABLES:
        warehouse.execute(f"DELETE FROM {table}")  # the module's own tables, named above
    return warehouse


def bill(
    conn: duckdb.DuckDBPyConnection,
    net: Decimal | str,
    *,
    scope: str = "enterprise",
    scope_name: str = ENTERPRISE,
    day: date = DAY,
    sku: str = "assistant_ai_credit",
    model: str = "Claude Sonnet 4.5",
    discount: Decimal | str = "0",
    month_closed: bool = False,
) -> None:
    """One line of the bill: `net` dollars at $0.01 a credit, after `discount` dollars."""
    net, discount = Decimal(net), Decimal(discount)
    conn.execute(
        "INSERT INTO billing.credit_usage (scope, scope_name, day, meter, product, sku, model, unit_type,"
        " price_per_unit, gross_quantity, gross_amount, discount_quantity, discount_amount, net_quantity,"
        " net_amount, month_closed, fetched_at) VALUES (?, ?, ?, 'ai_credit', 'assistant', ?, ?, 'ai-credits', 0.01,"
        " ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            scope,
            scope_name,
            day,
            sku,
            model,
            (net + discount) * 100,
            net + discount,
            discount * 100,
            discount,
            net * 100,
            net,
            month_closed,
            FETCHED,
        ],
    )


def center_bill(conn: duckdb.DuckDBPyConnection, cost_center_id: str, net: Decimal | str, *, day: date = DAY) -> None:
    conn.execute(
        "INSERT INTO billing.cost_center_usage (scope, scope_name, day, meter, cost_center_id, product, sku, model,"
        " cost_center_name, unit_type, net_quantity, net_amount, gross_amount, discount_amount, month_closed,"
        " fetched_at) VALUES ('enterprise', ?, ?, 'ai_credit', ?, 'assistant', 'assistant_ai_credit',"
        " 'Claude Sonnet 4.5', ?, 'ai-credits', ?, ?, ?, 0, FALSE, ?)",
        [ENTERPRISE, day, cost_center_id, f"as-fetched {cost_center_id}", Decimal(net) * 100, net, net, FETCHED],
    )


def cost_center(
    conn: duckdb.DuckDBPyConnection, cost_center_id: str, name: str, resources: list[tuple[str, str]], *, snapshot: date
) -> None:
    conn.execute(
        "INSERT INTO billing.cost_centers (snapshot_day, enterprise, cost_center_id, name, state, fetched_at)"
        " VALUES (?, ?, ?, ?, 'active', ?)",
        [snapshot, ENTERPRISE, cost_center_id, name, FETCHED],
    )
    for resource_type, resource_name in resources:
        conn.execute(
            "INSERT INTO billing.cost_center_resources (snapshot_day, enterprise, cost_center_id, resource_type,"
            " resource_name, fetched_at) VALUES (?, ?, ?, ?, ?, ?)",
            [snapshot, ENTERPRISE, cost_center_id, resource_type, resource_name, FETCHED],
        )


def user_day(
    conn: duckdb.DuckDBPyConnection,
    user_id: int,
    credits: Decimal | str | None,
    *,
    scope: str = "enterprise",
    scope_name: str = ENTERPRISE,
    day: date = DAY,
) -> None:
    conn.execute(
        "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, user_login,"
        " agent_breakdown_present, ai_credits_used, is_final) VALUES (?, ?, ?, '1-day', ?, ?, TRUE, ?, TRUE)",
        [scope, scope_name, day, user_id, f"dev-{user_id}", credits],
    )


def on_team(
    conn: duckdb.DuckDBPyConnection,
    user_id: int,
    team_id: int,
    slug: str,
    *,
    scope: str = "enterprise",
    scope_name: str = ENTERPRISE,
    day: date = DAY,
) -> None:
    conn.execute(
        "INSERT INTO core.user_team_days (scope, scope_name, day, user_id, user_login, entity_id, team_id, slug,"
        " fetched_at) VALUES (?, ?, ?, ?, ?, '1', ?, ?, ?)",
        [scope, scope_name, day, user_id, f"dev-{user_id}", team_id, slug, FETCHED],
    )


def derive(conn: duckdb.DuckDBPyConnection) -> None:
    """What the landings of the rows inserted would have derived from them: each day's listed
    teams and the latest slugs (core.team_days, core.dim_team), and the rollups (core.user_report_days)."""
    conn.execute("DELETE FROM core.team_days")
    conn.execute("DELETE FROM core.dim_team")
    scopes = conn.execute("SELECT scope, scope_name, min(day), max(day) FROM core.user_team_days GROUP BY ALL")
    for scope, scope_name, first_day, last_day in scopes.fetchall():
        conn.execute("CREATE OR REPLACE TEMP TABLE touched_teams (team_id BIGINT)")  # as begin_user_teams.sql leaves it
        run_sql(
            conn,
            "warehouse/refresh_team_dimensions.sql",
            scope=scope,
            scope_name=scope_name,
            start_day=first_day,
            end_day=last_day,
        )
    rebuild_rollups(conn)


def chargeback(conn: duckdb.DuckDBPyConnection, scope_name: str = ENTERPRISE) -> dict[tuple[str, str], Decimal]:
    rows = conn.execute(
        "SELECT team, rule, net_amount FROM bi.chargeback_by_team WHERE scope_name = ?", [scope_name]
    ).fetchall()
    return {(team, rule): amount for team, rule, amount in rows}


def test_cost_daily_is_the_bill_line_by_line_with_the_usage_reports_model_id(conn: duckdb.DuckDBPyConnection) -> None:
    bill(conn, "12.34", discount="1.50", model="Claude Sonnet 4.5", month_closed=True)
    bill(conn, "0.66", sku="coding_agent_ai_credit", model="GPT-5.2")
    rows = conn.execute(
        "SELECT sku, model, model_id, unit_type, gross_quantity, gross_amount, discount_quantity, discount_amount,"
        " net_quantity, net_amount, month_closed FROM bi.cost_daily ORDER BY sku"
    ).fetchall()
    assert rows == [
        ("assistant_ai_credit", "Claude Sonnet 4.5", "claude-sonnet-4.5", "ai-credits",
         Decimal("1384"), Decimal("13.84"), Decimal("150"), Decimal("1.50"), Decimal("1234"), Decimal("12.34"), True),
        ("coding_agent_ai_credit", "GPT-5.2", None, "ai-credits",
         Decimal("66"), Decimal("0.66"), Decimal("0"), Decimal("0"), Decimal("66"), Decimal("0.66"), False),
    ]  # fmt: skip
    assert conn.execute("SELECT typeof(net_amount) FROM bi.cost_daily LIMIT 1").fetchone() == ("DECIMAL(38,6)",)


def test_cost_centers_read_under_their_newest_name_and_none_adds_the_rest_of_the_bill(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    bill(conn, "100")
    center_bill(conn, "cc-1", "60")
    center_bill(conn, "none", "40")
    cost_center(conn, "cc-1", "Old name", [], snapshot=DAY - timedelta(days=7))
    cost_center(conn, "cc-1", "Platform", [], snapshot=DAY)
    rows = conn.execute(
        "SELECT cost_center_id, cost_center_name, net_amount FROM bi.cost_by_cost_center ORDER BY cost_center_id"
    ).fetchall()
    assert rows == [("cc-1", "Platform", Decimal("60")), ("none", "no cost center", Decimal("40"))]
    total = conn.execute("SELECT sum(net_amount) FROM bi.cost_by_cost_center").fetchone()
    assert total == conn.execute("SELECT sum(net_amount) FROM bi.cost_daily").fetchone()


def _known_world(conn: duckdb.DuckDBPyConnection) -> None:
    """A day of 100 dollars: cost centers by a Team (40), a User (30), an Organization (10), one with
    nobody on a team (5), and 15 in none. Users 1-2 on platform, 2-3 on web, 4 on the organization's
    ops, 5 on no team, 6 on web and docs (in no cost center)."""
    bill(conn, "100")
    for cost_center_id, net in (("cc-team", "40"), ("cc-user", "30"), ("cc-org", "10"), ("cc-nobody", "5")):
        center_bill(conn, cost_center_id, net)
    center_bill(conn, "none", "15")
    cost_center(conn, "cc-team", "Platform", [("Team", "platform")], snapshot=DAY)
    cost_center(conn, "cc-user", "Web", [("User", "dev-3")], snapshot=DAY)
    cost_center(conn, "cc-org", "Ops", [("Organization", ORG)], snapshot=DAY)
    cost_center(conn, "cc-nobody", "Contractors", [("User", "dev-99")], snapshot=DAY)
    for user_id, credits in ((1, "10"), (2, "30"), (3, "20"), (4, "0"), (5, "40"), (6, "20")):
        user_day(conn, user_id, credits)
    user_day(conn, 4, "0", scope="organization", scope_name=ORG)
    for user_id, team_id, slug in ((1, 1, "platform"), (2, 1, "platform"), (2, 2, "web"), (3, 2, "web"),
                                   (6, 2, "web"), (6, 3, "docs")):  # fmt: skip
        on_team(conn, user_id, team_id, slug)
    on_team(conn, 4, 10, "ops", scope="organization", scope_name=ORG)
    derive(conn)


def test_chargeback_follows_cost_centers_then_credit_shares_and_leaves_the_rest_unallocated_with_reasons(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    _known_world(conn)
    assert chargeback(conn) == {
        # Platform's team takes its 40; web is dev-3's team (30); ops, with no credits, takes Ops' 10.
        ("platform", "cost center"): Decimal("40"),
        ("web", "cost center"): Decimal("30"),
        ("ops", "cost center"): Decimal("10"),
        # The 15 in none: dev-5 (40 credits, no team) and dev-6 (20, on web and docs: halved).
        ("web", "credit share"): Decimal("2.5"),
        ("docs", "credit share"): Decimal("2.5"),
        # Contractors' 5 (nobody on a team) and dev-5's 10.
        ("unallocated", "unallocated"): Decimal("15"),
    }
    ((reason,),) = conn.execute("SELECT reason FROM bi.chargeback_by_team WHERE team_id IS NULL").fetchall()
    assert "cost center Contractors: none of its teams, users or organizations" in reason
    assert "users on no listed team" in reason
    assert "rounded" not in reason


def test_a_cost_centers_net_is_split_by_its_teams_credits_a_member_on_two_counting_half_on_each(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    bill(conn, "90")
    center_bill(conn, "cc", "90")
    cost_center(conn, "cc", "Both", [("Team", "platform"), ("Team", "web")], snapshot=DAY)
    # dev-1 (30 credits) on both teams, dev-2 (60) on web: platform 15 of 90 credits, web 75.
    for user_id, credits in ((1, "30"), (2, "60")):
        user_day(conn, user_id, credits)
    for user_id, team_id, slug in ((1, 1, "platform"), (1, 2, "web"), (2, 2, "web")):
        on_team(conn, user_id, team_id, slug)
    derive(conn)
    assert chargeback(conn) == {("platform", "cost center"): Decimal("15"), ("web", "cost center"): Decimal("75")}


def test_a_team_resource_names_the_team_by_its_slug_that_day_or_its_latest_and_rows_show_the_latest(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    later = DAY + timedelta(days=1)
    for day, slug in ((DAY, "plat-old"), (later, "platform")):  # team 1 renamed the day after
        bill(conn, "10", day=day)
        center_bill(conn, "cc", "10", day=day)
        user_day(conn, 1, "5", day=day)
        on_team(conn, 1, 1, slug, day=day)
    cost_center(conn, "cc", "Platform", [("Team", "platform")], snapshot=later)
    derive(conn)
    rows = conn.execute(
        "SELECT day, team_id, team, rule, net_amount FROM bi.chargeback_by_team ORDER BY day"
    ).fetchall()
    assert rows == [
        (DAY, 1, "platform", "cost center", Decimal("10")),
        (later, 1, "platform", "cost center", Decimal("10")),
    ]


def test_a_share_that_does_not_divide_to_the_millionth_is_rounded_down_and_the_rest_is_unallocated(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    bill(conn, "1", scope="organization", scope_name=ORG)
    for user_id in (1, 2, 3):
        user_day(conn, user_id, "1", scope="organization", scope_name=ORG)
        on_team(conn, user_id, user_id, f"team-{user_id}", scope="organization", scope_name=ORG)
    derive(conn)
    got = chargeback(conn, ORG)
    assert got == {
        **{(f"team-{n}", "credit share"): Decimal("0.333333") for n in (1, 2, 3)},
        ("unallocated", "unallocated"): Decimal("0.000001"),
    }
    ((reason,),) = conn.execute("SELECT reason FROM bi.chargeback_by_team WHERE team_id IS NULL").fetchall()
    assert reason == "allocations rounded down to $0.000001"


def test_a_day_without_credits_reported_or_without_a_report_is_unallocated_for_want_of_a_signal(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    bill(conn, "7.25", scope="organization", scope_name=ORG)
    user_day(conn, 1, "0", scope="organization", scope_name=ORG)
    on_team(conn, 1, 1, "platform", scope="organization", scope_name=ORG)
    derive(conn)
    bill(conn, "1.5", scope="organization", scope_name=ORG, day=DAY + timedelta(days=1))  # no report landed
    rows = conn.execute("SELECT day, team, rule, reason, net_amount FROM bi.chargeback_by_team ORDER BY day").fetchall()
    assert rows == [
        (
            DAY,
            "unallocated",
            "unallocated",
            "usage in no cost center with no usage signal: no user outside the cost centers reported AI credits "
            "that day",
            Decimal("7.25"),
        ),
        (
            DAY + timedelta(days=1),
            "unallocated",
            "unallocated",
            "no user-level usage report of this day landed: no credits or teams to allocate by",
            Decimal("1.5"),
        ),
    ]


# Random worlds: users on random teams with random credits, cost centers holding random teams,
# users and the organization, and random nets (to the millionth of a dollar).
MONEY = st.integers(min_value=0, max_value=5_000_000_000).map(lambda m: Decimal(m) / 1_000_000)
CREDITS = st.one_of(
    st.just(Decimal(0)), st.integers(min_value=0, max_value=900_000_000).map(lambda m: Decimal(m) / 1_000_000)
)
TEAMS = ("platform", "web", "docs")
WORLD = st.fixed_dictionaries(
    {
        "credits": st.lists(CREDITS, min_size=1, max_size=7),
        "teams": st.lists(st.lists(st.sampled_from(TEAMS), max_size=3, unique=True), min_size=7, max_size=7),
        "org_users": st.lists(st.booleans(), min_size=7, max_size=7),
        "centers": st.lists(
            st.tuples(
                MONEY,
                st.lists(
                    st.one_of(
                        st.tuples(st.just("Team"), st.sampled_from(TEAMS)),
                        st.tuples(st.just("User"), st.integers(1, 8).map(lambda n: f"dev-{n}")),
                        st.tuples(st.just("Organization"), st.sampled_from((ORG, "initech"))),
                    ),
                    max_size=3,
                    unique=True,
                ),
            ),
            max_size=3,
        ),
        "none": MONEY,
        "org_bill": MONEY,
    }
)


def _expected_credit_shares(
    net: Decimal, credits: dict[int, Decimal], teams: dict[int, list[str]]
) -> dict[str, Decimal]:
    """The credit-share rule worked out here: a team's weight is its members' credits, each split
    equally between the member's teams (in 1/720720 units), its part of `net` that weight over all
    the users' credits, rounded down to the millionth (users on no team keep theirs unallocated)."""
    split = 720720
    micro = int(net * 1_000_000)
    weight = sum(int(c * 1_000_000) * split for c in credits.values())
    team_weights: dict[str, int] = {}
    for user, c in credits.items():
        for team in teams.get(user, []):
            team_weights[team] = team_weights.get(team, 0) + int(c * 1_000_000) * split // len(teams[user])
    if not weight:
        return {}
    out = {team: Decimal(micro * w // weight) / 1_000_000 for team, w in team_weights.items()}
    return {team: amount for team, amount in out.items() if amount}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(world=WORLD)
def test_for_any_world_a_days_chargeback_adds_up_to_its_bill_and_no_team_is_charged_below_zero(
    conn: duckdb.DuckDBPyConnection, world: dict[str, Any]
) -> None:
    for table in WORLD_TABLES:
        conn.execute(f"DELETE FROM {table}")
    conn.execute("DELETE FROM billing.cost_center_usage")
    credits = dict(enumerate(world["credits"], start=1))
    teams = {user: world["teams"][user - 1] for user in credits}
    team_ids = {slug: n for n, slug in enumerate(TEAMS, start=1)}
    centers_net = sum((net for net, _ in world["centers"]), Decimal(0))
    bill(conn, centers_net + world["none"])
    bill(conn, world["org_bill"], scope="organization", scope_name=ORG)
    for n, (net, resources) in enumerate(world["centers"]):
        center_bill(conn, f"cc-{n}", net)
        cost_center(conn, f"cc-{n}", f"Center {n}", resources, snapshot=DAY)
    center_bill(conn, "none", world["none"])
    for user, c in credits.items():
        for scope, scope_name in (("enterprise", ENTERPRISE), ("organization", ORG)):
            if scope == "organization" and not world["org_users"][user - 1]:
                continue
            user_day(conn, user, c, scope=scope, scope_name=scope_name)
            for slug in teams[user]:
                on_team(conn, user, team_ids[slug], slug, scope=scope, scope_name=scope_name)
    derive(conn)

    sums = conn.execute(
        "SELECT c.scope, c.scope_name, c.day, c.net, b.net FROM"
        " (SELECT scope, scope_name, day, sum(net_amount) AS net FROM bi.cost_daily GROUP BY ALL) AS c"
        " LEFT JOIN (SELECT scope, scope_name, day, sum(net_amount) AS net FROM bi.chargeback_by_team GROUP BY ALL)"
        " AS b USING (scope, scope_name, day)"
    ).fetchall()
    assert len(sums) == 2
    for scope, scope_name, day, billed, charged in sums:
        assert coalesce(charged) == billed, f"{scope} {scope_name} {day}: charged {charged} of a bill of {billed}"
    negative = conn.execute(
        "SELECT * FROM bi.chargeback_by_team WHERE team_id IS NOT NULL AND net_amount < 0"
    ).fetchall()
    assert not negative
    # The organization has no cost centers: its bill goes by credit shares, a user on two teams
    # halved between them, never counted twice.
    org_users = {u: c for u, c in credits.items() if world["org_users"][u - 1]}
    expected = _expected_credit_shares(world["org_bill"], org_users, teams)
    got = {team: amount for (team, rule), amount in chargeback(conn, ORG).items() if rule == "credit share"}
    assert got == expected
    assert sum(got.values(), Decimal(0)) <= world["org_bill"]


def coalesce(amount: Decimal | None) -> Decimal:
    return Decimal(0) if amount is None else amount


def test_the_chargeback_example_of_the_bi_docs_gives_each_teams_cost_and_the_unallocated_reasons(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    _known_world(conn)
    blocks = re.findall(r"^```sql\n(.*?)^```", BI_DOCS.read_text(), re.M | re.S)
    (example,) = [b for b in blocks if "bi.chargeback_by_team" in b]
    rows = conn.execute(example).fetchall()
    assert [(team, rule, net) for _, _, _, team, rule, net, _ in rows] == [
        ("platform", "cost center", Decimal("40")),
        ("web", "cost center", Decimal("30")),
        ("ops", "cost center", Decimal("10")),
        ("docs", "credit share", Decimal("2.5")),
        ("web", "credit share", Decimal("2.5")),
        ("unallocated", "unallocated", Decimal("15")),
    ]
    assert "Contractors" in rows[-1][-1]


def aggregate_day(conn: duckdb.DuckDBPyConnection, day: date, monthly_active_users: int | None) -> None:
    conn.execute(
        "INSERT INTO core.daily_totals (scope, scope_name, day, report_kind, monthly_active_users,"
        " agent_breakdown_present, is_final) VALUES ('enterprise', ?, ?, '1-day', ?, TRUE, TRUE)",
        [ENTERPRISE, day, monthly_active_users],
    )


def test_cost_per_active_user_is_a_periods_net_over_the_services_28_day_active_users(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    last = date(2026, 11, 30)
    for back in range(56):
        day = last - timedelta(days=back)
        bill(conn, "1.000001", day=day)
        # The service's 28-day active users, on each period's newest day: 3 (last 28 days), 7 before.
        aggregate_day(conn, day, 3 if back == 0 else 7 if back == 28 else 100 + back)
    bill(conn, "50", day=last + timedelta(days=1))  # billed before its usage report landed: waits
    rows = conn.execute(
        "SELECT period_index, period_start, period_end, net_amount, billed_days, active_users, cost_per_active_user"
        " FROM bi.cost_per_active_user ORDER BY period_index"
    ).fetchall()
    assert rows == [
        (0, date(2026, 11, 3), last, Decimal("28.000028"), 28, 3, Decimal("9.333342")),
        (1, date(2026, 10, 6), date(2026, 11, 2), Decimal("28.000028"), 28, 7, Decimal("4.000004")),
    ]


def budget(
    conn: duckdb.DuckDBPyConnection,
    budget_id: str,
    scope: str,
    entity: str | None,
    amount: int,
    *,
    sku: str = "",
    prevent: bool = True,
    user_login: str | None = None,
) -> None:
    conn.execute(
        "INSERT INTO billing.budgets (snapshot_day, enterprise, budget_id, budget_type, budget_amount,"
        " prevent_further_usage, budget_scope, budget_entity_name, user_login, budget_product_sku, fetched_at)"
        " VALUES (?, ?, ?, 'ProductPricing', ?, ?, ?, ?, ?, ?, ?)",
        [DAY, ENTERPRISE, budget_id, amount, prevent, scope, entity, user_login, sku, FETCHED],
    )


def user_bill(
    conn: duckdb.DuckDBPyConnection,
    login: str,
    quantity: Decimal | str,
    *,
    sku: str = "assistant_ai_credit",
    day: date = DAY,
    month_closed: bool = True,
) -> None:
    quantity = Decimal(quantity)
    conn.execute(
        "INSERT INTO billing.user_usage (scope, scope_name, day, user_login, product, sku, model, organization,"
        " cost_center_name, quantity, unit_type, applied_cost_per_quantity, gross_amount, discount_amount,"
        " net_amount, month_closed, fetched_at) VALUES ('enterprise', ?, ?, ?, 'assistant', ?, 'Claude Sonnet 4.5',"
        " ?, '', ?, 'ai-credits', 0.01, ?, 0, ?, ?, ?)",
        [ENTERPRISE, day, login, sku, ORG, quantity, quantity / 100, quantity / 100, month_closed, FETCHED],
    )


def test_budget_burn_projects_the_month_linearly_on_the_days_elapsed_and_counts_the_users_it_blocks(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    # November to the 10th: the enterprise spent 40 (36 chat, 4 coding agent), cost center cc-1 10,
    # dev-1 3 (300 credits in the export).
    for n in range(1, 11):
        day = date(2026, 11, n)
        bill(conn, "3.6", day=day)
        bill(conn, "0.4", day=day, sku="coding_agent_ai_credit", model="GPT-5.2")
        center_bill(conn, "cc-1", "1", day=day)
    cost_center(conn, "cc-1", "Platform", [], snapshot=DAY)
    user_bill(conn, "dev-1", "300")
    budget(conn, "b-ent", "enterprise", None, 100)
    budget(conn, "b-agent", "enterprise", None, 10, sku="coding_agent_ai_credit", prevent=False)
    budget(conn, "b-cc", "cost_center", "Platform", 50)
    budget(conn, "b-user", "user", "dev-1", 5, user_login="dev-1")
    budget(conn, "b-repo", "repository", "acme/atlas", 5)
    for login, consumed in (("dev-1", "5"), ("dev-2", "7.5"), ("dev-3", "4.99")):
        for budget_id in ("b-ent", "b-agent"):
            conn.execute(
                "INSERT INTO billing.budget_user_states (snapshot_day, enterprise, budget_id, user_login,"
                " consumed_amount, target_amount, fetched_at) VALUES (?, ?, ?, ?, ?, 5, ?)",
                [DAY, ENTERPRISE, budget_id, login, consumed, FETCHED],
            )
    rows = conn.execute(
        "SELECT budget_id, month, consumed_to_date, projected_month_end, projected_over, users_blocked"
        " FROM bi.budget_burn ORDER BY budget_id"
    ).fetchall()
    november = date(2026, 11, 1)
    assert rows == [
        ("b-agent", november, Decimal("4"), Decimal("12"), True, 0),  # does not stop usage: blocks no one
        ("b-cc", november, Decimal("10"), Decimal("30"), False, 0),
        ("b-ent", november, Decimal("40"), Decimal("120"), True, 2),  # dev-1 and dev-2 reached 5
        ("b-repo", november, None, None, None, 0),  # a repository's spend is not in the bill
        ("b-user", november, Decimal("3"), Decimal("9"), True, 0),
    ]


def test_each_call_of_the_credit_reconciliation_on_known_user_days(conn: duckdb.DuckDBPyConnection) -> None:
    reported = {1: "100", 2: "10", 3: "100", 4: "0", 5: "25", 7: "50"}
    for user_id, credits in reported.items():
        user_day(conn, user_id, credits)
    derive(conn)
    for login, quantity, sku in (
        ("dev-1", "101.9", "assistant_ai_credit"),  # within 2%
        ("dev-2", "10.95", "assistant_ai_credit"),  # within 1 credit, not 2%
        ("dev-3", "110", "assistant_ai_credit"),  # beyond both
        ("dev-4", "30", "coding_agent_ai_credit"),  # only a SKU the signal does not hold
        ("dev-6", "12", "assistant_ai_credit"),  # telemetry off: in no report
        ("dev-7", "50", "assistant_ai_credit"),
        ("dev-7", "8", "spark_ai_credit"),
    ):
        user_bill(conn, login, quantity, sku=sku, month_closed=login != "dev-3")
    rows = conn.execute(
        "SELECT user_login, reported_credits, billed_credits, difference, call, explanation"
        " FROM bi.credit_reconciliation ORDER BY user_login"
    ).fetchall()
    calls = {login: (reported, billed, difference, call) for login, reported, billed, difference, call, _ in rows}
    assert calls == {
        "dev-1": (Decimal("100"), Decimal("101.9"), Decimal("1.9"), "agrees"),
        "dev-2": (Decimal("10"), Decimal("10.95"), Decimal("0.95"), "agrees"),
        "dev-3": (Decimal("100"), Decimal("110"), Decimal("10"), "differs"),
        "dev-4": (Decimal("0"), Decimal("30"), Decimal("30"), "billed, not reported"),
        "dev-5": (Decimal("25"), Decimal("0"), Decimal("-25"), "reported, not billed"),
        "dev-6": (None, Decimal("12"), Decimal("12"), "billed, not reported"),
        "dev-7": (Decimal("50"), Decimal("58"), Decimal("8"), "agrees"),
    }
    explanations = {login: explanation for login, *_, explanation in rows}
    assert "open when fetched" in explanations["dev-3"]
    assert "telemetry is off" in explanations["dev-6"]
    assert "8.000000 credits of Spark" in explanations["dev-7"]
    assert "SKUs the usage signal does not hold" in explanations["dev-4"]


def test_the_declared_model_map_is_the_warehouses_and_a_billed_name_it_lacks_is_drift(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    held = dict(conn.execute("SELECT billing_model, model_id FROM billing.model_names").fetchall())
    assert held == BILLING_MODELS
    bill(conn, "1", model="Claude Sonnet 4.5")
    bill(conn, "2", model="Mystery 9", sku="assistant_premium_request")
    bill(conn, "3", model="Mystery 9", day=DAY + timedelta(days=1))
    rows = conn.execute("SELECT model, first_day, last_day, days, net_amount FROM bi.billing_model_drift").fetchall()
    assert rows == [("Mystery 9", DAY, DAY + timedelta(days=1), 2, Decimal("5"))]
    assert conn.execute("SELECT model_id FROM bi.cost_daily WHERE model = 'Mystery 9'").fetchall() == [(None,), (None,)]
