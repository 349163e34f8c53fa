"""An archived report file written again without the lines that name a person, or with their
login out of a line's text (docs/privacy.md).

The file is read and written as a stream (zstd in, zstd out, one line at a time), so memory
stays at one line whatever the file's size. The new file is written aside and renamed, under
the archive's usual name: its stem and the first 16 hex digits of the new content's sha256.
The old file is left for the caller to remove once it has recorded the new path and sha256
(warehouse.erasure.record_rewrite), so a crash leaves one or both, never neither.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import zstandard

_ZSTD_LEVEL = 1
_NAME = re.compile(r"^(?P<stem>.+)-[0-9a-f]{16}\.ndjson\.zst$")


@dataclass(frozen=True)
class Rewritten:
    path: Path
    sha256: str
    bytes: int
    lines_removed: int


def rewrite_without(path: Path, drop: Callable[[bytes], bool]) -> Rewritten | None:
    """Write `path` again without the lines `drop` says go; None (file untouched) if none does."""
    return rewrite_lines(path, lambda line: None if drop(line) else line)


def rewrite_lines(path: Path, edit: Callable[[bytes], bytes | None]) -> Rewritten | None:
    """Write `path` again with each line as `edit` gives it back (None: the line goes);
    None (file untouched) if no line went or changed."""
    match = _NAME.match(path.name)
    stem = match.group("stem") if match else path.name.split(".", 1)[0]
    # The download's own part name, so `remove_dead_parts` clears it after a crash too.
    temp = path.with_name(f".{stem}.{os.getpid()}.part")
    digest = hashlib.sha256()
    kept = removed = changed = 0
    try:
        with (
            path.open("rb") as source,
            io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(source), 1 << 20) as unpacked,
            temp.open("wb") as raw,
            zstandard.ZstdCompressor(level=_ZSTD_LEVEL).stream_writer(raw) as packed,
        ):
            for line in unpacked:  # each line with its newline (the last may lack one)
                edited = edit(line)
                if edited is None:
                    removed += 1
                    continue
                changed += edited != line
                digest.update(edited)
                packed.write(edited)
                kept += len(edited)
            packed.flush(zstandard.FLUSH_FRAME)
            raw.flush()
            os.fsync(raw.fileno())
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    if not removed and not changed:
        temp.unlink()
        return None
    sha = digest.hexdigest()
    final = path.with_name(f"{stem}-{sha[:16]}.ndjson.zst")
    temp.replace(final)
    return Rewritten(path=final, sha256=sha, bytes=kept, lines_removed=removed)
