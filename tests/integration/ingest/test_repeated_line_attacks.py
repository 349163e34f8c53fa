"""Attacks on "two lines of one key" (docs/ingest.md), over loopback with the real ingest: a line
of a key that a rule of the data refuses (a negative count, an agent without its id) is still a
line of that key, so the key's other lines do not land either; a member named twice in one object
is read one way everywhere (the last one counts), by the comparison of lines too."""

from __future__ import annotations

import json

import pytest

from tests.integration.ingest.test_repeated_lines import (
    AGGREGATE,
    REPOS,
    TEAMS,
    USER,
    USERS,
    _ingest,
    _one,
    _rows,
    _served_lines,
)


@pytest.fixture(scope="module", params=["service", "github"])
def dialect(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def user_lines(dialect: str) -> list[bytes]:
    return _served_lines("user", dialect)


def _with(line: bytes, **members: object) -> bytes:
    record = json.loads(line)
    record.update(members)
    return json.dumps(record, separators=(",", ":")).encode()


def _landed_users(warehouse) -> list[int]:
    return [row[0] for row in _one(warehouse, "SELECT user_id FROM core.user_daily_totals ORDER BY 1")]


def test_a_refused_line_of_a_key_keeps_the_keys_other_line_out_too(tmp_path, dialect, user_lines):
    """Line 7 holds the first user's day with a negative count: refused by a rule, it is still a
    second, different line of that key, so line 1 is quarantined with it, both named by number."""
    first = json.loads(user_lines[0])
    refused = _with(user_lines[0], code_generation_activity_count=-4)
    lines = [*user_lines[:6], refused, *user_lines[6:]]
    landed = _ingest(tmp_path, "refused", lines, USER, dialect)

    assert first["user_id"] not in _landed_users(landed.warehouse)
    assert _landed_users(landed.warehouse) == sorted(json.loads(line)["user_id"] for line in user_lines[1:])
    quarantined = _one(landed.warehouse, "SELECT file_index, line_number, reason FROM raw.quarantine ORDER BY ALL")
    assert [(f, n) for f, n, _ in quarantined] == [(0, 1), (0, 7)]
    reasons = dict(((f, n), r) for f, n, r in quarantined)
    assert reasons[0, 7] == "negative count"  # the refused line keeps its own reason
    assert reasons[0, 1].startswith(
        f"lines 1 and 7 of file 0 hold one user's record of {first['day']} with different figures"
    )
    assert str(first["user_id"]) not in reasons[0, 1] and first["user_login"] not in reasons[0, 1]
    assert landed.result.quarantined == 2 and landed.result.repeated == 0
    files = "SELECT sum(records), sum(quarantined), sum(repeated_lines) FROM raw.report_files WHERE level = 'user'"
    assert _one(landed.warehouse, files) == [(USERS - 1, 2, 0)]
    fetched = "SELECT sum(records) FROM raw.report_fetches"
    assert _one(landed.warehouse, fetched) == [(USERS - 1,)]


def test_two_refused_lines_of_a_key_and_a_copy_of_each_other_land_nothing_more(tmp_path, dialect, user_lines):
    """Refused lines alone (one refused line twice) are quarantined by their rule, once each, and
    every other user lands as it came."""
    refused = _with(user_lines[2], code_generation_activity_count=-4)
    lines = [*user_lines[:2], refused, *user_lines[3:], refused]
    landed = _ingest(tmp_path, "refused-twice", lines, USER, dialect)
    assert _one(landed.warehouse, "SELECT file_index, line_number, reason FROM raw.quarantine ORDER BY ALL") == [
        (0, 3, "negative count"),
        (2, 7, "negative count"),
    ]
    assert _landed_users(landed.warehouse) == sorted(
        json.loads(line)["user_id"] for i, line in enumerate(user_lines) if i != 2
    )


def test_a_member_named_twice_in_one_object_is_read_last_wins_by_the_comparison_too(tmp_path, dialect, user_lines):
    """`{"x": 1, "x": 2}` lands as `{"x": 2}` on both parse paths, so a line holding it and a line
    holding `{"x": 2}` are the same record: one lands, the other is counted, none quarantined."""
    twice = user_lines[0].rstrip()[:-1] + b',"zz_new":1,"zz_new":2}'
    once = user_lines[0].rstrip()[:-1] + b',"zz_new":2}'
    landed = _ingest(tmp_path, "member-twice", [twice, *user_lines[1:], once], USER, dialect)
    assert landed.result.quarantined == 0 and landed.result.repeated == 1
    first = json.loads(user_lines[0])["user_id"]
    (extra,) = _one(landed.warehouse, f"SELECT extra FROM core.user_daily_totals WHERE user_id = {first}")
    assert json.loads(extra[0])["zz_new"] == 2
    assert len(_landed_users(landed.warehouse)) == USERS


def _refused_carried(line: bytes) -> bytes:
    """The same key with a value that refuses the line: an empty team slug, or a review-time
    entry of a repository that is not an object."""
    record = json.loads(line)
    if "slug" in record:
        record["slug"] = ""
    else:
        record["pull_request_review_times"] = [1]
    return json.dumps(record, separators=(",", ":")).encode()


@pytest.mark.parametrize("kind", [TEAMS, REPOS], ids=["user-teams", "repos"])
def test_a_refused_carried_line_of_a_key_keeps_the_keys_other_line_out_too(tmp_path, dialect, kind):
    served = _served_lines(kind.served_level, dialect)
    lines = [served[0], served[1], _refused_carried(served[0]), *served[2:]]
    landed = _ingest(tmp_path, "refused", lines, kind, dialect)
    first = kind.key(json.loads(served[0]))
    columns = ("user_id", "team_id") if kind is TEAMS else ("repo_id",)
    where = " AND ".join(f"{c} = {v}" for c, v in zip(columns, first, strict=True))
    for table in kind.tables:
        assert _one(landed.warehouse, f"SELECT count(*) FROM {table} WHERE {where}") == [(0,)], table
    others = _one(landed.warehouse, f"SELECT count(*) FROM {kind.tables[0]}")[0][0]
    assert others == len({kind.key(json.loads(line)) for line in served}) - 1
    quarantined = _one(
        landed.warehouse,
        f"SELECT line_number, reason FROM raw.quarantine WHERE level = '{kind.served_level}' ORDER BY 1",
    )
    assert [n for n, _ in quarantined] == [1, 3]
    assert quarantined[0][1].startswith("lines 1 and 3 of file 0 hold one ")
    assert "with different figures" not in quarantined[1][1]  # the refused line keeps its own reason
    assert all(str(part) not in reason for _, reason in quarantined for part in first)


@pytest.fixture(scope="module")
def aggregate_record(dialect: str) -> dict[str, object]:
    (line,) = _served_lines("aggregate", dialect)
    return dict(json.loads(line))


def _wrapper(*records: dict[str, object]) -> bytes:
    """A `day_totals` wrapper line, as the 28-day report's lines are, holding `records`."""
    return json.dumps({"report_start_day": records[0]["day"], "day_totals": list(records)}).encode()


def test_a_days_record_in_a_wrapper_and_the_same_record_alone_land_once(tmp_path, dialect, aggregate_record):
    """Lines are compared by the key's record, not as whole lines: a wrapper's record of the day
    (with the wrapper's members it lacks) and the same record on a line of its own are one record."""
    alone = json.dumps({"report_start_day": aggregate_record["day"], **aggregate_record}).encode()
    clean = _ingest(tmp_path, "clean", [alone], AGGREGATE, dialect)
    landed = _ingest(tmp_path, "wrapped", [_wrapper(aggregate_record), alone], AGGREGATE, dialect)
    assert landed.result.quarantined == 0 and landed.result.repeated == 1
    for table in AGGREGATE.tables:
        assert _rows(landed.warehouse, table) == _rows(clean.warehouse, table), table

    changed = {**aggregate_record, "daily_active_users": int(aggregate_record["daily_active_users"] or 0) + 3}
    conflict = _ingest(
        tmp_path, "wrapped-conflict", [_wrapper(aggregate_record), _wrapper(changed)], AGGREGATE, dialect
    )
    assert conflict.result.quarantined == 2
    assert _one(conflict.warehouse, "SELECT count(*) FROM core.daily_totals") == [(0,)]


def test_a_wrapper_listing_one_day_twice_is_quarantined_by_its_line_and_nothing_doubles(
    tmp_path, dialect, aggregate_record
):
    """Two records of one day inside one line (the same or different): the line is quarantined
    for that day, saying so, before any check; nothing of that day lands twice, no traceback."""
    changed = {**aggregate_record, "daily_active_users": int(aggregate_record["daily_active_users"] or 0) + 3}
    for name, records in (("same", (aggregate_record, aggregate_record)), ("different", (aggregate_record, changed))):
        landed = _ingest(tmp_path, name, [_wrapper(*records)], AGGREGATE, dialect)
        assert landed.result.quarantined == 1 and landed.result.repeated == 0
        (reason,) = _one(landed.warehouse, "SELECT reason FROM raw.quarantine")
        assert reason[0].startswith(f"line 1 of file 0 holds the record of {aggregate_record['day']} more than once")
        for table in AGGREGATE.tables:
            assert _one(landed.warehouse, f"SELECT count(*) FROM {table}") == [(0,)], table


def test_after_clearing_a_conflict_a_fetch_with_one_line_lands_the_key_and_keeps_the_record(
    tmp_path, dialect, user_lines, monkeypatch
):
    """Cleared, then the service sends the user's day once: it lands (the cleared rows stay, the
    record of what was accepted, and nothing is open); the day's figures are the distinct lines'."""
    from pipelines.cli import main

    first = json.loads(user_lines[0])
    refused = _with(user_lines[0], code_generation_activity_count=-4)
    conflict = _ingest(tmp_path, "day", [*user_lines[:6], refused, *user_lines[6:]], USER, dialect)
    monkeypatch.setenv("WAREHOUSE_PATH", str(conflict.warehouse))
    assert main(["quarantine", "clear", "--day", first["day"], "--note", "ticket 9"]) == 0
    fixed = _ingest(tmp_path, "day", user_lines, USER, dialect)
    assert fixed.result.quarantined == 0
    assert _landed_users(fixed.warehouse) == sorted(json.loads(line)["user_id"] for line in user_lines)
    assert _one(fixed.warehouse, "SELECT count(*), count(cleared_at) FROM raw.quarantine") == [(2, 2)]
    total = sum(int(json.loads(line).get("code_generation_activity_count") or 0) for line in user_lines)
    assert _one(fixed.warehouse, "SELECT sum(code_generation_activity_count) FROM core.user_daily_totals") == [(total,)]
