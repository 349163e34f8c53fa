"""One team of the emulated organization or enterprise (emulator/teams.py decides who is on which):
its slug (`word_slug` names the squads and engineering teams) and name on a day (a rename takes
effect on rename_day), and its REST objects."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from emulator.vocabulary import NAME_WORDS as _WORDS


def word_slug(prefix: str, i: int) -> str:
    """`{prefix}-{word}`, the ith team of a kind (`squad-atlas`, ...; past the last word, numbered)."""
    word = _WORDS[i % len(_WORDS)]
    return f"{prefix}-{word}" if i < len(_WORDS) else f"{prefix}-{word}-{i // len(_WORDS) + 1}"


@dataclass(frozen=True, slots=True)
class Team:
    team_id: int
    slug: str  # before any rename
    kind: str  # squad, guild, pilot, engineering, business
    renamed_to: str | None = None  # the slug from the rename day on

    def slug_on(self, day: date, rename_day: date) -> str:
        return self.renamed_to if self.renamed_to and day >= rename_day else self.slug

    def name_on(self, day: date, rename_day: date) -> str:
        return " ".join(part.capitalize() for part in self.slug_on(day, rename_day).split("-"))

    def record(self, *, day: date, rename_day: date, base_url: str, org: str) -> dict[str, Any]:
        """The team object of the public REST API, as of `day`."""
        slug = self.slug_on(day, rename_day)
        api = f"{base_url}/orgs/{org}/teams/{slug}"
        return {
            "id": self.team_id,
            "node_id": f"T_{self.team_id}",
            "url": f"{base_url}/teams/{self.team_id}",
            "html_url": f"{base_url}/orgs/{org}/teams/{slug}",
            "name": self.name_on(day, rename_day),
            "slug": slug,
            "description": f"The {self.name_on(day, rename_day)} team",
            "privacy": "closed",
            "notification_setting": "notifications_enabled",
            "permission": "pull",
            "members_url": f"{api}/members{{/member}}",
            "repositories_url": f"{api}/repos",
            "parent": None,
            "type": "organization",
        }

    def enterprise_record(self, *, day: date, rename_day: date, base_url: str, enterprise: str) -> dict[str, Any]:
        """The enterprise team object of the public REST API, as of `day`."""
        slug = self.slug_on(day, rename_day)
        html = f"{base_url}/enterprises/{enterprise}/teams/{slug}"
        return {
            "id": self.team_id,
            "name": self.name_on(day, rename_day),
            "slug": slug,
            "description": f"The {self.name_on(day, rename_day)} team",
            "url": f"{base_url}/enterprises/{enterprise}/teams/{self.team_id}",
            "html_url": html,
            "members_url": f"{html}/members{{/member}}",
            "group_id": None,
            "type": "enterprise",
        }
