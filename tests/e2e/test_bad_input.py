"""Bad input at every entry, through the CLI as a user runs it: each gets a clear message naming
what and where, no traceback, and nothing good is lost. docs/guarantees.md tabulates these."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import duckdb
import httpx
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.config import Settings
from pipelines.ingest.archive import MAX_LINE_BYTES
from pipelines.service import ServiceClient
from pipelines.service.errors import GraphQLError
from tests._emulator import environ_for
from tests.e2e.chaos import Emulated, Emulator, pipeline_env, run_cli, start_emulator, stop

# A final day, so the report served for it never changes between fetches.
DAY = datetime.now(UTC).date() - timedelta(days=6)
USERS = ("--users", "6")


def _run_args(day: date = DAY) -> list[str]:
    return ["run", "--day", day.isoformat(), "--no-latest", "--no-snapshots"]


def _one_clear_line(output: str) -> str:
    assert "Traceback" not in output, output
    return output.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def good_lines() -> list[str]:
    """Real user-level lines of DAY, fetched over HTTP from the emulator."""
    with running_emulator(EmulatorConfig(seed=7, users=6)) as emu:
        creds = emu.credentials
        meta = httpx.get(
            f"{emu.base_url}/orgs/{creds['org']}/assistant/metrics/reports/users-1-day",
            params={"day": DAY.isoformat()},
            headers={"Authorization": f"token {creds['token']}"},
        ).json()
        return [line for link in meta["download_links"] for line in httpx.get(link).text.splitlines()]


@pytest.fixture(scope="module")
def emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    emu = start_emulator(workdir=tmp_path_factory.mktemp("emulator"), seed=7, extra=USERS)
    try:
        yield emu
    finally:
        stop(emu.process)


def _wrong_type(line: str) -> str:
    record = json.loads(line)
    record["user_id"] = "not-a-number"
    return json.dumps(record)


def _with_field(line: str, field: str) -> str:
    """The record with one more (unknown) field in front: `field` is its JSON text `"name":value`."""
    return "{" + field + "," + line[1:]


def _nested(depth: int) -> str:
    return '"deep":' + '{"a":' * depth + "1" + "}" * depth


# name -> (lines of the served file from the good ones, {line number: reason contains}, good line numbers)
_REPORT_FILES: dict[str, tuple[Callable[[list[str]], list[str | bytes]], dict[int, str], list[int]]] = {
    "broken lines": (
        lambda g: [g[0], g[1][:50], g[2], "{not json", g[3]],
        {2: "malformed JSON", 4: "malformed JSON"},
        [1, 3, 5],
    ),
    "wrong types": (lambda g: [g[0], _wrong_type(g[1]), g[2]], {2: "field user_id: expected Int64, got str"}, [1, 3]),
    "a huge line": (lambda g: [g[0], "x" * 5_000_000, g[2]], {2: "malformed JSON"}, [1, 3]),
    "nested 700 levels": (
        lambda g: [g[0], _with_field(g[1], _nested(700)), g[2]],
        {2: "nested deeper than 64 levels (701 brackets open at once)"},
        [1, 3],
    ),
    "nested 20,000 levels": (
        lambda g: [g[0], _with_field(g[1], _nested(20_000)), g[2]],
        {2: "nested deeper than 64 levels (20001 brackets open at once)"},
        [1, 3],
    ),
    "a lone surrogate": (
        lambda g: [g[0], _with_field(g[1], '"note":"\\ud800"'), g[2]],
        {2: "invalid Unicode: lone surrogate escape \\ud800"},
        [1, 3],
    ),
    "invalid UTF-8": (
        lambda g: [g[0], b'{"note":"\xff\xfe",' + g[1][1:].encode(), g[2]],
        {2: "invalid UTF-8: byte 0xff at byte 10 of the line"},
        [1, 3],
    ),
}


def _serve_file(tmp_path: Path, lines: list[str | bytes]) -> tuple[Emulator, Path]:
    return _serve_bytes(
        tmp_path, b"".join((line if isinstance(line, bytes) else line.encode()) + b"\n" for line in lines)
    )


def _serve_bytes(tmp_path: Path, data: bytes) -> tuple[Emulator, Path]:
    """The emulator serving `data` as the organization's user-level report of DAY."""
    served = tmp_path / "served.ndjson"
    served.write_bytes(data)
    emu = start_emulator(
        workdir=tmp_path / "emulator",
        seed=7,
        extra=(*USERS, "--report-file", str(served), "--report-file-day", DAY.isoformat()),
    )
    return emu, served


@pytest.mark.parametrize("case", list(_REPORT_FILES))
def test_bad_report_lines_are_quarantined_named_and_the_good_ones_land(
    case: str, good_lines: list[str], tmp_path: Path
):
    build, bad, good = _REPORT_FILES[case]
    lines = build(good_lines)
    emu, _ = _serve_file(tmp_path, lines)
    try:
        place = Emulated(tmp_path / "pipeline")
        code, output = run_cli(
            _run_args(),
            env=pipeline_env(emu, place, first_day=DAY.isoformat()),
            cwd=place.root,
            log=tmp_path / "run.log",
        )
    finally:
        stop(emu.process)
    # The blocking check stops the run (and the publish) and names itself.
    assert code == 1
    line = _one_clear_line(output)
    assert f"check quarantine_is_empty on raw/report_files found {len(bad)}" in line
    assert ".ndjson.zst line" in line, "the message points at the archived file and line"
    with duckdb.connect(str(place.warehouse), read_only=True) as conn:
        landed = conn.execute(
            "SELECT user_id FROM core.user_daily_totals WHERE scope = 'organization' ORDER BY user_id"
        ).fetchall()
        quarantined = conn.execute(
            "SELECT line_number, reason, length(line_text), link, archive_path FROM raw.quarantine ORDER BY line_number"
        ).fetchall()
    assert [row[0] for row in landed] == sorted(json.loads(lines[n - 1])["user_id"] for n in good)
    assert [row[0] for row in quarantined] == sorted(bad)
    for number, reason, text_length, link, archive_path in quarantined:
        assert bad[number] in reason
        assert text_length <= 2000  # the line is kept for a look, cut to a bounded size
        assert "?" not in link and link.endswith(".ndjson")  # where: the file, without its signature
        assert Path(archive_path).is_file()  # the whole file is archived as it came


def test_an_empty_report_file_lands_as_a_file_with_no_records(tmp_path: Path):
    emu, _ = _serve_file(tmp_path, [])
    try:
        place = Emulated(tmp_path / "pipeline")
        code, output = run_cli(
            _run_args(),
            env=pipeline_env(emu, place, first_day=DAY.isoformat()),
            cwd=place.root,
            log=tmp_path / "run.log",
        )
    finally:
        stop(emu.process)
    assert code == 0, output
    with duckdb.connect(str(place.warehouse), read_only=True) as conn:
        files = conn.execute(
            "SELECT bytes, records, quarantined FROM raw.report_files WHERE scope = 'organization' AND level = 'user'"
        ).fetchall()
        users = conn.execute("SELECT count(*) FROM core.user_daily_totals WHERE scope = 'organization'").fetchone()[0]
        enterprise_users = conn.execute(
            "SELECT count(*) FROM core.user_daily_totals WHERE scope = 'enterprise'"
        ).fetchone()[0]
    assert files == [(0, 0, 0)]
    assert users == 0
    assert enterprise_users > 0  # the other reports of the day are untouched


def test_a_compressed_report_file_is_named_once_and_the_other_reports_land(good_lines: list[str], tmp_path: Path):
    emu, served = _serve_bytes(tmp_path, gzip.compress("".join(line + "\n" for line in good_lines).encode()))
    try:
        place = Emulated(tmp_path / "pipeline")
        code, output = run_cli(
            _run_args(),
            env=pipeline_env(emu, place, first_day=DAY.isoformat()),
            cwd=place.root,
            log=tmp_path / "run.log",
        )
    finally:
        stop(emu.process)
    assert code == 1
    line = _one_clear_line(output)
    assert "check quarantine_is_empty on raw/report_files found 1 (" in line
    assert ".ndjson.zst line 1: the file is gzip-compressed (it starts with bytes 1f 8b), not NDJSON" in line
    with duckdb.connect(str(place.warehouse), read_only=True) as conn:
        quarantined = conn.execute("SELECT file_index, line_number, reason FROM raw.quarantine").fetchall()
        files = conn.execute(
            "SELECT bytes, records, quarantined FROM raw.report_files WHERE scope = 'organization' AND level = 'user'"
        ).fetchall()
        enterprise_users = conn.execute(
            "SELECT count(*) FROM core.user_daily_totals WHERE scope = 'enterprise'"
        ).fetchone()[0]
    assert [(f, n) for f, n, _ in quarantined] == [(0, 1)]  # one row for the file, not one per "line"
    assert files == [(served.stat().st_size, 0, 1)]
    assert enterprise_users > 0


@pytest.fixture(scope="module")
def sixty_user_lines() -> list[str]:
    """The 60 user lines of DAY (the organization of issue 42's report), over HTTP from the emulator."""
    with running_emulator(EmulatorConfig(seed=7, users=60)) as emu:
        creds = emu.credentials
        meta = httpx.get(
            f"{emu.base_url}/orgs/{creds['org']}/assistant/metrics/reports/users-1-day",
            params={"day": DAY.isoformat()},
            headers={"Authorization": f"token {creds['token']}"},
        ).json()
        return [line for link in meta["download_links"] for line in httpx.get(link).text.splitlines()]


def _run_served(tmp_path: Path, lines: list[str]) -> tuple[int, str, Path]:
    served = tmp_path / "served.ndjson"
    served.write_text("".join(line + "\n" for line in lines))
    emu = start_emulator(
        workdir=tmp_path / "emulator",
        seed=7,
        extra=("--users", "60", "--report-file", str(served), "--report-file-day", DAY.isoformat()),
    )
    try:
        place = Emulated(tmp_path / "pipeline")
        code, output = run_cli(
            _run_args(),
            env=pipeline_env(emu, place, first_day=DAY.isoformat()),
            cwd=place.root,
            log=tmp_path / "run.log",
        )
    finally:
        stop(emu.process)
    return code, output, place.warehouse


def test_a_first_line_served_twice_lands_every_user_once_and_the_run_passes(sixty_user_lines, tmp_path):
    """Issue 42, break 5: the grain check failed and none of the day's 60 users landed."""
    code, output, warehouse = _run_served(tmp_path, [sixty_user_lines[0], *sixty_user_lines])
    assert code == 0, output
    assert "Traceback" not in output
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        users = conn.execute(
            "SELECT count(*), count(DISTINCT user_id) FROM core.user_daily_totals WHERE scope = 'organization'"
        ).fetchone()
        files = conn.execute(
            "SELECT sum(repeated_lines), sum(quarantined) FROM raw.report_files "
            "WHERE scope = 'organization' AND level = 'user'"
        ).fetchone()
    assert users == (60, 60)
    assert files == (1, 0)


def test_two_different_lines_of_one_user_are_quarantined_by_line_number_and_the_others_land(sixty_user_lines, tmp_path):
    first = json.loads(sixty_user_lines[0])
    changed = dict(first, code_generation_activity_count=int(first.get("code_generation_activity_count") or 0) + 3)
    lines = [*sixty_user_lines[:6], json.dumps(changed), *sixty_user_lines[6:]]
    code, output, warehouse = _run_served(tmp_path, lines)
    assert code == 1
    line = _one_clear_line(output)
    assert "check quarantine_is_empty on raw/report_files found 2 (" in line
    assert "lines 1 and 7 of file 0 hold one user's record of" in line
    # The failure line names line numbers, never the person.
    assert str(first["user_id"]) not in line and first["user_login"] not in line
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        users = conn.execute("SELECT count(*) FROM core.user_daily_totals WHERE scope = 'organization'").fetchone()
        mine = conn.execute(
            "SELECT count(*) FROM core.user_daily_totals WHERE scope = 'organization' AND user_id = ?",
            [first["user_id"]],
        )
        assert mine.fetchone() == (0,)
    assert users == (59,)


_HUGE = 200 * 1024 * 1024
_PEAK_RSS_BOUND_MB = 600


def _ingest_in_child() -> None:
    """Run in a subprocess (argv: base_url, token, org, dialect, day, workdir): ingest the day's
    user report and print what landed and the process's peak RSS."""
    base_url, token, org, dialect, day, work = sys.argv[1:]
    from pipelines.config import Secret
    from pipelines.ingest import ingest_report
    from pipelines.service import ReportRef
    from pipelines.warehouse import migrate

    settings = Settings(base_url=base_url, token=Secret(token), orgs=(org,), dialect=dialect, etag_cache=None)
    conn = duckdb.connect(str(Path(work) / "warehouse.duckdb"))
    migrate(conn)
    with ServiceClient(config=settings.service_config()) as client:
        ingest_report(
            client=client,
            ref=ReportRef("organization", org, "1-day", "user", date.fromisoformat(day)),
            conn=conn,
            raw_dir=Path(work) / "raw",
        )
    quarantined = conn.execute(
        "SELECT line_number, reason, length(line_text) FROM raw.quarantine ORDER BY 1"
    ).fetchall()
    landed = conn.execute("SELECT user_id FROM core.user_daily_totals ORDER BY 1").fetchall()
    status = Path("/proc/self/status").read_text()
    peak_kb = int(next(line for line in status.splitlines() if line.startswith("VmHWM:")).split()[1])
    print(json.dumps({"quarantined": quarantined, "landed": [r[0] for r in landed], "peak_rss_mb": peak_kb / 1024}))


def test_200_mb_lines_are_quarantined_while_memory_stays_bounded(good_lines: list[str], tmp_path: Path):
    served = tmp_path / "served.ndjson"
    blob = b"x" * (1 << 20)
    with served.open("wb") as out:  # written a MB at a time: the test holds no 200 MB line either
        out.write(good_lines[0].encode() + b"\n")
        out.write(b'{"blob":"')  # valid: a record with a 200 MB unknown field
        for _ in range(_HUGE // len(blob)):
            out.write(blob)
        out.write(b'",' + good_lines[1][1:].encode() + b"\n")
        out.write(good_lines[2].encode() + b"\n")
        out.write(b'{"user_id": 1, "blob": "')  # malformed: the string never ends
        for _ in range(_HUGE // len(blob)):
            out.write(blob)
        out.write(b"\n" + good_lines[3].encode() + b"\n")
    emu = start_emulator(
        workdir=tmp_path / "emulator",
        seed=7,
        extra=(*USERS, "--report-file", str(served), "--report-file-day", DAY.isoformat()),
    )
    try:
        creds = emu.credentials
        child = subprocess.run(
            [
                sys.executable,
                "-c",
                "from tests.e2e.test_bad_input import _ingest_in_child; _ingest_in_child()",
                creds["base_url"],
                creds["token"],
                creds["org"],
                creds["dialect"],
                DAY.isoformat(),
                str(tmp_path),
            ],
            capture_output=True,
            text=True,
            timeout=240,
        )
    finally:
        stop(emu.process)
    assert child.returncode == 0, child.stderr[-3000:]
    figures = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"peak RSS of the ingest with two 200 MB lines: {figures['peak_rss_mb']:.0f} MB")
    assert figures["landed"] == sorted(json.loads(good_lines[n])["user_id"] for n in (0, 2, 3))
    limit = f"bytes, over the limit of {MAX_LINE_BYTES:,} bytes for one line; not parsed (the archive keeps it whole)"
    assert figures["quarantined"] == [
        [2, f"line too long: {_HUGE + 10 + len(good_lines[1]):,} {limit}", 2000],
        [4, f"line too long: {_HUGE + 24:,} {limit}", 2000],
    ]
    assert figures["peak_rss_mb"] < _PEAK_RSS_BOUND_MB


class _NotJson(BaseHTTPRequestHandler):
    """A proxy's maintenance page: 200, but HTML."""

    def _answer(self) -> None:
        body = b"<html><body>Down for maintenance</body></html>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        return None


def test_a_200_answer_that_is_not_json_is_named_with_its_url(emulator: Emulator, tmp_path: Path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotJson)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        place = Emulated(tmp_path / "pipeline")
        env = pipeline_env(
            emulator, place, first_day=DAY.isoformat(), SERVICE_BASE_URL=url, SERVICE_GRAPHQL_URL=f"{url}/graphql"
        )
        outputs = [
            run_cli(args, env=env, cwd=place.root, log=tmp_path / f"{args[0]}.log") for args in (_run_args(), ["check"])
        ]
    finally:
        server.shutdown()
    for code, output in outputs:
        assert code == 1
        line = _one_clear_line(output)
        assert f"{url}/rate_limit" in line and "JSON" in line


def test_a_graphql_errors_answer_raises_naming_the_endpoint_and_the_message(emulator: Emulator, tmp_path: Path):
    creds = emulator.credentials
    settings = Settings.from_env(environ=environ_for(emulator, SERVICE_ETAG_CACHE=str(tmp_path / "cache")))
    with ServiceClient(config=settings.service_config()) as client, pytest.raises(GraphQLError) as raised:
        client.graphql(query='query { repository(owner: "acme", name: "ghost") { id } }')
    assert str(raised.value) == (
        f"POST {creds['graphql_url']} GraphQL errors: Could not resolve to a Repository with the name 'acme/ghost'."
    )


@pytest.mark.parametrize(
    ("case", "override", "expected"),
    [
        (
            "unknown API version",
            {"SERVICE_API_VERSION": "1999-01-01"},
            ["400", "Unsupported API version '1999-01-01'", "Check SERVICE_API_VERSION"],
        ),
        (
            "token without permission",
            {"SERVICE_TOKEN": "limited_token"},
            ["403", "/assistant/metrics/reports/", "metrics permission"],
        ),
    ],
)
def test_a_refused_request_fails_the_run_in_one_line_naming_url_and_remedy(
    case: str, override: dict[str, str], expected: list[str], emulator: Emulator, tmp_path: Path
):
    override = {k: emulator.credentials.get(v, v) for k, v in override.items()}
    place = Emulated(tmp_path / "pipeline")
    env = pipeline_env(emulator, place, first_day=DAY.isoformat(), **override)
    for args in (_run_args(), ["check"]):
        code, output = run_cli(args, env=env, cwd=place.root, log=tmp_path / f"{args[0]}.log")
        line = _one_clear_line(output)
        assert code == 1
        assert all(part in line for part in expected), line
        assert emulator.credentials["token"] not in output and emulator.credentials["limited_token"] not in output
    assert not list(place.raw_dir.rglob("*.zst"))  # refused before anything was fetched
