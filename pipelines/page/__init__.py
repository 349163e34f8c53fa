"""`metrics-etl report`: a self-contained HTML page of agent adoption, from the bi.* views."""

from __future__ import annotations

import os
from pathlib import Path

from pipelines.bi import BiSources, open_bi
from pipelines.page._render import render_page

__all__ = ["render_page", "write_page"]


def write_page(*, sources: BiSources, out: Path) -> Path:
    """Render the page from the serving database (or the warehouse) and write it to `out` atomically."""
    with open_bi(sources=sources) as conn:
        html = render_page(conn)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    partial.write_text(html, encoding="utf-8")
    os.replace(partial, out)
    return out
