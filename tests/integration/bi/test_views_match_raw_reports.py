"""The bi.* views of a warehouse materialized through Dagster from the emulator, checked against
numbers computed here straight from the report NDJSON downloaded with plain httpx."""

import json
import subprocess
import sys
import textwrap
from collections import defaultdict
from datetime import date, timedelta

import dagster as dg
import duckdb
import httpx
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.config import Settings
from pipelines.definitions import build_definitions
from tests._emulator import environ_for

_REPORTS = {  # (scope, level) → path under the base address, {name} the scope's name
    ("organization", "aggregate"): "/orgs/{name}/assistant/metrics/reports/organization-1-day",
    ("organization", "user"): "/orgs/{name}/assistant/metrics/reports/users-1-day",
    ("enterprise", "aggregate"): "/enterprises/{name}/assistant/metrics/reports/enterprise-1-day",
    ("enterprise", "user"): "/enterprises/{name}/assistant/metrics/reports/users-1-day",
}


def _download(creds: dict, scope: str, level: str, day: date) -> list[dict]:
    name = creds["org"] if scope == "organization" else creds["enterprise"]
    headers = {"Authorization": f"token {creds['token']}", "X-Service-Api-Version": "2026-03-10"}
    meta = httpx.get(
        creds["base_url"] + _REPORTS[(scope, level)].format(name=name), params={"day": day.isoformat()}, headers=headers
    )
    meta.raise_for_status()
    return [json.loads(line) for link in meta.json()["download_links"] for line in httpx.get(link).text.splitlines()]


def _pick_window(creds: dict) -> tuple[date, date]:
    """Three final days (older than 3 days) with at least one day whose report omits the agent array."""
    today = date.today()
    carried = {}
    for back in range(5, 25):
        day = today - timedelta(days=back)
        carried[day] = "totals_by_3rd_party_agent" in _download(creds, "organization", "aggregate", day)[0]
    for back in range(5, 23):
        last = today - timedelta(days=back)
        window = [last - timedelta(days=n) for n in range(3)]
        if len({carried[d] for d in window}) == 2:
            return window[-1], window[0]
    pytest.fail("no final 3-day window mixing days with and without the agent array")


class _Raw:
    """Expected numbers, computed from the raw records only."""

    def __init__(self, creds: dict, days: list[date]) -> None:
        self.job_starts: dict[tuple, int] = {}
        self.sessions: dict[tuple, int] = {}
        self.users: dict[tuple, set] = defaultdict(set)
        self.window_users: dict[tuple, set] = defaultdict(set)
        self.window_starts: dict[tuple, int] = defaultdict(int)
        self.carried: dict[tuple, bool] = {}
        self.user_records: dict[tuple, int] = {}
        self.users_with_array: dict[tuple, int] = {}
        self.top_level: dict[tuple, tuple] = {}
        self.names: dict[str, tuple[date, str]] = {}
        for scope in ("organization", "enterprise"):
            for day in days:
                (record,) = _download(creds, scope, "aggregate", day)
                agents = record.get("totals_by_3rd_party_agent")
                self.carried[(scope, day)] = agents is not None
                gen, acc = record["code_generation_activity_count"], record["code_acceptance_activity_count"]
                self.top_level[(scope, day)] = (
                    record["user_initiated_interaction_count"],
                    record["daily_active_users"],
                    acc / gen if gen else None,
                )
                for entry in agents or ():
                    key = (scope, day, entry["agent_id"])
                    self.job_starts[key] = self.job_starts.get(key, 0) + entry["user_initiated_interaction_count"]
                    self.sessions[key] = self.sessions.get(key, 0) + entry["session_count"]
                    self.window_starts[(scope, entry["agent_id"])] += entry["user_initiated_interaction_count"]
                    if day >= self.names.get(entry["agent_id"], (day, ""))[0]:
                        self.names[entry["agent_id"]] = (day, entry["agent_name"])
                lines = _download(creds, scope, "user", day)
                self.user_records[(scope, day)] = len(lines)
                self.users_with_array[(scope, day)] = sum("totals_by_3rd_party_agent" in line for line in lines)
                for line in lines:
                    for entry in line.get("totals_by_3rd_party_agent", ()):
                        assert "session_count" not in entry  # the contract's rule the views rely on (§2)
                        self.users[(scope, day, entry["agent_id"])].add(line["user_id"])
                        self.window_users[(scope, entry["agent_id"])].add(line["user_id"])


@pytest.fixture(scope="module")
def emulator():
    with running_emulator(EmulatorConfig(seed=23, users=30, repos=2, issues_per_repo=5)) as emu:
        yield emu


@pytest.fixture(scope="module")
def built(emulator, tmp_path_factory):
    """A warehouse of three final days, materialized through Dagster, and the raw numbers."""
    tmp = tmp_path_factory.mktemp("bi-emulator")
    creds = emulator.credentials
    first, last = _pick_window(creds)
    env = {
        **environ_for(emulator, SERVICE_ENTERPRISE=creds["enterprise"]),
        "WAREHOUSE_PATH": str(tmp / "warehouse.duckdb"),
        "RAW_DIR": str(tmp / "raw"),
        "SERVICE_ETAG_CACHE": str(tmp / "etag.sqlite3"),
        "SERVING_PATH": str(tmp / "serving.duckdb"),
        "LAKE_PATH": str(tmp / "lake"),
        "WEBHOOK_SPOOL_DIR": str(tmp / "spool"),
        "METRICS_START_DAY": (date.today() - timedelta(days=30)).isoformat(),
    }
    with pytest.MonkeyPatch.context() as mp, dg.instance_for_test() as instance:
        for name, value in env.items():
            mp.setenv(name, value)
        result = (
            build_definitions(Settings.from_env())
            .resolve_job_def("usage_daily_job")
            .execute_in_process(
                instance=instance,
                tags={
                    "dagster/asset_partition_range_start": first.isoformat(),
                    "dagster/asset_partition_range_end": last.isoformat(),
                },
            )
        )
        assert result.success
        days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
        yield {"env": env, "days": days, "raw": _Raw(creds, days), "instance": instance, "creds": creds}


def _rows(path: str, sql: str) -> list[dict]:
    with duckdb.connect(path, read_only=True) as conn:
        cursor = conn.execute(sql)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def test_daily_agent_usage_matches_the_raw_reports(built):
    raw = built["raw"]
    rows = _rows(built["env"]["SERVING_PATH"], "SELECT * FROM bi.agent_usage_daily")
    assert rows, "the window should hold agent activity"
    got = {
        (r["scope"], r["day"], r["agent_id"]): (r["agent_job_starts"], r["agent_sessions"], r["agent_users"])
        for r in rows
    }
    keys = set(raw.job_starts) | set(raw.users)
    want = {k: (raw.job_starts.get(k, 0), raw.sessions.get(k, 0), len(raw.users.get(k, ()))) for k in keys}
    assert got == want
    assert {r["agent_id"]: r["agent_name"] for r in rows} == {a: name for a, (_, name) in raw.names.items()}


def test_coverage_matches_which_raw_reports_carried_the_agent_array(built):
    raw = built["raw"]
    rows = _rows(built["env"]["SERVING_PATH"], "SELECT * FROM bi.report_coverage")
    got = {(r["scope"], r["day"]): r for r in rows}
    assert set(got) == set(raw.carried)
    assert False in raw.carried.values()  # the window was chosen to hold a gap
    for key, carried in raw.carried.items():
        row = got[key]
        assert row["aggregate_agent_array"] is carried
        assert row["user_records"] == raw.user_records[key]
        assert row["users_with_agent_array"] == raw.users_with_array[key]
        expected = sum(v for (s, d, _), v in raw.job_starts.items() if (s, d) == key) if carried else None
        assert row["agent_job_starts"] == expected
        assert row["status"] == ("agents reported" if carried else "no agent array")


def test_period_totals_match_the_raw_window(built):
    raw = built["raw"]
    rows = _rows(built["env"]["SERVING_PATH"], "SELECT * FROM bi.agent_usage_periods")
    assert {r["period_index"] for r in rows} == {0}
    got = {(r["scope"], r["agent_id"]): (r["agent_job_starts"], r["agent_users"]) for r in rows}
    want = {
        k: (raw.window_starts.get(k, 0), len(raw.window_users.get(k, ())))
        for k in set(raw.window_starts) | set(raw.window_users)
    }
    assert got == want
    assert {r["change"] for r in rows} == {None}  # no earlier period landed to compare with
    assert {r["report_days"] for r in rows} == {len(built["days"])}


def test_top_level_activity_matches_the_raw_aggregate_records(built):
    raw = built["raw"]
    rows = _rows(built["env"]["SERVING_PATH"], "SELECT * FROM bi.assistant_activity_daily")
    got = {
        (r["scope"], r["day"]): (r["user_initiated_interaction_count"], r["daily_active_users"], r["acceptance_rate"])
        for r in rows
    }
    assert got.keys() == raw.top_level.keys()
    for key, (interactions, active, rate) in raw.top_level.items():
        assert got[key][:2] == (interactions, active)
        assert got[key][2] == pytest.approx(rate)


_READER = textwrap.dedent(
    """
    import sys, duckdb
    conn = duckdb.connect(sys.argv[1], read_only=True)
    query = "SELECT count(DISTINCT day) FROM bi.report_coverage"
    print(conn.execute(query).fetchone()[0], flush=True)
    sys.stdin.readline()  # hold the connection open while the pipeline runs and publishes
    print(conn.execute(query).fetchone()[0], flush=True)
    """
)


def test_a_reader_holding_the_serving_database_sees_the_next_run_and_never_blocks_it(built, monkeypatch):
    env, days = built["env"], built["days"]
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    serving = env["SERVING_PATH"]
    reader = subprocess.Popen(
        [sys.executable, "-c", _READER, serving],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        before = int(reader.stdout.readline())
        extra = days[0] - timedelta(days=1)
        result = (
            build_definitions(Settings.from_env())
            .resolve_job_def("usage_daily_job")
            .execute_in_process(instance=built["instance"], partition_key=extra.isoformat())
        )
        assert result.success
        out, err = reader.communicate("go\n", timeout=60)
    finally:
        if reader.poll() is None:
            reader.kill()
    assert reader.returncode == 0, err
    # The held connection's views read the lake's files when they run: it sees the new day.
    assert int(out.strip()) == before + 1
    with duckdb.connect(serving, read_only=True) as conn:
        assert conn.execute("SELECT count(DISTINCT day) FROM bi.report_coverage").fetchone()[0] == before + 1
