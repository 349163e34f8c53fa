"""The page's "Repositories" section: which repositories the assistant works in and how its
review suggestions fare, from bi.repository_outcomes_daily (the example query that answers it)."""

from __future__ import annotations

from collections import defaultdict
from html import escape
from typing import Any

import duckdb

from pipelines.page._table import Cell, table
from pipelines.warehouse.sql import run_sql


def _share(value: Any) -> str:
    return "—" if value is None else f"{value:.0%}"


def _minutes(value: Any) -> str:
    return "—" if value is None else f"{value:,.0f}"


_HEADINGS = (
    "Repository",
    "Visibility",
    "Created",
    "Merged",
    "By the assistant",
    "Suggestions",
    "Applied",
    "Minutes to first review",
)


def repositories_section(conn: duckdb.DuckDBPyConnection) -> str:
    """Per scope and repository over the newest 28 days: pull requests created and merged, the
    share the assistant created, its suggestions and the share applied, minutes to first review.
    One table per scope: a repository is in the report of its organization and of its
    enterprise, each with that scope's figures, so a repository appears once in each table."""
    rows = run_sql(conn, "queries/select_repository_outcomes.sql")
    if not rows:
        return ""
    scopes: dict[tuple[str, str], list[tuple[str, list[Cell]]]] = defaultdict(list)
    for scope, name, repository, visibility, created, merged, by_assistant, suggestions, applied, first_review in rows:
        scopes[(scope, name)].append(
            (
                'class="repository-row"',
                [
                    (escape(repository), ""),
                    (escape(visibility or "—"), ""),
                    (f"{created or 0:,}", "num"),
                    (f"{merged or 0:,}", "num"),
                    (_share(by_assistant), "num"),
                    (f"{suggestions or 0:,}", "num"),
                    (_share(applied), "num"),
                    (_minutes(first_review), "num"),
                ],
            )
        )
    tables = "".join(
        table(headings=_HEADINGS, rows=body, caption=f"<strong>{escape(scope)} {escape(name)}</strong>")
        for (scope, name), body in scopes.items()
    )
    several = (
        " A repository is counted in the report of every scope that holds it, its organization's and its "
        "enterprise's, each by that scope's own figures: each scope has its own table, never added to another."
        if len(scopes) > 1
        else ""
    )
    return (
        '<section class="card" id="repositories"><h2>Repositories</h2>'
        '<p class="lead">Each repository active over the newest 28 days (the repos-1-day report), named as the '
        "newest snapshot names it: pull requests created and merged, the share the assistant created, the "
        "assistant's review suggestions and the share applied, and the typical minutes from ready to first "
        f"review of pull requests a person wrote and reviewed.{several}</p>{tables}</section>"
    )
