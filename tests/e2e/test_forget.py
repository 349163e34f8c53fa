"""`metrics-etl forget` as a person runs it, against the emulator over loopback: afterwards no file
of the data home names the person, read the way a reader would (the archive decompressed, every
DuckDB table and view and every Parquet column as text), and fetching the same days again does
not bring them back, nor does today's snapshot of the service, which still lists them. Retention
removes exactly the expired days."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
import zstandard

from emulator import EmulatorConfig, running_emulator
from emulator.reportdata import ReportData
from pipelines.defs.usage.checks import RUN_CHECKS
from pipelines.service import ServiceClient
from pipelines.warehouse.checks import run_checks
from pipelines.webhooks.segments import SEGMENT_SUFFIX, SpoolRecord, encode_record
from tests._alerts import webhook_server
from tests._emulator import environ_for, settings_for

CLI = str(Path(sys.executable).parent / "metrics-etl")
KEY = "a-test-pseudonym-key-of-some-length"


def _env(home: Path, emu: object, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_"))}
    env.update(METRICS_HOME=str(home), METRICS_PSEUDONYM_KEY=KEY, **environ_for(emu), **extra)  # type: ignore[arg-type]
    return env


def _cli(env: dict[str, str], home: Path, *args: str) -> str:
    done = subprocess.run([CLI, *args], env=env, cwd=home, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done.stdout


def _texts_of_duckdb(path: Path) -> list[str]:
    """Every value of every table and view of the database, as text."""
    texts = []
    with duckdb.connect(str(path), read_only=True) as conn:
        relations = conn.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() WHERE NOT temporary UNION ALL "
            "SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal AND NOT temporary"
        ).fetchall()
        for schema, name in relations:
            columns = [row[0] for row in conn.execute(f'DESCRIBE "{schema}"."{name}"').fetchall()]
            for column in columns:
                query = f'SELECT DISTINCT CAST("{column}" AS VARCHAR) FROM "{schema}"."{name}"'
                texts.extend(value for (value,) in conn.execute(query).fetchall() if value is not None)
    return texts


def _texts_of_parquet(path: Path) -> list[str]:
    table = pq.read_table(path)
    return [str(value) for column in table.columns for value in column.to_pylist() if value is not None]


def _texts_of_sqlite(path: Path) -> list[str]:
    """A SQLite file (Dagster's run storage, the ETag cache) as bytes and as its SQL text."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        dump = "\n".join(conn.iterdump())
    return [path.read_bytes().decode(errors="replace"), dump]


def _scan(home: Path, pattern: re.Pattern[str], *, skip: tuple[str, ...] = ()) -> list[str]:
    """Where under `home` the pattern is found, each file read as a reader reads it (but the
    files and directories named in `skip`)."""
    found = []
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        if path.relative_to(home).parts[0] in skip:
            continue
        if path.read_bytes()[:16] == b"SQLite format 3\x00":
            texts = _texts_of_sqlite(path)
        elif path.suffix == ".duckdb":
            texts = _texts_of_duckdb(path)
        elif path.suffix == ".parquet":
            texts = _texts_of_parquet(path)
        elif path.suffix == ".zst":
            unpacked = zstandard.ZstdDecompressor().decompressobj().decompress(path.read_bytes())
            texts = [unpacked.decode(errors="replace")]
        else:
            texts = [path.read_bytes().decode(errors="replace")]
        if any(pattern.search(text) for text in texts):
            found.append(str(path.relative_to(home)))
    return found


def _agent_users(home: Path, user_id: int) -> tuple[dict[tuple[object, ...], int], set[tuple[object, ...]]]:
    """bi.agent_usage_daily's users per scope, day and agent, and the keys the person counts in."""
    with duckdb.connect(str(home / "serving.duckdb"), read_only=True) as conn:
        users = conn.execute(
            "SELECT scope, scope_name, day, agent_id, agent_users FROM bi.agent_usage_daily"
        ).fetchall()
        theirs = conn.execute(
            "SELECT DISTINCT scope, scope_name, day, agent_id FROM core.agent_activity"
            " WHERE level = 'user' AND user_id = ?",
            [user_id],
        ).fetchall()
    return {row[:4]: row[4] for row in users}, set(theirs)


def _spool_a_delivery_naming(spool: Path, login: str, user_id: int) -> None:
    spool.mkdir(parents=True, exist_ok=True)
    sender = f'{{"login":"{login}","id":{user_id}}}'
    payload = f'{{"action":"opened","sender":{sender},"repository":{{"full_name":"acme/r"}}}}'
    record = SpoolRecord("delivery-1", "issues", datetime.now(UTC).isoformat(), payload.encode())
    (spool / f"{1:020d}-1-0001{SEGMENT_SUFFIX}").write_bytes(encode_record(record))


@pytest.fixture(scope="module")
def emu():
    with running_emulator(EmulatorConfig(seed=31, users=14, repos=2, issues_per_repo=2)) as running:
        yield running


def test_after_forget_no_file_of_the_data_home_names_the_person_and_a_rerun_does_not_bring_them_back(tmp_path, emu):
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home, emu)
    today = datetime.now(UTC).date()
    first, last = (today - timedelta(days=9)).isoformat(), (today - timedelta(days=5)).isoformat()
    _cli(env, home, "run", "--from", first, "--to", last)
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        login, user_id = conn.execute(
            "SELECT u.user_login, u.user_id FROM core.user_daily_totals AS u JOIN snapshots.seats AS s USING (user_id)"
            " WHERE u.user_login LIKE 'dev-%' AND u.user_id IN (SELECT user_id FROM core.agent_activity)"
            " ORDER BY u.user_id LIMIT 1"
        ).fetchone()
    agent_users_before, theirs = _agent_users(home, user_id)
    assert theirs, "the person ran an agent on some day"
    _spool_a_delivery_naming(home / "spool", login, user_id)
    pattern = re.compile(rf"(?i)(?<![0-9a-z]){re.escape(login)}(?![0-9a-z])|(?<![0-9A-Za-z]){user_id}(?![0-9A-Za-z])")
    assert _scan(home, pattern), "the person is in the data home before the erasure"

    said = _cli(env, home, "forget", login)
    assert "warehouse:" in said and "raw archive:" in said

    assert _scan(home, pattern) == []
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        stores = {row[0] for row in conn.execute("SELECT store FROM meta.erasures").fetchall()}
        rewritten = conn.execute("SELECT count(*) FROM meta.archive_lineage WHERE reason = 'erasure'").fetchone()[0]
    assert stores == {"webhook spool", "raw archive", "etag cache", "warehouse", "lake and serving databases"}
    assert rewritten > 0
    # The views still equal what the rows left say: one user fewer where the person was counted.
    # (Read as 0: the row of an agent only they used that day, gone; NULL, a day no user left
    # carried the agent array on.)
    agent_users_after, _ = _agent_users(home, user_id)
    assert set(agent_users_after) <= set(agent_users_before)
    assert {key: agent_users_after.get(key) or 0 for key in theirs} == {
        key: agent_users_before[key] - 1 for key in theirs
    }
    assert {key: agent_users_after[key] for key in agent_users_before if key not in theirs} == {
        key: users for key, users in agent_users_before.items() if key not in theirs
    }

    # The same days again, today's snapshot with them: the service still lists the person.
    _cli(env, home, "run", "--from", first, "--to", last)
    assert _scan(home, pattern) == []
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        dropped = conn.execute("SELECT count(*) FROM meta.archive_lineage WHERE reason = 'ingest'").fetchone()[0]
        others = conn.execute("SELECT count(DISTINCT user_id) FROM core.user_daily_totals").fetchone()[0]
        seats = conn.execute("SELECT count(*) FROM snapshots.seats WHERE snapshot_day = ?", [today]).fetchone()[0]
    assert dropped > 0 and others > 0 and seats > 0


ERASED_REASON = (
    "1 person(s) erased from this day's user rows (metrics-etl forget): the aggregate report still counts them"
)
UNRECONCILED = next(c for c in RUN_CHECKS if c.name == "reconciliation_holds")


def _reconciliation(path: Path, first: date, last: date) -> tuple[dict[tuple[object, ...], tuple[object, ...]], int]:
    """bi.reconciliation's 'aggregate vs users' rows of the days (scope, scope_name, day, measure ->
    difference, difference_share, status, reason) and what the check reconciliation_holds counts."""
    with duckdb.connect(str(path), read_only=True) as conn:
        rows = conn.execute(
            "SELECT scope, scope_name, day, measure, difference, difference_share, status, reason"
            " FROM bi.reconciliation WHERE comparison = 'aggregate vs users' AND day BETWEEN ? AND ?",
            [first, last],
        ).fetchall()
        (outcome,) = run_checks(conn, [UNRECONCILED], start_day=first, end_day=last)
    return {row[:4]: row[4:] for row in rows}, outcome.failures


def test_after_forget_the_days_the_person_was_on_are_explained_in_the_reconciliation_and_stay_so_on_refetch(
    tmp_path,
    emu,
):
    """Issue 42: the aggregate report still counts an erased person, so each final day they were on
    showed an 'unexplained' difference and reconciliation_holds warned for ever. Now the erasure
    counts those days (how many people, never whom), a fetch of them again keeps the count, and a
    day first fetched after the erasure, which drops them on ingest, is counted too."""
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home, emu)
    today = datetime.now(UTC).date()
    first, last, later = today - timedelta(days=9), today - timedelta(days=6), today - timedelta(days=5)
    fetch = ["--no-latest", "--no-snapshots"]
    _cli(env, home, "run", "--from", first.isoformat(), "--to", last.isoformat(), *fetch)
    warehouse, serving = home / "warehouse.duckdb", home / "serving.duckdb"
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        # The most active person: their share of some day's interactions is well over 1%.
        login, user_id = conn.execute(
            "SELECT user_login, user_id FROM core.user_daily_totals GROUP BY ALL"
            " ORDER BY sum(user_initiated_interaction_count) DESC, user_id LIMIT 1"
        ).fetchone()
        theirs = set(
            conn.execute(
                "SELECT scope, scope_name, day FROM core.user_daily_totals WHERE user_id = ?", [user_id]
            ).fetchall()
        )
    before, failures_before = _reconciliation(serving, first, later)
    assert failures_before == 0 and "unexplained" not in {status for _, _, status, _ in before.values()}

    _cli(env, home, "forget", login)

    for path in (warehouse, serving):
        after, failures = _reconciliation(path, first, later)
        assert failures == 0, path
        differing = {key: row for key, row in after.items() if key[:3] in theirs and row[0]}
        assert differing, "the aggregate report still counts the person"
        assert any(abs(share) > 0.01 for _, share, _, _ in differing.values()), "beyond the 1% tolerance"
        # Active users may differ by telemetry-only users too: the reason names both.
        assert {status for _, _, status, _ in differing.values()} == {"explained"}
        assert all(ERASED_REASON in reason for _, _, _, reason in differing.values())
        # Days they were not on keep their status and reason.
        assert {key: row for key, row in after.items() if key[:3] not in theirs} == {
            key: row for key, row in before.items() if key[:3] not in theirs
        }

    # The same days again and one more: the service still reports the person, whom ingest drops.
    _cli(env, home, "run", "--from", first.isoformat(), "--to", later.isoformat(), *fetch)
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        counted = dict(
            ((s, n, d), people)
            for s, n, d, people in conn.execute(
                "SELECT scope, scope_name, day, people_erased FROM core.erased_user_days"
            ).fetchall()
        )
        dropped = conn.execute("SELECT count(*) FROM meta.archive_lineage WHERE reason = 'ingest'").fetchone()[0]
        # The scope days of `later` whose user report ingest wrote again without the person.
        dropped_later = set(
            conn.execute(
                "SELECT DISTINCT f.scope, f.scope_name, f.report_start_day FROM meta.archive_lineage AS l"
                " JOIN raw.report_files AS f USING (archive_path) WHERE l.reason = 'ingest' AND f.level = 'user'"
                " AND f.report_start_day = ? AND f.report_end_day = ?",
                [later, later],
            ).fetchall()
        )
    assert dropped > 0
    assert {key: counted[key] for key in theirs} == dict.fromkeys(theirs, 1)  # never counted twice
    assert set(counted) - theirs == dropped_later
    for path in (warehouse, serving):
        again, failures = _reconciliation(path, first, later)
        assert failures == 0, path
        erased_days = set(counted)
        again_differing = [
            (status, reason)
            for key, (difference, _, status, reason) in again.items()
            if key[:3] in erased_days and difference
        ]
        assert again_differing and all(
            status == "explained" and ERASED_REASON in reason for status, reason in again_differing
        )


def test_forget_without_the_key_says_what_to_set_in_one_line(tmp_path, emu):
    env = _env(tmp_path, emu)
    env.pop("METRICS_PSEUDONYM_KEY")
    done = subprocess.run([CLI, "forget", "dev-00001"], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("metrics-etl forget: METRICS_PSEUDONYM_KEY is not set")


def test_retention_removes_exactly_the_expired_days(tmp_path, emu):
    home = tmp_path / "home"
    home.mkdir()
    today = datetime.now(UTC).date()
    days = [today - timedelta(days=n) for n in range(9, 4, -1)]
    env = _env(home, emu)
    _cli(env, home, "run", "--from", days[0].isoformat(), "--to", days[-1].isoformat(), "--no-latest", "--no-snapshots")
    # Kept: the last 7 days before today, so days[0] and days[1] (9 and 8 days old) expire.
    _cli(_env(home, emu, METRICS_RETENTION_DAYS="7"), home, "publish")
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        user_days = {row[0] for row in conn.execute("SELECT DISTINCT day FROM core.user_daily_totals").fetchall()}
        user_detail = {
            row[0] for row in conn.execute("SELECT DISTINCT day FROM core.breakdowns WHERE level = 'user'").fetchall()
        }
        aggregate_days = {row[0] for row in conn.execute("SELECT DISTINCT day FROM core.daily_totals").fetchall()}
        files = conn.execute("SELECT archive_path, report_end_day FROM raw.report_files").fetchall()
        erased = conn.execute("SELECT count(*) FROM core.erased_user_days").fetchone()[0]
    assert user_days == user_detail == set(days[2:])
    assert aggregate_days == set(days)
    assert erased == 0  # retention removes whole days: no reconciliation difference to explain
    assert {Path(path).exists() for path, end in files if end < days[2]} == {False}
    assert {Path(path).exists() for path, end in files if end >= days[2]} == {True}
    lake_days = {p.name.split("=", 1)[1] for p in (home / "lake" / "current" / "core.user_daily_totals").iterdir()}
    assert lake_days == {"__HIVE_DEFAULT_PARTITION__"} | {d.isoformat() for d in days[2:]}


def _person_pattern(login: str) -> re.Pattern[str]:
    """The login as a whole word in any case (`dev-000180` is someone else)."""
    return re.compile(rf"(?i)(?<![0-9a-z_-]){re.escape(login)}(?![0-9a-z_]|-[0-9a-z])")


def _spool(spool: Path, segment: int, deliveries: list[tuple[str, str, dict[str, object]]]) -> None:
    """Deliveries as the receiver spools them, in a segment whose writer is gone."""
    spool.mkdir(parents=True, exist_ok=True)
    received = datetime.now(UTC).isoformat()
    records = b"".join(
        encode_record(SpoolRecord(delivery_id, event, received, json.dumps(payload).encode()))
        for delivery_id, event, payload in deliveries
    )
    (spool / f"{segment:020d}-1-0001{SEGMENT_SUFFIX}").write_bytes(records)


def _titles(home: Path) -> set[str]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        return {t for (t,) in conn.execute("SELECT title FROM snapshots.issues WHERE title LIKE 'as disc%'").fetchall()}


def _deliveries(home: Path) -> dict[str, dict[str, object]]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        rows = conn.execute("SELECT delivery_id, CAST(payload AS VARCHAR) FROM events.webhook_deliveries").fetchall()
    return {delivery_id: json.loads(payload) for delivery_id, payload in rows}


def test_forget_keeps_other_peoples_events_sharing_the_persons_id_and_replaces_their_login_in_kept_text(tmp_path):
    """Issue 42, breaks 2 and 3: `forget` deleted a push to a repository whose id is the user id and
    an issue of that id, both sent by someone else, and later deliveries for that repository were
    passed; a body saying "as discussed with @dev-00018" stayed in every store. Now other people's
    events stay and land, before and after the erasure, and the login in their text, in an issue
    title of the snapshot, served again by the service, becomes `@[erased]` in every file."""
    home = tmp_path / "home"
    home.mkdir()
    with running_emulator(EmulatorConfig(seed=32, users=14, repos=2, issues_per_repo=2)) as emu:
        env = _env(home, emu)
        today = datetime.now(UTC).date()
        first, last = (today - timedelta(days=7)).isoformat(), (today - timedelta(days=6)).isoformat()
        with ServiceClient(config=settings_for(emu, etag_cache=None).service_config()) as client:
            author = client.get_json(path="/user")["login"]
            org = emu.credentials["org"]
            repo = client.get_json(path=f"/orgs/{org}/repos")[0]["full_name"]
            login, user_id = next(
                (m["login"], m["id"])
                for m in client.get_json(path=f"/orgs/{org}/members")
                if m["login"].startswith("dev-") and m["login"] != author
            )
            # An issue someone else wrote, mentioning the person: the service serves it in every snapshot.
            client.post_json(path=f"/repos/{repo}/issues", json={"title": f"as discussed with @{login.upper()}"})
        _cli(env, home, "run", "--from", first, "--to", last, "--no-latest")
        assert _titles(home) == {f"as discussed with @{login.upper()}"}
        other = {"login": author, "id": 1, "type": "User"}
        person = {"login": login, "id": user_id, "type": "User"}
        repository = {"id": user_id, "full_name": repo, "owner": {"login": "acme", "id": 2, "type": "Organization"}}
        push = {"ref": "refs/heads/main", "repository": repository, "pusher": {"name": author}, "sender": other}
        issue = {
            "id": user_id,
            "number": 77,
            "title": f"{login}, please look",
            "user": other,
            "body": f"as discussed with @{login.title()}; not @{login}0",
        }
        _spool(
            home / "spool",
            1,
            [
                ("push-1", "push", push),
                ("issue-1", "issues", {"action": "opened", "issue": issue, "repository": repository, "sender": other}),
                (
                    "theirs-1",
                    "issues",
                    {
                        "action": "opened",
                        "issue": {"id": 5, "user": person},
                        "repository": repository,
                        "sender": person,
                    },
                ),
            ],
        )
        _cli(env, home, "webhooks", "load")
        assert sorted(_deliveries(home)) == ["issue-1", "push-1", "theirs-1"]
        pattern = _person_pattern(login)
        assert _scan(home, pattern), "the person is in the data home before the erasure"

        _cli(env, home, "forget", login)

        kept = _deliveries(home)
        assert sorted(kept) == ["issue-1", "push-1"], "the person's own delivery goes, the others' stay"
        assert kept["push-1"] == push
        assert kept["issue-1"]["issue"] == issue | {
            "title": "[erased], please look",
            "body": f"as discussed with @[erased]; not @{login}0",
        }
        assert _titles(home) == {"as discussed with @[erased]"}
        assert _scan(home, pattern) == []

        # Later deliveries for that repository land; one mentioning the person lands with the placeholder.
        _spool(
            home / "spool",
            2,
            [
                ("push-2", "push", push | {"ref": "refs/heads/topic"}),
                # A landing holds only the login's hash: it tests @mentions, not every word of a text.
                (
                    "issue-2",
                    "issues",
                    {
                        "action": "edited",
                        "repository": repository,
                        "sender": other,
                        "issue": issue | {"title": "later", "body": f"cc @{login.upper()}"},
                    },
                ),
                (
                    "theirs-2",
                    "push",
                    {"ref": "refs/heads/x", "repository": repository, "pusher": {"name": login}, "sender": other},
                ),
            ],
        )
        said = _cli(env, home, "webhooks", "load")
        kept = _deliveries(home)
        assert sorted(kept) == ["issue-1", "issue-2", "push-1", "push-2"], said
        assert kept["issue-2"]["issue"]["body"] == "cc @[erased]"
        assert kept["push-2"]["repository"]["id"] == user_id
        # Today's snapshot again: the service still serves the title naming them.
        _cli(env, home, "run", "--day", last, "--no-latest")
        assert _titles(home) == {"as discussed with @[erased]"}
        assert _scan(home, pattern) == []


def _report_line(day: date, user_id: object, login: str, interactions: int) -> str:
    # The organization's own id: a record naming another entity would be quarantined as foreign.
    org_id = ReportData(seed=5, users=5, org="acme", enterprise="acme-corp", first_day=day).organization_id
    return json.dumps(
        {
            "user_id": user_id,
            "user_login": login,
            "day": day.isoformat(),
            "organization_id": org_id,
            "user_initiated_interaction_count": interactions,
            "code_generation_activity_count": 2,
            "code_acceptance_activity_count": 1,
        }
    )


def test_a_failed_check_names_no_person_in_logs_alerts_dagster_or_the_failure_line(tmp_path):
    """Issue 42, break 3: a failed uniqueness check named user 1000022 in the alert sent to the
    channel, in `logs/` and in Dagster's run storage, where `forget` does not look. A report whose
    lines name two people fails its run (one user's two different lines; another's id sent as a
    string, which the quarantine's reason quotes); nothing but the stores that hold people names
    either, and after `forget` no file does."""
    day = datetime.now(UTC).date() - timedelta(days=6)
    report = tmp_path / "users.ndjson"
    lines = [
        _report_line(day, 1000022, "dev-00022", 3),
        _report_line(day, 1000022, "dev-00022", 4),
        _report_line(day, "1000023", "dev-00023", 1),
        _report_line(day, 1000024, "dev-00024", 2),
    ]
    report.write_text("".join(line + "\n" for line in lines))
    home = tmp_path / "home"
    home.mkdir()
    config = EmulatorConfig(seed=5, users=5, repos=1, report_file=report, report_file_day=day)
    with running_emulator(config) as emu, webhook_server() as hook:
        env = _env(home, emu, METRICS_ALERTS=hook.url, METRICS_START_DAY=(day - timedelta(days=3)).isoformat())
        done = subprocess.run(
            [CLI, "run", "--day", day.isoformat(), "--no-latest", "--no-snapshots"],
            env=env,
            cwd=home,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-3000:]
        assert hook.texts, "the failed run was told to the channel"
        people = re.compile(r"(?<![0-9])100002[234](?![0-9])|(?i:dev-0002[234](?![0-9]))")
        told = [done.stdout, done.stderr, *hook.texts]
        assert [text for text in told if people.search(text)] == []
        # The stores that hold people (docs/privacy.md) aside, no file names either of them.
        holders = ("warehouse.duckdb", "warehouse.duckdb.wal", "raw", "spool", "http-cache.sqlite3")
        assert (home / "logs").is_dir() and (home / "dagster").is_dir()
        assert _scan(home, people, skip=holders) == []

        _cli(env, home, "forget", "1000022")
        _cli(env, home, "forget", "dev-00023")
        _cli(env, home, "forget", "dev-00024")
    assert _scan(home, people) == []


def test_forget_erases_a_co_author_address_and_an_untyped_user_and_keeps_objects_spelled_like_the_login(tmp_path, emu):
    """Issue 42, attacks on `forget` by a hostile delivery: the person as a co-author of someone
    else's commit (`1000018+dev-00018@users.noreply…`, which kept their id after `[erased]`, and
    landed whole later), as an untyped user object at a path no kind declares (landed with their
    id), and a repository, a team and a label named like their login (renamed `[erased]` in
    other people's events). Now the address goes whole, the untyped user's delivery goes, the
    others' objects stay as they came; now and in later deliveries; forgetting twice changes nothing."""
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home, emu)
    login, user_id = "dev-00018", 1000018
    other = {"login": "dev-00001", "id": 1000001, "type": "User"}
    person = {"login": login, "id": user_id, "type": "User"}
    co_author = f"fix\n\nCo-authored-by: Dev <{user_id}+{login}@users.noreply.example.com>"
    repository = {
        "id": user_id,
        "name": login,
        "full_name": f"acme/{login}",
        "owner": {"login": "acme", "id": 2, "type": "Organization"},
    }
    push = {
        "ref": "refs/heads/main",
        "repository": repository,
        "pusher": {"name": "dev-00001"},
        "sender": other,
        "commits": [{"message": co_author, "author": {"name": "D", "username": "dev-00001"}}],
    }
    team = {
        "action": "added",
        "sender": other,
        "member": other,
        "team": {"id": user_id, "name": login.upper(), "slug": login},
    }
    issue = {
        "action": "labeled",
        "sender": other,
        "repository": repository,
        "label": {"id": user_id, "name": login},
        "issue": {"id": user_id, "number": 3, "user": other, "body": f"cc @acme/{login}, thanks @{login}"},
    }
    untyped = {"action": "created", "sender": other, "discussion": {"id": 9, "user": {"login": login, "id": user_id}}}
    _spool(
        home / "spool",
        1,
        [
            ("push-1", "push", push),
            ("team-1", "membership", team),
            ("issue-1", "issues", issue),
            ("untyped-1", "discussion", untyped),
            (
                "theirs-1",
                "issues",
                {
                    "action": "opened",
                    "issue": {"id": 5, "user": person},
                    "sender": person,
                    "repository": {"id": 4, "full_name": "acme/r"},
                },
            ),
        ],
    )
    said = _cli(env, home, "webhooks", "load")
    assert sorted(_deliveries(home)) == ["issue-1", "push-1", "team-1", "theirs-1", "untyped-1"], said
    # The person's id as a whole number inside a no-reply address, or their login as a mention.
    named = re.compile(rf"(?<![0-9]){user_id}\+|(?i:@{re.escape(login)}(?![0-9a-z_-]))")

    _cli(env, home, "forget", str(user_id))  # by id: the login is known only from their own delivery

    kept = _deliveries(home)
    assert sorted(kept) == ["issue-1", "push-1", "team-1"]
    erased_commit = push["commits"][0] | {"message": "fix\n\nCo-authored-by: Dev <[erased]>"}
    assert kept["push-1"] == push | {"commits": [erased_commit]}
    assert kept["team-1"] == team
    assert kept["issue-1"] == issue | {"issue": {**issue["issue"], "body": f"cc @acme/{login}, thanks @[erased]"}}
    assert _scan(home, named) == []

    # Later deliveries: the same attacks land the same way; the person's own untyped record does not.
    _spool(
        home / "spool",
        2,
        [
            ("push-2", "push", push | {"ref": "refs/heads/topic"}),
            ("team-2", "membership", team),
            ("untyped-2", "discussion", untyped),
        ],
    )
    _cli(env, home, "webhooks", "load")
    kept = _deliveries(home)
    assert sorted(kept) == ["issue-1", "push-1", "push-2", "team-1", "team-2"]
    assert kept["push-2"]["commits"][0]["message"] == "fix\n\nCo-authored-by: Dev <[erased]>"
    assert kept["push-2"]["repository"] == repository and kept["team-2"] == team
    assert _scan(home, named) == []

    said = _cli(env, home, "forget", login.upper())
    assert "warehouse: 0 rows removed" in said
    assert _deliveries(home) == kept


@pytest.mark.parametrize(
    "who", ["@", "\u00b2", "\uff11\uff10\uff10\uff10\uff10\uff11\uff18", "dev 00018", "dev-00018/x", "'; DROP x; --"]
)
def test_forget_of_something_no_login_or_id_is_spelled_like_says_so_in_one_line_and_erases_nothing(tmp_path, emu, who):
    """Issue 42 attack: `forget ²` ended in a traceback (a Unicode digit is no int), `forget @`
    erased the empty login (a hash later landings then tested every empty login against)."""
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home, emu)
    # A warehouse to erase from.
    _spool(
        home / "spool",
        1,
        [
            (
                "push-1",
                "push",
                {
                    "ref": "x",
                    "repository": {"id": 4, "full_name": "acme/r"},
                    "sender": {"login": "dev-00001", "id": 1000001, "type": "User"},
                },
            )
        ],
    )
    _cli(env, home, "webhooks", "load")
    done = subprocess.run([CLI, "forget", who], env=env, cwd=home, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("metrics-etl forget: ") and "neither a login, a numeric user id nor an email" in line
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        assert conn.execute("SELECT count(*) FROM meta.forgotten_people").fetchone() == (0,)


def test_forget_replaces_the_login_in_the_columns_a_delivery_lands_from_its_payload_too(tmp_path, emu):
    """Issue 42 attack: a delivery of someone else naming a repository under the person's login
    (`dev-00018/tools`, its owner untyped) had its payload's text replaced by the erasure, but the
    `repository_full_name` and `action` columns the loader took from it kept the login, in the
    warehouse, the serving database and the lake."""
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home, emu)
    login = "dev-00018"
    other = {"login": "dev-00001", "id": 1000001, "type": "User"}
    push = {
        "ref": "refs/heads/main",
        "repository": {"id": 4, "full_name": f"{login}/tools", "owner": {"id": 3}},
        "pusher": {"name": "dev-00001"},
        "sender": other,
    }
    issue = {
        "action": f"@{login}",
        "repository": {"id": 5, "full_name": "acme/r"},
        "sender": other,
        "issue": {"id": 6, "user": other, "title": "t"},
    }
    _spool(home / "spool", 1, [("push-1", "push", push), ("issue-1", "issues", issue)])
    _cli(env, home, "webhooks", "load")
    pattern = _person_pattern(login)
    assert _scan(home, pattern)

    _cli(env, home, "forget", login)

    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        columns = conn.execute(
            "SELECT delivery_id, action, repository_full_name FROM events.webhook_deliveries ORDER BY 1"
        ).fetchall()
    assert columns == [("issue-1", "@[erased]", "acme/r"), ("push-1", None, "[erased]/tools")]
    assert _scan(home, pattern) == []


def test_forget_by_id_finds_a_person_whose_every_line_was_quarantined_even_with_the_id_as_a_string(tmp_path):
    """Issue 42 attack, forgetting by id when the warehouse never landed the person: one user's two
    different lines (both quarantined), another's id sent as a JSON string (quarantined for it).
    `forget 1000023` missed `"user_id": "1000023"` in the quarantine and the raw archive, and a
    later fetch landed it in the quarantine again; `forget 1000022` did not learn the login from
    the quarantined lines, so text naming it stayed. Now both go, everywhere, and stay gone."""
    day = datetime.now(UTC).date() - timedelta(days=6)
    report = tmp_path / "users.ndjson"
    lines = [
        _report_line(day, 1000022, "dev-00022", 3),
        _report_line(day, 1000022, "dev-00022", 4),
        _report_line(day, "1000023", "dev-00023", 1),
        _report_line(day, 1000024, "dev-00024", 2),
    ]
    report.write_text("".join(line + "\n" for line in lines))
    home = tmp_path / "home"
    home.mkdir()
    config = EmulatorConfig(seed=5, users=5, repos=1, report_file=report, report_file_day=day)
    people = re.compile(r"(?<![0-9])100002[23](?![0-9])|(?i:dev-0002[23](?![0-9]))")
    with running_emulator(config) as emu:
        env = _env(home, emu, METRICS_START_DAY=(day - timedelta(days=3)).isoformat())
        fetch = [CLI, "run", "--day", day.isoformat(), "--no-latest", "--no-snapshots"]
        subprocess.run(fetch, env=env, cwd=home, capture_output=True, text=True, timeout=900, check=False)
        # A delivery of someone else mentioning the first of them: only the quarantine knows its login.
        other = {"login": "dev-00024", "id": 1000024, "type": "User"}
        _spool(
            home / "spool",
            1,
            [
                (
                    "issue-1",
                    "issues",
                    {
                        "action": "opened",
                        "repository": {"id": 4, "full_name": "acme/r"},
                        "sender": other,
                        "issue": {"id": 6, "user": other, "title": "ask @dev-00022"},
                    },
                )
            ],
        )
        _cli(env, home, "webhooks", "load")
        assert _scan(home, people)

        said = _cli(env, home, "forget", "1000022") + _cli(env, home, "forget", "1000023")

        assert _scan(home, people) == [], said
        assert _deliveries(home)["issue-1"]["issue"]["title"] == "ask @[erased]"
        subprocess.run(fetch, env=env, cwd=home, capture_output=True, text=True, timeout=900, check=False)
        assert _scan(home, people) == []
        with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
            landed = conn.execute("SELECT DISTINCT user_login FROM core.user_daily_totals").fetchall()
        assert landed == [("dev-00024",)]
