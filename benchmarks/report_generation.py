"""How fast the emulator generates user-level report lines, and how big they are.

Run: .venv/bin/python -m benchmarks.report_generation [--users N] [--days D]
Prints lines/s and MB/s of `ReportData.user_lines` (cold: profiles built on the way; warm:
profiles cached), the average line size, and the time of one day's aggregate record.
"""

from __future__ import annotations

import argparse
import resource
import time
from datetime import date, timedelta

from emulator.reportdata import ReportData

_DAY = date(2026, 10, 5)


def _final(_: date) -> float:
    return 1.0


def _stream(data: ReportData, *, users: int, days: list[date]) -> tuple[int, int, float]:
    start = time.perf_counter()
    lines = size = 0
    for line in data.user_lines(scope="organization", days=days, completeness_for=_final, start=0, stop=users):
        lines += 1
        size += len(line)
    return lines, size, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, default=50_000)
    parser.add_argument("--days", type=int, default=2)
    args = parser.parse_args()
    data = ReportData(seed=1, users=args.users, org="acme", enterprise="acme-corp", first_day=_DAY - timedelta(days=60))
    days = [_DAY + timedelta(days=i) for i in range(args.days)]
    for label in ("cold", "warm"):
        lines, size, seconds = _stream(data, users=args.users, days=days)
        print(
            f"user_lines {label}: {lines:,} lines in {seconds:.2f} s = {lines / seconds:,.0f} lines/s, "
            f"{size / seconds / 1e6:.0f} MB/s, {size / lines:,.0f} bytes/line"
        )
    start = time.perf_counter()
    data.aggregate_record(scope="organization", day=days[0], completeness=1.0)
    print(
        f"aggregate_record of {args.users:,} users (with 27 days of activity flags): "
        f"{time.perf_counter() - start:.2f} s"
    )
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
