"""Helpers of the end-to-end proofs: the emulator and the CLI as subprocesses, table fingerprints,
and the secret scan. Everything runs on loopback and in temporary directories."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import httpx
import zstandard

from tests._emulator import environ_for

# Columns that differ between two correct warehouses, each for a reason that has nothing to do
# with the data. Everything else of every table is compared.
# A fetch's or a download's time says when, not what: every table's `fetched_at` (the
# service's clock at the metadata fetch, or the wall clock of the download) differs between runs.
_EXCLUDED_EVERYWHERE = {"fetched_at": "time of the fetch or the download"}
_EXCLUDED: dict[tuple[str, str], dict[str, str]] = {
    # A link's path names the metadata fetch it came from (the version it pins): a link that
    # expired and was fetched again names a later one, for the same final content. The secret
    # scan proves no link keeps its signed query.
    ("raw", "report_files"): {"link": "names its metadata fetch"},
    ("raw", "quarantine"): {"link": "names its metadata fetch"},
    ("meta", "schema_migrations"): {"applied_at": "wall-clock time the migration ran"},
    ("meta", "view_definitions"): {"created_at": "wall-clock time the views were created"},
    ("events", "webhook_deliveries"): {
        "received_at": "wall-clock time the receiver accepted the delivery",
        "loaded_at": "wall-clock time of the load",
    },
    ("events", "spool_offsets"): {"updated_at": "wall-clock time of the load"},
    ("meta", "lake_files"): {
        "mtime_ns": "wall-clock time the publish wrote the lake file",
        "size": "the file's bytes follow its rows' order, which differs between runs (its rows are compared)",
    },
    ("meta", "declared_columns"): {"added_at": "wall-clock time migrate added the column"},
}
# Bookkeeping of one warehouse's history, not data: which lake partitions wait for the next
# publish depends on where a killed run stopped.
# raw.report_fetches and billing.fetches record every fetch: a killed run's re-run fetched its
# reports and its bill again.
_SKIPPED = {("meta", "lake_changes"), ("raw", "report_fetches"), ("billing", "fetches")}
# A seat listing is archived as the service sent it, with the links of its users, teams and
# organizations, which name the service's host and port: the two runs' emulators listen on
# different ports, so a listing's bytes, sha256 and file name differ for the same seats. Its
# seats are compared in the snapshot tables.
_HOST_BOUND: dict[tuple[str, str], tuple[str, frozenset[str]]] = {
    ("raw", "report_files"): ("level = 'seats'", frozenset({"bytes", "sha256", "archive_path"})),
}
# Compared after removing what is specific to one run's place: the archive lives under each
# warehouse's own RAW_DIR; the file's path inside the archive (scope, day, index, sha256) is
# compared.
_ARCHIVE_PATH = "archive_path"

_TABLES_SQL = (
    "SELECT schema_name, table_name FROM duckdb_tables() "
    "WHERE database_name = current_database() AND NOT temporary ORDER BY ALL"
)
_COLUMNS_SQL = (
    "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
    "AND schema_name = ? AND table_name = ? ORDER BY column_index"
)


@dataclass(frozen=True)
class Fingerprint:
    rows: int
    distinct_rows: int
    checksum: tuple[int, int]


def fingerprints(warehouse: Path, *, raw_dir: Path) -> dict[str, Fingerprint]:
    """Row count and an order-independent checksum of every table of a warehouse."""
    found: dict[str, Fingerprint] = {}
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        for schema, table in conn.execute(_TABLES_SQL).fetchall():
            if (schema, table) in _SKIPPED:
                continue
            excluded = _EXCLUDED_EVERYWHERE | _EXCLUDED.get((schema, table), {})
            params: list[object] = []
            expressions = []
            host_rows, host_columns = _HOST_BOUND.get((schema, table), ("FALSE", frozenset()))
            for (column,) in conn.execute(_COLUMNS_SQL, [schema, table]).fetchall():
                if column in excluded:
                    continue
                if column == _ARCHIVE_PATH:
                    expression = f"replace({_ARCHIVE_PATH}, ?, '')"
                    params.append(f"{raw_dir.resolve()}/")
                else:
                    expression = f'"{column}"'
                if column in host_columns:
                    expression = f"CASE WHEN {host_rows} THEN NULL ELSE {expression} END"
                expressions.append(f'{expression} AS "{column}"')
            # Identifiers come from DuckDB's own catalog, quoted; values are bound. The sum of
            # row hashes counts a doubled row twice, the xor does not: both together catch a
            # lost, doubled or changed row whatever the order the rows were written in.
            query = (
                f"SELECT count(*), count(DISTINCT h), coalesce(sum(h::HUGEINT), 0), coalesce(bit_xor(h), 0) "
                f'FROM (SELECT hash(r) AS h FROM (SELECT {", ".join(expressions)} FROM "{schema}"."{table}") r)'
            )
            rows, distinct, total, xor = conn.execute(query, params).fetchone()
            found[f"{schema}.{table}"] = Fingerprint(rows=rows, distinct_rows=distinct, checksum=(int(total), int(xor)))
    return found


def differences(reference: Mapping[str, Fingerprint], other: Mapping[str, Fingerprint]) -> list[str]:
    """One line per table whose rows differ from the reference (or that only one side has)."""
    lines = []
    for name in sorted(set(reference) | set(other)):
        ref, got = reference.get(name), other.get(name)
        if ref is None or got is None:
            lines.append(f"{name}: only in the {'reference' if got is None else 'other'} warehouse")
        elif ref != got:
            lines.append(f"{name}: {ref.rows} rows in the reference, {got.rows} here (checksums differ)")
    return lines


def doubled_tables(prints: Mapping[str, Fingerprint]) -> list[str]:
    return [name for name, p in sorted(prints.items()) if p.rows != p.distinct_rows]


@dataclass
class Emulator:
    """`python -m emulator` as a subprocess, with its credentials and admin endpoints."""

    process: subprocess.Popen
    base_url: str
    credentials: dict
    log: Path

    def set_faults(self, **faults: object) -> None:
        httpx.post(f"{self.base_url}/_emulator/faults", json=faults).raise_for_status()

    def stats(self) -> dict:
        return httpx.get(f"{self.base_url}/_emulator/stats").json()


@dataclass
class Emulated:
    """Where one pipeline instance keeps its files."""

    root: Path
    warehouse: Path = field(init=False)
    raw_dir: Path = field(init=False)

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.warehouse = self.root / "warehouse.duckdb"
        self.raw_dir = self.root / "raw"


def start_emulator(*, workdir: Path, seed: int, extra: tuple[str, ...] = ()) -> Emulator:
    workdir = workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    creds_path = workdir / "credentials.json"
    log = workdir / "emulator.log"
    handle = log.open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "emulator", "--credentials-out", str(creds_path), "--seed", str(seed), *extra],
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=handle,
        text=True,
    )
    handle.close()
    assert process.stdout is not None
    base_url = process.stdout.readline().strip()
    if not base_url.startswith("http://127.0.0.1:"):
        process.kill()
        raise AssertionError(f"emulator did not start: {log.read_text()}")
    credentials = json.loads(creds_path.read_text())
    if not Path(credentials["app_private_key_path"]).is_absolute():
        credentials["app_private_key_path"] = str(workdir / credentials["app_private_key_path"])
    return Emulator(process=process, base_url=base_url, credentials=credentials, log=log)


def stop(process: subprocess.Popen) -> None:
    # SIGTERM, not SIGINT: a child of a background job inherits an ignored SIGINT.
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def pipeline_env(emulator: Emulator, place: Emulated, *, first_day: str, **overrides: str) -> dict[str, str]:
    """The environment of `metrics-etl` pointed at the emulator, every file under `place`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WEBHOOK_", "DAGSTER_", "METRICS_"))}
    env |= environ_for(emulator, SERVICE_ENTERPRISE=emulator.credentials["enterprise"])
    env |= {
        "METRICS_HOME": str(place.root),
        "SERVICE_ETAG_CACHE": str(place.root / "http-cache.sqlite3"),
        "SERVICE_TOKEN_FILE": str(place.root / "token"),
        "WAREHOUSE_PATH": str(place.warehouse),
        "RAW_DIR": str(place.raw_dir),
        "SERVING_PATH": str(place.root / "serving.duckdb"),
        "LAKE_PATH": str(place.root / "lake"),
        "WEBHOOK_SPOOL_DIR": str(place.root / "spool"),
        "METRICS_START_DAY": first_day,
        "PYTHONUNBUFFERED": "1",
    }
    return env | overrides


def start_cli(args: list[str], *, env: Mapping[str, str], cwd: Path, log: Path) -> subprocess.Popen:
    handle = log.open("w")
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "pipelines.cli", *args],
            cwd=cwd,
            env=dict(env),
            stdout=handle,
            stderr=subprocess.STDOUT,
            text=True,
        )
    finally:
        handle.close()


def run_cli(args: list[str], *, env: Mapping[str, str], cwd: Path, log: Path, timeout: float = 240) -> tuple[int, str]:
    process = start_cli(args, env=env, cwd=cwd, log=log)
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"metrics-etl {' '.join(args)} did not finish: {log.read_text()[-2000:]}") from None
    return code, log.read_text()


def wait_or_kill(process: subprocess.Popen, *, after: float) -> bool:
    """SIGKILL the process after `after` seconds; False when it ended by itself before."""
    deadline = time.monotonic() + after  # when to strike, not a measured duration
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        time.sleep(0.05)
    if process.poll() is not None:
        return False
    process.send_signal(signal.SIGKILL)
    process.wait()
    return True


_SIGNED = re.compile(rb"signature=[0-9a-fA-F]{8,}")


def _texts(paths: list[Path]) -> Iterator[tuple[str, bytes]]:
    for root in paths:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            data = path.read_bytes()
            if path.suffix == ".zst":
                data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
            yield str(path), data


def _warehouse_texts(warehouse: Path) -> Iterator[tuple[str, bytes]]:
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        columns = conn.execute(
            "SELECT schema_name, table_name, column_name FROM duckdb_columns() "
            "WHERE database_name = current_database() "
            "AND (data_type IN ('VARCHAR', 'JSON') OR data_type LIKE 'VARCHAR%') ORDER BY ALL"
        ).fetchall()
        for schema, table, column in columns:
            # Identifiers from DuckDB's catalog; a list column is searched as its text form.
            values = conn.execute(
                f'SELECT string_agg("{column}"::VARCHAR, chr(10)) FROM "{schema}"."{table}"'
            ).fetchone()[0]
            yield f"{warehouse.name}:{schema}.{table}.{column}", (values or "").encode()


def secret_findings(*, secrets: Mapping[str, str], files: list[Path], warehouses: list[Path]) -> list[str]:
    """Where any secret, or any signed-link signature, appears: 'what in where' lines."""
    needles = {name: value.encode() for name, value in secrets.items() if value}
    found = []
    texts = [t for p in files if p.exists() for t in _texts([p])]
    texts += [t for w in warehouses if w.exists() for t in _warehouse_texts(w)]
    for where, data in texts:
        for name, needle in needles.items():
            if needle in data:
                found.append(f"{name} in {where}")
        if _SIGNED.search(data):
            found.append(f"a link signature in {where}")
    return found


def private_key_lines(pem_path: Path) -> dict[str, str]:
    """The private key's base64 body lines: any one of them found would leak the key."""
    lines = [line for line in pem_path.read_text().splitlines() if line and not line.startswith("-----")]
    return {f"private key line {i}": line for i, line in enumerate(lines)}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def deliver_webhooks(emulator: Emulator, place: Emulated, *, env: Mapping[str, str], log: Path, issues: int) -> int:
    """Real deliveries into the spool: `metrics-etl webhooks serve` on loopback, a hook on the
    emulator signed with its secret, and issues opened through the REST API. Returns how many
    records the spool holds when every delivery has arrived (or the bounded wait ends)."""
    from pipelines.webhooks.segments import read_segment, segments

    port = free_port()
    spool = place.root / "spool"
    receiver = start_cli(
        ["webhooks", "serve", "--port", str(port)],
        env={**env, "WEBHOOK_SECRET": emulator.credentials["webhook_secret"], "WEBHOOK_SPOOL_DIR": str(spool)},
        cwd=place.root,
        log=log,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60  # bounds on waiting, not measured durations
        while time.monotonic() < deadline and receiver.poll() is None:
            try:
                if httpx.get(f"{url}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        httpx.post(
            f"{emulator.base_url}/_emulator/hooks",
            json={
                "url": f"{url}/webhooks",
                "content_type": "json",
                "events": ["*"],
                "secret": emulator.credentials["webhook_secret"],
            },
        ).raise_for_status()
        headers = {"Authorization": f"token {emulator.credentials['token']}"}
        repo = httpx.get(f"{emulator.base_url}/orgs/{emulator.credentials['org']}/repos", headers=headers).json()[0]
        for n in range(issues):
            httpx.post(
                f"{emulator.base_url}/repos/{repo['full_name']}/issues",
                headers=headers,
                json={"title": f"chaos {n}"},
            ).raise_for_status()
        held = 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            held = sum(1 for seg in segments(spool) for _ in read_segment(seg)) if spool.exists() else 0
            if held >= issues:
                break
            time.sleep(0.2)
        return held
    finally:
        stop(receiver)
