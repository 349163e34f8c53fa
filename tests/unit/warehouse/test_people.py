"""Whom erasure matches: a person only in the person fields each payload kind declares, never
another object's id, and their login in free text only whole, in any case, never inside a longer
login; the same answers from the erasure (`Person`) and a later landing (`Forgotten`, hashes only)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pipelines.service.people import EVERY_KIND, PERSON_FIELDS, payload_people
from pipelines.warehouse.people import PLACEHOLDER, Forgotten, Person, person_hashes, redact_text, screen_payload

KEY = b"a-test-key"
ERASED = Person(1000043, "dev-00018")
FORGOTTEN = Forgotten(KEY, frozenset(person_hashes(KEY, ERASED)))
REFERENCE = Path(__file__).resolve().parents[4] / "shared" / "reference" / "webhooks"
OTHER = {"login": "someone-else", "id": 7, "type": "User"}


def _as(who: dict[str, object]) -> dict[str, object]:
    return {**who, "type": "User"}


def _push(repo_id: int, sender: dict[str, object]) -> dict[str, object]:
    return {
        "ref": "refs/heads/main",
        "repository": {
            "id": repo_id,
            "full_name": "acme/widgets",
            "owner": {"login": "acme", "id": 5, "type": "Organization"},
        },
        "organization": {"login": "acme", "id": ERASED.user_id},
        "pusher": {"name": sender["login"], "email": None},
        "commits": [{"id": "abc", "author": {"name": "Dev", "username": sender["login"]}}],
        "sender": sender,
    }


def _issue(issue_id: int, sender: dict[str, object], body: str = "") -> dict[str, object]:
    return {
        "action": "opened",
        "issue": {"id": issue_id, "number": 12, "title": "a bug", "body": body, "user": sender, "assignees": []},
        "repository": {"id": 99, "full_name": "acme/widgets"},
        "sender": sender,
    }


ERASED_USER = _as({"login": "Dev-00018", "id": 1000043})


@pytest.mark.parametrize("who", [ERASED, FORGOTTEN], ids=["erasure", "landing"])
@pytest.mark.parametrize(
    ("event", "payload", "named"),
    [
        ("push", _push(1000043, OTHER), False),  # a repository whose id is the user id
        ("issues", _issue(1000043, OTHER), False),  # an issue whose id is the user id
        ("push", _push(99, ERASED_USER), True),
        ("push", {**_push(99, OTHER), "pusher": {"name": "dev-00018", "email": None}}, True),
        ("push", {**_push(99, OTHER), "commits": [{"author": {"name": "x", "username": "DEV-00018"}}]}, True),
        (
            "push",
            {
                **_push(99, OTHER),
                "head_commit": {"committer": {"name": "x", "email": "1000043+dev-00018@users.noreply.example.com"}},
            },
            True,
        ),
        ("issues", _issue(5, OTHER) | {"issue": {"id": 5, "assignees": [OTHER, ERASED_USER]}}, True),
        ("issues", _issue(5, ERASED_USER), True),
        (
            "pull_request",
            {"pull_request": {"id": 1000043, "user": OTHER, "requested_reviewers": [ERASED_USER]}, "sender": OTHER},
            True,
        ),
        ("pull_request", {"pull_request": {"id": 1000043, "user": OTHER}, "sender": OTHER}, False),
        ("member", {"member": ERASED_USER, "sender": OTHER}, True),
        ("membership", {"membership": {"user": ERASED_USER}, "sender": OTHER}, True),
        ("issue_comment", {"comment": {"id": 1000043, "user": ERASED_USER}, "sender": OTHER}, True),
        ("issue_comment", {"comment": {"id": 1000043, "user": OTHER}, "sender": OTHER}, False),
        # An owner names a person only when it is a user, never an organization of that id or login.
        ("push", {**_push(99, OTHER), "repository": {"id": 3, "owner": ERASED_USER}}, True),
        (
            "push",
            {
                **_push(99, OTHER),
                "repository": {"id": 3, "owner": {"login": "dev-00018", "id": 1000043, "type": "Organization"}},
            },
            False,
        ),
        # A kind nobody declared: its sender still names a person, nothing else of it does.
        ("star", {"starred_at": None, "repository": {"id": 1000043}, "sender": ERASED_USER}, True),
        ("star", {"repository": {"id": 1000043}, "sender": OTHER, "thing": {"id": 1000043}}, False),
        # A user object anywhere (a kind or path not declared) is a person; an issue type of that id is not.
        ("deployment", {"deployment": {"id": 1000043, "creator": ERASED_USER}, "sender": OTHER}, True),
        ("issues", _issue(5, OTHER) | {"issue": {"id": 5, "type": {"id": 1000043, "name": "dev-00018"}}}, False),
    ],
)
def test_a_delivery_names_a_person_only_in_the_person_fields_of_its_kind(who, event, payload, named):
    kept = screen_payload(event, json.dumps(payload), who)
    assert (kept is None) == named


@pytest.mark.parametrize("kind", ["issues.opened", "pull_request.opened", "push"])
def test_every_user_of_the_services_reference_payloads_is_in_a_declared_field(kind):
    """The reference payloads' users are all Codertocat (21031067) but one reviewer, octocat: each
    appears in the declared paths, so forgetting either drops the delivery."""
    payload = json.loads((REFERENCE / f"{kind}.json").read_text())
    event = kind.split(".")[0]
    found = set(payload_people(event, payload))
    assert (21031067, "Codertocat") in found
    if kind == "pull_request.opened":
        assert (5346, "octocat") in found
    for erased in (Person(21031067, None), Person(None, "codertocat")):
        assert screen_payload(event, json.dumps(payload), erased) is None
    # Their id as a repository's, issue's or anything else's id names nobody.
    assert screen_payload(event, json.dumps(payload), Person(int(payload["repository"]["id"]), None)) is not None


def test_the_declaration_names_each_kind_the_emulator_and_receiver_land():
    assert {"push", "issues", "pull_request"} <= set(PERSON_FIELDS)
    assert "sender" in {field.path for field in EVERY_KIND}
    assert all(field.path != "organization" for fields in PERSON_FIELDS.values() for field in fields)


@pytest.mark.parametrize(
    ("text", "erasure", "landing"),
    [
        ("as discussed with @dev-00018", "as discussed with @[erased]", "as discussed with @[erased]"),
        ("thanks @Dev-00018, and dev-00018.", "thanks @[erased], and [erased].", "thanks @[erased], and dev-00018."),
        ("cc @dev-000180 and @xdev-00018 and dev-00018-x", None, None),
        ("(@DEV-00018)", "(@[erased])", "(@[erased])"),
        ("mail dev-00018@example.com", "mail [erased]@example.com", None),
        ("someone@dev-00018", "someone@[erased]", None),  # a domain is not a mention
    ],
)
def test_a_login_in_text_is_replaced_whole_in_any_case(text, erasure, landing):
    assert redact_text(text, ERASED) == (erasure or text)
    assert redact_text(text, FORGOTTEN) == (landing or text)


_LOGIN = st.from_regex(r"[a-z0-9]([a-z0-9]|-(?=[a-z0-9])){0,12}", fullmatch=True).filter(lambda s: s[-1] != "-")
_SEPARATOR = st.sampled_from([" ", ", ", ". ", "\n", "(", ")", ": ", "!", "'", '"', "/"])


@given(
    login=_LOGIN,
    words=st.lists(
        st.tuples(st.sampled_from(["self", "longer", "prefixed", "other"]), st.booleans(), st.booleans(), _SEPARATOR),
        max_size=8,
    ),
    other=_LOGIN,
)
def test_mentions_of_exactly_the_login_are_replaced_and_every_other_word_stays(login, words, other):
    person = Person(1, login)
    forgotten = Forgotten(KEY, frozenset(person_hashes(KEY, person)))
    parts, expected_erasure, expected_landing = [], [], []
    team_slug_next = False  # after `@org/`, a bare word is a team's slug (unless the org is them)
    for kind, mention, upper, separator in words:
        word = {"self": login, "longer": login + "0", "prefixed": "x" + login, "other": other}[kind]
        shown = word.upper() if upper else word
        text = ("@" if mention else "") + shown
        is_them = word == login
        parts.append(text + separator)
        erased = is_them and (mention or not team_slug_next)
        expected_erasure.append((("@" if mention else "") + PLACEHOLDER if erased else text) + separator)
        team_slug_next = mention and not is_them and separator == "/"
        expected_landing.append(("@" + PLACEHOLDER if is_them and mention else text) + separator)
    text = "".join(parts)
    assert redact_text(text, person) == "".join(expected_erasure)
    assert redact_text(text, forgotten) == "".join(expected_landing)
    # A delivery of someone else whose body mentions them lands with the placeholder, parsed as JSON again.
    payload = json.dumps({"issue": {"id": 1, "body": text, "user": OTHER}, "sender": OTHER})
    kept = screen_payload("issues", payload, forgotten)
    assert kept is not None and json.loads(kept)["issue"]["body"] == "".join(expected_landing)


_IDS = st.sampled_from([1000043, 7, 99])
# Objects that are not people, holding the erased id (and login, as a name or a slug) anywhere.
_THING = st.recursive(
    st.one_of(_IDS, st.sampled_from(["dev-00018", "Dev-00018", "acme"]), st.none()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.fixed_dictionaries(
            {"id": _IDS},
            optional={
                "name": inner,
                "slug": inner,
                "login": inner,
                "type": st.sampled_from(["Organization", "Team", "Bot"]),
            },
        ),
    ),
    max_leaves=12,
)


def _declared_paths(event: str) -> list[tuple[str, ...]]:
    fields = (*EVERY_KIND, *PERSON_FIELDS.get(event, ()))
    return [tuple(field.path.split(".")) for field in fields if field.id_key == "id" and field.only_type is None]


def _put(document: dict[str, object], path: tuple[str, ...], value: object) -> None:
    node = document
    for step in path[:-1]:
        if not isinstance(node.get(step), dict):
            node[step] = {}
        node = node[step]  # type: ignore[assignment]
    last = path[-1]
    node[last.removesuffix("[]")] = [value] if last.endswith("[]") else value


def _holds_the_account(node: object) -> bool:
    if isinstance(node, list):
        return any(_holds_the_account(item) for item in node)
    if not isinstance(node, dict):
        return False
    login = node.get("login")
    mine = "type" not in node and node.get("id") == 1000043 and isinstance(login, str) and login.lower() == "dev-00018"
    return mine or any(_holds_the_account(value) for value in node.values())


@given(
    event=st.sampled_from([*PERSON_FIELDS, "star"]),
    things=st.dictionaries(
        st.sampled_from(["repository", "issue", "organization", "team", "extra", "installation"]), _THING, max_size=4
    ),
    where=st.data(),
)
def test_another_objects_id_or_name_never_names_a_person_and_a_declared_field_always_does(event, things, where):
    """Whatever holds the erased id or login that is not a person (a repository, an issue, an
    organization, a team, a bot), the delivery is someone else's and lands; the erased person at
    any declared path of its kind makes it theirs. (An untyped object holding both their id and
    their login is their account: test_an_untyped_object_holding_both_the_id_and_the_login_is_the_person.)"""
    assume(not _holds_the_account(things))
    document: dict[str, object] = {**things, "sender": OTHER}
    for who in (ERASED, FORGOTTEN):
        assert screen_payload(event, json.dumps(document), who) is not None
    path = where.draw(st.sampled_from(_declared_paths(event)))
    _put(document, path, {"login": "dev-00018", "id": 1000043})
    for who in (ERASED, FORGOTTEN):
        assert screen_payload(event, json.dumps(document), who) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A co-author trailer of someone else's commit: the no-reply address names the id too.
        (
            "fix\n\nCo-authored-by: D <1000043+dev-00018@users.noreply.example.com>",
            "fix\n\nCo-authored-by: D <[erased]>",
        ),
        ("mail 1000043+DEV-00018@Users.NoReply.example.com.", "mail [erased]."),
        ("old form dev-00018@users.noreply.example.com", "old form [erased]"),
        ("renamed since: 1000043+new-login@users.noreply.example.com", "renamed since: [erased]"),
        ("someone else: 1000044+dev-000180@users.noreply.example.com", None),
    ],
)
def test_a_no_reply_address_naming_the_person_by_id_or_login_is_replaced_whole_now_and_later(text, expected):
    """Issue 42 attack: `1000043+[erased]@users.noreply…` kept the user id in other people's
    commit messages, and a later delivery kept the whole address (it is no @mention)."""
    for who in (ERASED, FORGOTTEN):
        assert redact_text(text, who) == (expected or text)
        commit = {"message": text, "author": {"name": "o", "username": "someone-else"}}
        kept = screen_payload("push", json.dumps({"commits": [commit], "sender": OTHER}), who)
        assert kept is not None and json.loads(kept)["commits"][0]["message"] == (expected or text)


@pytest.mark.parametrize(
    ("text", "erasure", "landing"),
    [
        ("cc @acme/dev-00018 (the team)", None, None),
        ("@dev-00018/team", "@[erased]/team", "@[erased]/team"),  # the organization is no team
        # A bare slash may join two people ("pair: alice/dev-00018"): erased, a repository too.
        ("pair: acme/Dev-00018", "pair: acme/[erased]", None),
        ("see dev-00018/tools and https://host/dev-00018", "see [erased]/tools and https://host/[erased]", None),
        ("their own: dev-00018/dev-00018", "their own: [erased]/[erased]", None),
        ("a fork: github.com/dev-00018", "a fork: github.com/[erased]", None),
    ],
)
def test_a_team_mention_spelled_like_the_login_stays_in_text(text, erasure, landing):
    """Issue 42 attack: a login that is also a team's slug; `@acme/dev-00018` mentions the team,
    not the person."""
    assert redact_text(text, ERASED) == (erasure or text)
    assert redact_text(text, FORGOTTEN) == (landing or text)


_NAME = st.sampled_from(["dev-00018", "Dev-00018", "DEV-00018"])


@given(
    event=st.sampled_from([*PERSON_FIELDS, "star"]),
    objects=st.lists(
        st.tuples(
            st.sampled_from(["repository", "team", "label", "milestone", "installation", "organization"]),
            st.fixed_dictionaries(
                {"id": _IDS},
                optional={"name": _NAME, "slug": _NAME, "full_name": _NAME.map(lambda name: f"acme/{name}")},
            ),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_another_object_named_like_the_login_is_kept_unchanged_by_the_erasure_and_later(event, objects):
    """Issue 42 attack: a repository, team or label named `dev-00018` in someone else's delivery
    was renamed `[erased]` by the erasure: it is not the person, and stays as it came. (A
    repository the person owns, `dev-00018/tools`, loses its owner: test_forget_replaces_the_login_in_the_columns...)"""
    document: dict[str, object] = {**dict(objects), "sender": OTHER}
    for who in (ERASED, FORGOTTEN):
        kept = screen_payload(event, json.dumps(document), who)
        assert kept is not None and json.loads(kept) == document


@pytest.mark.parametrize(
    ("thing", "named"),
    [
        ({"user": {"login": "DEV-00018", "id": 1000043}}, True),  # an untyped user object, a path no kind declares
        ({"comment": {"id": 5, "author": {"login": "dev-00018", "id": 1000043, "site_admin": False}}}, True),
        ({"organization": {"login": "acme", "id": 1000043}}, False),  # only the id: an organization of that id
        ({"thing": {"login": "dev-000180", "id": 1000043}}, False),
    ],
)
def test_an_untyped_object_holding_both_the_id_and_the_login_is_the_person(thing, named):
    """Issue 42 attack: `{"login": "dev-00018", "id": 1000043}` without a `type`, at a path no kind
    declares (a discussion's or a commit comment's user), landed with the person's id, only its
    login replaced."""
    payload = json.dumps({"discussion": thing, "sender": OTHER})
    for who in (ERASED, FORGOTTEN):
        assert (screen_payload("discussion", payload, who) is None) == named


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ('{"user_id": "1000043", "user_login": "someone"}', True),  # quarantined for its id's type
        ('{"user_id":1000043,"user_login":"someone"}', True),
        ('{"user_id": "10000430", "user_login": "someone"}', False),
        ('{"user_id": 7, "user_login": "1000043"}', False),  # a login of digits is no id
        ('{"user_id": 7, "user_login": "DEV-00018"}', True),
    ],
)
def test_a_report_line_names_the_person_by_an_id_sent_as_a_string_too(line, named):
    """Issue 42 attack: `forget 1000043` left `"user_id": "1000043"` in the quarantine and the
    raw archive, and a later fetch set it aside again."""
    assert (re.search(ERASED.report_line_pattern(), line) is not None) == named
    assert FORGOTTEN.names_report_line(line.encode()) == named
