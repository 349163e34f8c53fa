"""The summary a person reads after `metrics-etl run` and `demo`: what landed and where, the
headline figures, agents, seats, the busiest teams, what the assistant cost (pipelines.bi._cost)
and fields beyond the schema."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, TextIO

from pipelines._words import counted, rate_change
from pipelines.bi._cost import cost_lines
from pipelines.warehouse.lock import connect_for_reading
from pipelines.warehouse.sql import run_sql

__all__ = ["summarize"]

_SUMMARY_TEAMS = 6  # team lines per scope in the summary; the rest are one query away
_PERIOD_DAYS = 28
# The summary's follow-up queries: the columns that matter, ordered, within 80 columns of terminal.
_TEAMS_QUERY = (
    "SELECT scope_name, team_slug, members, active_users, change FROM bi.team_usage_periods "
    "WHERE period_index = 0 ORDER BY scope_name, active_users DESC, team_slug"
)
_INACTIVE_SEATS_QUERY = (
    "SELECT org_login, login, plan_type, days_inactive, pending_cancellation_date AS cancels_on "
    "FROM bi.inactive_seats ORDER BY org_login, days_inactive DESC, login"
)


def summarize(
    warehouse: Path, *, serving: Path, out: TextIO, lock_wait: float = 300.0, command: str = "metrics-etl"
) -> None:
    """What landed and where: tables with rows, agents with their latest labels.

    Another run writing now holds the file against readers too: wait for it as a run would.
    `command` is `metrics-etl` as the reader runs it (its path, its --home), for the commands shown.
    """
    if not warehouse.exists():
        out.write(f"\nwarehouse: nothing landed yet ({warehouse.resolve()} does not exist)\n")
        return
    with connect_for_reading(warehouse, wait=lock_wait) as conn:
        out.write(f"\nwarehouse: {warehouse.resolve()}\nserving database for BI tools: {serving.resolve()}\n\n")
        out.write(f"{'table':34} {'rows':>10}\n")
        for schema, table in run_sql(conn, "metadata/select_tables.sql"):
            # Names come from DuckDB's own catalog, quoted; no value is formatted into SQL.
            (rows,) = conn.execute(f'SELECT count(*) FROM "{schema}"."{table}"').fetchone() or (0,)
            out.write(f"{schema + '.' + table:34} {rows:>10,}\n")
        out.write(_headline(run_sql(conn, "metadata/select_agent_headline.sql")))
        agents = run_sql(conn, "metadata/select_agent_summary.sql")
        whose = f"; job starts of {agents[0][6]}, every day landed" if agents and agents[0][6] else ""
        out.write(f"\nthird-party agents ({len(agents)}), by agent_id with the latest label{whose}:\n")
        for agent_id, name, first, last, labels, job_starts, _scope in agents:
            former = f"  (formerly {labels})" if labels else ""
            out.write(f"  {agent_id:>10}  {name:28} {first} .. {last}  {job_starts:>8,} job starts{former}\n")
        for org, day, seats, active, inactive, never, pending in run_sql(conn, "metadata/select_seat_summary.sql"):
            out.write(
                f"\nseats of {org} on {day}: {seats:,}, {active:,} active in 30 days, {inactive:,} not "
                f"({never:,} never active), {pending:,} pending cancellation: "
                f'{command} sql "{_INACTIVE_SEATS_QUERY}"\n'
            )
        out.write(_team_lines(run_sql(conn, "metadata/select_team_summary.sql"), command=command))
        out.write(cost_lines(conn, command=command))
        out.write(_drift_line(run_sql(conn, "metadata/select_field_drift.sql")))


def _team_lines(teams: list[tuple[Any, ...]], *, command: str) -> str:
    """The busiest teams of each scope, in columns that line up whatever the scopes' names, the
    active users a day their change compares beside it, and how few days a short period holds."""
    if not teams:
        return ""
    shown: Counter[tuple[str, str]] = Counter()
    rows, short = [], {}
    for scope, name, slug, members, active, change, per_day, before, landed, start in teams:
        shown[(scope, name)] += 1
        if landed < _PERIOD_DAYS:
            short[f"{scope} {name}:"] = (landed, start)
        if shown[(scope, name)] <= _SUMMARY_TEAMS:
            rate = rate_change(change, per_day, before, unit="active a day")  # its interval: in the view
            rows.append((f"{scope} {name}:", slug, f"{members:>6,} members {active:>6,} active", rate))
    label_width = max(len(label) for label, *_ in rows)
    slug_width = max(len(slug) for _, slug, *_ in rows)
    # The service gives no team figure: ours, from user lines, on any surface (sql/rollups/_active_rule.sql).
    text = (
        f"\nteams in the last 28 days ({len(teams)}), by active users (any surface, from user lines; "
        "a user on two teams counts in both):\n"
    )
    for label, (landed, start) in short.items():
        text += (
            f"  {label} only {counted(landed, 'day')} of the {_PERIOD_DAYS} landed: the figures cover "
            f"{'it' if landed == 1 else 'them'} alone (`{command} run --from {start}` lands the rest)\n"
        )
    for label, slug, counts, rate in rows:
        text += f"  {label:{label_width}} {slug:{slug_width}}  {counts}  {rate}\n"
    if len(teams) > len(rows):
        text += f'  … every team: {command} sql "{_TEAMS_QUERY}"\n'
    return text


def _drift_line(paths: list[tuple[Any, ...]]) -> str:
    """The service sent what the schema does not declare (or not in its type): said, not silent."""
    if not paths:
        return ""
    named = ", ".join(f"{path} {drift} in {records:,} records" for path, drift, _, records, _, _ in paths[:3])
    more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
    return (
        f"\nfields beyond the schema in the last 28 days: {named}{more}; their values are in each row's extra "
        "(metrics-etl fields)\n"
    )


def _headline(rows: list[tuple[Any, ...]]) -> str:
    """The summary's first figures, naming their scope: the last 28 days' agent job starts, per
    final day with agent data against the 28 days before, and the change the one rule calls
    (sql/views/_change_rule.sql) with its 95% interval."""
    if not rows:
        return ""
    (
        scope,
        start,
        end,
        provisional,
        compared,
        job_starts,
        compared_starts,
        before_days,
        before_starts,
        min_days,
        change,
        low,
        high,
        landed,
    ) = rows[0]
    short = f"; only {landed} of its {_PERIOD_DAYS} days landed" if landed < _PERIOD_DAYS else ""
    line = f"\nheadline, {scope}, last 28 days ({start} .. {end}{short}): {job_starts:,} agent job starts"
    if not compared:
        return line + f", no final day with agent data yet ({provisional} provisional)\n"
    rate = compared_starts / compared
    over = f"a day over {counted(compared, 'final day')} with agent data"
    alone = f"; {rate:,.1f} {over} ({provisional} provisional, not counted)"
    if not before_days:
        return line + f"{alone}; nothing earlier to compare with\n"
    if change is None:
        few = f"{compared} vs {counted(before_days, 'final day')} with agent data (fewer than {min_days})"
        return line + f"{alone}; no comparison: {few}\n"
    before = f"a day over {counted(before_days, 'final day')} in the 28 days before"
    said = rate_change(change, rate, before_starts / before_days, unit=over, before=before, low=low, high=high)
    return line + f" ({provisional} provisional days not counted); {said}\n"
