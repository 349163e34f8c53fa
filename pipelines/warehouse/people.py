"""Whom erasure looks for, and where: a person's fields in report lines, listings and webhook
payloads, and their login in kept free text (docs/privacy.md, "What erasure matches").

`Person` is whom `metrics-etl forget` erases (their id and login known); `Forgotten` is every
erased person as a later landing knows them: two keyed hashes each (HMAC-SHA256 under
METRICS_PSEUDONYM_KEY), so a value is tested by hashing it. Both answer the same questions:

- does a webhook delivery name them? Only in the person fields its kind declares
  (`pipelines.service.people`): a repository or an issue whose id equals a user id names nobody;
- where is their login in free text (a delivery's body, an issue title, a quarantined line)?
  Whole logins in any case, never inside a longer one; a landing, which holds only hashes, tests
  the `@mentions` of a text, the erasure every login-shaped word. Each becomes `PLACEHOLDER`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pipelines.service.people import LOGIN_TOKEN, payload_people
from pipelines.transform.emails import normal_email

__all__ = [
    "PLACEHOLDER",
    "Forgotten",
    "Person",
    "person_hashes",
    "redact_document",
    "redact_text",
    "screen_payload",
]

PLACEHOLDER = "[erased]"

# The keys naming a person in report lines (user-level reports) and in listings (seats, members).
_REPORT_IDS, _REPORT_LOGINS = ("user_id",), ("user_login",)
_LISTING_IDS, _LISTING_LOGINS = ("id", "user_id", "member_id"), ("login", "user_login", "username", "name")
_PAYLOAD_LOGINS = ("login", "username", "name", "email")
_MENTION = re.compile(r"(?<![A-Za-z0-9_-])(@)([A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?)")
_AT_WORD = re.compile(r"@([A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?)")
_LOGIN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_NO_REPLY_LOGIN = re.compile(r"^(?:\d+\+)?([A-Za-z0-9][A-Za-z0-9_-]*)@users\.noreply\.", re.IGNORECASE)
# The same address in text, whole: it names the person by its id as well as its login.
_NO_REPLY_TEXT = re.compile(
    r"(?<![A-Za-z0-9_.+-])(?:(\d+)\+)?([A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?)@users\.noreply\.[A-Za-z0-9.-]*[A-Za-z0-9]",
    re.IGNORECASE,
)
# A team mention (`@acme/dev-00018`) ends here: the word after the slash is a team's slug, not a
# person, unless the organization is them. (A bare `alice/dev-00018` may be two people: erased.)
# A login is at most 39 characters: the window looked at before a word.
_OWNER_BEFORE = re.compile(r"(?<![A-Za-z0-9_-])@([A-Za-z0-9][A-Za-z0-9_-]*)/$")
# The keys that name another object (a repository, a team, a label) in an object with an id: kept,
# even when they spell the login (a repository `dev-00018` is not the person).
_OBJECT_NAMES = frozenset({"name", "slug"})


def _candidates(ids: tuple[str, ...], logins: tuple[str, ...]) -> re.Pattern[str]:
    """`"key": value` pairs of JSON text whose key names a person: group 1 the key, 2 the value."""
    keys = "|".join(ids + logins)
    return re.compile(rf'"({keys})"\s*:\s*("(?:[^"\\]|\\.)*"|\d+)')


_REPORT_CANDIDATE = _candidates(_REPORT_IDS, _REPORT_LOGINS)
_LISTING_CANDIDATE = _candidates(_LISTING_IDS, _LISTING_LOGINS)
_PAYLOAD_CANDIDATE = _candidates(("id",), _PAYLOAD_LOGINS)


def _hash(key: bytes, kind: str, value: str) -> str:
    return hmac.new(key, f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Person:
    """Whom an erasure removes: a user id and a login (lower case), either unknown; and the emails
    (lower case) and vendors' user ids naming them in the vendors' tables."""

    user_id: int | None
    login: str | None
    emails: tuple[str, ...] = ()
    vendor_ids: tuple[str, ...] = ()

    # The erasure knows the login: a bare word of text is tested too, not only an @mention.
    bare_logins = True

    def is_person(self, user_id: int | None, login: str | None) -> bool:
        return (user_id is not None and user_id == self.user_id) or (
            login is not None and self.login is not None and login.lower() == self.login
        )

    def is_login(self, word: str) -> bool:
        return self.login is not None and word.lower() == self.login

    def is_both(self, user_id: int, login: str) -> bool:
        return user_id == self.user_id and self.is_login(login)

    def report_line_pattern(self) -> str:
        """An RE2 and Python pattern of a report line naming the person by its user fields."""
        return self._pattern(_REPORT_IDS, _REPORT_LOGINS)

    def listing_pattern(self) -> str:
        """The same for a cached listing's body: any key that names people (a harmless excess: a
        cached answer removed is asked for again whole)."""
        return self._pattern(_LISTING_IDS, _LISTING_LOGINS)

    def _pattern(self, ids: tuple[str, ...], logins: tuple[str, ...]) -> str:
        parts = []
        if self.user_id is not None:
            # A number, or a string of it (a line quarantined for sending its id as one).
            parts.append(f'"({"|".join(ids)})"\\s*:\\s*"?{self.user_id}([^0-9]|$)')
        if self.login is not None:
            parts.append(f'(?i:"({"|".join(logins)})"\\s*:\\s*"{re.escape(self.login)}")')
        return "|".join(f"(?:{part})" for part in parts) or "$^"

    def suspects(self, text: str) -> bool:
        """Whether the text may name the person at all: the cheap test before a parse."""
        return (self.login is not None and self.login in text.lower()) or (
            self.user_id is not None and re.search(rf"(?<![0-9]){self.user_id}(?![0-9])", text) is not None
        )


def person_hashes(key: bytes, person: Person) -> set[str]:
    hashes = set()
    if person.user_id is not None:
        hashes.add(_hash(key, "id", str(person.user_id)))
    if person.login is not None:
        hashes.add(_hash(key, "login", person.login.lower()))
    hashes |= {_hash(key, "email", normal_email(email)) for email in person.emails}
    return hashes | {_hash(key, "vendor_id", vendor_id) for vendor_id in person.vendor_ids}


@dataclass(frozen=True)
class Forgotten:
    """The erased people's hashes, and the key to test an id or a login against them."""

    key: bytes
    hashes: frozenset[str]

    # Only hashes: testing every word of every text would cost a keyed hash each; @mentions are few.
    bare_logins = False

    def names(self, user_id: int | None, login: str | None) -> bool:
        return bool(person_hashes(self.key, Person(user_id, login)) & self.hashes)

    def is_person(self, user_id: int | None, login: str | None) -> bool:
        return self.names(user_id, login)

    def is_login(self, word: str) -> bool:
        return _hash(self.key, "login", word.lower()) in self.hashes

    def is_both(self, user_id: int, login: str) -> bool:
        return _hash(self.key, "id", str(user_id)) in self.hashes and self.is_login(login)

    def names_vendor_user(self, email: str | None, vendor_id: str | None) -> bool:
        """Whether a vendor's record of this email (or this vendor user id) is an erased person's."""
        return (email is not None and _hash(self.key, "email", normal_email(email)) in self.hashes) or (
            vendor_id is not None and _hash(self.key, "vendor_id", vendor_id) in self.hashes
        )

    def names_report_line(self, line: bytes) -> bool:
        """True when a report line names an erased person in its user fields."""
        return self._names(_REPORT_CANDIDATE, line.decode(errors="replace"), _REPORT_LOGINS)

    def names_line(self, body: bytes) -> bool:
        """True when a listing's body (or any JSON text) names or @mentions an erased person."""
        text = body.decode(errors="replace")
        return (
            self._names(_LISTING_CANDIDATE, text, _LISTING_LOGINS)
            or self._mentions(text)
            or _names_no_reply(text, self)
        )

    def suspects(self, text: str) -> bool:
        """Whether a payload may name or mention an erased person: no parse unless a value's hash
        matches (or an escape could hide a spelling from this scan)."""
        return (
            "\\u" in text
            or self._names(_PAYLOAD_CANDIDATE, text, _PAYLOAD_LOGINS)
            or self._mentions(text)
            or _names_no_reply(text, self)
        )

    def _names(self, candidates: re.Pattern[str], text: str, logins: tuple[str, ...]) -> bool:
        for match in candidates.finditer(text):
            key, value = match.group(1), match.group(2)
            if not value.startswith('"'):
                if _hash(self.key, "id", value) in self.hashes:
                    return True
                continue
            login = value[1:-1]
            if key not in logins and login.isascii() and login.isdigit():
                if _hash(self.key, "id", str(int(login))) in self.hashes:
                    return True
                continue
            if key == "email":
                found = _NO_REPLY_LOGIN.match(login)
                login = found[1] if found else ""
            if key in logins and login and self.is_login(login):
                return True
        return False

    def _mentions(self, text: str) -> bool:
        # `@` first, its word's start checked after: a scan for the literal runs several times faster.
        words = {m[1] for m in _AT_WORD.finditer(text) if m.start() == 0 or text[m.start() - 1] not in _LOGIN_CHARS}
        return any(self.is_login(word) for word in words)


Who = Person | Forgotten


def _no_reply_naming(match: re.Match[str], who: Who) -> bool:
    return who.is_person(int(match[1]) if match[1] else None, match[2])


def _names_no_reply(text: str, who: Who) -> bool:
    # `@users.noreply.` first: the literal is found far faster than the address's pattern.
    return "@users.noreply." in text.lower() and any(_no_reply_naming(m, who) for m in _NO_REPLY_TEXT.finditer(text))


def _logins_with_ids(document: object) -> Iterator[tuple[int, str]]:
    """(id, login) of every untyped object holding both, however deep: a user object without its
    `type` at a path no kind declares is a person when both are theirs (an organization sharing
    only the id is not; a typed one is judged by its type)."""
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            user_id, login = node.get("id"), node.get("login")
            typed = "type" in node
            if not typed and isinstance(user_id, int) and not isinstance(user_id, bool) and isinstance(login, str):
                yield user_id, login
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def redact_text(text: str, who: Who) -> str:
    """The text with the person's login (with its `@`, if any) replaced by PLACEHOLDER, and a
    no-reply address naming them (`<id>+<login>@users.noreply.<host>`) by PLACEHOLDER whole."""
    if _names_no_reply(text, who):
        text = _NO_REPLY_TEXT.sub(lambda m: PLACEHOLDER if _no_reply_naming(m, who) else m[0], text)

    def replaced(match: re.Match[str]) -> str:
        if not who.is_login(match[2]):
            return match[0]
        owner = None if match[1] else _OWNER_BEFORE.search(text, max(0, match.start() - 64), match.start())
        return match[0] if owner and not who.is_login(owner[1]) else match[1] + PLACEHOLDER

    return (LOGIN_TOKEN if who.bare_logins else _MENTION).sub(replaced, text)


def redact_document(node: object, who: Who) -> object:
    """A parsed JSON document with the login out of every string it holds (keys stay, and the
    names of objects with an id: a repository, team or label spelled like the login is not them)."""
    if isinstance(node, str):
        return redact_text(node, who)
    if isinstance(node, list):
        return [redact_document(item, who) for item in node]
    if isinstance(node, dict):
        named = "id" in node
        return {
            key: _redact_member(key, value, who) if named else redact_document(value, who)
            for key, value in node.items()
        }
    return node


def _redact_member(key: str, value: object, who: Who) -> object:
    """A member of an object with an id: its names kept; of its `full_name` (`owner/name`), only
    the owner can be the person."""
    if key in _OBJECT_NAMES:
        return value
    if key == "full_name" and isinstance(value, str) and "/" in value:
        owner, _, name = value.partition("/")
        return f"{redact_text(owner, who)}/{name}"
    return redact_document(value, who)


def screen_payload(event: str, text: str, who: Who, *, parse: Callable[[str], object] = json.loads) -> str | None:
    """A webhook payload as it may be kept: None when a person field of its kind names the
    person (the delivery goes), else the text with their login out of its strings (the same
    object when nothing was found). A text that is not JSON is treated as text."""
    if not who.suspects(text):
        return text
    try:
        document = parse(text)
        if any(who.is_person(user_id, login) for user_id, login in payload_people(event, document)) or any(
            who.is_both(user_id, login) for user_id, login in _logins_with_ids(document)
        ):
            return None
        redacted_document = redact_document(document, who)
    except (ValueError, RecursionError):
        redacted = redact_text(text, who)
        return text if redacted == text else redacted
    # ASCII: a lone surrogate the service sent stays an escape, as it came.
    return text if redacted_document == document else json.dumps(redacted_document)
