"""The page's "Repositories" section: which repositories the assistant works in and how its
review suggestions fare, from bi.repository_outcomes_daily (the example query that answers it)."""

from __future__ import annotations

from html import escape
from typing import Any

import duckdb

from pipelines.warehouse.sql import run_sql


def _share(value: Any) -> str:
    return "—" if value is None else f"{value:.0%}"


def _minutes(value: Any) -> str:
    return "—" if value is None else f"{value:,.0f}"


def repositories_section(conn: duckdb.DuckDBPyConnection) -> str:
    """Per scope and repository over the newest 28 days: pull requests created and merged, the
    share the assistant created, its suggestions and the share applied, minutes to first review."""
    rows = run_sql(conn, "queries/select_repository_outcomes.sql")
    if not rows:
        return ""
    body = "".join(
        f'<tr class="repository-row"><td>{escape(repository)} <span class="muted">{escape(scope)} '
        f'{escape(name)}</span></td><td>{escape(visibility or "—")}</td><td class="num">{created or 0:,}</td>'
        f'<td class="num">{merged or 0:,}</td><td class="num">{_share(by_assistant)}</td>'
        f'<td class="num">{suggestions or 0:,}</td><td class="num">{_share(applied)}</td>'
        f'<td class="num">{_minutes(first_review)}</td></tr>'
        for scope, name, repository, visibility, created, merged, by_assistant, suggestions, applied, first_review
        in rows
    )
    return (
        '<section class="card" id="repositories"><h2>Repositories</h2>'
        '<p class="lead">Each repository active over the newest 28 days (the repos-1-day report), named as the '
        "newest snapshot names it: pull requests created and merged, the share the assistant created, the "
        "assistant's review suggestions and the share applied, and the typical minutes from ready to first "
        "review of pull requests a person wrote and reviewed.</p>"
        '<table class="periods"><thead><tr><th>Repository</th><th>Visibility</th><th>Created</th><th>Merged</th>'
        "<th>By the assistant</th><th>Suggestions</th><th>Applied</th><th>Minutes to first review</th>"
        f"</tr></thead><tbody>{body}</tbody></table></section>"
    )
