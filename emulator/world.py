"""The repositories, issues, pull requests and people the REST and GraphQL sides serve.

Everything is derived from the seed, so two emulators with one seed serve the same world.
Records carry the public schemas' field names where they overlap with the contract
(docs/service-contract.md).
"""

from __future__ import annotations

import random
import threading
from datetime import UTC, date, datetime, time, timedelta

from emulator.vocabulary import NAME_WORDS as _WORDS
from emulator.world_records import LABELS, Account, Issue, Repository


class World:
    """Mutable state of repositories and issues, guarded by one lock."""

    def __init__(
        self, *, seed: int, orgs: tuple[str, ...], users: int, repos: int, issues_per_repo: int, today: date
    ) -> None:
        self.lock = threading.RLock()
        self._rng = random.Random(f"world:{seed}")
        self._next_id = 1_000_000
        org = orgs[0]
        self.org = Account(id=self._id(), login=org, type="Organization")
        self.owner = Account(id=self._id(), login=f"{org}-admin")
        self.member = Account(id=self._id(), login=f"{org}-member")
        self.members = [self.owner, self.member] + [
            Account(id=self._id(), login=f"dev-{i:05d}") for i in range(max(0, users - 2))
        ]
        self.repos: dict[str, Repository] = {}
        start = datetime.combine(today - timedelta(days=400), time(9), tzinfo=UTC)
        for i in range(repos):
            word = _WORDS[i % len(_WORDS)]
            name = word if i < len(_WORDS) else f"{word}-{i // len(_WORDS)}"
            # Every sixth is internal (the organization is in an enterprise), so private too.
            repo = self._new_repo(
                name=name,
                owner=self.org,
                description=f"The {word} service",
                private=i % 3 == 2 or i % 6 == 1,
                created_at=start + timedelta(days=i),
            )
            repo.internal = i % 6 == 1
            for _ in range(issues_per_repo):
                self._seed_issue(repo, today)
            self.repos[repo.full_name.lower()] = repo
        # Further organizations come after the first one's, so its world is the same with or
        # without them; they share the members (people belong to several organizations).
        self.orgs = [self.org]
        for extra in orgs[1:]:
            account = Account(id=self._id(), login=extra, type="Organization")
            self.orgs.append(account)
            for i in range(max(1, repos // 4)):
                word = _WORDS[(i + 3) % len(_WORDS)]
                repo = self._new_repo(
                    name=word,
                    owner=account,
                    description=f"The {word} service of {extra}",
                    private=False,
                    created_at=start + timedelta(days=i),
                )
                for _ in range(issues_per_repo):
                    self._seed_issue(repo, today)
                self.repos[repo.full_name.lower()] = repo

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _new_repo(
        self, *, name: str, owner: Account, description: str, private: bool, created_at: datetime
    ) -> Repository:
        return Repository(
            id=self._id(),
            name=name,
            owner=owner,
            description=description,
            private=private,
            created_at=created_at,
            stargazers=self._rng.randint(0, 900),
            forks=self._rng.randint(0, 120),
            language=self._rng.choice(["Python", "TypeScript", "Go", "Rust", "Java"]),
        )

    def _seed_issue(self, repo: Repository, today: date) -> None:
        rng = self._rng
        created = datetime.combine(today, time(0), tzinfo=UTC) - timedelta(minutes=rng.randint(60, 300 * 24 * 60))
        closed = rng.random() < 0.6
        closed_at = created + timedelta(minutes=rng.randint(10, 20 * 24 * 60)) if closed else None
        if closed_at and closed_at.date() >= today:
            closed_at, closed = None, False
        number = len(repo.issues) + 1
        repo.issues.append(
            Issue(
                id=self._id(),
                number=number,
                title=f"{rng.choice(['Fix', 'Add', 'Improve', 'Remove'])} {rng.choice(_WORDS)} handling #{number}",
                body="",
                user=rng.choice(self.members),
                labels=rng.sample(LABELS, rng.randint(0, 2)),
                state="closed" if closed else "open",
                created_at=created,
                updated_at=closed_at or created + timedelta(minutes=rng.randint(0, 600)),
                closed_at=closed_at,
                is_pull=rng.random() < 0.3,
                head=f"feature-{number}",
                base="main",
            )
        )

    def repo(self, owner: str, name: str) -> Repository | None:
        return self.repos.get(f"{owner}/{name}".lower())

    def rename_repo(self, *, owner: str, name: str, new_name: str) -> Repository | None:
        """Rename in place: the id, issues and counts stay, as on the public service."""
        with self.lock:
            repo = self.repo(owner, name)
            if repo is None or self.repo(owner, new_name):
                return None
            del self.repos[repo.full_name.lower()]
            repo.name = new_name
            self.repos[repo.full_name.lower()] = repo
            return repo

    def has_org(self, org: str) -> bool:
        return self.find_org(org) is not None

    def find_org(self, name: str) -> Account | None:
        """The organization whose login is `name` in any case (logins are case-insensitive)."""
        return next((account for account in self.orgs if account.login.lower() == name.lower()), None)

    def delete_repo(self, *, owner: str, name: str) -> Repository | None:
        """Remove a repository with its issues; its name answers 404 from then on."""
        with self.lock:
            return self.repos.pop(f"{owner}/{name}".lower(), None)

    def org_repos(self, org: str) -> list[Repository]:
        return sorted((r for r in self.repos.values() if r.owner.login.lower() == org.lower()), key=lambda r: r.id)

    def create_repo(
        self, *, owner: Account, name: str, description: str, private: bool, now: datetime
    ) -> Repository | None:
        with self.lock:
            if self.repo(owner.login, name):
                return None
            repo = self._new_repo(name=name, owner=owner, description=description, private=private, created_at=now)
            repo.stargazers = repo.forks = 0
            self.repos[repo.full_name.lower()] = repo
            return repo

    def create_issue(
        self,
        *,
        repo: Repository,
        user: Account,
        title: str,
        body: str,
        labels: list[str],
        is_pull: bool,
        now: datetime,
        head: str = "",
        base: str = "",
    ) -> Issue:
        with self.lock:
            issue = Issue(
                id=self._id(),
                number=len(repo.issues) + 1,
                title=title,
                body=body,
                user=user,
                labels=labels,
                state="open",
                created_at=now,
                updated_at=now,
                closed_at=None,
                is_pull=is_pull,
                head=head,
                base=base,
            )
            repo.issues.append(issue)
            return issue
