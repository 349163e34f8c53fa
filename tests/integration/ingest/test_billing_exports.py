"""Usage report exports over loopback against the emulator, in both dialects: each month of AI
credits is exported, waited on, archived (zstd, sha256) and landed per user in billing.user_usage,
to the cent of the emulator's bill; a re-run asks only for the open month and replaces it; a token
without billing read lands nothing and says one line."""

from __future__ import annotations

import hashlib
from datetime import date
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
import zstandard

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest.billing_exports import ingest_exports
from pipelines.privacy import apply_retention
from pipelines.service import ServiceClient
from tests._emulator import settings_for

from .conftest import FAST_RETRY, TODAY


@pytest.fixture(params=["service", "github"])
def dialect(request) -> str:
    return request.param


def _ingest(emu, conn, raw: Path, *, months: int = 3):
    with ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client:
        return ingest_exports(
            client, conn, enterprises=(emu.credentials["enterprise"],), raw_dir=raw, months=months, sleep=lambda s: None
        )


def _billed(emu, year: int, month: int) -> dict:
    answer = httpx.get(
        f"{emu.credentials['base_url']}/_emulator/billing",
        params={"scope": "enterprise", "name": emu.credentials["enterprise"], "year": year, "month": month},
    )
    answer.raise_for_status()
    return answer.json()


def test_a_closed_month_s_exported_lines_sum_to_the_bill_to_the_cent(conn, tmp_path, dialect):
    with running_emulator(EmulatorConfig(seed=11, users=12, today=TODAY, dialect=dialect)) as emu:
        result = _ingest(emu, conn, tmp_path / "raw")
        billed = _billed(emu, 2026, 10)
    assert result.months == 3 and result.quarantined == 0 and result.lines == []
    net, quantity = conn.sql(
        "SELECT sum(net_amount), sum(quantity) FROM billing.user_usage WHERE day BETWEEN '2026-10-01' AND '2026-10-31'"
    ).fetchall()[0]
    assert billed["month_closed"]
    assert net == Decimal(billed["meters"]["ai_credit"]["net_amount"])
    assert quantity == Decimal(billed["meters"]["ai_credit"]["gross_quantity"])
    # Landed under the service's product word, whichever dialect sent it.
    words = conn.sql("SELECT list(DISTINCT product) || list(DISTINCT sku) FROM billing.user_usage").fetchall()[0][0]
    assert "assistant" in words and not [word for word in words if "copilot" in word], words


def test_each_export_is_archived_compressed_with_its_sha256(conn, tmp_path):
    with running_emulator(EmulatorConfig(seed=11, users=12, today=TODAY)) as emu:
        _ingest(emu, conn, tmp_path / "raw")
    files = conn.sql(
        "SELECT archive_path, sha256, records FROM raw.report_files WHERE report_kind = 'export' AND level = 'billing'"
    ).fetchall()
    assert len(files) == 3
    for path, sha, records in files:
        with Path(path).open("rb") as archived:
            text = zstandard.ZstdDecompressor().stream_reader(archived).read()
        assert hashlib.sha256(text).hexdigest() == sha
        assert text.startswith(b"date,username,") and text.count(b"\n") >= records


def test_a_re_run_asks_only_for_the_open_month_and_replaces_it(conn, tmp_path):
    with running_emulator(EmulatorConfig(seed=11, users=12, today=TODAY)) as emu:
        _ingest(emu, conn, tmp_path / "raw")
        before = conn.sql("SELECT count(*), sum(net_amount) FROM billing.user_usage").fetchall()
        again = _ingest(emu, conn, tmp_path / "raw")
    assert again.months == 1  # November: September and October landed closed
    assert conn.sql("SELECT count(*), sum(net_amount) FROM billing.user_usage").fetchall() == before
    # The month's earlier archive is no longer kept beside the new one.
    assert len(list((tmp_path / "raw").rglob("*.zst"))) == 3


def test_a_token_without_billing_read_lands_no_export_and_says_one_line(conn, tmp_path):
    with running_emulator(EmulatorConfig(seed=11, users=12, today=TODAY, billing_read=False)) as emu:
        result = _ingest(emu, conn, tmp_path / "raw")
    assert result.months == 0 and len(result.lines) == 1
    assert "acme-corp" in result.lines[0] and "billing manager" in result.lines[0]
    assert conn.sql("SELECT status FROM billing.fetches WHERE endpoint = 'user_usage'").fetchall() == [("denied",)]
    assert conn.sql("SELECT count(*) FROM billing.user_usage").fetchall() == [(0,)]


def test_months_before_ai_credits_are_never_exported(conn, tmp_path):
    with running_emulator(EmulatorConfig(seed=11, users=12, today=date(2026, 6, 20))) as emu:
        result = _ingest(emu, conn, tmp_path / "raw", months=4)
    assert result.months == 1
    assert conn.sql("SELECT min(day) >= '2026-06-01' FROM billing.user_usage").fetchall() == [(True,)]


def test_retention_removes_expired_export_months_rows_and_archived_files(conn, tmp_path):
    with running_emulator(EmulatorConfig(seed=11, users=12, today=TODAY)) as emu:
        _ingest(emu, conn, tmp_path / "raw")
    exported = "SELECT report_start_day, archive_path FROM raw.report_files WHERE level = 'billing'"
    paths = dict(conn.sql(exported).fetchall())
    # Everything before November expires: September's and October's exports go, November's stays.
    done = apply_retention(conn, days=19, today=TODAY, raw_dir=tmp_path / "raw")
    assert done.files == 2 and done.rows["billing.user_usage"] > 0
    assert [Path(p).exists() for _, p in sorted(paths.items())] == [False, False, True]
    assert conn.sql("SELECT min(day) FROM billing.user_usage").fetchall() == [(date(2026, 11, 1),)]
