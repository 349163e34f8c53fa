"""The report record as this project knows it: field names and types, in one place.

Everything else (the reader's column spec, the line validator, the table columns) is derived
from these tables, so a field added by the platform is a one-line change here. Fields not
listed are kept in the `extra` JSON column, never dropped.

Names here are canonical: the `service` dialect's (docs/service-contract.md). A dialect whose
records name a field differently has its wire names in `WIRE_NAMES`; the reader reads those and
hands on canonical columns, so every table and view has one name per measure whatever the dialect.

Long because it is the one declaration of the record: split, a field's type, levels, wire names
and former names would live in several files again.
"""

from __future__ import annotations

import polars as pl

from pipelines.service.kinds import AGGREGATE_1_DAY, REPOS_1_DAY, USER_1_DAY, Level
from pipelines.transform.seat_fields import SEAT_TABLES

# Scalar counts shared by a daily record and every breakdown element.
ACTIVITY_COUNTS: tuple[str, ...] = (
    "user_initiated_interaction_count",
    "code_generation_activity_count",
    "code_acceptance_activity_count",
    "loc_suggested_to_add_sum",
    "loc_suggested_to_delete_sum",
    "loc_added_sum",
    "loc_deleted_sum",
)

# The report levels whose records carry these fields, from the report kinds' declarations.
USER: Level = USER_1_DAY.level
AGGREGATE: Level = AGGREGATE_1_DAY.level
REPOS: Level = REPOS_1_DAY.level
_BOTH = frozenset({USER, AGGREGATE})
_USER = frozenset({USER})
_AGGREGATE = frozenset({AGGREGATE})

# Top-level scalar fields of a daily record: each one's type and the report levels whose totals
# table (core.user_daily_totals, core.daily_totals) carries it as a column. One line declares a
# field: the reader reads it, the transform lands it, and `migrate` adds its column (nullable)
# to the tables of its levels.
RECORD_FIELDS: dict[str, tuple[pl.DataType, frozenset[str]]] = {
    "day": (pl.Date(), _BOTH),
    "organization_id": (pl.String(), _BOTH),
    "enterprise_id": (pl.String(), _BOTH),
    "user_id": (pl.Int64(), _USER),
    "user_login": (pl.String(), _USER),
    "used_agent": (pl.Boolean(), _USER),
    "used_chat": (pl.Boolean(), _USER),
    "used_cli": (pl.Boolean(), _USER),
    **{name: (pl.Int64(), _BOTH) for name in ACTIVITY_COUNTS},
    "daily_active_users": (pl.Int64(), _AGGREGATE),
    "weekly_active_users": (pl.Int64(), _AGGREGATE),
    "monthly_active_users": (pl.Int64(), _AGGREGATE),
    "monthly_active_chat_users": (pl.Int64(), _AGGREGATE),
    "monthly_active_agent_users": (pl.Int64(), _AGGREGATE),
    "daily_active_cli_users": (pl.Int64(), _AGGREGATE),
    **{
        f"{window}_{kind}_assistant_code_review_users": (pl.Int64(), _AGGREGATE)
        for window in ("daily", "weekly", "monthly")
        for kind in ("active", "passive")
    },
    # The agent surfaces of 2026: the service's own cloud agent (April; "coding agent" before,
    # FORMER_NAMES), the desktop app (July), agent sessions in VS Code (September).
    **{
        f"{window}_active_assistant_cloud_agent_users": (pl.Int64(), _AGGREGATE)
        for window in ("daily", "weekly", "monthly")
    },
    "daily_active_assistant_app_users": (pl.Int64(), _AGGREGATE),
    "daily_active_vscode_agent_users": (pl.Int64(), _AGGREGATE),
    "used_assistant_cloud_agent": (pl.Boolean(), _USER),
    "used_assistant_app": (pl.Boolean(), _USER),
    "used_vscode_agent": (pl.Boolean(), _USER),
    # A usage signal in credits, not a bill: read as a JSON number and kept exact to six
    # decimals (docs/ingest.md, "ai_credits_used").
    "ai_credits_used": (pl.Decimal(18, 6), _USER),
    "used_assistant_code_review_active": (pl.Boolean(), _USER),
    "used_assistant_code_review_passive": (pl.Boolean(), _USER),
    # How many different CLI customizations of each category were used (September 2026): a
    # user's own, or anyone's in the scope, the top five of CUSTOMIZATION_ARRAYS and the rest.
    **{
        f"distinct_{category}_use_count": (pl.Int64(), _BOTH)
        for category in ("skill", "custom_agent", "mcp", "slash_cmd", "plugin")
    },
}
RECORD_SCALARS: dict[str, pl.DataType] = {name: dtype for name, (dtype, _) in RECORD_FIELDS.items()}

# Fields the service sends for its own bookkeeping: known, so never drift, and never columns;
# their values stay in `extra`.
INTERNAL_FIELDS: frozenset[str] = frozenset({"etl_id", "day_partition", "entity_id_partition"})
# The 28-day file's wrapper fields, which each of its daily records carries: known, never drift;
# the report's range and creation time are in raw.report_files, their values in `extra`.
WRAPPER_FIELDS: frozenset[str] = frozenset({"report_start_day", "report_end_day", "created_at"})

# The fields a row is keyed by (the same wire name in every dialect): a line whose key does not
# fit its type cannot land and is quarantined; any other field that does not fit lands as NULL,
# its raw value kept in `extra` (docs/ingest.md, "Types").
KEY_FIELDS: tuple[str, ...] = ("day", "organization_id", "enterprise_id", "user_id", "user_login")

# The pull-request suggestions of the assistant's review per comment type (2026), an array of
# `pull_requests`: landed in core.comment_types (aggregate records) and
# core.repository_comment_types (repos-1-day), never as columns.
COMMENT_TYPES_FIELD = "assistant_suggestions_by_comment_type"
COMMENT_TYPE_ENTRY: dict[str, pl.DataType] = {
    "comment_type": pl.String(),
    "total_assistant_suggestions": pl.Int64(),
    "total_assistant_applied_suggestions": pl.Int64(),
}

# Known objects of the records, whose scalar members become `<object>_<member>` columns of the
# totals tables of the object's levels: (members with their types, levels). One entry declares
# an object; a member is one line. `repos`: the repos-1-day report's rows (core.repository_days)
# carry the same pull-request members, per repository.
RECORD_OBJECTS: dict[str, tuple[dict[str, pl.DataType], frozenset[str]]] = {
    "pull_requests": (
        {
            "total_created": pl.Int64(),
            "total_reviewed": pl.Int64(),
            "total_merged": pl.Int64(),
            "median_minutes_to_merge": pl.Float64(),
            "total_suggestions": pl.Int64(),
            "total_applied_suggestions": pl.Int64(),
            "total_created_by_assistant": pl.Int64(),
            "total_reviewed_by_assistant": pl.Int64(),
            "total_merged_created_by_assistant": pl.Int64(),
            "total_merged_reviewed_by_assistant": pl.Int64(),
            "median_minutes_to_merge_assistant_authored": pl.Float64(),
            "median_minutes_to_merge_assistant_reviewed": pl.Float64(),
            "total_assistant_suggestions": pl.Int64(),
            "total_assistant_applied_suggestions": pl.Int64(),
            COMMENT_TYPES_FIELD: pl.List(pl.Struct(COMMENT_TYPE_ENTRY)),
        },
        frozenset({AGGREGATE, REPOS}),
    ),
    # The desktop app's sessions, requests and prompts (July 2026), on both levels.
    "totals_by_assistant_app": (
        {
            "session_count": pl.Int64(),
            "request_count": pl.Int64(),
            "prompt_count": pl.Int64(),
            "token_usage": pl.Struct(
                {
                    "output_tokens_sum": pl.Int64(),
                    "prompt_tokens_sum": pl.Int64(),
                    "avg_tokens_per_request": pl.Float64(),
                }
            ),
        },
        _BOTH,
    ),
    # Agent sessions in VS Code and the messages users sent in them (September 2026).
    "totals_by_vscode_agent": (
        {
            "session_count": pl.Int64(),
            "total_user_messages": pl.Int64(),
        },
        _BOTH,
    ),
    # The user's adoption cohort over the last 28 days (May 2026): phase 0 no cohort, 1 code
    # first, 2 agent first, 3 multi-agent, under the phases' definition `version`.
    "ai_adoption_phase": (
        {
            "phase": pl.String(),
            "phase_number": pl.Int64(),
            "version": pl.String(),
        },
        _USER,
    ),
}

# Wire names that differ from the canonical one, per dialect: a top-level field as (name,),
# an object's member as (object, member). The public service says `copilot` where the
# service dialect says `assistant`.
_GITHUB_RENAMED = (
    "used_assistant_code_review_active",
    "used_assistant_code_review_passive",
    *(
        f"{window}_{kind}_assistant_code_review_users"
        for window in ("daily", "weekly", "monthly")
        for kind in ("active", "passive")
    ),
    *(f"{window}_active_assistant_cloud_agent_users" for window in ("daily", "weekly", "monthly")),
    "daily_active_assistant_app_users",
    "used_assistant_cloud_agent",
    "used_assistant_app",
    "totals_by_assistant_app",
    "assistant_feature_engagement",
)
# repos-1-day (2026-09-25): per repository, the review stages of the day's merged pull requests
# (human reviews only), per (authored_by, reviewed_by); landed in core.repository_review_times.
REVIEW_TIMES_FIELD = "pull_request_review_times"
REVIEW_TIME_ENTRY: dict[str, pl.DataType] = {
    "authored_by": pl.String(),
    "reviewed_by": pl.String(),
    "total_merged": pl.Int64(),
    **{
        f"{stat}_minutes_{stage}": pl.Float64()
        for stage in ("ready_to_first_review", "first_to_final_review", "final_review_to_merge")
        for stat in ("median", "p90")
    },
}

WIRE_NAMES: dict[str, dict[tuple[str, ...], str]] = {
    "service": {},
    "github": {
        **{(name,): name.replace("assistant", "copilot") for name in _GITHUB_RENAMED},
        **{
            ("pull_requests", member): member.replace("assistant", "copilot")
            for member in (*RECORD_OBJECTS["pull_requests"][0], COMMENT_TYPES_FIELD)
            if "assistant" in member
        },
        **{
            ("pull_requests", COMMENT_TYPES_FIELD, member): member.replace("assistant", "copilot")
            for member in COMMENT_TYPE_ENTRY
            if "assistant" in member
        },
    },
}

# Names a top-level field had on the wire before the service renamed it, per dialect: canonical
# name -> former wire names. Records of either name land in the field's one column (the current
# name wins in a record carrying both), so a rename leaves no gap day and no second column.
_CLOUD_AGENT_FIELDS = (
    "used_assistant_cloud_agent",
    *(f"{window}_active_assistant_cloud_agent_users" for window in ("daily", "weekly", "monthly")),
)
FORMER_NAMES: dict[str, dict[str, tuple[str, ...]]] = {
    # April 2026: the "coding agent" fields were renamed "cloud agent".
    "service": {name: (name.replace("cloud_agent", "coding_agent"),) for name in _CLOUD_AGENT_FIELDS},
    "github": {
        name: (name.replace("cloud_agent", "coding_agent").replace("assistant", "copilot"),)
        for name in _CLOUD_AGENT_FIELDS
    },
}

# Breakdown arrays: kind (as stored in core.breakdowns) -> (record field, key fields).
BREAKDOWN_ARRAYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ide": ("totals_by_ide", ("ide",)),
    "feature": ("totals_by_feature", ("feature",)),
    "language_feature": ("totals_by_language_feature", ("language", "feature")),
    "language_model": ("totals_by_language_model", ("language", "model")),
    "model_feature": ("totals_by_model_feature", ("model", "feature")),
}
BREAKDOWN_KEYS: tuple[str, ...] = ("ide", "feature", "language", "model")

# Version objects beside an element's counts: (record object, member) -> breakdown column.
# `sampled_at` arrives as ISO 8601 text; the transform types it (TIMESTAMP_COLUMNS) and
# rejects a record whose text is not a timestamp with a zone.
IDE_VERSIONS: dict[str, dict[str, str]] = {
    "last_known_ide_version": {"ide_version": "ide_version", "sampled_at": "ide_version_sampled_at"},
    "last_known_plugin_version": {
        "plugin": "plugin",
        "plugin_version": "plugin_version",
        "sampled_at": "plugin_version_sampled_at",
    },
}
CLI_VERSIONS: dict[str, dict[str, str]] = {
    "last_known_cli_version": {"cli_version": "cli_version", "sampled_at": "cli_version_sampled_at"},
}
VERSION_COLUMNS: tuple[str, ...] = tuple(
    column for versions in (IDE_VERSIONS, CLI_VERSIONS) for members in versions.values() for column in members.values()
)
TIMESTAMP_COLUMNS: frozenset[str] = frozenset(c for c in VERSION_COLUMNS if c.endswith("_sampled_at"))
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S%.f%#z"

# `totals_by_cli` is one object, stored as breakdown kind "cli" with no keys.
CLI_FIELD = "totals_by_cli"
CLI_COUNTS: dict[str, pl.DataType] = {
    "session_count": pl.Int64(),
    "request_count": pl.Int64(),
    "prompt_count": pl.Int64(),
}
CLI_TOKEN_USAGE: dict[str, pl.DataType] = {
    "output_tokens_sum": pl.Int64(),
    "prompt_tokens_sum": pl.Int64(),
    "avg_tokens_per_request": pl.Float64(),
}

# The CLI customization arrays (September 2026), landed in core.cli_customizations: category ->
# record field. Each element is {<category>: name, interaction_count}.
CUSTOMIZATION_ARRAYS: dict[str, str] = {
    category: f"totals_by_{category}" for category in ("skill", "custom_agent", "mcp", "slash_cmd", "plugin")
}

# The aggregate report's adoption phases (May 2026), landed in core.adoption_phases: one entry
# per phase, its users that day (total_engaged_users), in 28-day reports its whole rolling
# 28-day population (users_in_phase_28d, September), and averages per user of the phase.
ADOPTION_PHASE_FIELD = "totals_by_ai_adoption_phase"
ADOPTION_PHASE_ENTRY: dict[str, pl.DataType] = {
    "phase_number": pl.Int64(),
    "phase": pl.String(),
    "total_engaged_users": pl.Int64(),
    "users_in_phase_28d": pl.Int64(),
    "total_pull_requests_merged": pl.Int64(),
    **{
        f"avg_{name}": pl.Float64()
        for name in (
            "user_initiated_interactions",
            "code_generation_activities",
            "code_acceptance_activities",
            "loc_added",
            "loc_deleted",
            "pull_requests_reviewed",
            "pull_requests_created",
            "pull_requests_merged",
            "pull_requests_median_minutes_to_merge",
            "pull_requests_minutes_to_review",
            "pull_requests_review_cycles",
        )
    },
}

# The 28-day aggregate report's feature engagement (September 2026), a field of its wrapper
# (so of each of its days' records), landed in core.feature_engagement on the report's last day.
FEATURE_ENGAGEMENT_FIELD = "assistant_feature_engagement"
FEATURE_ENGAGEMENT: dict[str, pl.DataType] = {
    "active_user_count": pl.Int64(),
    "totals_by_feature": pl.List(pl.Struct({"feature": pl.String(), "engaged_user_count": pl.Int64()})),
}

AGENT_FIELD = "totals_by_3rd_party_agent"
AGENT_ENTRY: dict[str, pl.DataType] = {
    "agent_id": pl.String(),
    "agent_name": pl.String(),
    "user_initiated_interaction_count": pl.Int64(),
    "session_count": pl.Int64(),
}

# The 28-day aggregate file wraps its daily records.
DAY_TOTALS_WRAPPER = "day_totals"


def _version_structs(versions: dict[str, dict[str, str]]) -> dict[str, pl.DataType]:
    return {name: pl.Struct({member: pl.String() for member in members}) for name, members in versions.items()}


def _breakdown_element(kind: str, keys: tuple[str, ...]) -> pl.Struct:
    versions = _version_structs(IDE_VERSIONS) if kind == "ide" else {}
    return pl.Struct({**{k: pl.String() for k in keys}, **{c: pl.Int64() for c in ACTIVITY_COUNTS}, **versions})


def _wire_member(dtype: pl.DataType, path: tuple[str, ...], renamed: dict[tuple[str, ...], str]) -> pl.DataType:
    """An object member's type under wire names: an array's elements renamed too."""
    if isinstance(dtype, pl.List) and isinstance(dtype.inner, pl.Struct):
        return pl.List(pl.Struct({renamed.get((*path, f.name), f.name): f.dtype for f in dtype.inner.fields}))
    return dtype


def record_dtype(dialect: str | None = None) -> dict[str, pl.DataType]:
    """The record: every known field with its Polars type (nested ones as structs/lists),
    under the canonical names, or under `dialect`'s wire names when one is given."""
    renamed = WIRE_NAMES[dialect] if dialect is not None else {}
    fields: dict[str, pl.DataType] = {renamed.get((name,), name): dtype for name, dtype in RECORD_SCALARS.items()}
    for name, (members, _) in RECORD_OBJECTS.items():
        fields[renamed.get((name,), name)] = pl.Struct(
            {renamed.get((name, m), m): _wire_member(dtype, (name, m), renamed) for m, dtype in members.items()}
        )
    for kind, (field, keys) in BREAKDOWN_ARRAYS.items():
        fields[field] = pl.List(_breakdown_element(kind, keys))
    fields[CLI_FIELD] = pl.Struct(
        {**CLI_COUNTS, "token_usage": pl.Struct(CLI_TOKEN_USAGE), **_version_structs(CLI_VERSIONS)}
    )
    fields[AGENT_FIELD] = pl.List(pl.Struct(AGENT_ENTRY))
    for category, field in CUSTOMIZATION_ARRAYS.items():
        fields[field] = pl.List(pl.Struct({category: pl.String(), "interaction_count": pl.Int64()}))
    fields[ADOPTION_PHASE_FIELD] = pl.List(pl.Struct(ADOPTION_PHASE_ENTRY))
    fields[renamed.get((FEATURE_ENGAGEMENT_FIELD,), FEATURE_ENGAGEMENT_FIELD)] = pl.Struct(FEATURE_ENGAGEMENT)
    return fields


def declared_columns() -> dict[str, dict[str, pl.DataType]]:
    """The columns `migrate` adds from the declarations, per table: the totals tables' record
    fields, the adoption phases' members (their keys are the migration's)."""
    return {
        "core.daily_totals": totals_columns(AGGREGATE),
        "core.user_daily_totals": totals_columns(USER),
        # The repository rows carry the pull-request members (RECORD_OBJECTS, level "repos").
        "core.repository_days": totals_columns(REPOS),
        "core.adoption_phases": {k: v for k, v in ADOPTION_PHASE_ENTRY.items() if k != "phase_number"},
        # The seat listings' declared fields (seat_fields.py), in each seat table.
        **SEAT_TABLES,
    }


def _instance(dtype: object) -> pl.DataType:
    # Polars annotates Field.dtype as a class or an instance; its constructor stores instances.
    assert isinstance(dtype, pl.DataType)
    return dtype


def object_columns(level: str) -> dict[str, tuple[tuple[str, ...], pl.DataType]]:
    """Each member of the objects of `level` as its column `<object>_<member>[_<submember>]`:
    the member's path in the record and its type (an object inside an object is flattened)."""
    out: dict[str, tuple[tuple[str, ...], pl.DataType]] = {}

    def walk(column: str, path: tuple[str, ...], members: dict[str, pl.DataType]) -> None:
        for member, dtype in members.items():
            if isinstance(dtype, pl.Struct):
                walk(f"{column}_{member}", (*path, member), {f.name: _instance(f.dtype) for f in dtype.fields})
            elif isinstance(dtype, pl.List):
                continue  # an array lands as rows of a table of its own, never as a column
            else:
                out[f"{column}_{member}"] = ((*path, member), dtype)

    for obj, (members, levels) in RECORD_OBJECTS.items():
        if level in levels:
            walk(obj, (obj,), members)
    return out


def totals_columns(level: str) -> dict[str, pl.DataType]:
    """The record's columns in the totals table of `level`, beside the row's context (scope,
    report kind, extra, finality): its scalars and its objects' members, as `<object>_<member>`,
    of that level."""
    columns = {name: dtype for name, (dtype, levels) in RECORD_FIELDS.items() if level in levels}
    columns |= {column: dtype for column, (_, dtype) in object_columns(level).items()}
    return columns


_DUCKDB_TYPES = {
    pl.Int64: "BIGINT",
    pl.Float64: "DOUBLE",
    pl.Boolean: "BOOLEAN",
    pl.String: "VARCHAR",
    pl.Date: "DATE",
    pl.Datetime: "TIMESTAMPTZ",
}  # declared instants are UTC (seat_fields.TIMESTAMP)


def duckdb_type(dtype: pl.DataType) -> str:
    """The warehouse column type of a declared scalar."""
    if isinstance(dtype, pl.Decimal):
        return f"DECIMAL({dtype.precision},{dtype.scale})"  # as DuckDB spells it
    return _DUCKDB_TYPES[type(dtype)]


def fields_markdown() -> str:
    """The declared top-level fields and object members as the table docs/ingest.md shows
    (wire names per dialect, the column each lands in, its type); tests hold the two equal."""
    tables = {USER: "user_daily_totals", AGGREGATE: "daily_totals"}

    def wire(dialect: str, key: tuple[str, ...]) -> str:
        name = WIRE_NAMES[dialect].get(key, key[-1])
        formers = FORMER_NAMES[dialect].get(key[0], ()) if len(key) == 1 else ()
        text = ".".join((*key[:-1], name))
        return f"`{text}`" + "".join(f" (formerly `{former}`)" for former in formers)

    rows = ["| wire name (service) | wire name (github) | column | type |", "|---|---|---|---|"]
    for name, (dtype, levels) in RECORD_FIELDS.items():
        columns = ", ".join(f"`{tables[level]}.{name}`" for level in (AGGREGATE, USER) if level in levels)
        rows.append(f"| {wire('service', (name,))} | {wire('github', (name,))} | {columns} | {duckdb_type(dtype)} |")
    seen: dict[str, tuple[tuple[str, ...], pl.DataType, list[str]]] = {}
    for level in (AGGREGATE, USER):
        for column, (path, dtype) in object_columns(level).items():
            seen.setdefault(column, (path, dtype, []))[2].append(f"`{tables[level]}.{column}`")
    for path, dtype, names in seen.values():
        obj, member, *rest = path
        github = ".".join(
            (WIRE_NAMES["github"].get((obj,), obj), WIRE_NAMES["github"].get((obj, member), member), *rest)
        )
        rows.append(f"| `{'.'.join(path)}` | `{github}` | {', '.join(names)} | {duckdb_type(dtype)} |")
    return "\n".join(rows)


# Flat counts of core.breakdowns, in column order.
BREAKDOWN_COUNTS: tuple[str, ...] = (
    *ACTIVITY_COUNTS,
    *CLI_COUNTS,
    *(f"token_usage_{k}" for k in CLI_TOKEN_USAGE),
)

# The record field that names the entity a record belongs to, per scope.
ENTITY_ID_FIELDS: dict[str, str] = {"organization": "organization_id", "enterprise": "enterprise_id"}

# Where each version column is read: (record field, version object, member); IDE ones in
# each totals_by_ide element, CLI ones in totals_by_cli.
VERSION_SOURCES: dict[str, tuple[str, str, str]] = {
    column: (field, obj, member)
    for field, versions in (("totals_by_ide", IDE_VERSIONS), (CLI_FIELD, CLI_VERSIONS))
    for obj, members in versions.items()
    for member, column in members.items()
}
