"""Attacks on "a record of one snapshot listing that cannot land is left out alone" (docs/snapshots.md),
through the real snapshot collection and HTTP client (the service answered as this area's tests
do): seats whose values no column takes (an id over 64 bits, an object where text goes) were a
ComputeError building the listing's frame, so the snapshot failed with a traceback; now each is
left out alone with a warning naming its place and field, never its text, and everything else
lands. A seat with a null assignee (and a null team) is an unassigned seat, in an organization's
and an enterprise's listing alike, and so is every seat of a listing that holds only such."""

from __future__ import annotations

import duckdb
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.config import Secret, Settings
from pipelines.defs.snapshots.checks import SNAPSHOT_CHECKS
from pipelines.ingest.snapshots import SnapshotFailed, SnapshotSettings, run_snapshot
from pipelines.service import RetryPolicy, ServiceClient
from pipelines.warehouse import migrate
from pipelines.warehouse.checks import CheckOutcome, run_checks
from pipelines.warehouse.erasure import Forgotten, Person, person_hashes
from tests.unit.ingest.test_snapshots import _REPOS, _SEAT, DAY, _collect, _service

_HOSTILE = {
    "an id over 64 bits": (_SEAT | {"assignee": {"id": 2**70, "login": "bob"}}, "user_id is not an integer id"),
    "a team id over 64 bits": (
        _SEAT | {"assigning_team": {"id": 2**64, "slug": "bob"}},
        "assigning_team_id is not an integer id",
    ),
    "a team id as text": (
        _SEAT | {"assigning_team": {"id": "7", "slug": "bob"}},
        "assigning_team_id is not an integer id",
    ),
    "an object as the plan": (_SEAT | {"plan_type": {"bob": 1}}, "plan_type is not text"),
    "a list as the editor": (_SEAT | {"last_activity_editor": ["bob"]}, "last_activity_editor is not text"),
    "a number as the login": (_SEAT | {"assignee": {"id": 6, "login": 12}}, "login is not text"),
    "an organization id over 64 bits": (
        _SEAT | {"organization": {"login": "acme", "id": 2**70}},
        "organization_id is not an integer id",
    ),
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
        path, endpoint, where = (
            "/enterprises/acme-corp/assistant/billing/seats",
            "enterprise_seat_records",
            "enterprise 'acme-corp'",
        )
        frame = "enterprise_seats"
        result = _collect(tmp_path, _listing(path, [_SEAT, seat, unassigned]), enterprises=("acme-corp",))
    assert result.frames[frame]["user_id"].to_list() == [5]
    assert result.frames["unassigned_seats"].filter(result.frames["unassigned_seats"]["scope"] == scope)[
        "seat_number"
    ].to_list() == [1]
    (left_out,) = [w for w in result.warnings if w.endpoint == endpoint]
    assert left_out.message.startswith(f"1 left out: seat 1 of {where}") and left_out.message.endswith(why)
    assert "bob" not in left_out.message and "2361183241434822606848" not in left_out.message
    assert result.frames["repositories"].height == 2 and result.frames["org_members"].height == 1
    assert result.frames["issues"].height == 1


@pytest.mark.parametrize("enterprise", [False, True], ids=["organization", "enterprise"])
def test_a_listing_of_only_null_assignees_lands_every_seat_unassigned_and_counted(tmp_path, enterprise):
    seats = [{"assignee": None, "assigning_team": None, "plan_type": "business"}] * 3
    if enterprise:
        result = _collect(
            tmp_path, _listing("/enterprises/acme-corp/assistant/billing/seats", seats), enterprises=("acme-corp",)
        )
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


@pytest.mark.parametrize(
    ("path", "listing", "frame", "key", "endpoint", "why"),
    [
        (
            "/orgs/acme/repos",
            [*_REPOS, {"id": None, "full_name": "acme/x", "name": "x", "owner": {"login": "acme"}}],
            "repositories",
            "repository_id",
            "repository_records",
            "repository 2 has a null id",
        ),
        (
            "/orgs/acme/members",
            [{"id": 5, "login": "ann"}, {"id": None, "login": "bob"}, None],
            "org_members",
            "member_id",
            "member_records",
            "member of acme 1 has a null id",
        ),
        (
            "/repos/acme/open/issues",
            [{"id": 70, "number": 1}, {"id": None, "number": 2, "user": {"login": "bob"}}],
            "issues",
            "issue_id",
            "issue_records",
            "issue of acme/open 1 has a null id",
        ),
    ],
    ids=["repository", "member", "issue"],
)
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

    with pytest.raises(
        SnapshotFailed,
        match=r"organization 'acme' failed listing its seats: .* answered no "
        r"total_seats count",
    ):
        _collect(tmp_path, huge)


_ORG_PATH, _ENTERPRISE_PATH = "/orgs/acme/assistant/billing/seats", "/enterprises/acme-corp/assistant/billing/seats"


def _land(
    conn: duckdb.DuckDBPyConnection,
    tmp_path,
    path: str,
    seats: list[object],
    *,
    total: int | None = None,
    forgotten: Forgotten | None = None,
) -> dict[str, CheckOutcome]:
    """Snapshot `seats` as the listing at `path` (its total_seats as given, else one per seat) into
    `conn` by the real snapshot path, then run every snapshot check: name → outcome."""
    listing = _listing(path, seats)

    def service(request: httpx.Request) -> httpx.Response:
        answer = listing(request)
        if total is not None and request.url.path == path:
            return httpx.Response(200, json={**answer.json(), "total_seats": total})
        return answer

    config = Settings(base_url="http://127.0.0.1:9", token=Secret("t"), etag_cache=tmp_path / "cache.sqlite3")
    enterprises = ("acme-corp",) if path == _ENTERPRISE_PATH else ()
    with ServiceClient(
        config=config.service_config(), transport=httpx.MockTransport(service), retry=RetryPolicy(max_attempts=1)
    ) as client:
        run_snapshot(
            client,
            conn,
            settings=SnapshotSettings(orgs=("acme",), enterprises=enterprises),
            day=DAY,
            forgotten=forgotten,
        )
    return {o.check.name: o for o in run_checks(conn, SNAPSHOT_CHECKS)}


@pytest.fixture
def warehouse(tmp_path):
    conn = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(conn)
    yield conn
    conn.close()


@pytest.mark.parametrize("scope", ["organization", "enterprise"])
@pytest.mark.parametrize("name", ["an id over 64 bits", "an empty assignee", "a string assignee"])
def test_a_seat_that_cannot_land_passes_the_blocking_check_and_warns_with_its_count_and_listing(
    tmp_path, warehouse, scope, name
):
    """It failed seat_snapshot_complete (landed 2 of 3), which held back the day's publish."""
    seat, _ = _HOSTILE[name]
    unassigned = {"plan_type": "business", "assignee": None, "assigning_team": None}
    path, complete, landed = (
        (_ORG_PATH, "seat_snapshot_complete", "seats_landed")
        if scope == "organization"
        else (_ENTERPRISE_PATH, "enterprise_seat_snapshot_complete", "enterprise_seats_landed")
    )
    outcomes = _land(warehouse, tmp_path, path, [_SEAT, seat, unassigned])
    assert outcomes[complete].passed and outcomes[complete].check.blocking
    assert not outcomes[landed].passed and not outcomes[landed].check.blocking
    expected = (
        "acme 2026-11-20: 1 of 3 seats left out"
        if scope == "organization"
        else "acme-corp 2026-11-20: up to 1 of 3 seat holders left out"
    )
    assert (outcomes[landed].failures, outcomes[landed].detail) == (1, expected)
    # It names how many and whose listing, never the seat's value or holder; the repository
    # check is about repositories only.
    assert "bob" not in outcomes[landed].detail and "2361183241434822606848" not in outcomes[landed].detail
    assert "seat" not in (outcomes["no_skipped_repositories"].detail or "")
    assert all(o.passed for o in outcomes.values() if o.check.blocking)
    assert warehouse.execute("SELECT count(*) FROM snapshots.repositories").fetchone() == (2,)
    assert warehouse.execute("SELECT count(*) FROM snapshots.org_members").fetchone() == (1,)
    assert warehouse.execute("SELECT count(*) FROM snapshots.issues").fetchone() == (1,)


@pytest.mark.parametrize("path", [_ORG_PATH, _ENTERPRISE_PATH], ids=["organization", "enterprise"])
def test_a_seat_left_out_does_not_hide_a_seat_lost_from_the_listing(tmp_path, warehouse, path):
    """The count is of the seats that could not land, not a licence: one seat more in the total
    than landed + unassigned + left out (a page lost) still fails the blocking check, and so does
    an organization's total below what landed (an enterprise's left-out holders are a bound: a
    seat whose holder cannot be read may be of a holder that landed)."""
    complete = "seat_snapshot_complete" if path == _ORG_PATH else "enterprise_seat_snapshot_complete"
    seat, _ = _HOSTILE["an id over 64 bits"]
    assert _land(warehouse, tmp_path, path, [_SEAT, seat], total=2)[complete].passed
    assert not _land(warehouse, tmp_path, path, [_SEAT, seat], total=3)[complete].passed
    assert _land(warehouse, tmp_path, path, [_SEAT, seat], total=1)[complete].passed == (path == _ENTERPRISE_PATH)
    assert not _land(warehouse, tmp_path, path, [_SEAT, seat], total=0)[complete].passed


def test_a_broken_copy_of_a_seat_that_landed_is_not_counted_as_missing(tmp_path, warehouse):
    """A seat listed twice (it moved between pages) whose second copy cannot land is one seat."""
    seat, _ = _HOSTILE["an object as the plan"]  # assignee id 5, as _SEAT's
    outcomes = _land(warehouse, tmp_path, _ORG_PATH, [_SEAT, seat], total=1)
    assert outcomes["seat_snapshot_complete"].passed and outcomes["seats_landed"].passed
    assert warehouse.execute("SELECT left_out_seats FROM snapshots.seat_totals").fetchall() == [(0,)]


def test_an_erased_holder_and_a_seat_that_cannot_land_are_counted_apart(tmp_path, warehouse):
    key = b"a key"
    forgotten = Forgotten(key, frozenset(person_hashes(key, Person(5, "ann"))))
    seat, _ = _HOSTILE["a string assignee"]
    bob = _SEAT | {"assignee": {"id": 6, "login": "bob"}}
    outcomes = _land(warehouse, tmp_path, _ORG_PATH, [_SEAT, seat, bob], forgotten=forgotten)
    assert warehouse.execute(
        "SELECT total_seats, erased_seats, left_out_seats FROM snapshots.seat_totals"
    ).fetchall() == [(3, 1, 1)]
    assert outcomes["seat_snapshot_complete"].passed
    assert outcomes["seats_landed"].detail == "acme 2026-11-20: 1 of 3 seats left out"


# How a listing may send a holder's seat: landable, broken so that no column takes it (the holder
# still readable), or with a holder that cannot be read.
_GRANT = st.sampled_from(["good", "no column", "string assignee", "empty assignee"])
_UNREADABLE = ("string assignee", "empty assignee")


def _seat_of(holder: int, kind: str, grant: int = 0) -> dict[str, object]:
    seat = _SEAT | {
        "assignee": {"id": holder, "login": f"u{holder}"},
        "organization": {"login": f"org{grant}", "id": grant + 1},
    }
    return (
        seat
        | {
            "good": {},
            "no column": {"plan_type": {"x": 1}},
            "string assignee": {"assignee": f"u{holder}"},
            "empty assignee": {"assignee": {}},
        }[kind]
    )


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    holders=st.lists(st.tuples(st.booleans(), st.lists(_GRANT, min_size=1, max_size=3)), max_size=6),
    unassigned=st.integers(0, 2),
    enterprise=st.booleans(),
)
def test_any_listing_of_broken_seats_passes_the_blocking_check_and_warns_of_the_holders_missing(
    tmp_path, warehouse, holders, unassigned, enterprise
):
    """Holders (an id over 64 bits, or not) with one seat (an organization) or one per grant (an
    enterprise), some broken; total_seats is the service's: holders + unassigned seats. The
    blocking check passes whatever is broken; the warning names the listing exactly when a seat
    is missing, with the count: an organization's seats left out, an enterprise's holders
    without a landed grant, plus each grant whose holder cannot be read (it may be anyone's)."""
    if not enterprise:
        holders = [(huge, grants[:1]) for huge, grants in holders]
    seats: list[object] = [
        _seat_of(2**64 + h if huge else h + 10, kind, grant)
        for h, (huge, grants) in enumerate(holders)
        for grant, kind in enumerate(grants)
    ]
    seats += [{"plan_type": "business", "assignee": None}] * unassigned
    path, complete, landed, totals = (
        (_ENTERPRISE_PATH, "enterprise_seat_snapshot_complete", "enterprise_seats_landed", "enterprise_seat_totals")
        if enterprise
        else (_ORG_PATH, "seat_snapshot_complete", "seats_landed", "seat_totals")
    )
    outcomes = _land(warehouse, tmp_path, path, seats, total=len(holders) + unassigned)
    assert outcomes[complete].passed, outcomes[complete].detail

    def left_out(huge: bool, grants: list[str]) -> int:
        if huge:  # no grant of it lands: one holder, or one per unreadable grant
            return int(any(g not in _UNREADABLE for g in grants)) + sum(g in _UNREADABLE for g in grants)
        return int("good" not in grants and "no column" in grants) + sum(g in _UNREADABLE for g in grants)

    expected = sum(left_out(huge, grants) for huge, grants in holders)
    column = "left_out_holders" if enterprise else "left_out_seats"
    assert warehouse.execute(f"SELECT {column} FROM snapshots.{totals}").fetchall() == [(expected,)]
    assert outcomes[landed].passed == (expected == 0)
