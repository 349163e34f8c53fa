"""`metrics-etl report`: a self-contained HTML page of agent adoption, from the bi.* views.

Each page written for a data home is recorded there (PAGES_RECORD: its path and privacy tier),
so `forget` can write every page again without the person it erased.
"""

from __future__ import annotations

import json
import os
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from pipelines.bi import BiError, BiSources, open_bi
from pipelines.page._aggregate import render_aggregate_page
from pipelines.page._render import render_page
from pipelines.publish.aggregate import aggregate_serving
from pipelines.warehouse.sql import connect

__all__ = ["PAGES_RECORD", "render_page", "rewrite_pages", "write_page"]

PAGES_RECORD = ".report-pages.json"  # in the data home: {page path (from the home, if inside it): tier}


def write_page(*, sources: BiSources, out: Path, tier: str = "full", home: Path | None = None) -> Path:
    """Render the page at the privacy `tier` (pipelines.config.PAGE_TIERS) and write it to `out`
    atomically; with `home`, record it there for `rewrite_pages`. The full tier reads the
    serving database (or the warehouse), the aggregate tier its own serving database alone."""
    if tier == "aggregate":
        html = _aggregate_page(aggregate_serving(sources.serving_path))
    else:
        with open_bi(sources=sources) as conn:
            try:
                html = render_page(conn)
            except (duckdb.CatalogException, duckdb.BinderException) as exc:
                # A serving database published before an upgrade lacks the views this version reads.
                raise BiError(
                    f"the serving database lacks what this version reads ({str(exc).splitlines()[0]}): it was "
                    "published by an older version; run `metrics-etl publish`, then write the report again"
                ) from None
    _replace(out, html)
    if home is not None:
        pages = {_record_key(Path(page), home): was for page, was in _recorded(home).items()}
        pages[_record_key(out, home)] = tier
        _replace(home / PAGES_RECORD, json.dumps(pages, indent=1, sort_keys=True))
    return out


def rewrite_pages(*, sources: BiSources, home: Path, tier: str) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Every page recorded for `home` that still exists, written again (after an erasure) at its
    tier, or at `tier` (METRICS_PAGE_TIER) where that is narrower; the home's own report.html too
    when the record lacks it, at `tier`. A page that cannot be written again is removed, never
    left naming someone: those come back as (path, why), the why saying if even removing it failed."""
    pages = {str((home / "report.html").absolute()): tier, **_recorded(home)}
    written: list[Path] = []
    failed: list[tuple[Path, str]] = []
    for name, page_tier in pages.items():
        page = Path(name)
        if not page.is_file():
            continue
        try:
            # Never broader than the tier chosen now: a page written before METRICS_PAGE_TIER
            # narrowed to aggregate may be read by the wide audience it now serves.
            narrower = "aggregate" if "aggregate" in (page_tier, tier) else page_tier
            written.append(write_page(sources=sources, out=page, tier=narrower))
        except (BiError, OSError) as exc:
            try:
                page.unlink()
                failed.append((page, f"removed, as it could not be written again: {exc}"))
            except OSError as gone:
                failed.append(
                    (
                        page,
                        f"could not be written again ({exc}) nor removed ({gone.strerror}): "
                        "it may still name the person, remove it by hand",
                    )
                )
    return written, failed


def _aggregate_page(path: Path) -> str:
    if not path.is_file():
        raise BiError(f"no aggregate tier yet: {path} does not exist (each publish writes it: run `metrics-etl run`)")
    try:
        conn = connect(path, read_only=True)
    except duckdb.IOException as exc:
        raise BiError(f"cannot open {path} read-only: {str(exc).splitlines()[0]}") from None
    with closing(conn):
        return render_aggregate_page(conn, generated=datetime.now(UTC))


def _record_key(page: Path, home: Path) -> str:
    """A page's key in the record: inside the home, its path from the home, so the record follows
    a home moved or copied elsewhere and never names the old home's pages; else its absolute path."""
    page, home = page.absolute(), home.absolute()
    return page.relative_to(home).as_posix() if page.is_relative_to(home) else str(page)


def _recorded(home: Path) -> dict[str, str]:
    """The pages recorded for `home`, by absolute path, and the tier of each."""
    try:
        pages = json.loads((home / PAGES_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str((home / str(k)).absolute()): str(v) for k, v in pages.items()} if isinstance(pages, dict) else {}


def _replace(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
