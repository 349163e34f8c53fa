"""The emulator's hooks point at a real receiver: issues and pull requests created through the
service client arrive signed, are spooled, and load with their event, action and repository."""

from __future__ import annotations

import time

import duckdb
import httpx
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.service import ServiceClient
from pipelines.warehouse.migrate import migrate
from pipelines.warehouse.people import Forgotten, Person, person_hashes
from pipelines.webhooks.app import ReceiverConfig, running_receiver
from pipelines.webhooks.load import load_spool
from tests._emulator import settings_for


def _wait_for_deliveries(emu, count: int) -> list[dict]:
    deadline = time.monotonic() + 30  # a bound on waiting, not a measured duration
    while time.monotonic() < deadline:
        log = emu.stats()["deliveries"]
        if len(log) >= count:
            return log
        time.sleep(0.05)
    pytest.fail(f"only {len(emu.stats()['deliveries'])} of {count} deliveries arrived")


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_emulator_deliveries_land_once_each(dialect, spool_dir, warehouse):
    with running_emulator(EmulatorConfig(seed=5, users=4, repos=2, issues_per_repo=2, dialect=dialect)) as emu:
        creds = emu.credentials
        config = ReceiverConfig(secret=creds["webhook_secret"].encode(), spool_dir=spool_dir)
        with running_receiver(config=config) as receiver_url:
            for content_type in ("json", "form"):
                httpx.post(
                    f"{emu.base_url}/_emulator/hooks",
                    json={
                        "url": f"{receiver_url}/webhooks",
                        "content_type": content_type,
                        "events": ["issues", "pull_request"],
                        "active": True,
                        "secret": creds["webhook_secret"],
                    },
                ).raise_for_status()
            with ServiceClient(config=settings_for(emu, etag_cache=None).service_config()) as client:
                repo = client.get_json(path=f"/orgs/{creds['org']}/repos")[0]["full_name"]
                client.post_json(path=f"/repos/{repo}/issues", json={"title": "first"})
                client.post_json(path=f"/repos/{repo}/issues", json={"title": "second"})
                client.post_json(path=f"/repos/{repo}/pulls", json={"title": "change", "head": "topic", "base": "main"})
            log = _wait_for_deliveries(emu, 6)
    assert [entry["status"] for entry in log] == [200] * 6
    result = load_spool(warehouse, spool_dir, batch_size=4)
    assert (result.loaded, result.duplicates, result.repositories) == (6, 0, {repo})
    rows = warehouse.execute(
        "SELECT event, action, repository_full_name, count(*) FROM events.webhook_deliveries GROUP BY ALL ORDER BY 1"
    ).fetchall()
    assert rows == [("issues", "opened", repo, 4), ("pull_request", "opened", repo, 2)]
    delivered = sorted(entry["delivery"] for entry in log)
    stored = [
        r[0] for r in warehouse.execute("SELECT delivery_id FROM events.webhook_deliveries ORDER BY 1").fetchall()
    ]
    assert stored == delivered


def test_the_emulators_deliveries_name_their_sender_in_declared_fields_and_nobody_else(spool_dir, tmp_path):
    """The service's own push (a repository its sender owns, with an initial commit), issues and
    pull_request payloads, sent over loopback: erasing the sender passes every one of them, by id
    alone or by login alone; erasing someone else, or a user id equal to the repository's or the
    issue's id, passes none."""
    with running_emulator(EmulatorConfig(seed=6, users=4, repos=1, issues_per_repo=1)) as emu:
        creds = emu.credentials
        config = ReceiverConfig(secret=creds["webhook_secret"].encode(), spool_dir=spool_dir)
        with running_receiver(config=config) as receiver_url:
            httpx.post(
                f"{emu.base_url}/_emulator/hooks",
                json={
                    "url": f"{receiver_url}/webhooks",
                    "content_type": "json",
                    "active": True,
                    "secret": creds["webhook_secret"],
                },
            ).raise_for_status()
            with ServiceClient(config=settings_for(emu, etag_cache=None).service_config()) as client:
                me = client.get_json(path="/user")
                created = client.post_json(path="/user/repos", json={"name": "sandbox", "auto_init": True})
                repo = created["full_name"]
                issue = client.post_json(path=f"/repos/{repo}/issues", json={"title": "first"})
                client.post_json(path=f"/repos/{repo}/pulls", json={"title": "change", "head": "topic", "base": "main"})
            assert [entry["status"] for entry in _wait_for_deliveries(emu, 3)] == [200] * 3
    key = b"a key"
    for i, (erased, passed) in enumerate(
        [
            (Person(me["id"], None), 3),
            (Person(None, me["login"].upper()), 3),
            (Person(None, "someone-else"), 0),
            (Person(created["id"], None), 0),
            (Person(issue["id"], None), 0),
        ]
    ):
        with duckdb.connect(str(tmp_path / f"w-{i}.duckdb")) as conn:
            migrate(conn)
            forgotten = Forgotten(key, frozenset(person_hashes(key, erased)))
            result = load_spool(conn, spool_dir, forgotten=forgotten)
        assert (result.erased, result.loaded) == (passed, 3 - passed), erased
