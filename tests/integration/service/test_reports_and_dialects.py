import json
from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest

from emulator import EmulatorConfig, FaultSpec, RunningEmulator, running_emulator
from pipelines.service import (
    LinkExpired,
    NotFound,
    ReportRef,
    ServiceClient,
    TruncatedDownload,
    VersionRejected,
    fetch_report_metadata,
    open_report_file,
)
from pipelines.service.kinds import REPORT_KINDS

from .conftest import TODAY, config_for, settings_for


@pytest.fixture(scope="module", params=["service", "github"])
def dialect_emu(request: pytest.FixtureRequest) -> Iterator[RunningEmulator]:
    with running_emulator(EmulatorConfig(seed=5, users=4, repos=2, today=TODAY, dialect=request.param)) as running:
        yield running


def _read(client: ServiceClient, link: str) -> tuple[int | None, bytes]:
    with open_report_file(client, link) as stream:
        return stream.expected_bytes, b"".join(stream.iter_bytes())


def test_every_declared_report_kind_is_served_at_its_path_in_each_dialect(dialect_emu, tmp_path, clock) -> None:
    # The paths come from the declarations alone (pipelines/service/kinds.py): a kind whose
    # declared name the service does not serve fails here, under the dialect that misses it.
    day = TODAY - timedelta(days=5)
    with ServiceClient(
        config=settings_for(dialect_emu, tmp_path).service_config(), clock=clock, sleep=clock.sleep
    ) as client:
        for scope, name in (("organization", "acme"), ("enterprise", "acme-corp")):
            for declared in REPORT_KINDS:
                ref = ReportRef(scope, name, declared.kind, declared.level, day if declared.kind == "1-day" else None)
                metadata = fetch_report_metadata(client, ref)
                assert metadata is not None and metadata.links, f"{scope} {declared}"


def test_both_dialects_serve_metadata_downloads_and_listings(dialect_emu, tmp_path, clock) -> None:
    settings = settings_for(dialect_emu, tmp_path)
    assert settings.dialect == dialect_emu.credentials["dialect"]
    with ServiceClient(config=settings.service_config(), clock=clock, sleep=clock.sleep) as client:
        for level in ("aggregate", "user"):
            ref = ReportRef(scope="organization", scope_name="acme", kind="28-day", level=level)
            metadata = fetch_report_metadata(client, ref)
            assert metadata is not None and metadata.links
            assert (metadata.end_day - metadata.start_day).days == 27
            expected, body = _read(client, metadata.links[0])
            assert expected == len(body)
            assert json.loads(body.splitlines()[0])
        day = TODAY - timedelta(days=5)
        one_day = fetch_report_metadata(
            client, ReportRef(scope="enterprise", scope_name="acme-corp", kind="1-day", level="aggregate", day=day)
        )
        assert one_day is not None and one_day.start_day == one_day.end_day == day
        assert list(client.paginate(path="/orgs/acme/members"))
    old_version = settings_for(dialect_emu, tmp_path, SERVICE_API_VERSION="1999-01-01")
    with (
        ServiceClient(config=old_version.service_config(), clock=clock, sleep=clock.sleep) as client,
        pytest.raises(VersionRejected, match="1999-01-01"),
    ):
        client.get_json(path="/orgs/acme/members")
    # The other dialect's report path is not there: the wire names really differ.
    other = "copilot" if settings.dialect == "service" else "assistant"
    response = httpx.get(
        f"{dialect_emu.base_url}/orgs/acme/{other}/metrics/reports/organization-28-day/latest",
        headers={"Authorization": f"Bearer {dialect_emu.credentials['token']}"},
    )
    assert response.status_code == 404


@pytest.mark.parametrize(("scope", "name"), [("organization", "acme"), ("enterprise", "acme-corp")])
def test_a_day_not_yet_available_is_none(emu, tmp_path, clock, scope, name) -> None:
    ref = ReportRef(scope=scope, scope_name=name, kind="1-day", level="aggregate", day=TODAY + timedelta(days=2))
    with ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep) as client:
        assert fetch_report_metadata(client, ref) is None


def test_a_truncated_download_raises_with_its_byte_counts(emu, tmp_path, clock) -> None:
    ref = ReportRef(scope="organization", scope_name="acme", kind="28-day", level="user")
    with ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep) as client:
        link = fetch_report_metadata(client, ref).links[0]
        emu.set_faults(FaultSpec(truncate_rate=1.0))
        with pytest.raises(TruncatedDownload) as info:
            _read(client, link)
    assert info.value.expected and info.value.received < info.value.expected
    assert "signature" not in str(info.value) + repr(info.value)


def test_an_altered_or_expired_link_raises_link_expired(emu, tmp_path, clock) -> None:
    ref = ReportRef(scope="organization", scope_name="acme", kind="28-day", level="aggregate")
    with ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep) as client:
        link = fetch_report_metadata(client, ref).links[0]
        tampered = link[:-4] + ("0000" if not link.endswith("0000") else "1111")
        with pytest.raises(LinkExpired) as info:
            _read(client, tampered)
        expired = httpx.URL(link).copy_set_param("expires", "1000").__str__()
        with pytest.raises(LinkExpired):
            _read(client, expired)
    assert info.value.status == 403
    assert "?" not in info.value.url and "signature" not in str(info.value)


def test_an_unknown_org_is_not_found_for_the_28_day_report(emu, tmp_path, clock) -> None:
    ref = ReportRef(scope="organization", scope_name="no-such-org", kind="28-day", level="aggregate")
    with (
        ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep) as client,
        pytest.raises(NotFound),
    ):
        fetch_report_metadata(client, ref)
