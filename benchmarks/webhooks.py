"""Webhook receiver throughput: concurrent senders on loopback against a receiver subprocess.

    .venv/bin/python benchmarks/webhooks.py [--seconds 10] [--senders 64] [--bad-share 0.1]

Sends the real `issues.opened` payload (13.5 KB) with a unique delivery id each time, a share
of them with a bad signature, for a bounded time; then stops the receiver, reads the spool
back, loads it into a temporary DuckDB and checks accepted = spooled = loaded and
rejected = bad. Prints deliveries/s and latency percentiles. Exits 1 if anything was lost.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.summary import record  # noqa: E402
from pipelines.warehouse.migrate import migrate  # noqa: E402
from pipelines.webhooks.load import load_spool  # noqa: E402
from pipelines.webhooks.segments import read_segment, segments  # noqa: E402
from pipelines.webhooks.verify import sign  # noqa: E402

PAYLOAD = ROOT.parent / "shared" / "reference" / "webhooks" / "issues.opened.json"
SECRET = b"benchmark-secret"

# The served receiver's protocol (`_server_config`: the guard's deadlines and connection slots),
# without `serve`'s per-delivery log line on stderr.
_RECEIVER = """
import logging
import sys
from pathlib import Path
import uvicorn
from pipelines.webhooks.app import ReceiverConfig, _server_config, create_app

logging.basicConfig(format="receiver: %(message)s")
logging.getLogger("pipelines.webhooks.spool").setLevel(logging.INFO)
config = ReceiverConfig(secret=sys.argv[2].encode(), spool_dir=Path(sys.argv[3]))
server = _server_config(create_app(config=config), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
uvicorn.Server(server).run()
"""


@dataclass
class _Tally:
    latencies: list[float] = field(default_factory=list)
    accepted: int = 0
    rejected: int = 0
    sent_bad: int = 0
    unexpected: dict[str, int] = field(default_factory=dict)


def _start_receiver(spool_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    # A free port, released for the child to bind. Not a socket handed over with fd=: uvicorn
    # wraps that as AF_UNIX, so uvloop leaves Nagle on and answers stall ~40 ms on delayed ACKs.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    child = subprocess.Popen([sys.executable, "-c", _RECEIVER, str(port), SECRET.decode(), str(spool_dir)], cwd=ROOT)
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base_url}/healthz", timeout=1).status_code == 200:
                return child, base_url
        except httpx.TransportError:
            time.sleep(0.1)
    child.kill()
    raise SystemExit("receiver did not become ready")


def _headers(number: int, sequence: int, good: str, is_bad: bool) -> dict[str, str]:
    return {
        "content-type": "application/json",
        "x-service-event": "issues",
        "x-service-delivery": f"s{number}-{sequence}",
        "x-hub-signature-256": "sha256=" + "0" * 64 if is_bad else good,
    }


def _record(tally: _Tally, status: int, is_bad: bool, elapsed: float) -> None:
    tally.sent_bad += is_bad
    if status == 200 and not is_bad:
        tally.accepted += 1
        tally.latencies.append(elapsed)
    elif status == 401 and is_bad:
        tally.rejected += 1
    else:
        key = f"{'bad' if is_bad else 'good'}->{status}"
        tally.unexpected[key] = tally.unexpected.get(key, 0) + 1


async def _raw_sender(
    port: int, number: int, body: bytes, good: str, bad_every: int, stop_at: float, tally: _Tally
) -> None:
    """HTTP/1.1 keep-alive on a bare asyncio stream: a few microseconds of client CPU per request."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    sequence = 0
    try:
        while time.monotonic() < stop_at:
            sequence += 1
            is_bad = bad_every > 0 and (sequence + number) % bad_every == 0
            head = "".join(f"{k}: {v}\r\n" for k, v in _headers(number, sequence, good, is_bad).items())
            request = f"POST /webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\n{head}content-length: {len(body)}\r\n\r\n"
            started = time.perf_counter()
            writer.write(request.encode() + body)
            status = int((await reader.readline()).split()[1])
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            await reader.readexactly(length)
            _record(tally, status, is_bad, time.perf_counter() - started)
    finally:
        writer.close()


async def _httpx_sender(
    base_url: str, number: int, body: bytes, good: str, bad_every: int, stop_at: float, tally: _Tally
) -> None:
    # One client (one keep-alive connection) per sender: a shared pool serializes on its lock.
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        sequence = 0
        while time.monotonic() < stop_at:
            sequence += 1
            is_bad = bad_every > 0 and (sequence + number) % bad_every == 0
            started = time.perf_counter()
            response = await client.post("/webhooks", content=body, headers=_headers(number, sequence, good, is_bad))
            _record(tally, response.status_code, is_bad, time.perf_counter() - started)


async def _send(base_url: str, *, client: str, seconds: float, senders: int, bad_share: float) -> tuple[_Tally, float]:
    body = PAYLOAD.read_bytes()
    good = sign(secret=SECRET, body=body)
    bad_every = round(1 / bad_share) if bad_share > 0 else 0
    tally = _Tally()
    port = int(base_url.rsplit(":", 1)[1])
    started = time.monotonic()
    stop_at = started + seconds
    if client == "raw":
        senders_ = [_raw_sender(port, n, body, good, bad_every, stop_at, tally) for n in range(senders)]
    else:
        senders_ = [_httpx_sender(base_url, n, body, good, bad_every, stop_at, tally) for n in range(senders)]
    await asyncio.gather(*senders_)
    return tally, time.monotonic() - started


def _percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000, method="inclusive")[round(q * 1000) - 1] if len(values) > 1 else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--senders", type=int, default=64)
    parser.add_argument("--bad-share", type=float, default=0.1)
    parser.add_argument(
        "--client",
        choices=["raw", "httpx"],
        default="raw",
        help="raw: minimal asyncio HTTP/1.1 sender (default); httpx: httpx.AsyncClient per sender",
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="webhooks-bench-") as tmp:
        spool_dir = Path(tmp) / "spool"
        receiver, base_url = _start_receiver(spool_dir)
        try:
            tally, elapsed = asyncio.run(
                _send(
                    base_url, client=args.client, seconds=args.seconds, senders=args.senders, bad_share=args.bad_share
                )
            )
        finally:
            receiver.send_signal(signal.SIGTERM)
            receiver.wait(timeout=30)

        spooled_ids = [s.record.delivery_id for seg in segments(spool_dir) for s in read_segment(seg)]
        spool_bytes = sum(p.stat().st_size for p in segments(spool_dir))
        conn = duckdb.connect(str(Path(tmp) / "bench.duckdb"))
        migrate(conn)
        load_started = time.perf_counter()
        result = load_spool(conn, spool_dir, batch_size=2000)
        load_seconds = time.perf_counter() - load_started
        rows = conn.execute("SELECT count(*), count(DISTINCT delivery_id) FROM events.webhook_deliveries").fetchone()
        conn.close()

    lat_ms = [x * 1000 for x in tally.latencies]
    print(
        f"client={args.client} senders={args.senders} seconds={elapsed:.1f} cpus={os.cpu_count()}"
        f" payload={PAYLOAD.stat().st_size} B"
    )
    print(f"valid accepted: {tally.accepted}  ({tally.accepted / elapsed:,.0f} deliveries/s)")
    print(f"bad rejected:   {tally.rejected} of {tally.sent_bad} sent")
    if lat_ms:
        print(
            f"latency ms: p50={_percentile(lat_ms, 0.5):.1f} p90={_percentile(lat_ms, 0.9):.1f} "
            f"p99={_percentile(lat_ms, 0.99):.1f} max={max(lat_ms):.1f}"
        )
    print(f"spooled: {len(spooled_ids)} records, {spool_bytes / 1e6:.1f} MB; distinct {len(set(spooled_ids))}")
    print(
        f"loaded: {result.loaded} rows (table {rows[0]}, distinct {rows[1]}) in {load_seconds:.2f} s "
        f"({result.loaded / max(load_seconds, 1e-9):,.0f} rows/s)"
    )
    if tally.unexpected:
        print(f"unexpected answers: {json.dumps(tally.unexpected)}")
    ok = (
        tally.accepted == len(spooled_ids) == len(set(spooled_ids)) == result.loaded == rows[0]
        and tally.rejected == tally.sent_bad
        and not tally.unexpected
    )
    print("accepted = spooled = loaded, rejected = bad, none lost:", "yes" if ok else "NO")
    p99 = f", p99 {_percentile(lat_ms, 0.99):.0f} ms" if lat_ms else ""
    record("webhooks", f"{tally.accepted / elapsed:,.0f} deliveries/s{p99} at {args.senders} senders", "none lost", ok)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
