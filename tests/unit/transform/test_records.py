import json
import random
from datetime import UTC, date, datetime

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.ingest.parse import read_lines
from pipelines.service import ReportRef
from pipelines.transform import Provenance, transform_records
from tests.unit.transform.synthetic import daily_record

START = date(2026, 11, 1)


def _ctx(level: str) -> Provenance:
    return Provenance(
        ref=ReportRef("organization", "acme", "28-day", level),
        start_day=START,
        end_day=date(2026, 11, 28),
        fetched_at=datetime(2026, 11, 29, tzinfo=UTC),
        dialect="service",
    )


def _parse(records: list[dict]) -> pl.DataFrame:
    lines = [json.dumps(r).encode() for r in records]
    frames = [
        frame for frame, rejects in read_lines(lines, first_line=1, batch_rows=10_000, dialect="service") if not rejects
    ]
    return pl.concat(frames) if frames else pl.DataFrame()


@st.composite
def _records(draw, level: str) -> list[dict]:
    seed = draw(st.integers(0, 10_000))
    rng = random.Random(seed)
    count = draw(st.integers(1, 12))
    out = []
    for i in range(count):
        out.append(
            daily_record(
                rng,
                day=date(2026, 11, 1 + i % 28),
                user=None if level == "aggregate" else i + 1,
                agents=draw(st.booleans()),
                cli=draw(st.booleans()),
            )
        )
    return out


@settings(max_examples=40, deadline=None)
@given(data=st.data(), level=st.sampled_from(["user", "aggregate"]))
def test_agent_job_starts_sum_to_nested_counts_never_top_level(data, level):
    records = data.draw(_records(level))
    result = transform_records(_parse(records), _ctx(level))
    nested = sum(e["user_initiated_interaction_count"] for r in records for e in r.get("totals_by_3rd_party_agent", []))
    top = sum(r["user_initiated_interaction_count"] for r in records)
    assert result.agent_activity["agent_job_starts"].sum() == nested
    assert "user_initiated_interaction_count" not in result.agent_activity.columns
    assert result.totals["user_initiated_interaction_count"].sum() == top


@settings(max_examples=40, deadline=None)
@given(data=st.data(), level=st.sampled_from(["user", "aggregate"]))
def test_omitted_agent_array_gives_no_rows_and_flag_false(data, level):
    records = data.draw(_records(level))
    result = transform_records(_parse(records), _ctx(level))
    present = [("totals_by_3rd_party_agent" in r) for r in records]
    assert result.totals["agent_breakdown_present"].to_list() == present
    expected_rows = sum(len(r.get("totals_by_3rd_party_agent", [])) for r in records)
    assert result.agent_activity.height == expected_rows


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_session_count_is_null_at_user_level_and_kept_at_aggregate(data):
    user = transform_records(_parse(data.draw(_records("user"))), _ctx("user"))
    assert user.agent_activity["session_count"].null_count() == user.agent_activity.height
    aggregate_records = data.draw(_records("aggregate"))
    aggregate = transform_records(_parse(aggregate_records), _ctx("aggregate"))
    sessions = sum(e["session_count"] for r in aggregate_records for e in r.get("totals_by_3rd_party_agent", []))
    assert aggregate.agent_activity["session_count"].sum() == sessions


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_breakdowns_have_one_row_per_element_and_keep_counts(data):
    records = data.draw(_records("user"))
    result = transform_records(_parse(records), _ctx("user"))
    elements = sum(
        len(r[f])
        for r in records
        for f in r
        if f.startswith("totals_by_") and isinstance(r[f], list) and f != "totals_by_3rd_party_agent"
    )
    cli = sum(1 for r in records if "totals_by_cli" in r)
    assert result.breakdowns.height == elements + cli
    assert result.breakdowns.filter(pl.col("kind") == "cli").height == cli
    ide_loc = sum(e["loc_added_sum"] for r in records for e in r["totals_by_ide"])
    assert result.breakdowns.filter(pl.col("kind") == "ide")["loc_added_sum"].sum() == ide_loc


def test_rule_breakers_are_rejected_with_their_line_and_reason():
    rng = random.Random(3)
    good = daily_record(rng, day=START, user=1)
    no_day = {k: v for k, v in daily_record(rng, day=START, user=2).items() if k != "day"}
    negative = daily_record(rng, day=START, user=3) | {"loc_added_sum": -4}
    nested_negative = daily_record(rng, day=START, user=4, agents=True)
    nested_negative["totals_by_3rd_party_agent"][0]["user_initiated_interaction_count"] = -1
    outside = daily_record(rng, day=date(2026, 12, 30), user=5)
    result = transform_records(_parse([good, no_day, negative, nested_negative, outside]), _ctx("user"))
    assert result.totals["user_id"].to_list() == [1]
    reasons = dict(result.rejects.iter_rows())
    assert reasons[2] == "missing day"
    assert reasons[3] == "negative count"
    assert reasons[4] == "negative count in totals_by_3rd_party_agent"
    assert reasons[5].startswith("day outside the report's range")


def test_unknown_fields_are_kept_as_json_and_known_ones_are_not():
    rng = random.Random(5)
    record = daily_record(rng, day=START, user=1) | {"etl_id": "abc", "new_thing": {"a": [1, 2]}}
    plain = daily_record(rng, day=START, user=2)
    result = transform_records(_parse([record, plain]), _ctx("user"))
    extras = result.totals["extra"].to_list()
    assert json.loads(extras[0]) == {"etl_id": "abc", "new_thing": {"a": [1, 2]}}
    assert extras[1] is None


def test_a_sampled_at_that_is_not_a_timestamp_rejects_its_record_and_good_ones_are_typed():
    rng = random.Random(4)
    good, bad = (daily_record(rng, day=START, user=u) for u in (1, 2))
    for record, sampled in ((good, "2026-11-01T09:30:00.125Z"), (bad, "yesterday")):
        record["totals_by_cli"]["last_known_cli_version"] = {"cli_version": "1.0.8", "sampled_at": sampled}
    result = transform_records(_parse([good, bad]), _ctx("user"))
    assert result.rejects.rows() == [
        (2, "field totals_by_cli.last_known_cli_version.sampled_at: not an ISO 8601 timestamp with a zone")
    ]
    (cli,) = result.breakdowns.filter(pl.col("kind") == "cli").rows(named=True)
    assert cli["cli_version"] == "1.0.8"
    assert cli["cli_version_sampled_at"] == datetime(2026, 11, 1, 9, 30, 0, 125000, tzinfo=UTC)
