"""Every table the pipeline lands, declared once: what a row is, how the lake partitions it, who
writes it, and which Dagster asset shows it.

The lists that were written in several places (and drifted) derive from TABLES: the lake's
partitions and schemas, the tables a report's landing writes and marks for the lake
(`replace.py`), the snapshot tables a day replaces (`snapshots.py`), the grain and sign checks
(`checks.py`), the Dagster assets' keys, specs and row counts (`pipelines/defs/_tables.py`) and
the publish's upstream. `tests/unit/warehouse/test_catalog.py` holds it against
the migrated warehouse and the Dagster graph; its columns are in `pipelines/transform/columns.py`.

Long because TABLES is one declaration per table, in one list: its order is the order every
derived list keeps (migrate, the lake, the Dagster assets, the docs' table), and a table's
declaration is whole in one place; split by schema, the list would be four lists to keep in order.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipelines.transform.schema import ACTIVITY_COUNTS, AGGREGATE, COMMENT_TYPE_ENTRY, RECORD_OBJECTS, USER

__all__ = ["TABLES", "Table", "table", "tables"]

_BOTH = frozenset({USER, AGGREGATE})


@dataclass(frozen=True)
class Table:
    schema: str
    table: str
    grain: tuple[str, ...]  # the columns a row is unique by
    description: str
    # The lake's hive column: the day a row belongs to (None: the table is written whole).
    partition: str | None = None
    partition_in_file: bool = False  # the day is derived (received_at's UTC day): the column stays in the file
    # "month": a small table (a few rows a day) is one lake file a month (hive column `month`, its
    # first day; the day stays in the file): a reader opens 12 files for a year, not 365
    # (measured: 10 ms against 156 ms to read core.daily_totals' year whole through DuckDB).
    lake_grain: str = "day"
    # Who writes it: "report" (each report's landing transaction, replaced by a re-fetch),
    # "user-teams" (with a day's user report), "repos" (with a day's aggregate report),
    # "snapshot", "webhooks", "derived" (refreshed from the facts in the same transaction), or
    # "rollup" (a small daily rollup of user rows the bi views read, computed by
    # sql/rollups/<table>.sql for a landing's days in its transaction: pipelines/warehouse/rollups.py),
    # or "erasure" (`metrics-etl forget`, and a landing dropping erased people: never replaced),
    # or "declared" (`migrate` writes it from a declaration in code), or "billing" (a scope's
    # billing landing: pipelines/ingest/billing.py, a month of an endpoint per transaction), or
    # "vendors" (a vendor's days of an endpoint per transaction: pipelines/ingest/vendors.py), or
    # "publish" (computed by each publish, before it writes the lake: pipelines/warehouse/chargeback.py),
    # or "identities" (the operator's identity file, read whole by each vendors run: pipelines/ingest/identities.py).
    writer: str = "derived"
    levels: frozenset[str] = _BOTH  # the report levels whose landing writes it
    counters: tuple[str, ...] = ()  # counts that are never negative (the sign check)
    # Grain columns that name a failing row in a check's detail: a report's table with a label has
    # its grain checked in each landing's transaction (pipelines/warehouse/checks.py).
    label: tuple[str, ...] = ()
    asset: str | None = None  # the Dagster group whose asset shows it
    # How a landing writes a batch (LANDINGS in replace.py): "rows" as they come, "days" but
    # not the days kept from a 1-day report, "keyed" like "days" recording each file's
    # (day, user) keys so a file fetched again can take its rows back, "upsert" replacing rows
    # of the same grain. None: not written batch by batch.
    landing: str | None = None
    # Which rows a report landing again replaces (REPLACES in replace.py): "days" its scope's
    # days (at its level, if the table has one) but the kept ones, "report" the rows of the
    # same report, "open-report" those not cleared by a person, "report-days" the report kind's
    # days, "scope-days" the scope's days landed (a billing month), "partition-days" every row of
    # the days landed (a vendor's, which has one account). None: rows are kept (a history).
    replaces: str | None = None
    # A rollup: how many days after a landing's days it is computed again too (its rows there
    # depend on the days before them).
    trail: int = 0
    # The columns naming a person (user id, login), which erasure and retention act on
    # (pipelines/warehouse/erasure.py): a row whose grain holds either goes with the person, any
    # other keeps its place without them (an issue loses its author). Rows by their partition day.
    person: tuple[str, str] | None = None
    # (column, value): only the rows whose column holds the value name a person (a cost center's
    # resources of type User; its teams and organizations name none). None: every row.
    person_where: tuple[str, str] | None = None
    # Free-text columns that may hold a login ("as discussed with @dev-00018"): erasure replaces
    # it there with a placeholder (pipelines/warehouse/people.py).
    text: tuple[str, ...] = ()
    # List columns (VARCHAR[]) of logins naming people (a budget's alert recipients): erasure takes
    # the person's login out of the list, in any case, and a landing drops erased people's.
    login_lists: tuple[str, ...] = ()
    # A vendor's table (schema vendors) names its person by the email the vendor sends, and by the
    # vendor's own user id where it sends one: erasure takes out the rows of the person's emails
    # (theirs given, or the ones their seats show) and vendor ids, retention by the partition day
    # (pipelines/warehouse/erasure_vendors.py). On a table of the service's people (`person`),
    # `email` names where their email shows, for erasure to find it.
    email: str | None = None
    vendor_id: str | None = None
    # Whether the grain is the table's primary key. False for the large facts landed batch by
    # batch, where DuckDB's index would cost memory on every insert, and for rows the grain check
    # holds unique instead (a billing user state may come without its user).
    keyed: bool = True
    # The columns naming the repository a snapshot row is of (its name, and its numeric id where
    # the row has one): a webhook refresh replaces by them the rows of the repositories it takes
    # again (pipelines/warehouse/snapshots.py). None: no row is of one repository.
    repository_name: str | None = None
    repository_id: str | None = None

    @property
    def name(self) -> str:
        return f"{self.schema}.{self.table}"

    @property
    def primary_key(self) -> tuple[str, ...]:
        """The columns of its primary key: the grain, or none when it is unkeyed."""
        return self.grain if self.keyed else ()


_ACTIVITY = ACTIVITY_COUNTS
_USER = ("user_id", "user_login")
_PULL_REQUEST_COUNTS = tuple(
    f"pull_requests_{member}"
    for member, dtype in RECORD_OBJECTS["pull_requests"][0].items()
    if isinstance(dtype, pl.Int64)
)

TABLES: tuple[Table, ...] = (
    Table(
        "raw",
        "report_files",
        ("scope", "scope_name", "report_kind", "level", "report_start_day", "report_end_day", "file_index"),
        "One row per downloaded report file (archived compressed, with sha256), and per archived seat listing "
        "(level seats).",
        writer="report",
        asset="usage",
        landing="rows",
        replaces="report",
    ),
    Table(
        "raw",
        "report_fetches",
        ("scope", "scope_name", "level", "report_kind", "day", "fetched_at"),
        "Every fetch of a day: what it carried, and whether the day was final then.",
        partition="day",
        lake_grain="month",
        writer="report",
        asset="usage",
        landing="upsert",
    ),
    Table(
        "raw",
        "field_drift",
        ("scope", "scope_name", "level", "report_kind", "day", "path", "drift"),
        "Fields the records carried beyond the schema (undeclared, or mistyped), per report and day; a seat "
        "listing's, level seats.",
        partition="day",
        lake_grain="month",
        writer="report",
        asset="usage",
        landing="rows",
        replaces="report-days",
    ),
    Table(
        "raw",
        "quarantine",
        (
            "scope",
            "scope_name",
            "report_kind",
            "level",
            "report_start_day",
            "report_end_day",
            "file_index",
            "line_number",
        ),
        "Lines of a report file that could not land, with the reason and the line's text.",
        writer="report",
        landing="rows",
        replaces="open-report",
        text=("line_text", "reason"),
        keyed=False,
    ),
    Table(
        "core",
        "daily_totals",
        ("scope", "scope_name", "day"),
        "Aggregate-level report records: one row per scope and day.",
        partition="day",
        lake_grain="month",
        writer="report",
        levels=frozenset({AGGREGATE}),
        asset="usage",
        counters=(
            *_ACTIVITY,
            "daily_active_users",
            "weekly_active_users",
            "monthly_active_users",
            "monthly_active_chat_users",
            "monthly_active_agent_users",
        ),
        label=("scope_name", "day"),
        landing="keyed",
        replaces="days",
        keyed=False,
    ),
    Table(
        "core",
        "user_daily_totals",
        ("scope", "scope_name", "day", "user_id"),
        "User-level report records: one row per scope, day and user.",
        partition="day",
        writer="report",
        levels=frozenset({USER}),
        asset="usage",
        counters=_ACTIVITY,
        label=("scope_name", "day"),
        landing="keyed",
        replaces="days",
        person=_USER,
        keyed=False,
    ),
    Table(
        "core",
        "breakdowns",
        ("scope", "scope_name", "level", "day", "user_id", "kind", "ide", "feature", "language", "model"),
        "The breakdown arrays (IDE, feature, language, model, CLI) in long form.",
        partition="day",
        writer="report",
        asset="usage",
        counters=(*_ACTIVITY, "session_count", "request_count", "prompt_count"),
        label=("scope_name", "day", "kind"),
        landing="days",
        replaces="days",
        person=_USER,
        keyed=False,
    ),
    Table(
        "core",
        "agent_activity",
        ("scope", "scope_name", "level", "day", "user_id", "agent_id"),
        "Third-party agent entries by agent_id: job starts and (aggregate only) sessions.",
        partition="day",
        writer="report",
        asset="usage",
        counters=("agent_job_starts", "session_count"),
        label=("scope_name", "day", "agent_id"),
        landing="days",
        replaces="days",
        person=_USER,
        keyed=False,
    ),
    Table(
        "core",
        "cli_customizations",
        ("scope", "scope_name", "level", "day", "user_id", "category", "name"),
        "The CLI customizations used most (skills, custom agents, MCP servers, slash commands, plugins), "
        "each entry's interaction count.",
        partition="day",
        writer="report",
        asset="usage",
        counters=("interaction_count",),
        label=("scope_name", "day", "category", "name"),
        landing="days",
        replaces="days",
        person=_USER,
        keyed=False,
    ),
    Table(
        "core",
        "adoption_phases",
        ("scope", "scope_name", "day", "phase_number"),
        "The aggregate report's AI adoption phases: users of each phase that day, its 28-day population, "
        "and averages per user of the phase (never summed).",
        partition="day",
        lake_grain="month",
        writer="report",
        levels=frozenset({AGGREGATE}),
        asset="usage",
        counters=("total_engaged_users", "users_in_phase_28d"),
        label=("scope_name", "day", "phase_number"),
        landing="days",
        replaces="days",
        keyed=False,
    ),
    Table(
        "core",
        "feature_engagement",
        ("scope", "scope_name", "level", "report_kind", "day", "feature"),
        "The 28-day aggregate report's users engaged with each feature on two days or more, beside its active "
        "users (on the report's last day).",
        partition="day",
        lake_grain="month",
        writer="report",
        levels=frozenset({AGGREGATE}),
        asset="usage",
        counters=("engaged_user_count", "active_user_count"),
        label=("scope_name", "day", "feature"),
        landing="days",
        replaces="report-days",
        keyed=False,
    ),
    Table(
        "core",
        "comment_types",
        ("scope", "scope_name", "day", "comment_type"),
        "The aggregate report's suggestions of the assistant's review per comment type, and those applied.",
        partition="day",
        lake_grain="month",
        writer="report",
        levels=frozenset({AGGREGATE}),
        asset="usage",
        counters=("total_assistant_suggestions", "total_assistant_applied_suggestions"),
        label=("scope_name", "day", "comment_type"),
        landing="days",
        replaces="days",
        keyed=False,
    ),
    Table(
        "core",
        "user_report_days",
        ("scope", "scope_name", "day"),
        "Rollup: each user-level report day's users (records, active, with the agent array, per surface, by "
        "what made them active: IDE, app only, CLI only, other surfaces only, counts only, inactive) and sums, "
        "for the bi views and bi.reconciliation.",
        partition="day",
        lake_grain="month",
        writer="rollup",
    ),
    Table(
        "core",
        "organization_enterprise_days",
        ("scope", "scope_name", "day", "enterprise"),
        "Rollup: the users an organization's user-level report shares with an enterprise's each day, which "
        "says the enterprise the organization is in (bi.reconciliation).",
        partition="day",
        lake_grain="month",
        writer="rollup",
    ),
    Table(
        "core",
        "credit_team_sets",
        ("scope", "scope_name", "day", "team_set"),
        "Rollup: a day's users with AI credits grouped by the teams they were on (an enterprise's users also by "
        "their organizations' teams and reports), their number and credits: what bi.chargeback_by_team splits "
        "and holds by, read instead of user rows.",
        partition="day",
        lake_grain="month",
        writer="rollup",
    ),
    Table(
        "core",
        "team_report_days",
        ("scope", "scope_name", "day", "team_id"),
        "Rollup: each listed team's members, reported, active (any surface) and third-party agent users and "
        "their sums per day.",
        partition="day",
        lake_grain="month",
        writer="rollup",
    ),
    Table(
        "core",
        "team_agent_days",
        ("scope", "scope_name", "day", "team_id", "agent_id"),
        "Rollup: each listed team's users of each third-party agent per day, and their job starts.",
        partition="day",
        lake_grain="month",
        writer="rollup",
    ),
    Table(
        "core",
        "phase_user_days",
        ("scope", "scope_name", "day", "phase_number"),
        "Rollup: the user-level report's users in each AI adoption phase per day.",
        partition="day",
        lake_grain="month",
        writer="rollup",
    ),
    Table(
        "core",
        "agent_reach",
        ("scope", "scope_name", "day", "agent_id"),
        "Rollup: a day's users of each agent counted by how many days back they last used it (users_since[k]: "
        "k days or more), what a 28-day period's distinct users are summed from.",
        partition="day",
        lake_grain="month",
        writer="rollup",
        trail=27,
    ),
    Table(
        "core",
        "team_reach",
        ("scope", "scope_name", "day", "team_id", "counted"),
        "Rollup: a day's listed, active and third-party agent users of each team counted by how many days back "
        "the team last counted them so.",
        partition="day",
        lake_grain="month",
        writer="rollup",
        trail=27,
    ),
    Table(
        "core",
        "team_window_users",
        ("scope", "scope_name", "day", "team_id"),
        "Rollup: each team's distinct listed, active and third-party agent users over the 28 days ending on each day "
        "(from core.team_reach) and the window's sums of its days: a 28-day period of bi.team_usage_periods "
        "is one row a team.",
        partition="day",
        lake_grain="month",
        writer="rollup",
        trail=54,
    ),
    Table(
        "core",
        "agent_days",
        ("scope", "scope_name", "level", "day", "agent_id", "agent_name"),
        "Which agent labels were seen on which day, per scope and level (a few rows a day).",
        partition="day",
        lake_grain="month",
        asset="usage",
        replaces="days",
    ),
    Table("core", "dim_agent", ("agent_id",), "One row per agent_id with its latest label.", asset="usage"),
    Table(
        "core",
        "agent_names",
        ("agent_id", "agent_name"),
        "Every label an agent_id has carried, with the days it was seen.",
        asset="usage",
    ),
    Table(
        "core",
        "agent_vendors",
        ("agent_id",),
        "The agent map: each of the service's third-party agent apps (agent_id) that is a vendor's product, as "
        "pipelines/vendors/wire.py declares it (Vendor.agents): bi.assistant_usage_daily marks its overlap.",
        writer="declared",
    ),
    Table(
        "core",
        "user_team_days",
        ("scope", "scope_name", "day", "user_id", "team_id"),
        "Extension: who was on which team each day (user-teams report), landed with the day's user rows.",
        partition="day",
        writer="user-teams",
        levels=frozenset({USER}),
        asset="usage",
        landing="rows",
        replaces="days",
        person=_USER,
        keyed=False,
        label=("scope_name", "day", "team_id"),
    ),
    Table(
        "core",
        "erased_user_days",
        ("scope", "scope_name", "day"),
        "How many people `metrics-etl forget` removed from each day's user-level records (never whom): the "
        "aggregate report still counts them (bi.reconciliation).",
        writer="erasure",
    ),
    Table(
        "core",
        "service_incidents",
        ("incident_id",),
        "The service's known incidents (days, scopes, measures, what it said), as pipelines/warehouse/"
        "incidents.py declares them (bi.service_incident_days).",
        writer="declared",
    ),
    Table(
        "core",
        "team_days",
        ("scope", "scope_name", "day", "team_id"),
        "Extension: each listed team per day, with its slug and member count (a few rows a day).",
        partition="day",
        lake_grain="month",
        writer="user-teams",
        asset="usage",
        replaces="days",
    ),
    Table(
        "core",
        "dim_team",
        ("scope", "scope_name", "team_id"),
        "Extension: one row per team_id with its latest slug.",
        asset="usage",
    ),
    Table(
        "core",
        "repository_days",
        ("scope", "scope_name", "day", "repo_id"),
        "Each repository active that day (repos-1-day report): its name, visibility and pull-request counts, "
        "landed with the day's aggregate record.",
        partition="day",
        lake_grain="month",
        writer="repos",
        levels=frozenset({AGGREGATE}),
        asset="usage",
        counters=_PULL_REQUEST_COUNTS,
        label=("scope_name", "day", "repo_id"),
        landing="rows",
        replaces="days",
        keyed=False,
    ),
    Table(
        "core",
        "repository_review_times",
        ("scope", "scope_name", "day", "repo_id", "authored_by", "reviewed_by"),
        "Each repository's review stage times (median, p90 minutes) of the pull requests merged that day, "
        "human reviews only.",
        partition="day",
        lake_grain="month",
        writer="repos",
        levels=frozenset({AGGREGATE}),
        asset="usage",
        counters=("total_merged",),
        label=("scope_name", "day", "repo_id"),
        landing="rows",
        replaces="days",
        keyed=False,
    ),
    Table(
        "core",
        "repository_comment_types",
        ("scope", "scope_name", "day", "repo_id", "comment_type"),
        "Each repository's suggestions of the assistant's review per comment type, and how many were applied.",
        partition="day",
        lake_grain="month",
        writer="repos",
        levels=frozenset({AGGREGATE}),
        asset="usage",
        counters=tuple(m for m in COMMENT_TYPE_ENTRY if m != "comment_type"),
        label=("scope_name", "day", "repo_id", "comment_type"),
        landing="rows",
        replaces="days",
        keyed=False,
    ),
    Table(
        "snapshots",
        "repositories",
        ("snapshot_day", "repository_id"),
        "Every repository of the organization (REST), keyed by numeric id.",
        partition="snapshot_day",
        writer="snapshot",
        asset="snapshots",
        text=("description",),
        repository_name="full_name",
        repository_id="repository_id",
    ),
    Table(
        "snapshots",
        "repository_stats",
        ("snapshot_day", "repository_id"),
        "Stars, forks, issue and pull-request counts, mentionable users (GraphQL).",
        partition="snapshot_day",
        writer="snapshot",
        asset="snapshots",
        repository_name="full_name",
        repository_id="repository_id",
    ),
    Table(
        "snapshots",
        "issues",
        ("snapshot_day", "issue_id"),
        "Every issue and pull request (REST), labels kept.",
        partition="snapshot_day",
        writer="snapshot",
        asset="snapshots",
        person=_USER,
        text=("title",),
        repository_name="repository_full_name",
        repository_id="repository_id",
    ),
    Table(
        "snapshots",
        "org_members",
        ("snapshot_day", "org_login", "member_id"),
        "The organization's members (REST).",
        partition="snapshot_day",
        writer="snapshot",
        asset="snapshots",
        person=("member_id", "login"),
    ),
    Table(
        "snapshots",
        "seats",
        ("snapshot_day", "org_login", "user_id"),
        "Extension: every organization's seats (REST billing/seats): holder (with the name and email the seat "
        "shows), granting organization, assigning team with its type and parent, plan, last activity, pending "
        "cancellation, and what a seat carried beyond the declared fields (extra); total_seats per organization "
        "in snapshots.seat_totals.",
        partition="snapshot_day",
        writer="snapshot",
        asset="snapshots",
        person=("user_id", "login"),
        email="assignee_email",
    ),
    Table(
        "snapshots",
        "seat_totals",
        ("snapshot_day", "org_login"),
        "Extension: each organization's total_seats on the snapshot day, and how many of those seats were left "
        "out of snapshots.seats as their holder was erased (erased_seats) or as no column could hold them "
        "(left_out_seats).",
        partition="snapshot_day",
        lake_grain="month",
        writer="snapshot",
    ),
    Table(
        "snapshots",
        "enterprise_seats",
        ("snapshot_day", "enterprise", "user_id", "granted_through", "granted_by"),
        "Extension: every enterprise's seats (REST billing/seats), one per holder and granting organization or "
        "enterprise team (a user granted twice holds two rows); total_seats, each user once, in "
        "snapshots.enterprise_seat_totals.",
        partition="snapshot_day",
        writer="snapshot",
        asset="snapshots",
        person=("user_id", "login"),
        email="assignee_email",
    ),
    Table(
        "snapshots",
        "enterprise_seat_totals",
        ("snapshot_day", "enterprise"),
        "Extension: each enterprise's total_seats on the snapshot day: its distinct seat holders (erased_holders: "
        "of them, those left out of snapshots.enterprise_seats as erased; left_out_holders: at most this many "
        "left out as no column could hold their seat).",
        partition="snapshot_day",
        lake_grain="month",
        writer="snapshot",
    ),
    Table(
        "snapshots",
        "unassigned_seats",
        ("snapshot_day", "scope", "scope_name", "seat_number"),
        "Extension: the seats a listing sent without an assignee (a deleted or pending account), numbered in "
        "listing order per organization or enterprise, every other field kept; they count in its total_seats.",
        partition="snapshot_day",
        lake_grain="month",
        writer="snapshot",
    ),
    Table(
        "snapshots",
        "warnings",
        ("snapshot_day", "repository", "endpoint"),
        "What a snapshot could not read (a repository gone, a listing refused), per day.",
        partition="snapshot_day",
        lake_grain="month",
        writer="snapshot",
        text=("message",),
        repository_name="repository",
    ),
    Table(
        "events",
        "webhook_deliveries",
        ("delivery_id",),
        "Webhook deliveries from the receiver's spool, exactly once by delivery id.",
        partition="received_day",
        partition_in_file=True,
        writer="webhooks",
        asset="events",
    ),
    Table(
        "events",
        "webhook_quarantine",
        ("delivery_id",),
        "Deliveries the loader set aside, with the reason.",
        writer="webhooks",
    ),
    Table("events", "spool_offsets", ("segment",), "How far each spool segment has been loaded.", writer="webhooks"),
    Table(
        "billing",
        "credit_usage",
        ("scope", "scope_name", "day", "meter", "product", "sku", "model"),
        "The bill: billed AI credits (meter ai_credit; premium requests before 2026-06, meter premium_request) "
        "per scope, day, product, SKU and model, gross, discount and net quantities and amounts (DECIMAL).",
        partition="day",
        lake_grain="month",
        writer="billing",
        asset="billing",
        landing="rows",
        replaces="scope-days",
    ),
    Table(
        "billing",
        "cost_center_usage",
        ("scope", "scope_name", "day", "meter", "cost_center_id", "product", "sku", "model"),
        "The same per cost center of an enterprise, and cost_center_id 'none' for usage in none: the cost "
        "centers' rows of a day sum to billing.credit_usage's.",
        partition="day",
        lake_grain="month",
        writer="billing",
        asset="billing",
        landing="rows",
        replaces="scope-days",
    ),
    Table(
        "billing",
        "product_usage",
        ("scope", "scope_name", "day", "product", "sku", "organization_name", "repository_name"),
        "Billing usage lines per day, product and SKU with organization and repository ('' when the line "
        "names none): quantity, price per unit, gross, discount and net amounts.",
        partition="day",
        lake_grain="month",
        writer="billing",
        asset="billing",
        landing="rows",
        replaces="scope-days",
    ),
    Table(
        "billing",
        "usage_summary",
        ("scope", "scope_name", "day", "product", "sku"),
        "The billing usage summary per scope, day, product and SKU.",
        partition="day",
        lake_grain="month",
        writer="billing",
        asset="billing",
        landing="rows",
        replaces="scope-days",
    ),
    Table(
        "billing",
        "user_usage",
        ("scope", "scope_name", "day", "user_login", "product", "sku", "model", "organization", "cost_center_name"),
        "The enterprise's usage report export: billed usage per user, day, SKU and model, with the quota and "
        "the organization and cost center it was billed to (an erased person's rows go; the bill, "
        "billing.credit_usage, keeps its totals).",
        partition="day",
        writer="billing",
        asset="billing",
        landing="rows",
        replaces="scope-days",
        person=_USER,
        keyed=False,
    ),
    Table(
        "billing",
        "fetches",
        ("scope", "scope_name", "endpoint", "day", "fetched_at"),
        "Every billing fetch of a day per table it lands (endpoint): its calls, rows, whether the month was "
        "closed then, and its status (ok, denied: the token cannot read billing, failed).",
        partition="day",
        lake_grain="month",
        writer="billing",
        asset="billing",
        landing="upsert",
    ),
    Table(
        "billing",
        "cost_centers",
        ("snapshot_day", "enterprise", "cost_center_id"),
        "Each enterprise's cost centers on the snapshot day: name, state, Azure subscription, AI-credit pool.",
        partition="snapshot_day",
        lake_grain="month",
        writer="billing",
        asset="billing",
    ),
    Table(
        "billing",
        "cost_center_resources",
        ("snapshot_day", "enterprise", "cost_center_id", "resource_type", "resource_name"),
        "What each cost center holds on the snapshot day: users, enterprise teams and organizations.",
        partition="snapshot_day",
        lake_grain="month",
        writer="billing",
        asset="billing",
        person=("user_id", "resource_name"),
        person_where=("resource_type", "User"),
    ),
    Table(
        "billing",
        "budgets",
        ("snapshot_day", "enterprise", "budget_id"),
        "Each enterprise's budgets on the snapshot day: type, scope and entity, amount, consumed, SKU, whether "
        "usage stops at it, alerting.",
        partition="snapshot_day",
        lake_grain="month",
        writer="billing",
        asset="billing",
        person=_USER,
        text=("budget_entity_name",),
        login_lists=("alert_recipients",),
    ),
    Table(
        "billing",
        "budget_user_states",
        ("snapshot_day", "enterprise", "budget_id", "user_login"),
        "Each budget's per-user state on the snapshot day: consumed against target, and the overriding budget.",
        partition="snapshot_day",
        writer="billing",
        asset="billing",
        person=_USER,
        keyed=False,
    ),
    Table(
        "billing",
        "seat_breakdown",
        ("snapshot_day", "org_login"),
        "Each organization's seat breakdown of the billing cycle (total, added, pending cancellation and "
        "invitation, active and inactive) and its policies, on the snapshot day.",
        partition="snapshot_day",
        lake_grain="month",
        writer="billing",
        asset="billing",
    ),
    Table(
        "billing",
        "model_names",
        ("billing_model",),
        "The bill's model names and the usage reports' model id of each, as pipelines/transform/"
        "billing_models.py declares them (bi.cost_daily, bi.billing_model_drift).",
        writer="declared",
    ),
    Table(
        "billing",
        "team_chargeback",
        ("scope", "scope_name", "day", "team_scope", "team_scope_name", "team_id", "rule"),
        "bi.chargeback_by_team's rows as the publish computed them (a team by its scope and id, the unallocated "
        "row with none), for the days whose bill, teams, credits or reports changed and, when the newest cost "
        "centers, a Team resource's team or the views changed, every day: what the serving database's "
        "bi.chargeback_by_team reads instead of allocating every day again.",
        partition="day",
        lake_grain="month",
        writer="publish",
        keyed=False,
    ),
    Table(
        "vendors",
        "claude_code_days",
        ("day", "actor_type", "actor"),
        "Claude Code's own analytics (Anthropic Admin API): per day and actor (a user by email, or an API key by "
        "name) its sessions, lines added and removed, commits and pull requests, edit and write tools accepted "
        "and rejected, organization, customer, subscription and terminal type; is_final once the vendor's lag "
        "has passed.",
        partition="day",
        writer="vendors",
        asset="vendors",
        landing="rows",
        replaces="partition-days",
        email="email",
    ),
    Table(
        "vendors",
        "claude_code_models",
        ("day", "actor_type", "actor", "model"),
        "Claude Code's tokens (input, output, cache read and creation) and estimated cost in cents per day, "
        "actor and model.",
        partition="day",
        writer="vendors",
        asset="vendors",
        landing="rows",
        replaces="partition-days",
        email="email",
    ),
    Table(
        "vendors",
        "cursor_days",
        ("day", "email"),
        "Cursor's team daily usage (Cursor Admin API) per day and member: lines added and deleted (and of them "
        "accepted), applies, accepts and rejects, tabs shown and accepted, composer, chat and agent requests, "
        "requests included in the subscription, by API key and usage-based, the most used model and "
        "extensions; is_final once the vendor's lag has passed.",
        partition="day",
        writer="vendors",
        asset="vendors",
        landing="rows",
        replaces="partition-days",
        email="email",
        vendor_id="user_id",
    ),
    Table(
        "vendors",
        "cursor_spend",
        ("read_day", "email"),
        "Cursor's spend per member as read on read_day (the vendor's day; the day's last read): the billing "
        "cycle's (cycle_start) to date, in cents, on-demand (spend_cents) and overall, with fast premium requests "
        "and the member's limits. Every day's read is kept: a day's spend is the difference of two reads.",
        partition="read_day",
        lake_grain="month",
        writer="vendors",
        asset="vendors",
        landing="rows",
        replaces="partition-days",
        email="email",
        vendor_id="user_id",
    ),
    Table(
        "vendors",
        "cursor_members",
        ("snapshot_day", "email"),
        "Cursor's team members on the snapshot day: user id, name, role, whether removed.",
        partition="snapshot_day",
        lake_grain="month",
        writer="vendors",
        asset="vendors",
        landing="rows",
        replaces="partition-days",
        email="email",
        vendor_id="user_id",
    ),
    Table(
        "vendors",
        "operator_identities",
        ("read_day", "email"),
        "The operator's identity file (IDENTITY_MAP_PATH, email,login a line) as last read whole (read_day), each "
        "good line with its number and the login's user id where a seat shows it; it wins over a seat's email in "
        "bi.assistant_identities.",
        partition="read_day",
        lake_grain="month",
        writer="identities",
        asset="vendors",
        person=("user_id", "login"),
        email="email",
    ),
    Table(
        "vendors",
        "fetches",
        ("vendor", "endpoint", "day", "fetched_at"),
        "Every vendor fetch of a day per endpoint: its calls, records and lines quarantined, the vendor's clock, "
        "whether the day was final then, and its status (ok, denied: the key cannot read it, failed).",
        partition="day",
        lake_grain="month",
        writer="vendors",
        asset="vendors",
        landing="upsert",
    ),
)


def table(name: str) -> Table:
    """The table `schema.table`."""
    for declared in TABLES:
        if declared.name == name:
            return declared
    raise KeyError(f"no table {name!r} in the catalog")


def tables(
    *,
    writer: str | None = None,
    asset: str | None = None,
    partitioned: bool | None = None,
    person: bool | None = None,
    vendor_person: bool | None = None,
) -> list[Table]:
    """The declared tables matching every filter given, in declaration order."""
    return [
        t
        for t in TABLES
        if (writer is None or t.writer == writer)
        and (asset is None or t.asset == asset)
        and (partitioned is None or (t.partition is not None) == partitioned)
        and (person is None or (t.person is not None) == person)
        and (vendor_person is None or (t.person is None and t.email is not None) == vendor_person)
    ]


def _partition_words(t: Table) -> str:
    if t.partition is None:
        return "whole"
    return f"{t.partition}, a file a month" if t.lake_grain == "month" else t.partition


def markdown() -> str:
    """The catalog as the table docs/architecture.md shows (tests hold the two equal)."""
    rows = ["| table | one row per | lake partition | written by | Dagster asset | what |", "|---|---|---|---|---|---|"]
    for t in TABLES:
        rows.append(
            f"| `{t.name}` | {', '.join(t.grain)} | {_partition_words(t)} | {t.writer} | {t.asset or '-'} "
            f"| {t.description} |"
        )
    return "\n".join(rows)
