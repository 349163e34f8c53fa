"""A seat loses nothing: every value it carries is in its declared column, in `extra` (told as
drift), or a link of the service's objects that the archived listing keeps (seat_fields.py)."""

from __future__ import annotations

import json
from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from pipelines.transform import seats as tf
from pipelines.transform.seat_fields import FURNITURE, SEAT_FIELDS, UNDECLARED

DAY = date(2026, 11, 20)
_TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=12)
_NEW = st.text(alphabet="abcdefghij_", min_size=1, max_size=8).map(lambda name: f"new_{name}")
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6,
)


def _value(dtype: object) -> st.SearchStrategy[object]:
    name = type(dtype).__name__
    if name == "Int64":
        return st.integers(1, 2**40)
    if name == "Date":
        return st.dates().map(date.isoformat)
    if name == "Datetime":
        return st.datetimes().map(lambda at: at.isoformat() + "Z")
    return st.none() | _TEXT


@st.composite
def _seats(draw: st.DrawFn) -> tuple[dict, dict[tuple[str, ...], object]]:
    """A seat of every declared field, with new fields beside them at the top and in its objects."""
    seat: dict = {}
    added: dict[tuple[str, ...], object] = {}
    for path, (_, dtype) in SEAT_FIELDS.items():
        node = seat
        for step in path[:-1]:
            node = node.setdefault(step, {})
        node[path[-1]] = draw(_value(dtype))
    for at in ((), ("assignee",), ("assigning_team",), ("assigning_team", "parent")):
        for name, value in draw(st.dictionaries(_NEW, _JSON, max_size=2)).items():
            node = seat
            for step in at:
                node = node[step]
            node[name] = value
            added[(*at, name)] = value
    if draw(st.booleans()):
        seat["assignee"]["avatar_url"] = "https://example.invalid/a.png"  # a link: known, in the archive only
    return seat, added


@given(_seats())
def test_every_value_of_a_seat_is_in_its_column_or_in_extra_with_its_drift(drawn):
    seat, added = drawn
    rows = tf.seats_frame(records=[seat], day=DAY, org="acme")
    assert rows.refused == []
    (row,) = rows.seats.iter_rows(named=True)
    for path, (column, _) in SEAT_FIELDS.items():
        value = seat
        for step in path:
            value = value[step]
        assert (row[column] is None) == (value is None), column
        if isinstance(value, (int, str)) and column not in (
            "created_at",
            "updated_at",
            "last_activity_at",
            "last_authenticated_at",
            "pending_cancellation_date",
        ):
            assert row[column] == value, column
    extra = json.loads(row["extra"]) if row["extra"] else {}
    for path, value in added.items():
        node = extra
        for step in path:
            node = node[step]
        assert node == value, path
    assert sorted(path for path, drift, _ in rows.drift if drift == UNDECLARED) == sorted(
        ".".join(path) for path in added
    )
    assert "avatar_url" in FURNITURE and "avatar_url" not in json.dumps(extra)
