"""One screen at the end of `make bench`: each benchmark's figures beside their targets.

    .venv/bin/python -m benchmarks.summary [--clear]

Each benchmark appends a JSON line per figure to SUMMARY (`record`); this prints them as one
table, each with its target and whether it meets it, and names any benchmark that recorded
nothing (it failed or was not run). `--clear` empties the file (the bench target does, first).
Exits 1 when a target is missed or a benchmark is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

SUMMARY = Path(__file__).parent / ".cache" / "summary.jsonl"
# The benchmarks `make bench` runs, in its order.
BENCHMARKS = ("ingest", "parts", "snapshots", "webhooks", "history", "views", "publish")


def record(benchmark: str, figure: str, target: str | None = None, met: bool | None = None) -> None:
    """Append one figure; no target means a figure to read, not to judge."""
    SUMMARY.parent.mkdir(parents=True, exist_ok=True)
    line = {"benchmark": benchmark, "figure": figure, "target": target, "met": met, "load": os.getloadavg()[0]}
    with SUMMARY.open("a") as out:
        out.write(json.dumps(line) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clear", action="store_true", help="start a new summary")
    args = parser.parse_args()
    if args.clear:
        SUMMARY.unlink(missing_ok=True)
        return 0
    lines = [json.loads(text) for text in SUMMARY.read_text().splitlines()] if SUMMARY.exists() else []
    rows = []
    for name in BENCHMARKS:
        mine = [line for line in lines if line["benchmark"] == name]
        if not mine:
            rows.append((name, "(no figures: failed or not run)", "", "NO", ""))
        for line in mine:
            met = {True: "yes", False: "NO", None: "-"}[line["met"]]
            rows.append((name, line["figure"], line["target"] or "-", met, f"{line['load']:.1f}"))
    header = ("benchmark", "figure", "target", "meets", "load")
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    print()
    for row in (header, *rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    ok = all(row[3] != "NO" for row in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
