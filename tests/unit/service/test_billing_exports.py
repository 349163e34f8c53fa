"""Exports: asked for a period of at most 31 days, polled a bounded number of times with the
retry policy's backoff, a failed or unfinished export said in one line."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import httpx
import pytest

from pipelines.service import RetryPolicy, Secret, ServiceClient, ServiceConfig, TokenAuth
from pipelines.service.billing_exports import ExportNotReady, request_export, wait_export

BASE = "http://127.0.0.1:9"
POLICY = RetryPolicy(backoff_initial=0.5, backoff_max=4.0)


def _client(statuses: list[str], tmp_path: Path) -> ServiceClient:
    def handler(request: httpx.Request) -> httpx.Response:
        status = statuses.pop(0) if len(statuses) > 1 else statuses[0]
        body = {"id": "r-1", "report_type": "ai_credit", "start_date": "2026-10-01", "end_date": "2026-10-31"}
        body |= {"status": status, "download_urls": ["https://files.example/x.csv?sig=secret"]}
        return httpx.Response(202 if request.method == "POST" else 200, json=body)

    config = ServiceConfig(base_url=BASE, api_version="2026-03-10", auth=TokenAuth(token=Secret("tok")))
    return ServiceClient(config=config, transport=httpx.MockTransport(handler), retry=RetryPolicy(max_attempts=1))


def test_an_export_is_polled_until_completed_backing_off(tmp_path):
    waits: list[float] = []
    with _client(["processing", "processing", "processing", "processing", "completed"], tmp_path) as client:
        export = request_export(client, enterprise="big", start_day=date(2026, 10, 1), end_day=date(2026, 10, 31))
        done = wait_export(client, export, enterprise="big", policy=POLICY, sleep=waits.append)
    assert done.status == "completed" and done.links == ("https://files.example/x.csv?sig=secret",)
    assert waits == [0.5, 1.0, 2.0, 4.0]
    assert "sig=secret" not in repr(done)


def test_an_export_still_processing_after_the_last_poll_is_said(tmp_path):
    waits: list[float] = []
    with _client(["processing"], tmp_path) as client:
        export = request_export(client, enterprise="big", start_day=date(2026, 10, 1), end_day=date(2026, 10, 31))
        with pytest.raises(ExportNotReady, match="still processing after 3 polls: the next run asks for it again"):
            wait_export(client, export, enterprise="big", polls=3, policy=POLICY, sleep=waits.append)
    assert len(waits) == 3


def test_a_failed_export_is_said_without_waiting_more(tmp_path):
    with _client(["failed"], tmp_path) as client:
        export = request_export(client, enterprise="big", start_day=date(2026, 10, 1), end_day=date(2026, 10, 31))
        with pytest.raises(ExportNotReady, match="failed on the service"):
            wait_export(client, export, enterprise="big", sleep=pytest.fail)


def test_a_period_over_31_days_is_never_asked_for(tmp_path):
    with _client(["completed"], tmp_path) as client, pytest.raises(ValueError, match="1 to 31 days, not 32"):
        request_export(client, enterprise="big", start_day=date(2026, 10, 1), end_day=date(2026, 11, 1))
