"""`metrics-etl report`: a self-contained HTML page of agent adoption, from the bi.* views."""

from __future__ import annotations

import os
from pathlib import Path

from pipelines.export import BiSources, open_bi
from pipelines.report.page import render_report

__all__ = ["render_report", "write_report"]


def write_report(*, sources: BiSources, out: Path) -> Path:
    """Render the report from the serving database (or the warehouse) and write it to `out` atomically."""
    with open_bi(sources=sources) as conn:
        html = render_report(conn)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    partial.write_text(html, encoding="utf-8")
    os.replace(partial, out)
    return out
