import math
from datetime import date

import pytest

from emulator import EmulatorConfig, FaultSpec
from pipelines.ingest.snapshots import SnapshotFailed, SnapshotSettings, SnapshotWarning, collect_snapshot, run_snapshot
from pipelines.service import repos as api
from pipelines.service.errors import GraphQLError
from pipelines.warehouse.snapshots import SNAPSHOT_TABLES

DAY = date(2026, 11, 20)


def _dump(conn) -> dict[str, list[tuple]]:
    return {t: conn.sql(f"SELECT * FROM snapshots.{t} ORDER BY ALL").fetchall() for t in SNAPSHOT_TABLES}


def _count(conn, sql: str) -> int:
    return conn.execute(sql).fetchone()[0]


def test_snapshot_walks_every_issue_page_and_lands_every_table(emu, make_client, warehouse, emulator_config):
    client = make_client()
    result = run_snapshot(client, warehouse, settings=SnapshotSettings(orgs=(emu.credentials["org"],)), day=DAY)

    repos = emulator_config.repos
    assert _count(warehouse, "SELECT count(*) FROM snapshots.repositories") == repos
    # 130 issues a repository: the second page of 100 must have been read to the end.
    per_repo = warehouse.execute(
        "SELECT repository_id, count(*) FROM snapshots.issues GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    assert [n for _, n in per_repo] == [130] * repos
    assert _count(warehouse, "SELECT count(*) FROM snapshots.org_members") == emulator_config.users
    # GraphQL totals agree with the REST listing, pull requests told apart from issues.
    mismatched = warehouse.execute(
        """
        SELECT s.full_name FROM snapshots.repository_stats s
        JOIN (SELECT repository_id,
                     count(*) FILTER (WHERE is_pull_request) AS prs,
                     count(*) FILTER (WHERE NOT is_pull_request) AS issues,
                     count(*) FILTER (WHERE NOT is_pull_request AND state = 'open') AS open_issues
              FROM snapshots.issues GROUP BY repository_id) i USING (repository_id)
        WHERE s.pull_request_count <> i.prs OR s.issue_count <> i.issues OR s.open_issue_count <> i.open_issues
        """
    ).fetchall()
    assert mismatched == []
    assert _count(warehouse, "SELECT count(*) FROM snapshots.repository_stats") == repos
    assert _count(warehouse, "SELECT count(*) FROM snapshots.issues WHERE len(labels) > 0") > 0
    assert result.warnings == ()

    pages = repos * math.ceil(130 / 100) + 1 + 1  # issue pages, one repository page, one member page
    assert result.cost.rest_requests <= pages + 2 * repos
    assert result.cost.graphql_calls == 1
    assert result.cost.rate_limit_remaining_before > result.cost.rate_limit_remaining_after
    assert result.cost.graphql_cost == 1


def test_second_run_the_same_day_is_answered_by_304s_and_leaves_identical_tables(emu, make_client, warehouse):
    settings = SnapshotSettings(orgs=(emu.credentials["org"],))
    first = run_snapshot(make_client(), warehouse, settings=settings, day=DAY)
    tables = _dump(warehouse)
    second = run_snapshot(make_client(), warehouse, settings=settings, day=DAY)

    assert _dump(warehouse) == tables
    assert first.cost.not_modified == 0
    assert second.cost.rest_requests <= first.cost.rest_requests
    assert second.cost.not_modified >= 0.9 * second.cost.rest_requests
    # 304s do not spend the budget: only the one GraphQL call and nothing of core.
    assert second.cost.rate_limit_remaining_before == second.cost.rate_limit_remaining_after


def test_missing_repository_is_skipped_with_its_warning(emu, make_client, warehouse):
    org = emu.credentials["org"]
    present = next(iter(api.list_org_repositories(make_client(), org=org)))["full_name"]
    settings = SnapshotSettings(orgs=(org,), repositories=(present, f"{org}/no-such-repo"))
    result = run_snapshot(make_client(), warehouse, settings=settings, day=DAY)

    assert [(w.repository, w.endpoint, w.status) for w in result.warnings] == [
        (f"{org}/no-such-repo", "repository", 404)
    ]
    assert warehouse.execute("SELECT full_name FROM snapshots.repositories").fetchall() == [(present,)]
    assert warehouse.execute("SELECT repository, endpoint, status, message FROM snapshots.warnings").fetchall() == [
        (f"{org}/no-such-repo", "repository", 404, "Not Found")
    ]
    assert _count(warehouse, "SELECT count(DISTINCT repository_id) FROM snapshots.repository_stats") == 1


def test_unknown_organization_fails_the_run_naming_it(make_client, warehouse):
    with pytest.raises(SnapshotFailed, match=r"'no-such-org'.*repositories.*404"):
        run_snapshot(
            make_client(org="no-such-org"), warehouse, settings=SnapshotSettings(orgs=("no-such-org",)), day=DAY
        )
    assert _count(warehouse, "SELECT count(*) FROM snapshots.repositories") == 0


def test_stats_of_a_missing_repository_carry_the_service_message_while_the_others_resolve(emu, make_client):
    org = emu.credentials["org"]
    present = next(iter(api.list_org_repositories(make_client(), org=org)))["name"]
    nodes = api.fetch_repository_stats(make_client(), repositories=[(org, "no-such-repo"), (org, present)])

    assert nodes[0] == api.NotResolved(f"Could not resolve to a Repository with the name '{org}/no-such-repo'.")
    assert nodes[1]["name"] == present


def test_a_graphql_error_that_is_not_a_missing_repository_still_raises_naming_endpoint_and_message(emu, make_client):
    # A null owner is a variable error, not NOT_FOUND: the whole call fails as before.
    with pytest.raises(GraphQLError) as caught:
        api.fetch_repository_stats(make_client(), repositories=[(emu.credentials["org"], "atlas"), (None, "x")])
    assert type(caught.value) is GraphQLError
    assert str(caught.value).startswith(f"POST {emu.credentials['graphql_url']} GraphQL errors: ")
    assert "$owner1" in str(caught.value)


@pytest.mark.parametrize(
    "emulator_config",
    [EmulatorConfig(seed=9, users=4, repos=5, issues_per_repo=3, dialect=d) for d in ("service", "github")],
    ids=["service", "github"],
)
def test_a_repository_deleted_between_the_listing_and_the_graphql_batch_lands_the_others_with_one_warning(
    emu, make_client, warehouse, emulator_config, monkeypatch
):
    client = make_client()
    victim = sorted(r["full_name"] for r in api.list_org_repositories(client, org=emu.credentials["org"]))[2]
    ask, deleted = client.graphql, []

    def deleted_first(**kwargs):
        if not deleted:
            deleted.append(emu.delete_repository(full_name=victim))
        return ask(**kwargs)

    monkeypatch.setattr(client, "graphql", deleted_first)
    result = run_snapshot(client, warehouse, settings=SnapshotSettings(orgs=(emu.credentials["org"],)), day=DAY)

    message = f"Could not resolve to a Repository with the name '{victim}'."
    assert result.warnings == (SnapshotWarning(victim, "graphql", 404, message),)
    assert warehouse.execute("SELECT repository, endpoint, status, message FROM snapshots.warnings").fetchall() == [
        (victim, "graphql", 404, message)
    ]
    listed = [n for (n,) in warehouse.execute("SELECT full_name FROM snapshots.repositories ORDER BY 1").fetchall()]
    landed = [n for (n,) in warehouse.execute("SELECT full_name FROM snapshots.repository_stats ORDER BY 1").fetchall()]
    assert len(listed) == emulator_config.repos and victim in listed
    assert landed == [n for n in listed if n != victim]
    assert result.cost.graphql_calls == 1 and result.cost.graphql_batch_failures == 0


@pytest.mark.parametrize("emulator_config", [EmulatorConfig(seed=6, users=5, repos=11, issues_per_repo=2)])
def test_graphql_batch_halves_under_injected_502s_and_collects_every_repository(emu, make_client, emulator_config):
    emu.set_faults(FaultSpec(graphql_max_aliases=3))
    settings = SnapshotSettings(orgs=(emu.credentials["org"],), graphql_batch_size=8, graphql_grow_after=1)
    result = collect_snapshot(make_client(), settings=settings, day=DAY)

    assert result.frames["repository_stats"].height == emulator_config.repos
    # 8 → 502, 4 → 502, 2 succeeds, then grows to 3 (halfway to the size that choked) and stays.
    assert result.cost.graphql_batch_failures == 2
    assert result.cost.graphql_calls - result.cost.graphql_batch_failures >= math.ceil(emulator_config.repos / 3)
    assert emu.stats()["faults"].get("graphql_too_big", 0) >= result.cost.graphql_batch_failures


def test_posts_create_repository_issue_and_pull_request_that_the_snapshot_sees(emu, make_client, warehouse):
    client = make_client()
    repo = api.create_repository(client, name="seeded", description="made by the test", private=True)
    owner, name = repo["full_name"].split("/")
    issue = api.create_issue(client, owner=owner, name=name, title="First", body="b", labels=["bug", "triage"])
    pull = api.create_pull_request(client, owner=owner, name=name, title="Change", head="feature", base="main")
    assert repo["private"] is True and issue["number"] == 1 and pull["number"] == 2

    settings = SnapshotSettings(orgs=(emu.credentials["org"],), repositories=(repo["full_name"],))
    run_snapshot(client, warehouse, settings=settings, day=DAY)
    rows = warehouse.execute("SELECT number, is_pull_request, labels FROM snapshots.issues ORDER BY number").fetchall()
    assert rows == [(1, False, ["bug", "triage"]), (2, True, [])]
    assert warehouse.execute("SELECT visibility, private FROM snapshots.repositories").fetchall() == [("private", True)]


@pytest.mark.parametrize(
    "emulator_config", [EmulatorConfig(seed=8, users=4, repos=3, issues_per_repo=5, dialect="github")]
)
def test_snapshot_works_in_the_github_dialect(emu, make_client, warehouse, emulator_config):
    result = run_snapshot(make_client(), warehouse, settings=SnapshotSettings(orgs=(emu.credentials["org"],)), day=DAY)
    assert result.warnings == ()
    assert _count(warehouse, "SELECT count(*) FROM snapshots.issues") == 3 * 5
    assert _count(warehouse, "SELECT count(*) FROM snapshots.repository_stats") == 3


def test_renamed_repository_keeps_its_id_and_its_history(emu, make_client, warehouse):
    settings = SnapshotSettings(orgs=(emu.credentials["org"],))
    run_snapshot(make_client(), warehouse, settings=settings, day=DAY)
    repo_id, old_name = warehouse.execute(
        "SELECT repository_id, full_name FROM snapshots.repositories WHERE snapshot_day = ? ORDER BY 1 LIMIT 1", [DAY]
    ).fetchone()
    new_name = f"{old_name.split('/')[0]}/renamed-service"
    assert emu.rename_repository(full_name=old_name, name="renamed-service")["id"] == repo_id

    next_day = date.fromordinal(DAY.toordinal() + 1)
    run_snapshot(make_client(), warehouse, settings=settings, day=next_day)

    history = warehouse.execute(
        "SELECT snapshot_day, full_name FROM snapshots.repositories WHERE repository_id = ? ORDER BY 1", [repo_id]
    ).fetchall()
    assert history == [(DAY, old_name), (next_day, new_name)]
    issues = warehouse.execute(
        "SELECT snapshot_day, count(*), any_value(repository_full_name) FROM snapshots.issues"
        " WHERE repository_id = ? GROUP BY 1 ORDER BY 1",
        [repo_id],
    ).fetchall()
    assert [(day, count) for day, count, _ in issues] == [(DAY, 130), (next_day, 130)]
    assert issues[1][2] == new_name
    stats = warehouse.execute(
        "SELECT full_name FROM snapshots.repository_stats WHERE repository_id = ? AND snapshot_day = ?",
        [repo_id, next_day],
    ).fetchone()
    assert stats == (new_name,)
