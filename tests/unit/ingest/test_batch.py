import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.ingest._batch import AdaptiveBatch


def test_batch_halves_on_choke_and_stops_at_one():
    batch = AdaptiveBatch(maximum=50, grow_after=2)
    sizes = []
    while batch.choked():
        sizes.append(batch.size)
    assert sizes == [25, 12, 6, 3, 1]
    assert batch.size == 1


def test_batch_grows_back_toward_the_size_that_choked_without_reaching_it():
    batch = AdaptiveBatch(maximum=40, grow_after=2)
    batch.choked()
    batch.choked()
    assert batch.size == 10
    seen = []
    for _ in range(10):
        batch.succeeded()
        seen.append(batch.size)
    assert seen == [10, 15, 15, 17, 17, 18, 18, 19, 19, 19]


def test_batch_doubles_back_to_the_maximum_once_the_choke_is_forgotten():
    batch = AdaptiveBatch(maximum=40, grow_after=1)
    batch.choked()
    sizes = [batch.size]
    for _ in range(55):
        batch.succeeded()
        sizes.append(batch.size)
    assert max(sizes[:50]) < 40
    assert sizes[-1] == 40


def test_fixed_server_limit_costs_few_failures():
    limit = 20
    batch = AdaptiveBatch(maximum=50, grow_after=2)
    failures = 0
    for _ in range(30):
        if batch.size > limit:
            failures += 1
            batch.choked()
        else:
            batch.succeeded()
    assert failures <= 3
    assert batch.size <= limit


@given(st.integers(1, 200), st.integers(1, 5), st.lists(st.booleans(), max_size=60))
def test_batch_size_stays_within_bounds(maximum, grow_after, outcomes):
    batch = AdaptiveBatch(maximum=maximum, grow_after=grow_after)
    for ok in outcomes:
        batch.succeeded() if ok else batch.choked()
        assert 1 <= batch.size <= maximum


def test_batch_rejects_a_zero_maximum():
    with pytest.raises(ValueError):
        AdaptiveBatch(maximum=0, grow_after=1)
