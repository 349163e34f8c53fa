"""What a record carried beyond the schema, as paths: from the `_extra` both parse paths build."""

from __future__ import annotations

import json
import random
from datetime import date

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from pipelines.ingest._lines import read_lines
from pipelines.ingest.drift import MISTYPED, UNDECLARED, DriftTally, declared_paths, paths
from tests.unit.transform.synthetic import daily_record


def _extra_of(record: dict[str, object], dialect: str = "service") -> dict[str, object]:
    ((frame, rejects),) = list(read_lines([json.dumps(record).encode()], first_line=1, batch_rows=10, dialect=dialect))
    assert rejects == []
    text = frame["_extra"][0]
    return json.loads(text) if text else {}


def test_an_undeclared_field_is_one_path_and_a_mistyped_member_is_named_by_its_array() -> None:
    record = daily_record(random.Random(4), day=date(2026, 11, 1), user=7)
    record["totals_by_future_widget"] = {"widgets": 3}
    record["totals_by_ide"] = [{"ide": "vscode", "loc_added_sum": "7"}]
    record["used_agent"] = 1
    found = set(paths(_extra_of(record), "service"))
    assert found == {
        ("totals_by_future_widget", UNDECLARED, "object"),
        ("totals_by_ide[].loc_added_sum", MISTYPED, "string"),
        ("used_agent", MISTYPED, "number"),
    }


def test_the_service_s_internal_and_28_day_wrapper_fields_are_known_not_drift() -> None:
    record = daily_record(random.Random(5), day=date(2026, 11, 1), user=None)
    record |= {"etl_id": "e-1", "day_partition": "2026-11-01", "entity_id_partition": 3}
    wrapper = {
        "report_start_day": "2026-10-05",
        "report_end_day": "2026-11-01",
        "created_at": "2026-11-02T06:00:00Z",
        "day_totals": [record],
    }
    assert list(paths(_extra_of(wrapper), "service")) == []


def test_github_names_are_the_declared_ones_under_the_github_dialect() -> None:
    declared = dict(declared_paths("github"))
    assert "used_copilot_code_review_active" in declared and "used_assistant_code_review_active" not in declared
    assert declared["totals_by_ide[].loc_added_sum"] == "Int64"


def test_the_tally_counts_records_per_day_path_and_drift() -> None:
    extra = json.dumps({"totals_by_future_widget": {"widgets": 1}, "used_agent": 1})
    totals = pl.DataFrame(
        {
            "day": [date(2026, 11, 1)] * 3 + [date(2026, 11, 2)],
            "extra": [extra, extra, None, extra],
        }
    )
    tally = DriftTally("service")
    tally.add(totals)
    assert tally.frame().select("day", "path", "drift", "records").rows() == [
        (date(2026, 11, 1), "totals_by_future_widget", UNDECLARED, 2),
        (date(2026, 11, 1), "used_agent", MISTYPED, 2),
        (date(2026, 11, 2), "totals_by_future_widget", UNDECLARED, 1),
        (date(2026, 11, 2), "used_agent", MISTYPED, 1),
    ]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
    max_leaves=4,
)


@given(
    seed=st.integers(0, 1000), replaced=st.sampled_from(["used_agent", "loc_added_sum", "ai_credits_used"]), value=_JSON
)
def test_a_declared_field_given_any_json_value_lands_or_is_counted_never_lost(
    seed: int, replaced: str, value: object
) -> None:
    record = daily_record(random.Random(seed), day=date(2026, 11, 1), user=7)
    record[replaced] = value
    ((frame, rejects),) = list(
        read_lines([json.dumps(record).encode()], first_line=1, batch_rows=10, dialect="service")
    )
    assert rejects == [] and frame.height == 1
    landed = frame[replaced][0]
    extra = json.loads(frame["_extra"][0]) if frame["_extra"][0] else {}
    drift = {path for path, kind, _ in paths(extra, "service") if kind == MISTYPED}
    # Either the value fits and lands, or its column is NULL and the raw value waits in extra.
    if value is None:
        assert landed is None and replaced not in drift
    elif replaced in drift:
        assert landed is None and extra[replaced] == value
    else:
        assert landed is not None
