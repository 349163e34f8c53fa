"""The world's accounts, repositories, issues and pull requests, each with the record the REST
side serves (the public schemas' field names where they overlap with the contract,
docs/service-contract.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

LABELS = ("bug", "enhancement", "documentation", "question", "good first issue")


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Account:
    id: int
    login: str
    type: str = "User"

    def record(self, base_url: str) -> dict[str, Any]:
        return {
            "login": self.login,
            "id": self.id,
            "node_id": f"U_{self.id}",
            "avatar_url": f"{base_url}/avatars/{self.login}",
            "url": f"{base_url}/users/{self.login}",
            "html_url": f"{base_url}/{self.login}",
            "type": self.type,
            "site_admin": False,
        }


@dataclass
class Issue:
    id: int
    number: int
    title: str
    body: str
    user: Account
    labels: list[str]
    state: str
    created_at: datetime
    updated_at: datetime
    closed_at: datetime | None
    is_pull: bool
    head: str = ""
    base: str = ""

    def record(self, base_url: str, repo: Repository) -> dict[str, Any]:
        repo_url = f"{base_url}/repos/{repo.full_name}"
        out: dict[str, Any] = {
            "id": self.id,
            "node_id": f"I_{self.id}",
            "url": f"{repo_url}/issues/{self.number}",
            "repository_url": repo_url,
            "html_url": f"{base_url}/{repo.full_name}/{'pull' if self.is_pull else 'issues'}/{self.number}",
            "number": self.number,
            "state": self.state,
            "state_reason": "completed" if self.state == "closed" else None,
            "title": self.title,
            "body": self.body,
            "user": self.user.record(base_url),
            "labels": [
                {"id": 1000 + LABELS.index(n) if n in LABELS else 1999, "name": n, "color": "ededed"}
                for n in self.labels
            ],
            "assignee": None,
            "assignees": [],
            "locked": False,
            "comments": 0,
            "created_at": _iso(self.created_at),
            "updated_at": _iso(self.updated_at),
            "closed_at": _iso(self.closed_at) if self.closed_at else None,
            "author_association": "MEMBER",
        }
        if self.is_pull:
            out["pull_request"] = {
                "url": f"{repo_url}/pulls/{self.number}",
                "html_url": f"{base_url}/{repo.full_name}/pull/{self.number}",
                "merged_at": None,
            }
            out["draft"] = False
        return out

    def pull_record(self, base_url: str, repo: Repository) -> dict[str, Any]:
        out = self.record(base_url, repo)
        out.pop("pull_request")
        out["url"] = f"{base_url}/repos/{repo.full_name}/pulls/{self.number}"
        out["head"] = {"ref": self.head, "label": f"{repo.owner.login}:{self.head}"}
        out["base"] = {"ref": self.base, "label": f"{repo.owner.login}:{self.base}"}
        out["merged"] = False
        out["merged_at"] = None
        return out


@dataclass
class Repository:
    id: int
    name: str
    owner: Account
    description: str
    private: bool
    created_at: datetime
    stargazers: int
    forks: int
    language: str
    issues: list[Issue] = field(default_factory=list)
    internal: bool = False  # visible to the enterprise's members; private to everyone else

    @property
    def visibility(self) -> str:
        return "internal" if self.internal else "private" if self.private else "public"

    @property
    def full_name(self) -> str:
        return f"{self.owner.login}/{self.name}"

    def record(self, base_url: str) -> dict[str, Any]:
        api = f"{base_url}/repos/{self.full_name}"
        open_issues = sum(1 for i in self.issues if i.state == "open")
        pushed = max([self.created_at] + [i.updated_at for i in self.issues])
        return {
            "id": self.id,
            "node_id": f"R_{self.id}",
            "name": self.name,
            "full_name": self.full_name,
            "owner": self.owner.record(base_url),
            "private": self.private,
            "html_url": f"{base_url}/{self.full_name}",
            "description": self.description,
            "fork": False,
            "url": api,
            "issues_url": f"{api}/issues{{/number}}",
            "pulls_url": f"{api}/pulls{{/number}}",
            "hooks_url": f"{api}/hooks",
            "clone_url": f"{base_url}/{self.full_name}.git",
            "homepage": None,
            "language": self.language,
            "forks_count": self.forks,
            "forks": self.forks,
            "stargazers_count": self.stargazers,
            "watchers_count": self.stargazers,
            "watchers": self.stargazers,
            "size": 100 + self.id % 5000,
            "default_branch": "main",
            "open_issues_count": open_issues,
            "open_issues": open_issues,
            "is_template": False,
            "topics": [],
            "has_issues": True,
            "has_projects": True,
            "has_wiki": False,
            "has_pages": False,
            "has_downloads": True,
            "has_discussions": False,
            "archived": False,
            "disabled": False,
            "visibility": self.visibility,
            "pushed_at": _iso(pushed),
            "created_at": _iso(self.created_at),
            "updated_at": _iso(pushed),
        }
