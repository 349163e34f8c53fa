"""Bad input at every entry, through the CLI as a user runs it: each gets a clear message naming
what and where, no traceback, and nothing good is lost. The README's "Guarantees" section tabulates these."""

from __future__ import annotations

import json
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
from pipelines.service import ServiceClient
from pipelines.service.errors import GraphQLError
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
            params={"day": DAY.isoformat()}, headers={"Authorization": f"token {creds['token']}"},
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


# name -> (lines of the served file from the good ones, {line number: reason contains}, good line numbers)
_REPORT_FILES: dict[str, tuple[Callable[[list[str]], list[str]], dict[int, str], list[int]]] = {
    "broken lines": (lambda g: [g[0], g[1][:50], g[2], "{not json", g[3]], {2: "malformed JSON", 4: "malformed JSON"}, [1, 3, 5]),
    "wrong types": (lambda g: [g[0], _wrong_type(g[1]), g[2]], {2: "field user_id: expected Int64, got str"}, [1, 3]),
    "a huge line": (lambda g: [g[0], "x" * 5_000_000, g[2]], {2: "malformed JSON"}, [1, 3]),
}


def _serve_file(tmp_path: Path, lines: list[str]) -> tuple[Emulator, Path]:
    served = tmp_path / "served.ndjson"
    served.write_text("".join(line + "\n" for line in lines))
    emu = start_emulator(
        workdir=tmp_path / "emulator", seed=7,
        extra=(*USERS, "--report-file", str(served), "--report-file-day", DAY.isoformat()),
    )
    return emu, served


@pytest.mark.parametrize("case", list(_REPORT_FILES))
def test_bad_report_lines_are_quarantined_named_and_the_good_ones_land(case: str, good_lines: list[str], tmp_path: Path):
    build, bad, good = _REPORT_FILES[case]
    lines = build(good_lines)
    emu, _ = _serve_file(tmp_path, lines)
    try:
        place = Emulated(tmp_path / "pipeline")
        code, output = run_cli(_run_args(), env=pipeline_env(emu, place, first_day=DAY.isoformat()), cwd=place.root, log=tmp_path / "run.log")
    finally:
        stop(emu.process)
    # The blocking check stops the run (and the serving copy) and names itself.
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
        code, output = run_cli(_run_args(), env=pipeline_env(emu, place, first_day=DAY.isoformat()), cwd=place.root, log=tmp_path / "run.log")
    finally:
        stop(emu.process)
    assert code == 0, output
    with duckdb.connect(str(place.warehouse), read_only=True) as conn:
        files = conn.execute(
            "SELECT bytes, records, quarantined FROM raw.report_files WHERE scope = 'organization' AND level = 'user'"
        ).fetchall()
        users = conn.execute("SELECT count(*) FROM core.user_daily_totals WHERE scope = 'organization'").fetchone()[0]
        enterprise_users = conn.execute("SELECT count(*) FROM core.user_daily_totals WHERE scope = 'enterprise'").fetchone()[0]
    assert files == [(0, 0, 0)]
    assert users == 0
    assert enterprise_users > 0  # the other reports of the day are untouched


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
        env = pipeline_env(emulator, place, first_day=DAY.isoformat(), SERVICE_BASE_URL=url, SERVICE_GRAPHQL_URL=f"{url}/graphql")
        outputs = [run_cli(args, env=env, cwd=place.root, log=tmp_path / f"{args[0]}.log") for args in (_run_args(), ["check"])]
    finally:
        server.shutdown()
    for code, output in outputs:
        assert code == 1
        line = _one_clear_line(output)
        assert f"{url}/rate_limit" in line and "JSON" in line


def test_a_graphql_errors_answer_raises_naming_the_endpoint_and_the_message(emulator: Emulator, tmp_path: Path):
    creds = emulator.credentials
    settings = Settings.from_env(environ={
        "SERVICE_BASE_URL": creds["base_url"], "SERVICE_TOKEN": creds["token"], "SERVICE_ETAG_CACHE": str(tmp_path / "cache"),
    })
    with ServiceClient(settings=settings) as client, pytest.raises(GraphQLError) as raised:
        client.graphql(query='query { repository(owner: "acme", name: "ghost") { id } }')
    assert str(raised.value) == (
        f"POST {creds['graphql_url']} GraphQL errors: Could not resolve to a Repository with the name 'acme/ghost'."
    )


@pytest.mark.parametrize(
    ("case", "override", "expected"),
    [
        ("unknown API version", {"SERVICE_API_VERSION": "1999-01-01"},
         ["400", "Unsupported API version '1999-01-01'", "Check SERVICE_API_VERSION"]),
        ("token without permission", {"SERVICE_TOKEN": "limited_token"},
         ["403", "/assistant/metrics/reports/", "metrics permission"]),
    ],
)
def test_a_refused_request_fails_the_run_in_one_line_naming_url_and_remedy(
    case: str, override: dict[str, str], expected: list[str], emulator: Emulator, tmp_path: Path
):
    override = {k: emulator.credentials[v] if v in emulator.credentials else v for k, v in override.items()}
    place = Emulated(tmp_path / "pipeline")
    env = pipeline_env(emulator, place, first_day=DAY.isoformat(), **override)
    for args in (_run_args(), ["check"]):
        code, output = run_cli(args, env=env, cwd=place.root, log=tmp_path / f"{args[0]}.log")
        line = _one_clear_line(output)
        assert code == 1
        assert all(part in line for part in expected), line
        assert emulator.credentials["token"] not in output and emulator.credentials["limited_token"] not in output
    assert not list(place.raw_dir.rglob("*.zst"))  # refused before anything was fetched
