"""Attacks on "a record of one snapshot listing that cannot land is left out alone" (docs/snapshots.md),
through the real snapshot collection and HTTP client (the service answered as this area's tests
do): seats whose values no column takes (an id over 64 bits, an object where text goes) were a
ComputeError building the listing's frame, so the snapshot failed with a traceback; now each is
left out alone with a warning naming its place and field, never its text, and everything else
lands. A seat with a null assignee (and a null team) is an unassigned seat, in an organization's
and an enterprise's listing alike, and so is every seat of a listing that holds only such."""

from __future__ import annotations

import httpx
import pytest

from pipelines.ingest.snapshots import SnapshotFailed
from tests.unit.ingest.test_snapshots import _REPOS, _SEAT, _collect, _service

_HOSTILE = {
    "an id over 64 bits": (_SEAT | {"assignee": {"id": 2**70, "login": "bob"}}, "user_id is not an integer id"),
    "a team id over 64 bits": (_SEAT | {"assigning_team": {"id": 2**64, "slug": "bob"}},
                               "assigning_team_id is not an integer id"),
    "a team id as text": (_SEAT | {"assigning_team": {"id": "7", "slug": "bob"}},
                          "assigning_team_id is not an integer id"),
    "an object as the plan": (_SEAT | {"plan_type": {"bob": 1}}, "plan_type is not text"),
    "a list as the editor": (_SEAT | {"last_activity_editor": ["bob"]}, "last_activity_editor is not text"),
    "a number as the login": (_SEAT | {"assignee": {"id": 6, "login": 12}}, "login is not text"),
    "an organization id over 64 bits": (_SEAT | {"organization": {"login": "acme", "id": 2**70}},
                                        "organization.id is not an integer id"),
    "an empty assignee": (_SEAT | {"assignee": {}}, "has an assignee without an integer id"),
    "a string assignee": (_SEAT | {"assignee": "bob"}, "has an assignee without an integer id"),
}


def _listing(path: str, seats: list[object]):
    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path == path:
            page = request.url.params["page"]
            return httpx.Response(200, json={"total_seats": len(seats), "seats": seats if page == "1" else []})
        return _service(request)

    return service


@pytest.mark.parametrize("scope", ["organization", "enterprise"])
@pytest.mark.parametrize("name", list(_HOSTILE))
def test_a_seat_no_column_can_take_is_left_out_alone_and_the_snapshot_lands(tmp_path, scope, name):
    seat, why = _HOSTILE[name]
    unassigned = {"plan_type": "business", "assignee": None, "assigning_team": None}
    if scope == "organization":
        path, endpoint, where = "/orgs/acme/assistant/billing/seats", "seat_records", "organization 'acme'"
        frame = "seats"
        result = _collect(tmp_path, _listing(path, [_SEAT, seat, unassigned]))
    else:
        path, endpoint, where = "/enterprises/acme-corp/assistant/billing/seats", "enterprise_seat_records", \
            "enterprise 'acme-corp'"
        frame = "enterprise_seats"
        result = _collect(tmp_path, _listing(path, [_SEAT, seat, unassigned]), enterprises=("acme-corp",))
    assert result.frames[frame]["user_id"].to_list() == [5]
    assert result.frames["unassigned_seats"].filter(
        result.frames["unassigned_seats"]["scope"] == scope)["seat_number"].to_list() == [1]
    (left_out,) = [w for w in result.warnings if w.endpoint == endpoint]
    assert left_out.message.startswith(f"1 left out: seat 1 of {where}") and left_out.message.endswith(why)
    assert "bob" not in left_out.message and "2361183241434822606848" not in left_out.message
    assert result.frames["repositories"].height == 2 and result.frames["org_members"].height == 1
    assert result.frames["issues"].height == 1


@pytest.mark.parametrize("enterprise", [False, True], ids=["organization", "enterprise"])
def test_a_listing_of_only_null_assignees_lands_every_seat_unassigned_and_counted(tmp_path, enterprise):
    seats = [{"assignee": None, "assigning_team": None, "plan_type": "business"}] * 3
    if enterprise:
        result = _collect(tmp_path, _listing("/enterprises/acme-corp/assistant/billing/seats", seats),
                          enterprises=("acme-corp",))
        assert result.frames["enterprise_seats"].height == 0
        assert result.frames["enterprise_seat_totals"]["total_seats"].to_list() == [3]
    else:
        result = _collect(tmp_path, _listing("/orgs/acme/assistant/billing/seats", seats))
        assert result.frames["seats"].height == 0
        assert result.frames["seat_totals"]["total_seats"].to_list() == [3]
    scope = "enterprise" if enterprise else "organization"
    unassigned = result.frames["unassigned_seats"].filter(result.frames["unassigned_seats"]["scope"] == scope)
    assert unassigned["seat_number"].to_list() == [1, 2, 3]
    assert not [w for w in result.warnings if w.status == 200]


@pytest.mark.parametrize(("path", "listing", "frame", "key", "endpoint", "why"), [
    ("/orgs/acme/repos", [*_REPOS, {"id": None, "full_name": "acme/x", "name": "x", "owner": {"login": "acme"}}],
     "repositories", "repository_id", "repository_records", "repository 2 has a null id"),
    ("/orgs/acme/members", [{"id": 5, "login": "ann"}, {"id": None, "login": "bob"}, None],
     "org_members", "member_id", "member_records", "member of acme 1 has a null id"),
    ("/repos/acme/open/issues", [{"id": 70, "number": 1}, {"id": None, "number": 2, "user": {"login": "bob"}}],
     "issues", "issue_id", "issue_records", "issue of acme/open 1 has a null id"),
], ids=["repository", "member", "issue"])
def test_a_record_with_a_null_id_is_left_out_alone_never_landed_without_its_key(
    tmp_path, path, listing, frame, key, endpoint, why
):
    """A repository whose id is null landed as a row without its key; now it is left out alone."""
    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path == path:
            return httpx.Response(200, json=listing if request.url.params.get("page", "1") == "1" else [])
        return _service(request)

    result = _collect(tmp_path, service)
    assert result.frames[frame][key].null_count() == 0
    assert result.frames[frame].height == len([r for r in listing if isinstance(r, dict) and r.get("id")])
    (left_out,) = [w for w in result.warnings if w.endpoint == endpoint]
    assert why in left_out.message and "bob" not in left_out.message
    assert result.frames["seats"].height == 1 and result.frames["org_members"].height >= 1


def test_a_seat_total_over_64_bits_fails_the_snapshot_in_one_line_naming_the_listing(tmp_path):
    """It was a TypeError from building the totals frame."""
    service = _listing("/orgs/acme/assistant/billing/seats", [_SEAT])

    def huge(request: httpx.Request) -> httpx.Response:
        answer = service(request)
        if request.url.path.endswith("/billing/seats"):
            return httpx.Response(200, json={**answer.json(), "total_seats": 2**70})
        return answer

    with pytest.raises(SnapshotFailed, match=r"organization 'acme' failed listing its seats: .* answered no "
                                             r"total_seats count"):
        _collect(tmp_path, huge)
