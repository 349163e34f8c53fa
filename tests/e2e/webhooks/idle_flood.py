"""An attacker in a process of its own: holds COUNT idle connections to the receiver, sending
nothing, and (`--renew`) opens a new one the moment the receiver closes one, until SECONDS pass.

    python -m tests.e2e.webhooks.idle_flood PORT COUNT SECONDS [--renew]

Prints `open` once every connection is made, then `closed <n> answered-503 <m> reopened <k>`
when it stops. Raises its own soft open-file limit to fit COUNT (the hard limit permitting).
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import time


async def _hold(port: int, stop_at: float, renew: bool, tally: dict[str, int], opened: asyncio.Event,
                total: int) -> None:
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
            answer = await asyncio.wait_for(reader.read(64), max(stop_at - time.monotonic(), 0.01))
        except TimeoutError:
            answer = None  # still held when the time is up
        except ConnectionError:
            answer = b""
        finally:
            writer.close()
        if answer is not None:
            tally["closed"] += 1
            tally["answered_503"] += answer.startswith(b"HTTP/1.1 503 ")
        if not renew:
            return


async def _main(port: int, count: int, seconds: float, renew: bool) -> None:
    tally = {"connected": 0, "closed": 0, "answered_503": 0, "reopened": 0}
    opened = asyncio.Event()
    stop_at = time.monotonic() + seconds
    tasks = [asyncio.create_task(_hold(port, stop_at, renew, tally, opened, count)) for _ in range(count)]
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
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = args.count + 64
    if soft != resource.RLIM_INFINITY and soft < needed:
        raised = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
    asyncio.run(_main(args.port, args.count, args.seconds, args.renew))


if __name__ == "__main__":
    main()
