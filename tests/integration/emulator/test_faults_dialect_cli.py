from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from datetime import date

import httpx
import pytest

from emulator import EmulatorConfig, FaultSpec, running_emulator
from emulator.config import parse_fault_spec

from .conftest import TODAY


def test_error_rate_answers_500_or_502_and_is_counted(fresh):
    fresh.set_faults(FaultSpec(error_rate=1.0, seed=4))
    statuses = {httpx.get(fresh.base_url + "/repos/acme/atlas").status_code for _ in range(8)}
    assert statuses <= {500, 502} and statuses
    assert fresh.stats()["faults"]["error"] == 8


def test_drop_closes_the_connection_without_an_answer(fresh):
    fresh.set_faults(FaultSpec(drop_rate=1.0))
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.get(fresh.base_url + "/repos/acme/atlas")
    fresh.set_faults(FaultSpec())
    assert httpx.get(fresh.base_url + "/repos/acme/atlas").status_code == 200


def test_admin_endpoints_are_never_faulted(fresh):
    fresh.set_faults(FaultSpec(error_rate=1.0, drop_rate=1.0))
    assert "requests" in fresh.stats()


def test_faults_parse_from_the_cli_form():
    assert parse_fault_spec("error_rate=0.1,drop_rate=0.05,slow_ms=20") == FaultSpec(
        error_rate=0.1, drop_rate=0.05, slow_ms=20
    )


def test_github_dialect_uses_public_wire_names():
    config = EmulatorConfig(seed=2, users=4, repos=1, today=TODAY, dialect="github")
    with running_emulator(config) as emu:
        headers = {
            "Authorization": f"Bearer {emu.credentials['token']}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
        }
        meta = httpx.get(
            emu.base_url + "/orgs/acme/copilot/metrics/reports/organization-28-day/latest", headers=headers
        )
        assert meta.status_code == 200 and meta.headers["x-github-media-type"].startswith("github.v3")
        assert (
            httpx.get(
                emu.base_url + "/orgs/acme/assistant/metrics/reports/organization-28-day/latest", headers=headers
            ).status_code
            == 404
        )


def test_clock_moves_the_newest_available_day(fresh):
    later = date(2026, 12, 1)
    fresh.set_today(later)
    meta = httpx.get(
        fresh.base_url + "/orgs/acme/assistant/metrics/reports/organization-28-day/latest",
        headers={"Authorization": f"token {fresh.credentials['token']}"},
    ).json()
    assert meta["report_end_day"] == "2026-11-30"


@pytest.fixture
def emulator_process(tmp_path) -> Iterator[tuple[str, dict]]:
    creds = tmp_path / "creds.json"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "emulator",
            "--seed",
            "5",
            "--users",
            "6",
            "--repos",
            "2",
            "--credentials-out",
            str(creds),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.getcwd(),
    )
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        yield base_url, json.loads(creds.read_text())
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()  # a bounded teardown whatever happens: no orphan outlives the test
            process.wait(timeout=20)


def test_the_emulator_stops_on_sigterm_even_when_its_parent_ignored_it(tmp_path):
    # As in a full run started in the background: SIGINT ignored, and Dagster's interrupt
    # handling copies that to SIGTERM, which children inherit.
    def ignore_both() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    process = subprocess.Popen(
        [sys.executable, "-m", "emulator", "--seed", "5", "--users", "3", "--repos", "1"],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=ignore_both,
    )
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        assert httpx.get(base_url + "/repos/acme/atlas").status_code in (200, 401)
        process.terminate()
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=20)


def test_newcomer_fetches_a_report_like_with_curl(emulator_process):
    base_url, creds = emulator_process
    assert base_url == creds["base_url"] and base_url.startswith("http://127.0.0.1:")
    key_path = creds["app_private_key_path"]
    assert os.stat(key_path).st_mode & 0o777 == 0o600
    with open(key_path) as key_file:
        assert key_file.read().startswith("-----BEGIN RSA PRIVATE KEY-----")
    meta = httpx.get(
        f"{base_url}/orgs/{creds['org']}/assistant/metrics/reports/organization-28-day/latest",
        headers={
            "Authorization": f"Bearer {creds['token']}",
            "Accept": "application/vnd.service+json",
            "X-Service-Api-Version": "2026-03-10",
        },
        follow_redirects=True,
    )
    assert meta.status_code == 200
    ndjson = httpx.get(meta.json()["download_links"][0])
    record = json.loads(ndjson.text.splitlines()[0])
    assert len(record["day_totals"]) == 28


def test_slow_answers_still_arrive_and_are_counted(fresh):
    fresh.set_faults(FaultSpec(slow_rate=1.0, slow_ms=50))
    assert httpx.get(fresh.base_url + "/repos/acme/atlas").status_code == 200
    assert fresh.stats()["faults"]["slow"] == 1


def test_content_creation_burst_hits_the_secondary_limit():
    with (
        running_emulator(EmulatorConfig(seed=4, users=3, repos=1, today=TODAY)) as emu,
        httpx.Client(base_url=emu.base_url, headers={"Authorization": f"token {emu.credentials['token']}"}) as client,
    ):
        statuses = [client.post("/repos/acme/atlas/issues", json={"title": f"t{i}"}).status_code for i in range(81)]
    assert statuses[:80] == [201] * 80
    assert statuses[80] == 403
