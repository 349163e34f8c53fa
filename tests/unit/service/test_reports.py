from datetime import UTC, date, datetime

import httpx
import pytest

from pipelines.service import Secret, ServiceClient, ServiceConfig, TokenAuth, TruncatedDownload
from pipelines.service.reports import ReportMetadata, ReportRef, fetch_report_metadata, open_report_file

BASE = "http://127.0.0.1:9"


def test_a_report_ref_needs_a_day_exactly_when_it_is_a_1_day_report() -> None:
    ReportRef(scope="organization", scope_name="a", kind="1-day", level="user", day=date(2026, 1, 1))
    with pytest.raises(ValueError, match="1-day"):
        ReportRef(scope="organization", scope_name="a", kind="1-day", level="user")
    with pytest.raises(ValueError, match="28-day"):
        ReportRef(scope="organization", scope_name="a", kind="28-day", level="user", day=date(2026, 1, 1))


def test_metadata_repr_hides_its_signed_links() -> None:
    ref = ReportRef(scope="enterprise", scope_name="e", kind="28-day", level="aggregate")
    meta = ReportMetadata(
        ref=ref, start_day=date(2026, 1, 1), end_day=date(2026, 1, 28), links=("http://h/f?signature=abc123",)
    )
    assert "abc123" not in repr(meta) and "<1 signed>" in repr(meta)


def _client(handler, tmp_path) -> ServiceClient:
    config = ServiceConfig(
        base_url=BASE, api_version="2026-03-10", auth=TokenAuth(token=Secret("t")), etag_cache=tmp_path / "c.sqlite3"
    )
    return ServiceClient(config=config, transport=httpx.MockTransport(handler), sleep=lambda _s: None)


def test_1_day_metadata_maps_report_day_and_204_means_not_yet(tmp_path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.params["day"] == "2026-01-02":
            return httpx.Response(204)
        return httpx.Response(200, json={"download_links": ["http://f/1", "http://f/2"], "report_day": "2026-01-01"})

    with _client(handler, tmp_path) as client:
        ref = ReportRef(scope="organization", scope_name="a", kind="1-day", level="user", day=date(2026, 1, 1))
        meta = fetch_report_metadata(client, ref)
        assert meta is not None and meta.start_day == meta.end_day == date(2026, 1, 1)
        assert meta.links == ("http://f/1", "http://f/2")
        later = ReportRef(scope="organization", scope_name="a", kind="1-day", level="user", day=date(2026, 1, 2))
        assert fetch_report_metadata(client, later) is None


def test_a_body_shorter_than_its_content_length_is_truncated(tmp_path) -> None:
    class Short(httpx.SyncByteStream):
        def __iter__(self):
            yield b"0123456789"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"Content-Length": "100"}, stream=Short())

    with (
        _client(handler, tmp_path) as client,
        pytest.raises(TruncatedDownload) as info,
        open_report_file(client, f"{BASE}/_downloads/k/0.ndjson?signature=zz") as stream,
    ):
        assert stream.expected_bytes == 100
        list(stream.iter_bytes())
    assert (info.value.expected, info.value.received) == (100, 10)


def test_metadata_carries_the_service_clock_from_its_date_header(tmp_path) -> None:
    dated = {"Date": "Fri, 20 Nov 2026 07:30:00 GMT"}

    def handler(request: httpx.Request) -> httpx.Response:
        day = request.url.params["day"]
        headers = dated if day == "2026-11-19" else {"Date": "yesterday-ish"}
        return httpx.Response(200, headers=headers, json={"download_links": [], "report_day": day})

    with _client(handler, tmp_path) as client:
        meta = fetch_report_metadata(client, ReportRef("organization", "a", "1-day", "user", date(2026, 11, 19)))
        assert meta is not None and meta.served_at == datetime(2026, 11, 20, 7, 30, tzinfo=UTC)
        # An unreadable Date is no clock: the caller falls back on its own.
        odd = fetch_report_metadata(client, ReportRef("organization", "a", "1-day", "user", date(2026, 11, 18)))
        assert odd is not None and odd.served_at is None
