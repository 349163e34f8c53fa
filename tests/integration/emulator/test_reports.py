from __future__ import annotations

import json
from datetime import timedelta
from urllib.parse import urlsplit, urlunsplit

import httpx

from emulator import EmulatorConfig, FaultSpec, running_emulator

from .conftest import TODAY

ORG_28 = "/orgs/acme/assistant/metrics/reports/organization-28-day/latest"
USERS_28 = "/orgs/acme/assistant/metrics/reports/users-28-day/latest"
ORG_1 = "/orgs/acme/assistant/metrics/reports/organization-1-day"
USERS_1 = "/orgs/acme/assistant/metrics/reports/users-1-day"
ENT_1 = "/enterprises/acme-corp/assistant/metrics/reports/enterprise-1-day"
ENT_28 = "/enterprises/acme-corp/assistant/metrics/reports/enterprise-28-day/latest"


def _lines(link: str) -> list[dict]:
    response = httpx.get(link)
    assert response.status_code == 200
    assert int(response.headers["content-length"]) == len(response.content)
    return [json.loads(line) for line in response.content.splitlines()]


def test_28_day_aggregate_metadata_and_wrapper(owner):
    meta = owner.get(ORG_28).json()
    assert meta["report_end_day"] == (TODAY - timedelta(days=1)).isoformat()
    assert meta["report_start_day"] == (TODAY - timedelta(days=28)).isoformat()
    [record] = _lines(meta["download_links"][0])
    assert record["report_start_day"] == meta["report_start_day"]
    assert len(record["day_totals"]) == 28
    assert "organization_id" in record


def test_user_level_report_is_split_into_files_covering_every_user_day(owner, emu):
    meta = owner.get(USERS_28).json()
    assert len(meta["download_links"]) > 1
    rows = [row for link in meta["download_links"] for row in _lines(link)]
    assert len({(r["user_login"], r["day"]) for r in rows}) == len(rows)
    assert len({r["day"] for r in rows}) == 28
    assert all(len(_lines(link)) <= 300 for link in meta["download_links"][:1])


def test_one_day_reports_for_both_scopes(owner):
    day = (TODAY - timedelta(days=10)).isoformat()
    for path in (ORG_1, ENT_1):
        meta = owner.get(path, params={"day": day}).json()
        assert meta["report_day"] == day
        [record] = _lines(meta["download_links"][0])
        assert record["day"] == day
    users = owner.get(USERS_1, params={"day": day}).json()
    assert {r["day"] for link in users["download_links"] for r in _lines(link)} == {day}


def test_day_without_report_answers_204_for_organization_and_404_for_enterprise(owner):
    assert owner.get(ORG_1, params={"day": TODAY.isoformat()}).status_code == 204
    response = owner.get(ENT_1, params={"day": TODAY.isoformat()})
    assert response.status_code == 404 and response.json()["message"]


def test_unknown_org_and_report_answer_404_with_message(owner):
    for path in (
        "/orgs/nope/assistant/metrics/reports/organization-28-day/latest",
        "/orgs/acme/assistant/metrics/reports/bogus-report",
    ):
        response = owner.get(path)
        assert response.status_code == 404 and "message" in response.json()


def test_newest_day_grows_with_each_fetch_and_final_days_do_not(fresh):
    headers = {"Authorization": f"token {fresh.credentials['token']}"}

    def total(day):
        meta = httpx.get(fresh.base_url + ORG_1, params={"day": day.isoformat()}, headers=headers)
        return _lines(meta.json()["download_links"][0])[0]["code_generation_activity_count"]

    newest, final = TODAY - timedelta(days=1), TODAY - timedelta(days=10)
    first, second = total(newest), total(newest)
    assert second > first
    assert total(final) == total(final)
    assert fresh.stats()["metadata_fetches"][f"organization acme aggregate 1-day {newest}"] == 2


def test_link_pins_the_version_fetched(owner):
    day = (TODAY - timedelta(days=1)).isoformat()
    link = owner.get(ORG_1, params={"day": day}).json()["download_links"][0]
    before = httpx.get(link).content
    owner.get(ORG_1, params={"day": day})
    assert httpx.get(link).content == before


def test_altered_link_answers_403(owner):
    link = owner.get(ORG_28).json()["download_links"][0]
    parts = urlsplit(link)
    tampered = urlunsplit(parts._replace(path=parts.path.replace("/0.ndjson", "/1.ndjson")))
    response = httpx.get(tampered)
    assert response.status_code == 403 and "signature" in response.json()["message"]
    expires_changed = link.replace("expires=", "expires=9")
    assert httpx.get(expires_changed).status_code == 403


def test_expired_link_answers_403(fresh):
    fresh.set_faults(FaultSpec(link_ttl_seconds=-1))
    headers = {"Authorization": f"token {fresh.credentials['token']}"}
    link = httpx.get(fresh.base_url + ORG_28, headers=headers).json()["download_links"][0]
    response = httpx.get(link)
    assert response.status_code == 403 and "expired" in response.json()["message"]


def test_truncated_download_sends_fewer_bytes_than_content_length(fresh):
    headers = {"Authorization": f"token {fresh.credentials['token']}"}
    link = httpx.get(fresh.base_url + ENT_28, headers=headers).json()["download_links"][0]
    fresh.set_faults(FaultSpec(truncate_rate=1.0))
    try:
        with httpx.stream("GET", link) as response:
            expected = int(response.headers["content-length"])
            got = b"".join(response.iter_raw())
        raise AssertionError(f"read {len(got)} of {expected} bytes without an error")
    except httpx.RemoteProtocolError:
        pass
    fresh.set_faults(FaultSpec())
    assert int(httpx.get(link).headers["content-length"]) == len(httpx.get(link).content)
    assert fresh.stats()["faults"]["truncate"] == 1


def test_pre_generated_file_is_served_in_line_aligned_parts(tmp_path):
    day = TODAY - timedelta(days=5)
    lines = [json.dumps({"user_login": f"u{i}", "day": day.isoformat(), "n": i}) + "\n" for i in range(25)]
    path = tmp_path / "users.ndjson"
    path.write_text("".join(lines))
    config = EmulatorConfig(
        seed=3, users=5, repos=1, today=TODAY, report_file=path, report_file_day=day, user_lines_per_file=10
    )
    with running_emulator(config) as emu:
        meta = httpx.get(
            emu.base_url + USERS_1,
            params={"day": day.isoformat()},
            headers={"Authorization": f"token {emu.credentials['token']}"},
        ).json()
        assert len(meta["download_links"]) == 3
        served = b"".join(httpx.get(link).content for link in meta["download_links"])
    assert served == path.read_bytes()
