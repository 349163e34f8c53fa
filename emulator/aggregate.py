"""A scope's aggregate records: the 1-day record of a day (exact sums of its user-days, the
weekly and monthly counts as unions of the day masks, pull requests, adoption phases) and the
28-day report (its days' records and the features' engagement over the window)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from emulator.activity import Activity
from emulator.population import Population, key
from emulator.pulls import pull_requests
from emulator.recordjson import (
    COUNT_FIELDS,
    add,
    aggregate_breakdowns,
    app_dict,
    cli_dict,
    count_dict,
    customization_json,
    vscode_dict,
)
from emulator.repos import combine
from emulator.userday import UserDays
from emulator.vocabulary import PHASE_LABELS

# The features of a 28-day report's engagement the emulator's flags can tell.
_ENGAGEMENT_FEATURES = ("code_completion", "agent_edit", "code_review_passive", "code_review_active", "cloud_agent")
# An adoption phase entry's averages per user, in the order the aggregate sums them.
_PHASE_AVERAGES = (
    "avg_user_initiated_interactions",
    "avg_code_generation_activities",
    "avg_code_acceptance_activities",
    "avg_loc_added",
    "avg_loc_deleted",
)


class Aggregates:
    """The aggregate records of a population's scopes (the 1-day ones cached by scope, day and
    completeness: callers get a copy)."""

    def __init__(self, people: Population, days: UserDays, activity: Activity) -> None:
        self.people = people
        self.days = days
        self.activity = activity
        self._record = lru_cache(maxsize=256)(self._make_record)

    def record(self, scope: str, day: date, c: float) -> dict[str, Any]:
        self.people.scope_size(scope)  # an unknown scope is refused
        return copy.deepcopy(self._record(scope, day, c))

    def twenty_eight_day(self, *, scope: str, end_day: date, completeness_for: Callable[[date], float]) -> dict:
        self.people.scope_size(scope)  # an unknown scope is refused
        start_day = end_day - timedelta(days=27)
        days = [start_day + timedelta(days=i) for i in range(28)]
        return {
            "report_start_day": start_day.isoformat(),
            "report_end_day": end_day.isoformat(),
            **self.people.ids(scope),
            "created_at": f"{(end_day + timedelta(days=1)).isoformat()}T06:{self.people.seed % 60:02d}:00Z",
            "day_totals": [
                self._with_phase_population(scope, self.record(scope, d, float(completeness_for(d))), d) for d in days
            ],
            self.people.name("assistant_feature_engagement"): self._feature_engagement(scope, days),
        }

    def _feature_engagement(self, scope: str, days: list[date]) -> dict[str, Any]:
        """The 28 days' active users and, per feature, those who used it on two days or more."""
        mask = self.people.scope_mask(scope)
        once = [0] * 5
        twice = [0] * 5
        active = 0
        for day in days:
            a, _, ag, ra, rp, cl, no_ide = self.activity.day_flags(day)
            active |= a | no_ide
            for i, used in enumerate((a, ag, rp, ra, cl)):
                twice[i] |= once[i] & used
                once[i] |= used
        return {
            "active_user_count": (active & mask).bit_count(),
            "totals_by_feature": [
                {"feature": feature, "engaged_user_count": (engaged & mask).bit_count()}
                for feature, engaged in zip(_ENGAGEMENT_FEATURES, twice, strict=True)
            ],
        }

    def _with_phase_population(self, scope: str, record: dict[str, Any], day: date) -> dict[str, Any]:
        """A 28-day report's day: each phase entry gains the phase's whole rolling 28-day
        population as of the day (users active on any of its 28 days), September 2026."""
        window = 0
        for back in range(28):
            window |= self.activity.day_flags(day - timedelta(days=back))[0]
        window &= self.people.scope_mask(scope)
        population: dict[int, int] = {}
        for u in self.people.scope_users(scope):
            if window >> u & 1:
                phase = self.people.phase(u, day)
                population[phase] = population.get(phase, 0) + 1
        for entry in record.get("totals_by_ai_adoption_phase", []):
            entry["users_in_phase_28d"] = population.get(entry["phase_number"], 0)
        return record

    def _make_record(self, scope: str, day: date, c: float) -> dict[str, Any]:
        totals = [0] * 7
        by_ide: dict[str, list[int]] = {}
        cells: dict[tuple[str, str, str], list[int]] = {}
        cli_sums = [0] * 5
        cli_present = False
        agents: dict[str, list[int]] = {}
        active_today = chat_today = agent_today = cli_today = review_active_today = review_passive_today = 0
        cloud_today = app_today = vscode_today = 0
        app_sums, vscode_sums = [0] * 5, [0, 0]
        customized: dict[str, dict[str, int]] = {}
        phases: dict[int, list[int]] = {}  # phase -> users, and their interactions, generations, ...
        feature_rows: dict[str, list[int]] = {}
        ide_active = 0  # whose pull requests the day's are drawn from
        for u in self.people.scope_users(scope):
            d = self.days.user_day(u, day, c)
            # Server-side only and desktop-app-only users count as active, CLI-only users do not
            # (emulator/telemetry.py): the service's daily_active_users is IDE-based.
            if d.server_side or ((d.totals[0] or d.totals[1]) and (d.active or d.app)):
                active_today |= 1 << u
            if d.app_counts is not None:
                add(app_sums, d.app_counts)
            app_today |= d.app << u
            add(totals, d.totals)
            for f, counts in d.feature_rows:
                add(feature_rows.setdefault(f, [0] * 7), counts)
            cli_today |= d.used_cli << u
            if d.cli is not None:
                cli_present = True
                add(cli_sums, d.cli)
            for category, entries in (d.customizations or {}).items():
                names = customized.setdefault(category, {})
                for name, count in entries:
                    names[name] = names.get(name, 0) + count
            if not d.active:
                continue
            if d.vscode_counts is not None:
                add(vscode_sums, d.vscode_counts)
            add(
                phases.setdefault(self.people.phase(u, day), [0] * 6),
                (1, d.totals[0], d.totals[1], d.totals[2], d.totals[5], d.totals[6]),
            )
            cloud_today |= d.cloud_agent << u
            vscode_today |= d.vscode_agent << u
            if d.ide_totals[0] or d.ide_totals[1]:
                ide_active |= 1 << u
            review_active_today |= d.review_active << u
            review_passive_today |= d.review_passive << u
            if d.used_chat:
                chat_today |= 1 << u
            if d.used_agent:
                agent_today |= 1 << u
            add(by_ide.setdefault(d.ide, [0] * 7), d.ide_totals)
            for f, model, rows in d.features:
                for lang, counts in zip(d.languages, rows, strict=True):
                    add(cells.setdefault((f, lang, model), [0] * 7), counts)
            for agent_id, jobs, sessions in d.agents:
                add(agents.setdefault(agent_id, [0, 0]), (jobs, sessions))
        mask = self.people.scope_mask(scope)
        week = month = month_chat = month_agent = week_cloud = month_cloud = 0
        review = {"weekly": [0, 0], "monthly": [0, 0]}
        for back in range(1, 28):
            a, ch, ag, ra, rp, cl, no_ide = self.activity.day_flags(day - timedelta(days=back))
            if back < 7:
                week |= a | no_ide
                week_cloud |= cl
                review["weekly"][0] |= ra
                review["weekly"][1] |= rp
            month |= a | no_ide
            month_cloud |= cl
            month_chat |= ch
            month_agent |= ag
            review["monthly"][0] |= ra
            review["monthly"][1] |= rp
        record: dict[str, Any] = {
            "day": day.isoformat(),
            **self.people.ids(scope),
            "daily_active_users": active_today.bit_count(),
            "weekly_active_users": ((week & mask) | active_today).bit_count(),
            "monthly_active_users": ((month & mask) | active_today).bit_count(),
            "monthly_active_chat_users": ((month_chat & mask) | chat_today).bit_count(),
            "monthly_active_agent_users": ((month_agent & mask) | agent_today).bit_count(),
            "daily_active_cli_users": cli_today.bit_count(),
            self.people.name("daily_active_assistant_code_review_users"): review_active_today.bit_count(),
            self.people.name("daily_passive_assistant_code_review_users"): review_passive_today.bit_count(),
            self.people.cloud_name("daily_active_assistant_cloud_agent_users", day): cloud_today.bit_count(),
            self.people.cloud_name("weekly_active_assistant_cloud_agent_users", day): (
                (week_cloud & mask) | cloud_today
            ).bit_count(),
            self.people.cloud_name("monthly_active_assistant_cloud_agent_users", day): (
                (month_cloud & mask) | cloud_today
            ).bit_count(),
            self.people.name("daily_active_assistant_app_users"): app_today.bit_count(),
            "daily_active_vscode_agent_users": vscode_today.bit_count(),
        }
        for window, (window_active, window_passive) in review.items():
            reviewed = (window_active & mask) | review_active_today
            # Active trumps passive: a user with both signals in the window counts as active.
            passive = ((window_passive & mask) | review_passive_today) & ~reviewed
            record[self.people.name(f"{window}_active_assistant_code_review_users")] = reviewed.bit_count()
            record[self.people.name(f"{window}_passive_assistant_code_review_users")] = passive.bit_count()
        record.update(zip(COUNT_FIELDS, totals, strict=True))
        drawn: dict[str, Any] = {"seed": self.people.seed, "name": self.people.name}
        org_active = (ide_active & ((1 << self.people.users) - 1)).bit_count()
        pulls = [pull_requests("organization", day, c, org_active, **drawn)]
        if scope == "enterprise":  # its organizations' pull requests (emulator/repos.py), each drawn on its own
            pulls.append(pull_requests("labs", day, c, (ide_active >> self.people.users).bit_count(), **drawn))
        record["pull_requests"] = pulls[0] if len(pulls) == 1 else combine(pulls, self.people.name)
        record["totals_by_ide"] = [{"ide": k, **count_dict(v)} for k, v in sorted(by_ide.items())]
        record.update(aggregate_breakdowns(cells, feature_rows))
        if cli_present:
            record["totals_by_cli"] = cli_dict(cli_sums)
        if app_today:
            record[self.people.name("totals_by_assistant_app")] = app_dict(app_sums)
        if vscode_today:
            record["totals_by_vscode_agent"] = vscode_dict(vscode_sums)
        if phases:
            record["totals_by_ai_adoption_phase"] = self._phase_entries(phases, record["pull_requests"])
        if customized:
            # The scope's five most used of each category, and how many different ones were used.
            top = {
                category: sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
                for category, names in customized.items()
            }
            record.update(
                json.loads("{" + customization_json(top, distinct={k: len(v) for k, v in customized.items()})[1:] + "}")
            )
        if agents:
            record["totals_by_3rd_party_agent"] = [
                {
                    "agent_id": a,
                    "agent_name": self.people.agent_name(a, day),
                    "user_initiated_interaction_count": j,
                    "session_count": s,
                }
                for a, (j, s) in sorted(agents.items())
            ]
        if self.people.has_internal_fields(day):
            record["etl_id"] = f"{key('etl', self.people.seed, scope, day.toordinal()):016x}"
            record["day_partition"] = day.isoformat()
        return record

    def _phase_entries(self, phases: dict[int, list[int]], pulls: dict[str, Any]) -> list[dict[str, Any]]:
        """Each phase's users and averages per user of the phase, as the service gives them
        (never sums). The scope's pull requests are shared out by phase, later phases weighing
        more (users of several agents open and merge more)."""
        weights = {phase: users * (1 + phase) for phase, (users, *_) in phases.items()}
        whole = sum(weights.values())
        name = self.people.name
        created, merged, reviewed = (pulls[name(k)] for k in ("total_created", "total_merged", "total_reviewed"))
        median = pulls[name("median_minutes_to_merge")]
        entries = []
        for phase, (users, *totals) in sorted(phases.items()):
            share = weights[phase] / whole
            entry: dict[str, Any] = {
                "phase": PHASE_LABELS[phase],
                "phase_number": phase,
                "total_engaged_users": users,
                "total_pull_requests_merged": int(merged * share),
                **{name: round(total / users, 2) for name, total in zip(_PHASE_AVERAGES, totals, strict=True)},
                "avg_pull_requests_created": round(created * share / users, 2),
                "avg_pull_requests_merged": round(merged * share / users, 2),
                "avg_pull_requests_reviewed": round(reviewed * share / users, 2),
            }
            if median is not None:
                entry["avg_pull_requests_median_minutes_to_merge"] = round(median * (1.2 - 0.1 * phase), 1)
                entry["avg_pull_requests_minutes_to_review"] = round(median * 0.3 * (1.1 - 0.1 * phase), 1)
                entry["avg_pull_requests_review_cycles"] = round(1 + 0.25 * (3 - phase), 2)
            entries.append(entry)
        return entries
