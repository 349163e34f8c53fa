"""The page's document shell: its style sheet, header and footer around the sections' HTML."""

from __future__ import annotations

from html import escape

_CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: #1f2937; background: #f6f7fb; }
header { background: #111827; color: #f9fafb; padding: 22px 32px; }
header h1 { margin: 0 0 4px; font-size: 22px; font-weight: 650; }
header p { margin: 0; color: #cbd5e1; font-size: 13px; }
main { max-width: 1200px; margin: 0 auto; padding: 20px 24px 40px; }
.card { background: #fff; border: 1px solid #e5e7eb; border-radius: 10px; padding: 18px 22px; margin: 18px 0; }
.card h2 { margin: 0 0 4px; font-size: 17px; }
.lead { margin: 0 0 12px; color: #4b5563; max-width: 900px; }
.tiles { display: grid; grid-template-columns: repeat(4, 1fr); gap: 14px; margin-top: 6px; }
.tile { background: #fff; border: 1px solid #e5e7eb; border-radius: 10px; padding: 14px 16px; }
.tile-label { color: #6b7280; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.tile-value { font-size: 26px; font-weight: 700; margin: 2px 0; }
.tile-note { color: #6b7280; font-size: 12px; }
.up { color: #047857; font-weight: 600; } .down { color: #b91c1c; font-weight: 600; }
.period-note { color: #6b7280; font-size: 12px; margin: 6px 2px 0; }
.headline-scope { color: #374151; margin: 4px 2px 10px; }
.muted { color: #9ca3af; } .day-count { white-space: nowrap; }
/* A line chart is as wide as its card at any width, its text never scaled (_chart.py). */
figure { margin: 0; min-width: 0; }
.chart-title { font-size: 14px; font-weight: 600; color: #374151; margin: 0 0 4px; }
.chart-body { display: flex; }
.chart-body svg.chart { flex: 1 1 auto; min-width: 0; overflow: hidden; }
.chart-body svg.y-axis { flex: 0 0 auto; }
.tick-phone { display: none; }
.calendars { display: flex; flex-wrap: wrap; gap: 12px 24px; }
.calendar-label { font-size: 12px; color: #374151; margin-bottom: 2px; }
svg.calendar { display: block; }
.change-detail { color: #4b5563; } .flat { color: #4b5563; font-weight: 600; }
.short-period { color: #b45309; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 520px), 1fr)); gap: 18px; }
.grid3 { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 350px), 1fr)); gap: 16px; }
ul.legend { list-style: none; margin: 6px 0 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 18px;
  color: #374151; font-size: 12px; }
ul.legend .swatch { width: 11px; height: 11px; margin-right: 6px; vertical-align: -1px; border: 1px solid; }
table.periods { border-collapse: collapse; width: 100%; margin: 8px 0 18px; }
table.periods caption { text-align: left; padding: 4px 0 8px; color: #4b5563; }
table.periods th { text-align: left; font-size: 12px; color: #6b7280;
  font-weight: 600; border-bottom: 1px solid #e5e7eb; padding: 6px 8px; }
table.periods td { border-bottom: 1px solid #f1f5f9; padding: 6px 8px; vertical-align: middle; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; } td.muted { color: #9ca3af; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 8px; }
.badge { display: inline-block; white-space: nowrap; padding: 1px 8px; border-radius: 999px; font-size: 12px;
  font-weight: 600; }
.badge-new { background: #dbeafe; color: #1d4ed8; } .badge-up { background: #d1fae5; color: #047857; }
.badge-down { background: #fee2e2; color: #b91c1c; } .badge-gone { background: #e5e7eb; color: #374151; }
.badge-flat { background: #f3f4f6; color: #4b5563; }
.badge-none { background: #fff; color: #9ca3af; border: 1px dashed #d1d5db; }
code { background: #f3f4f6; padding: 0 4px; border-radius: 4px; }
footer { color: #9ca3af; font-size: 12px; text-align: center; padding: 0 0 28px; }
@media (max-width: 900px) {
  .tiles { grid-template-columns: 1fr 1fr; }
  header { padding: 18px 16px; } main { padding: 12px 12px 32px; } .card { padding: 14px; }
  table.periods th, table.periods td { padding: 5px 4px; }
}
@media (max-width: 600px) {
  .tiles { grid-template-columns: 1fr; }
  .tick-phone { display: inline; } .tick-wide { display: none; }
}
/* Below a desktop a table's columns do not fit side by side at a readable size: each row becomes
   a short block, its name on top, then "heading value" pairs flowing as text and its change on a
   line of its own (every cell carries its heading: _table.py). */
@media (max-width: 1200px) {
  table.periods, table.periods tbody, table.periods caption { display: block; }
  table.periods thead { display: none; }
  table.periods tr { display: flex; flex-wrap: wrap; gap: 2px 14px; padding: 8px 0;
    border-bottom: 1px solid #e5e7eb; }
  table.periods td { display: block; border: 0; padding: 0; text-align: left; white-space: normal;
    overflow-wrap: anywhere; }
  table.periods td::before { content: attr(data-label) " "; color: #6b7280; font-size: 12px; }
  table.periods td:first-child, table.periods td.verdict { flex: 1 1 100%; }
  table.periods td:first-child { font-weight: 600; }
  table.periods td:first-child::before { content: none; }
  table.periods td:empty { display: none; }
}
"""


def page_document(*, title: str, subtitle: str, body: str) -> str:
    """The whole HTML document around `body`: head, style, header and footer."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{escape(title)}</h1><p>{subtitle}</p></header><main>{body}</main>"
        "<footer>metrics-etl · read from the bi.* views of the serving database · "
        "self-contained, no network needed</footer>"
        "</body></html>\n"
    )
