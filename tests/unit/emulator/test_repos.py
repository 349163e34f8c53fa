"""The emulator's repos-1-day lines: the day's repositories split the aggregate's pull requests
exactly, comment types split each repository's suggestions, review times only when served."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

from emulator.reportdata import ReportData
from emulator.repos import RepoRef, repository_lines

FIRST_DAY = date(2026, 9, 1)
REPOS = [RepoRef(1000 + i, "acme", f"repo-{i}", "private" if i % 3 else "public") for i in range(8)]


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_a_days_repositories_add_up_to_the_aggregate_record_exactly(dialect: str) -> None:
    data = ReportData(seed=3, users=40, org="acme", enterprise="acme-corp", first_day=FIRST_DAY, dialect=dialect)
    name = (lambda n: n.replace("assistant", "copilot")) if dialect == "github" else (lambda n: n)
    for offset in range(0, 30, 7):
        day = FIRST_DAY + timedelta(days=offset)
        pulls = data.aggregate_record(scope="organization", day=day, completeness=1.0)["pull_requests"]
        lines = [
            json.loads(line)
            for line in repository_lines(
                seed=3,
                day=day,
                repos=REPOS,
                pull_requests=pulls,
                ids={"organization_id": data.organization_id},
                name=name,
                review_times=offset > 10,
            )
        ]
        assert lines and len({line["repo_id"] for line in lines}) == len(lines)
        for member, value in pulls.items():
            if isinstance(value, int):
                assert sum(line["pull_requests"][member] for line in lines) == value, member
        for line in lines:
            by_type = line["pull_requests"][name("assistant_suggestions_by_comment_type")]
            assert (
                sum(t[name("total_assistant_suggestions")] for t in by_type)
                == line["pull_requests"][name("total_assistant_suggestions")]
            )
            assert ("pull_request_review_times" in line) == (offset > 10)
