"""The BI read side: where BI tools and the page read (`BiSources`), and `metrics-etl export`.

Reads the serving database (never the warehouse the pipeline writes) when there is one, so a
reader neither waits for nor blocks a run.
"""

from pipelines.bi._cost import cost_lines, denied_line, money
from pipelines.bi._export import EXPORTS_RECORD, FORMATS, Format, export_view, rewrite_exports
from pipelines.bi._sources import BiError, BiSources, NoWarehouse, UnknownView, known_views, open_bi

__all__ = [
    "EXPORTS_RECORD",
    "FORMATS",
    "BiError",
    "BiSources",
    "Format",
    "NoWarehouse",
    "UnknownView",
    "cost_lines",
    "denied_line",
    "export_view",
    "known_views",
    "money",
    "open_bi",
    "rewrite_exports",
]
