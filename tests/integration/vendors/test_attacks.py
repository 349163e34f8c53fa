"""Attacks on the vendor guarantees over loopback: a key set with spaces, a newline or a character
no header carries, against the emulator; a peer that dribbles its answer a byte at a time, on a
tiny http.server. A strict xfail is a break still open; an unmarked test is an attack that held."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, RunningEmulator, running_emulator
from pipelines.cli._vendors import vendor_lines
from pipelines.config import Settings
from pipelines.ingest.vendors import ingest_vendor
from pipelines.vendors import Key, VendorClient, vendor_config
from pipelines.warehouse import migrate

DRIBBLE = 40  # bytes a peer dribbles before it gives up on its own


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    with running_emulator(EmulatorConfig(seed=5, users=12, repos=2)) as running:
        yield running


def _lines(emu: RunningEmulator, tmp_path: Path, claude_key: str) -> list[str]:
    creds = emu.credentials
    environ = {"ANTHROPIC_ADMIN_KEY": claude_key, "ANTHROPIC_BASE_URL": creds["anthropic_base_url"]}
    lines = vendor_lines(Settings.from_env(environ=environ, home=tmp_path))
    return [line for line in lines if line.startswith("Claude Code (Anthropic Admin API): ")]


@pytest.mark.parametrize("wrap", ["  {}\n", "\t{} ", "\r\n{}\r\n"])
def test_a_key_set_with_spaces_or_a_newline_around_it_reads(emu: RunningEmulator, tmp_path: Path, wrap: str) -> None:
    lines = _lines(emu, tmp_path, wrap.format(emu.credentials["anthropic_admin_key"]))
    assert lines[0].startswith("Claude Code (Anthropic Admin API): OK: claude_code (")


@pytest.mark.parametrize("blank", ["", "   ", "\n"])
def test_a_key_set_blank_is_skipped(emu: RunningEmulator, tmp_path: Path, blank: str) -> None:
    assert (
        _lines(emu, tmp_path, blank)[0] == "Claude Code (Anthropic Admin API): skipped (ANTHROPIC_ADMIN_KEY is not set)"
    )


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param("{}\u201d", id="a-smart-quote-pasted"),
        pytest.param("{}\nX-Injected: 1", id="a-newline-inside"),
        pytest.param("{} trailing-words", id="a-space-inside"),
    ],
)
def test_a_key_no_header_carries_is_one_line_naming_the_setting_without_the_key(
    emu: RunningEmulator, tmp_path: Path, bad: str
) -> None:
    key = bad.format(emu.credentials["anthropic_admin_key"])
    lines = _lines(emu, tmp_path, key)
    assert len(lines) == 1
    assert "ANTHROPIC_ADMIN_KEY" in lines[0] and "\n" not in lines[0]
    assert emu.credentials["anthropic_admin_key"] not in lines[0]


class _Dribbler(BaseHTTPRequestHandler):
    """Answers 200 at once, then its body a byte at a time, each well inside a read timeout."""

    sent: list[int]

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(DRIBBLE + 1))
        self.end_headers()
        count = 0
        try:
            for _ in range(DRIBBLE):
                self.wfile.write(b" ")
                self.wfile.flush()
                count += 1
                time.sleep(0.05)
        except OSError:
            pass  # the client hung up: what a deadline does
        finally:
            self.sent.append(count)

    def log_message(self, format: str, *args: object) -> None:  # the test output stays quiet
        pass


@pytest.fixture
def dribbler() -> Iterator[tuple[str, list[int]]]:
    sent: list[int] = []
    handler = type("Handler", (_Dribbler,), {"sent": sent})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", sent
    server.shutdown()
    server.server_close()
    thread.join()


def test_a_peer_dribbling_its_answer_is_given_up_within_the_timeout(
    dribbler: tuple[str, list[int]], tmp_path: Path
) -> None:
    url, sent = dribbler
    config = vendor_config("claude_code", key=Key("sk-ant-admin01-x"), base_url=url, key_setting="K", url_setting="U")
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(conn)
    said: list[str] = []
    with VendorClient(dataclasses.replace(config, timeout=0.5)) as client:
        result = ingest_vendor(client, conn, days=[date(2025, 8, 8)], raw_dir=tmp_path, say=said.append)
    conn.close()
    assert result.status == "failed" and said[0].endswith("the next run asks again")
    assert sent and max(sent) < DRIBBLE  # a 0.5 s answer ends before the peer's 2 s of bytes
