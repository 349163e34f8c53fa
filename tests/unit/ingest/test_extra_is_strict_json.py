"""`extra` holds only valid JSON, whatever numbers a record carries: a number no double holds
(`1e400`, `-1e400`) and the constants JSON does not have (`NaN`, `Infinity`) are kept as the
text they came as, on the fast path and the line path alike, and never land in a DOUBLE column."""

from __future__ import annotations

import json
import math
import random
from datetime import date

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.ingest.parse import read_lines, read_segment
from pipelines.transform import json_values
from tests.unit.transform.synthetic import daily_record

_SPECIAL = ("1e400", "-1e400", "NaN", "Infinity", "-Infinity", "1.8e308", "-2E+999")


def _strict(text: str) -> object:
    """json.loads as a strict reader: NaN and Infinity refused, and so is a number out of range."""

    def refuse(constant: str) -> object:
        raise ValueError(f"{constant} is not JSON")

    def finite(number: str) -> float:
        value = float(number)
        if not math.isfinite(value):
            raise ValueError(f"{number} is out of range")
        return value

    return json.loads(text, parse_constant=refuse, parse_float=finite)


# Where a number may be: an undeclared field at any depth, or a declared DOUBLE / DECIMAL / count.
_DECLARED = ("ai_credits_used", "loc_added_sum", "totals_by_cli.token_usage.avg_tokens_per_request")


def _put(record: dict, path: str, text: str) -> None:
    *parents, name = path.split(".")
    for parent in parents:
        record = record[parent]
    record[name] = f"@@{text}@@"


def _line(record: dict) -> bytes:
    """The record as JSON with each `"@@text@@"` placeholder replaced by the bare literal."""
    text = json.dumps(record)
    for special in _SPECIAL:
        text = text.replace(f'"@@{special}@@"', special)
    return text.encode()


@settings(max_examples=40, deadline=None)
@given(
    placed=st.lists(
        st.tuples(
            st.integers(0, 4),
            st.sampled_from([*_DECLARED, "x_new", "totals_by_cli.token_usage.x_new", "totals_by_cli.x_nested"]),
            st.sampled_from(_SPECIAL),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_out_of_range_numbers_and_nan_keep_their_text_in_extra_on_both_paths(placed):
    rng = random.Random(3)
    records = [daily_record(rng, day=date(2026, 11, 1), user=i + 1, agents=True, cli=True) for i in range(5)]
    for index, path, text in placed:
        _put(records[index], path, text)
    lines = [_line(r) for r in records]
    data = b"\n".join(lines) + b"\n"
    ((slow, slow_rejects),) = list(read_lines(lines, first_line=1, batch_rows=10, dialect="service"))
    pieces = list(read_segment(data, first_line=1, lines=len(lines), batch_rows=10, dialect="service"))
    fast = pl.concat([frame for frame, _ in pieces])
    assert slow_rejects == [] and [r for _, rejects in pieces for r in rejects] == []
    assert fast.drop("_extra").equals(slow.drop("_extra"))
    last = {(index, path): text for index, path, text in placed}
    for row, (fast_extra, slow_extra) in enumerate(zip(fast["_extra"], slow["_extra"], strict=True)):
        for extra in (fast_extra, slow_extra):
            kept = _strict(extra) if extra else {}  # never raises: valid JSON only
            for (index, path), text in last.items():
                if index == row:
                    *parents, name = path.split(".")
                    node = kept
                    for parent in parents:
                        node = node[parent]
                    assert node[name] == text  # the text as sent
    # No declared number column holds an infinity or a NaN.
    for column, dtype in slow.schema.items():
        if dtype in (pl.Float64(), pl.Float32()):
            assert slow[column].is_finite().all() or slow[column].is_null().all(), column


def test_json_values_writes_a_non_finite_float_nowhere():
    assert json_values.dumps(json_values.loads('{"a": 1e400, "b": [NaN], "c": 2.5}')) == (
        '{"a":"1e400","b":["NaN"],"c":2.5}'
    )
    try:
        json_values.dumps({"a": float("inf")})
    except ValueError:
        pass
    else:
        raise AssertionError("a float infinity was written as JSON")
