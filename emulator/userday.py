"""One user's day: the per-day byte streams and what they decide (active, chat, agent mode, the
CLI, third-party agents, code review, the agent surfaces of emulator/surfaces.py), the day's
counts in cells (feature x language) scaled by completeness, and the bit masks over all users of a day.

A per-day byte stream (20 bytes per global user, in blocks of users) decides whether the user
was active and how much; the agent surfaces, their counts, the telemetry classes and the
misattribution draws have streams of their own, so numbers that came earlier stay as they were.
"""

from __future__ import annotations

import random
from datetime import date
from functools import lru_cache

from emulator import cli_usage, misattribution, telemetry
from emulator.dayrecord import UserDay
from emulator.population import BLOCK, Population, Profile, key
from emulator.recordjson import ZEROS, column_sums
from emulator.surfaces import Surfaces
from emulator.vocabulary import (
    AGENT_APPS,
    AGENT_MODE_FEATURES,
    COMPLETION,
    COMPLETION_MODEL,
    FEATURES,
    MULT,
)

# Out of 256, among a day's active users: who asked for a code review, and whose review was
# triggered by a policy only.
_REVIEW_ACTIVE_BELOW = 38
_REVIEW_PASSIVE_BELOW = 90

BYTES_PER_USER = 20


class UserDays:
    """The user-days of a population, each made on its own from its day's byte streams."""

    def __init__(self, people: Population) -> None:
        self.people = people
        seed = people.seed
        self.day_block = lru_cache(maxsize=512)(self.make_day_block)
        self.surfaces = Surfaces(seed)
        self.class_block = lru_cache(maxsize=512)(
            lambda ordinal, block: telemetry.class_bytes(key("classes", seed, ordinal, block), BLOCK)
        )
        self.shift_block = lru_cache(maxsize=64)(
            lambda ordinal, block: misattribution.shift_bytes(key("misattribution", seed, ordinal, block), BLOCK)
        )

    def make_day_block(self, ordinal: int, block: int) -> bytes:
        return random.Random(key("day", self.people.seed, ordinal, block)).randbytes(BLOCK * BYTES_PER_USER)

    def flags(
        self, p: Profile, b: bytes, o: int, weekend: bool, agents_day: bool, ordinal: int
    ) -> tuple[bool, bool, bool, bool, bool, bool, bool]:
        active = active_on(p, b, o, weekend, ordinal)
        chat = active and b[o + 1] < p.chat_threshold
        agent_mode = chat and b[o + 2] < p.agent_mode_threshold
        cli = active and b[o + 3] < p.cli_threshold
        agents = chat and agents_day and b[o + 4] < p.agents_threshold
        # Code review users are among the day's active users, each active or passive, never both.
        review_active = active and b[o + 19] < _REVIEW_ACTIVE_BELOW
        review_passive = active and _REVIEW_ACTIVE_BELOW <= b[o + 19] < _REVIEW_PASSIVE_BELOW
        return active, chat, agent_mode, cli, agents, review_active, review_passive

    def _no_ide_class(self, u: int, p: Profile, day: date) -> str | None:
        """ "app", "server" or "cli" for a day of user u without IDE activity (emulator/telemetry.py)."""
        ordinal = day.toordinal()
        if p.active_threshold == 0 or ordinal >= p.active_until:
            return None
        return telemetry.day_class(
            self.class_block(ordinal, u // BLOCK),
            (u % BLOCK) * telemetry.CLASS_BYTES,
            day,
            cli_user=p.cli_threshold > 0,
        )

    def _no_ide_day(self, u: int, p: Profile, day: date, c: float, ide: str, b: bytes, o: int) -> UserDay:
        """A day without IDE activity: none at all, server-side only, in the CLI or desktop app only."""
        kind = self._no_ide_class(u, p, day)
        if kind == "cli":
            cli = cli_usage.cli_counts(b, o, c)
            counts = telemetry.cli_feature_counts(cli)
            return UserDay(
                False,
                False,
                False,
                True,
                ide,
                counts,
                p.languages,
                [],
                cli,
                [],
                False,
                False,
                customizations=self._customizations(u, day.toordinal(), c),
                feature_rows=[(telemetry.CLI_FEATURE, counts)],
            )
        if kind != "app":
            return UserDay(
                False,
                False,
                False,
                False,
                ide,
                ZEROS,
                p.languages,
                [],
                None,
                [],
                False,
                False,
                server_side=kind == "server",
            )
        app_counts, _ = self.surfaces.counts(u, day.toordinal(), app=True, vscode_agent=False, c=c)
        assert app_counts is not None
        counts = telemetry.app_feature_counts(app_counts)
        return UserDay(
            False,
            False,
            False,
            False,
            ide,
            counts,
            p.languages,
            [],
            None,
            [],
            False,
            False,
            app=True,
            app_counts=app_counts,
            feature_rows=[(telemetry.APP_FEATURE, counts)],
        )

    def user_day(self, u: int, day: date, c: float) -> UserDay:
        """A user-day as served: as the service misattributed it in its documented windows."""
        d = self._user_day_as_used(u, day, c)
        if not misattribution.in_a_window(day):
            return d
        return misattribution.apply(
            d,
            b=self.shift_block(day.toordinal(), u // BLOCK),
            o=(u % BLOCK) * misattribution.SHIFT_BYTES,
            seed=self.people.seed,
            u=u,
            day=day,
        )

    def _user_day_as_used(self, u: int, day: date, c: float) -> UserDay:
        p = self.people.profile(u)
        b = self.day_block(day.toordinal(), u // BLOCK)
        o = (u % BLOCK) * BYTES_PER_USER
        active, chat, agent_mode, cli, agents, review_active, review_passive = self.flags(
            p, b, o, day.weekday() >= 5, self.people.has_agent_activity(day), day.toordinal()
        )
        ide = p.ides[b[o + 5] % len(p.ides)]
        if not active:
            return self._no_ide_day(u, p, day, c, ide, b, o)
        volume = p.volume * MULT[b[o + 6]]
        # Not every language and feature of a user shows up every day: the primary language
        # and the first chat feature always do, the others when their bit is set.
        pick, pick_features = b[o + 17], b[o + 18]
        languages = tuple(lang for i, lang in enumerate(p.languages) if i == 0 or pick >> i & 1)
        weights = tuple(w for i, w in enumerate(p.language_weights) if i == 0 or pick >> i & 1)
        plan: list[tuple[str, str, float]] = [(COMPLETION, COMPLETION_MODEL, max(1.0, volume))]
        if chat:
            for i, f in enumerate(p.chat_features):
                if i == 0 or pick_features >> i & 1:
                    plan.append((f, p.chat_model, volume * MULT[b[o + 7 + i]]))
        if agent_mode:
            plan.append((AGENT_MODE_FEATURES[0], p.agent_model, volume * MULT[b[o + 10]]))
            if pick_features >> 4 & 1:
                plan.append((AGENT_MODE_FEATURES[1], p.agent_model, volume * MULT[b[o + 11]]))
        extra, e = self.class_block(day.toordinal(), u // BLOCK), (u % BLOCK) * telemetry.CLASS_BYTES
        if chat and extra[e + 1] < telemetry.PLAN_BELOW:
            # Before the service split plan mode out, it reported it as custom mode.
            mode = telemetry.PLAN_FEATURE if day >= telemetry.PLAN_MODE_FROM else "chat_panel_custom_mode"
            if all(f != mode for f, _, _ in plan):
                plan.append((mode, p.chat_model, volume * MULT[extra[e + 3]]))
        other = telemetry.other_feature(extra[e + 2])
        if other is not None:
            plan.append((other, COMPLETION_MODEL, volume * MULT[255 - extra[e + 3]]))
        apps: list[tuple[str | None, int, int]] = []
        if agents:
            for i, app in enumerate(p.apps):
                r = b[o + 14 + i]
                jobs = 1 + r % 6
                apps.append((AGENT_APPS[app][1], jobs, 1 + (r >> 4) % jobs))
        features: list[tuple[str, str, list[list[int]]]] = []
        for f, model, v in plan:
            ui, ug, ar, sa, sd = FEATURES[f]
            rows = []
            for w in weights:
                x = v * w
                gen = int(x * ug)
                if gen == 0 and f == COMPLETION:
                    gen = 1  # an active day always shows some completion activity
                acc = int(gen * ar)
                rows.append([int(x * ui), gen, acc, int(gen * sa), int(gen * sd), int(acc * sa), int(acc * sd)])
            features.append((f, model, rows))
        if apps:
            # Agent job starts come from other telemetry than prompts; keep the top-level count
            # clearly above them so summing the two measures by mistake shows in any check.
            features[1][2][0][0] += 3 * sum(jobs for _, jobs, _ in apps) + 3
        if c < 1.0:
            features = [(f, m, [[int(n * c) for n in row] for row in rows]) for f, m, rows in features]
        totals = column_sums([row for _, _, rows in features for row in rows])
        cli_counts = cli_usage.cli_counts(b, o, c) if cli else None
        merged: dict[str, list[int]] = {}
        for agent_id, jobs, sessions in apps:
            if agent_id is None:
                continue  # unrecognized agents never appear in reports
            entry = merged.setdefault(agent_id, [0, 0])
            entry[0] += int(jobs * c)
            entry[1] += int(sessions * c)
        cloud_agent, app, vscode_agent = self.surfaces.flags(
            u, p, day.toordinal(), active=True, agent_mode=agent_mode, ide=ide
        )
        app_counts, vscode_counts = self.surfaces.counts(u, day.toordinal(), app=app, vscode_agent=vscode_agent, c=c)
        customizations = self._customizations(u, day.toordinal(), c) if cli_counts is not None else None
        rows: list[tuple[str, tuple[int, ...]]] = []
        if cli_counts is not None:
            rows.append((telemetry.CLI_FEATURE, telemetry.cli_feature_counts(cli_counts)))
        if app_counts is not None and day >= telemetry.APP_IN_COUNTS_FROM:
            rows.append((telemetry.APP_FEATURE, telemetry.app_feature_counts(app_counts)))
        return UserDay(
            active,
            chat,
            agent_mode,
            cli,
            ide,
            column_sums([totals, *(counts for _, counts in rows)]),
            languages,
            features,
            cli_counts,
            [(a, j, s) for a, (j, s) in sorted(merged.items()) if j > 0],
            review_active,
            review_passive,
            cloud_agent,
            app,
            vscode_agent,
            app_counts,
            vscode_counts,
            customizations,
            feature_rows=rows,
            ide_totals=totals,
        )

    def _customizations(self, u: int, ordinal: int, c: float) -> dict[str, tuple[tuple[str, int], ...]]:
        return cli_usage.customizations(key("customizations", self.people.seed, u, ordinal), c)


def active_on(p: Profile, b: bytes, o: int, weekend: bool, ordinal: int) -> bool:
    threshold = p.active_threshold // 4 if weekend else p.active_threshold
    return b[o] < threshold and ordinal < p.active_until
