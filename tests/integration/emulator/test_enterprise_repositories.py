"""The enterprise's repos-1-day report over HTTP, in both dialects: the union of its
organizations' repositories, each line the repository's own figures (the same as in its
organization's report), never the enterprise's totals spread over them; the enterprise's
aggregate adds up its organizations' pull requests, so it holds its repositories' and its
organization's."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from ._served import served

TODAY = date(2026, 11, 20)
FINAL_DAYS = [TODAY - timedelta(days=back) for back in (4, 9, 17, 30)]
COUNTS = ("total_created", "total_reviewed", "total_merged")


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_an_enterprise_repository_line_is_the_repository_s_own_figures(dialect: str) -> None:
    with served(dialect=dialect, seed=29, users=40, today=TODAY, history_days=45) as s:
        for day in FINAL_DAYS:
            organization = {line["repo_id"]: line for line in s.report("organization", "repos-1-day", day)}
            enterprise = {line["repo_id"]: line for line in s.report("enterprise", "repos-1-day", day)}
            assert organization and enterprise == organization, day
            org_pulls = s.aggregate("organization", day)["pull_requests"]
            ent_pulls = s.aggregate("enterprise", day)["pull_requests"]
            for count in (s.name(c) for c in (*COUNTS, "total_created_by_assistant", "total_assistant_suggestions")):
                assert (
                    ent_pulls[count]
                    >= org_pulls[count]
                    == sum(line["pull_requests"][count] for line in organization.values())
                ), (day, count)
            by_type = s.name("assistant_suggestions_by_comment_type")
            suggestions = s.name("total_assistant_suggestions")
            assert sum(t[suggestions] for t in ent_pulls[by_type]) == ent_pulls[suggestions]
