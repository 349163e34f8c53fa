import io
import json
import random
from datetime import date
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from pipelines.ingest import parse
from pipelines.ingest.archive import archive_stream
from pipelines.ingest.parse import (
    FastPathRefused,
    line_texts,
    read_fast,
    read_lines,
    read_segment,
)
from tests.unit.transform.synthetic import daily_record


def _lines(n: int, seed: int = 1) -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        rec = daily_record(rng, day=date(2026, 11, 1), user=i + 1, agents=i % 3 != 0, cli=i % 2 == 0)
        if i == 2:
            rec["etl_id"] = "e-2"
        out.append(json.dumps(rec).encode())
    return out


def test_fast_path_and_line_path_parse_the_same():
    lines = _lines(30)
    fast = read_fast(b"\n".join(lines) + b"\n", first_line=11, lines=len(lines), dialect="service")
    ((slow, rejects),) = list(read_lines(lines, first_line=11, batch_rows=1000, dialect="service"))
    assert rejects == []
    assert fast["_line"].to_list() == list(range(11, 41))
    assert json.loads(fast["_extra"][2]) == {"etl_id": "e-2"}
    assert_frame_equal(fast.drop("_extra"), slow.drop("_extra"))


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (b'{"day": "2026-11-01", "user_id": 9', "malformed JSON"),
        (b'{"day": "2026-11-01", "user_id": "nine"}', "field user_id"),
        (b"[1, 2]", "expected a JSON object"),
    ],
)
def test_bad_line_is_rejected_with_number_and_reason_and_good_lines_stay(bad: bytes, reason: str):
    lines = _lines(5)
    lines.insert(3, bad)
    data = b"\n".join(lines)
    with pytest.raises(FastPathRefused):
        read_fast(data, first_line=1, lines=len(lines), dialect="service")
    ((frame, rejects),) = list(read_lines(io.BytesIO(data), first_line=1, batch_rows=100, dialect="service"))
    assert frame["_line"].to_list() == [1, 2, 3, 5, 6]
    assert [r.line_number for r in rejects] == [4]
    assert reason in rejects[0].reason
    assert rejects[0].line_text == bad.decode()


def test_a_fraction_where_a_count_belongs_lands_as_null_and_is_kept_in_extra():
    bad = b'{"day": "2026-11-01", "user_id": 9, "totals_by_ide": [{"ide": "x", "loc_added_sum": 1.5}]}'
    ((frame, rejects),) = list(read_lines([bad], first_line=7, batch_rows=10, dialect="service"))
    assert rejects == []
    assert frame["_line"].to_list() == [7]
    (element,) = frame["totals_by_ide"][0]
    assert element["ide"] == "x" and element["loc_added_sum"] is None
    assert json.loads(frame["_extra"][0]) == {"totals_by_ide": [{"ide": "x", "loc_added_sum": 1.5}]}


def test_day_totals_wrapper_gives_its_daily_records_and_keeps_its_own_fields():
    rng = random.Random(1)
    days = [daily_record(rng, day=date(2026, 11, d), user=None) for d in (1, 2, 3)]
    for record in days[1:]:
        del record["organization_id"]
    header = {
        "report_start_day": "2026-11-01",
        "report_end_day": "2026-11-03",
        "organization_id": "4711",
        "created_at": "2026-11-04T06:00:00Z",
    }
    wrapper = {**header, "day_totals": days}
    ((frame, rejects),) = list(
        read_lines([json.dumps(wrapper).encode()], first_line=1, batch_rows=10, dialect="service")
    )
    assert rejects == []
    assert frame["day"].to_list() == [date(2026, 11, d) for d in (1, 2, 3)]
    assert frame["organization_id"].to_list() == ["4711"] * 3
    assert [json.loads(e) for e in frame["_extra"]] == [
        {"report_start_day": "2026-11-01", "report_end_day": "2026-11-03", "created_at": "2026-11-04T06:00:00Z"}
    ] * 3


def test_archive_splits_on_line_boundaries_and_hashes_uncompressed_bytes(tmp_path: Path):
    import hashlib

    import zstandard

    body = b"\n".join(_lines(25)) + b"\n"
    chunks = [body[i : i + 777] for i in range(0, len(body), 777)]
    segments = []
    archived = archive_stream(
        iter(chunks), archive_dir=tmp_path / "a", stem="0000", batch_rows=10, emit=segments.append
    )
    assert archived.sha256 == hashlib.sha256(body).hexdigest()
    assert zstandard.ZstdDecompressor().decompress(archived.path.read_bytes(), max_output_size=len(body)) == body
    assert b"".join(s.data for s in segments) == body
    assert next(s.first_line for s in segments) == 1
    assert sum(s.lines for s in segments) == 25 == archived.lines


@pytest.mark.parametrize("gap", [b"\n\n", b"\n\r\n", b"\n  \t\n"])
def test_blank_or_whitespace_line_sends_segment_to_the_line_path_so_line_numbers_stay_exact(tmp_path: Path, gap: bytes):
    body = _lines(3)[0] + b"\n" + _lines(3)[1] + gap + _lines(3)[2] + b"\n"
    cut = body.index(gap) + 1  # the blank line starts right at the next chunk
    segments = []
    archive_stream(
        [body[:cut], body[cut:]], archive_dir=tmp_path / "a", stem="0000", batch_rows=100, emit=segments.append
    )
    (segment,) = segments
    assert segment.lines == 4
    with pytest.raises(FastPathRefused, match="blank"):
        read_fast(segment.data, first_line=1, lines=segment.lines, dialect="service")
    ((frame, _),) = list(read_lines(io.BytesIO(segment.data), first_line=1, batch_rows=10, dialect="service"))
    assert frame["_line"].to_list() == [1, 2, 4]
    assert line_texts(segment.data, {4}, first_line=1)[4].startswith("{")


def test_failed_stream_leaves_no_partial_archive(tmp_path: Path):
    def chunks():
        yield b'{"a": 1}\n'
        raise OSError("cut")

    with pytest.raises(OSError):
        archive_stream(chunks(), archive_dir=tmp_path / "a", stem="0000", batch_rows=10, emit=lambda s: None)
    assert list((tmp_path / "a").iterdir()) == []


@pytest.mark.parametrize(
    "bad",
    [
        b'{"day": "2026-11-01", "user_id": "12"}',
        b'{"day": "2026-11-01", "user_id": 9, "user_login": 5}',
        b'{"day": "2026/11/01", "user_id": 9}',
        b'{"day": "2026-11-01", "user_id": 9, "organization_id": 4711}',
    ],
)
def test_a_mistyped_key_is_refused_by_the_fast_path_and_rejected_by_the_line_path(bad: bytes):
    data = b"\n".join([*_lines(3), bad]) + b"\n"
    with pytest.raises(FastPathRefused):
        read_fast(data, first_line=1, lines=4, dialect="service")
    ((frame, rejects),) = list(read_lines(data.splitlines(), first_line=1, batch_rows=100, dialect="service"))
    assert frame["_line"].to_list() == [1, 2, 3]
    assert [r.line_number for r in rejects] == [4]


@pytest.mark.parametrize(
    ("bad", "column", "kept"),
    [
        (b'{"day": "2026-11-01", "user_id": 9, "used_agent": "yes"}', "used_agent", {"used_agent": "yes"}),
        (b'{"day": "2026-11-01", "user_id": 9, "used_agent": 1}', "used_agent", {"used_agent": 1}),
        (b'{"day": "2026-11-01", "user_id": 9, "loc_added_sum": 1.5}', "loc_added_sum", {"loc_added_sum": 1.5}),
        (b'{"day": "2026-11-01", "user_id": 9, "loc_added_sum": "7"}', "loc_added_sum", {"loc_added_sum": "7"}),
        (
            b'{"day": "2026-11-01", "user_id": 9, "ai_credits_used": "12.5"}',
            "ai_credits_used",
            {"ai_credits_used": "12.5"},
        ),
        (b'{"day": "2026-11-01", "user_id": 9, "ai_credits_used": true}', "ai_credits_used", {"ai_credits_used": True}),
        (b'{"day": "2026-11-01", "user_id": 9, "ai_credits_used": 1e13}', "ai_credits_used", {"ai_credits_used": 1e13}),
        (
            b'{"day": "2026-11-01", "user_id": 9, "used_assistant_app": 1}',
            "used_assistant_app",
            {"used_assistant_app": 1},
        ),
        (b'{"day": "2026-11-01", "user_id": 9, "pull_requests": "none"}', "pull_requests", {"pull_requests": "none"}),
        (
            b'{"day": "2026-11-01", "user_id": 9, "totals_by_ide": {"ide": "x"}}',
            "totals_by_ide",
            {"totals_by_ide": {"ide": "x"}},
        ),
    ],
)
def test_a_mistyped_field_outside_the_key_lands_as_null_with_its_raw_value_in_extra(
    bad: bytes, column: str, kept: dict[str, object]
):
    data = b"\n".join([*_lines(3), bad]) + b"\n"
    with pytest.raises(FastPathRefused):
        read_fast(data, first_line=1, lines=4, dialect="service")
    ((frame, rejects),) = list(read_lines(data.splitlines(), first_line=1, batch_rows=100, dialect="service"))
    assert rejects == []
    assert frame["_line"].to_list() == [1, 2, 3, 4]
    assert frame[column][3] is None and frame["user_id"][3] == 9
    assert json.loads(frame["_extra"][3]) == kept


def test_an_element_whose_key_is_mistyped_is_kept_whole_in_extra_and_the_others_land():
    bad = (
        b'{"day": "2026-11-01", "user_id": 9, "totals_by_3rd_party_agent": ['
        b'{"agent_id": 7, "user_initiated_interaction_count": 2},'
        b'{"agent_id": "a-1", "user_initiated_interaction_count": "3"}]}'
    )
    ((frame, rejects),) = list(read_lines([bad], first_line=1, batch_rows=10, dialect="service"))
    assert rejects == []
    (agent,) = frame["totals_by_3rd_party_agent"][0]
    assert agent["agent_id"] == "a-1" and agent["user_initiated_interaction_count"] is None
    assert json.loads(frame["_extra"][0]) == {
        "totals_by_3rd_party_agent": [
            {"agent_id": 7, "user_initiated_interaction_count": 2},
            {"agent_id": "a-1", "user_initiated_interaction_count": "3"},
        ]
    }


def test_nested_unknown_members_are_kept_alike_by_both_paths_at_any_depth():
    rng = random.Random(3)
    rec = daily_record(rng, day=date(2026, 11, 1), user=None, agents=True, cli=True)
    rec["pull_requests"] = {"total_created": 4, "brand_new_count": 2}
    rec["totals_by_ide"] = [
        {"ide": "vscode", "loc_added_sum": 1, "last_known_ide_version": {"ide_version": "1.99", "build": "b7"}},
        {"ide": "neovim", "loc_added_sum": 2},
    ]
    rec["totals_by_cli"]["token_usage"]["cache_read_tokens_sum"] = 7
    rec["etl_id"] = "e-1"
    plain = daily_record(rng, day=date(2026, 11, 1), user=None)
    lines = [json.dumps(rec).encode(), json.dumps(plain).encode()]
    fast = read_fast(b"\n".join(lines) + b"\n", first_line=1, lines=len(lines), dialect="service")
    ((slow, _),) = list(read_lines(lines, first_line=1, batch_rows=10, dialect="service"))
    expected = {
        "etl_id": "e-1",
        "pull_requests": {"brand_new_count": 2},
        "totals_by_cli": {"token_usage": {"cache_read_tokens_sum": 7}},
        "totals_by_ide": [{"ide": "vscode", "last_known_ide_version": {"build": "b7"}}],
    }
    assert json.loads(fast["_extra"][0]) == expected == json.loads(slow["_extra"][0])
    assert fast["_extra"][1] is None and slow["_extra"][1] is None
    assert_frame_equal(fast.drop("_extra"), slow.drop("_extra"))


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.dates().map(date.isoformat)
    | st.datetimes().map(lambda d: d.isoformat() + "Z")
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.from_regex(r"[a-z]{1,4}", fullmatch=True), inner, max_size=3)
    ),
    max_leaves=6,
)
# Where the platform may add a field: the record, its known objects, an array element.
_PLACES = ("record", "pull_requests", "totals_by_cli", "token_usage", "totals_by_ide", "totals_by_3rd_party_agent")


def _place(record: dict, place: str) -> dict:
    if place == "record":
        return record
    if place == "token_usage":
        return record["totals_by_cli"]["token_usage"]
    if place in ("totals_by_ide", "totals_by_3rd_party_agent"):
        return record[place][0]
    return record[place]


@settings(max_examples=60, deadline=None)
@given(
    added=st.lists(
        st.tuples(st.integers(0, 2), st.sampled_from(_PLACES), st.from_regex(r"x_[a-z]{1,6}", fullmatch=True), _VALUES),
        max_size=5,
    )
)
def test_unknown_fields_anywhere_are_kept_alike_by_both_paths(added):
    rng = random.Random(5)
    records = [daily_record(rng, day=date(2026, 11, 1), user=None, agents=True, cli=True) for _ in range(3)]
    for index, place, name, value in added:
        _place(records[index], place)[name] = value
    lines = [json.dumps(r).encode() for r in records]
    ((slow, rejects),) = list(read_lines(lines, first_line=1, batch_rows=10, dialect="service"))
    assert rejects == []
    try:
        fast = read_fast(b"\n".join(lines) + b"\n", first_line=1, lines=len(lines), dialect="service")
    except FastPathRefused:
        return  # values the reader cannot type alike across lines: the line path keeps them
    assert_frame_equal(fast.drop("_extra"), slow.drop("_extra"))
    for fast_extra, slow_extra in zip(fast["_extra"], slow["_extra"], strict=True):
        assert _without_nulls(fast_extra and json.loads(fast_extra)) == _without_nulls(
            slow_extra and json.loads(slow_extra)
        )


def _without_nulls(value):
    """The fast path reads one type per field for a whole segment, so inside an unknown
    object a member absent from this record but present in another reads as null."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


_BAD_LINES = (b'{"day": "2026-11-01", "user_id": "12"}', b"{not json", b"", b'{"user_id": 3}')


def _read_whole(data: bytes, lines: int, **kw) -> tuple[pl.DataFrame, list]:
    pieces = list(read_segment(data, first_line=1, lines=lines, batch_rows=10_000, dialect="service", **kw))
    return pl.concat([frame for frame, _ in pieces]), [r for _, rejects in pieces for r in rejects]


def test_one_bad_line_sends_only_a_small_piece_to_the_line_path(monkeypatch):
    lines = _lines(3000)
    lines[2344] = _BAD_LINES[0]
    data = b"\n".join(lines) + b"\n"
    slow_lines = []

    def counting_read_lines(source, **kw):
        taken = list(source)
        slow_lines.append(len(taken))
        return read_lines(taken, **kw)

    monkeypatch.setattr(parse, "read_lines", counting_read_lines)
    records, rejects = _read_whole(data, len(lines))
    assert [r.line_number for r in rejects] == [2345]
    assert records["_line"].to_list() == [n for n in range(1, 3001) if n != 2345]
    assert sum(slow_lines) <= parse.LINE_PATH_LINES


@settings(max_examples=40, deadline=None)
@given(bad=st.dictionaries(st.integers(0, 59), st.sampled_from(_BAD_LINES), max_size=6), trailing_newline=st.booleans())
def test_halving_around_bad_lines_reads_like_the_line_path(bad, trailing_newline):
    lines = _lines(60, seed=2)
    for index, text in bad.items():
        lines[index] = text
    data = b"\n".join(lines) + (b"\n" if trailing_newline else b"")
    original = parse.LINE_PATH_LINES
    parse.LINE_PATH_LINES = 4  # small pieces, so a 60-line segment is halved several times
    try:
        records, rejects = _read_whole(data, len(lines))
    finally:
        parse.LINE_PATH_LINES = original
    ((expected, expected_rejects),) = list(read_lines(lines, first_line=1, batch_rows=10_000, dialect="service"))
    assert_frame_equal(records, expected)
    assert rejects == expected_rejects


def test_github_names_land_in_canonical_columns_and_credits_round_to_six_decimals_on_both_paths():
    line = (
        b'{"day": "2026-11-01", "user_id": 9, "ai_credits_used": 3.9899999999999998, '
        b'"used_copilot_code_review_active": true, "pull_requests": {"total_created_by_copilot": 1}}'
    )
    fast = read_fast(line + b"\n", first_line=1, lines=1, dialect="github")
    ((slow, rejects),) = list(read_lines([line], first_line=1, batch_rows=10, dialect="github"))
    assert rejects == []
    assert_frame_equal(fast.drop("_extra"), slow.drop("_extra"))
    assert str(fast["ai_credits_used"][0]) == "3.990000"
    assert fast["used_assistant_code_review_active"][0] is True
    assert fast["pull_requests"][0]["total_created_by_assistant"] == 1
    assert fast["_extra"][0] is None and slow["_extra"][0] is None
    # The same names under the service dialect are unknown there: kept in extra, not typed.
    service = read_fast(line + b"\n", first_line=1, lines=1, dialect="service")
    assert service["used_assistant_code_review_active"][0] is None
    assert json.loads(service["_extra"][0])["pull_requests"] == {"total_created_by_copilot": 1}
