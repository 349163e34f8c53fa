"""The spool's segment files: the record format, and reading records back.

A segment file holds records, each a 12-byte header (magic, body length, CRC-32 of the body)
followed by the body: one JSON line of metadata, then the payload document as received. Only
the last record of a segment can be torn (one writer appends to it); `read_segment` stops
before such a record and raises on damage anywhere else. The writer is `spool.Spool`.
"""

from __future__ import annotations

import fcntl
import json
import os
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from pipelines.webhooks.errors import SpoolCorrupt

_MAGIC = b"WHS1"
_HEADER = struct.Struct("<4sII")
_MAX_BODY = 1 << 30
SEGMENT_SUFFIX = ".seg"


@dataclass(frozen=True)
class SpoolRecord:
    delivery_id: str
    event: str
    received_at: str
    payload: bytes
    # Which payload rules (`payload.PAYLOAD_RULES`) the receiver that wrote it had checked: 0 for
    # a record written before they were numbered, which the loader checks itself.
    rules: int = 0


@dataclass(frozen=True)
class SpooledRecord:
    """A record read back from a segment, with the byte offsets where it starts and ends."""

    record: SpoolRecord
    offset: int
    end_offset: int


def encode_record(record: SpoolRecord) -> bytes:
    fields: dict[str, str | int] = {"id": record.delivery_id, "event": record.event, "received_at": record.received_at}
    if record.rules:
        fields["rules"] = record.rules
    meta = json.dumps(fields, separators=(",", ":")).encode()
    body = meta + b"\n" + record.payload
    return _HEADER.pack(_MAGIC, len(body), zlib.crc32(body)) + body


def _decode_body(body: bytes) -> SpoolRecord:
    meta_end = body.index(b"\n")
    meta = json.loads(body[:meta_end])
    return SpoolRecord(
        delivery_id=meta["id"],
        event=meta["event"],
        received_at=meta["received_at"],
        payload=body[meta_end + 1 :],
        rules=int(meta.get("rules", 0)),
    )


def segments(directory: Path) -> list[Path]:
    """Segments oldest first (names start with the creation time in nanoseconds)."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.name.endswith(SEGMENT_SUFFIX))


def read_segment(path: Path, *, offset: int = 0) -> Iterator[SpooledRecord]:
    """Complete records from `offset` on; stops before a torn last record, raises on damage."""
    with path.open("rb") as f:
        size = os.fstat(f.fileno()).st_size
        f.seek(offset)
        pos = offset
        while pos < size:
            header = f.read(_HEADER.size)
            if len(header) < _HEADER.size:
                return
            magic, length, crc = _HEADER.unpack(header)
            if magic != _MAGIC or length > _MAX_BODY:
                _torn_or_corrupt(f, path, pos, size, header, "bad record header")
                return
            body = f.read(length)
            end = pos + _HEADER.size + length
            if len(body) < length:
                return
            if zlib.crc32(body) != crc:
                if end >= size:
                    return
                raise SpoolCorrupt(segment=path.name, offset=pos, reason="checksum mismatch")
            yield SpooledRecord(record=_decode_body(body), offset=pos, end_offset=end)
            pos = end


def _torn_or_corrupt(f: BinaryIO, path: Path, pos: int, size: int, header: bytes, reason: str) -> None:
    # A crash can leave the tail zero-filled; anything else after a bad header is damage.
    rest = header + f.read(size - pos - len(header))
    if rest.count(0) == len(rest):
        return
    raise SpoolCorrupt(segment=path.name, offset=pos, reason=reason)


def writer_gone(path: Path) -> bool:
    """True when no process holds `path` open for appending (its writer closed it or died)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True
