"""Where the service's webhook payloads name a person, declared once per payload kind, and how a
login is spelled in free text (docs/privacy.md, "What erasure matches").

A person is an object at a declared path of the delivery's kind: a user object (`id`, `login`),
a repository owner only when its `type` is "User" (an organization owns most), or a git actor of
a push (`username`, or the pusher's `name`, and an `email` that is the service's no-reply address
carrying the id and login). Besides, in every kind, any object typed "User" (the service's user
object, wherever it is) is a person: a kind or a path not declared here still names its people.
Every other object's `id` (a repository's, an issue's, a team's) and `organization` name no
person. Erasure and the webhook loader test exactly these.

A seat of a seat listing (the seats extension) names its holder at `SEAT_HOLDER`, with the
person's `name` and `email` beside their id and login: the seat goes whole with the person (its
row, its archived line).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["EVERY_KIND", "LOGIN_TOKEN", "PERSON_FIELDS", "SEAT_HOLDER", "PersonPath", "payload_people", "seat_holder"]


@dataclass(frozen=True)
class PersonPath:
    """A JSON path holding a person: keys joined by dots, `[]` after a key for each element of that array."""

    path: str
    id_key: str | None = "id"
    login_key: str = "login"
    email_key: str | None = None  # a git actor's address: the no-reply form names the id and login
    only_type: str | None = None  # a person only when the object's `type` is this


def _user(path: str) -> PersonPath:
    return PersonPath(path)


def _owner(path: str) -> PersonPath:
    return PersonPath(path, only_type="User")


def _git(path: str, login: str = "username") -> PersonPath:
    return PersonPath(path, id_key=None, login_key=login, email_key="email")


# Paths of every kind, the kinds not listed below included.
EVERY_KIND: tuple[PersonPath, ...] = (_user("sender"), _owner("repository.owner"))

_ISSUE = (
    _user("issue.user"),
    _user("issue.assignee"),
    _user("issue.assignees[]"),
    _user("issue.closed_by"),
    _user("issue.milestone.creator"),
    _user("assignee"),
)
_PULL_REQUEST = (
    _user("pull_request.user"),
    _user("pull_request.assignee"),
    _user("pull_request.assignees[]"),
    _user("pull_request.requested_reviewers[]"),
    _user("pull_request.merged_by"),
    _user("pull_request.milestone.creator"),
    _owner("pull_request.head.user"),
    _owner("pull_request.base.user"),
    _owner("pull_request.head.repo.owner"),
    _owner("pull_request.base.repo.owner"),
    _user("requested_reviewer"),
    _user("assignee"),
)

PERSON_FIELDS: dict[str, tuple[PersonPath, ...]] = {
    "push": (
        _git("pusher", login="name"),
        _git("commits[].author"),
        _git("commits[].committer"),
        _git("head_commit.author"),
        _git("head_commit.committer"),
    ),
    "issues": _ISSUE,
    "issue_comment": (*_ISSUE, _user("comment.user")),
    "pull_request": _PULL_REQUEST,
    "pull_request_review": (*_PULL_REQUEST, _user("review.user")),
    "pull_request_review_comment": (*_PULL_REQUEST, _user("comment.user")),
    "member": (_user("member"),),
    "membership": (_user("member"), _user("membership.user")),
    "organization": (_user("membership.user"),),
}

# The holder of a seat (organization and enterprise seat listings), null for an unassigned seat.
# Every member of it names the person (`name`, `email` too): a seat goes whole with its holder.
SEAT_HOLDER = PersonPath("assignee")

# A login in text: letters and digits joined by single hyphens (an underscore before an enterprise's
# suffix), whole: never part of a longer login, so `dev-00018` is not found in `dev-000180`. Group 1
# is the `@` of a mention, group 2 the login.
LOGIN_TOKEN = re.compile(r"(?<![A-Za-z0-9_-])(@?)([A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?)")
# The service's no-reply address: `<id>+<login>@users.noreply.<host>` (or `<login>@…` for old accounts).
_NO_REPLY = re.compile(r"^(?:(\d+)\+)?([A-Za-z0-9][A-Za-z0-9_-]*)@users\.noreply\.", re.IGNORECASE)


def payload_people(event: str, document: object) -> Iterator[tuple[int | None, str | None]]:
    """(user id, login) of every person the declared paths of the kind `event` hold in the parsed payload."""
    for field in (*EVERY_KIND, *PERSON_FIELDS.get(event, ())):
        for found in _resolve(document, field.path.split(".")):
            if not isinstance(found, dict) or (field.only_type and found.get("type") != field.only_type):
                continue
            yield _person(found.get(field.id_key) if field.id_key else None, found.get(field.login_key))
            email = found.get(field.email_key) if field.email_key else None
            if isinstance(email, str) and (no_reply := _NO_REPLY.match(email)):
                yield (int(no_reply[1]) if no_reply[1] else None, no_reply[2])
    yield from _typed_users(document)


def seat_holder(seat: object) -> tuple[int | None, str | None]:
    """(user id, login) of the person holding a seat as listed; (None, None) for an unassigned seat."""
    holder = next(_resolve(seat, SEAT_HOLDER.path.split(".")), None)
    if not isinstance(holder, dict):
        return None, None
    return _person(holder.get(SEAT_HOLDER.id_key) if SEAT_HOLDER.id_key else None, holder.get(SEAT_HOLDER.login_key))


def _typed_users(document: object) -> Iterator[tuple[int | None, str | None]]:
    """Every object of the document typed "User", however deep (without recursion: a payload
    may nest as deep as the receiver's parser goes)."""
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") == "User":
                yield _person(node.get("id"), node.get("login"))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _person(user_id: object, login: object) -> tuple[int | None, str | None]:
    return (
        user_id if isinstance(user_id, int) and not isinstance(user_id, bool) else None,
        login if isinstance(login, str) else None,
    )


def _resolve(node: object, steps: list[str]) -> Iterator[object]:
    if not steps:
        yield node
        return
    step, rest = steps[0], steps[1:]
    each = step.endswith("[]")
    child = node.get(step.removesuffix("[]")) if isinstance(node, dict) else None
    if each:
        for element in child if isinstance(child, list) else ():
            yield from _resolve(element, rest)
    elif child is not None:
        yield from _resolve(child, rest)
