"""Lines of one key: the same JSON value however it is written lands once, different values
land neither, and the reason names line numbers only."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.transform.repeats import ENTRY_KEYS, KeyedLines, conflict_reason, same_json

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


def _respelled(value: object, rng: random.Random) -> bytes:
    """The same value written another way: members shuffled, spacing changed, a CR line end."""

    def shuffle(v: object) -> object:
        if isinstance(v, dict):
            items = list(v.items())
            rng.shuffle(items)
            return {k: shuffle(x) for k, x in items}
        if isinstance(v, list):
            return [shuffle(x) for x in v]
        return v

    text = json.dumps(shuffle(value), indent=rng.choice([None, 1]), separators=rng.choice([None, (",", ":")]))
    return (" " * rng.randint(0, 2) + text.replace("\n", " ") + rng.choice(["", "\r", "  "])).encode()


@settings(max_examples=200, deadline=None)
@given(value=_JSON, seed=st.integers(0, 1000))
def test_the_same_value_written_another_way_is_the_same_line(value, seed):
    line = json.dumps(value).encode()
    assert same_json(line, _respelled(value, random.Random(seed)))


@settings(max_examples=200, deadline=None)
@given(a=_JSON, b=_JSON)
def test_different_values_are_different_lines(a, b):
    # Python's == says 1 == 1.0 == True; JSON kinds differ (an integer column, `extra`, a flag).
    def kinds(v: object) -> object:
        if isinstance(v, dict):
            return {k: kinds(x) for k, x in v.items()}
        if isinstance(v, list):
            return [kinds(x) for x in v]
        return (type(v).__name__, v)

    assert same_json(json.dumps(a).encode(), json.dumps(b).encode()) == (kinds(a) == kinds(b))


def test_kinds_and_non_json_constants_are_kept_apart():
    assert not same_json(b'{"n": 1}', b'{"n": 1.0}')
    assert not same_json(b'{"n": 1}', b'{"n": true}')
    assert not same_json(b'{"n": "1"}', b'{"n": 1}')
    assert same_json(b'{"n": 1.0}', b'{"n": 1.00}')
    assert same_json(b'{"n": NaN}', b'{"n":NaN}') and not same_json(b'{"n": NaN}', b'{"n": Infinity}')
    assert not same_json(b'{"a": 1, "a": 2}', b'{"a": 2, "a": 1}')  # a member named twice, in another order
    assert same_json(b'{"a": 1, "a": 2}', b'{"a": 2}')  # the last one counts, as both parse paths land it
    assert same_json(b"{not json", b"{not json  ")


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2)), max_size=30))
def test_each_key_lands_once_when_its_lines_are_the_same_and_never_when_they_differ(lines):
    """Any sequence of (key, version) lines: a key all of whose lines are one version lands from
    its first and the rest are counted; a key with two versions lands from none, every line of it
    named in its conflict."""
    keyed = KeyedLines()
    landed = []
    for number, (key, version) in enumerate(lines, start=1):
        if keyed.add(key, (0, number), json.dumps({"k": key, "v": version}).encode()):
            landed.append((key, number))
    versions: dict[int, set[int]] = {}
    for key, version in lines:
        versions.setdefault(key, set()).add(version)
    for key, seen in versions.items():
        places = [(0, n) for n, (k, _) in enumerate(lines, start=1) if k == key]
        if len(seen) == 1:
            assert key not in keyed.conflicts
            assert [p for p in keyed.repeated if p in places] == places[1:]
        else:
            assert keyed.conflicts[key] == places
            assert not any(p in places for p in keyed.repeated)
    # The first line of each key is let through (its rows are taken back when the key conflicts).
    assert landed == [(key, next(n for n, (k, _) in enumerate(lines, 1) if k == key)) for key in versions]


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.tuples(st.integers(0, 4), st.integers(-1, 2)), max_size=30))
def test_a_key_with_a_refused_line_lands_from_none_of_its_lines(lines):
    """Version -1 is a line refused for what it holds (its key read): whatever comes before or
    after it, no line of its key stays let through, each of the key's other lines is in its
    conflict, and `every_line` names them all."""
    keyed = KeyedLines()
    for number, (key, version) in enumerate(lines, start=1):
        if version < 0:
            keyed.refuse(key, (0, number))
        else:
            keyed.add(key, (0, number), json.dumps({"k": key, "v": version}).encode())
    for key in {k for k, _ in lines}:
        places = [(0, n) for n, (k, _) in enumerate(lines, start=1) if k == key]
        refused = [(0, n) for n, (k, v) in enumerate(lines, start=1) if k == key and v < 0]
        if not refused:
            continue
        others = [p for p in places if p not in refused]
        if others:
            assert sorted(keyed.conflicts[key]) == others
            assert sorted(keyed.every_line(key)) == places
        else:
            assert key not in keyed.conflicts  # refused lines alone: each has its own reason
        assert not any(p in places for p in keyed.repeated)


def test_a_conflict_reason_names_line_numbers_and_files_never_the_key():
    assert conflict_reason([(0, 7), (0, 1)], "one user's record of 2026-11-20").startswith(
        "lines 1 and 7 of file 0 hold one user's record of 2026-11-20 with different figures"
    )
    assert conflict_reason([(2, 3), (0, 1), (2, 9)], "x").startswith(
        "line 1 of file 0, line 3 of file 2 and line 9 of file 2 hold x"
    )


def test_entry_keys_are_the_grains_of_the_tables_a_record_s_arrays_land_in():
    from pipelines.warehouse.catalog import table

    for name, keys in ENTRY_KEYS.items():
        grain = [c for c in table(f"core.{name}").grain if c not in ("scope", "scope_name", "level", "report_kind")]
        assert list(keys) == grain, name
