"""The repos-1-day report over loopback, in both dialects: landed with its day's aggregate record,
one row per active repository with its name and visibility, its review times and comment types;
a re-run replaces the day; a day without the report lands nothing and fails nothing; the check
that the repositories' pull requests fit in the aggregate's passes on served data and warns on
an altered row."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest.report import ingest_report
from pipelines.service import ReportRef, ServiceClient, fetch_report_metadata, open_report_file
from pipelines.service.kinds import REPOS_1_DAY
from pipelines.warehouse import migrate
from pipelines.warehouse.checks import REPORT_CHECKS, run_checks, slice_params
from tests._emulator import settings_for

from .conftest import FAST_RETRY, TODAY

REVIEW_TIMES_FROM = TODAY - timedelta(6)
REPOS_FROM = TODAY - timedelta(20)
# Final days (more than three days old): a fetch serves what the one before it did.
DAYS = (REPOS_FROM - timedelta(1), REVIEW_TIMES_FROM - timedelta(1), REVIEW_TIMES_FROM, TODAY - timedelta(4))
_CHECK = next(c for c in REPORT_CHECKS if c.name == "pull_requests_fit_the_aggregate")


def _served(client: ServiceClient, ref: ReportRef) -> list[dict[str, object]]:
    metadata = fetch_report_metadata(client, ref)
    assert metadata is not None
    lines: list[dict[str, object]] = []
    for link in metadata.links:
        with open_report_file(client, link) as stream:
            lines += [json.loads(line) for line in b"".join(stream.iter_bytes()).splitlines() if line]
    return lines


def _fits(conn: duckdb.DuckDBPyConnection, scope: str, name: str, day: date) -> int:
    params = slice_params(scope=scope, scope_name=name, level="aggregate", start_day=day, end_day=day)
    (outcome,) = run_checks(conn, [_CHECK], **params)
    return outcome.failures


@pytest.mark.parametrize("dialect", ["service", "github"])
@pytest.mark.parametrize(("scope", "name"), [("organization", "acme"), ("enterprise", "acme-corp")])
def test_repositories_land_with_the_days_aggregate_record(dialect: str, scope: str, name: str, tmp_path: Path) -> None:
    config = EmulatorConfig(
        seed=11, users=30, today=TODAY, dialect=dialect, repos_from=REPOS_FROM, review_times_from=REVIEW_TIMES_FROM
    )
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(conn)
    product = "copilot" if dialect == "github" else "assistant"
    with (
        running_emulator(config) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        served = {day: _served(client, ReportRef(scope, name, "1-day", "repos", day)) for day in DAYS[1:]}
        results = {
            day: ingest_report(
                client=client,
                ref=ReportRef(scope, name, "1-day", "aggregate", day),
                conn=conn,
                raw_dir=tmp_path / "raw",
            )
            for day in DAYS
        }
        again = ingest_report(
            client=client,
            ref=ReportRef(scope, name, "1-day", "aggregate", DAYS[-1]),
            conn=conn,
            raw_dir=tmp_path / "raw",
        )

    # A day before the report existed (204/404): the aggregate lands, no repository, no failure.
    before = results[DAYS[0]]
    assert before.available and REPOS_1_DAY not in before.carried
    assert conn.execute("SELECT count(*) FROM core.daily_totals WHERE day = ?", [DAYS[0]]).fetchone() == (1,)
    assert conn.execute("SELECT count(*) FROM core.repository_days WHERE day = ?", [DAYS[0]]).fetchone() == (0,)

    for day, lines in served.items():
        assert lines, day
        landed = conn.execute(
            "SELECT repo_id, repo_owner_name, repo_name, repo_visibility, pull_requests_total_created,"
            " pull_requests_total_created_by_assistant FROM core.repository_days WHERE scope = ? AND day = ?",
            [scope, day],
        ).fetchall()
        pulls = [line["pull_requests"] for line in lines]
        assert sorted(landed) == sorted(
            (
                line["repo_id"],
                line["repo_owner_name"],
                line["repo_name"],
                line["repo_visibility"],
                p["total_created"],
                p[f"total_created_by_{product}"],
            )  # type: ignore[index]
            for line, p in zip(lines, pulls, strict=True)
        )
        assert results[day].carried[REPOS_1_DAY] == len(lines)
        comments = conn.execute(
            "SELECT repo_id, comment_type, total_assistant_suggestions, total_assistant_applied_suggestions"
            " FROM core.repository_comment_types WHERE day = ?",
            [day],
        ).fetchall()
        assert sorted(comments) == sorted(
            (
                line["repo_id"],
                c["comment_type"],
                c[f"total_{product}_suggestions"],
                c[f"total_{product}_applied_suggestions"],
            )
            for line, p in zip(lines, pulls, strict=True)
            for c in p[f"{product}_suggestions_by_comment_type"]  # type: ignore[index]
        )
        times = conn.execute(
            "SELECT repo_id, authored_by, reviewed_by, total_merged, median_minutes_ready_to_first_review,"
            " p90_minutes_final_review_to_merge FROM core.repository_review_times WHERE day = ?",
            [day],
        ).fetchall()
        assert sorted(times) == sorted(
            (
                line["repo_id"],
                t["authored_by"],
                t["reviewed_by"],
                t["total_merged"],
                t["median_minutes_ready_to_first_review"],
                t["p90_minutes_final_review_to_merge"],
            )
            for line in lines
            for t in line.get("pull_request_review_times", [])  # type: ignore[attr-defined]
        )
        # Before review times existed the field is absent: no rows, never zeros. After, a
        # repository without a qualifying merge has an empty array: no rows either.
        has_times = [line for line in lines if "pull_request_review_times" in line]
        assert bool(has_times) == (day >= REVIEW_TIMES_FROM)
        assert _fits(conn, scope, name, day) == 0
    assert any(line["pull_request_review_times"] == [] for day in DAYS[2:] for line in served[day])

    # A re-run replaces the day's repositories, never adds to them.
    assert again.carried[REPOS_1_DAY] == len(served[DAYS[-1]])
    for table in ("repository_days", "repository_comment_types", "repository_review_times"):
        (rows,) = conn.execute(f"SELECT count(*) FROM core.{table} WHERE day = ?", [DAYS[-1]]).fetchone() or (0,)
        (distinct,) = conn.execute(
            f"SELECT count(*) FROM (SELECT DISTINCT * EXCLUDE (fetched_at, is_final) FROM core.{table} WHERE day = ?)",
            [DAYS[-1]],
        ).fetchone() or (0,)
        assert rows == distinct and rows > 0, table
    files = conn.execute(
        "SELECT count(*) FROM raw.report_files WHERE level = 'repos' AND report_start_day = ?", [DAYS[-1]]
    ).fetchone()
    assert files == (1,)

    # A repository row altered beyond the aggregate's count is named by the (warning) check.
    conn.execute(
        "UPDATE core.repository_days SET pull_requests_total_created = pull_requests_total_created + 1000"
        " WHERE day = ? AND repo_id = (SELECT min(repo_id) FROM core.repository_days WHERE day = ?)",
        [DAYS[-1], DAYS[-1]],
    )
    assert _fits(conn, scope, name, DAYS[-1]) == 1
    assert not _CHECK.blocking
