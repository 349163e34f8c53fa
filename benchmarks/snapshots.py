"""What a snapshot day costs against the emulator: requests, 304 share, GraphQL calls.

    .venv/bin/python benchmarks/snapshots.py [--repos 200] [--issues 20000] [--max-aliases N]

Starts the emulator on loopback with `--repos` repositories holding `--issues` issues in all,
takes the same snapshot day twice with two clients sharing one persistent ETag cache (two runs
on one machine), landing both in a temporary DuckDB. Prints requests per run, the 304 share of
the second run's REST GETs, GraphQL calls per 100 repositories and wall time, against the
targets of issue 5. `--max-aliases` injects 502s above N aliased repositories per query, to
show what the adaptive batch costs. Exits 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.summary import record  # noqa: E402
from emulator import EmulatorConfig, FaultSpec, running_emulator  # noqa: E402
from pipelines.config import Secret, Settings  # noqa: E402
from pipelines.ingest.snapshots import SnapshotResult, SnapshotSettings, run_snapshot  # noqa: E402
from pipelines.service import ServiceClient  # noqa: E402
from pipelines.warehouse import migrate  # noqa: E402

DAY = date(2026, 11, 20)
PER_PAGE = 100


def _pages_needed(result: SnapshotResult, *, repos: int, members: int) -> int:
    """REST pages a client that knew the sizes would need: listings of 100 per page (seats too)."""
    issues_per_repo = result.frames["issues"].group_by("repository_id").len()["len"].to_list()
    empty_repos = repos - len(issues_per_repo)
    issue_pages = sum(math.ceil(n / PER_PAGE) for n in issues_per_repo) + empty_repos
    seat_pages = max(1, math.ceil(result.frames["seats"].height / PER_PAGE))
    return issue_pages + math.ceil(repos / PER_PAGE) + math.ceil(members / PER_PAGE) + seat_pages


def _run(emu, *, cache: Path, conn: duckdb.DuckDBPyConnection) -> tuple[SnapshotResult, float]:
    creds = emu.credentials
    settings = Settings(
        base_url=creds["base_url"],
        graphql_url=creds["graphql_url"],
        token=Secret(creds["token"]),
        orgs=(creds["org"],),
        dialect=creds["dialect"],
        etag_cache=cache,
    )
    started = time.perf_counter()
    with ServiceClient(config=settings.service_config()) as client:
        result = run_snapshot(client, conn, settings=SnapshotSettings(orgs=(creds["org"],)), day=DAY)
    return result, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=int, default=200)
    parser.add_argument("--issues", type=int, default=20_000)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--max-aliases", type=int, default=None)
    args = parser.parse_args()

    config = EmulatorConfig(
        seed=11,
        users=args.users,
        repos=args.repos,
        issues_per_repo=args.issues // args.repos,
        faults=FaultSpec(graphql_max_aliases=args.max_aliases),
    )
    with tempfile.TemporaryDirectory() as tmp, running_emulator(config) as emu:
        conn = duckdb.connect(str(Path(tmp) / "warehouse.duckdb"))
        migrate(conn)
        cache = Path(tmp) / "etag-cache.sqlite3"
        first, first_s = _run(emu, cache=cache, conn=conn)
        second, second_s = _run(emu, cache=cache, conn=conn)
        conn.close()

    issues = first.frames["issues"].height
    pages = _pages_needed(first, repos=args.repos, members=first.frames["org_members"].height)
    rest_budget = pages + 2 * args.repos
    per_100 = first.cost.graphql_calls / args.repos * 100
    share = second.cost.not_modified_share

    print(f"emulator: {args.repos} repositories, {issues} issues and pull requests, {args.users} members")
    if args.max_aliases is not None:
        print(f"faults: 502 above {args.max_aliases} aliased repositories per GraphQL query")
    print(
        f"{'run':<8}{'requests':>10}{'REST GETs':>11}{'304s':>7}{'GraphQL calls':>15}{'failed':>8}"
        f"{'GraphQL cost':>14}{'seconds':>9}"
    )
    for name, result, seconds in (("first", first, first_s), ("second", second, second_s)):
        c = result.cost
        print(
            f"{name:<8}{c.requests:>10}{c.rest_requests:>11}{c.not_modified:>7}{c.graphql_calls:>15}"
            f"{c.graphql_batch_failures:>8}{c.graphql_cost if c.graphql_cost is not None else '-':>14}"
            f"{seconds:>9.1f}"
        )
    checks = [
        (
            f"REST GETs, first run: {first.cost.rest_requests} <= pages needed {pages} + 2 x {args.repos} "
            f"= {rest_budget}",
            first.cost.rest_requests <= rest_budget,
        ),
        (f"304 share of REST GETs, second run: {share:.1%} >= 90%", share >= 0.9),
        (f"GraphQL calls per 100 repositories: {per_100:.1f} <= 4", per_100 <= 4)
        if args.max_aliases is None
        else (
            f"GraphQL calls per 100 repositories: {per_100:.1f} (fewest possible at "
            f"{args.max_aliases} a call: {100 / args.max_aliases:.1f}; failed calls: "
            f"{first.cost.graphql_batch_failures})",
            True,
        ),
        (
            "second run landed identical row counts",
            all(first.frames[t].height == second.frames[t].height for t in first.frames),
        ),
    ]
    for text, ok in checks:
        print(f"  {'ok    ' if ok else 'MISSED'}  {text}")
        record("snapshots", text, "as stated", ok)
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
