"""An attacker in a process of its own: holds COUNT idle connections to the receiver, sending
nothing, and (`--renew`) opens a new one the moment the receiver closes one, until SECONDS pass.
With `--forged-bodies` each sends a complete head with a well-formed but forged signature and
then its body one byte every 5 s: a request under way, for as long as the body timeout allows.

    python -m tests.e2e.webhooks.idle_flood PORT COUNT SECONDS [--renew] [--forged-bodies]

Prints `open` once every connection is made, then `closed <n> answered-503 <m> reopened <k>`
when it stops. Raises its own soft open-file limit to fit COUNT (the hard limit permitting).
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import time

_FORGED_HEAD = (
    b"POST /webhooks HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-service-event: issues\r\n"
    b"x-service-delivery: forged\r\nx-hub-signature-256: sha256=" + b"0" * 64 + b"\r\ncontent-length: 100000\r\n\r\n{"
)
_TRICKLE_EVERY = 5.0


async def _answer(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, stop_at: float, forged: bool
) -> bytes | None:
    """What the receiver sent before closing, or None if the connection was still held at the end."""
    if forged:
        writer.write(_FORGED_HEAD)
    while (left := stop_at - time.monotonic()) > 0:
        try:
            return await asyncio.wait_for(reader.read(64), min(left, _TRICKLE_EVERY) if forged else left)
        except TimeoutError:
            if forged:
                writer.write(b" ")
        except ConnectionError:
            return b""
    return None


async def _hold(
    port: int, stop_at: float, renew: bool, forged: bool, tally: dict[str, int], opened: asyncio.Event, total: int
) -> None:
    first = True
    while time.monotonic() < stop_at:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        if first:
            first = False
            tally["connected"] += 1
            if tally["connected"] == total:
                opened.set()
        else:
            tally["reopened"] += 1
        try:
            answer = await _answer(reader, writer, stop_at, forged)
        finally:
            writer.close()
        if answer is not None:
            tally["closed"] += 1
            tally["answered_503"] += answer.startswith(b"HTTP/1.1 503 ")
        if not renew:
            return


async def _main(port: int, count: int, seconds: float, renew: bool, forged: bool) -> None:
    tally = {"connected": 0, "closed": 0, "answered_503": 0, "reopened": 0}
    opened = asyncio.Event()
    stop_at = time.monotonic() + seconds
    tasks = [asyncio.create_task(_hold(port, stop_at, renew, forged, tally, opened, count)) for _ in range(count)]
    await asyncio.wait_for(opened.wait(), seconds)
    print("open", flush=True)
    await asyncio.gather(*tasks)
    print(f"closed {tally['closed']} answered-503 {tally['answered_503']} reopened {tally['reopened']}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("count", type=int)
    parser.add_argument("seconds", type=float)
    parser.add_argument("--renew", action="store_true")
    parser.add_argument("--forged-bodies", action="store_true")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = args.count + 64
    if soft != resource.RLIM_INFINITY and soft < needed:
        raised = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
    asyncio.run(_main(args.port, args.count, args.seconds, args.renew, args.forged_bodies))


if __name__ == "__main__":
    main()
