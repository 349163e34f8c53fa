"""The charts' time axis: days, or ISO weeks beyond 60 days (a daily line over a quarter is a
tangle). Pure functions of the days and values, no I/O."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

WEEKLY_AFTER_DAYS = 60


@dataclass(frozen=True)
class Axis:
    points: list[date]  # days, or the Monday of each week
    weekly: bool
    gaps: frozenset[date]  # points without any data (every day of the week a gap)
    provisional: frozenset[date]  # points holding a provisional day (still filling in)
    # point → the days of the window it stands for
    members: Mapping[date, tuple[date, ...]]

    def mean(self, values: Mapping[date, float | None]) -> dict[date, float | None]:
        """Each point's value: the day's, or the mean of its days that have one (a gap, None,
        is no day of data, so it never drags a week's mean down)."""
        if not self.weekly:
            return {day: values.get(day) for day in self.points}
        out: dict[date, float | None] = {}
        for point, days in self.members.items():
            known = [v for d in days if (v := values.get(d)) is not None]
            out[point] = sum(known) / len(known) if known else None
        return out

    def label(self, title: str) -> str:
        return f"{title} (weekly mean per day with data)" if self.weekly else title


def time_axis(days: Sequence[date], *, gaps: Iterable[date] = (), provisional: Iterable[date] = ()) -> Axis:
    gap_days, provisional_days = frozenset(gaps), frozenset(provisional)
    if len(days) <= WEEKLY_AFTER_DAYS:
        return Axis(list(days), False, gap_days & set(days), provisional_days & set(days), {d: (d,) for d in days})
    weeks: dict[date, list[date]] = defaultdict(list)
    for day in days:
        weeks[day - timedelta(days=day.weekday())].append(day)
    members = {week: tuple(ds) for week, ds in sorted(weeks.items())}
    return Axis(
        points=list(members),
        weekly=True,
        gaps=frozenset(w for w, ds in members.items() if all(d in gap_days for d in ds)),
        provisional=frozenset(w for w, ds in members.items() if any(d in provisional_days for d in ds)),
        members=members,
    )
