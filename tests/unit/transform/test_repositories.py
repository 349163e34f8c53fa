"""repos-1-day lines into rows: keys refused with their reason, other values tolerant (NULL and
kept in `extra`), arrays landing one row per entry and none when absent, both dialects' names."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

import pytest

from pipelines.transform.columns import polars_types
from pipelines.transform.repositories import repository_rows
from pipelines.warehouse.catalog import tables

# The tables the repos report lands, as the catalog declares them.
REPOSITORY_TABLES = [t.name for t in tables(writer="repos")]
DAY = date(2026, 10, 1)
FETCHED = datetime(2026, 10, 9, tzinfo=UTC)


def _rows(*records: Any, dialect: str = "service", entity_id: str | None = "9"):
    lines = [(n, r if isinstance(r, bytes) else json.dumps(r).encode()) for n, r in enumerate(records, start=1)]
    return repository_rows(
        lines,
        scope="organization",
        scope_name="acme",
        day=DAY,
        entity_id=entity_id,
        dialect=dialect,
        fetched_at=FETCHED,
    )


def _repo(repo_id: int = 5, **fields: Any) -> dict[str, Any]:
    return {
        "day": DAY.isoformat(),
        "organization_id": "9",
        "repo_id": repo_id,
        "repo_owner_name": "acme",
        "repo_name": "api",
        "repo_visibility": "private",
        **fields,
    }


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_pull_requests_and_comment_types_land_under_canonical_names_in_either_dialect(dialect: str) -> None:
    product = "copilot" if dialect == "github" else "assistant"
    pulls = {
        "total_created": 4,
        f"total_created_by_{product}": 1,
        "median_minutes_to_merge": 30,
        f"{product}_suggestions_by_comment_type": [
            {"comment_type": "bug", f"total_{product}_suggestions": 3, f"total_{product}_applied_suggestions": 1}
        ],
    }
    parsed = _rows(_repo(pull_requests=pulls), dialect=dialect)
    (row,) = parsed.frames["core.repository_days"].to_dicts()
    assert (row["pull_requests_total_created"], row["pull_requests_total_created_by_assistant"]) == (4, 1)
    assert row["pull_requests_median_minutes_to_merge"] == 30.0 and row["extra"] is None
    (comment,) = parsed.frames["core.repository_comment_types"].to_dicts()
    assert (
        comment["comment_type"],
        comment["total_assistant_suggestions"],
        comment["total_assistant_applied_suggestions"],
    ) == ("bug", 3, 1)
    assert not parsed.refused


def test_absent_or_empty_review_times_land_no_rows_never_zeros() -> None:
    parsed = _rows(
        _repo(1),
        _repo(2, pull_request_review_times=[]),
        _repo(
            3,
            pull_request_review_times=[
                {
                    "authored_by": "human",
                    "reviewed_by": "human",
                    "total_merged": 2,
                    "p90_minutes_final_review_to_merge": 9.5,
                }
            ],
        ),
    )
    assert parsed.frames["core.repository_days"].height == 3
    (times,) = parsed.frames["core.repository_review_times"].to_dicts()
    assert (times["repo_id"], times["total_merged"], times["p90_minutes_final_review_to_merge"]) == (3, 2, 9.5)
    assert times["median_minutes_ready_to_first_review"] is None


def test_a_line_without_its_keys_is_refused_with_the_reason_and_the_others_land() -> None:
    parsed = _rows(
        _repo(1),
        b"{not json",
        ["a list"],
        _repo("x"),
        {**_repo(2), "day": "2026-10-02"},
        {**_repo(3), "organization_id": "7"},
        _repo(1),
        _repo(4, pull_request_review_times=[{"authored_by": "human"}]),
        _repo(5, pull_requests={"assistant_suggestions_by_comment_type": [{"comment_type": "bug"}] * 2}),
    )
    assert parsed.frames["core.repository_days"]["repo_id"].to_list() == [1]
    assert [(n, reason.split(" (")[0]) for n, reason in parsed.refused] == [
        (2, "not JSON"),
        (3, "not a JSON object"),
        (4, "repo_id is not an integer id"),
        (5, 'day "2026-10-02" is not the report\'s day 2026-10-01'),
        (6, "organization_id 7 is not this organization's"),
        (8, "pull_request_review_times[0] has no authored_by and reviewed_by"),
        (9, "pull_requests.assistant_suggestions_by_comment_type lists bug twice"),
    ]
    # Line 7 repeats line 1: landed once, counted as a copy, not refused.
    assert parsed.keyed.repeated == [(0, 7)] and not parsed.keyed.conflicts


def test_values_that_do_not_fit_land_null_and_are_kept_with_undeclared_fields_in_extra() -> None:
    parsed = _rows(
        _repo(repo_name=7, pull_requests={"total_created": "four", "total_merged": True, "future": 1}, language="go")
    )
    (row,) = parsed.frames["core.repository_days"].to_dicts()
    assert (row["repo_name"], row["pull_requests_total_created"], row["pull_requests_total_merged"]) == (None,) * 3
    assert json.loads(row["extra"]) == {
        "repo_name": 7,
        "pull_requests.total_created": "four",
        "pull_requests.total_merged": True,
        "pull_requests.future": 1,
        "language": "go",
    }


def test_no_lines_give_every_table_empty_with_its_columns() -> None:
    parsed = _rows()
    assert set(parsed.frames) == set(REPOSITORY_TABLES)
    for name in REPOSITORY_TABLES:
        frame = parsed.frames[name]
        assert frame.height == 0 and list(frame.columns) == list(polars_types(name)), name


def test_each_repository_frame_has_its_table_s_declared_columns_and_types_in_order() -> None:
    # The frames take their columns from the table declarations (pipelines/transform/columns.py),
    # not from a list of their own: a column declared there reaches the frame.
    parsed = _rows(_repo())
    for name in REPOSITORY_TABLES:
        assert list(parsed.frames[name].schema.items()) == list(polars_types(name).items()), name
