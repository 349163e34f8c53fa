"""An answer's body is read whole within its byte limit and its deadline, or refused."""

from collections.abc import Iterator

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.vendors._body import TooLarge, TooSlow, read_body


class _Chunks(httpx.SyncByteStream):
    def __init__(self, chunks: list[bytes], read: list[int]) -> None:
        self.chunks, self.read = chunks, read

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.chunks:
            self.read.append(len(chunk))
            yield chunk


def _response(chunks: list[bytes], read: list[int], headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(200, stream=_Chunks(chunks, read), headers=headers)


@given(st.lists(st.binary(max_size=50), max_size=20), st.integers(min_value=0, max_value=600))
def test_a_body_within_the_limit_is_read_whole_and_one_past_it_is_refused_by_the_chunk_that_passes(
    chunks: list[bytes], limit: int
) -> None:
    read: list[int] = []
    whole = b"".join(chunks)
    if len(whole) <= limit:
        assert read_body(_response(chunks, read), max_bytes=limit, deadline=float("inf")) == whole
    else:
        with pytest.raises(TooLarge):
            read_body(_response(chunks, read), max_bytes=limit, deadline=float("inf"))
        assert sum(read[:-1]) <= limit < sum(read)  # nothing read after the chunk that passed it


def test_a_content_length_past_the_limit_is_refused_before_any_byte_is_read() -> None:
    read: list[int] = []
    with pytest.raises(TooLarge):
        read_body(_response([b"x"], read, {"content-length": "11"}), max_bytes=10, deadline=float("inf"))
    assert read == []


def test_a_chunk_arriving_after_the_deadline_ends_the_read() -> None:
    read: list[int] = []
    ticks = iter([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(TooSlow):
        read_body(_response([b"a", b"b", b"c", b"d"], read), max_bytes=100, deadline=2.5, clock=lambda: next(ticks))
    assert len(read) == 3
