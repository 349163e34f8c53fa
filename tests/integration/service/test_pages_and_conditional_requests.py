from pipelines.service import ServiceClient

from .conftest import config_for, settings_for


def test_link_pagination_returns_every_issue_across_small_pages(emu, tmp_path, clock) -> None:
    with ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep) as client:
        repo = next(client.paginate(path="/orgs/acme/repos"))["full_name"]
        path = f"/repos/{repo}/issues"
        whole = list(client.paginate(path=path, params={"state": "all"}))
        before = client.stats.requests
        small = list(client.paginate(path=path, params={"state": "all", "per_page": 2}))
        pages = client.stats.requests - before
    assert len(whole) > 2
    assert [i["number"] for i in small] == [i["number"] for i in whole]
    # Link rel="next" was followed to the last page, which has no next: no extra empty page.
    assert pages == -(-len(whole) // 2)


def test_a_304_reuses_the_stored_body_across_two_client_instances(emu, tmp_path, clock) -> None:
    settings = settings_for(emu, tmp_path)
    with ServiceClient(config=settings.service_config(), clock=clock, sleep=clock.sleep) as first:
        body = first.get_json(path="/orgs/acme/members")
        assert first.stats.not_modified == 0
    with ServiceClient(config=settings.service_config(), clock=clock, sleep=clock.sleep) as second:
        assert second.get_json(path="/orgs/acme/members") == body
        assert second.stats.not_modified == 1
        remaining_after_304 = second.budgets["core"].remaining
        second.get_json(path="/orgs/acme/members", conditional=False)
        assert second.budgets["core"].remaining == remaining_after_304 - 1


def test_the_cache_is_keyed_by_credential_identity(emu, tmp_path, clock) -> None:
    with ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep) as owner:
        owner.get_json(path="/user")
    with ServiceClient(config=config_for(emu, tmp_path, auth="limited"), clock=clock, sleep=clock.sleep) as other:
        me = other.get_json(path="/user")
        assert other.stats.not_modified == 0
    with ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep) as owner_again:
        assert owner_again.get_json(path="/user")["login"] != me["login"]
        assert owner_again.stats.not_modified == 1
    raw = (tmp_path / "http-cache.sqlite3").read_bytes()
    assert emu.credentials["token"].encode() not in raw
    assert emu.credentials["limited_token"].encode() not in raw


def test_budget_follows_the_response_headers(emu, tmp_path, clock) -> None:
    with ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep) as client:
        assert client.budgets == {}
        overview = client.rate_limit()
        budget = client.budgets["core"]
    core = overview["resources"]["core"]
    assert budget is not None
    assert (budget.limit, budget.remaining, budget.used) == (core["limit"], core["remaining"], core["used"])
    assert budget.reset == core["reset"]
