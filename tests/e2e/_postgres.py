"""A real PostgreSQL server for the end-to-end proofs: Debian's `postgresql` package (.ci/run
installs it), started on loopback in a temporary directory as an unprivileged user and stopped
at the end. `postgres_server()` is the context manager; tests/e2e/conftest.py makes it the
module-scoped `postgres` fixture."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg2

from tests.e2e.chaos import free_port


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's bin directory (Debian keeps one per major version)."""
    found = [Path(initdb).parent for initdb in glob.glob("/usr/lib/postgresql/*/bin/initdb")]
    return max(found, key=lambda bindir: int(bindir.parent.name) if bindir.parent.name.isdigit() else 0, default=None)


@dataclass(frozen=True)
class Postgres:
    port: int
    user: str
    password: str
    host: str = "127.0.0.1"

    def connect(self, dbname: str) -> Any:
        return psycopg2.connect(host=self.host, port=self.port, user=self.user, password=self.password, dbname=dbname)

    def create_database(self, name: str) -> dict[str, str]:
        """A fresh database; the DAGSTER_PG_* variables deploy/dagster.yaml reads to reach it."""
        conn = self.connect("postgres")
        try:
            conn.autocommit = True  # CREATE DATABASE cannot run inside a transaction
            with conn.cursor() as cur:
                cur.execute(f'CREATE DATABASE "{name}"')  # a name of this file's, not input
        finally:
            conn.close()
        return {
            "DAGSTER_PG_HOST": self.host,
            "DAGSTER_PG_PORT": str(self.port),
            "DAGSTER_PG_USER": self.user,
            "DAGSTER_PG_PASSWORD": self.password,
            "DAGSTER_PG_DB": name,
        }

    def count(self, dbname: str, sql: str) -> int:
        conn = self.connect(dbname)
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
                return int(cur.fetchone()[0])
        finally:
            conn.close()


def as_server_user() -> dict[str, Any]:
    """Popen arguments that drop root: PostgreSQL refuses to run as root, and tests here and on
    CI run as root. `nobody` exists on every Debian system, with or without the package's user."""
    if os.geteuid() != 0:
        return {}
    nobody = pwd.getpwnam("nobody")
    return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}


@contextmanager
def postgres_server() -> Iterator[Postgres | None]:
    """A started server (None when no PostgreSQL is installed: the caller skips)."""
    bindir = postgres_bin()
    if bindir is None:
        yield None
        return
    # Not pytest's tmp_path: its parents are private to root, so the server's user could not
    # reach it; /tmp also keeps the socket path under its 107-byte limit.
    root = Path(tempfile.mkdtemp(prefix="metrics-etl-pg-"))
    as_user = as_server_user()
    server = Postgres(port=free_port(), user="dagster", password="pg-test-password")
    pwfile = root / "pwfile"
    pwfile.write_text(server.password + "\n")
    if as_user:
        for path in (root, pwfile):
            os.chown(path, as_user["user"], as_user["group"])
    data, log = root / "data", root / "server.log"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}

    def pg(*args: str) -> None:
        done = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=120, **as_user)
        if done.returncode != 0:
            server_log = log.read_text()[-2000:] if log.exists() else ""
            raise AssertionError(f"{' '.join(args[:2])} failed: {done.stdout}{done.stderr}{server_log}")

    started = time.monotonic()
    try:
        # Password authentication, so the password really travels through DAGSTER_PG_PASSWORD.
        pg(
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            server.user,
            "--auth=scram-sha-256",
            f"--pwfile={pwfile}",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        with (data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"listen_addresses = '127.0.0.1'\nport = {server.port}\nunix_socket_directories = '{root}'\n"
                # A throwaway server: durability is not under test, and fsyncs slow every test.
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
            )
        pg(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60", "start")
        print(f"\npostgres: initdb and start {time.monotonic() - started:.1f}s")
        yield server
    finally:
        try:
            if (data / "postmaster.pid").exists():
                pg(str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(root, ignore_errors=True)
