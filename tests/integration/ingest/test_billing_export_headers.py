"""Export CSVs whose first line is not the plain header, over loopback: a proxy transport between
ingest_exports and the emulator rewrites the signed download (November 2026, seed 11, 12 users).
A UTF-8 byte-order mark is read as the encoding mark it is and every line lands; a header
without an amount the cost views need refuses the file in one line, and the month landed
before stays as it was (never replaced with nothing, nor with NULL money)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest.billing_exports import ExportResult, ingest_exports
from pipelines.service import ServiceClient
from tests._emulator import settings_for

from .conftest import FAST_RETRY, TODAY

Rewrite = Callable[[bytes], bytes]
BOM = b"\xef\xbb\xbf"


def _exports(conn: duckdb.DuckDBPyConnection, raw: Path, *rewrites: Rewrite) -> tuple[list[ExportResult], bytes]:
    """One run of the open month's export per rewrite of its CSV; the CSV as the emulator sent it."""
    sent: dict[str, bytes] = {}
    current: list[Rewrite] = []
    with running_emulator(EmulatorConfig(seed=11, users=12, today=TODAY, dialect="github")) as emu:
        upstream = httpx.Client(base_url=emu.base_url)

        def handler(request: httpx.Request) -> httpx.Response:
            answer = upstream.send(
                upstream.build_request(request.method, request.url, headers=request.headers, content=request.content)
            )
            drop = ("content-length", "content-encoding", "etag")
            headers = {k: v for k, v in answer.headers.items() if k.lower() not in drop}
            body = answer.content
            if "/_downloads/billing/" in request.url.path and answer.status_code == 200:
                sent["csv"] = body
                body = current[0](body)
            return httpx.Response(answer.status_code, headers=headers, content=body)

        enterprise = emu.credentials["enterprise"]
        config = settings_for(emu, enterprises=(enterprise,)).service_config()
        results = []
        with ServiceClient(config=config, transport=httpx.MockTransport(handler), retry=FAST_RETRY) as client:
            for rewrite in rewrites:
                current[:] = [rewrite]
                results.append(
                    ingest_exports(
                        client, conn, enterprises=(enterprise,), raw_dir=raw, months=1, sleep=lambda s: None, say=print
                    )
                )
        upstream.close()
    return results, sent["csv"]


def _same(body: bytes) -> bytes:
    return body


def _without(column: str) -> Rewrite:
    def rewrite(body: bytes) -> bytes:
        lines = [line.split(",") for line in body.decode().split("\n")]
        drop = lines[0].index(column)  # the emulator's fields hold no comma
        return "\n".join(",".join(f for i, f in enumerate(line) if i != drop) for line in lines).encode()

    return rewrite


def _billed(csv: bytes) -> tuple[int, Decimal]:
    header, *lines = [line.split(",") for line in csv.decode().splitlines()]
    net = header.index("net_amount")
    return len(lines), sum((Decimal(line[net]) for line in lines), Decimal(0))


def _landed(conn: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    return conn.sql("SELECT count(*), sum(net_amount), min(fetched_at) FROM billing.user_usage").fetchall()


def _archived(raw: Path) -> list[Path]:
    return sorted(raw.rglob("*.zst"))


def test_an_export_with_a_utf8_bom_lands_every_line(conn, tmp_path):
    (result,), csv = _exports(conn, tmp_path / "raw", lambda body: BOM + body)
    count, net = _billed(csv)
    assert result.lines == [] and result.quarantined == 0
    assert _landed(conn)[0][:2] == (count, net) and count > 0


def test_a_bom_re_export_of_the_open_month_replaces_it_with_the_same_lines(conn, tmp_path):
    (_, second), csv = _exports(conn, tmp_path / "raw", _same, lambda body: BOM + body)
    assert second.lines == [] and second.months == 1
    assert _landed(conn)[0][:2] == _billed(csv)


@pytest.mark.parametrize("column", ["net_amount", "quantity", "gross_amount", "discount_amount", "username"])
def test_a_re_export_whose_header_lacks_a_column_keeps_the_month_landed_before_and_says_why(conn, tmp_path, column):
    raw = tmp_path / "raw"
    (first,), _ = _exports(conn, raw, _same)
    landed, archived = _landed(conn), _archived(raw)
    assert first.lines == [] and landed[0][0] > 0 and len(archived) == 1
    (refused,), _ = _exports(conn, raw, _without(column))
    assert refused.months == 0
    [line] = refused.lines
    assert line.startswith("the ai_credit export ") and "of enterprise 'acme-corp' (2026-11-01..2026-11-20)" in line
    assert f"not landed: its file 0 cannot be read (its header names no {column} column)" in line
    assert line.endswith("billing.user_usage keeps the month as last landed, and the next run asks for it again")
    # The month is the first run's, its rows and archived file; the refused file is not kept.
    assert (_landed(conn), _archived(raw)) == (landed, archived)


def test_a_first_export_without_its_net_amount_lands_nothing_rather_than_null_money(conn, tmp_path):
    (result,), _ = _exports(conn, tmp_path / "raw", _without("net_amount"))
    assert len(result.lines) == 1 and "names no net_amount column" in result.lines[0]
    assert conn.sql("SELECT count(*) FROM billing.user_usage").fetchall() == [(0,)]
    assert conn.sql("SELECT count(*) FROM raw.report_files").fetchall() == [(0,)]
    assert _archived(tmp_path / "raw") == []
