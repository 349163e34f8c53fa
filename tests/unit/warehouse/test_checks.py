"""The grain and sign checks are one template per kind, filled per table: each finds what it
guards against, only inside the slice it is given, and passes on a clean warehouse."""

from dataclasses import replace
from datetime import date

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.warehouse.checks import REPORT_CHECKS, WHOLE_HISTORY, run_checks, slice_params

DAY = date(2026, 11, 1)


def _check(name: str, table: str):
    (check,) = [c for c in REPORT_CHECKS if c.name == name and c.table == ("core", table)]
    return check


def _user_row(conn, scope_name: str, user_id: int, interactions: int) -> None:
    conn.execute(
        "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, "
        "user_initiated_interaction_count, agent_breakdown_present) VALUES ('organization', ?, ?, '1-day', ?, ?, true)",
        [scope_name, DAY, user_id, interactions],
    )


def test_every_report_check_renders_and_passes_on_an_empty_warehouse(conn):
    for level in ("aggregate", "user"):
        slice_ = slice_params(scope="organization", scope_name="acme", level=level, start_day=DAY, end_day=DAY)
        assert all(o.passed for o in run_checks(conn, REPORT_CHECKS, where="slice", **slice_))
    assert all(o.passed for o in run_checks(conn, REPORT_CHECKS, where="whole history", **WHOLE_HISTORY))


def test_a_duplicate_and_a_negative_count_are_found_in_their_slice_only(conn):
    _user_row(conn, "acme", 7, 3)
    _user_row(conn, "acme", 7, -1)
    _user_row(conn, "other", 8, 1)
    checks = [_check("grain_is_unique", "user_daily_totals"), _check("counts_are_non_negative", "user_daily_totals")]
    acme = slice_params(scope="organization", scope_name="acme", level="user", start_day=DAY, end_day=DAY)
    other = slice_params(scope="organization", scope_name="other", level="user", start_day=DAY, end_day=DAY)
    found = run_checks(conn, checks, where="acme", **acme)
    # Counted and placed by scope and day, never naming the user: the line reaches logs and alerts.
    assert [(o.check.name, o.failures, o.detail) for o in found] == [
        ("grain_is_unique", 1, "acme 2026-11-01"),
        ("counts_are_non_negative", 1, "acme 2026-11-01"),
    ]
    assert all(o.passed for o in run_checks(conn, checks, where="other", **other))
    assert not any(o.passed for o in run_checks(conn, checks, where="whole history", **WHOLE_HISTORY))


def test_the_grain_check_compares_whole_keys_nulls_alike(conn):
    # Two ide rows of one user and day (feature, language and model NULL in both) are one key
    # twice; rows differing in one key member, or NULL against a value, are two keys.
    rows = [("vscode", None), ("vscode", None), ("jetbrains", None), ("jetbrains", "chat"), ("vim", "chat")]
    for ide, feature in rows:
        conn.execute(
            "INSERT INTO core.breakdowns (scope, scope_name, level, day, user_id, kind, ide, feature) "
            "VALUES ('organization', 'acme', 'user', ?, 7, 'ide', ?, ?)",
            [DAY, ide, feature],
        )
    acme = slice_params(scope="organization", scope_name="acme", level="user", start_day=DAY, end_day=DAY)
    (found,) = run_checks(conn, [_check("grain_is_unique", "breakdowns")], where="acme", **acme)
    assert (found.failures, found.detail) == (1, "acme 2026-11-01 ide")


def test_no_check_detail_names_the_user_of_a_duplicate_or_a_team_member(conn):
    """Issue 42, break 3: a failed uniqueness check named user 1000022 in the alert, the logs and
    Dagster's storage. Every report check's detail over rows of that user names scope, day and counts."""
    for _ in range(2):
        conn.execute(
            "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, user_login,"
            " user_initiated_interaction_count, agent_breakdown_present) VALUES"
            " ('organization', 'acme', ?, '1-day', 1000022, 'dev-00022', -1, true)",
            [DAY],
        )
        conn.execute(
            "INSERT INTO core.user_team_days (scope, scope_name, day, user_id, user_login, team_id, slug, fetched_at,"
            " is_final) VALUES ('organization', 'acme', ?, 1000023, 'dev-00023', 5, 'platform', now(), TRUE)",
            [DAY],
        )
    acme = slice_params(scope="organization", scope_name="acme", level="user", start_day=DAY, end_day=DAY)
    found = run_checks(conn, REPORT_CHECKS, where="acme", **acme)
    failed = [o for o in found if not o.passed]
    assert {(o.check.name, o.check.table[1]) for o in failed} >= {
        ("grain_is_unique", "user_daily_totals"),
        ("counts_are_non_negative", "user_daily_totals"),
        ("grain_is_unique", "user_team_days"),
        ("members_are_users_of_the_day", "user_team_days"),
    }
    for outcome in failed:
        assert not {"1000022", "dev-00022", "1000023", "dev-00023"} & set(outcome.describe().replace(",", " ").split())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    users=st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=30),
    rows_per_pass=st.integers(min_value=1, max_value=7),
)
def test_the_grain_check_in_passes_finds_what_one_pass_finds(conn, users, rows_per_pass):
    # Passes split the slice by key hash, so every key's rows meet in one pass: the duplicates
    # summed over the passes are the duplicates of the whole slice, each counted once.
    conn.execute("DELETE FROM core.user_daily_totals")
    for user_id in users:
        _user_row(conn, "acme", user_id, 1)
    acme = slice_params(scope="organization", scope_name="acme", level="user", start_day=DAY, end_day=DAY)
    grain = _check("grain_is_unique", "user_daily_totals")
    (in_passes,) = run_checks(conn, [replace(grain, rows_per_pass=rows_per_pass)], where="acme", **acme)
    (in_one,) = run_checks(conn, [replace(grain, rows_per_pass=0)], where="acme", **acme)
    duplicated = len({u for u in users if users.count(u) > 1})
    assert in_passes.failures == in_one.failures == duplicated
